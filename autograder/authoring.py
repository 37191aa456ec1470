"""Tools for course authors: measure which tasks each case really needs.

A case's ``tasks`` must be the truth: a learner selecting ``-k 1.4`` expects the cases that
Task 1.4 completes, and the notebook's check after Task 1.4 must be passable once Tasks 1.1
to 1.4 are written. Instead of trusting hand-written tags, we measure them: blank one task's
solution regions in a copy of the reference and see which cases stop passing.
"""

from __future__ import annotations

import re
import tempfile
from pathlib import Path

from autograder.cases import task_key
from autograder.release import REPO_ROOT, make_skeleton
from autograder.report import PASS
from autograder.runner import run_week
from autograder.weeks import get_week


def reference_tasks(week: str) -> list[str]:
    """The task numbers the week's reference declares ("Task 1.4:" docstrings), in order."""
    w = get_week(week)
    text = (REPO_ROOT / "reference_impl" / f"{w.module}.py").read_text()
    return sorted(set(re.findall(r'"""Task (\d+\.\d+):', text)), key=task_key)


def measure_task_needs(week: str) -> dict[str, list[str]]:
    """``{case name: [tasks it fails without]}`` for every case, hidden ones included."""
    w = get_week(week)
    source_path = REPO_ROOT / "reference_impl" / f"{w.module}.py"
    source = source_path.read_text()
    needs: dict[str, list[str]] = {}
    with tempfile.TemporaryDirectory(prefix="torchlab-ablate-") as tmp:
        for task in reference_tasks(week):
            path = Path(tmp) / task / f"{w.module}.py"
            path.parent.mkdir()
            path.write_text(make_skeleton(source, str(source_path), only_tasks={task}))
            report = run_week(week, str(path), include_hidden=True)
            for r in report.results:
                needs.setdefault(r.name, [])
                if r.status != PASS:
                    needs[r.name].append(task)
    return needs


if __name__ == "__main__":
    import sys

    for name, tasks in measure_task_needs(sys.argv[1] if len(sys.argv) > 1 else "week1").items():
        print(f"{name}: {', '.join(tasks)}")
