"""How long `torchlab check WEEK --impl reference` takes next to a bare `import torch`.

Target (issue: foundation): the check takes at most 2x the bare torch import on the same
machine. Both commands run alternately, after one warm-up of each (which also fills the
oracle cache, as a learner's first check does); medians are printed.

    python benchmarks/bench_check.py [--runs 7] [--week week1]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time


def commands(week: str) -> dict[str, list[str]]:
    """The two commands timed side by side: a bare torch import, and the week's check."""
    check = [sys.executable, "-m", "autograder.cli", "check", week, "--impl", "reference"]
    return {
        "python -c 'import torch'": [sys.executable, "-c", "import torch"],
        f"torchlab check {week} --impl reference": check,
    }


def timed(cmd: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run(cmd, check=False, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--week", default="week1", help="the week to check (week1, week2...)")
    args = parser.parse_args()
    cmds = commands(args.week)
    # A fresh oracle cache: the first check pays for importing torch and computing its answers.
    os.environ["TORCHLAB_CACHE"] = tempfile.mkdtemp(prefix="torchlab-bench-")
    cold = {name: timed(cmd) for name, cmd in cmds.items()}  # warm-up, fills the cache
    times: dict[str, list[float]] = {name: [] for name in cmds}
    for _ in range(args.runs):
        for name, cmd in cmds.items():
            times[name].append(timed(cmd))
    medians = {name: statistics.median(ts) for name, ts in times.items()}
    for name, ts in times.items():
        print(
            f"{name:<42} median {medians[name]:.3f} s  (min {min(ts):.3f}, max {max(ts):.3f}, "
            f"first run {cold[name]:.3f} s, cold cache)"
        )
    torch_s, check_s = medians.values()
    print(f"ratio check / import torch: {check_s / torch_s:.2f}x (target: at most 2x)")


if __name__ == "__main__":
    main()
