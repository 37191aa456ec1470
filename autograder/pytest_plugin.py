"""pytest front end: one pytest test per case, through the same runner and judge.

Loaded by pytest through the ``pytest11`` entry point. A lab's test file parametrizes over
``case_names(week)`` and asks the ``torchlab_week`` fixture for each case's result::

    pytest labs/week1_strides                   # your skeleton
    pytest labs/week1_strides --impl PATH       # a folder holding the lab's file, or a file
    pytest cpp_labs/week5_privateuse1           # a lab of the C++ track
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from autograder.cases import load_week
from autograder.check_server import run_week_warm
from autograder.report import PASS, Report, blame_line
from autograder.weeks import get_week
from autograder.workers import Limits


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("torchlab")
    group.addoption(
        "--impl",
        default="lab",
        help="the engine to check: lab (default, the lab you are in) or a path",
    )
    group.addoption(
        "--case-timeout", type=float, default=Limits.case_seconds, help="seconds per case"
    )


def case_names(week: str) -> list[str]:
    """The names of a week's public cases, in the order they were written."""
    return [c.name for c in load_week(week)]


class WeekResults:
    """A week's report, with a pytest-shaped way to check one case."""

    def __init__(self, report: Report) -> None:
        self.report = report

    def check(self, name: str) -> None:
        result = next(r for r in self.report.results if r.name == name)
        if result.status != PASS:
            where = f" (tasks {', '.join(result.tasks)})" if result.tasks else ""
            hint = f"\n{blame_line(result)}" if result.blame else ""
            pytest.fail(f"{result.status}{where}: {result.message}{hint}", pytrace=False)


@pytest.fixture(scope="session")
def torchlab_week(request: pytest.FixtureRequest) -> Callable[[str], WeekResults]:
    """Run each week once per session (in a worker process) and hand out its results."""
    impl = request.config.getoption("--impl")
    limits = Limits(case_seconds=request.config.getoption("--case-timeout"))
    cache: dict[str, WeekResults] = {}

    def get(week: str) -> WeekResults:
        if week not in cache:
            cache[week] = WeekResults(run_week_warm(get_week(week), impl, limits=limits))
        return cache[week]

    return get
