"""The torchlab command: tables, exit codes, JSON, release --check."""

import json
import os
import subprocess
import sys


def torchlab(*args, cwd=None):
    return subprocess.run(
        [sys.executable, "-m", "autograder.cli", *args], capture_output=True, text=True, cwd=cwd
    )


def test_check_reference_exits_zero_with_a_table():
    run = torchlab("check", "week1", "--impl", "reference")
    assert run.returncode == 0, run.stdout + run.stderr
    assert "week1: Strides and views" in run.stdout
    assert "case" in run.stdout and "points" in run.stdout
    assert " FAIL" not in run.stdout


def test_check_skeleton_exits_one_and_says_what_is_missing():
    run = torchlab("check", "1", "-k", "1.4")
    assert run.returncode == 1
    assert "NOT IMPLEMENTED" in run.stdout and "not implemented yet: " in run.stdout
    # -k 1.4 asks "is Task 1.4 done?": its own cases apart from those that need later tasks
    assert "Task 1.4: not done yet: 0 of its " in run.stdout
    assert "more cases need it and later tasks too" in run.stdout


def test_check_json_is_the_report_model():
    run = torchlab("check", "week1", "--impl", "reference", "--json")
    data = json.loads(run.stdout)
    assert data["score"] == data["max_score"] > 0
    assert {"id", "name", "points", "status", "message", "tasks"} <= set(data["results"][0])


def test_unknown_week_is_a_clear_error():
    run = torchlab("check", "week9")
    assert run.returncode == 2 and "there is no week called 'week9'" in run.stderr


def test_release_check_passes_on_the_committed_labs():
    run = torchlab("release", "--check")
    assert run.returncode == 0, run.stdout


def test_progress_shows_reference_then_learner():
    # Two weeks: every week's reference and skeleton run in their own tests already.
    run = torchlab("progress", "week1", "3")
    assert run.returncode == 0, run.stdout + run.stderr
    assert run.stdout.index("reference engine") < run.stdout.index("Your progress")
    assert "next:" in run.stdout
    assert "  week1: " in run.stdout and "  week3: " in run.stdout
    assert "  week2: " not in run.stdout


def test_a_cold_check_leaves_nothing_in_the_learners_folder(tmp_path):
    cache, cwd = tmp_path / "cache", tmp_path / "here"
    cwd.mkdir()
    run = subprocess.run(
        [sys.executable, "-m", "autograder.cli", "check", "week1", "-k", "random_view"],
        capture_output=True,
        text=True,
        cwd=cwd,
        env={**os.environ, "TORCHLAB_CACHE": str(cache)},
    )
    assert "random_view_chains" in run.stdout, run.stderr
    assert list(cwd.iterdir()) == []  # hypothesis's files go beside the oracle cache
    assert (cache / "oracle").is_dir()


def test_status_is_a_table_of_every_week_with_the_next_task():
    from autograder.weeks import WEEKS

    run = torchlab("status")
    assert run.returncode == 0, run.stdout + run.stderr
    lines = run.stdout.splitlines()
    assert lines[0].split() == ["week", "cases", "points", "tasks", "done", "next"]
    for name, week in WEEKS.items():
        (row,) = [line for line in lines if line.startswith(f"{name} {week.title} ")]
        first_task = min((c.completed_by for c in _cases(name) if c.completed_by), key=_task_order)
        assert row.rstrip().endswith(f"Task {first_task}"), row  # the skeleton: start at the start
    assert "checking week1 " in run.stderr  # what it is doing, kept off stdout


def test_status_checks_again_only_the_weeks_that_changed(tmp_path):
    """An unchanged course answers from the cache; an edited lab is checked again, alone;
    ``--recheck`` checks every week."""
    import shutil
    from pathlib import Path

    from autograder.weeks import WEEKS

    repo = Path(__file__).resolve().parent.parent
    lab = tmp_path / "course" / "labs" / "week1_strides"
    shutil.copytree(repo / "labs" / "week1_strides", lab)
    env = {**os.environ, "TORCHLAB_CACHE": str(tmp_path / "cache")}

    def status(*args):
        run = subprocess.run(
            [sys.executable, "-m", "autograder.cli", "status", *args],
            capture_output=True,
            text=True,
            cwd=lab.parent.parent,
            env=env,
        )
        assert run.returncode == 0, run.stdout + run.stderr
        return run

    first = status()
    assert "checking week1 (first time)" in first.stderr
    again = status()
    assert "checking" not in again.stderr and again.stdout == first.stdout
    (lab / "strides.py").write_text((lab / "strides.py").read_text() + "\n# a note\n")
    edited = status()
    assert [line for line in edited.stderr.splitlines() if line.startswith("checking")] == [
        "checking week1 (files changed)..."
    ]
    forced = status("--recheck")
    assert forced.stderr.count("(asked to)") == len(WEEKS)


def _cases(week):
    from autograder.cases import load_week

    return load_week(week)


def _task_order(task):
    from autograder.cases import task_key

    return task_key(task)
