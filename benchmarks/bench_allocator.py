"""Week 4's reference allocator on a 100,000-event trace: speed, and the driver calls it saves.

Target (issue: week 4): the reference replays 100,000 events in under 2 s. Prints the median
of ``--runs`` replays (events per second), and the same trace through a naive allocator that
calls the driver for every malloc and free, for the ratio of driver calls saved.

    python benchmarks/bench_allocator.py [--events 100000] [--runs 5]
"""

from __future__ import annotations

import argparse
import importlib.util
import random
import statistics
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]


def reference() -> Any:
    spec = importlib.util.spec_from_file_location(
        "bench_allocator_ref", ROOT / "reference_impl" / "allocator.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def random_trace(n: int, seed: int = 0) -> list[list[Any]]:
    """Mostly small tensors, some medium and a few large, each freed after a random while:
    the shape of a training step's allocations."""
    rng = random.Random(seed)
    events: list[list[Any]] = []
    live: list[int] = []
    next_id = 0
    while len(events) < n:
        if live and (len(live) > 400 or rng.random() < 0.5):
            events.append(["free", live.pop(rng.randrange(len(live)))])
            continue
        r = rng.random()
        size = (
            rng.randint(1, 65536)
            if r < 0.7
            else rng.randint(65537, 8 << 20)
            if r < 0.95
            else rng.randint(8 << 20, 64 << 20)
        )
        events.append(["malloc", next_id, size])
        live.append(next_id)
        next_id += 1
    return events


def naive_driver_calls(events: list[list[Any]]) -> int:
    """An allocator without a cache: one cudaMalloc per malloc, one cudaFree per free."""
    return len(events)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--events", type=int, default=100_000)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    ref = reference()
    events = random_trace(args.events)
    times, result = [], {}
    for _ in range(args.runs):
        alloc = ref.CachingAllocator(ref.Device(80 << 30), ref.AllocatorConfig.parse(""))
        start = time.perf_counter()
        result = ref.replay(alloc, events)
        times.append(time.perf_counter() - start)
    median = statistics.median(times)
    cached_calls = int(result["driver_mallocs"]) + int(result["driver_frees"])
    naive = naive_driver_calls(events)
    rate = len(events) / median
    print(f"{len(events)} events, median of {args.runs} replays: {median:.3f} s")
    print(f"  {rate:,.0f} events/s (target: 100,000 events in under 2 s)")
    saved = naive / max(cached_calls, 1)
    print(f"driver calls: caching {cached_calls}, naive {naive} ({saved:,.0f}x fewer)")
    hit, peak = result["cache_hit_rate"], result["peak_reserved"]
    print(f"cache hit rate {hit:.4f}, peak reserved {peak:,} B")
    print(f"fragmentation {result['fragmentation']:.3f}")


if __name__ == "__main__":
    main()
