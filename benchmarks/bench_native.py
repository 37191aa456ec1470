"""What a native week costs: the C++ build, first and cached, and grading one submission.

    python benchmarks/bench_native.py [--runs 5] [--week week5]

Prints, in one run on this machine:
- the first build of the reference's C++ (an empty build cache; sandboxed where bubblewrap
  runs), and a build of a one-line edit of it (a new hash: a learner's next build);
- the cached build (the same source again: a hash lookup), median of ``--runs``;
- grading one submission-week: ``run_week`` with the hidden cases on a submission whose build is
  cached, median of ``--runs`` (the fork server stays warm between them, as in a class), and
  the first grading (server start and all) for comparison.
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from pathlib import Path

from autograder import native
from autograder.runner import REPO_ROOT, run_week
from autograder.weeks import get_week


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--week", default="week5")
    args = parser.parse_args()
    w = get_week(args.week)
    os.environ["TORCHLAB_CACHE"] = tempfile.mkdtemp(prefix="torchlab-bench-native-")
    reference = REPO_ROOT / "reference_impl"
    sources = {name: reference / name for name in w.native_sources}

    first = native.build(w.native_library, sources)
    assert first.library is not None, first.error
    cached = []
    for _ in range(args.runs):
        started = time.perf_counter()
        again = native.build(w.native_library, sources)
        cached.append(time.perf_counter() - started)
        assert again.cached
    with tempfile.TemporaryDirectory() as tmp:  # a learner's edit: one more line, a new hash
        edited = {}
        for name, path in sources.items():
            edited[name] = Path(tmp) / name
            edited[name].write_text(path.read_text() + "\n// an edit\n")
        second = native.build(w.native_library, edited)
        assert second.library is not None, second.error

        submission = Path(tmp) / "student"
        submission.mkdir()
        for name in [f"{w.module}.py", *w.native_sources]:
            (submission / name).write_bytes((reference / name).read_bytes())
        started = time.perf_counter()
        report = run_week(w.name, str(submission), include_hidden=True)
        first_grade = time.perf_counter() - started
        assert report.score == report.max_score, report.summary()
        grades = []
        for _ in range(args.runs):
            started = time.perf_counter()
            run_week(w.name, str(submission), include_hidden=True)
            grades.append(time.perf_counter() - started)

    print(f"{w.name}: {', '.join(w.native_sources)} ({len(report.results)} cases with the hidden)")
    print(f"  first build (empty cache):         {first.seconds:6.2f} s")
    print(f"  build after a one-line edit:       {second.seconds:6.2f} s")
    cached_ms = statistics.median(cached) * 1000
    print(f"  cached build, median of {args.runs}:        {cached_ms:6.2f} ms")
    print(f"  first grading (server start):      {first_grade:6.2f} s")
    print(f"  grading one submission, median:    {statistics.median(grades):6.2f} s")


if __name__ == "__main__":
    main()
