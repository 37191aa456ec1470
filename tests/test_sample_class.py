"""`torchlab grade` with no submissions grades the bundled sample class, fairly.

The sample class (autograder/samples.py) holds the reference, the skeleton, a student halfway
through, a student with one bug and one student per hostile submission in samples/hostile/.
Its gradebook is pinned here: full marks, 0, exactly the points of the cases Tasks 1.1-1.6
complete, the reference minus the cases the bug breaks, and 0 for every hostile student.
"""

from __future__ import annotations

import csv
import subprocess
import sys
from pathlib import Path

import pytest

from autograder import isolation
from autograder.cases import load_week, task_key
from autograder.samples import MARKER, build_sample_class, sample_submissions

REPO = Path(__file__).resolve().parent.parent
HOSTILE = sorted(p.stem for p in (REPO / "samples" / "hostile").glob("*.py"))
# nbgrader's `nbgrader export` columns, in its order (nbgrader/plugins/export.py).
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
# The cases that catch di_buggy's bug (expand keeps the stride instead of 0): a regression
# list, observed once. A change here means the cases or the reference changed what they test.
DI_BUGGY_FAILS = {
    "a_0d_value_fills",
    "add_and_mul_in_place",
    "arithmetic_on_views",
    "arithmetic_result_layout",
    "broadcast_shapes_rule",
    "broadcasting_arithmetic",
    "clone_is_a_copy",
    "copy_with_broadcasting",
    "expand_adds_leading_dims",
    "expand_errors",
    "expand_strides",
    "expanded_tensor_views_and_copies",
    "hidden_random_programs_from_the_differential_generator",
    "hidden_view_rule_variants",
    "hidden_write_variants",
    "hidden_zero_size_and_size_one",
    "random_broadcast_arithmetic",
    "random_programs",
    "random_view_chains",
    "setitem_writes_through_views",
    "task_1_8_infer_expand_geometry",
    "view_adds_and_drops_size_one_dims",
    "writing_into_expanded_tensors",
    "zero_size_views",
}
LIMITS = ["--timeout", "2", "--student-timeout", "6", "--memory-mb", "1024", "--jobs", "2"]
if isolation.bubblewrap_problem():  # no sandbox on this machine: the guard alone, said aloud
    LIMITS.append("--unsafe-no-sandbox")


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    cwd = tmp_path_factory.mktemp("cwd")
    out = tmp_path_factory.mktemp("grades")
    run = subprocess.run(
        [sys.executable, "-m", "autograder.cli", "grade", "--out", str(out), *LIMITS],
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=300,
    )
    return run, out, cwd


def gradebook(out: Path) -> tuple[list[str], dict[str, dict[str, str]]]:
    with (out / "gradebook.csv").open() as f:
        reader = csv.DictReader(f)
        rows = {r["student_id"]: r for r in reader}
        return list(reader.fieldnames or []), rows


def test_grade_without_arguments_grades_the_sample_class(graded):
    run, out, cwd = graded
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    assert f"grading the bundled sample class ({out / 'sample-class'})" in run.stdout
    assert (out / "sample-class" / MARKER).is_file()
    # Everything goes under --out (a cold oracle cache lets hypothesis keep its own cache).
    assert {p.name for p in cwd.iterdir()} <= {".hypothesis"}
    students = sorted(sample_submissions())
    table = run.stdout.split("grading the bundled sample class", 1)[1].split("\ngraded ")[0]
    lines = table.strip().split("\n")[1:]
    assert lines[0].split()[0] == "student"
    assert [ln.split()[0] for ln in lines[1:]] == students, "one console line per student"


def test_sample_gradebook_is_fair(graded):
    run, out, _ = graded
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    columns, rows = gradebook(out)
    cases = load_week("week1", include_hidden=True)
    top = sum(c.points for c in cases)
    score = {s: int(r["score"]) for s, r in rows.items()}
    assert set(score) == set(sample_submissions())
    assert all(int(r["max_score"]) == top for r in rows.values())

    assert score["ada_reference"] == top
    assert score["bo_skeleton"] == 0
    done = {t for c in cases for t in c.tasks if task_key(t) <= task_key("1.6")}
    assert score["cy_halfway"] == sum(c.points for c in cases if set(c.tasks) <= done)

    failing = {c.name for c in cases if rows["di_buggy"][c.id] == "0"}
    assert failing == DI_BUGGY_FAILS
    assert 0 < score["di_buggy"] < top
    assert score["di_buggy"] == top - sum(c.points for c in cases if c.name in failing)

    unfair = {f"h_{h}": score[f"h_{h}"] for h in HOSTILE if score[f"h_{h}"] != 0}
    assert not unfair, f"hostile students earned points they did not: {unfair}"


def test_gradebook_columns(graded):
    run, out, _ = graded
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    columns, rows = gradebook(out)
    assert columns[: len(NBGRADER_COLUMNS)] == NBGRADER_COLUMNS
    case_columns = columns[len(NBGRADER_COLUMNS) :]
    ids = [c.id for c in load_week("week1", include_hidden=True)]
    assert sorted(case_columns) == sorted(ids), "one column per case"
    for row in rows.values():
        assert row["assignment"] == "week1" and row["raw_score"] == row["score"]
        earned = sum(int(row[c]) for c in case_columns)
        assert earned == int(row["score"])


def test_sample_class_is_rebuilt_but_a_foreign_folder_is_refused(tmp_path):
    dest = tmp_path / "sample"
    described = build_sample_class(dest)
    assert set(described) == set(sample_submissions())
    assert {"ada_reference", "bo_skeleton", "cy_halfway", "di_buggy"} <= set(described)
    assert {f"h_{h}" for h in HOSTILE} <= set(described)
    assert all(d and "\n" not in d for d in described.values())
    (dest / "di_buggy" / "strides.py").write_text("stale")
    build_sample_class(dest)  # a folder built earlier is rebuilt from the reference
    assert (dest / "di_buggy" / "strides.py").read_text() == sample_submissions()["di_buggy"][1]
    lab = (REPO / "labs" / "week1_strides" / "strides.py").read_text()
    assert (dest / "bo_skeleton" / "strides.py").read_text() == lab

    mine = tmp_path / "mine"
    (mine / "thesis").mkdir(parents=True)
    (mine / "thesis" / "chapter1.tex").write_text("precious")
    with pytest.raises(ValueError, match="not a sample class"):
        build_sample_class(mine)
    assert (mine / "thesis" / "chapter1.tex").read_text() == "precious"
    (dest / "ada_reference" / "notes.txt").write_text("mine now")  # no longer only ours
    with pytest.raises(ValueError, match="not a sample class"):
        build_sample_class(dest)
    assert (dest / "ada_reference" / "notes.txt").exists()
