"""Hostile students on a warm fork server: one run must not reach the next, nor the host.

The weeks whose learner code imports torch are graded in children of one warm server
(zygote.py). Each test here grades an attacker and then, on the SAME server (the pool hands
the idle server back), a probe that looks for what the attacker left and/or an honest student
(a copy of the reference), and checks that the honest student's results are exactly the
reference's full marks and that nothing of the host changed.

The attackers get native code past the in-process audit hook the way a real one would (ctypes,
allowed here for week 2b as in test_fork_server.py, or a C++ static initializer in week 5): the
kernel and the sandbox, not the hook, must hold. Attacks that are not contained today are kept
as strict xfails, with what they do in their reason.
"""

from __future__ import annotations

import dataclasses
import json
import os
import shutil
import signal
import textwrap
import time
from pathlib import Path

import pytest

from autograder import grading, isolation, weeks, zygote
from autograder.runner import Limits, run_week

pytestmark = pytest.mark.skipif(
    isolation.bubblewrap_problem() is not None, reason=str(isolation.bubblewrap_problem())
)

REPO = Path(__file__).resolve().parent.parent
REFERENCE = REPO / "reference_impl"
CASE = "task_2_5_linear_values"
HOST_LEAK = Path("/tmp/torchlab-warm-leak")  # where an escaped write to the host would land

# Helpers every probe starts with: system calls through the C library (the audit hook never
# sees them), and one JSON line on stdout (the case's captured output, at most 2000 chars).
PRELUDE = r"""
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
libc.pread.argtypes = [ctypes.c_int, ctypes.c_void_p, ctypes.c_size_t, ctypes.c_longlong]
libc.pwrite.argtypes = [ctypes.c_int, ctypes.c_void_p, ctypes.c_size_t, ctypes.c_longlong]

def err():
    return os.strerror(ctypes.get_errno())

def opens(path, flags, mode=0o644):
    fd = libc.open(path.encode(), flags, mode)
    if fd >= 0:
        libc.close(fd)
        return "opened"
    return err()

def readf(path, n=1 << 16):
    fd = libc.open(path.encode(), 0)
    if fd < 0:
        return None
    buf = ctypes.create_string_buffer(n)
    got = libc.read(fd, buf, n)
    libc.close(fd)
    return buf.raw[: max(got, 0)].decode(errors="replace")

def create(path, data=b"x"):
    fd = libc.open(path.encode(), 0o1101, 0o644)  # O_WRONLY | O_CREAT | O_TRUNC
    if fd < 0:
        return err()
    libc.write(fd, data, len(data))
    libc.close(fd)
    return "created"

def listdir(path):
    fd = libc.open(path.encode(), 0o200000)  # O_DIRECTORY
    if fd < 0:
        return None
    names, buf = [], ctypes.create_string_buffer(1 << 16)
    while (n := libc.syscall(217, fd, buf, 1 << 16)) > 0:  # getdents64
        raw, off = buf.raw, 0
        while off < n:
            reclen = int.from_bytes(raw[off + 16 : off + 18], "little")
            name = raw[off + 19 : off + reclen].split(b"\0")[0].decode(errors="replace")
            if name not in (".", ".."):
                names.append(name)
            off += reclen
    libc.close(fd)
    return sorted(names)

found = {}
"""


@pytest.fixture(autouse=True)
def fresh_pool():
    """Each test starts its own server and leaves none behind: an attacked server must never
    grade another test's students."""
    zygote.POOL.close()
    yield
    zygote.POOL.close()


@pytest.fixture
def native_week2b(monkeypatch):
    """Week 2b with ctypes let past the guard: the kernel, not the audit hook, must hold."""
    week = dataclasses.replace(weeks.WEEKS["week2b"], native=True)
    monkeypatch.setitem(weeks.WEEKS, "week2b", week)
    return week


def _servers() -> set[int]:
    return {z.proc.pid for zs in zygote.POOL.idle.values() for z in zs if z.alive}


def _pid_namespace(pid: int) -> str | None:
    try:
        return os.readlink(f"/proc/{pid}/ns/pid")
    except OSError:
        return None


def _children(pid: int) -> list[int]:
    out = []
    for entry in os.scandir("/proc"):
        if entry.name.isdigit():
            try:
                stat = Path(f"/proc/{entry.name}/stat").read_text()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                out.append(int(entry.name))
    return out


def _in_namespaces(namespaces: set[str]) -> set[int]:
    """Host processes inside any of these pid namespaces (a sandbox's, seen from outside)."""
    return {
        int(e.name)
        for e in os.scandir("/proc")
        if e.name.isdigit() and _pid_namespace(int(e.name)) in namespaces
    }


def _host_state() -> dict[str, object]:
    """What an escaped submission could change on the host, cheap to compare."""
    return {
        "tmp": sorted(p for p in os.listdir("/tmp") if "torchlab" in p or "leak" in p),
        "dev_shm": sorted(os.listdir("/dev/shm")) if os.path.isdir("/dev/shm") else [],
        "leak": HOST_LEAK.exists(),
        "course": sorted(str(p) for p in (REPO / "autograder").rglob("*planted*")),
    }


def _running(pids: set[int]) -> dict[int, str]:
    """The pids that are not zombies, with their state and command line."""
    out = {}
    for pid in pids:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
            cmd = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ")[:80]
        except OSError:
            continue
        if state != "Z":
            out[pid] = f"{state} {cmd.decode(errors='replace')}"
    return out


@pytest.fixture
def host(monkeypatch):
    """The host before the test; after it (servers closed), nothing may differ, and nothing
    of the test's sandboxes may be left running (their pid namespaces are recorded as each
    server starts: other graders may share this machine)."""
    if HOST_LEAK.exists():
        HOST_LEAK.unlink()
    zygote.POOL.close()
    namespaces: set[str] = set()
    started = zygote.Zygote.wait_started

    def record(self: zygote.Zygote) -> None:
        started(self)
        for pid in _children(self.proc.pid):  # bwrap's init: pid 1 of the sandbox
            if (ns := _pid_namespace(pid)) is not None:
                namespaces.add(ns)

    monkeypatch.setattr(zygote.Zygote, "wait_started", record)
    before = _host_state()
    yield before
    zygote.POOL.close()
    deadline = time.monotonic() + 10  # the kernel tears a sandbox down after its init dies
    while (left := _running(_in_namespaces(namespaces))) and time.monotonic() < deadline:
        time.sleep(0.1)
    for pid in left:  # started by this test's sandboxes: stop them, then fail
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    assert namespaces, "no server was recorded"
    assert not left, f"processes of this test's sandboxes outlived their server: {left}"
    assert _host_state() == before


def _probe(tmp_path: Path, name: str, body: str) -> dict:
    """Grade a week-2b submission whose make_linear runs ``body`` once (it fills ``found``);
    what it found, from the case's captured output."""
    folder = tmp_path / name
    folder.mkdir()
    code = "import json, os, ctypes\n\n_RAN = []\n\ndef make_linear(q):\n"
    code += "    if not _RAN:\n        _RAN.append(1)\n"
    code += textwrap.indent(PRELUDE + body + "\nprint(json.dumps(found))\n", "        ")
    code += "    raise RuntimeError('probe done')\n"
    (folder / "real_dispatch.py").write_text(code)
    report = run_week("week2b", str(folder / "real_dispatch.py"), [CASE])
    assert report.isolation.startswith(isolation.BUBBLEWRAP)
    (result,) = [r for r in report.results if r.name == CASE]
    if "probe done" not in result.message:
        raise RuntimeError(f"the probe did not run: {result.message} {report.problems}")
    lines = [line for line in result.output.splitlines() if line.startswith("{")]
    if not lines:
        raise RuntimeError(f"the probe printed nothing: {result.output!r}")
    return json.loads(lines[-1])


def _honest(tmp_path: Path, name: str = "honest") -> list[tuple[str, str, str]]:
    """Grade a copy of the reference (outside reference_impl: the same server as a student)."""
    folder = tmp_path / name
    folder.mkdir()
    shutil.copy(REFERENCE / "real_dispatch.py", folder)
    report = run_week("week2b", str(folder / "real_dispatch.py"), [CASE])
    return [(r.name, r.status, r.message) for r in report.results] + [
        ("problems", str(report.problems), "")
    ]


FULL_MARKS = [(CASE, "pass", ""), ("problems", "[]", "")]


# ---- contained: these hold today -----------------------------------------------------------


def test_the_host_is_out_of_reach(tmp_path, native_week2b, host):
    """Kernel settings, the host's folders behind the read-only binds, every sys.path entry (a
    module planted under a name torch or the stdlib imports lazily), mounts, the grader's
    stdin: nothing is writable or readable that should not be."""
    attack = r"""
import sys
for path in ("/proc/sys/kernel/core_pattern", "/proc/sys/vm/swappiness",
             "/proc/sys/kernel/hostname", "/proc/sys/fs/suid_dumpable", "/proc/sysrq-trigger",
             "/proc/1/root/proc/sys/kernel/core_pattern", "/sys/kernel/mm/transparent_hugepage/enabled",
             "/sys/fs/cgroup/cgroup.procs", "/proc/self/uid_map", "/proc/self/setgroups"):
    found[path] = opens(path, 1)  # O_WRONLY, closed at once: never written
planted = {}
targets = [p for p in sys.path if p and not p.startswith("/home/student")]
targets += [os.path.dirname(os.__file__), "/usr/lib/python3/dist-packages", "/usr/local/lib",
            "/etc", "/", "/work/main", "/work/main/autograder/__pycache__",
            os.path.join(os.path.dirname(os.__file__), "site-packages", "torch"),
            "/root", "/var/tmp", "/run"]
for folder in targets:
    for name in ("sitecustomize.py", "usercustomize.py", "typing_extensions.py",
                 "planted_by_a.py"):
        planted[os.path.join(folder, name)] = create(os.path.join(folder, name))
found["planted"] = sorted(p for p, how in planted.items() if how == "created")
found["mkdir"] = {p: libc.mkdir(p.encode(), 0o777) for p in ("/planted", "/work/planted")}
found["leak"] = create("/tmp/torchlab-warm-leak")  # the child's own /tmp: gone after it
found["mount"] = (libc.mount(b"none", b"/", None, 0x20 | 0x1000, None), err())  # MS_REMOUNT
found["umount"] = (libc.umount2(b"/home/student", 2), err())
found["chmod_dev_shm"] = libc.chmod(b"/dev/shm", 0o777)
stdin = ctypes.create_string_buffer(64)
found["stdin"] = [libc.read(0, stdin, 64), libc.read(libc.open(b"/proc/1/fd/0", 0), stdin, 64)]
found["server_stdin"] = opens(f"/proc/{os.getppid()}/fd/0", 0)
found["setns"] = libc.syscall(308, libc.open(b"/proc/1/ns/mnt", 0), 0)
"""
    found = _probe(tmp_path, "a", attack)
    for path in (
        "/proc/sys/kernel/core_pattern",
        "/proc/sys/vm/swappiness",
        "/proc/sys/kernel/hostname",
        "/proc/sys/fs/suid_dumpable",
        "/proc/1/root/proc/sys/kernel/core_pattern",
    ):
        assert found[path] in ("Permission denied", "Read-only file system"), (path, found)
    for path in ("/proc/sysrq-trigger", "/sys/kernel/mm/transparent_hugepage/enabled"):
        assert found[path] != "opened", (path, found)
    assert found["planted"] == [], found
    assert all(code == -1 for code in found["mkdir"].values()), found
    assert found["mount"][0] == -1 and found["umount"][0] == -1, found
    assert found["stdin"] == [0, 0], found  # /dev/null, never the grader's terminal or pipe
    assert found["server_stdin"] == "Permission denied" and found["setns"] == -1, found
    assert _honest(tmp_path) == FULL_MARKS


def test_kernel_objects_die_with_the_run(tmp_path, native_week2b, host):
    """An abstract unix socket, a thread still sleeping, a pty, a pending timer, a locked
    memfd: all belong to the child and go with it; the next child finds none."""
    attack = r"""
import socket, threading, time
sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
sock.bind("\0torchlab-warm-note")
sock.listen(1)
_keep = [sock]
def sleeper():
    while True:
        time.sleep(0.05)
threading.Thread(target=sleeper, daemon=True).start()
pty = libc.open(b"/dev/ptmx", 2)
found["pty"] = pty
found["memfd"] = libc.syscall(319, b"torchlab-note", 0)
found["alarm"] = libc.alarm(30)
found["threads"] = readf("/proc/self/status").count("\n")
"""
    first = _probe(tmp_path, "a", attack)
    assert first["memfd"] >= 0, first
    look = r"""
import socket
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
try:
    s.connect("\0torchlab-warm-note")
    found["socket"] = "connected"
except OSError as exc:
    found["socket"] = exc.strerror
found["pids"] = sorted(int(p) for p in listdir("/proc") if p.isdigit())
found["me"] = os.getpid()
found["pts"] = listdir("/dev/pts")
found["threads"] = listdir("/proc/self/task")
"""
    second = _probe(tmp_path, "b", look)
    assert second["socket"] == "Connection refused", second
    assert second["pids"] == [1, 2, second["me"]], second  # bwrap's init, the server, itself
    assert second["pts"] in (["ptmx"], []), second
    assert _honest(tmp_path) == FULL_MARKS


def test_a_stopped_server_is_replaced(tmp_path, native_week2b, host):
    """SIGSTOP to the server (same uid, so the kernel allows it): the grader must not hand the
    frozen server to the next student."""
    attack = r"""
import signal
found["stop"] = libc.kill(os.getppid(), signal.SIGSTOP)
"""
    folder = tmp_path / "stopper"
    folder.mkdir()
    code = "import ctypes, os\n\ndef make_linear(q):\n"
    code += textwrap.indent(PRELUDE + attack, "    ") + "    raise RuntimeError('stopped')\n"
    (folder / "real_dispatch.py").write_text(code)
    report = run_week("week2b", str(folder / "real_dispatch.py"), [CASE])
    assert [r.status for r in report.results] != ["pass"]
    assert _honest(tmp_path) == FULL_MARKS


# ---- escapes: not contained today ------------------------------------------------------------


@pytest.mark.xfail(
    strict=True,
    raises=AssertionError,
    reason="prlimit64 is not in the seccomp filter and the child has the server's uid: "
    "prlimit(getppid(), RLIMIT_NOFILE, 200) lowers the warm server's hard limit; every later "
    "child fails zygote._set_rlimits (cannot raise a hard limit) and exits 70, so every "
    "later student on that server scores zero ('the worker stopped while importing')",
)
def test_lowering_the_servers_limits_reaches_no_later_student(tmp_path, native_week2b, host):
    attack = r"""
class RL(ctypes.Structure):
    _fields_ = [("cur", ctypes.c_uint64), ("max", ctypes.c_uint64)]
libc.prlimit.argtypes = [ctypes.c_int, ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p]
low = RL(200, 200)
found["nofile"] = libc.prlimit(os.getppid(), 7, ctypes.byref(low), None)  # RLIMIT_NOFILE
found["stack"] = libc.prlimit(os.getppid(), 3, ctypes.byref(RL(1 << 20, 1 << 20)), None)
"""
    found = _probe(tmp_path, "a", attack)
    server = _servers()
    assert _honest(tmp_path) == FULL_MARKS, (found, server, _servers())


@pytest.mark.xfail(
    strict=True,
    raises=AssertionError,
    reason="the child's fresh tmpfs cover only /home/student, /tmp, /dev/shm: /dev is the "
    "server's rw tmpfs (bwrap's --remount-ro / is not recursive), with no size limit (half "
    "the host's RAM), and /proc/1/root reaches the server's own rw /tmp, /home/student and "
    "/dev/shm; a file written there by one student is read by the next",
)
def test_files_do_not_outlive_the_run(tmp_path, native_week2b, host):
    places = [
        "/dev/torchlab-note",
        "/proc/1/root/tmp/torchlab-note",
        "/proc/1/root/home/student/torchlab-note",
        "/proc/1/root/dev/shm/torchlab-note",
        "/proc/1/cwd/torchlab-note-cwd",
    ]
    attack = f"""
for path in {places!r}:
    found[path] = create(path, b"left by a")
# more than the whole per-child budget of 144 MB, in the server's /dev: host memory pinned
chunk = b"\\0" * (1 << 20)
fd = libc.open(b"/dev/torchlab-ballast", 0o1101, 0o644)
found["ballast_mb"] = sum(libc.write(fd, chunk, len(chunk)) == len(chunk) for _ in range(160))
libc.close(fd)
"""
    first = _probe(tmp_path, "a", attack)
    look = f"""
for path in {places + ["/dev/torchlab-ballast"]!r}:
    found[path] = (readf(path, 64) or "")[:9]
"""
    second = _probe(tmp_path, "b", look)
    assert _honest(tmp_path) == FULL_MARKS
    assert not any(second.values()), (first, second)


@pytest.mark.xfail(
    strict=True,
    raises=AssertionError,
    reason="bwrap's init (pid 1 of the server's sandbox) is dumpable, has the same uid, no "
    "capabilities and no seccomp filter, and there is no Yama: every child may open "
    "/proc/1/mem read-write and /proc/1/root, /proc/1/fd; memory written there by one "
    "student is read by the next (and code written there runs outside the seccomp filter)",
)
def test_the_sandboxs_init_is_out_of_reach(tmp_path, native_week2b, host):
    find_stack = r"""
stack = [line for line in readf("/proc/1/maps").splitlines() if line.endswith("[stack]")]
where = int(stack[0].split("-")[0], 16) + 256 if stack else 0
found["mem"] = opens("/proc/1/mem", 2)  # O_RDWR
found["root"] = opens("/proc/1/root/", 0o200000)
fd = libc.open(b"/proc/1/mem", 2)
"""
    attack = find_stack + r"""
note = b"torchlab note from a\0"
found["wrote"] = libc.pwrite(fd, note, len(note), where) if fd >= 0 and where else -1
"""
    look = find_stack + r"""
buf = ctypes.create_string_buffer(21)
found["read"] = (libc.pread(fd, buf, 20, where), buf.value.decode(errors="replace"))
"""
    first = _probe(tmp_path, "a", attack)
    second = _probe(tmp_path, "b", look)
    assert _honest(tmp_path) == FULL_MARKS
    assert first["mem"] != "opened" and first["root"] != "opened", first
    assert "from a" not in second["read"][1], (first, second)


# ---- week 5: the same from a C++ static initializer -----------------------------------------

# Runs as labdev.so loads in the forked child, after its seccomp filter: several probes at once
# (one build). The marker files say which succeeded; the next student must not be touched.
STATIC_INIT = r"""
#include <fcntl.h>
#include <sys/resource.h>
#include <unistd.h>
namespace {
struct WarmServerProbe {
  WarmServerProbe() {
    // the server's rlimits (see test_lowering_the_servers_limits_reaches_no_later_student)
    struct rlimit low = {200, 200};
    prlimit(getppid(), RLIMIT_NOFILE, &low, nullptr);
    // kernel settings: opened for writing (never written), a marker if that worked
    const char* settings[] = {"/proc/sys/kernel/core_pattern", "/proc/sys/vm/swappiness"};
    for (const char* s : settings) {
      int fd = open(s, O_WRONLY);
      if (fd >= 0) {
        close(fd);
        close(open("/dev/torchlab-w5-proc-sys-writable", O_CREAT | O_WRONLY, 0644));
      }
    }
    // the host's /tmp (absent inside: the sandbox's own), and the server's shared /dev
    close(open("/tmp/torchlab-warm-leak", O_CREAT | O_WRONLY, 0644));
    close(open("/dev/torchlab-w5-note", O_CREAT | O_WRONLY, 0644));
  }
} warm_server_probe;
}  // namespace
"""


@pytest.mark.xfail(
    strict=True,
    raises=AssertionError,
    reason="a week-5 labdev.cpp static initializer lowers the warm server's RLIMIT_NOFILE "
    "with prlimit(getppid()): the next student's children all exit 70 and the reference "
    "scores zero",
)
def test_a_static_initializer_reaches_no_later_student(tmp_path, host):
    limits = Limits(case_seconds=10.0, import_seconds=20.0, run_seconds=60.0, build_seconds=120)
    submissions, out = tmp_path / "submissions", tmp_path / "out"
    source = (REFERENCE / "labdev.cpp").read_text()
    anchor = "namespace {\nstruct RegisterHooks {"
    assert source.count(anchor) == 1
    for student, text in (
        ("a_attacker", source.replace(anchor, STATIC_INIT + anchor)),
        ("b_honest", source),
    ):
        folder = submissions / student
        folder.mkdir(parents=True)
        shutil.copy(REFERENCE / "privateuse1.py", folder)
        (folder / "labdev.cpp").write_text(text)
    reports = grading.grade_class(submissions, out, ["week5"], limits=limits)
    attacker, honest = reports[("a_attacker", "week5")], reports[("b_honest", "week5")]
    if any("did not build" in p for p in attacker["problems"]):
        raise RuntimeError(f"the attacker's C++ did not build: {attacker['problems']}")
    if not any(r["status"] == "pass" for r in attacker["results"]):
        raise RuntimeError(f"the attacker's library never loaded: {attacker['problems']}")
    assert honest["score"] == honest["max_score"] and not honest["problems"], honest["problems"]
