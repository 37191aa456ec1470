"""The bundled sample class: what ``torchlab grade`` grades when it is given no submissions.

A folder of student folders, each holding a week-1 ``strides.py``:

- ``ada_reference``: the reference engine (full marks);
- ``bo_skeleton``: the generated skeleton, untouched (0);
- ``cy_halfway``: the reference with Tasks 1.7 to 1.13 blanked, a realistic student halfway
  through (the points of the cases that need only Tasks 1.1 to 1.6);
- ``di_buggy``: the reference with one realistic bug (``expand`` keeps the stride instead of
  using 0), so only the cases that meet the bug fail;
- ``h_<name>``: one per file in ``samples/hostile/``, submissions that attack the grader
  (loops, crashes, forks, reading the answers, writing the gradebook...). Each does no real
  work, so the fair score of each is 0.

The folder is rebuilt from the current reference each time, so it never drifts.
"""

from __future__ import annotations

import ast
import shutil
from pathlib import Path

from autograder.authoring import reference_tasks
from autograder.cases import task_key
from autograder.labs import REPO_ROOT
from autograder.release import make_skeleton
from autograder.weeks import WEEKS

HOSTILE_DIR = REPO_ROOT / "samples" / "hostile"
MARKER = ".torchlab-sample-class"  # tells a folder we built from one a user made
SAMPLE_WEEKS = ("week1",)  # the weeks the bundled class has submissions for
HALFWAY_FROM = "1.7"  # cy_halfway has written every task before this one
# One realistic learner mistake (tests/test_mutants.py has it too): expand keeps the stride.
BUG = ("            size, stride = target, 0\n", "            size = target\n")


def _reference() -> tuple[str, str]:
    week = WEEKS[SAMPLE_WEEKS[0]]
    path = REPO_ROOT / "reference_impl" / f"{week.module}.py"
    if not path.exists():
        raise ValueError(f"{path} is missing: the sample class is built from the reference")
    return path.read_text(), str(path.relative_to(REPO_ROOT))


def _first_line(path: Path) -> str:
    """A hostile file's one-line description: the first sentence of its docstring."""
    doc = ast.get_docstring(ast.parse(path.read_text())) or path.stem
    text = " ".join(doc.replace("``", "").split()).removeprefix("Hostile submission: ")
    return text.split(". ")[0].rstrip(".")


def sample_submissions() -> dict[str, tuple[str, str]]:
    """Student id -> (one-line description, the text of their strides.py)."""
    source, name = _reference()
    tasks = reference_tasks(WEEKS[SAMPLE_WEEKS[0]])
    later = {t for t in tasks if task_key(t) >= task_key(HALFWAY_FROM)}
    old, new = BUG
    if source.count(old) != 1:
        raise ValueError(f"{name} changed: the sample bug no longer applies ({old.strip()!r})")
    students = {
        "ada_reference": ("the reference engine: full marks", source),
        "bo_skeleton": ("the generated skeleton, nothing written: 0", make_skeleton(source, name)),
        "cy_halfway": (
            "Tasks 1.1 to 1.6 done, 1.7 to 1.13 not started",
            make_skeleton(source, name, only_tasks=later),
        ),
        "di_buggy": (
            "the reference with one bug: expand keeps the stride instead of 0",
            source.replace(old, new),
        ),
    }
    for path in sorted(HOSTILE_DIR.glob("*.py")):
        students[f"h_{path.stem}"] = (f"hostile: {_first_line(path)}", path.read_text())
    return students


def _looks_like_sample_class(dest: Path) -> bool:
    """Our marker, and nothing but student folders holding a strides.py."""
    if not (dest / MARKER).is_file():
        return False
    for entry in dest.iterdir():
        if entry.name == MARKER:
            continue
        if not entry.is_dir() or entry.is_symlink():
            return False
        if {p.name for p in entry.iterdir()} - {"strides.py", "__pycache__"}:
            return False
    return True


def build_sample_class(dest: Path) -> dict[str, str]:
    """(Re)create ``dest`` as the sample class; returns student id -> one-line description.

    ``dest`` must be missing, empty, or a sample class built earlier: any other folder is
    refused (ValueError) rather than deleted.
    """
    dest = Path(dest)
    if dest.is_symlink() or (dest.exists() and not dest.is_dir()):
        raise ValueError(f"{dest} is not a folder: choose a folder for the sample class")
    if dest.exists() and any(dest.iterdir()):
        if not _looks_like_sample_class(dest):
            raise ValueError(
                f"{dest} is not empty and is not a sample class built by torchlab: "
                "choose an empty or new folder"
            )
    students = sample_submissions()  # before deleting anything: a missing reference stops here
    if dest.exists():
        shutil.rmtree(dest)
    dest.mkdir(parents=True)
    (dest / MARKER).write_text("built by autograder.samples.build_sample_class; safe to delete\n")
    for student, (_, text) in students.items():
        (dest / student).mkdir()
        (dest / student / "strides.py").write_text(text)
    return {student: description for student, (description, _) in students.items()}
