"""How long `torchlab check WEEK --impl reference` takes next to a bare `import torch`, cold
(no check server: every check starts Python, the course and the torch weeks' fork servers) and
warm (through the user's check server, autograder/check_server.py), for every week in one run.

Targets (issue 28): every week at most 1.0x the bare import, warm. Each week: one warm-up
(which fills the oracle cache and starts the server), then the three commands in turn
``--runs`` times; medians printed.

    python benchmarks/bench_check.py [--runs 5] [--week week1 ...]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

from autograder.weeks import WEEKS


def timed(cmd: list[str], env: dict[str, str]) -> float:
    start = time.perf_counter()
    subprocess.run(cmd, check=False, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--week", action="append", help="weeks to time (default: every week)")
    args = parser.parse_args()
    base = {k: v for k, v in os.environ.items() if k != "TORCHLAB_NO_SERVER"}
    base["TORCHLAB_CACHE"] = tempfile.mkdtemp(prefix="torchlab-bench-")  # a fresh oracle cache
    base["XDG_RUNTIME_DIR"] = tempfile.mkdtemp(prefix="torchlab-bench-run-")  # its own server
    cold_env = {**base, "TORCHLAB_NO_SERVER": "1"}
    bare = [sys.executable, "-c", "import torch"]
    print(f"{'week':<8} {'import torch':>12} {'cold check':>16} {'warm check':>16}")
    try:
        for week in args.week or list(WEEKS):
            check = [sys.executable, "-m", "autograder.cli", "check", week, "--impl", "reference"]
            timed(check, base)  # warm-up: the oracle's answers, the C++ build, the server
            runs: dict[str, list[float]] = {"bare": [], "cold": [], "warm": []}
            for _ in range(args.runs):
                runs["bare"].append(timed(bare, base))
                runs["cold"].append(timed(check, cold_env))
                runs["warm"].append(timed(check, base))
            bare_s, cold_s, warm_s = (statistics.median(runs[k]) for k in ("bare", "cold", "warm"))
            print(
                f"{week:<8} {bare_s:>10.2f} s {cold_s:>7.2f} s {cold_s / bare_s:>5.2f}x "
                f"{warm_s:>7.2f} s {warm_s / bare_s:>5.2f}x",
                flush=True,
            )
    finally:
        stop = [sys.executable, "-m", "autograder.cli", "server", "stop"]
        subprocess.run(stop, check=False, env=base, capture_output=True)
    print("medians of", args.runs, "runs; target: warm at most 1.0x import torch")


if __name__ == "__main__":
    main()
