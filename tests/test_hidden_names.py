"""Hidden cases stay hidden whatever fails: a student's report never names one.

The hidden cases run in a worker of their own, the one process that can read their source.
Each student below is the reference engine with a trap that fires only there: it reads the
hidden cases' file and puts their names into every channel a failure can take back to the
grader (an import error, a crash, a timeout, an exit, a case's error and its output). What a
student is shown (``Report.for_student``, the feedback page, Gradescope's results) must name
no hidden case; the instructor's report still says what happened.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from autograder import grading, isolation
from autograder.cases import load_week
from autograder.labs import REPO_ROOT
from autograder.runner import run_week
from autograder.weeks import WEEKS
from autograder.workers import Limits

HIDDEN_FILE = REPO_ROOT / "autograder" / "hidden" / "week1.py"
pytestmark = pytest.mark.skipif(not HIDDEN_FILE.exists(), reason="a student copy: no hidden cases")
LIMITS = Limits(case_seconds=2.0, import_seconds=3.0, run_seconds=20.0, memory_mb=1024)

TRAP = f"""
import os as _os, re as _re, sys as _sys
try:
    _NAMES = " ".join(_re.findall(r"def (hidden_\\w+)\\(", open({str(HIDDEN_FILE)!r}).read()))
except BaseException:  # a public worker: the hidden folder is empty, and the guard says no
    _NAMES = ""
_MODE = {{mode!r}}
if _NAMES and _MODE == "import_error":
    raise ImportError(_NAMES)
if _NAMES and _MODE == "crash":
    print(_NAMES, flush=True)
    _os.abort()
if _NAMES and _MODE == "timeout":
    print(_NAMES, flush=True)
    while True:
        pass
if _NAMES and _MODE == "exit":
    _sys.exit(_NAMES)
"""
CASE_TRAP = """
def _trap(real):
    def trapped(*args, **kwargs):
        print(_NAMES)
        if _MODE == "case_error":
            raise RuntimeError(_NAMES)
        return real(*args, **kwargs)

    return trapped


if _NAMES and _MODE in ("case_error", "case_output"):
    arange, tensor = _trap(arange), _trap(tensor)
"""
MODES = ["import_error", "crash", "timeout", "exit", "case_error", "case_output"]


def hidden_names() -> list[str]:
    return [c.name for c in load_week("week1", include_hidden=True) if c.hidden]


def student_texts(report) -> str:
    """Everything a student is shown of a report."""
    shown = report.for_student()
    gradescope = grading.gradescope_results([report], 1.0)
    return "\n".join([shown.to_json(), grading.feedback_page(shown), json.dumps(gradescope)])


@pytest.mark.parametrize("mode", MODES)
def test_no_failure_of_the_hidden_worker_names_a_hidden_case(tmp_path: Path, mode: str) -> None:
    names = hidden_names()
    assert names and all(re.search(rf"def {n}\(", HIDDEN_FILE.read_text()) for n in names)
    engine = tmp_path / "strides.py"
    reference = (REPO_ROOT / "reference_impl" / "strides.py").read_text()
    reference = reference.replace("from __future__ import annotations\n", "", 1)
    engine.write_text("from __future__ import annotations\n" + TRAP.format(mode=mode) + reference)
    engine.write_text(engine.read_text() + CASE_TRAP)
    report = run_week(WEEKS["week1"], str(engine), include_hidden=True, limits=LIMITS)
    if isolation.bubblewrap_problem() is None:
        public = [r for r in report.results if not r.hidden]
        assert all(r.status == "pass" for r in public), "the trap fires only in the hidden worker"
    hidden = [r for r in report.results if r.hidden]
    if mode == "case_output":  # it only prints: the instructor's report keeps what it printed
        assert any(names[0] in r.output for r in hidden), hidden
    else:
        assert hidden and all(r.status != "pass" for r in hidden), mode
    shown = student_texts(report)
    leaked = [n for n in names if n in shown]
    assert not leaked, f"{mode}: a student's report names hidden cases {leaked}"
