"""Task 4.4: statistics and snapshots, named and shaped as ``torch.cuda.memory_stats()`` and
``torch.cuda.memory_snapshot()`` give them (``DeviceStats`` and ``snapshot`` in
``c10/cuda/CUDACachingAllocator.cpp``; ``torch/cuda/memory.py``)."""

from __future__ import annotations

from typing import Any

from autograder.cases import case, property_case
from autograder.weeks.week4.common import MiB, W, attempt, make, segments, stats

KINDS = ["current", "peak", "allocated", "freed"]
STATS = [
    "allocated_bytes",
    "reserved_bytes",
    "active_bytes",
    "inactive_split_bytes",
    "requested_bytes",
]
COUNTS = ["allocation", "segment", "active", "inactive_split"]


def _all(alloc: Any, pool: str = "all") -> dict[str, int]:
    return stats(alloc, *[f"{s}.{pool}.{k}" for s in STATS + COUNTS for k in KINDS])


@case(W, points=1, tasks=("4.1", "4.4"))
def task_4_4_stat_names(lib: Any) -> Any:
    """``memory_stats()`` has torch's keys: every STAT.POOL.KIND and the counters."""

    def run() -> Any:
        return sorted(make(lib).memory_stats().keys())

    return attempt(run)


@case(W, points=3, tasks=("4.1", "4.2", "4.4"))
def task_4_4_stats_after_a_sequence(lib: Any) -> Any:
    """Every byte and count statistic for the whole device, the small pool and the large pool
    after a sequence that allocates, splits, frees and merges."""

    def run() -> Any:
        alloc = make(lib)
        a, b, c = alloc.malloc(1000), alloc.malloc(3 * MiB + 100), alloc.malloc(300_000)
        alloc.free(a)
        d = alloc.malloc(25 * MiB)
        alloc.free(b)
        alloc.free(d)
        alloc.malloc(2 * MiB)
        return {pool: _all(alloc, pool) for pool in ("all", "small_pool", "large_pool")} | {
            "c": int(c.size)
        }

    return attempt(run)


@case(W, points=2, tasks=("4.1", "4.2", "4.4"))
def task_4_4_inactive_split(lib: Any) -> Any:
    """A free block still inside a segment with a live block is an inactive split: counted in
    ``inactive_split_bytes`` and ``inactive_split`` until it merges or the segment empties."""

    def run() -> Any:
        alloc = make(lib)
        a = alloc.malloc(4096)
        b = alloc.malloc(4096)
        steps = [stats(alloc, "inactive_split_bytes.all.current", "inactive_split.all.current")]
        alloc.free(a)
        steps.append(stats(alloc, "inactive_split_bytes.all.current", "inactive_split.all.current"))
        alloc.free(b)
        steps.append(stats(alloc, "inactive_split_bytes.all.current", "inactive_split.all.current"))
        return steps

    return attempt(run)


@case(W, points=2, tasks=("4.1", "4.2", "4.4"))
def task_4_4_peaks_and_resets(lib: Any) -> Any:
    """``reset_peak_memory_stats`` sets every peak to the current value;
    ``reset_accumulated_memory_stats`` zeroes the allocated/freed totals and the counters."""

    def run() -> Any:
        alloc = make(lib)
        blocks = [alloc.malloc(n) for n in (5 * MiB, 2048, 30 * MiB)]
        alloc.free(blocks[2])
        before = _all(alloc)
        alloc.reset_peak_memory_stats()
        peaks = _all(alloc)
        counters = ("num_alloc_retries", "num_ooms", "num_sync_all_streams")
        counters += ("num_device_alloc", "num_device_free")
        counted = stats(alloc, *counters)
        alloc.reset_accumulated_memory_stats()
        return {
            "before": before,
            "after peak reset": peaks,
            "after accumulated reset": _all(alloc),
            "counters before": counted,
            "counters after accumulated reset": stats(alloc, *counters),
        }

    return attempt(run)


@case(W, points=2, tasks=("4.1", "4.2", "4.4"))
def task_4_4_max_split_size_is_read_once(lib: Any) -> Any:
    """``max_split_size`` in ``memory_stats()`` is the setting the allocator was made with
    (``DeviceCachingAllocator``'s constructor fills it, -1 when unset); a later
    ``_set_allocator_settings`` changes the policy (which blocks count as oversize) but not
    the stat. Truth: the constructor in ``c10/cuda/CUDACachingAllocator.cpp``, and an H100,
    which still says -1 after the settings change of ``test_allocator_settings``."""

    def run() -> Any:
        keys = ("max_split_size", "oversize_allocations.current")
        out = {}
        for made_with in ("", "max_split_size_mb:24"):
            alloc = make(lib, settings=made_with)
            block = alloc.malloc(30 * MiB)
            seen = {"made": stats(alloc, *keys)}
            alloc.free(block)
            alloc.config = lib.AllocatorConfig.parse("max_split_size_mb:40")  # as settings do
            block = alloc.malloc(30 * MiB)
            seen["after max_split_size_mb:40"] = stats(alloc, *keys)
            out[f"made with {made_with or 'no settings'!r}"] = seen
        return out

    return attempt(run)


@case(W, points=2, tasks=("4.1", "4.2", "4.4"))
def task_4_4_requested_bytes(lib: Any) -> Any:
    """``requested_bytes`` counts what was asked, ``allocated_bytes`` what was handed out
    after rounding: 1000 bytes asked, 1024 allocated."""

    def run() -> Any:
        alloc = make(lib)
        alloc.malloc(1000)
        alloc.malloc(MiB + 1)
        return stats(
            alloc,
            "requested_bytes.all.current",
            "allocated_bytes.all.current",
            "requested_bytes.large_pool.current",
        )

    return attempt(run)


@case(W, points=2, tasks=("4.1", "4.2"))
def task_4_2_snapshot_format(lib: Any) -> Any:
    """``memory_snapshot()`` as torch gives it: the keys of a segment and of a block, the
    states ``active_allocated`` and ``inactive``, and the segment's sizes."""

    def run() -> Any:
        alloc = make(lib)
        alloc.malloc(1000)
        freed = alloc.malloc(5000)
        alloc.free(freed)
        seg = alloc.memory_snapshot()[0]
        return {
            "segment keys": sorted(seg.keys()),
            "block keys": sorted(seg["blocks"][0].keys()),
            "sizes": [
                int(seg[k])
                for k in ("total_size", "allocated_size", "active_size", "requested_size")
            ],
            "type": seg["segment_type"],
            "states": [b["state"] for b in seg["blocks"]],
        }

    return attempt(run)


def _programs() -> Any:
    from hypothesis import strategies as st

    size = st.one_of(
        st.integers(1, 4096), st.integers(4097, 2 * MiB), st.integers(2 * MiB, 40 * MiB)
    )
    op = st.one_of(
        st.tuples(st.just("malloc"), size, st.integers(0, 1)),
        st.tuples(st.just("free"), st.integers(0, 99), st.just(0)),
    )
    return st.lists(op, min_size=5, max_size=40)


def _label(ex: Any) -> str:
    return " ".join(
        f"m{n}" + (f"@s{s}" if s else "") if o == "malloc" else f"f{n}" for o, n, s in ex
    )


def run_program(alloc: Any, program: list[Any]) -> list[Any]:
    """A random program: frees pick a live block by index (mod the live count)."""
    live: list[Any] = []
    for op, n, stream in program:
        if op == "malloc":
            live.append(alloc.malloc(n, stream))
        elif live:
            alloc.free(live.pop(n % len(live)))
    return live


def invariants(alloc: Any) -> dict[str, bool]:
    """What any correct allocator keeps, whatever its policy."""
    snap = alloc.memory_snapshot()
    s = alloc.memory_stats()
    tiles, spans = True, []
    for seg in snap:
        at = int(seg["address"])
        for b in seg["blocks"]:
            tiles &= int(b["address"]) == at
            at += int(b["size"])
        tiles &= at == int(seg["address"]) + int(seg["total_size"])
        spans.append((int(seg["address"]), int(seg["address"]) + int(seg["total_size"])))
    spans.sort()
    apart = all(a[1] <= b[0] for a, b in zip(spans, spans[1:], strict=False))
    live = [b for seg in snap for b in seg["blocks"] if b["state"] == "active_allocated"]
    return {
        "blocks tile each segment": bool(tiles),
        "segments do not overlap": apart,
        "allocated bytes = live blocks": s["allocated_bytes.all.current"]
        == sum(int(b["size"]) for b in live),
        "reserved bytes = segments": s["reserved_bytes.all.current"]
        == sum(int(g["total_size"]) for g in snap),
        "allocation count = live blocks": s["allocation.all.current"] == len(live),
        "segment count = segments": s["segment.all.current"] == len(snap),
        "no two free neighbours": all(
            not (x["state"] == "inactive" and y["state"] == "inactive")
            for seg in snap
            for x, y in zip(seg["blocks"], seg["blocks"][1:], strict=False)
        ),
    }


@property_case(W, _programs, n=25, points=3, tasks=("4.1", "4.2", "4.4"), label=_label)
def random_programs_keep_the_invariants(lib: Any, example: Any) -> Any:
    """Random malloc/free programs on two streams: blocks tile each segment exactly, no
    segments overlap, free neighbours are merged, and the statistics equal a recount from
    the snapshot; then the statistics themselves and the segment map."""

    def run() -> Any:
        alloc = make(lib)
        run_program(alloc, example)
        return {
            "invariants": invariants(alloc),
            "segments": segments(alloc),
            "stats": stats(
                alloc,
                "allocated_bytes.all.current",
                "reserved_bytes.all.current",
                "num_device_alloc",
            ),
        }

    return attempt(run)


@case(W, points=2, tasks=("4.1", "4.2", "4.4"))
def task_4_4_resets_cover_the_oversize_stats(lib: Any) -> Any:
    """``oversize_allocations`` and ``oversize_segments`` are reset like every other stat:
    ``reset_peak_memory_stats`` sets their peaks to the current values,
    ``reset_accumulated_memory_stats`` zeroes their allocated/freed totals. With
    ``max_split_size_mb:40``, after a 50 MiB block is freed (its segment stays cached), the
    oversize_allocations peak drops from 1 to 0 and the oversize_segments peak stays 1.
    Truth: ``resetPeakStats`` (``reset_peak_stat(stats.oversize_allocations);
    reset_peak_stat(stats.oversize_segments);``) and ``resetAccumulatedStats``
    (``reset_accumulated_stat`` of both) in ``c10/cuda/CUDACachingAllocator.cpp``."""
    keys = [
        f"{s}.{k}"
        for s in ("oversize_allocations", "oversize_segments")
        for k in ("current", "peak", "allocated", "freed")
    ]

    def run() -> Any:
        alloc = make(lib, settings="max_split_size_mb:40")
        alloc.free(alloc.malloc(50 * MiB))
        steps = {"before": stats(alloc, *keys)}
        alloc.reset_peak_memory_stats()
        steps["after reset_peak_memory_stats"] = stats(alloc, *keys)
        alloc.reset_accumulated_memory_stats()
        steps["after reset_accumulated_memory_stats"] = stats(alloc, *keys)
        return steps

    return attempt(run)


@case(W, points=1, tasks=("4.1", "4.2", "4.4"))
def task_4_4_an_oversize_allocation_is_judged_by_its_block(lib: Any) -> Any:
    """With ``max_split_size_mb:128`` a 127 MiB request is below max_split_size, but it is
    served by a new 128 MiB segment (127 MiB rounded up to 2 MiB) that is not split (only
    1 MiB would be left): the block handed out is 128 MiB, so it counts as an oversize
    allocation, and its free takes the count back to 0. Truth: ``alloc_found_block``
    (``if (block->size >= max_split_size()) increase_stat(stats.oversize_allocations, 1)``)
    and ``free`` (``if (block->size >= max_split_size()) decrease_stat(...)``) in
    ``c10/cuda/CUDACachingAllocator.cpp``: the block's size, not the request's (an H200 with
    torch 2.11 counts the same)."""
    keys = [f"oversize_allocations.{k}" for k in ("current", "peak", "allocated", "freed")]
    keys += ["oversize_segments.current"]

    def run() -> Any:
        alloc = make(lib, settings="max_split_size_mb:128")
        block = alloc.malloc(127 * MiB)
        steps = {"size": int(block.size), "allocated": stats(alloc, *keys)}
        alloc.free(block)
        steps["freed"] = stats(alloc, *keys)
        return steps

    return attempt(run)


@case(W, points=1, tasks=("4.1", "4.2", "4.4"))
def task_4_4_memory_stats_keys_come_sorted(lib: Any) -> Any:
    """``memory_stats()`` gives its keys in sorted order (``active.all.allocated`` first), so
    that printing it or walking it lists the statistics alphabetically, as torch's does.
    Truth: ``torch.cuda.memory_stats`` in ``torch/cuda/memory.py`` flattens
    ``memory_stats_as_nested_dict()`` into ``(key, value)`` pairs, then ``result.sort()`` and
    ``return collections.OrderedDict(result)`` (the C++ ``DeviceStats`` come from
    ``c10/cuda/CUDACachingAllocator.cpp``'s ``getStats``). On an H200 torch 2.11's keys come
    sorted too."""

    def run() -> Any:
        alloc = make(lib)
        alloc.free(alloc.malloc(3 * MiB))
        keys = list(alloc.memory_stats().keys())
        return {"in sorted order": keys == sorted(keys), "keys": keys}

    return attempt(run)
