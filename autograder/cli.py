"""``torchlab``: check a lab, see your progress, release the course.

torchlab                      every lab against the reference, then your progress
torchlab check week1          your skeleton in labs/week1_strides/, case by case
torchlab check week1 --impl reference | PATH
torchlab release --check      fails when labs/ drifted from reference_impl/
torchlab release --write      regenerate labs/ from reference_impl/
torchlab release --out DIR    a student-only copy of the course
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from autograder import release
from autograder.runner import REPO_ROOT, Limits, run_week
from autograder.weeks import WEEKS


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="torchlab", description=__doc__.split("\n")[0])
    sub = p.add_subparsers(dest="command")
    c = sub.add_parser("check", help="run a week's cases against an engine and compare with torch")
    c.add_argument("week", help="week1, or 1")
    c.add_argument("--impl", default="lab", help="lab (default), reference, or a folder/file")
    c.add_argument(
        "-k",
        dest="select",
        action="append",
        help="only cases whose name has this, or that check this task (1.4); repeatable",
    )
    c.add_argument("--timeout", type=float, default=Limits.case_seconds, help="seconds per case")
    c.add_argument("--json", action="store_true", help="print the report as JSON")
    c.add_argument("--show-output", action="store_true", help="show what failing cases printed")
    r = sub.add_parser("release", help="generate skeletons or a student copy from the reference")
    g = r.add_mutually_exclusive_group(required=True)
    g.add_argument("--check", action="store_true", help="fail if labs/ differs from the reference")
    g.add_argument("--write", action="store_true", help="regenerate labs/ from reference_impl/")
    g.add_argument("--out", type=Path, help="write a student copy of the course to this folder")
    sub.add_parser("progress", help="every lab against the reference, then your own progress")
    return p


def cmd_check(args: argparse.Namespace) -> int:
    limits = Limits(case_seconds=args.timeout)
    report = run_week(args.week, args.impl, args.select, limits=limits)
    if args.json:
        print(report.to_json())
    else:
        print(report.render_text(color=sys.stdout.isatty(), show_output=args.show_output))
    return 0 if report.passed else 1


def cmd_release(args: argparse.Namespace) -> int:
    if args.check:
        drifted = release.check()
        for line in drifted:
            print(f"drift: {line}; run `torchlab release --write`")
        if not drifted:
            print("labs/ matches what reference_impl/ generates")
        return 1 if drifted else 0
    if args.write:
        written = release.write_skeletons()
        print("\n".join(f"wrote {p}" for p in written) or "labs/ was already up to date")
        return 0
    out = release.write_student_copy(args.out)
    print(f"student copy written to {out} (no reference_impl, no hidden cases, no answers)")
    return 0


def cmd_progress() -> int:
    """The main job: prove each lab agrees with torch, then show where the learner stands.

    A student copy has no reference engine; there only the learner's progress is shown.
    """
    has_reference = (REPO_ROOT / "reference_impl").is_dir()
    ok = True
    if has_reference:
        print("Every lab's reference engine, checked against real torch:")
        for name in WEEKS:
            ref = run_week(name, "reference", include_hidden=True)
            ok = ok and ref.passed
            print(f"  {name}: {ref.summary()}")
        print()
    print("Your progress (labs/):")
    for name, week in WEEKS.items():
        lab = run_week(name, "lab")
        print(f"  {name} {week.title}: {lab.summary()}")
        todo = [r for r in lab.results if r.status != "pass"]
        if todo:
            print(f"    next: {todo[0].name}: {todo[0].message}")
    print("\nRun `torchlab check week1` for the case-by-case table.")
    return 0 if ok else 1


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        if args.command == "check":
            return cmd_check(args)
        if args.command == "release":
            return cmd_release(args)
        return cmd_progress()
    except (ValueError, release.ReleaseError) as exc:
        print(f"torchlab: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
