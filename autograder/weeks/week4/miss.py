"""Task 4.3: the miss path. ``DeviceCachingAllocator::malloc`` in
``c10/cuda/CUDACachingAllocator.cpp``: when no cached block fits, ask the driver; when the
driver is out of memory, free cached blocks (``release_available_cached_blocks``, then
``release_cached_blocks``) and retry; then raise OutOfMemoryError with torch's message."""

from __future__ import annotations

import re
from typing import Any

from autograder.cases import case
from autograder.weeks.week4.common import MiB, W, attempt, make, segments


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
