"""Task 4.3: the miss path. ``DeviceCachingAllocator::malloc`` in
``c10/cuda/CUDACachingAllocator.cpp``: when no cached block fits, ask the driver; when the
driver is out of memory, free cached blocks (``release_available_cached_blocks``, then
``release_cached_blocks``) and retry; then raise OutOfMemoryError with torch's message."""

from __future__ import annotations

import re
from typing import Any

from autograder.cases import case
from autograder.weeks.week4.common import MiB, W, attempt, make, segments, stats


def _held(alloc: Any) -> dict[str, int]:
    """What the allocator holds, counted from its snapshot and its device: reserved bytes,
    segments, and the driver's malloc and free calls so far."""
    snap = alloc.memory_snapshot()
    return {
        "reserved": sum(int(seg["total_size"]) for seg in snap),
        "segments": len(snap),
        "driver mallocs": int(alloc.device.n_malloc),
        "driver frees": int(alloc.device.n_free),
    }


@case(W, points=2, tasks=("4.1", "4.2", "4.3"))
def task_4_3_empty_cache_returns_free_segments(lib: Any) -> Any:
    """``empty_cache`` gives back every segment with no live block, and only those."""

    def run() -> Any:
        alloc = make(lib)
        keep = alloc.malloc(4096)
        gone = [alloc.malloc(n) for n in (3 * MiB, 12 * MiB, 512)]
        for blk in gone:
            alloc.free(blk)
        before = _held(alloc)
        alloc.empty_cache()
        after = _held(alloc)
        return {
            "before": before,
            "after": after,
            "segments": segments(alloc),
            "kept": int(keep.size),
        }

    return attempt(run)


@case(W, points=3, tasks=("4.1", "4.2", "4.3"))
def task_4_3_out_of_memory_frees_the_cache_and_retries(lib: Any) -> Any:
    """A device of 64 MiB holding 40 MiB of free cached segments: a 50 MiB request fails at
    the driver, the allocator frees its cache (driver frees) and retries, and it succeeds."""

    def run() -> Any:
        alloc = make(lib, capacity=64 * MiB)
        cached = [alloc.malloc(12 * MiB), alloc.malloc(12 * MiB)]
        for blk in cached:
            alloc.free(blk)
        got = alloc.malloc(50 * MiB)
        return {
            "size": int(got.size),
            "held": _held(alloc),
        }

    return attempt(run)


@case(W, points=3, tasks=("4.1", "4.2", "4.3"))
def task_4_3_out_of_memory_error(lib: Any) -> Any:
    """When nothing can be freed: OutOfMemoryError (a RuntimeError) naming what was asked,
    the capacity, what is free, allocated and reserved (the figures are compared, formatted as
    ``format_size`` does); nothing the allocator holds changes. What was asked is the SEGMENT:
    a 5 MiB request that misses asks the driver for a 20 MiB one, and the message says so."""

    def run(capacity: int, first: int, second: int, asked: str) -> Any:
        alloc = make(lib, capacity=capacity)
        alloc.malloc(first)
        try:
            alloc.malloc(second)
        except RuntimeError as exc:
            text = str(exc)
            return {
                "raised": type(exc).__name__,
                "says": [
                    p
                    for p in ("out of memory", f"Tried to allocate {asked}", "reserved by PyTorch")
                    if p in text
                ],
                "numbers in the message": sorted(set(re.findall(r"\d+\.\d+ [KMG]iB", text))),
                "held": _held(alloc),
            }
        return {"raised": None}

    return {
        "40 MiB when 34 MiB are free": attempt(
            lambda: run(64 * MiB, 30 * MiB, 40 * MiB, "40.00 MiB")
        ),
        "5 MiB (a 20 MiB segment) when 12 MiB are free": attempt(
            lambda: run(24 * MiB, 12 * MiB, 5 * MiB, "20.00 MiB")
        ),
    }


@case(W, points=2, tasks=("4.1", "4.2", "4.3"))
def task_4_3_memory_fraction(lib: Any) -> Any:
    """``set_memory_fraction(0.5)``: reserved memory may not pass half the device; a request
    that would is an out-of-memory error even though the device has room."""

    def run() -> Any:
        alloc = make(lib, capacity=100 * MiB)
        alloc.set_memory_fraction(0.5)
        first = alloc.malloc(30 * MiB)
        out: dict[str, Any] = {"first": int(first.size)}
        try:
            alloc.malloc(30 * MiB)
            out["second"] = "allocated"
        except RuntimeError as exc:
            out["second"] = type(exc).__name__
        out["held"] = _held(alloc)
        return out

    return attempt(run)


@case(W, points=2, tasks=("4.1", "4.2", "4.3"))
def task_4_3_oversize_blocks_go_first(lib: Any) -> Any:
    """Out of memory with ``max_split_size_mb`` set: the oversize cached blocks are freed
    first (``release_available_cached_blocks``), before the whole cache is."""

    def run() -> Any:
        alloc = make(lib, capacity=120 * MiB, settings="max_split_size_mb:20")
        big, small = alloc.malloc(48 * MiB), alloc.malloc(12 * MiB)
        alloc.free(big)
        alloc.free(small)
        alloc.malloc(64 * MiB)
        return {
            "segments": segments(alloc),
            "held": _held(alloc),
        }

    return attempt(run)


@case(W, points=2, tasks=("4.1", "4.2", "4.3"))
def task_4_3_garbage_collection_threshold(lib: Any) -> Any:
    """``garbage_collection_threshold:0.5`` with a memory fraction set: before asking the
    driver, once reserved memory passes the threshold, unsplit cached blocks are given back
    (``garbage_collect_cached_blocks``), so no out-of-memory retry is needed."""

    def run() -> Any:
        alloc = make(lib, capacity=100 * MiB, settings="garbage_collection_threshold:0.5")
        alloc.set_memory_fraction(0.8)
        cached = [alloc.malloc(22 * MiB) for _ in range(2)]
        for blk in cached:
            alloc.free(blk)
        alloc.malloc(40 * MiB)
        return _held(alloc)

    return attempt(run)


@case(W, points=2, tasks=("4.1", "4.2", "4.3"))
def task_4_3_empty_cache_keeps_split_segments(lib: Any) -> Any:
    """A segment holding one live block and free remainders stays: ``release_cached_blocks``
    frees only blocks that are a whole segment (not split)."""

    def run() -> Any:
        alloc = make(lib)
        live = [alloc.malloc(3 * MiB), alloc.malloc(512)]
        spare = [alloc.malloc(4 * MiB), alloc.malloc(2048)]
        for blk in spare:
            alloc.free(blk)
        alloc.empty_cache()
        return {"segments": segments(alloc), "live": [int(b.size) for b in live]}

    return attempt(run)


@case(W, points=1, tasks="4.3")
def task_4_3_format_size_boundaries(lib: Any) -> Any:
    """``format_size`` around its boundaries: up to and including 1024 a size is in bytes
    ("1024 bytes"), up to and including 1 MiB in KiB, up to and including 1 GiB in MiB, then
    GiB, each with two decimals. Truth: ``format_size`` in ``c10/core/Allocator.h`` (the
    installed 2.13 header): ``if (size <= 1024) { os << size << " bytes"; } else if (size <=
    1048576) ...``, ``std::fixed`` with ``precision(2)``."""
    sizes = [0, 1, 512, 1023, 1024, 1025, 1536, MiB - 1, MiB, MiB + 1]
    sizes += [1024 * MiB, 1024 * MiB + 1, 3 * 1024 * MiB // 2, 80 * 1024 * MiB]
    return {str(n): attempt(lambda n=n: str(lib.format_size(n))) for n in sizes}


MISS_COUNTERS = (
    "num_alloc_retries",
    "num_sync_all_streams",
    "num_device_alloc",
    "num_device_free",
    "num_ooms",
)


@case(W, points=2, tasks=("4.1", "4.2", "4.3", "4.4"))
def task_4_3_a_miss_frees_only_what_it_needs_first(lib: Any) -> Any:
    """A 100 MiB device with ``max_split_size_mb:40`` caching a free 80 MiB oversize segment
    and a free 2 MiB small one; a 50 MiB request may not take the 80 MiB block (it would
    waste 30 MiB) and the driver has no room. The miss path first frees just the cached
    oversize block that covers the request and retries: that succeeds, so the small segment
    stays cached, no stream is synchronised and nothing counts as a retry. Truth:
    ``DeviceCachingAllocator::malloc`` in ``c10/cuda/CUDACachingAllocator.cpp``:
    ``alloc_block(params, false, ...) || (release_available_cached_blocks(params, context) &&
    alloc_block(params, false, ...)) || (... release_cached_blocks(context) &&
    alloc_block(params, true, ...))``; only the last ``alloc_block`` is a retry
    (``if (isRetry) stats.num_alloc_retries += 1``), and only ``release_cached_blocks``
    synchronises (``synchronize_and_free_events``: ``stats.num_sync_all_streams++``)."""

    def run() -> Any:
        alloc = make(lib, capacity=100 * MiB, settings="max_split_size_mb:40")
        big, small = alloc.malloc(80 * MiB), alloc.malloc(1024)
        alloc.free(big)
        alloc.free(small)
        got = alloc.malloc(50 * MiB)
        return {
            "size": int(got.size),
            "segments": segments(alloc),
            "counters": stats(alloc, *MISS_COUNTERS),
        }

    return attempt(run)


def _oom_figures(text: str) -> dict[str, str]:
    """The figures torch's OutOfMemoryError names, each by what it is."""
    size = r"(\d+(?:\.\d+)? (?:bytes|KiB|MiB|GiB))"
    patterns = {
        "tried to allocate": rf"Tried to allocate {size}",
        "total capacity": rf"total capacity of {size}",
        "free": rf"of which {size} is free",
        "allowed": rf"{size} allowed;",
        "allocated by PyTorch": rf"{size} is allocated by PyTorch",
        "reserved but unallocated": rf"{size} is reserved by PyTorch but unallocated",
    }
    found = {k: re.search(p, text) for k, p in patterns.items()}
    return {k: m.group(1) for k, m in found.items() if m}


@case(W, points=2, tasks=("4.1", "4.2", "4.3"))
def task_4_3_out_of_memory_message_figures(lib: Any) -> Any:
    """The figures of the OutOfMemoryError message, each read by its label, when the cache
    holds memory it cannot give back: a 5 MiB block lives in a 20 MiB segment, so 15 MiB are
    reserved but unallocated (the free remainder of a split segment is never released), and a
    16 MiB request fails. With a memory fraction set the message also names what is allowed.
    Truth: the ``TORCH_CHECK_WITH(OutOfMemoryError, false, "CUDA out of memory. Tried to
    allocate ", format_size(alloc_size), ...)`` in ``DeviceCachingAllocator::malloc``
    (``c10/cuda/CUDACachingAllocator.cpp``): ``allowed_info = format_size(
    allowed_memory_maximum) + " allowed; "`` when a fraction is set, then
    ``format_size(allocated_bytes ...)`` " is allocated by PyTorch, " and
    ``format_size(reserved_bytes - allocated_bytes - ...)`` " is reserved by PyTorch but
    unallocated."."""

    def run(capacity: int, fraction: float | None, second: int) -> Any:
        alloc = make(lib, capacity=capacity)
        if fraction is not None:
            alloc.set_memory_fraction(fraction)
        alloc.malloc(5 * MiB)
        try:
            alloc.malloc(second)
        except NotImplementedError:
            raise  # an exercise not written yet
        except RuntimeError as exc:
            return {"raised": type(exc).__name__, "figures": _oom_figures(str(exc))}
        return {"raised": None}

    return {
        "24 MiB device, 16 MiB asked": attempt(lambda: run(24 * MiB, None, 16 * MiB)),
        "100 MiB device, fraction 0.5, 40 MiB asked": attempt(
            lambda: run(100 * MiB, 0.5, 40 * MiB)
        ),
    }


@case(W, points=2, tasks=("4.1", "4.2", "4.3", "4.4"))
def task_4_3_empty_cache_keeps_a_segment_whose_first_block_is_free(lib: Any) -> Any:
    """A free block at the START of a segment whose next block is live is still part of a
    split segment: ``empty_cache`` keeps it (small and large pool alike). Every
    ``empty_cache`` synchronises the device first, even one that frees nothing. Truth:
    ``release_blocks`` in ``c10/cuda/CUDACachingAllocator.cpp`` frees a block only if ``!block->prev
    && !block->next``; ``emptyCache`` calls ``release_cached_blocks``, whose
    ``synchronize_and_free_events`` does ``stats.num_sync_all_streams++``."""

    def run() -> Any:
        alloc = make(lib)
        alloc.empty_cache()
        bare = stats(alloc, "num_sync_all_streams", "num_device_free")
        first_small, _ = alloc.malloc(1024), alloc.malloc(1024)
        first_large, _ = alloc.malloc(3 * MiB), alloc.malloc(4 * MiB)
        alloc.free(first_small)
        alloc.free(first_large)
        alloc.empty_cache()
        return {
            "after a bare empty_cache": bare,
            "segments": segments(alloc),
            "after freeing the first blocks and emptying": stats(
                alloc,
                "num_sync_all_streams",
                "num_device_free",
                "segment.all.current",
                "reserved_bytes.all.current",
                "inactive_split.all.current",
            ),
        }

    return attempt(run)


OVERSIZE = [
    f"{s}.{k}"
    for s in ("oversize_allocations", "oversize_segments")
    for k in ("current", "peak", "allocated", "freed")
]


@case(W, points=2, tasks=("4.1", "4.2", "4.3", "4.4"))
def task_4_3_releasing_an_oversize_segment(lib: Any) -> Any:
    """With ``max_split_size_mb:40``: a 50 MiB segment is an oversize segment while the
    allocator holds it; ``empty_cache`` gives it back to the driver and
    ``oversize_segments`` drops with it. Truth: ``alloc_block`` (``if (size >=
    max_split_size()) increase_stat(stats.oversize_segments, 1)``) and ``release_block``
    (``if (block->size >= max_split_size()) decrease_stat(stats.oversize_segments, 1)``) in
    ``c10/cuda/CUDACachingAllocator.cpp``."""

    def run() -> Any:
        alloc = make(lib, settings="max_split_size_mb:40")
        block = alloc.malloc(50 * MiB)
        steps = {"allocated": stats(alloc, *OVERSIZE)}
        alloc.free(block)
        steps["freed"] = stats(alloc, *OVERSIZE)
        alloc.empty_cache()
        steps["emptied"] = stats(alloc, *OVERSIZE, "num_device_free")
        return steps

    return attempt(run)


def _gc_run(lib: Any, fraction: float | None, steps: list[tuple[str, int, int]]) -> Any:
    alloc = make(lib, capacity=200 * MiB, settings="garbage_collection_threshold:0.5")
    if fraction is not None:
        alloc.set_memory_fraction(fraction)
    live: dict[int, Any] = {}
    for op, n, stream in steps:
        if op == "malloc":
            live[len(live)] = alloc.malloc(n, stream)
        else:
            alloc.free(live[n])
    return {
        "segments": segments(alloc),
        "counters": stats(alloc, "num_device_free", "num_sync_all_streams", "num_alloc_retries"),
    }


@case(W, points=2, tasks=("4.1", "4.2", "4.3", "4.4"))
def task_4_3_garbage_collection_frees_the_old_blocks(lib: Any) -> Any:
    """``garbage_collection_threshold:0.5`` on a 200 MiB device. Before asking the driver for
    a new segment, once reserved memory passes threshold * allowed, the allocator frees
    unsplit cached large blocks whose age (large-pool searches since they were cached) is at
    least the average age, without a device-wide sync. (a) fraction 0.25 (allowed 50 MiB,
    threshold 25 MiB): one free 30 MiB block, age equal to the average, is freed. (b) the same
    without a fraction: no collection at all. (c) fraction 0.5 (threshold 50 MiB): of two
    cached blocks (30 MiB aged 3, 14 MiB aged 1) only the older is freed. Streams keep the
    requests from reusing the cached blocks. Truth: ``DeviceCachingAllocator::malloc``
    (``if (set_fraction && garbage_collection_threshold() > 0.0)
    garbage_collect_cached_blocks(context)``), ``get_free_block`` (the same condition guards
    ``++pool.get_free_blocks_call_count``) and ``garbage_collect_cached_blocks``
    (``gc_threshold = garbage_collection_threshold() * allowed_memory_maximum``;
    ``block->gc_count() >= age_threshold``) in ``c10/cuda/CUDACachingAllocator.cpp``."""
    one = [("malloc", 30 * MiB, 1), ("free", 0, 0), ("malloc", 10 * MiB, 2)]
    two = [
        ("malloc", 30 * MiB, 1),
        ("free", 0, 0),
        ("malloc", 12 * MiB, 0),
        ("malloc", 14 * MiB, 2),
        ("free", 2, 0),
        ("malloc", 20 * MiB, 3),
    ]
    return {
        "(a) fraction 0.25, one cached block": attempt(lambda: _gc_run(lib, 0.25, one)),
        "(b) no fraction": attempt(lambda: _gc_run(lib, None, one)),
        "(c) fraction 0.5, two cached blocks": attempt(lambda: _gc_run(lib, 0.5, two)),
    }


@case(W, points=1, tasks=("4.1", "4.2", "4.3"))
def task_4_3_memory_fraction_range(lib: Any) -> Any:
    """``set_memory_fraction`` accepts any fraction in [0, 1], both ends included: with 0.0
    nothing may be reserved, so the first request is an out-of-memory error; a fraction
    outside [0, 1] is refused. Truth: ``NativeCachingAllocator::setMemoryFraction`` in
    ``c10/cuda/CUDACachingAllocator.cpp``: ``TORCH_INTERNAL_ASSERT(0 <= fraction && fraction
    <= 1, "invalid fraction:", fraction, ". Please set within (0, 1).")``, then
    ``DeviceCachingAllocator::setMemoryFraction``: ``allowed_memory_maximum =
    static_cast<size_t>(fraction * device_total)``."""

    def run(fraction: float) -> Any:
        alloc = make(lib, capacity=100 * MiB)
        try:
            alloc.set_memory_fraction(fraction)
        except NotImplementedError:
            raise  # an exercise not written yet, not a refusal
        except Exception:  # noqa: BLE001 - refusing is what is observed
            return "refused"
        try:
            alloc.malloc(MiB)
        except NotImplementedError:
            raise
        except RuntimeError as exc:
            return {"accepted": True, "malloc(1 MiB)": type(exc).__name__}
        return {"accepted": True, "malloc(1 MiB)": "allocated", "reserved": _held(alloc)}

    return {str(f): attempt(lambda f=f: run(f)) for f in (0.0, 0.01, 1.0, -0.1, 1.5)}


@case(W, points=2, tasks=("4.1", "4.2", "4.3", "4.4", "4.5"))
def task_4_3_the_miss_path_frees_the_smallest_oversize_block(lib: Any) -> Any:
    """Under first fit with ``max_split_size_mb:40`` on a full 100 MiB device, a 6 MiB request
    meets the lowest-address free block first: a 60 MiB oversize one, which it may not take
    (best fit would have picked the 7 MiB remainder). The driver has no room, so the miss path
    frees a cached block: the search for it starts at max_split_size, not at the request, so
    it is the oversize 60 MiB segment that goes, and the 20 MiB segment holding the free split
    remainders stays. Truth: ``release_available_cached_blocks`` in
    ``c10/cuda/CUDACachingAllocator.cpp``: ``key.size = (key.size < max_split_size()) ?
    max_split_size() : key.size; auto it = pool.blocks.lower_bound(&key);`` then
    ``release_block(*it, context)`` (first fit is this course's chip knob; the miss path is
    torch's)."""

    def run() -> Any:
        alloc = lib.CachingAllocator(
            lib.Device(100 * MiB), lib.AllocatorConfig.parse("max_split_size_mb:40"), first_fit=True
        )
        big, x, _, _ = (alloc.malloc(n) for n in (60 * MiB, 8 * MiB, 5 * MiB, 20 * MiB))
        alloc.free(big)
        alloc.free(x)
        got = alloc.malloc(6 * MiB)
        return {
            "size": int(got.size),
            "segments": segments(alloc),
            "counters": stats(alloc, *MISS_COUNTERS),
        }

    return attempt(run)


@case(W, points=1, tasks=("4.1", "4.2", "4.3"))
def task_4_3_a_segment_may_reach_the_memory_fraction_exactly(lib: Any) -> Any:
    """A 100 MiB device with ``set_memory_fraction(0.2)`` may reserve 20 MiB: a 5 MiB request
    takes a 20 MiB segment, reaching the limit exactly, and that is allowed; the next segment
    (2 MiB for a small request) would pass it, so that request is an out-of-memory error.
    Truth: ``alloc_block`` in ``c10/cuda/CUDACachingAllocator.cpp``: ``if (set_fraction &&
    total_allocated_memory + size > allowed_memory_maximum)`` refuses (``>``: reaching the
    limit is allowed), with ``allowed_memory_maximum = static_cast<size_t>(fraction *
    device_total)`` (``setMemoryFraction``). An H200 with torch 2.11, at a fraction allowing
    exactly 20 MiB, does the same."""

    def run() -> Any:
        alloc = make(lib, capacity=100 * MiB)
        alloc.set_memory_fraction(0.2)
        out: dict[str, Any] = {"5 MiB": attempt(lambda: int(alloc.malloc(5 * MiB).size))}
        try:
            alloc.malloc(1000)
            out["then 1000 bytes"] = "allocated"
        except NotImplementedError:
            raise  # an exercise not written yet
        except RuntimeError as exc:
            out["then 1000 bytes"] = type(exc).__name__
        out["held"] = _held(alloc)
        return out

    return attempt(run)


@case(W, points=1, tasks=("4.1", "4.2", "4.3", "4.4"))
def task_4_3_out_of_memory_errors_are_counted(lib: Any) -> Any:
    """``num_ooms`` counts the out-of-memory errors the allocator raises: a 64 MiB device
    refusing 100 MiB twice counts 2; a request of 1 EiB or more is refused before the
    allocator is asked, and does not count. ``reset_peak_memory_stats`` leaves the count,
    ``reset_accumulated_memory_stats`` zeroes it. Truth: ``DeviceCachingAllocator::malloc``
    in ``c10/cuda/CUDACachingAllocator.cpp`` (``stats.num_ooms += 1`` just before the
    ``TORCH_CHECK_WITH(OutOfMemoryError, ...)``), ``NativeCachingAllocator::allocate`` (the
    "more than 1EB" check comes first), and ``resetAccumulatedStats`` (``stats.num_ooms =
    0``). An H200 with torch 2.11 counts the same (its device a memory fraction of 64 MiB)."""
    keys = ("num_ooms", "num_alloc_retries", "num_sync_all_streams")

    def run() -> Any:
        alloc = make(lib, capacity=64 * MiB)
        steps = {}
        for name, n in (("100 MiB", 100 * MiB), ("1 EiB", 2**60), ("100 MiB again", 100 * MiB)):
            try:
                alloc.malloc(n)
                error = None
            except NotImplementedError:
                raise  # an exercise not written yet
            except RuntimeError as exc:
                error = type(exc).__name__
            steps[name] = {"raised": error, "stats": stats(alloc, *keys)}
        alloc.reset_peak_memory_stats()
        steps["after reset_peak_memory_stats"] = stats(alloc, *keys)
        alloc.reset_accumulated_memory_stats()
        steps["after reset_accumulated_memory_stats"] = stats(alloc, *keys)
        return steps

    return attempt(run)


@case(W, points=1, tasks=("4.1", "4.2", "4.3", "4.4"))
def task_4_3_the_oversize_walk_frees_blocks_of_exactly_max_split_size(lib: Any) -> Any:
    """``max_split_size_mb:128`` on a 300 MiB device caching two free 128 MiB blocks: a
    200 MiB request finds no cached block that covers it, so the miss path frees the largest
    oversize blocks until they cover it; a block of exactly 128 MiB is oversize, so both go
    and the request succeeds with no retry and no sync. Truth:
    ``release_available_cached_blocks`` in ``c10/cuda/CUDACachingAllocator.cpp``: ``while
    ((totalReleased < key.size) && ((*it)->size >= max_split_size()) && ((*it)->stream ==
    p.stream()))`` (``>=``). An H200 with torch 2.11 does the same (its device a memory
    fraction of 300 MiB)."""

    def run() -> Any:
        alloc = make(lib, capacity=300 * MiB, settings="max_split_size_mb:128")
        blocks = [alloc.malloc(128 * MiB), alloc.malloc(128 * MiB)]
        for blk in blocks:
            alloc.free(blk)
        got = alloc.malloc(200 * MiB)
        return {
            "size": int(got.size),
            "segments": segments(alloc),
            "counters": stats(alloc, *MISS_COUNTERS),
        }

    return attempt(run)


@case(W, points=2, tasks=("4.1", "4.2", "4.3", "4.4"))
def task_4_3_the_oversize_release_keeps_to_the_request_stream(lib: Any) -> Any:
    """``max_split_size_mb:128`` on a 300 MiB device: the miss path's first release frees only
    cached oversize blocks of the request's own stream. (a) A 130 MiB block cached on each of
    streams 0 and 1, and 200 MiB asked on stream 1: the walk frees stream 1's block, stops at
    stream 0's, and falls short, so the whole cache is freed (a sync) and the request retried.
    (b) A 200 MiB block cached on stream 1 and 150 MiB asked on stream 0: the search lands on
    stream 1's block, which it may not free, so again the full release and a retry. Truth:
    ``release_available_cached_blocks`` in ``c10/cuda/CUDACachingAllocator.cpp``: ``if (it ==
    pool.blocks.end() || (*it)->stream != p.stream())`` frees no single block, and the walk
    back stops at ``(*it)->stream != p.stream()``; blocks are ordered by stream first
    (``BlockComparatorSize``), the default stream (0) before the others. An H200 with torch
    2.11 does the same (stream 0 its default stream, 1 a new one; its device a memory fraction
    of 300 MiB)."""

    def run(cached: list[tuple[int, int]], size: int, stream: int) -> Any:
        alloc = make(lib, capacity=300 * MiB, settings="max_split_size_mb:128")
        blocks = [alloc.malloc(n, s) for n, s in cached]
        for blk in blocks:
            alloc.free(blk)
        got = alloc.malloc(size, stream)
        return {
            "size": int(got.size),
            "segments": segments(alloc),
            "counters": stats(alloc, *MISS_COUNTERS),
        }

    return {
        "(a) 130 MiB on streams 0 and 1, 200 MiB on stream 1": attempt(
            lambda: run([(130 * MiB, 0), (130 * MiB, 1)], 200 * MiB, 1)
        ),
        "(b) 200 MiB on stream 1, 150 MiB on stream 0": attempt(
            lambda: run([(200 * MiB, 1)], 150 * MiB, 0)
        ),
    }


@case(W, points=1, tasks=("4.1", "4.2", "4.3", "4.4"))
def task_4_3_each_pool_keeps_its_own_garbage_collection_clock(lib: Any) -> Any:
    """``garbage_collection_threshold:0.5``, a 200 MiB device at fraction 0.5 (threshold
    50 MiB). Two 30 MiB blocks on streams 1 and 2 are freed with two small requests between
    the frees; then 30 MiB on stream 3 misses with 62 MiB reserved. The small requests search
    the SMALL pool, whose clock is its own, so both large blocks have sat through the same
    number of large-pool searches: equally old, both at the average age, both freed. Truth:
    ``get_free_block`` in ``c10/cuda/CUDACachingAllocator.cpp``
    (``++pool.get_free_blocks_call_count`` on the pool searched), ``Block::gc_count``
    (``pool->get_free_blocks_call_count - gc_count_base``, the block's own pool) and
    ``garbage_collect_cached_blocks``. An H200 with torch 2.11 frees both too."""
    steps = [
        ("malloc", 1000, 0),
        ("malloc", 30 * MiB, 1),
        ("malloc", 30 * MiB, 2),
        ("free", 1, 0),
        ("malloc", 1000, 0),
        ("malloc", 1000, 0),
        ("free", 2, 0),
        ("malloc", 30 * MiB, 3),
    ]
    return attempt(lambda: _gc_run(lib, 0.5, steps))


@case(W, points=1, tasks=("4.1", "4.2", "4.3", "4.4"))
def task_4_3_garbage_collection_repeats_until_enough_is_freed(lib: Any) -> Any:
    """``garbage_collection_threshold:0.5``, a 200 MiB device at fraction 0.5 (threshold
    50 MiB), 80 MiB reserved in two cached blocks: 20 MiB (older) and 60 MiB (younger: reused
    once). A 40 MiB request on another stream misses and must reclaim 30 MiB: the first pass
    frees only the blocks at least as old as the average (the 20 MiB one), which is not
    enough, so the collection goes round again with the average of what is left and frees the
    60 MiB block too. Truth: ``garbage_collect_cached_blocks`` in
    ``c10/cuda/CUDACachingAllocator.cpp``: ``while (gc_reclaimed < target_size && block_freed
    == true && freeable_block_count > 0)``, each pass with ``age_threshold = total_age /
    freeable_block_count``. An H200 with torch 2.11 frees both too."""
    steps = [
        ("malloc", 20 * MiB, 1),
        ("malloc", 60 * MiB, 2),
        ("free", 0, 0),
        ("free", 1, 0),
        ("malloc", 60 * MiB, 2),
        ("free", 2, 0),
        ("malloc", 40 * MiB, 3),
    ]
    return attempt(lambda: _gc_run(lib, 0.5, steps))


@case(W, points=1, tasks=("4.1", "4.2", "4.3", "4.4"))
def task_4_3_a_retry_the_memory_fraction_refuses_still_counts(lib: Any) -> Any:
    """A 1 GiB device at ``set_memory_fraction(0.5)`` (512 MiB allowed) and 600 MiB asked:
    the first try, the cache release (a sync) and the retry are all refused by the fraction,
    never by the driver, and the request is an out-of-memory error. The retry counts in
    ``num_alloc_retries`` all the same: it is counted when it is tried, before the fraction
    check. Truth: ``DeviceCachingAllocator::alloc_block`` in
    ``c10/cuda/CUDACachingAllocator.cpp``: ``if (isRetry) { stats.num_alloc_retries += 1; }``
    comes first, then ``if (set_fraction && total_allocated_memory + size >
    allowed_memory_maximum) { p.err = cudaErrorMemoryAllocation; return false; }``. An H200
    with torch 2.11 counts the same (its memory fraction allowing exactly 512 MiB)."""

    def run() -> Any:
        alloc = make(lib, capacity=1024 * MiB)
        alloc.set_memory_fraction(0.5)
        try:
            alloc.malloc(600 * MiB)
            raised = None
        except NotImplementedError:
            raise  # an exercise not written yet
        except RuntimeError as exc:
            raised = type(exc).__name__
        return {"raised": raised, "counters": stats(alloc, *MISS_COUNTERS), "held": _held(alloc)}

    return attempt(run)


@case(W, points=1, tasks=("4.1", "4.2", "4.3", "4.4"))
def task_4_3_the_oversize_walk_stops_at_a_block_below_max_split_size(lib: Any) -> Any:
    """``max_split_size_mb:100`` on a 1 GiB device: 560 MiB live, and free cached segments of
    150, 98 and 96 MiB; 300 MiB asked. No cached block covers it and the driver has no room,
    so the first release walks down from the largest cached block: it frees the 150 MiB
    oversize block, then stops at the 98 MiB one, which is below max_split_size and so no
    candidate, short of 300 MiB. Only the full release (a sync) frees the other two, and the
    retry succeeds. Truth: ``release_available_cached_blocks`` in
    ``c10/cuda/CUDACachingAllocator.cpp``: ``while ((totalReleased < key.size) &&
    ((*it)->size >= max_split_size()) && ((*it)->stream == p.stream()))``, then ``if
    (totalReleased < key.size) return false;``, so ``malloc`` goes on to
    ``release_cached_blocks`` and ``alloc_block(params, true, ...)``. An H200 with torch 2.11
    does the same (its memory fraction allowing exactly 1 GiB)."""

    def run() -> Any:
        alloc = make(lib, capacity=1024 * MiB, settings="max_split_size_mb:100")
        blocks = [alloc.malloc(n * MiB) for n in (150, 98, 96, 560)]
        for blk in blocks[:3]:
            alloc.free(blk)
        got = alloc.malloc(300 * MiB)
        return {
            "size": int(got.size),
            "segments": segments(alloc),
            "counters": stats(alloc, *MISS_COUNTERS),
        }

    return attempt(run)


@case(W, points=1, tasks=("4.1", "4.2", "4.3", "4.4"))
def task_4_3_garbage_collection_leaves_split_blocks(lib: Any) -> Any:
    """``garbage_collection_threshold:0.3`` on a 1 GiB device at fraction 1.0: live blocks of
    30 MiB and 5 MiB, a free 300 MiB segment, and free blocks of 5 MiB and 10 MiB inside the
    20 MiB segment the 5 MiB blocks share (split: its other block is live). 400 MiB asked:
    reserved memory (350 MiB) is past the threshold, so the collection frees old cached
    blocks, but only the unsplit 300 MiB segment; the free pieces of the split segment stay
    (a part of a segment cannot go back to the driver). Truth:
    ``garbage_collect_cached_blocks`` in ``c10/cuda/CUDACachingAllocator.cpp``: both the age
    count and the freeing loop take only ``if (!block->is_split() ...)`` blocks (then
    ``release_block(block, context)``). An H200 with torch 2.11 does the same (its memory
    fraction allowing exactly 1 GiB)."""

    def run() -> Any:
        alloc = make(lib, capacity=1024 * MiB, settings="garbage_collection_threshold:0.3")
        alloc.set_memory_fraction(1.0)
        big, _, first, _ = (alloc.malloc(n * MiB) for n in (300, 30, 5, 5))
        alloc.free(first)
        alloc.free(big)
        got = alloc.malloc(400 * MiB)
        return {
            "size": int(got.size),
            "segments": segments(alloc),
            "counters": stats(alloc, *MISS_COUNTERS, "reserved_bytes.all.current"),
        }

    return attempt(run)
