"""``torchlab status``: one row per week, re-checked only where something changed.

A week's row is kept in ``~/.cache/torchlab/status.json`` (``$TORCHLAB_CACHE``) under a key that
hashes everything the row depends on: the learner's files in the lab's folder (their Python and
C++, not the notebooks), the cases' sources and torch's answers' key (``oracle.cache_key``:
torch's version, the case modules, a pinned week's answers) and the runner's own modules. An
unchanged course answers from the cache; a week whose key moved is checked again, and says so.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Callable
from pathlib import Path

from autograder.check_server import run_week_warm
from autograder.labs import find_lab
from autograder.oracle import AUTOGRADER_DIR, cache_dir, cache_key
from autograder.weeks import Week

Row = tuple[str, str, str, str, str]
LEARNER_SUFFIXES = (".py", ".cpp", ".h", ".cu")
# The modules that turn a learner's answers into a row, beside the cases (oracle.cache_key).
RUNNER_SOURCES = ("runner.py", "workers.py", "worker.py", "judge.py", "report.py", "native.py")


def cache_path() -> Path:
    return cache_dir().parent / "status.json"


def week_key(week: Week, lab: Path) -> str:
    """A digest of everything ``week``'s row depends on, for the lab file at ``lab``."""
    h = hashlib.sha256(cache_key(week.name).encode())
    for name in RUNNER_SOURCES:
        h.update((AUTOGRADER_DIR / name).read_bytes())
    h.update(str(lab).encode())
    if lab.parent.is_dir():
        for path in sorted(lab.parent.iterdir()):
            if path.suffix in LEARNER_SUFFIXES and path.is_file():
                h.update(path.name.encode() + b"\0" + path.read_bytes())
    return h.hexdigest()[:24]


def row(week: Week) -> Row:
    """Check the learner's lab of ``week`` and summarise it."""
    lab = run_week_warm(week, "lab")
    tasks = lab.task_progress()
    done = sum(1 for passed, total in tasks.values() if passed == total)
    step = lab.next_step()
    passed = sum(1 for r in lab.results if r.status == "pass")
    return (
        f"{week.name} {week.title}",
        f"{passed}/{len(lab.results)}",
        f"{lab.score}/{lab.max_score}",
        f"{done}/{len(tasks)}",
        f"Task {step.blame or step.own_task}" if step else "all done",
    )


def rows(weeks: list[Week], recheck: bool = False, say: Callable[[str], None] = print) -> list[Row]:
    """Every week's row: from the cache where its key is unchanged (unless ``recheck``)."""
    path = cache_path()
    try:
        cached = json.loads(path.read_text())
    except (OSError, ValueError):
        cached = {}
    out = []
    for week in weeks:
        key = week_key(week, find_lab(week))
        hit = cached.get(week.name)
        if not recheck and isinstance(hit, dict) and hit.get("key") == key:
            out.append(tuple(hit["row"]))
            continue
        why = "asked to" if recheck else ("first time" if hit is None else "files changed")
        say(f"checking {week.name} ({why})...")
        fresh = row(week)
        cached[week.name] = {"key": key, "row": list(fresh)}
        out.append(fresh)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(f".{os.getpid()}.tmp")
    tmp.write_text(json.dumps(cached, indent=1))
    os.replace(tmp, path)
    return out
