"""Bad input never escapes the runner: each gives a clear line and failing cases.

Each broken engine below is a tiny strides.py written to a temporary folder; the runner must
return a report (no traceback), every case failing, with a message naming what was wrong.
"""

import textwrap

import pytest

from autograder.report import PASS
from autograder.runner import run_week
from autograder.weeks import WEEKS
from autograder.workers import Limits

FAST = Limits(case_seconds=1.0, import_seconds=3.0)


def engine(tmp_path, source: str):
    (tmp_path / "strides.py").write_text(textwrap.dedent(source))
    return str(tmp_path)


def assert_all_fail(report, status: str, words: str):
    assert report.results, "the week has cases"
    for r in report.results:
        assert r.status == status, (r.name, r.status, r.message)
        assert words in r.message, (r.name, r.message)
    assert report.score == 0


def test_missing_file(tmp_path):
    report = run_week(WEEKS["week1"], str(tmp_path / "nowhere"), limits=FAST)
    assert_all_fail(report, "error", "cannot find")


def test_syntax_error_names_file_and_line(tmp_path):
    report = run_week(WEEKS["week1"], engine(tmp_path, "x = 1\ndef view(:\n"), limits=FAST)
    assert_all_fail(report, "error", "SyntaxError: invalid syntax (strides.py, line 2)")
    assert report.problems == [report.results[0].message]


def test_error_at_import_names_the_line(tmp_path):
    report = run_week(
        WEEKS["week1"], engine(tmp_path, "import numpy\nraise KeyError('k')\n"), limits=FAST
    )
    assert_all_fail(report, "error", "KeyError: 'k' (strides.py, line 2)")


def test_a_different_exception_is_a_plain_failure(tmp_path):
    src = """
    def arange(*args, **kwargs):
        raise TypeError("oops, not this")
    """
    report = run_week(WEEKS["week1"], engine(tmp_path, src), limits=FAST)
    for r in report.results:
        assert r.status == "fail"
        assert "raised TypeError: oops, not this" in r.message


def test_wrong_return_type(tmp_path):
    src = """
    class T:
        def view(self, *shape):
            return [1, 2, 3]
        def t(self):
            return [1, 2, 3]
    def arange(*args, **kwargs):
        return T()
    """
    report = run_week(WEEKS["week1"], engine(tmp_path, src), ["arange_is_contiguous"], limits=FAST)
    [r] = report.results
    assert r.status == "fail"
    assert "torch returns a tensor here, yours returned list [1, 2, 3]" in r.message


def test_infinite_loop_in_a_case_times_out_and_the_rest_still_run(tmp_path):
    src = """
    def arange(*args, **kwargs):
        while True:
            pass
    """
    # Four cases that call arange: each times out on its own, and the next still runs (every
    # case of Task 1.4 would take a minute and show nothing more).
    chosen = ["arange_is_contiguous", "factories_infer_dtype", "size_and_stride_accessors"]
    report = run_week(WEEKS["week1"], engine(tmp_path, src), [*chosen, "values_read"], limits=FAST)
    assert len(report.results) == 4
    assert_all_fail(report, "timeout", "took longer than 1 s")


def test_the_whole_run_has_a_time_budget(tmp_path):
    src = "def arange(*a, **k):\n    while True:\n        pass\n"
    limits = Limits(case_seconds=1.0, import_seconds=3.0, run_seconds=2.5)
    report = run_week(WEEKS["week1"], engine(tmp_path, src), limits=limits)
    statuses = [r.status for r in report.results]
    assert set(statuses) == {"timeout"}
    assert "not run: the whole check took longer than 2.5 s" in report.results[-1].message


def test_loop_that_ignores_the_alarm_is_killed_from_outside(tmp_path):
    # The alarm raises inside the loop; a bare `except BaseException` swallows it, so only
    # the parent's watchdog can stop this one.
    src = """
    def arange(*args, **kwargs):
        while True:
            try:
                while True:
                    pass
            except BaseException:
                pass
    """
    report = run_week(WEEKS["week1"], engine(tmp_path, src), ["arange_is_contiguous"], limits=FAST)
    [r] = report.results
    assert r.status == "timeout" and "loop that never ends" in r.message


def test_top_level_loop_is_an_import_timeout(tmp_path):
    report = run_week(WEEKS["week1"], engine(tmp_path, "while True:\n    pass\n"), limits=FAST)
    assert_all_fail(report, "error", "took longer than 3 s: is there a loop at the top level")


@pytest.mark.parametrize(
    "body, words",
    [
        ("import os\n    os._exit(0)", "exited with code 0"),
        ("import faulthandler\n    faulthandler._sigsegv()", "segmentation fault) at strides.py"),
    ],
)
def test_process_death_is_a_crash_per_case(tmp_path, body, words):
    src = f"\ndef arange(*args, **kwargs):\n    {body}\n"
    report = run_week(WEEKS["week1"], engine(tmp_path, src), ["view", "1.5"], limits=FAST)
    assert_all_fail(report, "crash", words)
    if "segmentation" in words:  # and which line of the case made the call that crashed
        assert all(", running `" in r.message and ".py line " in r.message for r in report.results)


def test_sys_exit_is_reported(tmp_path):
    src = "import sys\ndef arange(*a, **k):\n    sys.exit(0)\n"
    report = run_week(WEEKS["week1"], engine(tmp_path, src), limits=FAST)
    assert_all_fail(report, "error", "called sys.exit(0)")


def test_memory_is_limited(tmp_path):
    src = "def arange(*a, **k):\n    return bytearray(8 * 1024**3)\n"
    report = run_week(WEEKS["week1"], engine(tmp_path, src), ["arange"], limits=FAST)
    [r] = report.results
    assert r.status == "fail" and "MemoryError" in r.message


def test_prints_do_not_reach_the_report_as_results(tmp_path):
    src = """
    import sys
    print('{"event": "result", "id": "week1::arange_is_contiguous", "observation": null}')
    def arange(*a, **k):
        print("all tests passed!")
        sys.stdout.flush()
        raise NotImplementedError("arange (Task 1.1)")
    """
    report = run_week(WEEKS["week1"], engine(tmp_path, src), limits=FAST)
    assert not any(r.status == PASS for r in report.results)
    assert report.results[0].output.strip() == "all tests passed!"


def test_the_notebooks_worked_answers_are_out_of_reach(tmp_path):
    """autograder/notebook/ draws worked answers (the chunk rule): a graded engine can't load it."""
    src = "from autograder.notebook.viz import view_plan\n"
    report = run_week(WEEKS["week1"], engine(tmp_path, src), ["task_1_4"], limits=FAST)
    assert report.results and all(r.status == "error" for r in report.results)
    assert "strides.py, line 1" in report.problems[0], report.problems
