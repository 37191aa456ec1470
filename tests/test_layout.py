"""The course's layout: the design card's top-level folders, the C++ track under cpp_labs/, the
layouts a submission may use, and a week that is resolved once, at a front door."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from autograder.labs import REPO_ROOT, find_lab, resolve_impl, submission_folder
from autograder.weeks import WEEKS

TOP_LEVEL = (
    "pyproject.toml",
    "curriculum",
    "labs",
    "autograder",
    "reference_impl",
    "cpp_labs",
    "docker",
    "README.md",
)


def test_the_design_cards_top_level_entries_exist():
    missing = [name for name in TOP_LEVEL if not (REPO_ROOT / name).exists()]
    assert not missing, f"the course promises these top-level entries: {missing}"
    assert (REPO_ROOT / "cpp_labs" / "README.md").is_file()


@pytest.mark.parametrize("week", WEEKS.values(), ids=list(WEEKS))
def test_each_lab_lives_on_its_track(week):
    """A lab whose learner edits C++ is under cpp_labs/, every other under labs/."""
    expected = "cpp_labs" if week.native_sources else "labs"
    assert week.track == expected
    assert (week.lab_dir(REPO_ROOT) / f"{week.module}.py").is_file()
    other = "labs" if expected == "cpp_labs" else "cpp_labs"
    assert not (REPO_ROOT / other / week.folder).exists(), f"{week.name} is in {other}/ too"


def test_no_learner_cpp_remains_under_labs():
    stray = sorted(p.relative_to(REPO_ROOT) for p in (REPO_ROOT / "labs").rglob("*.cpp"))
    assert not stray, f"C++ the learner edits belongs in cpp_labs/: {stray}"


LAYOUTS = {
    "top": lambda w: (),  # the files at the top of a student folder
    "course": lambda w: (w.track, w.folder),  # a whole copy of the course
    "old-course": lambda w: ("labs", w.folder),  # a copy from before cpp_labs/ existed
}


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("week", WEEKS.values(), ids=list(WEEKS))
def test_a_submission_is_found_in_every_layout(week, layout, tmp_path):
    lab = tmp_path.joinpath(*LAYOUTS[layout](week))
    lab.mkdir(parents=True, exist_ok=True)
    for name in (f"{week.module}.py", *week.native_sources):
        (lab / name).write_text("# the learner's\n")
    assert resolve_impl(week, str(tmp_path)) == lab / f"{week.module}.py"
    assert submission_folder(tmp_path, week) == (lab, None)
    start = lab if layout == "top" else tmp_path
    assert find_lab(week, start) == lab / f"{week.module}.py"


def test_a_missing_lab_is_reported_where_the_course_keeps_it(tmp_path):
    week = WEEKS["week5"]
    assert find_lab(week, tmp_path) == tmp_path / "cpp_labs" / week.folder / "privateuse1.py"


# Where a week's name may become a Week: the places a person or a file names one (the CLI, the
# pytest plugin, a notebook's helpers and nbgrader's test cells, a lab module loading its C++,
# and the command-line mains). Below them, the Week object travels.
FRONT_DOORS = {
    "autograder/cli.py": {"_weeks", "cmd_check"},
    "autograder/pytest_plugin.py": {"torchlab_week"},
    "autograder/nbgrader_cell.py": {"week_report"},
    "autograder/notebook/__init__.py": {"check", "mine"},
    "autograder/notebook/joined.py": {"other_week"},
    "autograder/differential/__init__.py": {"main"},
    "autograder/check_server.py": {"serve"},
    "autograder/native.py": {"library_path"},
    "autograder/pinning.py": {"main"},
    "autograder/mutation.py": {"main"},
    "autograder/authoring.py": {"<module>"},
    "benchmarks/bench_native.py": {"main"},
}


def _get_week_calls(path: Path) -> list[tuple[str, int]]:
    """(the outermost function around it, or "<module>"; line) of each ``get_week(`` call."""
    found = []

    def visit(node: ast.AST, outer: str) -> None:
        for child in ast.iter_child_nodes(node):
            name = outer
            if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef) and outer == "<module>":
                name = child.name
            if isinstance(child, ast.Call):
                f = child.func
                called = f.id if isinstance(f, ast.Name) else getattr(f, "attr", "")
                if called == "get_week":
                    found.append((name, child.lineno))
            visit(child, name)

    visit(ast.parse(path.read_text()), "<module>")
    return found


def test_get_week_is_called_only_at_the_front_doors():
    files = sorted((REPO_ROOT / "autograder").rglob("*.py"))
    files += sorted((REPO_ROOT / "benchmarks").glob("*.py"))
    wrong = []
    for path in files:
        rel = path.relative_to(REPO_ROOT).as_posix()
        for where, line in _get_week_calls(path):
            if where not in FRONT_DOORS.get(rel, set()):
                wrong.append(f"{rel}:{line} in {where}")
    assert not wrong, (
        "get_week(name) below the front doors (take the Week the caller resolved): "
        + ", ".join(wrong)
    )


def test_the_front_door_check_sees_a_call(tmp_path):
    """The scan is not blind: it finds a call inside a method and one at module level."""
    probe = tmp_path / "probe.py"
    probe.write_text(
        "from autograder.weeks import get_week\n"
        "class A:\n    def f(self):\n        return get_week('1')\n"
        "W = get_week('2')\n"
    )
    assert _get_week_calls(probe) == [("f", 4), ("<module>", 5)]
