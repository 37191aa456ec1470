"""What an nbgrader test cell calls: ``grade_case("week1", "view_chunk_rule")``.

The notebooks that ``torchlab nbgrader export`` writes have one answer cell that starts with
``%%writefile strides.py``: the learner's code is written to a file next to the notebook and
never run in the notebook's kernel. Each test cell then calls :func:`grade_case`, which
checks that file with torchlab's runner (in a child process, compared with torch's cached
answers) and turns one case's result into what nbgrader scores: nothing (full points) or an
``AssertionError`` (zero).

nbgrader gives a test cell zero when *anything* reaches stderr, and torch prints
UserWarnings, so the whole check runs with warnings off and with both ``sys.stderr`` and
file descriptor 2 pointed away from the kernel. The check runs once per kernel and engine
file (the first test cell pays, about a second with a warm oracle cache); the other cells
read its report, until the answer cell writes a different file.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import os
import sys
import tempfile
import warnings
from collections.abc import Iterator
from pathlib import Path

from autograder.report import PASS, Report
from autograder.weeks import get_week

# (week, folder, digest of the engine file) -> the report of that run, or why it failed.
_REPORTS: dict[tuple[str, str, str], Report | str] = {}


@contextlib.contextmanager
def _silenced() -> Iterator[None]:
    """No warning, no ``sys.stderr`` write, no write to fd 2 (C code, or a child process
    that inherits it) gets out. ipykernel forwards fd 2 to the notebook as stderr."""
    sys.stderr.flush()
    saved_fd = None
    with tempfile.TemporaryFile() as sink:
        try:
            saved_fd = os.dup(2)
            os.dup2(sink.fileno(), 2)
        except OSError:  # no fd 2 to redirect: the Python-level redirect still holds
            saved_fd = None
        try:
            with (
                warnings.catch_warnings(),
                contextlib.redirect_stderr(io.StringIO()),
            ):
                warnings.simplefilter("ignore")
                yield
        finally:
            if saved_fd is not None:
                os.dup2(saved_fd, 2)
                os.close(saved_fd)


def week_report(week: str, folder: str | os.PathLike[str] | None = None) -> Report:
    """The report for the engine in ``folder`` (default: the notebook's folder, the kernel's
    working directory, where ``%%writefile`` put it), computed once per kernel and file."""
    w = get_week(week)  # the front door: the test cell names its week
    impl = Path(folder if folder is not None else os.getcwd()).resolve()
    engine = impl / f"{w.module}.py"
    digest = hashlib.sha256(engine.read_bytes()).hexdigest() if engine.is_file() else ""
    key = (week, str(impl), digest)
    if key not in _REPORTS:
        with _silenced():
            try:
                from autograder.runner import run_week

                _REPORTS[key] = run_week(w, impl=str(impl), include_hidden=True)
            except Exception as exc:  # noqa: BLE001 - said once per test cell, below
                _REPORTS[key] = f"torchlab could not check {week}: {type(exc).__name__}: {exc}"
    found = _REPORTS[key]
    if isinstance(found, str):
        raise AssertionError(found)
    return found


def grade_case(week: str, name: str) -> None:
    """Pass silently if case ``name`` of ``week`` passed; else raise ``AssertionError``
    saying what differs from torch (nbgrader: full points, or zero)."""
    report = week_report(week)
    for r in report.results:
        if r.name == name:
            if r.status == PASS:
                return None
            task = f", task {r.tasks[-1]}" if r.tasks else ""
            raise AssertionError(f"{name} ({r.status}{task}): {r.message}")
    problems = "; ".join(report.problems)
    raise AssertionError(
        f"{week} has no case called {name!r}" + (f" ({problems})" if problems else "")
    )
