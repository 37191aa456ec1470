"""Property cases for Tasks 7.3-7.8: random programs from week 7's generator
(``autograder/differential/week7.py``), drawn once from a fixed seed, the same programs for
gloo and for the learner's library. A failure is labelled with the program."""

from __future__ import annotations

import random
from typing import Any

from autograder.cases import property_case
from autograder.differential import week7 as generator
from autograder.weeks.week7.common import W


def drawn(kind: str, prefix: str = "public") -> Any:
    """A hypothesis strategy of the generator's programs of one kind."""
    from hypothesis import strategies as st

    make = generator.KINDS[kind]
    return st.integers(0, 10**9).map(lambda i: make(random.Random(f"{prefix}:{i}")))


def label(program: Any) -> str:
    return "\n" + generator.describe(program)


@property_case(W, lambda: drawn("collective"), n=12, points=3, tasks=("7.2", "7.3"), label=label)
def random_collectives(lib: Any, program: Any) -> Any:
    """Random collectives (kind, world of 2 to 4, dtype, shape, op, root) called on your
    library: every rank's result."""
    return generator.execute(lib, program)


@property_case(
    W, lambda: drawn("process_group"), n=10, points=3, tasks=("7.2", "7.3", "7.4"), label=label
)
def random_collectives_through_dist(lib: Any, program: Any) -> Any:
    """The same through ``dist.*`` on your backend, sometimes with ``async_op=True``."""
    return generator.execute(lib, program)


@property_case(W, lambda: drawn("buckets"), n=20, points=3, tasks="7.5", label=label)
def random_bucket_assignments(lib: Any, program: Any) -> Any:
    """Random parameter lists (sizes, dtypes), limits, sparse flags and ready orders."""
    return generator.execute(lib, program)


@property_case(
    W,
    lambda: drawn("ddp"),
    n=8,
    points=3,
    tasks=("7.2", "7.3", "7.4", "7.5", "7.6", "7.7"),
    label=label,
)
def random_models_under_ddp(lib: Any, program: Any) -> Any:
    """Random MLPs (widths, layers defined in use order or the opposite), bucket caps,
    ``find_unused_parameters``, worlds of 2 to 4, trained under your ``MiniDDP`` (with no
    hook, a hook that watches, or yours): the order of events in backward, the losses and
    the weights."""
    return generator.execute(lib, program)


@property_case(
    W, lambda: drawn("fsdp"), n=8, points=3, tasks=("7.2", "7.3", "7.4", "7.8"), label=label
)
def random_models_under_fully_shard(lib: Any, program: Any) -> Any:
    """Random MLPs (some layers with fewer rows than ranks), random choices of the Linears
    sharded and whether the whole model is, worlds of 2 to 4, trained under your
    ``fully_shard``: the collectives of each kind in order, losses, shards and gradients."""
    return generator.execute(lib, program)
