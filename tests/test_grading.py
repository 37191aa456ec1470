"""Grading a class: outputs, resuming after an interruption, shards, Gradescope's format."""

import csv
import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from autograder import grading
from autograder.cases import load_week
from autograder.release import week_sources
from autograder.weeks import WEEKS
from autograder.workers import Limits

REPO = Path(__file__).resolve().parent.parent
FAST = Limits(case_seconds=2.0, run_seconds=30.0)
# Week 6's cases compile (Dynamo, AOTAutograd, generated kernels, an MLP trained on labdev):
# one took over 2 s on a loaded 2-core machine; its limits stay those a class is graded with.
# Week 7's cases run worlds of rank threads (real DDP among them): the same.
COMPILING = {"week6": Limits(), "week7": Limits()}
GRADESCOPE_TEST_KEYS = {"score", "max_score", "status", "name", "number", "output", "tags"}
GRADESCOPE_TEST_KEYS |= {"visibility"}
VISIBILITY = {"hidden", "after_due_date", "after_published", "visible"}


def make_class(root: Path, students: dict[str, str]) -> Path:
    """students: id -> "reference" | "skeleton"; each folder holds every week's file."""
    for student, kind in students.items():
        (root / student).mkdir(parents=True)
        for w in WEEKS.values():
            for name in week_sources(w):  # the module, and a native week's C++
                folder = "reference_impl" if kind == "reference" else f"{w.track}/{w.folder}"
                (root / student / name).write_text((REPO / folder / name).read_text())
    return root


def max_points(week: str = "week1") -> int:
    return sum(c.points for c in load_week(week, include_hidden=True))


@pytest.fixture(scope="module")
def small_class(tmp_path_factory):
    root = tmp_path_factory.mktemp("class")
    return make_class(root / "subs", {"ann": "reference", "ben": "skeleton", "cat": "reference"})


@pytest.mark.parametrize("week", list(WEEKS))
def test_class_outputs(small_class, tmp_path, week):
    out = tmp_path / "out"
    limits = COMPILING.get(week, FAST)
    reports = grading.grade_class(small_class, out, [WEEKS[week]], jobs=2, limits=limits)
    assert {s: r["score"] for (s, _), r in reports.items()} == {
        "ann": max_points(week),
        "ben": 0,
        "cat": max_points(week),
    }
    for student in ("ann", "ben", "cat"):
        folder = out / "students" / student
        assert {p.name for p in folder.iterdir()} == {
            f"{week}.json",
            f"{week}.html",
            "results.json",
        }
    page = (out / f"students/ben/{week}.html").read_text()
    assert "not implemented yet" in page and "hidden case 1" in page
    rows = list(csv.DictReader((out / "gradebook.csv").open()))
    assert [r["student_id"] for r in rows] == ["ann", "ben", "cat"]
    assert rows[0]["assignment"] == week and rows[0]["max_score"] == str(max_points(week))
    header = next(csv.reader((out / "gradebook.csv").open()))
    assert header[: len(grading.NBGRADER_COLUMNS)] == grading.NBGRADER_COLUMNS
    assert len(header) == len(grading.NBGRADER_COLUMNS) + len(load_week(week, True))


def test_rerun_keeps_what_was_graded(small_class, tmp_path):
    out = tmp_path / "out"
    grading.grade_class(small_class, out, [WEEKS["week1"]], limits=FAST)
    before = {p: p.stat().st_mtime_ns for p in out.glob("students/*/week1.json")}
    seen = []
    grading.grade_class(
        small_class,
        out,
        [WEEKS["week1"]],
        limits=FAST,
        progress=lambda s, w, r, fresh: seen.append(fresh),
    )
    assert seen == [False, False, False]
    assert before == {p: p.stat().st_mtime_ns for p in out.glob("students/*/week1.json")}
    # a changed submission is graded again
    (small_class / "cat" / "strides.py").write_text("raise SystemExit('broken')\n")
    try:
        reports = grading.grade_class(small_class, out, [WEEKS["week1"]], limits=FAST)
        assert reports[("cat", "week1")]["score"] == 0
    finally:
        (small_class / "cat" / "strides.py").write_text(
            (REPO / "reference_impl/strides.py").read_text()
        )


def test_interrupted_run_resumes(tmp_path):
    subs = make_class(tmp_path / "subs", {f"s{i}": "reference" for i in range(4)})
    out = tmp_path / "out"
    cmd = [sys.executable, "-m", "autograder.cli", "grade", str(subs), "--out", str(out)]
    cmd += ["--week", "week1"]  # one report per student: the count below is per report
    proc = subprocess.Popen(
        [*cmd, "--jobs", "1"], stdout=subprocess.DEVNULL, start_new_session=True
    )
    deadline = time.monotonic() + 60
    while not list(out.glob("students/*/week1.json")) and time.monotonic() < deadline:
        time.sleep(0.05)
    os.killpg(proc.pid, signal.SIGKILL)  # no chance to clean up
    proc.wait()
    done = {p: p.stat().st_mtime_ns for p in out.glob("students/*/week1.json")}
    assert 1 <= len(done) < 4
    for path in done:  # atomic writes: whatever exists after a kill is a whole report
        assert json.loads(path.read_text())["student"] == path.parent.name
    run = subprocess.run(cmd, capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    assert run.stdout.count("already graded, kept") == len(done)
    assert all(p.stat().st_mtime_ns == t for p, t in done.items())
    assert len(list(out.glob("students/*/week1.json"))) == 4


def test_shards_merge_to_the_same_gradebook(small_class, tmp_path):
    whole = tmp_path / "whole"
    grading.grade_class(small_class, whole, [WEEKS["week1"]], limits=FAST)
    parts = []
    for i in (1, 2):
        part = tmp_path / f"shard{i}"
        grading.grade_class(
            small_class, part, [WEEKS["week1"]], shard=grading.Shard(i, 2), limits=FAST
        )
        parts.append(part)
    assert {p.name for p in (parts[0] / "students").iterdir()} == {"ann", "cat"}
    assert {p.name for p in (parts[1] / "students").iterdir()} == {"ben"}
    merged = tmp_path / "merged"
    grading.merge(merged, parts)
    assert (merged / "gradebook.csv").read_text() == (whole / "gradebook.csv").read_text()


def test_an_empty_shard_merges_but_a_folder_no_shard_wrote_does_not(small_class, tmp_path):
    # A job array wider than the class (docker/'s Slurm and Kubernetes files run 8 shards):
    # the shards past the last student grade nobody, and the merge takes them.
    empty = tmp_path / "shard4"
    grading.grade_class(small_class, empty, [WEEKS["week1"]], shard=grading.Shard(4, 4))
    assert json.loads((empty / "manifest.json").read_text()) == {"reports": {}}
    assert grading.merge(tmp_path / "merged", [empty]) == {}
    never_ran = tmp_path / "shard5"  # a shard that failed before writing anything
    never_ran.mkdir()
    with pytest.raises(ValueError, match="no manifest.json"):
        grading.merge(tmp_path / "merged", [empty, never_ran])


def test_answers_only_fills_the_cache_with_every_case_and_grades_nothing(tmp_path):
    """What a grading image runs at build time: torch's answers for every case of the week,
    hidden ones included, land in the oracle cache, and no grades are written."""
    from autograder.oracle import cache_key

    cache = tmp_path / "cache"
    run = subprocess.run(
        [sys.executable, "-m", "autograder.cli", "grade", "--answers-only", "--week", "week1"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env={**os.environ, "TORCHLAB_CACHE": str(cache)},
    )
    assert run.returncode == 0, run.stdout + run.stderr
    assert "torch's answers are in the cache for week1 (" in run.stdout
    answered = json.loads((cache / "oracle" / f"week1-{cache_key('week1')}.json").read_text())
    every = {c.id for c in load_week("week1", include_hidden=True)}
    assert every <= set(answered) and any("hidden" in i for i in every)
    assert not (tmp_path / "grades").exists()


@pytest.mark.parametrize("text", ["0/2", "3/2", "x", "1-2"])
def test_bad_shard_is_a_clear_error(text):
    with pytest.raises(ValueError, match="--shard"):
        grading.Shard.parse(text)


def validate_gradescope(results: dict) -> None:
    """The documented fields (gradescope/autograder_samples docs/specs.md)."""
    assert isinstance(results["score"], int | float)
    assert isinstance(results["execution_time"], int | float)
    assert results["stdout_visibility"] in VISIBILITY
    assert results["score"] == sum(t["score"] for t in results["tests"])
    for t in results["tests"]:
        assert set(t) <= GRADESCOPE_TEST_KEYS
        assert 0 <= t["score"] <= t["max_score"]
        assert t["status"] in ("passed", "failed") and t["visibility"] in VISIBILITY
        assert isinstance(t["name"], str) and isinstance(t["number"], str)


@pytest.mark.parametrize("kind", ["reference", "skeleton", "missing"])
def test_gradescope_layout(tmp_path, kind):
    root = tmp_path / "autograder"
    if kind != "missing":
        make_class(root, {"submission": kind})
    run = subprocess.run(
        [sys.executable, "-m", "autograder.cli", "grade", "--gradescope", str(root)],
        capture_output=True,
        text=True,
    )
    assert run.returncode == 0, run.stderr
    results = json.loads((root / "results" / "results.json").read_text())
    validate_gradescope(results)
    every_week = sum(max_points(w) for w in WEEKS)  # a submission of every week's file
    assert results["score"] == (every_week if kind == "reference" else 0)
    hidden = [t for t in results["tests"] if t["visibility"] == "after_published"]
    assert hidden and all(re.match(r"week\d+[a-z]? hidden case \d+$", t["name"]) for t in hidden)
    if kind == "missing":
        assert "cannot find" in results["output"]
