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
import re
import shutil
import tempfile
import threading
import time
from collections.abc import Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from autograder import isolation
from autograder.cases import load_week, task_key
from autograder.labs import submission_folder
from autograder.oracle import cache_key, expected_observations
from autograder.report import PASS, CaseResult, Report, printable
from autograder.runner import run_week
from autograder.weeks import WEEKS, Week
from autograder.workers import Limits

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
    with os.fdopen(fd, "w", encoding="utf-8", errors="replace") as f:  # no text can stop it
        f.write(text)
    os.replace(tmp, path)


class Manifest:
    """What the grader itself wrote in an output folder: ``manifest.json`` maps
    "<student>/<week>" to the SHA-256 of that report and its grading key.

    Only reports listed here, with a matching hash, are read back (to resume, merge, or make
    the gradebook): a file planted in the output folder is never trusted, and the student and
    week of a report come from here, never from inside the report."""

    NAME = "manifest.json"

    def __init__(self, out: Path) -> None:
        self.out = out
        self.lock = threading.Lock()
        self.entries: dict[str, dict[str, str]] = {}
        self.found = False  # a manifest the grader wrote is there (perhaps an empty shard's)
        try:
            data = json.loads((out / self.NAME).read_text())
            if isinstance(data, dict) and isinstance(data.get("reports"), dict):
                self.entries = {k: v for k, v in data["reports"].items() if _entry_ok(k, v)}
                self.found = True
        except (OSError, ValueError, RecursionError):
            pass  # no manifest (a new folder) or a damaged one: nothing is trusted

    def path(self, student: str, week: str) -> Path:
        return self.out / "students" / student / f"{week}.json"

    def record(self, student: str, week: str, text: str, key: str) -> None:
        digest = hashlib.sha256(text.encode("utf-8", "replace")).hexdigest()
        with self.lock:
            self.entries[f"{student}/{week}"] = {"sha256": digest, "key": key}
            self.save()

    def save(self) -> None:
        write_atomically(self.out / self.NAME, json.dumps({"reports": self.entries}, indent=1))
        self.found = True

    def load(self, student: str, week: str, key: str | None = None) -> dict[str, Any] | None:
        """The saved report of (student, week) if the grader recorded it (and, given a key,
        graded the same submission against the same cases); else None."""
        entry = self.entries.get(f"{student}/{week}")
        if entry is None or (key is not None and entry["key"] != key):
            return None
        try:
            raw = self.path(student, week).read_bytes()
            if hashlib.sha256(raw).hexdigest() != entry["sha256"]:
                return None
            data = json.loads(raw)
        except (OSError, ValueError, RecursionError):
            return None
        if not isinstance(data, dict):
            return None
        data.update(student=student, week=week)
        return data

    def reports(self) -> dict[tuple[str, str], dict[str, Any]]:
        found = {}
        for name in sorted(self.entries):
            student, week = name.split("/")
            data = self.load(student, week)
            if data is not None:
                found[(student, week)] = data
        return found


_ID_CHARS = re.compile(r"[^A-Za-z0-9._-]")
_WEEK_NAME = re.compile(r"week[0-9]+[a-z]?")  # week2b: a second part


def _entry_ok(name: object, entry: object) -> bool:
    if not isinstance(name, str) or not isinstance(entry, dict) or name.count("/") != 1:
        return False
    student, week = name.split("/")
    ok_id = student == clean_id(student) and bool(_WEEK_NAME.fullmatch(week))
    return ok_id and all(isinstance(entry.get(k), str) for k in ("sha256", "key"))


def clean_id(folder_name: str) -> str:
    """A student id from a folder name: letters, digits, ``.``, ``_`` and ``-`` only, never
    starting with a dot or a dash. A name that had to change gets a short hash of the
    original, so two folders never share an id."""
    cleaned = _ID_CHARS.sub("_", folder_name)[:64].lstrip(".-") or "student"
    if cleaned != folder_name:
        raw = folder_name.encode("utf-8", "surrogateescape")
        cleaned += "-" + hashlib.sha256(raw).hexdigest()[:8]
    return cleaned


def csv_cell(value: Any) -> Any:
    """A cell no spreadsheet runs as a formula (OWASP's CSV-injection advice)."""
    if isinstance(value, str) and value[:1] in ("=", "+", "-", "@", "\t", "\r"):
        return "'" + value
    return value


# ---- one student ------------------------------------------------------------------------------


def students_in(submissions: Path) -> dict[str, Path]:
    """Every student folder in ``submissions`` (hidden folders skipped), by student id (the
    cleaned folder name). A symbolic link is listed too: grading rejects it with a reason."""
    if not submissions.is_dir():
        raise ValueError(f"{submissions} is not a folder of student submissions")
    found: dict[str, Path] = {}
    for p in sorted(submissions.iterdir()):
        if not p.name.startswith(".") and (p.is_symlink() or p.is_dir()):
            found[clean_id(p.name)] = p
    return found


def _submission_digest(files: Path) -> str:
    h = hashlib.sha256()
    for p in sorted(f for f in files.rglob("*") if f.is_file()):  # Python and C++ alike
        h.update(p.relative_to(files).as_posix().encode() + b"\0" + p.read_bytes())
    return h.hexdigest()[:20]


MAX_SUBMISSION_BYTES = 8 * 2**20  # a lab folder's Python (and C++) files, all together


def _private_copy(student_dir: Path, week: Week, into: Path) -> str | None:
    """Copy the student's lab folder (its Python files, and a native week's C++ sources) to a
    private place, the only files the build and the worker get. Returns a reason to reject the
    submission, or None."""
    into.mkdir(parents=True, exist_ok=True)
    folder, problem = submission_folder(student_dir, week)
    if problem or folder is None:
        return problem
    total = 0
    native = [folder / name for name in week.native_sources]
    for p in sorted(folder.glob("*.py")) + native:
        if p.is_symlink():
            return f"{p.name} is a symbolic link: submit the files themselves"
        if not p.is_file():
            continue
        total += p.stat().st_size
        if total > MAX_SUBMISSION_BYTES:
            return f"the lab's files are larger than {MAX_SUBMISSION_BYTES // 2**20} MB"
        fd = os.open(p, os.O_RDONLY | os.O_NOFOLLOW)
        with os.fdopen(fd, "rb") as src, open(into / p.name, "wb") as dst:
            shutil.copyfileobj(src, dst)
    return None


def rejected_report(w: Week, reason: str) -> Report:
    """Every case of ``w`` failed with ``reason``: a submission the grader will not run."""
    report = Report(f"{w.name}: {w.title}", f"{w.module}.py", problems=[reason])
    for c in load_week(w.name, include_hidden=True):
        tasks = sorted(c.tasks, key=task_key)
        report.results.append(
            CaseResult(c.id, c.name, c.week, c.points, "error", reason, tasks, c.hidden)
        )
    return report


def grade_student(
    student: str,
    folder: Path,
    week: Week,
    out: Path,
    limits: Limits,
    manifest: Manifest | None = None,
) -> tuple[Report, bool]:
    """Grade one (student, week); returns the report and whether it was graded just now.
    ``student`` is the grader's id for ``folder`` (see ``clean_id``)."""
    manifest = manifest or Manifest(out)
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="torchlab-sub-") as tmp:
        files = Path(tmp) / "submission"
        problem = _private_copy(folder, week, files)
        digest = "rejected" if problem else _submission_digest(files)
        key = f"{digest}-{cache_key(week.name)}"
        saved = manifest.load(student, week.name, key)
        if saved is not None:
            try:
                return Report.from_dict(saved), False
            except (KeyError, TypeError, ValueError):
                pass  # a report of an older format is graded again
        if problem:
            report = rejected_report(week, problem)
        else:
            report = run_week(week, str(files), include_hidden=True, limits=limits)
    save_report(student, week, report, key, out, manifest, time.perf_counter() - started)
    return report, True


def save_report(
    student: str, week: Week, report: Report, key: str, out: Path, manifest: Manifest, secs: float
) -> None:
    """Write a student's feedback page and report, and record the report in the manifest."""
    report.title = f"{student}: {report.title}"
    report.impl = f"{student}/{week.module}.py"
    data = report.to_dict()
    data.update(grading_key=key, student=student, week=week.name, seconds=round(secs, 3))
    student_dir = out / "students" / student
    write_atomically(student_dir / f"{week.name}.html", feedback_page(report.for_student()))
    text = json.dumps(data, indent=1)
    write_atomically(manifest.path(student, week.name), text)
    manifest.record(student, week.name, text, key)  # last: it marks "done"


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
        f"<p><small>Isolation: {html.escape(report.isolation or 'not run')}</small></p>"
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
    isolated = sorted({r.isolation for r in reports if r.isolation})
    text = "\n".join(problems) or "Every case was compared with real torch 2.13."
    return {
        "score": sum(r.score for r in reports),
        "execution_time": round(seconds, 2),
        "output": text + f"\nIsolation: {', '.join(isolated) or 'not run'}.",
        "stdout_visibility": "hidden",
        "tests": tests,
    }


# ---- the gradebook ------------------------------------------------------------------------


def load_reports(outs: Iterable[Path]) -> dict[tuple[str, str], dict[str, Any]]:
    """Every report the grader recorded in the given output folders (see ``Manifest``),
    keyed by (student, week)."""
    found: dict[tuple[str, str], dict[str, Any]] = {}
    for out in outs:
        found.update(Manifest(out).reports())
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
    writer.writerow([csv_cell(c) for c in NBGRADER_COLUMNS + case_ids])
    for (student, week), data in sorted(reports.items()):
        earned = {r["id"]: (r["points"] if r["status"] == PASS else 0) for r in data["results"]}
        row = [week, "", "", student, "", "", "", data["score"], 0.0, data["score"]]
        row.append(data["max_score"])
        writer.writerow([csv_cell(c) for c in row + [earned.get(c, "") for c in case_ids]])
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


class GradingRefused(RuntimeError):
    """Grading would run submissions without the sandbox, and nobody asked for that."""


def answer_weeks(weeks: list[Week]) -> None:
    """Ask torch for every case of ``weeks``, hidden ones too, into the oracle cache (a week
    with pinned answers reads them). Grading does this first; a grading image does it once
    at build time (``torchlab grade --answers-only``), so that every pod or container started
    from it grades at once instead of recomputing torch's answers (minutes for all weeks)."""
    for week in weeks:
        expected_observations(week, load_week(week.name, include_hidden=True))


def grade_class(
    submissions: Path,
    out: Path,
    weeks: list[Week] | None = None,
    jobs: int = 1,
    shard: Shard | None = None,
    limits: Limits | None = None,
    progress: Any = None,
    unsafe_no_sandbox: bool = False,
) -> dict[tuple[str, str], dict[str, Any]]:
    """Grade every student (of this shard) for every week; returns all saved reports.

    Submissions run inside bubblewrap (``isolation.py``). Where it cannot run, grading
    refuses (``GradingRefused``). ``unsafe_no_sandbox`` grades without it (there, or on
    purpose, to measure its cost): the audit-hook guard alone then stands between the class
    and the grader, and every report says so."""
    submissions, out = submissions.resolve(), out.resolve()
    weeks = list(weeks or WEEKS.values())
    problem = isolation.bubblewrap_problem()
    if problem and not unsafe_no_sandbox:
        raise GradingRefused(
            f"will not grade without a sandbox: {problem}. Fix that, or pass "
            "--unsafe-no-sandbox to grade behind the in-process guard alone (submitted code "
            "could then read the answers and change other grades)."
        )
    folders = students_in(submissions)
    students = shard.take(list(folders)) if shard else sorted(folders)
    # The worker may read none of the class: every submission and every result is hidden.
    limits = replace(
        limits or Limits(),
        hide_paths=(str(submissions), str(out)),
        isolation="none" if unsafe_no_sandbox else "bubblewrap",
    )
    answer_weeks(weeks)  # torch's answers once, before any submission runs
    tasks = [(s, w) for s in students for w in weeks]
    manifest = Manifest(out)

    def one(task: tuple[str, Week]) -> None:
        student, week = task
        try:
            report, fresh = grade_student(student, folders[student], week, out, limits, manifest)
        except Exception as exc:  # noqa: BLE001 - one submission never stops the class
            reason = f"the grader could not grade this submission: {type(exc).__name__}: {exc}"
            report, fresh = rejected_report(week, reason[:500]), True
            save_report(student, week, report, f"failed-{time.time()}", out, manifest, 0.0)
        if progress:
            progress(student, week.name, report, fresh)

    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        list(pool.map(one, tasks))
    if not manifest.found:  # a shard with no students (a class smaller than the job array)
        manifest.save()  # says it ran: `--merge` refuses only a folder no shard wrote
    # A shard writes what its folder holds; `--merge` joins shards into one gradebook.
    reports = load_reports([out])
    write_class_outputs(out, reports)
    return {k: v for k, v in reports.items() if k[0] in students}


def merge(out: Path, shard_outs: list[Path]) -> dict[tuple[str, str], dict[str, Any]]:
    """Join shards' outputs into ``out``: the reports each shard's manifest vouches for, and
    their feedback pages; then one gradebook."""
    out = out.resolve()
    manifest = Manifest(out)
    for shard_out in shard_outs:
        shard = Manifest(shard_out.resolve())
        if not shard.found:
            raise ValueError(f"{shard_out} holds no graded students (no manifest.json)")
        if shard_out.resolve() == out:
            continue
        for student, week in shard.reports():
            page = shard_out / "students" / student / f"{week}.html"
            if page.is_file() and not page.is_symlink():
                write_atomically(out / "students" / student / page.name, page.read_text())
            text = shard.path(student, week).read_text()
            write_atomically(manifest.path(student, week), text)
            manifest.record(student, week, text, shard.entries[f"{student}/{week}"]["key"])
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


def run_gradescope(root: Path, weeks: list[Week] | None, limits: Limits) -> int:
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
        # Gradescope runs each submission in a container of its own, which is the wall where
        # bubblewrap cannot run there; the results say which isolation held.
        unsafe = bool(isolation.bubblewrap_problem())
        reports = grade_class(class_dir, out, weeks, 1, limits=limits, unsafe_no_sandbox=unsafe)
        results = json.loads((out / "students" / "submission" / "results.json").read_text())
        if isolation.bubblewrap_problem():
            results["output"] += " (inside Gradescope's per-submission container)"
    write_atomically(results_path, json.dumps(results, indent=1))
    print(summary_table(reports))
    print(f"wrote {results_path}")
    return 0
