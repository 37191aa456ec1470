"""Hostile C++: a native lab's submissions are built and loaded behind the sandbox too.

Each hostile student of week 5 is the reference (``privateuse1.py`` and ``labdev.cpp``) with one
injection into its C++: a static initializer that runs at load time, a kernel that writes far
outside its buffer, a kernel that throws, a build that never ends, an ``#include`` of a file
outside the submission, a compile error. They are graded as one class beside the reference by
``grade_class``, the way an instructor grades: each must fail where its injection bites, with
the reason in its report, and change nothing of the reference's grade or of the machine.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

from autograder import grading, isolation
from autograder.report import PASS
from autograder.runner import Limits

REPO = Path(__file__).resolve().parent.parent
REFERENCE = REPO / "reference_impl"
LEAK = Path("/tmp/torchlab-native-leak")  # where an escaped initializer would write
UNSAFE = isolation.bubblewrap_problem() is not None
LIMITS = Limits(case_seconds=10.0, import_seconds=20.0, run_seconds=60.0, build_seconds=25.0)

# name -> (what the student does, the reference text it replaces, its replacement)
HOSTILE: dict[str, tuple[str, str, str]] = {
    "static_init_escape": (
        "a static initializer that, at load time, reads the reference and writes outside",
        "namespace {\nstruct RegisterHooks {",
        "namespace {\n"
        "struct Escape {\n"
        "  Escape() {\n"
        f'    FILE* in = std::fopen("{REFERENCE / "labdev.cpp"}", "r");\n'
        f'    FILE* out = std::fopen("{LEAK}", "w");\n'
        '    if (out) { std::fputs(in ? "read the reference" : "wrote", out); std::fclose(out); }\n'
        "  }\n"
        "} escape;\n"
        "struct RegisterHooks {",
    ),
    "static_init_abort": (
        "a static initializer that aborts the process as the library loads",
        "namespace {\nstruct RegisterHooks {",
        "namespace {\nstruct Abort { Abort() { std::abort(); } } abort_now;\n"
        "struct RegisterHooks {",
    ),
    "kernel_overflow": (
        "an add kernel that writes 64 MiB past the end of its result",
        "  at::add_out(host_out, vendor::host(self), vendor::host(other), alpha);",
        "  at::add_out(host_out, vendor::host(self), vendor::host(other), alpha);\n"
        "  std::memset(static_cast<char*>(out.data_ptr()) + (1 << 20), 0x7f, 64 << 20);",
    ),
    "kernel_throws": (
        "a mul kernel that throws a C++ exception",
        "  at::mul_out(host_out, vendor::host(self), vendor::host(other));",
        '  throw std::runtime_error("labdev mul: the chip is on fire");',
    ),
    "endless_build": (
        "a build that never ends (the preprocessor reads /dev/zero)",
        "#include <ATen/EmptyTensor.h>\n",
        '#include <ATen/EmptyTensor.h>\n#include "/dev/zero"\n',
    ),
    "include_outside": (
        "an #include of the reference's own C++, outside the submission",
        "#include <ATen/EmptyTensor.h>\n",
        f'#include <ATen/EmptyTensor.h>\n#include "{REFERENCE / "labdev.cpp"}"\n',
    ),
    "compile_error": (
        "a missing semicolon",
        "    return kDeviceCount;  // what",
        "    return kDeviceCount  // what",
    ),
}


@pytest.fixture(scope="module")
def graded(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, Any]]:
    """The hostile class beside the reference, graded once: student -> report."""
    if LEAK.exists():
        LEAK.unlink()
    root = tmp_path_factory.mktemp("native-class")
    submissions, out = root / "submissions", root / "out"
    source = (REFERENCE / "labdev.cpp").read_text()
    for student in ["ada_reference", *(f"h_{name}" for name in HOSTILE)]:
        folder = submissions / student
        folder.mkdir(parents=True)
        shutil.copy(REFERENCE / "privateuse1.py", folder)
        text = source
        if student != "ada_reference":
            _, old, new = HOSTILE[student.removeprefix("h_")]
            assert source.count(old) == 1, f"{student}: the reference changed; update its text"
            text = source.replace(old, new)
        (folder / "labdev.cpp").write_text(text)
    reports = grading.grade_class(
        submissions, out, ["week5"], limits=LIMITS, unsafe_no_sandbox=UNSAFE
    )
    return {student: report for (student, _), report in reports.items()}


def _everything(report: dict[str, Any]) -> str:
    texts = list(report["problems"])
    texts += [f"{r['message']} {r.get('output', '')}" for r in report["results"]]
    return " ".join(texts)


def _passed(report: dict[str, Any]) -> set[str]:
    return {r["name"] for r in report["results"] if r["status"] == PASS}


def test_the_reference_keeps_full_marks(graded):
    report = graded["ada_reference"]
    assert report["score"] == report["max_score"] and not report["problems"]


@pytest.mark.skipif(UNSAFE, reason="without bubblewrap the library runs as the grader's user")
def test_a_static_initializer_finds_nothing_to_read_or_write(graded):
    assert not LEAK.exists(), f"the initializer wrote {LEAK}: {LEAK.read_text()!r}"
    # Inside, it found neither the reference nor a place outside to write: nothing changed.
    assert _passed(graded["h_static_init_escape"]) == _passed(graded["ada_reference"])


def test_a_library_that_aborts_at_load_fails_every_case_that_loads_it(graded):
    report = graded["h_static_init_abort"]
    failed = [r for r in report["results"] if r["status"] != PASS]
    assert {"task_5_3_device_module", "task_5_4_empty", "task_5_8_mlp_trains_on_the_device"} <= {
        r["name"] for r in failed
    }
    for r in failed:  # each says the process died and how; the shape functions still pass
        assert "killed by SIGABRT" in r["message"] or "died" in r["message"], r
    assert "task_5_9_matmul_shape" in _passed(report)


def test_a_kernel_that_writes_outside_its_buffer_fails_only_its_cases(graded):
    report = graded["h_kernel_overflow"]
    failed = {r["name"] for r in report["results"] if r["status"] != PASS}
    assert "task_5_7_add_and_mul" in failed
    assert "task_5_9_matmul_shape" not in failed  # cases that never call add still pass
    assert "segmentation fault" in _everything(report) or "crashed" in _everything(report)


def test_a_cpp_exception_is_a_python_error_with_its_message(graded):
    report = graded["h_kernel_throws"]
    [mul] = [r for r in report["results"] if r["name"] == "task_5_7_add_and_mul"]
    assert mul["status"] != PASS and "the chip is on fire" in mul["message"]
    assert "task_5_7_sum" in _passed(report)  # the runner went on


def test_a_build_that_never_ends_is_stopped(graded):
    report = graded["h_endless_build"]
    assert report["score"] == 0
    problems = " ".join(report["problems"])  # whichever limit stops it first says so
    stopped = (f"took longer than {LIMITS.build_seconds:g} s", "ran out of memory and was stopped")
    assert "did not build" in problems and any(s in problems for s in stopped), problems


@pytest.mark.skipif(UNSAFE, reason="without bubblewrap the compiler sees the whole machine")
def test_an_include_from_outside_the_submission_finds_nothing(graded):
    problems = " ".join(graded["h_include_outside"]["problems"])
    assert "did not build" in problems and "No such file or directory" in problems


def test_a_compile_error_names_file_line_and_message(graded):
    problems = " ".join(graded["h_compile_error"]["problems"])
    assert "labdev.cpp did not build: labdev.cpp, line" in problems
    assert "expected" in problems  # g++: expected ';' before '}' token
