"""Grading a class: every student, every week, safely, in parallel, resumable, shardable.

    torchlab grade SUBMISSIONS [--week week1] [--out DIR] [--jobs N] [--shard i/n]
    torchlab grade --merge OUT SHARD_OUT ...
    torchlab grade --gradescope [ROOT]        # inside Gradescope's /autograder layout

SUBMISSIONS is a folder of student folders; each holds the lab files (``strides.py``) or a
whole copy of the student release. Each (student, week) is graded by the same runner a
learner uses, with hidden cases included, in a guarded worker process (see sandbox.py) that
reads a private copy of that student's files and nothing of the class, the answers or torch.

Everything is written atomically under OUT (default ``grades/``)::

    students/<id>/<week>.json    the full report (instructor's copy)
    students/<id>/<week>.html    the student's feedback page (hidden cases without details)
    students/<id>/results.json   Gradescope's format, all graded weeks
    gradebook.csv                nbgrader's export columns, then one column per case

A (student, week) whose report exists for the same submission and the same cases is not
graded again, so an interrupted run resumes where it stopped.
"""

from __future__ import annotations

import csv
import hashlib
import html
import io
import json
import os
import shutil
import tempfile
import time
from collections.abc import Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from autograder.cases import load_week
from autograder.oracle import cache_key, expected_observations
from autograder.report import PASS, Report, printable
from autograder.runner import Limits, resolve_impl, run_week
from autograder.weeks import WEEKS, get_week

NBGRADER_COLUMNS = [
    "assignment",
    "duedate",
    "timestamp",
    "student_id",
    "last_name",
    "first_name",
    "email",
    "raw_score",
    "late_submission_penalty",
    "score",
    "max_score",
]


@dataclass(frozen=True)
class Shard:
    index: int  # 1-based, as a Slurm array or a Kubernetes indexed Job numbers it (+1)
    count: int

    @classmethod
    def parse(cls, text: str) -> Shard:
        try:
            i, n = (int(p) for p in text.split("/"))
        except ValueError:
            raise ValueError(f"--shard wants i/n, like 2/8; got {text!r}") from None
        if not 1 <= i <= n:
            raise ValueError(f"--shard {text}: i must be between 1 and n")
        return cls(i, n)

    def take(self, items: list[str]) -> list[str]:
        return [x for k, x in enumerate(sorted(items)) if k % self.count == self.index - 1]


# ---- writing ----------------------------------------------------------------------------------


def write_atomically(path: Path, text: str) -> None:
    """Write to a temporary file beside ``path`` and rename: readers never see half a file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    with os.fdopen(fd, "w") as f:
        f.write(text)
    os.replace(tmp, path)


# ---- one student ------------------------------------------------------------------------------


def students_in(submissions: Path) -> list[str]:
    """Every student folder in ``submissions`` (hidden folders skipped)."""
    if not submissions.is_dir():
        raise ValueError(f"{submissions} is not a folder of student submissions")
    return sorted(
        p.name for p in submissions.iterdir() if p.is_dir() and not p.name.startswith(".")
    )


def _submission_digest(files: Path) -> str:
    h = hashlib.sha256()
    for p in sorted(files.rglob("*.py")):
        h.update(p.relative_to(files).as_posix().encode() + b"\0" + p.read_bytes())
    return h.hexdigest()[:20]


def _private_copy(student_dir: Path, week: str, into: Path) -> Path:
    """Copy the student's lab folder to a private place, the only files the worker may read."""
    lab_file = resolve_impl(get_week(week), str(student_dir))
    into.mkdir(parents=True, exist_ok=True)
    if lab_file.exists():
        for p in lab_file.parent.glob("*.py"):  # the lab file and any helpers beside it
            if p.is_file() and not p.is_symlink():
                shutil.copyfile(p, into / p.name)
    return into


def grade_student(
    student: str, submissions: Path, week: str, out: Path, limits: Limits
) -> tuple[Report, bool]:
    """Grade one (student, week); returns the report and whether it was graded just now."""
    report_path = out / "students" / student / f"{week}.json"
    with tempfile.TemporaryDirectory(prefix="torchlab-sub-") as tmp:
        files = _private_copy(submissions / student, week, Path(tmp) / student)
        key = f"{_submission_digest(files)}-{cache_key(week)}"
        if report_path.exists():
            try:
                saved = json.loads(report_path.read_text())
                if saved.get("grading_key") == key:
                    return Report.from_dict(saved), False
            except (OSError, ValueError, KeyError, TypeError):
                pass  # a damaged report is graded again
        started = time.perf_counter()
        report = run_week(week, str(files), include_hidden=True, limits=limits)
    report.title = f"{student}: {report.title}"
    report.impl = f"{student}/{get_week(week).module}.py"
    data = report.to_dict()
    data.update(grading_key=key, student=student, week=week)
    data["seconds"] = round(time.perf_counter() - started, 3)
    student_dir = out / "students" / student
    write_atomically(student_dir / f"{week}.html", feedback_page(report.for_student()))
    write_atomically(report_path, json.dumps(data, indent=1))  # last: it marks "done"
    return report, True


def feedback_page(report: Report) -> str:
    """A student's HTML feedback for one week."""
    return (
        "<!doctype html><meta charset='utf-8'>"
        f"<title>{html.escape(report.title)}</title>"
        "<style>body{font-family:sans-serif;margin:2em}td,th{padding:2px 8px;"
        "border-bottom:1px solid #ddd;text-align:left}</style>"
        f"{report.render_html()}"
        "<p>Each case ran your engine and real torch 2.13 on the same input; a failing case "
        "shows the first difference.</p>"
    )


# ---- Gradescope ---------------------------------------------------------------------------


def gradescope_results(reports: list[Report], seconds: float) -> dict[str, Any]:
    """Gradescope's results.json (gradescope/autograder_samples docs/specs.md)."""
    tests = []
    for w, report in enumerate(reports, start=1):
        student_view = report.for_student()
        for k, (r, shown) in enumerate(zip(report.results, student_view.results, strict=True)):
            test: dict[str, Any] = {
                "name": f"{r.week} {shown.name}",
                "number": f"{w}.{k + 1}",
                "score": r.earned,
                "max_score": r.points,
                "status": "passed" if r.status == PASS else "failed",
                "output": shown.message if r.status != PASS else "",
                "tags": [f"task {t}" for t in r.tasks],
                "visibility": "after_published" if r.hidden else "visible",
            }
            tests.append(test)
    problems = [p for r in reports for p in r.problems]
    return {
        "score": sum(r.score for r in reports),
        "execution_time": round(seconds, 2),
        "output": "\n".join(problems) or "Every case was compared with real torch 2.13.",
        "stdout_visibility": "hidden",
        "tests": tests,
    }


# ---- the gradebook ------------------------------------------------------------------------


def load_reports(outs: Iterable[Path]) -> dict[tuple[str, str], dict[str, Any]]:
    """Every saved report in the given output folders, keyed by (student, week)."""
    found: dict[tuple[str, str], dict[str, Any]] = {}
    for out in outs:
        for path in sorted((out / "students").glob("*/*.json")):
            if path.name == "results.json":
                continue
            data = json.loads(path.read_text())
            found[(data["student"], data["week"])] = data
    return found


def gradebook_csv(reports: dict[tuple[str, str], dict[str, Any]]) -> str:
    """nbgrader's export columns (one row per student and assignment), then one column per
    case (points earned), so it drops into the same spreadsheets."""
    case_ids: list[str] = []
    for data in reports.values():
        for r in data["results"]:
            if r["id"] not in case_ids:
                case_ids.append(r["id"])
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(NBGRADER_COLUMNS + case_ids)
    for (student, week), data in sorted(reports.items()):
        earned = {r["id"]: (r["points"] if r["status"] == PASS else 0) for r in data["results"]}
        row = [week, "", "", student, "", "", "", data["score"], 0.0, data["score"]]
        row.append(data["max_score"])
        writer.writerow(row + [earned.get(c, "") for c in case_ids])
    return buf.getvalue()


def write_class_outputs(out: Path, reports: dict[tuple[str, str], dict[str, Any]]) -> None:
    """The gradebook, and each student's Gradescope results.json, from saved reports."""
    write_atomically(out / "gradebook.csv", gradebook_csv(reports))
    by_student: dict[str, list[dict[str, Any]]] = {}
    for (student, _), data in sorted(reports.items()):
        by_student.setdefault(student, []).append(data)
    for student, datas in by_student.items():
        student_reports = [Report.from_dict(d) for d in datas]
        seconds = sum(d.get("seconds", 0.0) for d in datas)
        results = gradescope_results(student_reports, seconds)
        write_atomically(out / "students" / student / "results.json", json.dumps(results, indent=1))


# ---- the class ----------------------------------------------------------------------------


def grade_class(
    submissions: Path,
    out: Path,
    weeks: list[str] | None = None,
    jobs: int = 1,
    shard: Shard | None = None,
    limits: Limits | None = None,
    progress: Any = None,
) -> dict[tuple[str, str], dict[str, Any]]:
    """Grade every student (of this shard) for every week; returns all saved reports."""
    submissions, out = submissions.resolve(), out.resolve()
    weeks = [get_week(w).name for w in (weeks or list(WEEKS))]
    students = students_in(submissions)
    if shard:
        students = shard.take(students)
    # The worker may read none of the class: every submission and every result is hidden.
    limits = replace(limits or Limits(), hide_paths=(str(submissions), str(out)))
    for week in weeks:  # torch's answers once, before any submission runs
        expected_observations(week, load_week(week, include_hidden=True))
    tasks = [(s, w) for s in students for w in weeks]

    def one(task: tuple[str, str]) -> None:
        report, fresh = grade_student(task[0], submissions, task[1], out, limits)
        if progress:
            progress(task[0], task[1], report, fresh)

    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        list(pool.map(one, tasks))
    # A shard writes what its folder holds; `--merge` joins shards into one gradebook.
    reports = load_reports([out])
    write_class_outputs(out, reports)
    return {k: v for k, v in reports.items() if k[0] in students}


def merge(out: Path, shard_outs: list[Path]) -> dict[tuple[str, str], dict[str, Any]]:
    """Join shards' outputs into ``out``: their student folders, then one gradebook."""
    out = out.resolve()
    for shard_out in shard_outs:
        src = shard_out.resolve() / "students"
        if not src.is_dir():
            raise ValueError(f"{shard_out} holds no graded students (no students/ folder)")
        if shard_out.resolve() != out:
            shutil.copytree(src, out / "students", dirs_exist_ok=True)
    reports = load_reports([out])
    write_class_outputs(out, reports)
    return reports


def summary_table(reports: dict[tuple[str, str], dict[str, Any]]) -> str:
    """The console gradebook: one line per student, a column per week, and flags."""
    weeks = sorted({w for _, w in reports})
    students = sorted({s for s, _ in reports})
    width = max([len(s) for s in students] + [7])
    lines = [f"{'student':<{width}}  " + "  ".join(f"{w:>9}" for w in weeks) + "  notes"]
    for s in students:
        cells, notes = [], []
        for w in weeks:
            data = reports.get((s, w))
            cells.append(f"{data['score']:>4}/{data['max_score']:<4}" if data else f"{'-':>9}")
            if data:  # one line each: a student's text must not add lines to the table
                notes += [printable(p) for p in data.get("problems", [])[:1]]
        lines.append(f"{s:<{width}}  " + "  ".join(cells) + "  " + "; ".join(notes)[:120])
    return "\n".join(lines)


def run_gradescope(root: Path, weeks: list[str] | None, limits: Limits) -> int:
    """Gradescope's layout: the submission in ROOT/submission, results to
    ROOT/results/results.json (gradescope/autograder_samples docs/specs.md)."""
    submission = root / "submission"
    results_path = root / "results" / "results.json"
    with tempfile.TemporaryDirectory(prefix="torchlab-gs-") as tmp:
        class_dir = Path(tmp) / "class"
        if submission.is_dir():
            shutil.copytree(submission, class_dir / "submission", symlinks=True)
        else:
            (class_dir / "submission").mkdir(parents=True)  # graded as missing files
        out = Path(tmp) / "out"
        reports = grade_class(class_dir, out, weeks, jobs=1, limits=limits)
        results = json.loads((out / "students" / "submission" / "results.json").read_text())
    write_atomically(results_path, json.dumps(results, indent=1))
    print(summary_table(reports))
    print(f"wrote {results_path}")
    return 0
