"""Feedback that arrives with the task: `-k` by any task, the tasks a case checks, the task to
look at first, per-task progress, and the lab you are working in. Parametrized over the weeks
where a rule holds for every week."""

from pathlib import Path

import pytest

from autograder.authoring import reference_tasks
from autograder.cases import load_week
from autograder.labs import REPO_ROOT, find_lab
from autograder.report import PASS, CaseResult, task_span
from autograder.runner import assign_blame, run_week
from autograder.weeks import WEEKS, get_week

REFERENCE = REPO_ROOT / "reference_impl" / "strides.py"


def engine_with(tmp_path: Path, old: str, new: str) -> str:
    source = REFERENCE.read_text()
    assert source.count(old) == 1, old
    (tmp_path / "strides.py").write_text(source.replace(old, new))
    return str(tmp_path)


@pytest.mark.parametrize("week", list(WEEKS))
def test_k_selects_every_case_that_checks_the_task(week):
    cases = load_week(week)
    for task in reference_tasks(WEEKS[week]):
        report = run_week(WEEKS[week], "reference", [task])
        wanted = sorted(c.name for c in cases if task in c.tasks)
        assert sorted(r.name for r in report.results) == wanted, task
        assert wanted, f"-k {task} selects no case"


@pytest.mark.parametrize("week", list(WEEKS))
def test_reference_completes_every_task(week):
    progress = run_week(WEEKS[week], "reference").task_progress()
    assert list(progress) == reference_tasks(WEEKS[week])
    assert all(passed == total for passed, total in progress.values())


def test_a_wrong_earlier_task_is_named_first(tmp_path):
    """A size-0 slip in contiguous_strides (Task 1.1): later cases that fail point back to 1.1."""
    path = engine_with(
        tmp_path,
        "strides[d] = strides[d + 1] * max(shape[d + 1], 1)",
        "strides[d] = strides[d + 1] * shape[d + 1]",
    )
    report = run_week(WEEKS["week1"], path)
    failing = [r for r in report.results if r.status != PASS]
    own = [r for r in failing if r.own_task == "1.1"]
    assert own, "Task 1.1's own case catches the slip"
    later = [r for r in failing if r.own_task != "1.1"]
    assert later and all(r.blame == "1.1" for r in later), [(r.name, r.blame) for r in later]
    text = report.render_text()
    assert "look first at Task 1.1: its own cases fail too" in text


def test_a_case_whose_earlier_tasks_pass_blames_its_own_task(tmp_path):
    """view's chunk rule skipped (Task 1.4): 1.1-1.3 pass, so 1.4's cases blame 1.4 itself."""
    path = engine_with(
        tmp_path,
        "        if view_numel != tensor_numel:\n            return None\n",
        "",
    )
    report = run_week(WEEKS["week1"], path)
    task_1_4 = next(r for r in report.results if r.name == "task_1_4_compute_stride")
    assert task_1_4.status == "fail" and task_1_4.blame == "1.4"
    assert "earlier tasks' own cases pass" in report.render_text()
    later = [r for r in report.results if r.status == "fail" and "1.4" in r.tasks]
    assert all(r.blame == "1.4" for r in later)


def test_no_blame_without_evidence():
    """`-k` left out Task 1.1's own case: the run cannot tell, so it names nothing."""
    results = [
        CaseResult("w::a", "a", "w", 1, "fail", "x", ["1.1", "1.4"]),
        CaseResult("w::b", "b", "w", 1, "pass", "", ["1.1", "1.4"]),
    ]
    assign_blame(results)
    assert results[0].blame == ""


def test_the_table_shows_every_task_a_case_checks():
    assert task_span(["1.1", "1.2", "1.3", "1.9", "1.10", "1.12"]) == "1.1-1.3,1.9-1.10,1.12"
    assert task_span(["1.4"]) == "1.4"
    text = run_week(WEEKS["week1"], "reference", ["view_chunk_rule"]).render_text()
    assert "1.1-1.4,1.9" in text


def test_check_finds_the_lab_you_are_in(tmp_path, monkeypatch):
    week = get_week("week1")
    course = tmp_path / "course"
    lab = course / "labs" / week.folder
    lab.mkdir(parents=True)
    (lab / "strides.py").write_text("")
    (course / "notes").mkdir()
    for where in (lab, course, course / "notes"):
        assert find_lab(week, where) == lab / "strides.py"
    nowhere = tmp_path / "elsewhere"
    nowhere.mkdir()
    assert find_lab(week, nowhere) == nowhere / "labs" / week.folder / "strides.py"
    monkeypatch.chdir(nowhere)
    report = run_week(WEEKS["week1"], "lab", ["task_1_1"])
    assert report.impl == str(nowhere / "labs" / week.folder / "strides.py")
    assert "run from your lab folder or your course folder" in report.problems[0]
    monkeypatch.chdir(lab)
    report = run_week(WEEKS["week1"], "lab", ["task_1_1"])
    assert report.impl == str(lab / "strides.py") and Path(report.impl).is_absolute()
    assert report.render_text().startswith(f"week1: Strides and views  (engine: {lab}")
    assert f"engine: <code>{lab / 'strides.py'}</code>" in report.render_html()
