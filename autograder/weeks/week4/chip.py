"""Task 4.5: the chip questions, on real traces of torch programs (recorded on torch 2.13 by
``scripts/record_alloc_traces.py``: an MLP and a CNN, forward, backward and an SGD step).

Truth: the figures of the course's solution, pinned; the traces themselves are torch's."""

from __future__ import annotations

from typing import Any

from autograder.cases import case, property_case
from autograder.weeks.week4.common import DEFAULT_CAPACITY, W, attempt, make, segments, trace

TRACES = ("mlp_sgd", "cnn_sgd", "wide_mlp_sgd")
KEYS = [
    "driver_mallocs",
    "driver_frees",
    "cache_hit_rate",
    "peak_reserved",
    "peak_allocated",
    "fragmentation",
]


def _table(result: Any) -> dict[str, Any]:
    return {
        k: (round(float(result[k]), 6) if isinstance(result[k], float) else int(result[k]))
        for k in KEYS
    }


def _variant(lib: Any, name: str) -> Any:
    if name == "32-byte alignment":
        device = lib.Device(DEFAULT_CAPACITY, alignment=32)
        return lib.CachingAllocator(device, lib.AllocatorConfig.parse(""), min_block_size=32)
    if name == "first fit":
        return lib.CachingAllocator(
            lib.Device(DEFAULT_CAPACITY), lib.AllocatorConfig.parse(""), first_fit=True
        )
    if name == "expandable segments":
        return lib.CachingAllocator(
            lib.Device(DEFAULT_CAPACITY), lib.AllocatorConfig.parse("expandable_segments:True")
        )
    return make(lib)


@case(W, points=3, tasks=("4.1", "4.2", "4.4", "4.5"))
def task_4_5_replay_traces(lib: Any) -> Any:
    """The traces of an MLP, a CNN and a wide MLP through the default allocator: driver
    calls, cache hit rate, peak reserved and allocated bytes, fragmentation."""
    return {
        name: attempt(lambda name=name: _table(lib.replay(make(lib), trace(name))))
        for name in TRACES
    }


@case(W, points=3, tasks=("4.1", "4.2", "4.4", "4.5"))
def task_4_5_chip_variants(lib: Any) -> Any:
    """The same traces through the chip variants: 32-byte blocks, first fit, expandable
    segments; the table a chip team would read."""
    out = {}
    for variant in ("32-byte alignment", "first fit", "expandable segments"):
        for name in TRACES:
            out[f"{variant}, {name}"] = attempt(
                lambda v=variant, n=name: _table(lib.replay(_variant(lib, v), trace(n)))
            )
    return out


@case(W, points=2, tasks=("4.1", "4.2", "4.4", "4.5"))
def task_4_5_caching_saves_driver_calls(lib: Any) -> Any:
    """Three training iterations call the driver far less than once per tensor: the cache's
    whole point (cudaMalloc and cudaFree synchronise the device)."""

    def run() -> Any:
        events = trace("wide_mlp_sgd")
        result = lib.replay(make(lib), events)
        mallocs = sum(1 for e in events if e[0] == "malloc")
        return {
            "tensors": mallocs,
            "driver mallocs": int(result["driver_mallocs"]),
            "fewer": int(result["driver_mallocs"]) * 10 < mallocs,
        }

    return attempt(run)


@case(W, points=2, tasks=("4.1", "4.2", "4.5"))
def task_4_5_first_fit_against_best_fit(lib: Any) -> Any:
    """Free blocks of 16 KiB (low address) and 4 KiB (higher): a 3000-byte request takes
    the 4 KiB one under best fit and the 16 KiB one under first fit, leaving a split."""

    def run(first_fit: bool) -> Any:
        alloc = lib.CachingAllocator(
            lib.Device(DEFAULT_CAPACITY), lib.AllocatorConfig.parse(""), first_fit=first_fit
        )
        big, _, small, _ = (alloc.malloc(n) for n in (16384, 512, 4096, 512))
        alloc.free(big)
        alloc.free(small)
        alloc.malloc(3000)
        return segments(alloc)

    return {"best fit": attempt(lambda: run(False)), "first fit": attempt(lambda: run(True))}


def _events() -> Any:
    from hypothesis import strategies as st

    size = st.one_of(
        st.integers(1, 65536), st.integers(65537, 4 * 2**20), st.integers(4 * 2**20, 48 * 2**20)
    )
    step = st.one_of(
        st.tuples(st.just("malloc"), size), st.tuples(st.just("free"), st.integers(0, 99))
    )
    return st.lists(step, min_size=4, max_size=60)


def _as_trace(steps: list[Any]) -> list[list[Any]]:
    """Random steps as a trace: frees pick a live id by index (mod the live count)."""
    events, live, next_id = [], [], 0
    for op, n in steps:
        if op == "malloc":
            events.append(["malloc", next_id, n])
            live.append(next_id)
            next_id += 1
        elif live:
            events.append(["free", live.pop(n % len(live))])
    return events


@property_case(
    W,
    _events,
    n=20,
    points=3,
    tasks=("4.1", "4.2", "4.4", "4.5"),
    label=lambda ex: f"{len(ex)} steps: " + " ".join(f"{o[0]}{o[1]}" for o in ex[:12]),
)
def random_traces_replayed(lib: Any, example: Any) -> Any:
    """Random traces replayed: the table, and that peak reserved covers peak allocated and
    fragmentation lies between 0 and 1."""

    def run() -> Any:
        table = _table(lib.replay(make(lib), _as_trace(example)))
        return {
            "table": table,
            "reserved covers allocated": table["peak_reserved"] >= table["peak_allocated"],
            "fragmentation in [0, 1]": 0.0 <= table["fragmentation"] <= 1.0,
        }

    return attempt(run)
