"""One source: the learner's skeletons are generated from the reference engines.

Every region between ``### BEGIN SOLUTION`` and ``### END SOLUTION`` becomes
``raise NotImplementedError("Tensor.view (Task 1.4)")``: the exercise, named so the report
can say "not implemented yet: Tensor.view (Task 1.4)". ``torchlab release --check`` fails when
the committed skeletons drift; ``torchlab release --out DIR`` writes the student copy.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

from autograder.weeks import WEEKS, Week

REPO_ROOT = Path(__file__).resolve().parent.parent
BEGIN, END = "### BEGIN SOLUTION", "### END SOLUTION"

# What a student copy leaves out: the answers, the hidden cases, the instructor's guide and
# the project's own tests (which use the reference).
INSTRUCTOR_ONLY = [
    "reference_impl",
    "autograder/hidden",
    "curriculum/instructor",
    "tests",
    "samples",
    "docker/gradescope",
    "benchmarks",
    ".ci",
    ".git",
]
_IGNORED = {"__pycache__", ".pytest_cache", ".ruff_cache", ".ipynb_checkpoints", ".hypothesis"}


class ReleaseError(ValueError):
    pass


def _header(source_name: str) -> str:
    return (
        f"# Generated from {source_name} by `torchlab release`: this is the file you edit.\n"
        "# Replace each `raise NotImplementedError(...)` with your code; the docstring above it\n"
        "# says what PyTorch does and where. Check your work with `torchlab check`.\n"
        "# ruff: noqa: F401, F841\n"
    )


def _exercise_name(lines: list[str], at: int, indent: int) -> tuple[str, str | None]:
    """The exercise holding the region at line ``at`` ("Tensor.view (Task 1.4)") and its task."""
    func = cls = task = None
    func_indent = indent
    for j in range(at - 1, -1, -1):
        line = lines[j]
        stripped = line.lstrip()
        depth = len(line) - len(stripped)
        if func is None:
            if task is None and (m := re.search(r"Task (\d+\.\d+)", line)):
                task = m.group(1)
            if (m := re.match(r"(async\s+)?def (\w+)", stripped)) and depth < indent:
                func, func_indent = m.group(2), depth
        elif (m := re.match(r"class (\w+)", stripped)) and depth < func_indent:
            cls = m.group(1)
            break
        elif stripped and depth == 0:
            break
    name = ".".join(p for p in (cls, func) if p) or "this exercise"
    return (f"{name} (Task {task})" if task else name), task


def make_skeleton(source: str, source_name: str, only_tasks: set[str] | None = None) -> str:
    """The skeleton of a reference module: each solution region becomes a named raise.

    ``only_tasks`` blanks only the regions of those tasks and keeps the other solutions: the
    project's tests use it to measure which cases each task is needed by.
    """
    lines = source.splitlines(keepends=True)
    out = [_header(source_name)]
    i = 0
    while i < len(lines):
        stripped = lines[i].strip()
        if stripped == END:
            raise ReleaseError(f"{source_name}, line {i + 1}: {END} without {BEGIN}")
        if stripped != BEGIN:
            out.append(lines[i])
            i += 1
            continue
        indent = len(lines[i]) - len(lines[i].lstrip())
        name, task = _exercise_name(lines, i, indent)
        j = i + 1
        while j < len(lines) and lines[j].strip() != END:
            if lines[j].strip() == BEGIN:
                raise ReleaseError(f"{source_name}, line {j + 1}: {BEGIN} inside another region")
            j += 1
        if j == len(lines):
            raise ReleaseError(f"{source_name}, line {i + 1}: {BEGIN} is never closed")
        if only_tasks is None or task in only_tasks:
            out.append(f'{" " * indent}raise NotImplementedError("{name}")\n')
        else:
            out.extend(lines[i + 1 : j])
        i = j + 1
    return "".join(out)


def skeleton_pairs(root: Path = REPO_ROOT) -> list[tuple[Week, Path, Path]]:
    """(week, reference source, generated lab file) for every week."""
    return [
        (
            w,
            root / "reference_impl" / f"{w.module}.py",
            root / "labs" / w.folder / f"{w.module}.py",
        )
        for w in WEEKS.values()
    ]


def generated_files(root: Path = REPO_ROOT) -> dict[Path, str]:
    """Every generated file (relative path) and the text it must hold."""
    out = {}
    for _, src, dest in skeleton_pairs(root):
        if not src.exists():
            raise ReleaseError(f"{src.relative_to(root)} is missing: releases need the reference")
        name = str(src.relative_to(root))
        out[dest.relative_to(root)] = make_skeleton(src.read_text(), name)
    return out


def check(root: Path = REPO_ROOT) -> list[str]:
    """The generated files that differ from what the reference generates (empty: all good)."""
    drifted = []
    for rel, text in generated_files(root).items():
        path = root / rel
        if not path.exists():
            drifted.append(f"{rel} is missing")
        elif path.read_text() != text:
            drifted.append(f"{rel} differs from what the reference generates")
    return drifted


def write_skeletons(root: Path = REPO_ROOT) -> list[Path]:
    """Regenerate labs/ from reference_impl/ (what an author runs after editing a reference)."""
    written = []
    for rel, text in generated_files(root).items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if not path.exists() or path.read_text() != text:
            path.write_text(text)
            written.append(rel)
    return written


def write_student_copy(out: Path, root: Path = REPO_ROOT) -> Path:
    """A copy of the course for students: skeletons, notebooks, curriculum, public cases."""
    out = out.resolve()
    if out.exists() and any(out.iterdir()):
        raise ReleaseError(f"{out} is not empty: choose a new folder for the release")
    skeletons = generated_files(root)
    excluded = {(root / p).resolve() for p in INSTRUCTOR_ONLY} | {out}

    def ignore(folder: str, names: list[str]) -> set[str]:
        return {
            n
            for n in names
            if n in _IGNORED or n.endswith(".egg-info") or (Path(folder) / n).resolve() in excluded
        }

    shutil.copytree(root, out, ignore=ignore, dirs_exist_ok=True)
    for rel, text in skeletons.items():
        (out / rel).write_text(text)
    return out
