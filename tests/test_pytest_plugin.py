"""`pytest labs/week1_strides` and `pytest cpp_labs/week2c_cpp_ops`: one pytest test per case,
the judge's words in pytest's report."""

import subprocess
import sys

from autograder.cases import load_week


def pytest_lab(*args, lab="labs/week1_strides"):
    return subprocess.run(
        [sys.executable, "-m", "pytest", lab, "-p", "no:cacheprovider", *args],
        capture_output=True,
        text=True,
    )


def test_reference_passes_one_test_per_case():
    run = pytest_lab("--impl", "reference")
    assert run.returncode == 0, run.stdout[-2000:]
    assert f"{len(load_week('week1'))} passed" in run.stdout


def test_skeleton_fails_each_case_with_the_exercise_name():
    run = pytest_lab("-k", "transpose_then_view")
    assert run.returncode == 1
    assert "not implemented yet:" in run.stdout and "(Task 1." in run.stdout
    assert "1 failed" in run.stdout


def test_a_cpp_lab_runs_from_cpp_labs():
    """The C++ track's lab folder, run as a learner runs it from the course folder: the
    skeleton's C++ builds, and each case names the C++ exercise it is waiting for."""
    first = load_week("week2c")[0].name
    run = pytest_lab("-k", first, lab="cpp_labs/week2c_cpp_ops")
    assert run.returncode == 1, run.stdout[-2000:]
    assert "1 failed" in run.stdout and "(Task 2.9)" in run.stdout, run.stdout[-2000:]
