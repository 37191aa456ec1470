"""Each case's `tasks` is the truth: exactly the tasks whose absence makes it fail.

Measured by blanking one task at a time in a copy of the reference. The notebook's per-task
checks and `torchlab check -k 1.4` rely on these tags. A week whose measurement is recorded
(`python -m autograder.authoring WEEK --record`, tests/task_tags/) and still holds for the
sources as they are is spot-checked: one task, drawn at random, is blanked afresh and must
make exactly the recorded cases fail; otherwise every task is measured.
"""

import random

import pytest

from autograder.authoring import measure_task_needs, recorded_task_needs, reference_tasks
from autograder.cases import load_week
from autograder.weeks import WEEKS


def _measured(week: str) -> dict:
    recorded = recorded_task_needs(WEEKS[week])
    if recorded is None:
        return measure_task_needs(WEEKS[week])
    task = random.choice(reference_tasks(WEEKS[week]))
    fresh = measure_task_needs(WEEKS[week], only=[task])
    stale = {
        name: f"blanking {task} now {'fails' if task in tasks else 'passes'} it; not so recorded"
        for name, tasks in fresh.items()
        if (task in tasks) != (task in recorded.get(name, []))
    }
    assert not stale, "the recorded tags disagree with a fresh measurement:\n" + "\n".join(
        f"{k}: {v}" for k, v in stale.items()
    )
    return recorded


@pytest.mark.parametrize("week", list(WEEKS))
def test_declared_tasks_are_the_measured_ones(week):
    measured = _measured(week)
    declared = {c.name: sorted(c.tasks) for c in load_week(week, include_hidden=True)}
    wrong = {
        name: f"declared {declared[name]}, needs {sorted(tasks)}"
        for name, tasks in measured.items()
        if sorted(tasks) != declared[name]
    }
    assert not wrong, "\n".join(f"{k}: {v}" for k, v in wrong.items())


@pytest.mark.parametrize("week", list(WEEKS))
def test_every_task_completes_at_least_one_case(week):
    """After task N, `-k N` has cases that can pass: each task has public cases of its own."""
    completed = {c.completed_by for c in load_week(week)}
    missing = [t for t in reference_tasks(WEEKS[week]) if t not in completed]
    assert not missing, f"no public case is completed by tasks {missing}"
