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
from autograder.release import REPO_ROOT, make_skeleton, week_sources
from autograder.report import PASS
from autograder.runner import run_week
from autograder.weeks import Week, get_week


def reference_tasks(w: Week) -> list[str]:
    """The task numbers the week's reference declares, in order: "Task 1.4:" docstrings, and
    "// Task 5.2:" comments in its C++."""
    found: set[str] = set()
    for name in week_sources(w):
        text = (REPO_ROOT / "reference_impl" / name).read_text()
        found |= set(re.findall(r'(?:"""|// )Task (\d+\.\d+):', text))
    return sorted(found, key=task_key)


def measure_task_needs(w: Week) -> dict[str, list[str]]:
    """``{case name: [tasks it fails without]}`` for every case, hidden ones included."""
    needs: dict[str, list[str]] = {}
    with tempfile.TemporaryDirectory(prefix="torchlab-ablate-") as tmp:
        for task in reference_tasks(w):
            folder = Path(tmp) / task
            folder.mkdir()
            for name in week_sources(w):  # the module and its C++, blanked for this task only
                source_path = REPO_ROOT / "reference_impl" / name
                text = make_skeleton(source_path.read_text(), str(source_path), only_tasks={task})
                (folder / name).write_text(text)
            report = run_week(w, str(folder / f"{w.module}.py"), include_hidden=True)
            for r in report.results:
                needs.setdefault(r.name, [])
                if r.status != PASS:
                    needs[r.name].append(task)
    return needs


if __name__ == "__main__":
    import sys

    week = get_week(sys.argv[1] if len(sys.argv) > 1 else "week1")  # the front door
    for name, tasks in measure_task_needs(week).items():
        print(f"{name}: {', '.join(tasks)}")
