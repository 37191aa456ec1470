"""A C++ build tells the learner what it is doing and why it failed: a line while it runs, the
compiler's first error with the notes that explain it, and the whole output on request."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from autograder import native

REPO = Path(__file__).resolve().parent.parent

AMBIGUOUS = """\
namespace at { struct Tensor {}; Tensor add(const Tensor&, const Tensor&); }
namespace mine { at::Tensor add(const at::Tensor&, const at::Tensor&); }
using namespace mine;
at::Tensor f(const at::Tensor& a, const at::Tensor& b) { return add(a, b); }
"""


@pytest.mark.skipif(shutil.which("g++") is None, reason="g++ is not installed")
def test_an_ambiguous_call_shows_its_candidates(tmp_path):
    """A skeleton that names its functions as aten does makes an unqualified call ambiguous
    (ADL); the first line alone does not say why, the candidates do."""
    (tmp_path / "labdev.cpp").write_text(AMBIGUOUS)
    run = subprocess.run(
        ["g++", "-c", "labdev.cpp"], cwd=tmp_path, capture_output=True, text=True, check=False
    )
    message = native.first_error(run.stderr, ["labdev.cpp"])
    first, *notes, hint = message.splitlines()
    assert first.startswith("labdev.cpp, line 4: error: call of overloaded")
    assert "ambiguous" in first
    assert len(notes) == 2 and all(": note: candidate:" in n for n in notes), message
    assert "mine::add" in message and "at::add" in message
    # and what to do about it (issue 26: a hint at the first such error)
    assert "argument-dependent lookup" in hint and "mine::add(...)" in hint, hint


def test_notes_stop_at_the_next_error():
    output = (
        "x.cpp:1:1: error: first\nx.cpp:2:1: note: about the first\n"
        "x.cpp:3:1: error: second\nx.cpp:4:1: note: about the second\n"
    )
    assert native.first_error(output, ["x.cpp"]).splitlines() == [
        "x.cpp, line 1: error: first",
        "  x.cpp, line 2: note: about the first",
    ]


def test_a_check_says_a_build_runs_and_can_print_its_log(tmp_path):
    """``torchlab check`` on C++ the cache has not seen: a line on stderr while it builds,
    then ``--build-log`` prints the compiler's output."""
    lab = tmp_path / "cpp_ops"
    shutil.copytree(REPO / "cpp_labs" / "week2c_cpp_ops", lab)
    source = lab / "cpp_ops.cpp"
    source.write_text(source.read_text() + f"\n// a learner's note {tmp_path.name}\n")  # new key
    run = subprocess.run(
        [sys.executable, "-m", "autograder.cli", "check", "week2c", "--impl", str(lab)]
        + ["-k", "2.9", "--build-log"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env={**os.environ},
    )
    assert "building cpp_ops.cpp (about 10 s the first time)..." in run.stderr, run.stderr
    assert "the build ended after" in run.stderr
    assert "the compiler's output for cpp_ops.cpp:" in run.stdout, run.stdout[-2000:]


def test_a_build_starts_the_compiler_without_torch():
    """Every C++ week's build runs cpp_extension's compile and link commands directly (found
    once and cached): a build that went through cpp_extension again would import torch first,
    1.3 s of each of the ~200 builds of the mutation score."""
    from autograder.weeks import WEEKS

    for week in (w for w in WEEKS.values() if w.native_sources):
        commands = native.build_commands(week.native_library)
        assert commands is not None, week.name
        assert commands["cflags"].count(native.EXTRA_FLAGS) == 1
        assert set(native.cflags(week.native_library)) <= set(commands["cflags"])
        assert f"-DTORCH_EXTENSION_NAME={week.native_library}" in commands["cflags"]
        assert "-shared" in commands["ldflags"]
