"""Week 7c cases: week 7's cases of Tasks 7.2-7.4, run on the library written in C++.

The C++ lab keeps week 7's Python API for point-to-point messages, collectives and the backend
(``cpp_c10d.py``, given), so those cases are week 7's, registered again under ``week7c`` with
the C++ task each needs: 7.2 (Work and point-to-point) is 7.9 here, 7.3 (collectives) 7.10,
7.4 (the backend) 7.11 (measured: ``python -m autograder.authoring week7c``). The truth is
week 7's: gloo on the same program (``autograder/truth/week7c.py``). Tasks 7.1 and 7.5-7.8
stay in Python (week 7's store, buckets, reducer, hooks and ``fully_shard``): their cases are
week 7's alone.
"""

from __future__ import annotations

import dataclasses
import re

import autograder.weeks.week7  # noqa: F401 - registers week 7's cases
from autograder.cases import Case, _register, load_week, task_key

W = "week7c"

# week 7's task -> the C++ task that writes the same code here
TASK_MAP = {"7.2": "7.9", "7.3": "7.10", "7.4": "7.11"}

# week 7c's name of a case -> week 7's
ORIGIN: dict[str, str] = {}


def week7c_name(name: str, tasks: tuple[str, ...]) -> str:
    """Named after the task that completes it here: task_7_3_barrier -> task_7_10_barrier."""
    last = max(tasks, key=task_key).replace(".", "_")
    return re.sub(r"^task_7_\d+_", f"task_{last}_", name)


def register_from(cases: list[Case]) -> None:
    """Week 7's ``cases`` of Tasks 7.2-7.4 (and no other), registered again for week 7c."""
    for c in cases:
        if not c.tasks or not set(c.tasks) <= set(TASK_MAP):
            continue
        tasks = tuple(TASK_MAP[t] for t in c.tasks)
        name = week7c_name(c.name, tasks)
        ORIGIN[name] = c.name
        _register(dataclasses.replace(c, week=W, name=name, tasks=tasks))


register_from(load_week("week7", include_hidden=False))

from autograder.weeks.week7c import random_programs  # noqa: E402, F401 - week 7c's own case
