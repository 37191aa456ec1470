"""The cases catch bugs: realistic learner mistakes in the reference each fail a public case.

Each week with a mutant list (``tests/mutants/<week>.py``) is scored with
``autograder.mutation``: every task has mutants, every mutant's original text is found exactly
once in the reference (an edit to the reference cannot silently disarm one), at least 95% are
caught, and the survivors are exactly the accepted ones. An accepted survivor whose reason
starts with "equivalent" (no comparison with torch can tell it apart) is left out of the 95%,
as mutation testing scores; every other accepted survivor still counts as missed.
``python -m autograder.mutation week1`` prints the whole table.
"""

from __future__ import annotations

import random
from collections import Counter

import pytest

from autograder.authoring import reference_tasks
from autograder.mutation import (
    Mutant,
    MutantResult,
    apply,
    apply_to,
    check_source,
    format_table,
    load_mutants,
    mutation_score,
    record_verdicts,
    recorded_verdicts,
    reference_source,
    reference_sources,
    run_mutant,
    score,
    weeks_with_mutants,
)
from autograder.weeks import WEEKS, get_week

MUTATED = weeks_with_mutants()
# Each week's mutant lists: the set written beside its cases, and the blind set written by
# someone who never saw them (tests/mutants/blind/: the honest measure of the public cases).
SETS = [pytest.param(w, False, id=w) for w in MUTATED] + [
    pytest.param(w, True, id=f"{w}-blind") for w in weeks_with_mutants(blind=True)
]
# A blind set of a C++ week rebuilds the library for each mutant (minutes in all), and week 6's
# holds 195 mutants that each compile (517 s as one test): such a set is scored in halves, so
# the two halves can run side by side (pytest -n 2).
HALVES = {"week4c", "week5", "week6", "week7c"}
# A week with a blind set is scored on it alone: the set written beside the cases scores 100%
# by construction and measures nothing more (its texts are still checked against the
# reference above; ``python -m autograder.mutation WEEK`` scores it on demand).
BLIND = set(weeks_with_mutants(blind=True))
SCORED = [
    pytest.param(w, blind, half, id=f"{w}{'-blind' if blind else ''}-{half + 1}of2")
    for w, blind in [(p.values[0], p.values[1]) for p in SETS]
    if blind and w in HALVES
    for half in (0, 1)
] + [
    p
    for p in SETS
    if not (p.values[1] and p.values[0] in HALVES) and (p.values[1] or p.values[0] not in BLIND)
]
MIN_MUTANTS = {"week1": 40}  # per week; any other week needs at least 2 per task
MIN_BLIND = 40  # a blind set: at least 40 over every task
MIN_PER_TASK = 2
MIN_SCORE = 0.95
# A set whose verdicts are recorded (tests/mutants/verdicts/, ``python -m autograder.mutation
# WEEK [--blind] --record``) and still hold for the sources as they are: this many of its
# mutants, drawn at random each run, are checked afresh and must agree with the record; the
# others' recorded verdicts are taken. Anything a verdict depends on changed: all are checked.
# A set scored in halves draws half as many in each (a C++ mutant is a build: 12 s for 7c).
SPOT_CHECKS = 6


def test_week1_has_mutants():
    assert "week1" in MUTATED


@pytest.mark.parametrize(("week", "blind"), SETS)
def test_mutants_cover_every_task_and_match_the_reference(week, blind):
    mutants, accepted = load_mutants(WEEKS[week], blind=blind)
    sources = reference_sources(WEEKS[week])
    module = f"{get_week(week).module}.py"
    tasks = reference_tasks(WEEKS[week])
    per_task = Counter(m.task for m in mutants)

    assert all(m.week == week for m in mutants), [m.name for m in mutants if m.week != week]
    duplicates = [name for name, n in Counter(m.name for m in mutants).items() if n > 1]
    assert not duplicates, f"mutant names must be unique: {duplicates}"
    unknown = sorted({m.task for m in mutants} - set(tasks))
    assert not unknown, f"mutants name tasks the reference does not have: {unknown}"
    thin = {t: per_task[t] for t in tasks if per_task[t] < MIN_PER_TASK}
    assert not thin, f"tasks with fewer than {MIN_PER_TASK} mutants: {thin}"
    least = MIN_BLIND if blind else MIN_MUTANTS.get(week, MIN_PER_TASK * len(tasks))
    assert len(mutants) >= least
    stale = [m.name for m in mutants if sources[m.file or module].count(m.old) != 1]
    assert not stale, f"old text not found exactly once in the reference: {stale}"
    no_op = [m.name for m in mutants if m.old == m.new]
    assert not no_op, f"mutants that change nothing: {no_op}"
    orphans = sorted(set(accepted) - {m.name for m in mutants})
    assert not orphans, f"ACCEPTED_SURVIVORS names no mutant: {orphans}"


@pytest.mark.parametrize(
    ("week", "blind", "half"),
    [p if len(p.values) == 3 else pytest.param(*p.values, None, id=p.id) for p in SCORED],
)
def test_mutation_score(week, blind, half):
    mutants, accepted = load_mutants(WEEKS[week], blind=blind)
    recorded = recorded_verdicts(WEEKS[week], blind, mutants)
    if half is not None:
        mutants = mutants[half::2]
        accepted = {
            name: why for name, why in accepted.items() if name in {m.name for m in mutants}
        }
    if recorded is None:
        results = mutation_score(WEEKS[week], mutants, jobs=2)
    else:
        results = _spot_checked(week, mutants, recorded, SPOT_CHECKS // (1 if half is None else 2))
    print(f"\n{week}\n{format_table(results, accepted)}")

    broken = [f"{r.mutant.name}: {r.problems[0]}" for r in results if r.problems]
    assert not broken, "mutants that cannot be checked (they must import):\n" + "\n".join(broken)
    survivors = {r.mutant.name: r.mutant for r in results if not r.caught}
    new = [
        f"  Task {m.task}: {name} ({m.why})"
        for name, m in survivors.items()
        if name not in accepted
    ]
    now_caught = [f"  {name}" for name in accepted if name not in survivors]
    caught = sum(r.caught for r in results)
    message = f"{week} mutation score {caught}/{len(results)} ({100 * score(results):.1f}%)"
    # An equivalent mutant (its accepted reason says "equivalent": nothing torch can be asked
    # shows it, e.g. a refusal of what torch does, or scratch space gloo leaves unspecified)
    # is left out of the score, as mutation testing defines it; the raw figure is printed too.
    equivalent = {name for name, why in accepted.items() if why.startswith("equivalent")}
    judged = [r for r in results if r.mutant.name not in equivalent]
    if len(judged) < len(results):
        message += (
            f"; {sum(r.caught for r in judged)}/{len(judged)} ({100 * score(judged):.1f}%)"
            f" without the {len(results) - len(judged)} equivalent"
        )
    if new:
        message += "\nno public case catches (add a case, or accept it if it is equivalent):\n"
        message += "\n".join(new)
    if now_caught:
        message += "\naccepted survivors a case now catches (drop them from ACCEPTED_SURVIVORS):\n"
        message += "\n".join(now_caught)
    assert not new and not now_caught, message
    assert score(judged) >= MIN_SCORE, message


def _spot_checked(week: str, mutants: list, recorded: dict, n: int) -> list:
    """The recorded verdicts, with ``n`` of them checked afresh (the unmutated reference too:
    ``mutation_score`` checks it first)."""
    seed = random.randrange(10**6)
    sample = random.Random(seed).sample(mutants, min(n, len(mutants)))
    fresh = {r.mutant.name: r for r in mutation_score(WEEKS[week], sample, jobs=2)}
    print(f"\nrecorded verdicts; checked afresh (seed {seed}): {', '.join(fresh)}")
    stale = [
        f"  {name}: recorded {'caught' if recorded[name]['caught'] else 'survived'}, "
        f"now {'caught' if r.caught else 'survived'}{' ' + r.problems[0] if r.problems else ''}"
        for name, r in fresh.items()
        if r.caught != recorded[name]["caught"] or r.problems
    ]
    assert not stale, (
        f"{week}: recorded verdicts disagree with a fresh check (record again with "
        "python -m autograder.mutation WEEK [--blind] --record):\n" + "\n".join(stale)
    )
    return [
        fresh.get(m.name)
        or MutantResult(m, recorded[m.name]["caught"], tuple(recorded[m.name]["failing"]))
        for m in mutants
    ]


# --- the machinery itself ---------------------------------------------------------------------


def test_recorded_verdicts_hold_only_for_the_sources_they_were_recorded_on(tmp_path, monkeypatch):
    """A record is taken only while everything it hashed is unchanged: a mutant's text, or
    the set itself."""
    import autograder.mutation as mutation

    monkeypatch.setattr(mutation, "VERDICTS_DIR", tmp_path)
    w = get_week("week1")
    mutants, _ = load_mutants(w)
    mutants = mutants[:3]
    results = [MutantResult(m, i != 1, ("a case",) * (i != 1)) for i, m in enumerate(mutants)]
    record_verdicts(w, False, results)
    got = recorded_verdicts(w, False, mutants)
    assert got is not None
    assert [got[m.name]["caught"] for m in mutants] == [True, False, True]
    changed = [mutants[0], mutants[1], Mutant(**{**vars(mutants[2]), "new": "changed"})]
    assert recorded_verdicts(w, False, changed) is None
    assert recorded_verdicts(w, False, mutants[:2]) is None
    assert recorded_verdicts(w, True, mutants) is None  # the blind set has no record here


def _mutant(old: str, new: str = "X") -> Mutant:
    return Mutant("week1", "1.1", "example", old, new)


def test_apply_replaces_the_one_occurrence():
    assert apply("a = 1\nb = 2\n", _mutant("b = 2", "b = 3")) == "a = 1\nb = 3\n"


@pytest.mark.parametrize(
    ("source", "complaint"), [("a = 1\n", "is not found"), ("b\nb\n", "occurs 2 times")]
)
def test_apply_refuses_a_missing_or_repeated_old_text(source, complaint):
    with pytest.raises(ValueError, match=complaint) as info:
        apply(source, _mutant("b"))
    assert "'example'" in str(info.value)  # names the mutant to fix


def test_a_mutant_that_does_not_import_is_not_caught():
    source = reference_source(WEEKS["week1"])
    first_line = source.splitlines()[0]
    result = run_mutant(WEEKS["week1"], _mutant(first_line, "this is not python"), source)
    assert not result.caught and result.problems


def test_a_mutants_check_stops_at_its_first_failing_case():
    """A mutant is caught at its first failing case: the score's check stops there, and names
    the same first failing case as a check of every case."""
    week = WEEKS["week1"]
    source = reference_source(week)
    mutant = next(
        m for m in load_mutants(week)[0] if m.name == "column-major strides (wrong stride order)"
    )
    full = check_source(week, apply_to(week, source, mutant))
    failing = [r.name for r in full.results if r.status != "pass"]
    assert len(failing) > 1, "pick a mutant that fails more than one case"
    result = run_mutant(week, mutant, source)
    assert result.caught and result.failing == (failing[0],)
    assert format_table([result]).splitlines()[2].endswith(failing[0])
