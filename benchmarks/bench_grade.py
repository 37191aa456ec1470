"""Grading a class: torchlab against the real `nbgrader autograde`, same submissions, one run.

Builds a class of N submissions (default 100) cycling through the bundled sample class
(reference, skeleton, half done, buggy, and the hostile ones that finish quickly), then:

1. `torchlab grade CLASS --week week1 --jobs 2` (fresh oracle cache: its cost is included);
2. the same N submissions as nbgrader notebooks (`torchlab nbgrader export`, then
   `nbgrader generate_assignment` and `nbgrader autograde`, which grades one after another).

Target (issue: grading): at least 5x faster than nbgrader, and under 0.5 s of marginal cost
per submission per week. Prints both times, the ratio and the per-submission figures.

    python benchmarks/bench_grade.py [--n 100] [--nbgrader-n N] [--repeat 3] [--skip-nbgrader]

It also grades the class warm, alternately inside bubblewrap and behind the guard alone
(``--unsafe-no-sandbox``), and prints the medians and the sandbox's cost per submission.

`--nbgrader-n` grades only the first N notebooks with nbgrader and scales linearly (nbgrader
grades submissions one after another, so its time is linear in N); the default is all N.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import nbformat

from autograder.samples import build_sample_class
from autograder.weeks import WEEKS

REPO = Path(__file__).resolve().parent.parent


def lab_dir(week: object) -> Path:
    """Where the course keeps a week's skeleton."""
    return week.lab_dir(REPO)  # type: ignore[attr-defined]


# The mix: the four ordinary students and the hostile ones that finish quickly. Hostiles that
# loop or crash in every case would measure the time limits, not the grader (they have their
# own tests).
MIX = (
    "ada_reference",
    "bo_skeleton",
    "cy_halfway",
    "di_buggy",
    "h_fake_summary",
    "h_patch_modules",
    "h_read_answers",
    "h_wraps_torch",
    "h_write_gradebook",
    "h_network",
)


def build_class(root: Path, n: int, week: str = "week1") -> list[Path]:
    """N submissions: week 1 cycles through MIX; another week alternates copies of its
    reference and its skeleton (every file the learner hands in, C++ included)."""
    subs = root / "class"
    if week == "week1":
        samples = root / "samples"
        build_sample_class(samples)
        kinds = [samples / name for name in MIX]
    else:
        w = WEEKS[week]
        names = [f"{w.module}.py", *w.native_sources]
        kinds = []
        for label, folder in (("reference", REPO / "reference_impl"), ("skeleton", lab_dir(w))):
            kind = root / "kinds" / label
            kind.mkdir(parents=True)
            for name in names:
                shutil.copy(folder / name, kind / name)
            kinds.append(kind)
    files = []
    for i in range(n):
        kind = kinds[i % len(kinds)]
        dest = subs / f"s{i:03d}_{kind.name}"
        shutil.copytree(kind, dest)
        files.append(dest / "strides.py")
    return files


def run(cmd: list[str], cwd: Path | None = None) -> float:
    start = time.perf_counter()
    subprocess.run(cmd, cwd=cwd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - start


def nbgrader_course(root: Path, files: list[Path]) -> Path:
    course = root / "course"
    subprocess.run(
        [sys.executable, "-m", "autograder.cli", "nbgrader", "export", str(course)],
        check=True,
        stdout=subprocess.DEVNULL,
    )
    subprocess.run(
        ["nbgrader", "generate_assignment", "week1", "--force"],
        cwd=course,
        check=True,
        capture_output=True,
    )
    released = nbformat.read(course / "release/week1/week1.ipynb", as_version=4)
    for f in files:
        nb = nbformat.from_dict(json.loads(json.dumps(released)))
        [answer] = [c for c in nb.cells if c.metadata.get("nbgrader", {}).get("solution")]
        answer.source = "%%writefile strides.py\n" + f.read_text()
        dest = course / "submitted" / f.parent.name / "week1" / "week1.ipynb"
        dest.parent.mkdir(parents=True)
        nbformat.write(nb, dest)
    return course


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--n", type=int, default=100)
    parser.add_argument("--nbgrader-n", type=int, default=None)
    parser.add_argument("--repeat", type=int, default=3, help="warm runs, each way")
    parser.add_argument("--skip-nbgrader", action="store_true")
    parser.add_argument("--week", default="week1", help="week1 (the mix), or any other week")
    args = parser.parse_args()
    if args.week != "week1":
        args.skip_nbgrader = True  # nbgrader's comparison is week 1's
    nb_n = args.nbgrader_n or args.n
    with tempfile.TemporaryDirectory(prefix="torchlab-bench-") as tmp:
        root = Path(tmp)
        os.environ["TORCHLAB_CACHE"] = str(root / "cache")
        files = build_class(root, args.n, args.week)
        cmd = [sys.executable, "-m", "autograder.cli", "grade", str(root / "class")]
        ours = run([*cmd, "--week", args.week, "--jobs", "2", "--out", str(root / "grades")])
        # Warm runs, alternating: inside bubblewrap, and behind the in-process guard alone.
        times: dict[str, list[float]] = {"bubblewrap": [], "guard only": []}
        for k in range(args.repeat):
            for label, extra in (("bubblewrap", []), ("guard only", ["--unsafe-no-sandbox"])):
                out = str(root / f"grades-{label[0]}{k}")
                times[label].append(
                    run([*cmd, "--week", args.week, "--jobs", "2", "--out", out, *extra])
                )
        warm = statistics.median(times["bubblewrap"])
        bare = statistics.median(times["guard only"])
        theirs = float("nan")
        if not args.skip_nbgrader:
            course = nbgrader_course(root, files[:nb_n])
            theirs = run(["nbgrader", "autograde", "week1", "--force"], cwd=course)
            theirs *= args.n / nb_n
    print(f"submissions: {args.n} ({args.week}), 2 cores")
    print(
        f"torchlab grade --jobs 2, cold oracle cache: {ours:7.1f} s  ({ours / args.n:.3f} s each)"
    )
    print(
        f"torchlab grade --jobs 2, warm, bubblewrap:  {warm:7.1f} s  ({warm / args.n:.3f} s each)"
        f"  median of {args.repeat}"
    )
    print(
        f"torchlab grade --jobs 2, warm, guard only:  {bare:7.1f} s  ({bare / args.n:.3f} s each)"
        f"  median of {args.repeat}"
    )
    print(f"sandbox cost: {(warm - bare) / args.n * 1000:+.0f} ms per submission-week")
    if args.skip_nbgrader:
        return
    scaled = "" if nb_n == args.n else f" (measured on {nb_n}, scaled)"
    print(
        f"nbgrader autograde:                        {theirs:7.1f} s  "
        f"({theirs / args.n:.3f} s each){scaled}"
    )
    print(f"ratio nbgrader / torchlab (cold): {theirs / ours:.1f}x  (target: at least 5x)")


if __name__ == "__main__":
    main()
