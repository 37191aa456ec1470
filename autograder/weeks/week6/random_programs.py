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
    """A hypothesis strategy of the generator's programs of one kind, or of several
    (``"trace|functional"``: program ``i`` is of kind ``i`` mod their number)."""
    from hypothesis import strategies as st

    kinds = kind.split("|")

    def make(i: int) -> Any:
        return generator.KINDS[kinds[i % len(kinds)]](random.Random(f"{prefix}:{i}"))

    return st.integers(0, 10**9).map(make)


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


@property_case(
    W, lambda: drawn("trace|functional|decompose"), n=12, points=3,
    tasks=("6.6", "6.7", "6.8"), label=label,
)  # fmt: skip
def random_aten_programs(lib: Any, program: Any) -> Any:
    """Random functions of four tensors (pointwise ops, broadcasting, reductions, softmax,
    ``@``, ``t()``; in-place ops on inputs, intermediates and their views): the ATen graph
    traced, functionalized, or decomposed by your table, each against torch's."""
    return generator.execute(lib, program)


@property_case(W, lambda: drawn("joint"), n=8, points=3, tasks="6.9", label=label)
def random_partitions(lib: Any, program: Any) -> Any:
    """Random differentiable functions, some inputs needing no gradient: the forward's and
    backward's calls, the saved values, the gradients."""
    return generator.execute(lib, program)


@property_case(W, lambda: drawn("fusion"), n=6, points=3, tasks=("6.10", "6.11"), label=label)
def random_fused_graphs(lib: Any, program: Any) -> Any:
    """Random ATen graphs lowered: the kernels and extern calls in order, against the code
    Inductor writes for the same graph; the generated code's results against eager."""
    return generator.execute(lib, program)
