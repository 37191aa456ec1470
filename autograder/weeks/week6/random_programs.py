"""Property cases for Tasks 6.2-6.5: random programs from week 6's generator
(``autograder/differential/week6.py``), drawn once from a fixed seed, the same programs for
real Dynamo and for the learner's module. A failure is labelled with the program."""

from __future__ import annotations

import random
from typing import Any

from autograder.cases import property_case
from autograder.differential import week6 as generator
from autograder.weeks.week6.common import W


def drawn(kind: str, prefix: str = "public") -> Any:
    """A hypothesis strategy of the generator's programs of one kind."""
    from hypothesis import strategies as st

    make = {"capture": generator._capture, "guards": generator._guards, "cache": generator._cache}
    return st.integers(0, 10**9).map(lambda i: make[kind](random.Random(f"{prefix}:{i}")))


def label(program: Any) -> str:
    return "\n" + generator.describe(program)


@property_case(
    W, lambda: drawn("capture"), n=12, points=3, tasks=("6.2", "6.3"), label=label
)  # fmt: skip
def random_programs_captured(lib: Any, program: Any) -> Any:
    """Random functions of square tensors, an int and a list (ops, operators, reductions,
    keywords, shape constants, ``print``, ``if`` on a tensor or on the int): the graphs,
    their calls, placeholders and outputs, and the result."""
    return generator.execute(lib, program)


@property_case(W, lambda: drawn("guards"), n=12, points=3, tasks="6.4", label=label)
def random_guard_probes(lib: Any, program: Any) -> Any:
    """Random examples (tensors of random shape, dtype and requires_grad, ints, floats,
    lists, None) and probes that change one thing: each decision."""
    return generator.execute(lib, program)


@property_case(
    W, lambda: drawn("cache"), n=10, points=3, tasks=("6.2", "6.4", "6.5"), label=label
)  # fmt: skip
def random_call_sequences(lib: Any, program: Any) -> Any:
    """Random call sequences (sizes, ints, ``dynamic``, ``mark_dynamic``, ``reset``): the
    results and the compile count after each call."""
    return generator.execute(lib, program)
