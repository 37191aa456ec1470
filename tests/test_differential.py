"""Each reference agrees with torch on random programs over everything it models
(``autograder/differential``), and the harness is not blind: a reference with one rule
broken is caught."""

from __future__ import annotations

import pytest

from autograder import differential
from autograder.weeks import WEEKS

# Programs per week in the test suite (under a minute each); instructors run 20,000.
N = 300


@pytest.mark.parametrize("week", differential.WEEKS_WITH_GENERATORS)
def test_the_reference_agrees_with_torch_on_random_programs(week):
    """Never a different answer; a refusal (NotImplementedError) only now and then, since the
    generators draw from what the reference models."""
    found = differential.run(WEEKS[week], N, seed=0)
    wrong = [d for d in found if not d.refused]
    assert not wrong, f"{len(wrong)} of {N} programs differ; the first:\n{wrong[0]}"
    assert len(found) <= N // 20, f"{len(found)} of {N} programs refused; the first:\n{found[0]}"


@pytest.mark.parametrize("week", differential.WEEKS_WITH_GENERATORS)
def test_a_broken_reference_is_caught(week):
    """The week's generator module names how to break its reference (``BREAK``: a function
    that takes the freshly loaded reference module and changes one rule)."""
    gen = differential.generator(WEEKS[week])
    engine = differential.load_engine(WEEKS[week])
    undo = gen.BREAK(engine)  # may return how to undo it (a kernel registered in torch)
    try:
        found = differential.run(WEEKS[week], N, seed=0, engine=engine)
    finally:
        if callable(undo):
            undo()
    assert [d for d in found if not d.refused]


@pytest.mark.parametrize("week", differential.WEEKS_WITH_GENERATORS)
def test_programs_are_reproducible_from_seed_and_index(week):
    first = differential.program(WEEKS[week], 7, 3)
    assert differential.program(WEEKS[week], 7, 3) == first
