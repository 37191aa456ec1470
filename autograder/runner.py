"""The one runner: every front end (CLI, pytest, notebook, grader) checks a week through here.

It takes torch's observations from the oracle, builds a native week's C++ (``native.py``),
runs the engine under test in worker processes (``workers.py``: a time limit per case, a
memory limit, a sandbox) and judges each case (``judge.py``). Whatever the engine does
(loops, crashes, exits, prints), the runner returns a Report. Where the learner's files are
is ``labs.py``'s business.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from autograder import isolation, native
from autograder.cases import Case, load_week, task_key
from autograder.judge import NOT_IMPLEMENTED, judge
from autograder.labs import course_file, resolve_impl
from autograder.oracle import expected_observations
from autograder.report import PASS, CaseResult, Report
from autograder.weeks import Week
from autograder.workers import (
    Limits,
    isolation_for,
    prestart,
    run_engine,
    safe_text,
    secret_paths,
)


def run_week(
    week: Week,
    impl: str = "lab",
    select_cases: list[str] | None = None,
    include_hidden: bool = False,
    limits: Limits | None = None,
    stop_at_first_failure: bool = False,
    first_tasks: tuple[str, ...] = (),
) -> Report:
    """Check one week's cases against an engine and return the report.

    ``select_cases`` keeps cases whose name contains one of the strings, or that check a task
    given as "1.4" (any task the case needs: cases that also need later tasks say "not
    implemented" until those are written).

    ``stop_at_first_failure``: the run ends at the first case that does not pass, and the
    report holds the cases up to and including it (all of them when every case passes). The
    mutation score asks only whether a mutant fails a case, and which first; grading never
    sets it. ``first_tasks``: the cases that check one of these tasks run first (the rest
    after, each group in its usual order): the mutation score puts a mutant's own task first,
    so a caught mutant stops early.
    """
    limits = limits or Limits()
    path = resolve_impl(week, impl)
    # A given module (week 2c's cpp_ops.py) comes from the course: a folder with the C++ will do.
    present = path.exists() or (path.name in week.given and path.parent.is_dir())
    if present:
        prestart(week, path, include_hidden, limits)
    cases = [c for c in load_week(week.name, include_hidden) if _selected(c, select_cases)]
    if first_tasks:
        cases.sort(key=lambda c: not set(c.tasks) & set(first_tasks))  # stable: in order
    report = Report(f"{week.name}: {week.title}", str(path))  # absolute: no doubt which copy
    report.isolation = isolation.describe(isolation_for(limits))
    if impl == "reference" and not present:
        report.problems.append("this copy of the course has no reference engine")
    expected = expected_observations(week, cases)
    stop = _first_failure(cases, expected) if stop_at_first_failure else None
    library, build_problem = _build_native(week, path, limits) if present else (None, None)
    if build_problem:
        report.problems.append(build_problem)
        outcomes = {c.id: {"status": "error", "message": build_problem} for c in cases}
    elif not present:
        problem = f"cannot find {path}: is the file there, with this name?"
        if impl == "lab":
            problem += " (run from your lab folder or your course folder, or pass the file)"
        report.problems.append(problem)
        outcomes: dict[str, dict[str, Any]] = {
            c.id: {"status": "error", "message": problem} for c in cases
        }
    else:
        outcomes = {}
        deadline = time.monotonic() + limits.run_seconds  # one budget for both workers
        # Hidden cases run after the public ones, in a worker of their own: nothing of their
        # source or docstrings is ever in a process whose messages a student reads in full.
        for hidden in (False, True):
            items = [
                {"id": c.id, "examples": expected[c.id]["examples"]}
                for c in cases
                if c.hidden == hidden
            ]
            if not items:
                continue
            problems = report.problems if not hidden else []
            ran = run_engine(week, path, items, limits, problems, hidden, deadline, library, stop)
            outcomes.update(ran)
            if hidden:
                _neutral_hidden_problems(problems, report.problems)
            if stop is not None and any(stop(i, outcome) for i, outcome in ran.items()):
                break  # stopped at a failing case: nothing after it runs
    for c in cases:
        if c.id in outcomes or stop is None:
            report.results.append(_result(c, expected[c.id]["expected"], outcomes[c.id]))
    assign_blame(report.results)
    return report


def _first_failure(cases: list[Case], expected: dict[str, Any]) -> Callable[[str, dict], bool]:
    """``run_engine``'s stop: True for the outcome of a case that does not pass."""
    by_id = {c.id: c for c in cases}
    verdicts: dict[str, bool] = {}

    def failed(case_id: str, outcome: dict[str, Any]) -> bool:
        if case_id not in verdicts:
            c = by_id[case_id]
            verdicts[case_id] = _result(c, expected[c.id]["expected"], outcome).status != PASS
        return verdicts[case_id]

    return failed


HIDDEN_PROBLEM = (
    "the hidden cases could not run (the module failed in their own worker); "
    "their details are not shown"
)


def _neutral_hidden_problems(problems: list[str], shown: list[str]) -> None:
    """What went wrong in the hidden cases' worker stays with those cases (whose details a
    student never sees: ``Report.for_student``); the report's problems, which a student reads
    in full, get one neutral line. The worker read the hidden cases' source, so anything it
    says (an import error, a crash) may quote them."""
    new = [p for p in problems if p not in shown]  # the public worker's own words: no leak
    if new and HIDDEN_PROBLEM not in shown:
        shown.append(HIDDEN_PROBLEM)


def _build_native(w: Week, path: Path, limits: Limits) -> tuple[Path | None, str | None]:
    """A native week's C++, built (or found in the build cache) before any worker starts:
    (the library, None), or (None, the problem every case reports)."""
    if not w.native_sources:
        return None, None
    hide = [str(p) for p in secret_paths(w, path, False, [Path(p) for p in limits.hide_paths])]
    sources = {name: path.parent / name for name in w.native_sources}
    # The precompiled header comes from the course's own skeleton, never from a submission.
    pch_from = course_file(w, w.native_sources[0])
    built = native.build(
        w.native_library,
        sources,
        native.BuildLimits(
            limits.build_seconds, isolation=limits.isolation, announce=limits.announce_builds
        ),
        hide,
        pch_from=pch_from,
    )
    if built.library is None:
        return None, f"{', '.join(w.native_sources)} did not build: {built.error}"
    return built.library, None


def assign_blame(results: list[CaseResult]) -> None:
    """Name the task to look at first for each failing case, where the run can tell.

    Walk the case's tasks in order and stop at the first whose own cases (those it
    completes) failed in this run: that task gave a wrong answer somewhere this case relies
    on. A task none of whose own cases ran here says nothing, so the walk gives up there
    (``-k`` may have left them out). A case whose earlier tasks all pass blames its own task.
    """
    own: dict[str, list[str]] = {}
    for r in results:
        if r.own_task and not r.hidden:
            own.setdefault(r.own_task, []).append(r.status)
    for r in results:
        if r.status in (PASS, NOT_IMPLEMENTED, "error"):
            continue
        for task in sorted(r.tasks, key=task_key):
            statuses = own.get(task) if task != r.own_task else [r.status]
            if statuses is None:
                break
            if any(status != PASS for status in statuses):
                r.blame = task
                break


def _selected(c: Case, wanted: list[str] | None) -> bool:
    return not wanted or any(w in c.tasks or w in c.name for w in wanted)


def _result(c: Case, expected: Any, outcome: dict[str, Any]) -> CaseResult:
    base = dict(
        id=c.id, name=c.name, week=c.week, points=c.points, tasks=sorted(c.tasks, key=task_key)
    )
    base.update(hidden=c.hidden, seconds=outcome.get("seconds", 0.0))
    base["output"] = safe_text(outcome.get("output", ""), 2000)
    forbidden = [v for v in outcome.get("violations", []) if v.startswith("imported ")]
    base["refused"] = [v for v in outcome.get("violations", []) if v not in forbidden]
    if forbidden:  # a lab that forbids torch gives nothing for work torch did
        message = f"scores zero: your code {forbidden[0]}, which this lab forbids"
        return CaseResult(status="fail", message=message, **base)
    if "observation" not in outcome:
        return CaseResult(status=outcome["status"], message=outcome["message"], **base)
    try:
        verdict = judge(expected, outcome["observation"])
    except Exception:  # noqa: BLE001 - a malformed observation is the submission's failure
        message = "the result could not be compared with torch's (not an observation)"
        return CaseResult(status="fail", message=message, **base)
    status = verdict.status if verdict.status in (PASS, NOT_IMPLEMENTED) else "fail"
    return CaseResult(status=status, message=safe_text(verdict.message, 2000), **base)
