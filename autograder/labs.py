"""Where a learner's files are: the lab a check runs, a student's submission, the course's copies.

A week's lab lives in ``labs/<folder>/`` (the Python labs) or ``cpp_labs/<folder>/`` (the C++
track: see ``Week.track``). A check or a grade finds the learner's module in one of these
layouts, first match wins:

- the file itself at the top of the folder given (a notebook's lab folder, a student's folder);
- ``<track>/<folder>/`` in a whole copy of the course;
- ``labs/<folder>/`` in a copy released before the C++ labs moved to ``cpp_labs/``.

Nothing here starts a process or reads a file's contents: see ``workers.py`` for that.
"""

from __future__ import annotations

from pathlib import Path

from autograder.weeks import Week

REPO_ROOT = Path(__file__).resolve().parent.parent


def layouts(week: Week) -> list[tuple[str, ...]]:
    """The folders, relative to a submission or a course copy, where ``week``'s module may be."""
    out = [(), (week.track, week.folder), ("labs", week.folder)]
    return list(dict.fromkeys(out))  # a Python lab's two course layouts are the same folder


def resolve_impl(week: Week, impl: str) -> Path:
    """Which file to test: "lab" (the learner's skeleton), "reference", or a folder/file path.

    A submission folder may hold the lab file itself or a whole copy of the course.
    """
    filename = f"{week.module}.py"
    if impl == "lab":
        return find_lab(week)
    if impl == "reference":
        return REPO_ROOT / "reference_impl" / filename
    path = Path(impl).expanduser().resolve()
    if path.is_dir():
        for parts in layouts(week):
            candidate = path.joinpath(*parts, filename)
            if candidate.exists():
                return candidate
        return path / filename
    return path


def find_lab(week: Week, start: Path | None = None) -> Path:
    """The lab file the learner is working in: the current folder's own ``strides.py`` (a
    notebook runs in its lab folder), else ``<track>/<folder>/`` in the current folder or the
    nearest one above it (a course copy). Never the copy beside wherever torchlab was
    installed: that may be somebody else's work."""
    filename = f"{week.module}.py"
    here = (start or Path.cwd()).resolve()
    for folder in (here, *here.parents):
        for parts in layouts(week):
            if parts == () and folder != here:
                continue  # a strides.py above the lab folder is not this lab's
            candidate = folder.joinpath(*parts, filename)
            if candidate.exists():
                return candidate
    return week.lab_dir(here) / filename  # reported as "cannot find", with the path


def submission_folder(student_dir: Path, week: Week) -> tuple[Path | None, str | None]:
    """Where a student's lab file is (their folder, or the lab's folder in a copy of the
    course), and a reason to reject the submission. A link anywhere on the way would make
    the grader read someone else's files (the reference, another student) as theirs."""
    filename = f"{week.module}.py"
    if student_dir.is_symlink():
        return None, f"{student_dir.name} is a symbolic link: submit the files themselves"
    for folders in layouts(week):
        parts = (*folders, filename)
        path = student_dir
        for i, part in enumerate(parts):
            path = path / part
            if path.is_symlink():
                shown = "/".join(parts[: i + 1])
                return None, f"{shown} is a symbolic link: submit the files themselves"
            if not path.exists():
                break
        else:
            if not path.is_file():
                return None, f"{'/'.join(parts)} is not a file"
            return path.parent, None
    return None, None


def course_file(week: Week, name: str) -> Path:
    """The course's own copy of one of the lab's files (the released skeleton)."""
    return week.lab_dir(REPO_ROOT) / name


def given_file(week: Week, name: str) -> Path:
    """The course's own copy of a file the learner is given: the released lab's, else the
    reference's (the same code: a given file has no solution region)."""
    lab = course_file(week, name)
    return lab if lab.is_file() else REPO_ROOT / "reference_impl" / name


def engine_files(week: Week, path: Path, library: Path | None = None) -> dict[str, Path]:
    """The engine and the helper modules beside it, and a native week's built library: what
    the sandbox's /work starts with. The week's given files are the course's copies."""
    files = {path.name: path}
    if library is not None:
        files[library.name] = library
    for p in path.parent.glob("*.py"):
        if p.is_file() and not p.is_symlink():
            files.setdefault(p.name, p)
    for name in week.given:
        files[name] = given_file(week, name)
    return files
