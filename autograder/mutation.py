"""Mutation score: do a week's public cases catch realistic learner bugs?

A *mutant* is the reference engine with one piece of its source replaced: one mistake a
learner could make (an off-by-one, a forgotten special case, a check that never raises...).
Each mutant is written to a folder of its own and checked with ``run_week`` on the public
cases, like a learner's submission. It is *caught* when at least one case does not pass
(its check stops at the first such case: the cases after it cannot change the verdict); a
mutant that cannot even be imported is a broken mutant, not a caught one.

    python -m autograder.mutation week1 [--jobs 2]

prints one row per mutant (task, name, caught, first failing case) and the score. The
mutants of a week live in ``tests/mutants/<week>.py`` (``<WEEK>_MUTANTS`` and
``ACCEPTED_SURVIVORS``); this module holds no week-specific knowledge.

Recorded verdicts (``--record``): a whole set's verdicts, written to
``tests/mutants/verdicts/`` with a hash of everything a verdict depends on (the reference,
the week's cases, truth and generators, the grader's own modules, the mutants' texts, torch's
and Python's versions). While that hash still matches, the test suite re-checks a random
sample of the set and takes the recorded verdict for the rest; when anything changed, it
checks every mutant, as without a record. A C++ week's set takes minutes (each mutant is a
build); its verdicts change only when its week does.
"""

from __future__ import annotations

import argparse
import hashlib
import importlib.util
import json
import platform
import sys
import tempfile
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import NamedTuple

from autograder.cases import task_key, week_files
from autograder.labs import REPO_ROOT, resolve_impl
from autograder.native import unoptimised_builds
from autograder.release import week_sources
from autograder.report import PASS, Report, printable
from autograder.runner import run_week
from autograder.weeks import WEEKS, Week, get_week

MUTANTS_DIR = REPO_ROOT / "tests" / "mutants"
BLIND_DIR = MUTANTS_DIR / "blind"
VERDICTS_DIR = MUTANTS_DIR / "verdicts"
# The grader's top-level modules that cannot change a verdict (front ends and authoring
# tools); every other one is part of a recorded verdict's hash.
_FRONT_ENDS = {
    "authoring.py", "check_server.py", "cli.py", "grading.py", "i18n.py", "nbgrader_bridge.py",
    "nbgrader_cell.py", "nbgrader_verdicts.py", "pytest_plugin.py", "samples.py", "status.py",
}  # fmt: skip


@dataclass(frozen=True)
class Mutant:
    """One learner bug: replace ``old`` (found exactly once in the reference) by ``new``."""

    week: str  # "week1"
    task: str  # the task whose code the bug is in: "1.4"
    name: str  # what the learner got wrong, in a few words; unique within the week
    old: str
    new: str
    why: str = ""  # why a learner would write this (optional)
    file: str = ""  # the file it is in: "" for the week's module, else a native source


class MutantResult(NamedTuple):
    """How one mutant fared. ``problems``: why the mutant could not be checked at all
    (it does not import...); such a mutant is never counted as caught."""

    mutant: Mutant
    caught: bool
    # the cases that did not pass, in case order: the first alone (its check stopped there)
    failing: tuple[str, ...]
    problems: tuple[str, ...] = ()


def apply(source: str, mutant: Mutant) -> str:
    """``source`` with the mutant's ``old`` text replaced by its ``new`` text.

    ``old`` must occur exactly once: an edit to the reference must never silently disarm a
    mutant or mutate the wrong place.
    """
    count = source.count(mutant.old)
    if count != 1:
        where = "is not found" if count == 0 else f"occurs {count} times"
        raise ValueError(
            f"mutant {mutant.name!r} ({mutant.week}, Task {mutant.task}): its old text {where} "
            f"in the reference; update the mutant: {mutant.old!r}"
        )
    return source.replace(mutant.old, mutant.new)


def reference_source(w: Week) -> str:
    """The source of the week's reference engine."""
    return resolve_impl(w, "reference").read_text()


def reference_sources(w: Week) -> dict[str, str]:
    """Every file of the week's reference the learner edits: the module, and its C++."""
    module = resolve_impl(w, "reference")
    return {name: (module.parent / name).read_text() for name in week_sources(w)}


Sources = str | dict[str, str]  # the module's text, or {file name: text} for every file


def _files(w: Week, source: Sources) -> dict[str, str]:
    if isinstance(source, dict):
        return source
    return {**reference_sources(w), f"{w.module}.py": source}


def apply_to(w: Week, source: Sources, mutant: Mutant) -> dict[str, str]:
    """The week's files with the mutant applied to the file it names."""
    files = dict(_files(w, source))
    name = mutant.file or f"{w.module}.py"
    files[name] = apply(files[name], mutant)
    return files


def check_source(
    w: Week, source: Sources, stop_at_first_failure: bool = False, first_tasks: tuple = ()
) -> Report:
    """Check ``source`` as the week's engine (public cases only), from a folder of its own.
    ``stop_at_first_failure`` and ``first_tasks``: as ``run_week``'s (the report ends at the
    first failing case; the cases of those tasks run first)."""
    with tempfile.TemporaryDirectory(prefix=f"torchlab-mutant-{w.name}-") as folder:
        for name, text in _files(w, source).items():
            (Path(folder) / name).write_text(text)
        return run_week(
            w,
            folder,
            include_hidden=False,
            stop_at_first_failure=stop_at_first_failure,
            first_tasks=first_tasks,
        )


def _failing(report: Report) -> tuple[str, ...]:
    return tuple(r.name for r in report.results if r.status != PASS)


def run_mutant(w: Week, mutant: Mutant, source: Sources | None = None) -> MutantResult:
    """Check one mutant of ``source`` (default: the week's reference). Its check stops at its
    first failing case (``failing`` then names that case alone); a survivor runs every case.
    The cases of the mutant's own task run first: they are the likeliest to catch it, and a
    mutant of a late task no longer waits for every earlier task's cases to pass."""
    mutated = apply_to(w, reference_sources(w) if source is None else source, mutant)
    first = (mutant.task,)
    report = check_source(w, mutated, stop_at_first_failure=True, first_tasks=first)
    if report.problems or any(r.status == "timeout" for r in report.results):
        # A busy machine can stop an import or a case on time alone: look again, once.
        report = check_source(w, mutated, stop_at_first_failure=True, first_tasks=first)
    failing = _failing(report)
    problems = tuple(report.problems)
    return MutantResult(mutant, bool(failing) and not problems, failing, problems)


def mutation_score(w: Week, mutants: Sequence[Mutant], jobs: int = 2) -> list[MutantResult]:
    """Check every mutant (``jobs`` at a time) and return their results, in order.

    The unmutated reference is checked first: it must pass every public case, or a failing
    case would "catch" every mutant. That run also fills the oracle's cache before the
    mutants run side by side. Every ``old`` text is checked before anything runs.
    """
    if not w.native_sources:
        return _score(w, mutants, jobs)
    with unoptimised_builds():  # a C++ week's mutants are built at -O0 (native.py says why)
        return _score(w, mutants, jobs)


def _score(w: Week, mutants: Sequence[Mutant], jobs: int) -> list[MutantResult]:
    source = reference_sources(w)
    others = sorted({m.week for m in mutants} - {w.name})
    if others:
        raise ValueError(f"mutants of {', '.join(others)} given to the {w.name} score")
    for m in mutants:  # every old text first: a stale mutant fails before anything runs
        apply_to(w, source, m)
    baseline = check_source(w, source)
    if baseline.problems or _failing(baseline):
        raise RuntimeError(
            f"the unmutated {w.name} reference does not pass its own public cases "
            f"(failing: {', '.join(_failing(baseline)) or 'none'}; "
            f"problems: {'; '.join(baseline.problems) or 'none'}): no score can be measured"
        )
    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:  # run_week forks its own worker
        return list(pool.map(lambda m: run_mutant(w, m, source), mutants))


# ---- recorded verdicts ----------------------------------------------------------------------


def _week_files(w: Week) -> list[Path]:
    """Every file a verdict of ``w``'s mutants can depend on besides its reference, in a
    fixed order: the grader's modules, then the week's case files (``cases.week_files``:
    cases, truth, generator, and those of any week its cases import)."""
    grader = REPO_ROOT / "autograder"
    files = [p for p in sorted(grader.glob("*.py")) if p.name not in _FRONT_ENDS]
    files += [grader / "weeks" / "__init__.py", grader / "differential" / "__init__.py"]
    return files + week_files(w.name)


def verdict_key(w: Week, mutants: Sequence[Mutant]) -> str:
    """The hash of everything the verdicts of ``mutants`` depend on."""
    import torch

    digest = hashlib.sha256()
    digest.update(f"torch {torch.__version__} python {platform.python_version()}\n".encode())
    for name, text in sorted(reference_sources(w).items()):
        digest.update(f"reference {name}\n{text}\n".encode())
    for path in _week_files(w):
        digest.update(f"{path.relative_to(REPO_ROOT)}\n".encode() + path.read_bytes())
    for m in mutants:
        digest.update(json.dumps([m.task, m.name, m.old, m.new, m.file]).encode())
    return digest.hexdigest()


def verdicts_path(w: Week, blind: bool) -> Path:
    return VERDICTS_DIR / f"{w.name}{'-blind' if blind else ''}.json"


def record_verdicts(w: Week, blind: bool, results: Sequence[MutantResult]) -> Path:
    """Write a whole set's verdicts with the hash they hold for."""
    mutants = [r.mutant for r in results]
    record = {
        "key": verdict_key(w, mutants),
        "verdicts": {r.mutant.name: {"caught": r.caught, "failing": list(r.failing)}
                     for r in results},
    }  # fmt: skip
    path = verdicts_path(w, blind)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(record, indent=1, sort_keys=True) + "\n")
    return path


def recorded_verdicts(w: Week, blind: bool, mutants: Sequence[Mutant]) -> dict | None:
    """``{name: {"caught", "failing"}}`` recorded for exactly this set as it is now, or None
    (no record, or something it depends on has changed since)."""
    path = verdicts_path(w, blind)
    if not path.exists():
        return None
    record = json.loads(path.read_text())
    if record.get("key") != verdict_key(w, mutants):
        return None
    return record["verdicts"]


def score(results: Sequence[MutantResult]) -> float:
    """The fraction of mutants caught (1.0 for no mutants)."""
    return sum(r.caught for r in results) / len(results) if results else 1.0


def load_mutants(w: Week, blind: bool = False) -> tuple[list[Mutant], dict[str, str]]:
    """``(mutants, accepted survivors)`` from ``tests/mutants/<week>.py``.

    That module defines ``<WEEK>_MUTANTS`` (e.g. ``WEEK1_MUTANTS``, a list of Mutant) and
    ``ACCEPTED_SURVIVORS`` (``{mutant name: why no case can catch it}``).

    ``blind=True``: the week's blind set, ``tests/mutants/blind/<week>.py`` (``<WEEK>_BLIND``),
    written by someone who had read only the reference and the chapter, never the cases, and
    frozen before it was first scored; ``ACCEPTED_SURVIVORS`` there says why a case cannot
    catch a survivor (or what the week leaves to its hidden cases).
    """
    folder, suffix = (BLIND_DIR, "BLIND") if blind else (MUTANTS_DIR, "MUTANTS")
    module = _load_module(folder / f"{w.name}.py", w.name + ("_blind" if blind else ""))
    mutants = list(getattr(module, f"{w.name.upper()}_{suffix}"))
    return mutants, dict(getattr(module, "ACCEPTED_SURVIVORS", {}))


def weeks_with_mutants(blind: bool = False) -> list[str]:
    """The weeks that have a mutant list in ``tests/mutants/`` (``blind/`` for blind sets)."""
    folder = BLIND_DIR if blind else MUTANTS_DIR
    found = [p.stem for p in folder.glob("week*.py")] if folder.is_dir() else []
    return [w for w in WEEKS if w in found]  # the course's order (week2b after week2)


def _load_module(path: Path, week: str) -> ModuleType:
    if not path.exists():
        raise ValueError(f"{week} has no mutants: {path} does not exist (a course checkout has it)")
    spec = importlib.util.spec_from_file_location(f"torchlab_mutants_{week}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def format_table(results: Sequence[MutantResult], accepted: dict[str, str] | None = None) -> str:
    """One row per mutant, sorted by task: task, mutant, caught, first failing case."""
    accepted = accepted or {}
    rows = [("task", "mutant", "caught", "first failing case")]
    ordered = sorted(enumerate(results), key=lambda ir: (task_key(ir[1].mutant.task), ir[0]))
    for _, r in ordered:
        if r.problems:
            verdict, first = "BROKEN", printable(r.problems[0])[:60]
        elif r.caught:
            verdict, first = "yes", r.failing[0]
        else:
            verdict = "accepted" if r.mutant.name in accepted else "NO"
            first = "-"
        rows.append((r.mutant.task, r.mutant.name, verdict, first))
    widths = [max(len(row[i]) for row in rows) for i in range(3)]
    lines = [
        "  ".join(cell.ljust(widths[i]) for i, cell in enumerate(row[:3])) + "  " + row[3]
        for row in rows
    ]
    lines.insert(1, "-" * len(lines[0]))
    caught = sum(r.caught for r in results)
    lines.append(f"mutation score: {caught}/{len(results)} caught ({100 * score(results):.1f}%)")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    """``python -m autograder.mutation week1``: the table and the score. Exit status 1 when a
    survivor is not in ACCEPTED_SURVIVORS, or an accepted one is now caught."""
    parser = argparse.ArgumentParser(prog="python -m autograder.mutation", description=__doc__)
    parser.add_argument("week", help='the week: "week1" or "1"')
    parser.add_argument("--jobs", type=int, default=2, help="mutants checked side by side")
    parser.add_argument("-k", dest="select", help="only mutants whose name or task contains this")
    parser.add_argument("--blind", action="store_true", help="the week's blind set instead")
    parser.add_argument(
        "--record", action="store_true", help="write the verdicts to tests/mutants/verdicts/"
    )
    args = parser.parse_args(argv)
    week = get_week(args.week)  # the front door: a name from the command line
    mutants, accepted = load_mutants(week, blind=args.blind)
    if args.select and args.record:
        parser.error("--record writes a whole set's verdicts: leave out -k")
    if args.select:
        mutants = [m for m in mutants if args.select in m.name or args.select == m.task]
    results = mutation_score(week, mutants, jobs=args.jobs)
    print(format_table(results, accepted))
    if args.record:
        print(f"recorded: {record_verdicts(week, args.blind, results).relative_to(REPO_ROOT)}")
    survivors = {r.mutant.name for r in results if not r.caught}
    checked = {m.name for m in mutants}
    unexpected = sorted(survivors - set(accepted))
    now_caught = sorted((set(accepted) & checked) - survivors)
    for name in unexpected:
        print(f"survivor not in ACCEPTED_SURVIVORS: {name}")
    for name in now_caught:
        print(f"accepted survivor is now caught (drop it from ACCEPTED_SURVIVORS): {name}")
    return 1 if unexpected or now_caught else 0


if __name__ == "__main__":
    sys.exit(main())
