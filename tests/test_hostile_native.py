"""Hostile C++: a native lab's submissions are built and loaded behind the sandbox too.

Each hostile student of week 5 is the reference (``privateuse1.py`` and ``labdev.cpp``) with one
injection into its C++: a static initializer that runs at load time, a kernel that writes far
outside its buffer, a kernel that throws, a build that never ends, an ``#include`` of a file
outside the submission, a compile error. They are graded as one class beside the reference by
``grade_class``, the way an instructor grades: each must fail where its injection bites, with
the reason in its report, and change nothing of the reference's grade or of the machine.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any

import pytest

from autograder import grading, isolation, native, zygote
from autograder.report import PASS
from autograder.runner import run_week
from autograder.weeks import WEEKS
from autograder.workers import Limits

REPO = Path(__file__).resolve().parent.parent
REFERENCE = REPO / "reference_impl"
LEAK = Path("/tmp/torchlab-native-leak")  # where an escaped initializer would write
UNSAFE = isolation.bubblewrap_problem() is not None
LIMITS = Limits(case_seconds=10.0, import_seconds=20.0, run_seconds=60.0, build_seconds=25.0)
SECRET = "grader-stdin-secret-7c1f"  # on the grader's stdin while the class is graded
# Kernel settings an initializer tries to write. It writes back what it read, so the host is
# unchanged even where the write gets through; then it aborts, and the test sees the abort.
SETTINGS = [
    "/proc/sys/kernel/core_pattern",
    "/proc/sys/vm/swappiness",
    "/proc/sys/vm/overcommit_memory",
    "/sys/kernel/mm/transparent_hugepage/enabled",
]
_SYSCTL = "\n".join(
    [
        "#include <fcntl.h>",
        "#include <unistd.h>",
        "namespace {",
        "struct Settings {",
        "  Settings() {",
        "    const char* paths[] = {" + ", ".join(f'"{p}"' for p in SETTINGS) + "};",
        "    for (const char* p : paths) {",
        "      char old[4096] = {0};",
        "      ssize_t n = 0;",
        "      int r = ::open(p, O_RDONLY);",
        "      if (r >= 0) { n = ::read(r, old, sizeof old - 1); ::close(r); }",
        "      int w = ::open(p, O_WRONLY);",
        "      if (w >= 0) { bool wrote = n > 0 && ::write(w, old, n) == n; ::close(w);",
        "                    if (wrote) std::abort(); }",
        "    }",
        '    if (::open("/proc/sysrq-trigger", O_WRONLY) >= 0) std::abort();  // never written',
        "  }",
        "} settings;",
        "struct RegisterHooks {",
    ]
)

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
    "write_kernel_settings": (
        "a static initializer that writes /proc/sys (core_pattern, vm.*) and /sys",
        "namespace {\nstruct RegisterHooks {",
        _SYSCTL,
    ),
    "include_grader_stdin": (
        "an #include of the grader's stdin, and an initializer that reads it at load time",
        "#include <ATen/EmptyTensor.h>\n",
        '#include <ATen/EmptyTensor.h>\n#include "/proc/1/fd/0"\n#include <fstream>\n'
        "namespace { struct Stdin { Stdin() {\n"
        '  std::ifstream in("/proc/1/fd/0"); std::string s;\n'
        '  if (std::getline(in, s) && !s.empty()) throw std::runtime_error("read: " + s);\n'
        "} } read_stdin; }\n",
    ),
    "huge_library": (
        "96 MiB of initialized data in the library (a file far larger than the worker's folder)",
        "namespace {\nstruct RegisterHooks {",
        "volatile char torchlab_ballast[96 << 20] = {1};\nnamespace {\nstruct RegisterHooks {",
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
    settings = {p: Path(p).read_bytes() for p in SETTINGS if Path(p).exists()}
    read, write = os.pipe()
    os.write(write, f"{SECRET}\n".encode())
    os.close(write)
    saved_stdin = os.dup(0)
    os.dup2(read, 0)  # whatever reads the grader's stdin (a build, a worker) finds the secret
    os.close(read)
    try:
        reports = grading.grade_class(
            submissions, out, [WEEKS["week5"]], limits=LIMITS, unsafe_no_sandbox=UNSAFE
        )
    finally:
        os.dup2(saved_stdin, 0)
        os.close(saved_stdin)
    changed = [p for p, v in settings.items() if Path(p).read_bytes() != v]
    assert not changed, f"the host's settings changed: {changed}"
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


@pytest.mark.skipif(UNSAFE, reason="without bubblewrap the library runs as the grader's user")
def test_kernel_settings_cannot_be_written_from_a_static_initializer(graded):
    """As root the sandbox's user would be root outside; the worker runs as uid 65534 outside
    (or behind a read-only /proc/sys): the initializer's writes fail and it never aborts."""
    assert _passed(graded["h_write_kernel_settings"]) == _passed(graded["ada_reference"])


@pytest.mark.skipif(
    UNSAFE or os.geteuid() != 0, reason="the grader's fallback when root cannot drop its uid"
)
def test_a_root_grader_that_stays_root_outside_still_keeps_proc_sys(graded, tmp_path, monkeypatch):
    """Where a root grader cannot make its view (a container without CAP_SYS_ADMIN), the
    worker's uid is 0 outside; a read-only /proc/sys is what stands, and the report says so."""
    folder = tmp_path / "h_write_kernel_settings"
    folder.mkdir()
    shutil.copy(REFERENCE / "privateuse1.py", folder)
    _, old, new = HOSTILE["write_kernel_settings"]
    (folder / "labdev.cpp").write_text((REFERENCE / "labdev.cpp").read_text().replace(old, new))
    monkeypatch.setattr(isolation, "root_mode", lambda: "root")
    zygote.POOL.close()  # no server started as uid 65534: this one must stay root outside
    try:
        report = run_week(
            WEEKS["week5"], str(folder / "privateuse1.py"), ["task_5_4_empty"], LIMITS
        )
    finally:
        zygote.POOL.close()
    assert "workers stay root outside" in report.isolation, report.isolation
    assert report.results and {r.status for r in report.results} == {PASS}, report.results


def test_nothing_reads_the_graders_stdin(graded):
    """Builds and workers get /dev/null: `#include "/proc/1/fd/0"` and an initializer that
    reads it find nothing, and the secret on the grader's stdin is in no report."""
    for student, report in graded.items():
        assert SECRET not in str(report), student
    assert _passed(graded["h_include_grader_stdin"]) == _passed(graded["ada_reference"])


def test_a_library_too_large_for_the_worker_is_refused_in_words(graded):
    """The library is handed to the worker as a file (never inside a message), into its own
    64 MB folder: 96 MiB does not fit, and the report says so."""
    report = graded["h_huge_library"]
    assert report["score"] == 0
    assert "do not fit in the worker's 64 MB folder" in " ".join(report["problems"])


def test_a_build_that_floods_its_output_costs_the_grader_a_fixed_amount():
    """The build's output is read in a loop with a cap: 64 MiB written, 256 KiB kept."""
    import subprocess
    import sys
    import time

    flood = "import sys\nfor _ in range(1024): sys.stdout.write('x' * 65535 + '\\n')\n"
    proc = subprocess.Popen([sys.executable, "-c", flood], stdout=subprocess.PIPE)
    assert proc.stdout is not None
    kept, timed_out = native.read_bounded(proc.stdout.fileno(), time.monotonic() + 60)
    proc.wait()
    assert not timed_out and len(kept) <= native.MAX_OUTPUT_BYTES + 100
    assert b"bytes of output left out" in kept
