"""Hostile students on a warm fork server: one run must not reach the next, nor the host.

The weeks whose learner code imports torch are graded in children of one warm server
(zygote.py). Each test here grades an attacker and then, on the SAME server (the pool hands
the idle server back), a probe that looks for what the attacker left and/or an honest student
(a copy of the reference), and checks that the honest student's results are exactly the
reference's full marks and that nothing of the host changed.

The attackers get native code past the in-process audit hook the way a real one would (ctypes,
allowed here for week 2b as in test_fork_server.py, or a C++ static initializer in week 5): the
kernel and the sandbox, not the hook, must hold. Three of these once got through (a bwrap init
beside the server, open to every child through /proc/1; /dev left writable, unbounded and shared;
prlimit on the server): they stay here as regressions. An attack that gets through is kept as
a strict xfail, with what it does in its reason.
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

from autograder import isolation, weeks, zygote
from autograder.runner import run_week
from autograder.weeks import WEEKS
from autograder.workers import Limits

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


# Every name an attacker below writes contains one of these.
MARKS = ("torchlab-note", "torchlab-w5", "torchlab-warm", "torchlab-ballast", "planted")


def _host_state() -> dict[str, list[str]]:
    """What an escaped submission could have changed on the host: any file bearing one of
    the attackers' names, where a write would land (other graders may share /tmp)."""
    stdlib = Path(os.__file__).parent
    folders = [Path(p) for p in ("/", "/tmp", "/dev", "/dev/shm", "/etc", "/work", "/root")]
    folders += [REPO, REPO / "autograder", REPO / "autograder" / "__pycache__", stdlib]
    folders += [stdlib / "site-packages", stdlib / "site-packages" / "torch"]
    found = {}
    for folder in folders:
        try:
            names = os.listdir(folder)
        except OSError:
            continue
        found[str(folder)] = sorted(n for n in names if any(m in n for m in MARKS))
    return found


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
    report = run_week(WEEKS["week2b"], str(folder / "real_dispatch.py"), [CASE])
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
    report = run_week(WEEKS["week2b"], str(folder / "real_dispatch.py"), [CASE])
    return [(r.name, r.status, r.message) for r in report.results] + [
        ("problems", str(report.problems), "")
    ]


# An abstract unix socket's address, for libc's bind and connect.
SOCKET = r"""
name = b"\0torchlab-warm-note"
addr = ctypes.create_string_buffer(b"\1\0" + name, 2 + len(name))  # AF_UNIX = 1
size = 2 + len(name)
"""

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
             "/proc/1/root/proc/sys/kernel/core_pattern",
             "/sys/kernel/mm/transparent_hugepage/enabled",
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
    assert all(n <= 0 for n in found["stdin"]), (
        found
    )  # /dev/null or refused: nothing of the grader's
    assert found["server_stdin"] == "Permission denied" and found["setns"] == -1, found
    assert _honest(tmp_path) == FULL_MARKS


def test_kernel_objects_die_with_the_run(tmp_path, native_week2b, host):
    """An abstract unix socket, a thread still sleeping, a pty, a pending timer, a locked
    memfd: all belong to the child and go with it; the next child finds none."""
    attack = (
        SOCKET
        + r"""
fd = libc.socket(1, 1, 0)  # AF_UNIX, SOCK_STREAM
found["bind"] = libc.bind(fd, addr, size)
found["listen"] = libc.listen(fd, 4)
tid = ctypes.c_ulong()  # a native thread blocked in pause(): alive when the case ends
pause = ctypes.cast(libc.pause, ctypes.c_void_p)
found["thread"] = libc.pthread_create(ctypes.byref(tid), None, pause, None)
found["pty"] = libc.open(b"/dev/ptmx", 2)
found["memfd"] = libc.syscall(319, b"torchlab-note", 0)
found["alarm"] = libc.alarm(30)
found["threads"] = len(listdir("/proc/self/task"))
"""
    )
    first = _probe(tmp_path, "a", attack)
    assert first["bind"] == 0 and first["listen"] == 0 and first["memfd"] >= 0, first
    assert first["threads"] > 1, first
    look = (
        SOCKET
        + r"""
fd = libc.socket(1, 1, 0)
found["socket"] = (libc.connect(fd, addr, size), err())
found["pids"] = sorted(int(p) for p in listdir("/proc") if p.isdigit())
found["me"] = os.getpid()
found["pts"] = listdir("/dev/pts")
"""
    )
    second = _probe(tmp_path, "b", look)
    assert second["socket"] == [-1, "Connection refused"], second
    # the server (pid 1, or 2 under a bwrap init) and itself: nothing of the first child
    assert set(second["pids"]) <= {1, 2, second["me"]}, second
    assert second["pts"] in (["ptmx"], []), second
    assert _honest(tmp_path) == FULL_MARKS


def _attack_then_honest(tmp_path: Path, attack: str) -> list[str]:
    """Grade a submission that runs ``attack`` in make_linear and then fails its case, then the
    honest student; the attacker's statuses (the honest one must get full marks)."""
    folder = tmp_path / "attacker"
    folder.mkdir()
    code = "import ctypes, os\n\ndef make_linear(q):\n"
    code += textwrap.indent(PRELUDE + attack, "    ") + "    raise RuntimeError('attacked')\n"
    (folder / "real_dispatch.py").write_text(code)
    report = run_week(WEEKS["week2b"], str(folder / "real_dispatch.py"), [CASE])
    assert _honest(tmp_path) == FULL_MARKS
    return [r.status for r in report.results]


def test_a_stopped_server_grades_no_one(tmp_path, native_week2b, host):
    """SIGSTOP to the server (same uid): either the kernel ignores it (the server is its
    sandbox's init) or the grader must not hand the frozen server to the next student."""
    statuses = _attack_then_honest(tmp_path, "libc.kill(os.getppid(), 19)\n")  # SIGSTOP
    assert statuses != ["pass"]


def test_an_interrupted_server_grades_no_one(tmp_path, native_week2b, host):
    """SIGINT reaches even an init: Python's handler raises KeyboardInterrupt in the server
    (while it watches this child). It may die; it must not serve the next student half-dead."""
    statuses = _attack_then_honest(tmp_path, "libc.kill(os.getppid(), 2)\nlibc.kill(1, 2)\n")
    assert statuses != ["pass"]


def test_the_servers_limits_and_scheduling_stay_its_own(tmp_path, native_week2b, host):
    """What a child inherits from the server and a process of the same uid might change from
    outside: its rlimits (prlimit), nice value, CPU affinity, scheduler, I/O priority. Lowering
    the server's hard RLIMIT_NOFILE would make every later child fail to set its own limits
    (exit 70: every later student scores zero); a lower RLIMIT_STACK would crash them later."""
    attack = r"""
class RL(ctypes.Structure):
    _fields_ = [("cur", ctypes.c_uint64), ("max", ctypes.c_uint64)]
libc.prlimit.argtypes = [ctypes.c_int, ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p]
server = os.getppid()
found["nofile"] = libc.prlimit(server, 7, ctypes.byref(RL(200, 200)), None)  # RLIMIT_NOFILE
found["stack"] = libc.prlimit(server, 3, ctypes.byref(RL(1 << 20, 1 << 20)), None)
found["data"] = libc.prlimit(server, 2, ctypes.byref(RL(1 << 28, 1 << 28)), None)
libc.setpriority.argtypes = [ctypes.c_int, ctypes.c_int, ctypes.c_int]
found["nice"] = libc.setpriority(0, server, 19)
one_cpu = ctypes.c_uint64(1)
found["affinity"] = libc.sched_setaffinity(server, 8, ctypes.byref(one_cpu))
found["idle"] = libc.sched_setscheduler(server, 5, ctypes.byref(ctypes.c_int(0)))  # SCHED_IDLE
found["ioprio"] = libc.syscall(251, 1, server, 3 << 13)  # ioprio_set: the idle class
found["ioprio_user"] = libc.syscall(251, 3, os.getuid(), 3 << 13)  # every process of my uid
"""
    found = _probe(tmp_path, "a", attack)
    look = r"""
found["limits"] = readf("/proc/self/limits")
found["nice"] = libc.getpriority(0, 0)
mask = ctypes.c_uint64(0)
libc.sched_getaffinity(0, 8, ctypes.byref(mask))
found["cpus"] = bin(mask.value).count("1")
found["policy"] = libc.sched_getscheduler(0)
found["ioprio"] = libc.syscall(252, 1, 0)
"""
    second = _probe(tmp_path, "b", look)
    assert second["nice"] == 0 and second["policy"] == 0, (found, second)
    assert second["cpus"] == len(os.sched_getaffinity(0)) and second["ioprio"] in (0, 4), second
    stack = [line for line in second["limits"].splitlines() if line.startswith("Max stack")]
    assert "1048576" not in stack[0] and "268435456" not in second["limits"], (found, second)
    assert _honest(tmp_path) == FULL_MARKS, found


def test_files_do_not_outlive_the_run(tmp_path, native_week2b, host):
    """Everywhere a child might write that is not its own fresh tmpfs: the sandbox's /dev (a
    tmpfs of the server's, with no size limit), and the server's own /tmp, /home/student and
    /dev/shm, under the child's, reached through /proc/1/root and /proc/1/cwd. A note left
    there would reach the next student; 160 MB there (more than a child's whole 144 MB of
    tmpfs) would stay pinned in the host's memory as long as the server lives."""
    places = [
        "/dev/torchlab-note",
        "/proc/1/root/tmp/torchlab-note",
        "/proc/1/root/home/student/torchlab-note",
        "/proc/1/root/dev/shm/torchlab-note",
        "/proc/1/cwd/torchlab-note-cwd",
        "/proc/SERVER/root/tmp/torchlab-note-server",  # the server, pid 1 or 2
    ]
    attack = f"""
for path in {places!r}:
    found[path] = create(path.replace("SERVER", str(os.getppid())), b"left by a")
chunk = b"\\0" * (1 << 20)
fd = libc.open(b"/dev/torchlab-ballast", 0o1101, 0o644)
found["ballast_mb"] = sum(libc.write(fd, chunk, len(chunk)) == len(chunk) for _ in range(160))
libc.close(fd)
found["rw_mounts"] = [
    line.split()[4] for line in readf("/proc/self/mountinfo", 1 << 20).splitlines()
    if line.split()[5].startswith("rw") and line.split()[4] not in
    ("/home/student", "/tmp", "/dev/shm", "/proc", "/dev/pts")
]
"""
    first = _probe(tmp_path, "a", attack)
    look = f"""
for path in {places + ["/dev/torchlab-ballast"]!r}:
    found[path] = (readf(path.replace("SERVER", str(os.getppid())), 64) or "")[:9]
"""
    second = _probe(tmp_path, "b", look)
    assert _honest(tmp_path) == FULL_MARKS
    assert first["ballast_mb"] == 0, first
    assert not any(second.values()), (first, second)
    # besides the child's fresh folders (and /proc, /dev/pts), the only rw mounts are the
    # server's own folders that the child's cover: their files were refused above
    assert set(first["rw_mounts"]) <= {
        "/dev/null",
        "/dev/zero",
        "/dev/full",
        "/dev/random",
        "/dev/urandom",
        "/dev/tty",
    }, first


def test_the_sandboxs_init_is_out_of_reach(tmp_path, native_week2b, host):
    """pid 1 of the server's sandbox (the server itself, or a bwrap init beside it) outlives
    every child: if a child could open its memory, a note written there would reach the next
    student, and code written there would run outside the seccomp filter."""
    find_stack = r"""
stack = [line for line in (readf("/proc/1/maps") or "").splitlines() if line.endswith("[stack]")]
where = int(stack[0].split("-")[0], 16) + 256 if stack else 0
found["mem"] = opens("/proc/1/mem", 2)  # O_RDWR
found["root"] = opens("/proc/1/root/", 0o200000)
found["fds"] = listdir("/proc/1/fd")
found["getfd"] = libc.syscall(438, libc.syscall(434, 1, 0), 0, 0)  # pidfd_getfd(pid 1, fd 0)
fd = libc.open(b"/proc/1/mem", 2)
"""
    attack = (
        find_stack
        + r"""
note = b"torchlab note from a\0"
found["wrote"] = libc.pwrite(fd, note, len(note), where) if fd >= 0 and where else -1
"""
    )
    look = (
        find_stack
        + r"""
buf = ctypes.create_string_buffer(21)
got = libc.pread(fd, buf, 20, where) if fd >= 0 and where else -1
found["read"] = (got, buf.value.decode(errors="replace"))
"""
    )
    first = _probe(tmp_path, "a", attack)
    second = _probe(tmp_path, "b", look)
    assert _honest(tmp_path) == FULL_MARKS
    assert first["mem"] != "opened" and first["root"] != "opened", first
    assert first["fds"] is None and first["getfd"] == -1, first
    assert "from a" not in second["read"][1], (first, second)


# ---- week 5: the same from a C++ static initializer -----------------------------------------

# Runs as labdev.so loads in the forked child, after its seccomp filter: several probes at once
# (one build, ~15 s). Whatever works here must not reach the next student, who is the reference.
STATIC_INIT = r"""
#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sched.h>
#include <unistd.h>
namespace {
struct WarmServerProbe {
  WarmServerProbe() {
    pid_t server = getppid();
    struct rlimit low = {200, 200};  // the server's limits, inherited by every later child
    prlimit(server, RLIMIT_NOFILE, &low, nullptr);
    setpriority(PRIO_PROCESS, server, 19);
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(0, &one);
    sched_setaffinity(server, sizeof one, &one);
    // kernel settings: opened for writing (never written), a marker if that worked
    const char* settings[] = {"/proc/sys/kernel/core_pattern", "/proc/sys/vm/swappiness"};
    for (const char* s : settings) {
      int fd = open(s, O_WRONLY);
      if (fd >= 0) {
        close(fd);
        close(open("/dev/torchlab-w5-proc-sys-writable", O_CREAT | O_WRONLY, 0644));
      }
    }
    // the sandbox's init, the host's /tmp (absent: the child's own), the server's /dev
    int mem = open("/proc/1/mem", O_RDWR);
    if (mem >= 0) close(mem), close(open("/dev/torchlab-w5-init-mem", O_CREAT | O_WRONLY, 0644));
    close(open("/tmp/torchlab-warm-leak", O_CREAT | O_WRONLY, 0644));
    close(open("/dev/torchlab-w5-note", O_CREAT | O_WRONLY, 0644));
    kill(server, SIGSTOP);
  }
} warm_server_probe;
}  // namespace
"""


WEEK5_CASES = ["task_5_4_empty", "task_5_7_add_and_mul"]  # both load labdev.so


def test_a_static_initializer_reaches_no_later_student(tmp_path, host):
    """An attacker whose labdev.cpp runs the probes above as it loads, then the reference, on
    the same warm server: the reference's results must be exactly its own full marks."""
    limits = Limits(case_seconds=10.0, import_seconds=20.0, run_seconds=60.0, build_seconds=120)
    source = (REFERENCE / "labdev.cpp").read_text()
    anchor = "namespace {\nstruct RegisterHooks {"
    assert source.count(anchor) == 1
    reports = {}
    for student, text in (
        ("attacker", source.replace(anchor, STATIC_INIT + anchor)),
        ("honest", source),
    ):
        folder = tmp_path / student
        folder.mkdir()
        shutil.copy(REFERENCE / "privateuse1.py", folder)
        (folder / "labdev.cpp").write_text(text)
        reports[student] = run_week(
            WEEKS["week5"], str(folder / "privateuse1.py"), WEEK5_CASES, False, limits
        )
    attacker, honest = reports["attacker"], reports["honest"]
    assert not any("did not build" in p for p in attacker.problems), attacker.problems
    names = [r.name for r in attacker.results]
    assert len(names) >= 2 and all(r.status == "pass" for r in attacker.results), names  # loaded
    assert not honest.problems, honest.problems
    assert [(r.name, r.status, r.message) for r in honest.results] == [
        (name, "pass", "") for name in names
    ]
