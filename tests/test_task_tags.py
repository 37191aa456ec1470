"""Each case's `tasks` is the truth: exactly the tasks whose absence makes it fail.

Measured by blanking one task at a time in a copy of the reference. The notebook's per-task
checks and `torchlab check -k 1.4` rely on these tags.
"""

import pytest

from autograder.authoring import measure_task_needs, reference_tasks
from autograder.cases import load_week
from autograder.weeks import WEEKS


@pytest.mark.parametrize("week", list(WEEKS))
def test_declared_tasks_are_the_measured_ones(week):
    measured = measure_task_needs(WEEKS[week])
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
