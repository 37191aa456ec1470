"""Week 6 hidden cases: more random programs from the same generator as the public property
cases, drawn from a seed of their own, run only when grading."""

from __future__ import annotations

from typing import Any

from autograder import property_case
from autograder.differential import week6 as generator
from autograder.weeks.week6.common import W
from autograder.weeks.week6.random_programs import drawn, label


@property_case(
    W, lambda: drawn("capture", "hidden"), n=20, points=3, hidden=True,
    tasks=("6.2", "6.3"), label=label,
)  # fmt: skip
def hidden_random_programs_captured(lib: Any, program: Any) -> Any:
    return generator.execute(lib, program)


@property_case(
    W, lambda: drawn("guards", "hidden"), n=20, points=3, hidden=True, tasks="6.4", label=label
)  # fmt: skip
def hidden_random_guard_probes(lib: Any, program: Any) -> Any:
    return generator.execute(lib, program)


@property_case(
    W, lambda: drawn("cache", "hidden"), n=15, points=3, hidden=True,
    tasks=("6.2", "6.4", "6.5"), label=label,
)  # fmt: skip
def hidden_random_call_sequences(lib: Any, program: Any) -> Any:
    return generator.execute(lib, program)


@property_case(
    W, lambda: drawn("trace|functional|decompose", "hidden"), n=15, points=3, hidden=True,
    tasks=("6.6", "6.7", "6.8"), label=label,
)  # fmt: skip
def hidden_random_aten_programs(lib: Any, program: Any) -> Any:
    return generator.execute(lib, program)


@property_case(
    W, lambda: drawn("joint", "hidden"), n=10, points=3, hidden=True, tasks="6.9", label=label
)  # fmt: skip
def hidden_random_partitions(lib: Any, program: Any) -> Any:
    return generator.execute(lib, program)


@property_case(
    W, lambda: drawn("fusion", "hidden"), n=6, points=3, hidden=True,
    tasks=("6.10", "6.11"), label=label,
)  # fmt: skip
def hidden_random_fused_graphs(lib: Any, program: Any) -> Any:
    return generator.execute(lib, program)
