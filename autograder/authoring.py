"""Tools for course authors: measure which tasks each case really needs, and keep the
syllabus's case counts equal to the registry's (``python -m autograder.authoring --syllabus``).
``python -m autograder.authoring WEEK [--record]`` prints (and records) a week's measured tags.

A case's ``tasks`` must be the truth: a learner selecting ``-k 1.4`` expects the cases that
Task 1.4 completes, and the notebook's check after Task 1.4 must be passable once Tasks 1.1
to 1.4 are written. Instead of trusting hand-written tags, we measure them: blank one task's
solution regions in a copy of the reference and see which cases stop passing.
"""

from __future__ import annotations

import contextlib
import json
import re
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from autograder.cases import task_key
from autograder.native import unoptimised_builds
from autograder.release import REPO_ROOT, make_skeleton, week_sources
from autograder.report import PASS
from autograder.runner import run_week
from autograder.weeks import Week, get_week


def reference_tasks(w: Week) -> list[str]:
    """The task numbers the week's reference declares, in order: "Task 1.4:" docstrings, and
    "// Task 5.2:" comments in its C++."""
    found: set[str] = set()
    for name in week_sources(w):
        text = (REPO_ROOT / "reference_impl" / name).read_text()
        found |= set(re.findall(r'(?:"""|// )Task (\d+\.\d+):', text))
    return sorted(found, key=task_key)


def measure_task_needs(
    w: Week, jobs: int = 2, only: list[str] | None = None
) -> dict[str, list[str]]:
    """``{case name: [tasks it fails without]}`` for every case, hidden ones included.

    One copy of the reference per task, that task blanked, each checked on its own (``jobs``
    at a time); a C++ week's copies are built unoptimised, as the mutation score's. ``only``:
    blank just those tasks (a spot check of a recorded measurement)."""
    tasks = reference_tasks(w) if only is None else only
    with tempfile.TemporaryDirectory(prefix="torchlab-ablate-") as tmp:

        def ablated(task: str) -> Any:
            folder = Path(tmp) / task
            folder.mkdir()
            for name in week_sources(w):  # the module and its C++, blanked for this task only
                source_path = REPO_ROOT / "reference_impl" / name
                text = make_skeleton(source_path.read_text(), str(source_path), only_tasks={task})
                (folder / name).write_text(text)
            return run_week(w, str(folder / f"{w.module}.py"), include_hidden=True)

        with contextlib.ExitStack() as stack:
            if w.native_sources:
                stack.enter_context(unoptimised_builds())
            with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
                reports = list(pool.map(ablated, tasks))
    needs: dict[str, list[str]] = {}
    for task, report in zip(tasks, reports, strict=True):
        for r in report.results:
            needs.setdefault(r.name, [])
            if r.status != PASS:
                needs[r.name].append(task)
    return needs


# ---- recorded measurements -------------------------------------------------------------------
# A week's measured needs depend on what its mutation verdicts depend on (the reference, the
# week's case files and those it imports, the grader's own modules, torch's and Python's
# versions): ``mutation.verdict_key`` with no mutants. ``--record`` writes them with that key;
# while the key holds, the test suite blanks one task, drawn at random, and takes the record
# for the others (a week 6 measurement is 20 runs of the week; a C++ week's, a build per task).
TAGS_DIR = REPO_ROOT / "tests" / "task_tags"


def tags_key(w: Week) -> str:
    from autograder.mutation import verdict_key

    return verdict_key(w, [])


def record_task_needs(w: Week, needs: dict[str, list[str]]) -> Path:
    TAGS_DIR.mkdir(parents=True, exist_ok=True)
    path = TAGS_DIR / f"{w.name}.json"
    body = {"key": tags_key(w), "needs": {k: needs[k] for k in sorted(needs)}}
    path.write_text(json.dumps(body, indent=1, sort_keys=True) + "\n")
    return path


def recorded_task_needs(w: Week) -> dict[str, list[str]] | None:
    """The recorded measurement of ``w``, or None (none recorded, or anything it depends on
    changed since)."""
    path = TAGS_DIR / f"{w.name}.json"
    try:
        body = json.loads(path.read_text())
    except (OSError, ValueError):
        return None
    return body["needs"] if body.get("key") == tags_key(w) else None


# The syllabus's table of weeks (curriculum/README.md and its Chinese twin): a row names its
# notebook (.../weekN.ipynb), then "public cases (points)" and "hidden cases (points)".
SYLLABI = (REPO_ROOT / "curriculum" / "README.md", REPO_ROOT / "curriculum" / "zh" / "README.md")
_ROW = re.compile(
    r"^(\|[^\n]*?(week\w+)\.ipynb`[^|]*\|[^|]*\| )"  # up to the public cases' cell
    r"(\d+)([ (（]+)(\d+)([)）]+ \| )(\d+)([ (（]+)(\d+)",
    re.M,
)
_PROSE = re.compile(r"(\d+)( public cases| 个公开测试用例)")


def case_counts(week: str) -> tuple[int, int, int, int]:
    """(public cases, their points, hidden cases, their points), from the registry."""
    from autograder.cases import load_week

    cases = load_week(week, include_hidden=True)
    public = [c for c in cases if not c.hidden]
    hidden = [c for c in cases if c.hidden]
    return len(public), sum(c.points for c in public), len(hidden), sum(c.points for c in hidden)


def syllabus_rows(text: str) -> dict[str, tuple[int, int, int, int]]:
    """The counts each row of the syllabus's table states, by week."""
    return {m[2]: (int(m[3]), int(m[5]), int(m[7]), int(m[9])) for m in _ROW.finditer(text)}


def fix_syllabus(path: Path) -> bool:
    """Rewrite the table's counts (and the prose's "N public cases") from the registry."""
    text = path.read_text()
    stated = syllabus_rows(text)
    counts = {week: case_counts(week) for week in stated}

    def row(m: re.Match) -> str:
        n, p, hn, hp = counts[m[2]]
        return f"{m[1]}{n}{m[4]}{p}{m[6]}{hn}{m[8]}{hp}"

    new = _ROW.sub(row, text)
    renumber = {old[0]: counts[w][0] for w, old in stated.items()}
    new = _PROSE.sub(lambda m: f"{renumber.get(int(m[1]), int(m[1]))}{m[2]}", new)
    if new != text:
        path.write_text(new)
    return new != text


if __name__ == "__main__":
    import sys

    if sys.argv[1:] == ["--syllabus"]:
        for path in SYLLABI:
            print(f"{path}: {'rewritten' if fix_syllabus(path) else 'already right'}")
        raise SystemExit(0)
    args = [a for a in sys.argv[1:] if a != "--record"]
    week = get_week(args[0] if args else "week1")  # the front door
    needs = measure_task_needs(week)
    for name, tasks in needs.items():
        print(f"{name}: {', '.join(tasks)}")
    if "--record" in sys.argv:
        print(f"recorded: {record_task_needs(week, needs).relative_to(REPO_ROOT)}")
