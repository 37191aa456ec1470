"""The nbgrader course round trip, with the real nbgrader commands in a temporary course.

``torchlab nbgrader export`` -> ``nbgrader generate_assignment`` -> three submissions made
from the released notebook -> ``nbgrader autograde`` -> ``generate_feedback`` and ``export``
(run side by side: both only read the gradebook). Every nbgrader command pays several seconds
of start-up, so the whole class goes through one command per step.
"""

from __future__ import annotations

import csv
import importlib.util
import os
import subprocess
import time
from pathlib import Path

import nbformat
import pytest

from autograder.cases import load_week
from autograder.cli import main as torchlab
from autograder.oracle import expected_observations
from autograder.weeks import WEEKS

REPO = Path(__file__).resolve().parent.parent
WRITEFILE = "%%writefile strides.py\n"
KERNEL_WARNING = "import torch\n\ntorch.tensor([1.0]).storage()  # UserWarning: TypedStorage"
# The same-kernel cheat of the grading notes: later cells that call the checker become `pass`.
TRANSFORMER_CHEAT = """
def _no_tests(lines):
    return ["pass\\n"] if any("grade_case" in line for line in lines) else lines

get_ipython().input_transformers_cleanup.append(_no_tests)
"""


def _nbgrader(course: Path, *args: str) -> subprocess.Popen:
    # os.environ carries TORCHLAB_CACHE (conftest.py): the kernels share this session's cache.
    # PYTHONPATH: the kernels import this checkout's autograder, wherever torchlab is installed.
    path = os.pathsep.join(p for p in (str(REPO), os.environ.get("PYTHONPATH")) if p)
    return subprocess.Popen(
        ["nbgrader", *args],
        cwd=course,
        env={**os.environ, "PYTHONPATH": path},
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )


def _wait(proc: subprocess.Popen, timings: dict[str, float], name: str, start: float) -> None:
    out, _ = proc.communicate(timeout=600)
    timings[name] = round(time.monotonic() - start, 1)
    assert proc.returncode == 0, f"nbgrader {name} failed:\n{out[-4000:]}"


def _run(course: Path, timings: dict[str, float], *args: str) -> None:
    start = time.monotonic()
    _wait(_nbgrader(course, *args), timings, args[0], start)


def _warning_engine(reference: str) -> str:
    """The reference, plus a top-level UserWarning and a stderr print in a function that
    nearly every case calls."""
    top = "import numpy as np\n"
    assert top in reference
    out = reference.replace(
        top,
        top + "import sys\nimport warnings\n\n"
        'warnings.warn("a warning at import time", UserWarning)\n',
        1,
    )
    head, sep, tail = out.partition("def contiguous_strides(")
    region = "    ### BEGIN SOLUTION\n"
    assert sep and region in tail
    tail = tail.replace(region, region + '    print("to stderr", file=sys.stderr)\n', 1)
    return head + sep + tail


def _import_answer(source: str, tmp_path: Path) -> None:
    """The released answer cell, minus its %%writefile line, must be a module that imports."""
    path = tmp_path / "released_strides.py"
    path.write_text(source.removeprefix(WRITEFILE))
    spec = importlib.util.spec_from_file_location("released_strides", path)
    assert spec is not None and spec.loader is not None
    spec.loader.exec_module(importlib.util.module_from_spec(spec))


def test_nbgrader_round_trip(tmp_path: Path) -> None:
    timings: dict[str, float] = {}
    course = tmp_path / "course"
    cases = load_week("week1", include_hidden=True)
    public = [c for c in cases if not c.hidden]
    hidden = [c for c in cases if c.hidden]
    total = sum(c.points for c in cases)
    expected_observations(WEEKS["week1"], cases)  # warm the shared oracle cache before the kernels

    assert torchlab(["nbgrader", "export", str(course), "--week", "week1"]) == 0
    assert (course / "nbgrader_config.py").exists()
    _run(course, timings, "generate_assignment", "week1")

    # What nbgrader released: stubs instead of solutions, no hidden cases.
    released = nbformat.read(course / "release" / "week1" / "week1.ipynb", as_version=4)
    answer = released.cells[1]
    assert answer.metadata.nbgrader["solution"] and answer.source.startswith(WRITEFILE)
    assert "BEGIN SOLUTION" not in answer.source and "YOUR CODE HERE" in answer.source
    _import_answer(answer.source, tmp_path)
    tests = [c for c in released.cells if c.metadata.get("nbgrader", {}).get("grade")]
    assert [c.metadata.nbgrader["points"] for c in tests] == [c.points for c in cases]
    text = "\n".join(c.source for c in released.cells)
    assert all(f'"{c.name}")' in text for c in public)
    assert not any(c.name in text for c in hidden)
    assert "HIDDEN TESTS" not in text

    # Three students, each a copy of the released notebook with its answer cell edited.
    reference = (REPO / "reference_impl" / "strides.py").read_text()
    submissions = {
        "ref": (WRITEFILE + reference, False),
        "skel": (answer.source, False),
        "warn": (WRITEFILE + _warning_engine(reference), True),
        "cheat": (answer.source, False),
    }
    for student, (source, warn_in_kernel) in submissions.items():
        nb = nbformat.read(course / "release" / "week1" / "week1.ipynb", as_version=4)
        nb.cells[1].source = source
        if warn_in_kernel:  # a real torch UserWarning in the kernel, before the test cells
            nb.cells.insert(2, nbformat.v4.new_code_cell(KERNEL_WARNING))
        if student == "cheat":  # an added cell: torchlab's verdicts must still decide
            nb.cells.insert(2, nbformat.v4.new_code_cell(TRANSFORMER_CHEAT))
        folder = course / "submitted" / student / "week1"
        folder.mkdir(parents=True)
        nbformat.write(nb, folder / "week1.ipynb")

    _run(course, timings, "autograde", "week1")
    start = time.monotonic()
    feedback = _nbgrader(course, "generate_feedback", "week1")
    export = _nbgrader(course, "export")
    _wait(feedback, timings, "generate_feedback", start)
    _wait(export, timings, "export", start)
    print(f"nbgrader timings (s): {timings}")

    with open(course / "grades.csv", newline="") as f:
        grades = {row["student_id"]: row for row in csv.DictReader(f)}
    scores = {s: (float(g["score"]), float(g["max_score"])) for s, g in grades.items()}
    assert scores == {
        "ref": (total, total),
        "skel": (0.0, total),
        "warn": (total, total),
        "cheat": (0.0, total),
    }
    for student in submissions:
        assert (course / "feedback" / student / "week1" / "week1.html").is_file()

    # The kernel really did warn (so the test cells had something to stay clear of), and
    # no test cell of "warn" has any stderr or error output.
    graded = nbformat.read(course / "autograded" / "warn" / "week1" / "week1.ipynb", 4)
    kernel_cell = graded.cells[2]
    assert kernel_cell.source == KERNEL_WARNING
    assert any(o.get("name") == "stderr" and "UserWarning" in o.text for o in kernel_cell.outputs)
    for cell in graded.cells:
        if cell.metadata.get("nbgrader", {}).get("grade"):
            assert cell.outputs == [], cell.source


def test_nbgrader_export_refuses_bad_weeks(tmp_path: Path, capsys) -> None:
    from autograder.cli import main
    from autograder.nbgrader_bridge import export_course

    assert main(["nbgrader", "export", str(tmp_path / "course"), "--week", "week99"]) == 2
    assert "there is no week called 'week99'" in capsys.readouterr().err
    with pytest.raises(ValueError, match="no weeks to export"):
        export_course(tmp_path / "course", [])
    assert not (tmp_path / "course").exists()


def test_nbgrader_export_keeps_a_foreign_config(tmp_path: Path) -> None:
    (tmp_path / "nbgrader_config.py").write_text("c = get_config()\n")
    assert torchlab(["nbgrader", "export", str(tmp_path)]) == 2
    assert (tmp_path / "nbgrader_config.py").read_text() == "c = get_config()\n"


def test_grade_case_is_silent_and_rechecks_a_changed_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str]
) -> None:
    from autograder.nbgrader_cell import grade_case

    monkeypatch.chdir(tmp_path)  # the notebook's folder, where %%writefile puts strides.py
    reference = (REPO / "reference_impl" / "strides.py").read_text()
    (tmp_path / "strides.py").write_text(_warning_engine(reference))
    assert grade_case("week1", "view_chunk_rule") is None
    assert grade_case("week1", "hidden_view_rule_variants") is None
    assert capfd.readouterr() == ("", "")

    (tmp_path / "strides.py").write_text(
        (REPO / "labs" / "week1_strides" / "strides.py").read_text()
    )
    with pytest.raises(AssertionError, match="view_chunk_rule .*not implemented yet"):
        grade_case("week1", "view_chunk_rule")
    with pytest.raises(AssertionError, match="no case called 'nope'"):
        grade_case("week1", "nope")
    assert capfd.readouterr() == ("", "")


def test_nbgrader_releases_a_native_week(tmp_path: Path) -> None:
    """Week 5 through nbgrader's generate_assignment: the Python answer cell becomes stubs,
    the C++ cell keeps torchlab's skeleton (which compiles: the release's own check builds the
    same text), no solution and no hidden case reaches the student."""
    course = tmp_path / "course"
    assert torchlab(["nbgrader", "export", str(course), "--week", "week5"]) == 0
    _run(course, {}, "generate_assignment", "week5")
    released = nbformat.read(course / "release" / "week5" / "week5.ipynb", as_version=4)
    text = "\n".join(c.source for c in released.cells)
    [cpp] = [c for c in released.cells if c.source.startswith("%%writefile labdev.cpp\n")]
    skeleton = (REPO / "cpp_labs" / "week5_privateuse1" / "labdev.cpp").read_text()
    body = "// Week 5, the C++ half"  # the skeleton from here on (the headers name sources)
    assert body in cpp.source and skeleton[skeleton.index(body) :].rstrip() in cpp.source
    assert 'not_implemented("LabdevAllocator::allocate (Task 5.2)");' in cpp.source
    assert "BEGIN SOLUTION" not in text and "HIDDEN TESTS" not in text
    assert "std::aligned_alloc" not in text  # the allocator's answer stays with the course
    assert released.cells[1].source.startswith("%%writefile privateuse1.py\n")
    assert "YOUR CODE HERE" in released.cells[1].source
