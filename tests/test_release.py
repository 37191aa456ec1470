"""One source: the skeletons are generated from the reference, and the student copy is clean."""

import subprocess
import sys

import pytest

from autograder import release

REFERENCE = '''\
class Tensor:
    def view(self, *shape):
        """Task 1.4: a view with a new shape."""
        ### BEGIN SOLUTION
        return compute(shape)
        ### END SOLUTION


def contiguous_strides(shape):
    """Task 1.1: row-major strides."""
    x = 1
    ### BEGIN SOLUTION
    return x
    ### END SOLUTION
'''


def test_regions_become_named_raises():
    out = release.make_skeleton(REFERENCE, "reference_impl/demo.py")
    assert 'raise NotImplementedError("Tensor.view (Task 1.4)")' in out
    assert 'raise NotImplementedError("contiguous_strides (Task 1.1)")' in out
    assert "compute(shape)" not in out and "return x" not in out
    assert "Generated from reference_impl/demo.py" in out
    compile(out, "demo.py", "exec")


@pytest.mark.parametrize(
    "broken, words",
    [
        ("### BEGIN SOLUTION\nx = 1\n", "never closed"),
        ("x = 1\n### END SOLUTION\n", "without"),
        ("### BEGIN SOLUTION\n### BEGIN SOLUTION\n### END SOLUTION\n", "inside another"),
    ],
)
def test_broken_markers_are_reported_with_a_line(broken, words):
    with pytest.raises(release.ReleaseError, match=words):
        release.make_skeleton(broken, "x.py")


def test_committed_skeletons_match_the_reference():
    assert release.check() == []


def test_every_skeleton_imports_without_the_reference(tmp_path):
    for week, _, lab in release.skeleton_pairs():
        code = f"import runpy; runpy.run_path({str(lab)!r})"
        assert subprocess.run([sys.executable, "-c", code]).returncode == 0, week.name


def test_student_copy_has_no_answers(tmp_path):
    out = release.write_student_copy(tmp_path / "student")
    files = {p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file()}
    assert "labs/week1_strides/strides.py" in files
    assert "labs/week1_strides/week1.ipynb" in files
    assert "curriculum/week1_strides.md" in files
    assert "autograder/weeks/week1/__init__.py" in files
    for secret in ("reference_impl/", "autograder/hidden/", "curriculum/instructor/", "tests/"):
        assert not any(f.startswith(secret) for f in files), secret
    assert not any(".git/" in f or "__pycache__" in f for f in files)
    with pytest.raises(release.ReleaseError, match="not empty"):
        release.write_student_copy(out)


def test_student_copy_checks_its_own_skeleton(tmp_path):
    out = release.write_student_copy(tmp_path / "student")
    run = subprocess.run(
        [sys.executable, "-m", "autograder.cli", "check", "week1", "-k", "1.4"],
        cwd=out,
        env={"PYTHONPATH": str(out), "PATH": "/usr/bin:/bin", "HOME": str(tmp_path)},
        capture_output=True,
        text=True,
    )
    assert run.returncode == 1, run.stderr
    assert "not implemented yet" in run.stdout
    assert str(out) in run.stdout or "labs/week1_strides/strides.py" in run.stdout
