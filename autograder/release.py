"""One source: the learner's skeletons are generated from the reference engines.

Every region between ``### BEGIN SOLUTION`` and ``### END SOLUTION`` becomes
``raise NotImplementedError("Tensor.view (Task 1.4)")``: the exercise, named so the report
can say "not implemented yet: Tensor.view (Task 1.4)". ``torchlab release --check`` fails when
the committed skeletons drift; ``torchlab release --out DIR`` writes the student copy.

The student copy speaks to students: its skeletons do not name the file they came from, and in
its Markdown files the lines from ``<!-- instructor -->`` to ``<!-- /instructor -->`` (each
marker on a line of its own) are left out, so one README serves both copies.
"""

from __future__ import annotations

import json
import re
import shutil
from collections.abc import Callable
from pathlib import Path

from autograder import i18n
from autograder.weeks import WEEKS, Week

REPO_ROOT = Path(__file__).resolve().parent.parent
BEGIN, END = "### BEGIN SOLUTION", "### END SOLUTION"
CPP_BEGIN, CPP_END = "// BEGIN SOLUTION", "// END SOLUTION"
INSTRUCTOR_BEGIN, INSTRUCTOR_END = "<!-- instructor -->", "<!-- /instructor -->"

# What a student copy leaves out: the answers, the hidden cases, the instructor's guide and
# the project's own tests (which use the reference).
INSTRUCTOR_ONLY = [
    "reference_impl",
    "autograder/hidden",
    "autograder/weeks/week4/recordings.py",  # replays the GPU's files on the reference (pinning)
    # a hidden case's program as the GPU recorded it (its answers; the case's inputs are hidden)
    "autograder/truth/week4_data/cuda/model_mlp_big_adam_varying_batch.json",
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


def _header(source_name: str | None) -> str:
    origin = f" from {source_name}" if source_name else ""
    return (
        f"# Generated{origin} by `torchlab release`: this is the file you edit.\n"
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
            if task is None:  # a method without a task of its own: its class docstring's
                task = _class_task(lines, j)
            break
        elif stripped and depth == 0:
            break
    name = ".".join(p for p in (cls, func) if p) or "this exercise"
    return (f"{name} (Task {task})" if task else name), task


def _class_task(lines: list[str], at: int) -> str | None:
    """The "Task N.M" of the class defined at line ``at``, from its docstring."""
    for line in lines[at + 1 : at + 12]:
        if re.match(r"\s*(async\s+)?def ", line):
            return None
        if m := re.search(r"Task (\d+\.\d+)", line):
            return m.group(1)
    return None


def make_skeleton(
    source: str,
    source_name: str,
    only_tasks: set[str] | None = None,
    *,
    name_source: bool = True,
) -> str:
    """The skeleton of a reference module: each solution region becomes a named raise.

    ``only_tasks`` blanks only the regions of those tasks and keeps the other solutions: the
    project's tests use it to measure which cases each task is needed by. ``name_source=False``
    leaves the source's name out of the header (the student copy has no such file). A C++
    source (``.cpp``, ``.h``) goes to ``make_cpp_skeleton``.
    """
    if Path(source_name).suffix in CPP_SUFFIXES:
        return make_cpp_skeleton(source, source_name, only_tasks, name_source=name_source)
    return _blank_regions(
        source,
        source_name,
        (BEGIN, END),
        _header(source_name if name_source else None),
        _exercise_name,
        lambda name: f'raise NotImplementedError("{name}")',
        only_tasks,
    )


def _blank_regions(
    source: str,
    source_name: str,
    markers: tuple[str, str],
    header: str,
    locate: Callable[[list[str], int, int], tuple[str, str | None]],
    stub: Callable[[str], str],
    only_tasks: set[str] | None,
) -> str:
    """``header`` and ``source``, each region between the ``markers`` replaced by ``stub(name)``
    at the region's indentation (``locate`` names the exercise and its task); only the regions
    of ``only_tasks`` when given. A region left open, closed twice or nested is an error."""
    begin, end = markers
    lines = source.splitlines(keepends=True)
    out = [header]
    i = 0
    while i < len(lines):
        stripped = lines[i].strip()
        if stripped == end:
            raise ReleaseError(f"{source_name}, line {i + 1}: {end} without {begin}")
        if stripped != begin:
            out.append(lines[i])
            i += 1
            continue
        indent = len(lines[i]) - len(lines[i].lstrip())
        name, task = locate(lines, i, indent)
        j = i + 1
        while j < len(lines) and lines[j].strip() != end:
            if lines[j].strip() == begin:
                raise ReleaseError(f"{source_name}, line {j + 1}: {begin} inside another region")
            j += 1
        if j == len(lines):
            raise ReleaseError(f"{source_name}, line {i + 1}: {begin} is never closed")
        if only_tasks is None or task in only_tasks:
            out.append(f"{' ' * indent}{stub(name)}\n")
        else:
            out.extend(lines[i + 1 : j])
        i = j + 1
    return "".join(out)


CPP_SUFFIXES = {".cpp", ".cc", ".h", ".hpp"}
_CPP_FUNCTION = re.compile(r"^\s*[\w:<>,&*\s]*?\b(\w+)\s*\(")
_CPP_NOT_FUNCTION = {"if", "for", "while", "switch", "return", "TORCH_CHECK", "sizeof"}


def _cpp_header(source_name: str | None) -> str:
    origin = f" from {source_name}" if source_name else ""
    return (
        f"// Generated{origin} by `torchlab release`: this is the file you edit.\n"
        "// Replace each `not_implemented(...)` with your code; the comment above the function\n"
        "// says what PyTorch does and where. Check your work with `torchlab check`.\n"
    )


def _cpp_exercise(lines: list[str], at: int, indent: int) -> tuple[str, str | None]:
    """The C++ exercise holding the region at line ``at`` ("LabdevAllocator::allocate (Task
    5.2)") and its task: the nearest "Task N.M" comment above it, the enclosing function and
    struct (found by indentation)."""
    func = cls = task = None
    func_indent = indent
    for j in range(at - 1, -1, -1):
        line = lines[j]
        stripped = line.strip()
        depth = len(line) - len(line.lstrip())
        if task is None and (m := re.search(r"Task (\d+\.\d+)", line)):
            task = m.group(1)
        if not stripped or stripped.startswith("//"):
            continue
        if func is None and depth < indent and (m := _CPP_FUNCTION.match(line)):
            if m.group(1) not in _CPP_NOT_FUNCTION:
                func, func_indent = m.group(1), depth
        elif func is not None and cls is None and (m := re.match(r"struct (\w+)", stripped)):
            if depth < func_indent:
                cls = m.group(1)
        if func is not None and task is not None and (cls is not None or depth == 0):
            if depth == 0 and not stripped.startswith("struct"):
                break
    name = "::".join(p for p in (cls, func) if p) or "this exercise"
    return (f"{name} (Task {task})" if task else name), task


def make_cpp_skeleton(
    source: str,
    source_name: str,
    only_tasks: set[str] | None = None,
    *,
    name_source: bool = True,
) -> str:
    """A C++ reference's skeleton: each region between ``// BEGIN SOLUTION`` and ``// END
    SOLUTION`` becomes ``not_implemented("LabdevAllocator::allocate (Task 5.2)");``. The
    source defines ``[[noreturn]] void not_implemented(const char*)`` (a C++ NotImplementedError
    in Python): the skeleton compiles, and each exercise fails with its name, never a crash."""
    return _blank_regions(
        source,
        source_name,
        (CPP_BEGIN, CPP_END),
        _cpp_header(source_name if name_source else None),
        _cpp_exercise,
        lambda name: f'not_implemented("{name}");',
        only_tasks,
    )


def week_sources(w: Week) -> list[str]:
    """The files of a week the learner edits: the module, then its C++ (if any)."""
    return [f"{w.module}.py", *w.native_sources]


def skeleton_pairs(root: Path = REPO_ROOT) -> list[tuple[Week, Path, Path]]:
    """(week, reference source, generated lab file) for every file of every week."""
    return [
        (w, root / "reference_impl" / name, w.lab_dir(root) / name)
        for w in WEEKS.values()
        for name in week_sources(w)
    ]


def generated_files(root: Path = REPO_ROOT, for_students: bool = False) -> dict[Path, str]:
    """Every generated file (relative path) and the text it must hold (``for_students``: as
    the student copy holds it, without the name of its source)."""
    out = {}
    for _, src, dest in skeleton_pairs(root):
        if not src.exists():
            raise ReleaseError(f"{src.relative_to(root)} is missing: releases need the reference")
        name = str(src.relative_to(root))
        text = make_skeleton(src.read_text(), name, name_source=not for_students)
        out[dest.relative_to(root)] = text
    # Each notebook in Chinese: the English notebook's code with curriculum/zh's prose.
    out.update(i18n.generated_notebooks())
    return out


def strip_instructor_blocks(text: str, name: str) -> str:
    """``text`` without its instructor-only blocks: the lines from ``<!-- instructor -->`` to
    ``<!-- /instructor -->``, markers included, and the blank line that removing one would
    leave doubled (or at the end of the file)."""
    out: list[str] = []
    start = None
    skip_blank = skip_end = False
    for i, line in enumerate(text.splitlines(keepends=True), 1):
        marker = line.strip()
        if marker not in (INSTRUCTOR_BEGIN, INSTRUCTOR_END) and (
            INSTRUCTOR_BEGIN in line or INSTRUCTOR_END in line
        ):
            raise ReleaseError(f"{name}, line {i}: an instructor marker must be alone on its line")
        if marker == INSTRUCTOR_BEGIN:
            if start is not None:
                raise ReleaseError(f"{name}, line {i}: {INSTRUCTOR_BEGIN} inside another block")
            start = i
        elif marker == INSTRUCTOR_END:
            if start is None:
                raise ReleaseError(f"{name}, line {i}: {INSTRUCTOR_END} without {INSTRUCTOR_BEGIN}")
            start, skip_blank, skip_end = None, True, True
        elif start is None:
            if not (skip_blank and not marker and (not out or not out[-1].strip())):
                out.append(line)
            skip_blank = False
            skip_end = skip_end and not marker
    if start is not None:
        raise ReleaseError(f"{name}, line {start}: {INSTRUCTOR_BEGIN} is never closed")
    while skip_end and out and not out[-1].strip():
        out.pop()  # a block at the end leaves the blank line before it
    return "".join(out)


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
    """Regenerate labs/ and cpp_labs/ from reference_impl/ (what an author runs after editing a
    reference)."""
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
    skeletons = generated_files(root, for_students=True)
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
    for path in out.rglob("*.md"):
        text = path.read_text()
        if INSTRUCTOR_BEGIN in text or INSTRUCTOR_END in text:
            path.write_text(strip_instructor_blocks(text, str(path.relative_to(out))))
    _drop_hidden_answers(out)
    return out


def _drop_hidden_answers(out: Path) -> None:
    """A pinned week's file in the student copy keeps the public cases' answers only: the
    hidden cases are not shipped, so neither are their answers."""
    from autograder.cases import load_week

    for w in WEEKS.values():
        path = out / "autograder" / "truth" / f"{w.name}_pinned.json"
        if w.truth != "pinned" or not path.exists():
            continue
        hidden = {c.id for c in load_week(w.name, include_hidden=True) if c.hidden}
        data = json.loads(path.read_text())
        data["cases"] = {k: v for k, v in data["cases"].items() if k not in hidden}
        path.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")
