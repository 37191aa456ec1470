"""Hostile submissions are contained: each scores what its real work earns, says why, and
changes nobody else's grade or files.

Every file in ``samples/hostile/`` is graded by ``grade_class`` as a student of a class that
also holds the reference (``ada_reference``, full marks) and the skeleton (``bo_skeleton``,
0). None does real work, so each must score 0, with the reason in its report; ada and bo
must get exactly the results they get when graded alone; the class folder, an earlier
student's saved report and everything outside the output folder must stay as they were.

Most hostile students are graded together, once, in one class (``graded``). Those that
attack the grader's own process are graded apart: ``pipe_garbage`` and ``bad_observation``
in a class each (a grader they crash takes no other evidence with it), ``kill_parent`` and
``pipe_flood`` by a separate ``torchlab grade`` process each (should the guard fail, that
process dies or hangs, not pytest).
"""

from __future__ import annotations

import csv
import importlib.util
import os
import subprocess
import sys
import time
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from autograder import grading, isolation, zygote
from autograder.cases import load_week, run_case
from autograder.judge import judge
from autograder.oracle import expected_observations
from autograder.report import PASS
from autograder.samples import sample_submissions
from autograder.weeks import WEEKS
from autograder.workers import Limits

REPO = Path(__file__).resolve().parent.parent
HOSTILE = REPO / "samples" / "hostile"
LIMITS = Limits(case_seconds=2.0, import_seconds=5.0, run_seconds=6.0, memory_mb=1024)
# Attacks on the grader's own reading of the result pipe: each in a class of its own.
OWN_CLASS = [
    "bad_observation",
    "bad_violations",
    "huge_observation",
    "lone_surrogate",
    "nested_json",
    "pipe_garbage",
    "unhashable_id",
]
SUBPROCESS = ["kill_parent", "pipe_flood"]
ALL = sorted(p.stem for p in HOSTILE.glob("*.py"))
GROUPED = [h for h in ALL if h not in OWN_CLASS + SUBPROCESS]
EARLIER = "zz_earlier"  # a student graded in an earlier run: their saved files must not move
UNSAFE = isolation.bubblewrap_problem() is not None  # then only the guard stands (CI says so)
BEFORE_SCHEDULING = (os.getpriority(os.PRIO_PROCESS, 0), os.sched_getaffinity(0))

# The words each hostile student's report must carry: "some" somewhere in it (a case message,
# a problem, or what a case printed), "every" in each case's message or output. An empty
# entry asks only for a non-empty message on every case: the attacks on the grader's own
# pipe and judge (pin their words once the runner names them).
REASONS: dict[str, dict[str, list[str]]] = {
    "infinite_loop": {
        "some": [
            f"took longer than {LIMITS.case_seconds:g} s and was stopped",
            f"not run: the whole check took longer than {LIMITS.run_seconds:g} s",
        ],
    },
    "memory_bomb": {"every": ["MemoryError"]},
    "fork_bomb": {"every": ["may not start other processes"]},
    "sys_exit": {"every": ["called sys.exit(0)"]},
    "os_exit": {"some": ["the process exited with code 0"]},
    "segfault": {"some": ["the process crashed (segmentation fault) at strides.py line"]},
    "fake_summary": {},
    "forge_results": {},
    "patch_modules": {"some": ["gives str passed"]},  # judged here: the worker's patches lose
    "read_answers": {"every": ["may not read"], "some": ["reads refused"]},
    # Behind the sandbox it finds no gradebook to write: the guard refuses its first try.
    "write_gradebook": {"every": ["may not"], "some": ["refused"]},
    "wraps_torch": {"every": ["scores zero: your code imported torch, which this lab forbids"]},
    "escape_subprocess": {"every": ["may not start other processes"]},
    "network": {"every": ["may not use the network"]},
    "ctypes_libc": {"every": ["may not use ctypes"]},
    "subinterpreter": {"every": ["may not import _xxsubinterpreters"]},
    "native_extension": {"every": ["may not load native code"]},
    "thread_bomb": {"every": ["may not start threads"]},
    "spoof_console": {"every": ["zz_top_student"]},
    "bad_observation": {},
    "pipe_garbage": {},
    "pipe_flood": {},
    "kill_parent": {"every": ["may not signal other processes"]},
    # Written against the audit hook alone; each got past it. The sandbox stops them.
    "fspath_trick": {},
    "patch_hook_globals": {},
    "dir_fd_escape": {},
    "replace_run_one": {},
    "symlink_lab": {"every": ["labs/week1_strides is a symbolic link"]},
    "outlive_grade": {},
    "shm_persist": {},
    "renice_grader": {},
    "many_files": {},
    "nested_json": {},
    "unhashable_id": {},
    "bad_violations": {},
    "lone_surrogate": {},
    "huge_observation": {},
    "leak_hidden": {},
    "native_write": {},
    "native_socket": {},
    "native_fork": {},
}
# Words no report may carry: a reason that is not the real one.
FALSE_REASONS = {
    "os_exit": ["importing the module took longer"],
    "segfault": ["importing the module took longer"],
}


def max_points() -> int:
    return sum(c.points for c in load_week("week1", include_hidden=True))


def make_class(root: Path, hostiles: list[str]) -> Path:
    """ada_reference, bo_skeleton (with a sentinel file) and h_<name> for each hostile. A
    hostile file that defines ``SETUP(student_dir, repo_root)`` shapes its folder itself
    (a linked lab folder, say)."""
    samples = sample_submissions()
    students = {s: samples[s][1] for s in ("ada_reference", "bo_skeleton")}
    students.update({f"h_{h}": (HOSTILE / f"{h}.py").read_text() for h in hostiles})
    for student, text in students.items():
        (root / student).mkdir(parents=True)
        (root / student / "strides.py").write_text(text)
        if "\ndef SETUP(" in text:  # our own sample file: only SETUP runs here
            namespace: dict[str, Any] = {}
            exec(compile(text, f"{student}/strides.py", "exec"), namespace)
            namespace["SETUP"](root / student, REPO)
    (root / "bo_skeleton" / "notes.txt").write_text("a sentinel: no submission may change me\n")
    return root


def escape_evidence() -> list[str]:
    """What an escaped attack leaves where the grader's machine would keep it: marker files
    in /tmp and /dev/shm, SysV shared memory, and processes still running its code: this
    test process's workers and sandboxes (their environment carries its TORCHLAB_RUN label; a
    process left inside a sandbox keeps that sandbox's bwrap alive, which carries it too)."""
    found = [str(p) for d in ("/tmp", "/dev/shm") for p in Path(d).glob("*torchlab-escape*")]
    ipcs = subprocess.run(["ipcs", "-m"], capture_output=True, text=True).stdout
    found += [f"SysV segment: {line}" for line in ipcs.splitlines()[3:] if line.strip()]
    for proc in Path("/proc").iterdir():
        try:
            cmdline = (proc / "cmdline").read_bytes()
        except OSError:
            continue
        if b"autograder.worker" in cmdline or b"bwrap" in cmdline.split(b"\0")[0]:
            if _ours(proc):
                found.append(f"process {proc.name}: {cmdline[:80]!r}")
    return found


def _ours(proc: Path) -> bool:
    """Was this process started by this test process (its TORCHLAB_RUN label)? A live process
    whose environment cannot be read counts as ours: better a false alarm than a miss."""
    label = f"TORCHLAB_RUN={os.environ['TORCHLAB_RUN']}".encode()
    try:
        return label in (proc / "environ").read_bytes().split(b"\0")
    except OSError:
        return proc.exists()  # gone since it was listed: not a leftover


def snapshot(folder: Path) -> dict[str, tuple[bytes, int]]:
    """Every file under ``folder``: its bytes and modification time."""
    return {
        str(p.relative_to(folder)): (
            os.readlink(p).encode() if p.is_symlink() else p.read_bytes(),
            p.lstat().st_mtime_ns,
        )
        for p in sorted(folder.rglob("*"))
        if p.is_file() or p.is_symlink()
    }


def rows(out: Path) -> dict[str, dict[str, str]]:
    return {r["student_id"]: r for r in csv.DictReader((out / "gradebook.csv").open())}


def reasons(data: dict[str, Any], every: bool) -> list[str]:
    """Per case (every) or all together: messages, problems and what the code printed."""
    texts = [r["message"] + "\n" + r["output"] for r in data["results"]]
    return texts if every else ["\n".join(texts + data["problems"])]


def results_by_case(data: dict[str, Any]) -> dict[str, tuple[str, str]]:
    return {r["id"]: (r["status"], r["message"]) for r in data["results"]}


@dataclass
class Graded:
    root: Path
    out: Path
    reports: dict[tuple[str, str], dict[str, Any]]
    fresh: set[str]
    class_before: dict[str, tuple[bytes, int]]
    class_after: dict[str, tuple[bytes, int]]
    earlier_before: dict[str, tuple[bytes, int]]
    root_before: list[str]
    seconds: float
    evidence: list[str]  # what escaped attacks left behind (see escape_evidence)
    scheduling: tuple[Any, Any]  # the grader's nice value and CPU set, after grading

    def data(self, student: str) -> dict[str, Any]:
        return self.reports[(student, "week1")]


def grade(root: Path, hostiles: list[str], earlier: bool = False) -> Graded:
    """Grade a class of ada, bo and ``hostiles``. With ``earlier``, the output folder
    already holds a student graded by an earlier run (the skeleton, as ``zz_earlier``)."""
    subs = make_class(root / "class", hostiles)
    out = root / "out"
    if earlier:
        first = root / "earlier"
        (first / EARLIER).mkdir(parents=True)
        (first / EARLIER / "strides.py").write_text(sample_submissions()["bo_skeleton"][1])
        grading.grade_class(first, out, [WEEKS["week1"]], limits=LIMITS, unsafe_no_sandbox=UNSAFE)
    earlier_before = snapshot(out / "students" / EARLIER) if earlier else {}
    class_before = snapshot(subs)
    root_before = sorted(p.name for p in root.iterdir())
    fresh: set[str] = set()

    def progress(student: str, week: str, report: Any, is_fresh: bool) -> None:
        if is_fresh:
            fresh.add(student)

    started = time.perf_counter()
    reports = grading.grade_class(
        subs,
        out,
        [WEEKS["week1"]],
        jobs=2,
        limits=LIMITS,
        progress=progress,
        unsafe_no_sandbox=UNSAFE,
    )
    seconds = time.perf_counter() - started
    class_after = snapshot(subs)
    scheduling = (os.getpriority(os.PRIO_PROCESS, 0), os.sched_getaffinity(0))
    return Graded(
        root,
        out,
        reports,
        fresh,
        class_before,
        class_after,
        earlier_before,
        root_before,
        seconds,
        escape_evidence(),
        scheduling,
    )


@pytest.fixture(scope="module")
def baseline(tmp_path_factory) -> Graded:
    """ada and bo graded alone: what they must also get beside any hostile student."""
    return grade(tmp_path_factory.mktemp("baseline"), [])


@pytest.fixture(scope="module")
def graded(tmp_path_factory, baseline) -> Graded:
    """Every grouped hostile student, graded once, two at a time, beside ada and bo."""
    # Fork servers idle in the pool (earlier tests graded week 2b) are the grader's own
    # bwrap processes, not an attack's: close them so only what an attack leaves is counted.
    zygote.POOL.close()
    deadline = time.monotonic() + 10  # a server killed with its thread may still be exiting
    while escape_evidence() and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not escape_evidence(), "clean up before grading: " + "; ".join(escape_evidence())
    return grade(tmp_path_factory.mktemp("hostile"), GROUPED, earlier=True)


def test_baseline(baseline):
    assert baseline.data("ada_reference")["score"] == max_points()
    assert baseline.data("bo_skeleton")["score"] == 0


def assert_fair(data: dict[str, Any], hostile: str) -> None:
    """0 points (no case passes), and each failing case says why, in the right words."""
    passed = [r["name"] for r in data["results"] if r["status"] == PASS]
    assert data["score"] == 0 and not passed, f"h_{hostile} earned points it did not: {passed}"
    assert all(r["message"] for r in data["results"]), "every failing case says why"
    words = REASONS[hostile]
    for text in reasons(data, every=True):
        for w in words.get("every", []):
            assert w in text, (hostile, w, text[:300])
    [everything] = reasons(data, every=False)
    for w in words.get("some", []):
        assert w in everything, (hostile, w, everything[:600])
    for w in FALSE_REASONS.get(hostile, []):
        assert w not in everything, (hostile, f"a false reason: {w!r}", data["problems"])


def assert_others_untouched(
    reports: dict[tuple[str, str], dict[str, Any]], baseline: Graded, fresh: set[str]
) -> None:
    """ada and bo graded in this run, with exactly their results when graded alone."""
    for student in ("ada_reference", "bo_skeleton"):
        assert student in fresh, f"{student} was not graded in this run"
        got, alone = reports[(student, "week1")], baseline.data(student)
        assert got["score"] == alone["score"]
        assert results_by_case(got) == results_by_case(alone), student
    assert reports[("ada_reference", "week1")]["score"] == max_points()
    assert reports[("bo_skeleton", "week1")]["score"] == 0


@pytest.mark.parametrize("hostile", GROUPED)
def test_hostile_scores_what_it_earned_and_says_why(graded, hostile):
    assert_fair(graded.data(f"h_{hostile}"), hostile)


def test_other_students_are_graded_as_if_alone(graded, baseline):
    assert_others_untouched(graded.reports, baseline, graded.fresh)


def test_nothing_is_written_outside_the_output_folder(graded):
    assert graded.class_after == graded.class_before  # bytes and mtimes, sentinel included
    assert sorted(p.name for p in graded.root.iterdir()) == graded.root_before
    assert not graded.evidence, "left behind: " + "; ".join(graded.evidence)


def test_hidden_cases_never_reach_a_student(graded):
    """leak_hidden copies every hidden name it can find into its public messages."""
    hidden = [c.name for c in load_week("week1", include_hidden=True) if c.hidden]
    student = graded.out / "students" / "h_leak_hidden"
    shown = (student / "week1.html").read_text() + (student / "results.json").read_text()
    assert hidden and not [name for name in hidden if name in shown]


def test_the_grader_keeps_its_priority_and_its_cpus(graded):
    assert graded.scheduling == (BEFORE_SCHEDULING[0], BEFORE_SCHEDULING[1])
    students = {f"h_{h}" for h in GROUPED} | {"ada_reference", "bo_skeleton", EARLIER}
    expected = {"gradebook.csv", "manifest.json"}
    for s in students - {EARLIER}:
        expected |= {f"students/{s}/{n}" for n in ("week1.json", "week1.html", "results.json")}
    expected |= {f"students/{EARLIER}/{n}" for n in ("week1.json", "week1.html", "results.json")}
    found = {str(p.relative_to(graded.out)) for p in graded.out.rglob("*") if not p.is_dir()}
    assert found == expected
    assert all(p.is_file() for p in graded.out.rglob("*") if not p.is_dir())  # no FIFO, no link


def test_gradebook_and_earlier_reports_are_untouched(graded, baseline):
    earlier = graded.out / "students" / EARLIER
    kept = {k: v for k, v in snapshot(earlier).items() if k != "results.json"}
    before = {k: v for k, v in graded.earlier_before.items() if k != "results.json"}
    assert kept == before, "an earlier student's saved report changed"
    book = (graded.out / "gradebook.csv").read_text()
    assert book == grading.gradebook_csv(grading.load_reports([graded.out]))
    got, alone = rows(graded.out), rows(baseline.out)
    assert set(got) == {f"h_{h}" for h in GROUPED} | {"ada_reference", "bo_skeleton", EARLIER}
    for student in ("ada_reference", "bo_skeleton"):
        assert got[student] == alone[student]
    assert got[EARLIER] | {"student_id": "bo_skeleton"} == alone["bo_skeleton"]


def test_console_table_has_one_line_per_student(graded):
    table = grading.summary_table(graded.reports)
    students = sorted({s for s, _ in graded.reports})
    lines = table.split("\n")
    assert len(lines) == 1 + len(students), "a student's message added lines to the table"
    assert [ln.split()[0] for ln in lines[1:]] == students
    assert not any(ch in table for ch in "\r\x1b"), "control characters reach the console"


def test_the_whole_hostile_class_is_graded_quickly(graded):
    # every hostile student is stopped by a limit, not by patience
    assert graded.seconds < 60, graded.seconds


@pytest.mark.parametrize("hostile", OWN_CLASS)
def test_grader_survives_a_submission_that_attacks_it(tmp_path, baseline, hostile):
    graded = grade(tmp_path, [hostile])  # raises if the submission crashes the grader
    assert_fair(graded.data(f"h_{hostile}"), hostile)
    assert_others_untouched(graded.reports, baseline, graded.fresh)
    assert graded.class_after == graded.class_before
    assert set(rows(graded.out)) == {f"h_{hostile}", "ada_reference", "bo_skeleton"}


@pytest.mark.parametrize("hostile", SUBPROCESS)
def test_grader_process_survives_and_stops_it_in_time(tmp_path, baseline, hostile):
    subs = make_class(tmp_path / "class", [hostile])
    before = snapshot(subs)
    out = tmp_path / "out"
    cmd = [sys.executable, "-m", "autograder.cli", "grade", str(subs), "--out", str(out)]
    cmd += ["--jobs", "2", "--timeout", f"{LIMITS.case_seconds:g}"]
    cmd += ["--student-timeout", f"{LIMITS.run_seconds:g}", "--memory-mb", str(LIMITS.memory_mb)]
    cmd += ["--unsafe-no-sandbox"] if UNSAFE else []
    run = subprocess.run(cmd, capture_output=True, text=True, timeout=60, cwd=tmp_path)
    assert run.returncode == 0, run.stdout + run.stderr
    assert f"h_{hostile}" in run.stdout and "ada_reference" in run.stdout
    reports = grading.load_reports([out])
    data = reports[(f"h_{hostile}", "week1")]
    assert_fair(data, hostile)
    budget = LIMITS.run_seconds + 3.0
    assert data["seconds"] < budget, f"h_{hostile} ran {data['seconds']} s, past its limits"
    assert_others_untouched(reports, baseline, {"ada_reference", "bo_skeleton"})
    assert set(rows(out)) == {f"h_{hostile}", "ada_reference", "bo_skeleton"}
    assert snapshot(subs) == before


def test_wraps_torch_would_earn_full_marks_if_torch_were_allowed():
    """The wrapper is a real cheat: only the guard stands between it and full marks."""
    spec = importlib.util.spec_from_file_location("strides", HOSTILE / "wraps_torch.py")
    assert spec is not None and spec.loader is not None
    engine = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(engine)
    cases = load_week("week1", include_hidden=True)
    expected = expected_observations(WEEKS["week1"], cases)
    earned = 0
    for c in cases:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            seen = run_case(c, engine, expected[c.id]["examples"])
        earned += c.points if judge(expected[c.id]["expected"], seen).status == PASS else 0
    assert earned == max_points()


def test_every_hostile_file_is_tested_and_documented():
    assert set(REASONS) == set(ALL)
    for path in HOSTILE.glob("*.py"):
        doc = path.read_text().split('"""')[1]
        assert doc.startswith("Hostile submission: ") and "must" in doc, path.name
        assert "grader" in doc or "guard" in doc, path.name
