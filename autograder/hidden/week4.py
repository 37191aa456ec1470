"""Week 4 hidden cases: variations on the public ones, run only when grading.

Random programs under other settings (max_split_size, roundup_power2_divisions, a small
device that runs out), on several streams, and the chip variants on random traces; each
keeps the invariants and is compared with the pinned figures.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from autograder import case, property_case
from autograder.weeks.week4.chip import KEYS as TABLE
from autograder.weeks.week4.chip import _table
from autograder.weeks.week4.common import MiB, W, attempt, make, segments, stats, trace
from autograder.weeks.week4.gpu import program_case
from autograder.weeks.week4.stats import _label, _programs, invariants, run_program

T4 = ("4.1", "4.2", "4.3", "4.4")
KEYS = (
    "allocated_bytes.all.current",
    "reserved_bytes.all.current",
    "num_device_alloc",
    "num_alloc_retries",
)


def _run(lib: Any, program: list[Any], settings: str, capacity: int = 80 * 1024 * MiB) -> Any:
    def run() -> Any:
        alloc = make(lib, capacity=capacity, settings=settings)
        try:
            run_program(alloc, program)
        except lib.OutOfMemoryError:  # a small device may run out: the state after it counts
            ended = "OutOfMemoryError"
        else:
            ended = "finished"
        return {
            "ended": ended,
            "invariants": invariants(alloc),
            "segments": segments(alloc),
            "stats": stats(alloc, *KEYS),
        }

    return attempt(run)


@property_case(W, _programs, n=20, points=3, tasks=("4.1", "4.2", "4.4"), hidden=True, label=_label)
def hidden_random_programs_with_max_split_size(lib: Any, example: Any) -> Any:
    """Random programs with ``max_split_size_mb:24``."""
    return _run(lib, example, "max_split_size_mb:24")


@property_case(W, _programs, n=20, points=3, tasks=("4.1", "4.2", "4.4"), hidden=True, label=_label)
def hidden_random_programs_with_divisions(lib: Any, example: Any) -> Any:
    """Random programs with ``roundup_power2_divisions:4``."""
    return _run(lib, example, "roundup_power2_divisions:4")


@property_case(W, _programs, n=20, points=3, tasks=("4.1", "4.2", "4.4"), hidden=True, label=_label)
def hidden_random_programs_on_a_small_device(lib: Any, example: Any) -> Any:
    """Random programs on a 96 MiB device: misses that free the cache, and out-of-memory."""
    return _run(lib, example, "", capacity=96 * MiB)


@case(W, points=2, tasks=("4.1", "4.2", "4.4", "4.5"), hidden=True)
def hidden_variants_on_the_wide_trace_twice(lib: Any) -> Any:
    """The wide MLP's trace replayed twice on one allocator: the second pass hits the cache."""

    def run() -> Any:
        alloc = make(lib)
        first = _table(lib.replay(alloc, trace("wide_mlp_sgd")))
        second = _table(lib.replay(alloc, trace("wide_mlp_sgd")))
        return {"first": first, "second": second, "keys": list(TABLE)}

    return attempt(run)


# A third program recorded on the H100 (see autograder/weeks/week4/gpu.py), its inputs kept
# here so that the student copy does not show it.
PROGRAMS = Path(__file__).resolve().parent / "week4_programs"
program_case("mlp_big_adam_varying_batch", PROGRAMS, hidden=True)
