"""The notebook front end: ``check(...)`` renders the pass/fail table inline, never raises.

The engine runs in a fresh child process each time, so edits to the lab file are picked up
without restarting the kernel. Set TORCHLAB_IMPL=reference to run a notebook against the
reference engine.
"""

from __future__ import annotations

import os

from autograder.report import Report
from autograder.runner import Limits, run_week


def check(
    week: str = "week1", *select: str, impl: str | None = None, timeout: float = 5.0
) -> Report:
    """Check ``week`` (optionally only cases matching ``select``: names or tasks like "1.4")."""
    impl = impl or os.environ.get("TORCHLAB_IMPL", "lab")
    try:
        return run_week(week, impl, list(select) or None, limits=Limits(case_seconds=timeout))
    except Exception as exc:  # noqa: BLE001 - a notebook cell must never stop on a check
        return Report(f"{week}", impl, problems=[f"the check could not run: {exc}"])
