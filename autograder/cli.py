"""``torchlab``: check a lab, see your progress, release the course.

torchlab                      your progress through every lab
torchlab status               a table of your labs (only changed weeks are checked again)
torchlab server stop          end your warm check server (checks start it; it ends when idle)
torchlab check week1          your skeleton in labs/week1_strides/, case by case
torchlab check week5          a C++ lab: your files in cpp_labs/week5_privateuse1/
torchlab check week1 --impl PATH    another folder or file instead of your skeleton
torchlab release --check      (instructor's copy) fails when labs/ or cpp_labs/ drifted
torchlab release --write      (instructor's copy) regenerate labs/ and cpp_labs/ from their source
torchlab release --out DIR    (instructor's copy) a student-only copy of the course
"""

from __future__ import annotations

import argparse
import os
import re
import sys
import time
from dataclasses import replace
from pathlib import Path

from autograder import release
from autograder.check_server import run_week_warm
from autograder.labs import REPO_ROOT
from autograder.runner import run_week
from autograder.weeks import WEEKS, Week, get_week
from autograder.workers import Limits


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="torchlab", description=__doc__.split("\n")[0])
    sub = p.add_subparsers(dest="command")
    c = sub.add_parser("check", help="run a week's cases against an engine and compare with torch")
    c.add_argument("week", help="week1, or 1")
    c.add_argument("--impl", default="lab", help="lab (default: your skeleton), or a folder/file")
    c.add_argument(
        "-k",
        dest="select",
        action="append",
        help="only cases whose name has this, or that check this task (1.4); repeatable",
    )
    c.add_argument("--timeout", type=float, default=Limits.case_seconds, help="seconds per case")
    c.add_argument("--json", action="store_true", help="print the report as JSON")
    c.add_argument("--show-output", action="store_true", help="show what failing cases printed")
    c.add_argument(
        "--build-log", action="store_true", help="a C++ week: print the compiler's whole output"
    )
    r = sub.add_parser("release", help="instructor's copy: generate skeletons or a student copy")
    g = r.add_mutually_exclusive_group(required=True)
    g.add_argument("--check", action="store_true", help="fail if the labs differ from their source")
    g.add_argument("--write", action="store_true", help="regenerate the labs from their source")
    g.add_argument("--out", type=Path, help="write a student copy of the course to this folder")
    pr = sub.add_parser("progress", help="your progress through every lab (also the default)")
    pr.add_argument("weeks", nargs="*", help="only these weeks (week1, or 1)")
    sv = sub.add_parser("server", help="your warm check server (it starts by itself)")
    sv.add_argument("action", choices=["stop"], help="stop: end it now")
    st = sub.add_parser("status", help="a table of your labs: cases, points, tasks done, what next")
    st.add_argument("--recheck", action="store_true", help="check every week, not only changed")
    gr = sub.add_parser("grade", help="grade submissions (default: the instructor's sample class)")
    gr.add_argument("submissions", nargs="?", type=Path, help="a folder of student folders")
    gr.add_argument("--week", action="append", help="week to grade (repeatable; default: all)")
    gr.add_argument("--out", type=Path, help="where reports go (default: grades/)")
    gr.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="students in parallel")
    gr.add_argument("--shard", help="grade slice i of n (1-based), e.g. 3/8")
    gr.add_argument("--timeout", type=float, default=Limits.case_seconds, help="seconds per case")
    gr.add_argument("--student-timeout", type=float, default=60.0, help="seconds per student/week")
    gr.add_argument("--memory-mb", type=int, default=Limits.memory_mb, help="per worker")
    gr.add_argument(
        "--unsafe-no-sandbox",
        action="store_true",
        help="grade even where bubblewrap cannot run: only the in-process guard then stands "
        "between submissions and the grader (reports say so)",
    )
    gr.add_argument(
        "--answers-only",
        action="store_true",
        help="compute torch's answers for the weeks into the cache and grade nothing "
        "(a grading image's build step: its containers then start warm)",
    )
    gr.add_argument(
        "--merge",
        nargs="+",
        type=Path,
        metavar="SHARD_OUT",
        help="join these shard output folders into --out, then write the gradebook",
    )
    gr.add_argument(
        "--gradescope",
        nargs="?",
        const=Path("/autograder"),
        type=Path,
        metavar="ROOT",
        help="run in Gradescope's layout (default ROOT /autograder)",
    )
    nb = sub.add_parser("nbgrader", help="the course as an nbgrader course")
    nbsub = nb.add_subparsers(dest="nbgrader_command", required=True)
    nbx = nbsub.add_parser("export", help="write nbgrader_config.py and source/<week>/ notebooks")
    nbx.add_argument("course_dir", type=Path, help="the nbgrader course folder")
    nbx.add_argument("--week", action="append", help="week to export (repeatable; default: all)")
    return p


def _weeks(names: list[str] | None) -> list[Week] | None:
    """The weeks named on the command line ("week1" or "1"), resolved here, once."""
    return [get_week(name) for name in names] if names else None


def cmd_check(args: argparse.Namespace) -> int:
    week = get_week(args.week)
    limits = Limits(case_seconds=args.timeout, announce_builds=not args.json)
    report = run_week_warm(week, args.impl, args.select, limits=limits)
    if args.json:
        print(report.to_json())
    else:
        print(report.render_text(color=sys.stdout.isatty(), show_output=args.show_output))
        for task in [t for t in args.select or [] if re.fullmatch(r"\d+\.\d+", t)]:
            print(f"  {report.task_line(task)}")  # -k 5.1: is Task 5.1 done?
    if args.build_log:
        print(_build_log(week, args.impl))
    return 0 if report.passed else 1


def _build_log(week: Week, impl: str) -> str:
    """The compiler's output for the C++ this check built (``--build-log``)."""
    from autograder import native
    from autograder.labs import resolve_impl

    if not week.native_sources:
        return f"{week.name} has no C++: there is no build log"
    folder = resolve_impl(week, impl).parent
    log = native.build_log(week.native_library, {n: folder / n for n in week.native_sources})
    if log is None:
        return "no build log: the C++ was not built (or its build was stopped)"
    return f"the compiler's output for {', '.join(week.native_sources)}:\n{log or '(none)'}"


def cmd_release(args: argparse.Namespace) -> int:
    if args.check:
        drifted = release.check()
        for line in drifted:
            print(f"drift: {line}; run `torchlab release --write`")
        if not drifted:
            print("labs/ and cpp_labs/ match what reference_impl/ generates")
        return 1 if drifted else 0
    if args.write:
        written = release.write_skeletons()
        print("\n".join(f"wrote {p}" for p in written) or "the labs were already up to date")
        return 0
    out = release.write_student_copy(args.out)
    print(f"student copy written to {out} (no reference_impl, no hidden cases, no answers)")
    return 0


def cmd_progress(weeks: list[Week] | None = None) -> int:
    """The main job: prove each lab agrees with torch, then show where the learner stands
    (in every week, or in ``weeks``).

    A student copy has no reference engine; there only the learner's progress is shown.
    """
    chosen = {w.name: w for w in weeks} if weeks else WEEKS
    has_reference = (REPO_ROOT / "reference_impl").is_dir()
    ok = True
    if has_reference:
        print("Every lab's reference engine, checked against real torch:")
        for name, week in chosen.items():
            ref = run_week(week, "reference", include_hidden=True)
            ok = ok and ref.passed
            print(f"  {name}: {ref.summary()}")
        print()
    print("Your progress (labs/ and cpp_labs/):")
    for name, week in chosen.items():
        lab = run_week(week, "lab")
        print(f"  {name} {week.title}: {lab.summary()}  ({lab.impl})")
        tasks = lab.task_progress()
        done = [t for t, (passed, total) in tasks.items() if passed == total]
        print(f"    tasks done: {', '.join(done) or 'none yet'} (of {len(tasks)})")
        step = lab.next_step()
        if step is not None:
            print(f"    next: Task {step.blame or step.own_task}, {step.name}: {step.message}")
    print(f"\nRun `torchlab check {' | '.join(WEEKS)}` for a week's case-by-case table.")
    return 0 if ok else 1


def cmd_status(recheck: bool = False) -> int:
    """Your own labs only, as one table: each week's cases passed, points, tasks done and the
    task to do next. Weeks whose files, cases and torch are unchanged since the last status
    answer from its cache (``autograder/status.py``); ``--recheck`` checks every week."""
    from autograder import status

    def say(line: str) -> None:
        print(line, file=sys.stderr, flush=True)

    rows = status.rows(list(WEEKS.values()), recheck=recheck, say=say)
    header = ("week", "cases", "points", "tasks done", "next")
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
    for row in [header, tuple("-" * w for w in widths), *rows]:
        print("  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip())
    print("\n`torchlab check WEEK -k TASK` shows that task's cases, one by one.")
    return 0


def cmd_grade(args: argparse.Namespace) -> int:
    """Grade a class, a shard of one, Gradescope's single submission, or merge shards."""
    from autograder import grading

    limits = Limits(
        case_seconds=args.timeout, run_seconds=args.student_timeout, memory_mb=args.memory_mb
    )
    if args.gradescope:
        return grading.run_gradescope(args.gradescope, _weeks(args.week), limits)
    if args.answers_only:
        weeks = _weeks(args.week) or list(WEEKS.values())
        started = time.perf_counter()
        grading.answer_weeks(weeks)
        took = time.perf_counter() - started
        names = ", ".join(w.name for w in weeks)
        print(f"torch's answers are in the cache for {names} ({took:.0f} s)")
        return 0
    out = args.out or Path("grades")
    if args.merge:
        reports = grading.merge(out, args.merge)
        print(grading.summary_table(reports))
        print(f"\nmerged {len(args.merge)} folders into {out}/gradebook.csv")
        return 0
    submissions, weeks = args.submissions, _weeks(args.week)
    if submissions is None:
        from autograder.samples import SAMPLE_WEEKS, build_sample_class

        submissions = out / "sample-class"
        build_sample_class(submissions)
        weeks = weeks or [WEEKS[name] for name in SAMPLE_WEEKS]  # those it has submissions for
        print(f"grading the bundled sample class ({submissions})")
        # Its loops and crashes would each use a full minute of the default budget.
        limits = replace(limits, case_seconds=min(limits.case_seconds, 2.0))
        limits = replace(limits, run_seconds=min(limits.run_seconds, 10.0))

    def progress(student: str, week: str, report: object, fresh: bool) -> None:
        if not fresh:
            print(f"  {student} {week}: already graded, kept", flush=True)

    shard = grading.Shard.parse(args.shard) if args.shard else None
    started = time.perf_counter()
    try:
        reports = grading.grade_class(
            submissions,
            out,
            weeks,
            args.jobs,
            shard,
            limits,
            progress=progress,
            unsafe_no_sandbox=args.unsafe_no_sandbox,
        )
    except grading.GradingRefused as exc:
        print(f"torchlab grade: {exc}", file=sys.stderr)
        return 2
    print(grading.summary_table(reports))
    print(
        f"\ngraded {len(reports)} student-weeks in {time.perf_counter() - started:.1f} s; "
        f"reports in {out}/students/, gradebook in {out}/gradebook.csv"
    )
    return 0


def cmd_nbgrader(args: argparse.Namespace) -> int:
    from autograder.nbgrader_bridge import export_course

    weeks = _weeks(args.week) or list(WEEKS.values())
    course = export_course(args.course_dir, weeks)
    names = [w.name for w in weeks]
    print(f"nbgrader course written to {course} ({', '.join(names)}); in that folder run")
    print(f"  nbgrader generate_assignment {names[0]}, then autograde, generate_feedback, export")
    return 0


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        if args.command == "check":
            return cmd_check(args)
        if args.command == "release":
            return cmd_release(args)
        if args.command == "grade":
            return cmd_grade(args)
        if args.command == "nbgrader":
            return cmd_nbgrader(args)
        if args.command == "server":
            from autograder import check_server

            print("stopped" if check_server.stop_server() else "no check server was running")
            return 0
        if args.command == "status":
            return cmd_status(args.recheck)
        return cmd_progress(_weeks(getattr(args, "weeks", None)))
    except (ValueError, release.ReleaseError) as exc:
        print(f"torchlab: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
