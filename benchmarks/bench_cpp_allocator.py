"""Week 4's allocator in Python and in C++ on the same 100,000-event trace.

Target (issue: the C++ track): the C++ allocator replays the trace at least 50x faster than
the Python reference, and at least 5 million events per second. Both replays must give the
same figures (driver calls, hit rate, peaks, fragmentation), or the speed means nothing.
Prints medians of ``--runs`` replays of each, their ratio, and the C++ build's first and
cached times. The C++ replay is timed on the trace encoded once (``encode``, timed apart):
that is the allocator's own speed, without turning Python lists into C++ vectors.

    python benchmarks/bench_cpp_allocator.py [--events 100000] [--runs 5]
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_allocator import random_trace, reference  # noqa: E402

from autograder import native  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]


def cpp_engine() -> tuple[Any, float, float]:
    """The C++ allocator's Python module, the build's time, and a cached rebuild's time."""
    source = {"cpp_allocator.cpp": ROOT / "reference_impl" / "cpp_allocator.cpp"}
    limits = native.BuildLimits(isolation="none")
    first = native.build("torchlab_cpp_allocator", source, limits)
    if first.library is None:
        raise SystemExit(f"the C++ allocator does not build: {first.error}")
    again = native.build("torchlab_cpp_allocator", source, limits)
    os.environ["TORCHLAB_NATIVE_LIBRARY"] = str(first.library)
    spec = importlib.util.spec_from_file_location(
        "bench_cpp_allocator_ref", ROOT / "reference_impl" / "cpp_allocator.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module, first.seconds, again.seconds


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--events", type=int, default=100_000)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    py, (cpp, built, cached) = reference(), cpp_engine()
    events = random_trace(args.events)
    start = time.perf_counter()
    trace = cpp.encode(events)
    encoding = time.perf_counter() - start

    py_times, cpp_times, py_result, cpp_result = [], [], {}, {}
    for _ in range(args.runs):
        alloc = py.CachingAllocator(py.Device(80 << 30), py.AllocatorConfig.parse(""))
        start = time.perf_counter()
        py_result = py.replay(alloc, events)
        py_times.append(time.perf_counter() - start)
        alloc = cpp.CachingAllocator(cpp.Device(80 << 30), py.AllocatorConfig.parse(""))
        start = time.perf_counter()
        cpp_result = cpp.replay(alloc, trace)
        cpp_times.append(time.perf_counter() - start)
    if py_result != cpp_result:
        raise SystemExit(f"the replays disagree:\n  Python {py_result}\n  C++    {cpp_result}")
    py_median, cpp_median = statistics.median(py_times), statistics.median(cpp_times)
    n = len(events)
    print(f"build of cpp_allocator.cpp: {built:.1f} s (cached: {cached * 1000:.1f} ms)")
    print(f"{n} events, median of {args.runs} replays each; both give the same figures:")
    print(f"  Python reference: {py_median:.3f} s, {n / py_median:,.0f} events/s")
    print(f"  C++:              {cpp_median * 1000:.2f} ms, {n / cpp_median:,.0f} events/s")
    print(f"  encoding the trace for C++ once: {encoding * 1000:.1f} ms")
    print(f"C++ is {py_median / cpp_median:.0f}x faster (targets: 50x, 5,000,000 events/s)")


if __name__ == "__main__":
    main()
