"""Task 4.5: the chip questions, on real traces of torch programs (recorded on torch 2.13 by
``scripts/record_alloc_traces.py``: an MLP and a CNN, forward, backward and an SGD step).

Truth: the figures of the course's solution, pinned; the traces themselves are torch's."""

from __future__ import annotations

from typing import Any

from autograder.cases import case, property_case
from autograder.weeks.week4.common import (
    DEFAULT_CAPACITY,
    MiB,
    W,
    attempt,
    make,
    segments,
    stats,
    trace,
)

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


EXPANDABLE_STATS = (
    "reserved_bytes.all.current",
    "allocated_bytes.all.current",
    "segment.all.current",
    "num_device_alloc",
    "num_device_free",
)


@case(W, points=3, tasks=("4.1", "4.2", "4.3", "4.4", "4.5"))
def task_4_5_expandable_segments_map_and_unmap_pages(lib: Any) -> Any:
    """With ``expandable_segments:True`` memory is mapped into one growing segment in whole
    pages (20 MiB in the large pool, 2 MiB in the small one): just enough pages for the
    request (20 MiB: one page; 30 MiB: two), counted as ONE driver call per growth and no new
    segment. A growth continues a free block at the end of the segment (25 MiB after a 30 MiB
    block with 10 MiB free behind it maps one more page, not two). A block is split whenever
    at least 512 bytes would be left, as in the small pool. ``empty_cache`` unmaps only whole
    free pages: none while a live block reaches into the last page, the whole segment when
    everything is free (one unmap: one driver free). Truth: ``c10/cuda/CUDACachingAllocator.cpp``:
    ``should_split`` (``if (block->pool->is_small || expandable_segments()) return remaining
    >= kMinBlockSize;``), ``find_expandable_block`` ("there might be a free segment we can also
    use right before it"), ``try_allocate_expandable_block`` / ``map_block`` (maps
    ``SegmentRange{to_map->ptr, size}``, ``increase_stat(stats.reserved_bytes...)``,
    ``stats.num_device_alloc++`` once per map, no segment stat), ``ExpandableSegment::map``
    (pages ``segmentLeft(ptr)`` to ``segmentRight(ptr + size)``) and ``unmap`` (whole pages
    only: ``segmentRight(ptr)`` to ``segmentLeft(ptr + size)``), ``unmap_block``
    (``stats.num_device_free++``) and ``release_blocks``. The course's expandable segment is a
    simplification (one per pool and stream, grown at its end); these scenarios stay inside
    what it shares with torch."""

    def run(sizes: list[int], free: tuple[int, ...] = (), empty: bool = False) -> Any:
        alloc = make(lib, settings="expandable_segments:True")
        blocks = [alloc.malloc(n) for n in sizes]
        handed_out = [int(b.size) for b in blocks]
        for i in free:
            alloc.free(blocks[i])
        if empty:
            alloc.empty_cache()
        return {"block sizes": handed_out, "stats": stats(alloc, *EXPANDABLE_STATS)}

    return {
        "1000 bytes (small pool)": attempt(lambda: run([1000])),
        "20 MiB": attempt(lambda: run([20 * MiB])),
        "30 MiB": attempt(lambda: run([30 * MiB])),
        "40 MiB - 512": attempt(lambda: run([40 * MiB - 512])),
        "30 MiB then 25 MiB": attempt(lambda: run([30 * MiB, 25 * MiB])),
        "30 MiB, empty_cache": attempt(lambda: run([30 * MiB], empty=True)),
        "30 MiB freed, empty_cache": attempt(lambda: run([30 * MiB], free=(0,), empty=True)),
        "30 + 25 MiB, 25 freed, empty_cache": attempt(
            lambda: run([30 * MiB, 25 * MiB], free=(1,), empty=True)
        ),
    }


@case(W, points=2, tasks=("4.1", "4.2", "4.4", "4.5"))
def task_4_5_replay_rules(lib: Any) -> Any:
    """Three rules of ``replay`` (its docstring): the peaks are reset first, so an allocator
    that once held a 100 MiB block reports the replay's own allocated peak; a zero-byte malloc
    is skipped (torch's ``NativeCachingAllocator::allocate`` calls ``malloc`` only ``if (size
    != 0)``, c10/cuda/CUDACachingAllocator.cpp), so it is no driver call and no miss; an
    event's optional fourth field is its stream, and blocks never cross streams
    (``get_free_block``: ``(*it)->stream != p.stream()`` is a miss)."""

    def used_before() -> Any:
        alloc = make(lib)
        alloc.free(alloc.malloc(100 * MiB))
        return _table(lib.replay(alloc, [["malloc", 1, 1024], ["free", 1]]))

    zero = [["malloc", 1, 0], ["free", 1], ["malloc", 2, 4096], ["free", 2], ["malloc", 3, 0]]
    streams = [
        ["malloc", 1, 1024, 0],
        ["free", 1],
        ["malloc", 2, 1024, 1],
        ["free", 2],
        ["malloc", 3, 1024, 0],
        ["malloc", 4, 1024, 1],
    ]
    return {
        "after a 100 MiB block was freed": attempt(used_before),
        "zero-byte mallocs": attempt(lambda: _table(lib.replay(make(lib), zero))),
        "two streams": attempt(lambda: _table(lib.replay(make(lib), streams))),
    }


SPLIT_STATS = tuple(
    f"{name}.{pool}.current"
    for name in ("inactive_split", "inactive_split_bytes")
    for pool in ("all", "large_pool")
)


@case(W, points=1, tasks=("4.1", "4.2", "4.4", "4.5"))
def task_4_5_expandable_segments_count_no_inactive_split(lib: Any) -> Any:
    """With ``expandable_segments:True`` a 5 MiB request maps one 20 MiB page and is split
    from it, leaving 15 MiB free behind it; a second 5 MiB request splits that free block
    again, and the first is then freed. None of it counts in ``inactive_split`` or
    ``inactive_split_bytes``: torch leaves the blocks of expandable segments out of those
    statistics (their free pages can be unmapped, so they are not memory a split holds
    hostage). Truth: ``alloc_found_block`` in ``c10/cuda/CUDACachingAllocator.cpp``: ``if
    (already_split && !block->expandable_segment_)`` shrinks the stat and ``else if
    (!block->expandable_segment_)`` starts a new inactive split; ``free_block`` updates them
    only ``if (!block->expandable_segment_)``. An H200 with torch 2.11 counts none either."""

    def run() -> Any:
        alloc = make(lib, settings="expandable_segments:True")
        first = alloc.malloc(5 * MiB)
        steps = {"5 MiB": stats(alloc, *SPLIT_STATS)}
        alloc.malloc(5 * MiB)
        steps["another 5 MiB"] = stats(alloc, *SPLIT_STATS)
        alloc.free(first)
        steps["the first freed"] = stats(alloc, *SPLIT_STATS)
        return steps | {"segments": segments(alloc)}

    return attempt(run)


@case(W, points=1, tasks=("4.1", "4.2", "4.3", "4.4", "4.5"))
def task_4_5_a_fully_unmapped_expandable_segment_is_released(lib: Any) -> Any:
    """With ``expandable_segments:True``: a 5 MiB block freed, then ``empty_cache`` unmaps the
    segment's only page, so the segment holds nothing and is released, its address range
    given back (cuMemAddressFree). The next 5 MiB request makes a NEW expandable segment,
    reserving address space again: two reservations in all (counted at the simulated
    driver's ``reserve_address_space``, cuMemAddressReserve). Truth: ``release_blocks`` in
    ``c10/cuda/CUDACachingAllocator.cpp``: ``unmap_block(block, context); if (!block->prev &&
    !block->next) { release_expandable_segment(block); }``, which erases the segment from
    ``expandable_segments_`` and deletes it (``~ExpandableSegment`` calls
    ``cuMemAddressFree_``); ``try_allocate_expandable_block`` then finds no segment for the
    stream and constructs one (``cuMemAddressReserve_``). On an H200 with torch 2.11 the
    segments and statistics are these; its driver happened to hand the new reservation the old
    address, so the reservations are counted, not the address compared."""

    def run() -> Any:
        device = lib.Device(DEFAULT_CAPACITY)
        reserved: list[int] = []
        reserve = device.reserve_address_space

        def counted(nbytes: int) -> int:
            reserved.append(nbytes)
            return reserve(nbytes)

        device.reserve_address_space = counted
        alloc = lib.CachingAllocator(device, lib.AllocatorConfig.parse("expandable_segments:True"))
        alloc.free(alloc.malloc(5 * MiB))
        alloc.empty_cache()
        steps = {"emptied": {"reservations": len(reserved), "segments": segments(alloc)}}
        block = alloc.malloc(5 * MiB)
        steps["5 MiB again"] = {
            "reservations": len(reserved),
            "size": int(block.size),
            "segments": segments(alloc),
            "stats": stats(alloc, *EXPANDABLE_STATS),
        }
        return steps

    return attempt(run)
