"""How much a torch-using week (week 2b) costs per submission, graded through the fork server.

Prints the median of ``--runs`` warm gradings of the reference (the server already holds
torch: what each further submission of a class costs), the first grading (which starts the
server), and ``python -c "import torch"`` for scale, all measured in this one run.

    python benchmarks/bench_fork_server.py [--runs 9] [--week week2b]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time

from autograder import zygote
from autograder.runner import run_week


def _seconds(fn: object) -> float:
    start = time.perf_counter()
    fn()  # type: ignore[operator]
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=9)
    parser.add_argument("--week", default="week2b")
    args = parser.parse_args()

    imports = [
        _seconds(lambda: subprocess.run([sys.executable, "-c", "import torch"], check=True))
        for _ in range(3)
    ]
    run_week(args.week, "reference")  # the oracle cache, warm from here on
    zygote.POOL.close()  # no server yet: the next grading starts one
    first = _seconds(lambda: run_week(args.week, "reference", include_hidden=True))
    warm = [
        _seconds(lambda: run_week(args.week, "reference", include_hidden=True))
        for _ in range(args.runs)
    ]
    report = run_week(args.week, "reference", include_hidden=True)
    torch_import = statistics.median(imports)
    median = statistics.median(warm)
    score = f"{report.score}/{report.max_score}"
    print(f"{args.week}: {len(report.results)} cases (hidden included), score {score}")
    print(f"python -c 'import torch', median of 3: {torch_import:.3f} s")
    print(f"first grading (starts the public and the hidden server): {first:.3f} s")
    print(
        f"each further grading, median of {args.runs}: {median:.3f} s "
        f"({median / torch_import:.2f}x of importing torch)"
    )


if __name__ == "__main__":
    main()
