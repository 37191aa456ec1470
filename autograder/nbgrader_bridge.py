"""``torchlab nbgrader export COURSE_DIR``: the course as an nbgrader course.

It writes ``COURSE_DIR/nbgrader_config.py`` and one nbgrader *source* notebook per week,
``COURSE_DIR/source/week1/week1.ipynb``, on which the real nbgrader commands work:
``nbgrader generate_assignment week1``, ``autograde``, ``generate_feedback``, ``export``.

Each notebook has
  * a locked introduction;
  * ONE autograded answer cell: ``%%writefile strides.py`` followed by the whole reference
    engine. Its ``### BEGIN SOLUTION`` / ``### END SOLUTION`` regions are the ones torchlab's
    own skeletons are made from; ``generate_assignment`` replaces each with
    ``ClearSolutions.code_stub`` at the region's indentation, so the released cell is still a
    module that imports (``tests/test_nbgrader.py`` checks it);
  * one test cell per public case, worth the case's points, that calls
    ``autograder.nbgrader_cell.grade_case``; nbgrader scores a cell all or nothing, and so
    does torchlab score a case;
  * one test cell per hidden case, its call between ``### BEGIN HIDDEN TESTS`` and
    ``### END HIDDEN TESTS``: ``generate_assignment`` removes it from the student's copy (the
    cell keeps only a comment) and ``autograde`` puts it back from the gradebook.

Why ``%%writefile``: the learner's code is written to a file and never executed in the
nbgrader kernel; it runs only in torchlab's worker process, and torch's answers come from the
grader's own oracle. So code in the answer cell cannot do the same-kernel cheats of the
grading notes (an IPython input transformer that turns later test cells into ``pass``,
monkeypatching the checker, ``set_custom_exc``), and what it prints or warns while the cases
run never reaches a test cell's output (nbgrader scores a test cell with any stderr as zero;
``nbgrader_cell`` keeps torch's own warnings out too). The generated config also
keeps the notebook's folder off the kernel's ``sys.path``, so a file or folder submitted next
to the notebook (``autograder/nbgrader_cell.py``) cannot stand in for the real checker.
Code a student adds to the notebook still runs in nbgrader's kernel (nbgrader has no
sandbox), so the test cells' kernel outputs are not trusted: the exported config puts
``nbgrader_verdicts.TorchlabVerdicts`` right after ``Execute``, and it rewrites every test
cell's outputs from torchlab's own grading of the answer cell, in nbgrader's process. The
input-transformer cheat of the notes scores zero (tests/test_nbgrader.py).
"""

from __future__ import annotations

from pathlib import Path

import nbformat
from nbformat.notebooknode import NotebookNode

from autograder.cases import load_week, task_key
from autograder.labs import REPO_ROOT
from autograder.release import make_skeleton
from autograder.weeks import Week

CONFIG_MARKER = "# Written by `torchlab nbgrader export`"
# What each solution region becomes in the student's copy (the report then says
# "not implemented yet: your code here").
CODE_STUB = '# YOUR CODE HERE\nraise NotImplementedError("your code here")'

CONFIG = f"""{CONFIG_MARKER}: regenerate it with that command.
# nbgrader reads this file from the course folder (run nbgrader commands there).
c = get_config()  # noqa: F821

c.CourseDirectory.course_id = "torchlab"
# The database is nbgrader's default: gradebook.db in this folder.

# Per cell. The first test cell runs every case of the week (a second or two once torch's
# answers are cached, more on a cold cache); the others read its report.
c.Execute.timeout = 120
# IPython adds the notebook's folder to sys.path; leave it out, so a submitted
# autograder/ folder cannot replace torchlab's checker in the test cells.
c.Execute.extra_arguments = ["--InteractiveShellApp.ignore_cwd=True"]

# torchlab decides every test cell, in nbgrader's own process, right after the notebook ran:
# code a student adds to the notebook cannot make a failing test cell look passed.
# nbgrader's own chain, with torchlab's verdicts right after Execute.
from autograder.nbgrader_verdicts import autograde_chain  # noqa: E402

c.Autograde.autograde_preprocessors = autograde_chain()

# Each solution region of the answer cell becomes this, indented like the region.
c.ClearSolutions.code_stub = {{
    "python": {CODE_STUB!r},
}}
"""


def _meta(
    grade_id: str,
    *,
    grade: bool = False,
    solution: bool = False,
    locked: bool = True,
    points: int = 0,
) -> dict:
    return {
        "nbgrader": {
            "grade_id": grade_id,
            "grade": grade,
            "solution": solution,
            "locked": locked,
            "points": points,
            "schema_version": 3,
            "task": False,
        }
    }


def _intro(week: Week, public_points: int, hidden: int) -> str:
    hidden_note = (
        f"\n\n{hidden} more test cells are hidden: they are empty in your copy and run only "
        "when the course grades your notebook."
        if hidden
        else ""
    )
    return (
        f"# torchlab {week.name}: {week.title}\n\n"
        f"Write your engine in the answer cell below. Its first line, `%%writefile "
        f"{week.module}.py`, saves the cell to `{week.module}.py` next to this notebook: keep "
        "that line, and run the cell after each change. Your code runs only in torchlab's "
        "checker, never in this notebook's kernel.\n\n"
        "Replace each `raise NotImplementedError(...)` with your code; the docstring above it "
        "says what PyTorch does and where. Read "
        f"`curriculum/{week.folder}.md` first.\n\n"
        "Each test cell below is one case, compared with what real PyTorch does on the same "
        f"input; a cell earns its points only when the whole case passes ({public_points} "
        f"points in the visible cells). A failing cell says what differs from torch."
        f"{hidden_note}"
    )


def _test_source(week: str, name: str) -> str:
    return f'from autograder.nbgrader_cell import grade_case\n\ngrade_case("{week}", "{name}")'


def _native_cells(week: Week) -> list[NotebookNode]:
    """A native week's C++, one plain cell per file: ``%%writefile labdev.cpp`` and the
    skeleton torchlab generates. Not an nbgrader solution cell: nbgrader's stub is one per
    notebook language (Python), and would make the C++ invalid. The cell is unlocked and not
    graded, so autograde keeps what the student wrote, and the test cells build it."""
    cells = []
    for name in week.native_sources:
        source = REPO_ROOT / "reference_impl" / name
        skeleton = make_skeleton(source.read_text(), name, name_source=False)
        cells.append(
            nbformat.v4.new_markdown_cell(
                f"The C++ half: the cell below saves `{name}` next to this notebook. Replace "
                "each `not_implemented(...)` with your code and run the cell; the checks build "
                "it (the first build takes about 15 s, an unchanged file is not built again)."
            )
        )
        cells.append(nbformat.v4.new_code_cell(f"%%writefile {name}\n" + skeleton.rstrip("\n")))
    return cells


def source_notebook(week: Week) -> NotebookNode:
    """The nbgrader source notebook of one week (answers and hidden tests included)."""
    reference = REPO_ROOT / "reference_impl" / f"{week.module}.py"
    if not reference.exists():
        raise ValueError(
            f"{reference} is missing: an nbgrader course is made from the reference engines, "
            "which a student copy does not have"
        )
    cases = load_week(week.name, include_hidden=True)
    public = [c for c in cases if not c.hidden]
    hidden = [c for c in cases if c.hidden]

    v4 = nbformat.v4
    intro = _intro(week, sum(c.points for c in public), len(hidden))
    cells = [v4.new_markdown_cell(intro, metadata=_meta("intro"))]
    answer = f"%%writefile {week.module}.py\n" + reference.read_text().rstrip("\n")
    cells.append(
        v4.new_code_cell(
            answer, metadata=_meta(f"{week.module}_answer", solution=True, locked=False)
        )
    )
    cells += _native_cells(week)
    for c in public:
        task = f" (task {max(c.tasks, key=task_key)})" if c.tasks else ""
        header = f"# {c.name}{task}: {c.points} point{'s' if c.points != 1 else ''}\n"
        cells.append(
            v4.new_code_cell(
                header + _test_source(week.name, c.name),
                metadata=_meta(f"test_{c.name}", grade=True, points=c.points),
            )
        )
    # Hidden cases: one cell each, so that each keeps its own points (a cell is all or
    # nothing). The student's copy keeps only the comment; the call comes back at autograde.
    for i, c in enumerate(hidden, 1):
        source = (
            f"# Hidden test {i}: {c.points} point{'s' if c.points != 1 else ''}, run only when "
            "the course grades your notebook.\n"
            "### BEGIN HIDDEN TESTS\n" + _test_source(week.name, c.name) + "\n### END HIDDEN TESTS"
        )
        cells.append(
            v4.new_code_cell(source, metadata=_meta(f"hidden_{i}", grade=True, points=c.points))
        )

    nb = v4.new_notebook(cells=cells)
    nb.metadata["kernelspec"] = {
        "name": "python3",
        "display_name": "Python 3 (ipykernel)",
        "language": "python",
    }
    nb.metadata["language_info"] = {"name": "python"}
    nbformat.validate(nb)
    return nb


def export_course(course_dir: Path, weeks: list[Week]) -> Path:
    """Write ``nbgrader_config.py`` and ``source/<week>/<week>.ipynb`` for each week; return
    the course folder. A config that torchlab did not write is never overwritten."""
    course_dir = Path(course_dir).expanduser().resolve()
    config = course_dir / "nbgrader_config.py"
    if config.exists() and not config.read_text().startswith(CONFIG_MARKER):
        raise ValueError(
            f"{config} exists and was not written by torchlab: move it away, or merge "
            "torchlab's settings into it by hand"
        )
    notebooks = {w.name: source_notebook(w) for w in weeks or []}
    if not notebooks:
        raise ValueError("no weeks to export")
    course_dir.mkdir(parents=True, exist_ok=True)
    config.write_text(CONFIG)
    for name, nb in notebooks.items():
        folder = course_dir / "source" / name
        folder.mkdir(parents=True, exist_ok=True)
        nbformat.write(nb, folder / f"{name}.ipynb")
    return course_dir
