"""Week 7 hidden cases: more random programs from the same generator as the public property
cases, drawn from a seed of their own, run only when grading."""

from __future__ import annotations

from typing import Any

from autograder import property_case
from autograder.differential import week7 as generator
from autograder.weeks.week7.common import W
from autograder.weeks.week7.random_programs import drawn, label


@property_case(
    W, lambda: drawn("collective", "hidden"), n=15, points=3, hidden=True, tasks=("7.2", "7.3"),
    label=label,
)  # fmt: skip
def hidden_random_collectives(lib: Any, program: Any) -> Any:
    return generator.execute(lib, program)


@property_case(
    W, lambda: drawn("process_group", "hidden"), n=12, points=3, hidden=True,
    tasks=("7.2", "7.3", "7.4"), label=label,
)  # fmt: skip
def hidden_random_collectives_through_dist(lib: Any, program: Any) -> Any:
    return generator.execute(lib, program)


@property_case(
    W, lambda: drawn("buckets", "hidden"), n=30, points=3, hidden=True, tasks="7.5", label=label
)  # fmt: skip
def hidden_random_bucket_assignments(lib: Any, program: Any) -> Any:
    return generator.execute(lib, program)


@property_case(
    W, lambda: drawn("ddp", "hidden"), n=12, points=3, hidden=True,
    tasks=("7.2", "7.3", "7.4", "7.5", "7.6", "7.7"), label=label,
)  # fmt: skip
def hidden_random_models_under_ddp(lib: Any, program: Any) -> Any:
    return generator.execute(lib, program)


@property_case(
    W, lambda: drawn("fsdp", "hidden"), n=12, points=3, hidden=True,
    tasks=("7.2", "7.3", "7.4", "7.8"), label=label,
)  # fmt: skip
def hidden_random_models_under_fully_shard(lib: Any, program: Any) -> Any:
    return generator.execute(lib, program)
