"""The fork server (zygote.py) that grades torch-using weeks: one run cannot reach the next.

A week whose learner module uses torch (week 2b) is graded in children of a server that
imported torch once. These tests grade hostile submissions one after another through the same
server and check from inside the next run that nothing of the first is left: files, SysV IPC,
the server's memory and descriptors. The probes print what they found; a case's captured
output comes back in its result.
"""

from __future__ import annotations

import dataclasses
import errno
import json
import os
import textwrap

import pytest

from autograder import isolation, weeks, zygote
from autograder.runner import run_week
from autograder.weeks import WEEKS

pytestmark = pytest.mark.skipif(
    isolation.bubblewrap_problem() is not None, reason=str(isolation.bubblewrap_problem())
)

CASE = "task_2_5_linear_values"


@pytest.fixture
def native_week2b(monkeypatch):
    """Week 2b with ctypes allowed past the guard: the kernel, not the audit hook, must hold
    (a real attacker gets native code past a hook; torch can load a library)."""
    week = dataclasses.replace(weeks.WEEKS["week2b"], native=True)
    monkeypatch.setitem(weeks.WEEKS, "week2b", week)
    return week


def _grade(tmp_path, name: str, body: str) -> str:
    """Grade a submission whose make_linear runs ``body`` (which prints JSON); the output."""
    folder = tmp_path / name
    folder.mkdir()
    code = "import json, os, ctypes\n\ndef make_linear(q):\n" + textwrap.indent(body, "    ")
    code += "\n    raise RuntimeError('probe done')\n"
    (folder / "real_dispatch.py").write_text(code)
    report = run_week(WEEKS["week2b"], str(folder / "real_dispatch.py"), [CASE])
    assert report.isolation.startswith(isolation.BUBBLEWRAP)
    (result,) = [r for r in report.results if r.name == CASE]
    assert "probe done" in result.message, result.message
    return result.output


def _found(output: str) -> dict:
    lines = [line for line in output.splitlines() if line.startswith("{")]
    assert lines, output
    return json.loads(lines[-1])


# Through the C library: the audit hook would refuse these in Python, and the point is what
# the kernel and the server do once code has got past it.
LEAVE_TRACES = """
libc = ctypes.CDLL(None, use_errno=True)
for path in (b"/tmp/from_a", b"/dev/shm/from_a", b"/home/student/from_a"):
    libc.close(libc.open(path, 0o101, 0o644))  # O_CREAT | O_WRONLY
libc.mkdir(b"/home/student/locked", 0o700)
libc.close(libc.open(b"/home/student/locked/x", 0o101, 0o644))
libc.chmod(b"/home/student/locked", 0)
shm = libc.shmget(0x70726f62, 4096, 0o1666)  # IPC_CREAT | 0666
print(json.dumps({"shmget": shm, "errno": ctypes.get_errno()}))
"""

LEFT = ["/tmp/from_a", "/dev/shm/from_a", "/home/student/from_a", "/home/student/locked"]
LOOK_AROUND = f"""
libc = ctypes.CDLL(None, use_errno=True)
seen = {{}}
for path in {LEFT!r}:
    fd = libc.open(path.encode(), 0)
    seen[path] = "there" if fd >= 0 else os.strerror(ctypes.get_errno())
seen["shmget"] = libc.shmget(0x70726f62, 0, 0)
print(json.dumps(seen))
"""


def test_a_run_leaves_nothing_for_the_next(tmp_path, native_week2b):
    first = _found(_grade(tmp_path, "a", LEAVE_TRACES))
    assert first["shmget"] == -1 and first["errno"] == 1, first  # EPERM: SysV IPC refused
    second = _found(_grade(tmp_path, "b", LOOK_AROUND))
    assert all(second[path] == os.strerror(errno.ENOENT) for path in LEFT), second
    assert second["shmget"] == -1, second


def test_the_server_cannot_be_read_traced_or_written(tmp_path, native_week2b):
    probe = """
libc = ctypes.CDLL(None, use_errno=True)
found = {}
for what, flags in (("mem", 2), ("environ", 0), ("maps", 0), ("fd/0", 0)):  # O_RDWR, O_RDONLY
    fd = libc.open(f"/proc/{os.getppid()}/{what}".encode(), flags)
    found[what] = "opened" if fd >= 0 else os.strerror(ctypes.get_errno())
found["ptrace"] = libc.ptrace(16, os.getppid(), 0, 0)  # PTRACE_ATTACH
found["fork"] = libc.fork()
found["open_fds"] = [fd for fd in range(3, 64) if libc.fcntl(fd, 1) != -1]  # F_GETFD
print(json.dumps(found))
"""
    found = _found(_grade(tmp_path, "a", probe))
    for what in ("mem", "environ", "maps", "fd/0"):
        assert found[what] == os.strerror(errno.EACCES), found
    assert found["ptrace"] == -1 and found["fork"] == -1, found
    assert found["open_fds"] == [3], found  # the result pipe; nothing of the server's


def test_a_run_that_kills_the_server_fails_alone(tmp_path):
    folder = tmp_path / "killer"
    folder.mkdir()
    (folder / "real_dispatch.py").write_text(
        "import os, signal\n\ndef make_linear(q):\n    os.kill(os.getppid(), signal.SIGKILL)\n"
    )
    report = run_week(WEEKS["week2b"], str(folder / "real_dispatch.py"), [CASE])
    (result,) = report.results
    assert result.status in ("crash", "error", "fail"), result
    after = run_week(WEEKS["week2b"], "reference", [CASE])
    assert [r.status for r in after.results] == ["pass"]


def test_the_pool_reuses_a_server_across_runs():
    run_week(WEEKS["week2b"], "reference", [CASE])
    servers = [z for zs in zygote.POOL.idle.values() for z in zs]
    assert servers and all(z.alive for z in servers)
    before = {id(z) for z in servers}
    run_week(WEEKS["week2b"], "reference", [CASE])
    after = {id(z) for zs in zygote.POOL.idle.values() for z in zs}
    assert before & after, "the second run should have used an idle server"
