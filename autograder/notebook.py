"""The notebook front end: ``check(...)`` renders the pass/fail table inline, never raises.

The engine runs in a fresh child process each time, so edits to the lab file are picked up
without restarting the kernel. Set TORCHLAB_IMPL=reference to run a notebook against the
reference engine.
"""

from __future__ import annotations

import html
import os
from collections.abc import Callable
from typing import Any

from autograder.report import Report
from autograder.runner import Limits, run_week
from autograder.viz import HTML


def check(
    week: str = "week1", *select: str, impl: str | None = None, timeout: float = 5.0
) -> Report:
    """Check ``week`` (optionally only cases matching ``select``: names or tasks like "1.4")."""
    impl = impl or os.environ.get("TORCHLAB_IMPL", "lab")
    try:
        return run_week(week, impl, list(select) or None, limits=Limits(case_seconds=timeout))
    except Exception as exc:  # noqa: BLE001 - a notebook cell must never stop on a check
        return Report(f"{week}", impl, problems=[f"the check could not run: {exc}"])


def mine(week: str = "week1", impl: str | None = None) -> Any:
    """Your engine module, imported fresh from its file (so edits show up at once)."""
    from autograder.runner import resolve_impl
    from autograder.weeks import get_week
    from autograder.worker import load_engine

    w = get_week(week)
    path = resolve_impl(w, impl or os.environ.get("TORCHLAB_IMPL", "lab"))
    return load_engine(str(path), f"torchlab_mine_{w.module}")


def show(fn: Callable[[], Any]) -> Any:
    """Run ``fn`` and return its result; an error is shown as a line instead of stopping the
    notebook (your engine may not be finished yet)."""
    try:
        return fn()
    except NotImplementedError as exc:
        return HTML(
            f"<span style='color:#9a6700'>not implemented yet: {html.escape(str(exc))}</span>"
        )
    except Exception as exc:  # noqa: BLE001 - shown, not raised
        text = html.escape(f"{type(exc).__name__}: {exc}")
        return HTML(f"<span style='color:#cf222e'>{text}</span>")
