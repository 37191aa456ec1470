"""A fork server for the weeks whose learner module uses torch: import torch once, fork per run.

Importing torch costs about 1.5 s; a fresh worker per submission would pay it every time. So a
*zygote* starts inside the same bubblewrap sandbox a worker gets (``isolation.build``: the same
read-only binds, the same hidden answers, no network), imports torch and the worker code, and
then forks one child per run. The child is the worker: it reads its request, writes the
submission's files into ``/home/student``, lowers its rlimits, installs the seccomp filter
(no processes, no namespaces, no SysV IPC), and runs ``worker.serve``.

What keeps one run from reaching the next, or the grader:

- Nothing a child can write outlives it. The server's sandbox is read-only everywhere (its root
  included; see isolation.build). Each child first enters a mount namespace of its own and
  mounts fresh, size-limited tmpfs folders on ``/home/student``, ``/tmp`` and ``/dev/shm``
  (the server keeps CAP_SYS_ADMIN inside its user namespace for this alone), copies the
  submission's files in, and then drops every capability before anything of the submission
  runs. When the child exits, its folders go with its namespace: the next child never sees
  them, and the server's own folders were never writable to it.
- The zygote never reads a submission: the request travels in a memfd, and each file as a
  descriptor, that the grader hands to the child (``SCM_RIGHTS`` over a socket), so no
  student's code or answers ever sit in the memory the next child inherits, and a large file
  never passes through a message.
- One child at a time, and the server never runs submitted code itself. The server is the
  sandbox's pid 1 (no bwrap init of the same uid beside it that a child could open through
  ``/proc/1``), so a child's SIGKILL to it is ignored by the kernel; what a child could still
  change in it from outside (its nice value, CPU affinity, scheduler) is checked after each
  child, and a server whose state moved stops serving.
- The zygote is not dumpable (``PR_SET_DUMPABLE`` 0), so a child can neither trace it nor open
  its ``/proc/<pid>/mem`` or descriptors; the seccomp filter refuses ptrace anyway. A child may
  still kill the zygote (same uid): that ends only its own run, and the pool starts another.
- SysV shared memory, semaphores and message queues (which outlive a process) are refused.

Protocol on the ``SOCK_SEQPACKET`` socket: the zygote sends ``ready``; the grader sends ``run``
with three descriptors (request, result pipe, log); the grader may send ``kill``; the zygote
answers ``exit <code>`` (negative: the signal) when the child is gone.
"""

from __future__ import annotations

import atexit
import contextlib
import ctypes
import gc
import importlib
import json
import os
import select
import shutil
import signal
import socket
import subprocess
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

_PR_SET_DUMPABLE, _PR_SET_NO_NEW_PRIVS, _PR_SET_SECCOMP, _SECCOMP_MODE_FILTER = 4, 38, 22, 2
_PR_CAPBSET_DROP, _PR_CAP_AMBIENT, _PR_CAP_AMBIENT_CLEAR_ALL = 24, 47, 4
_CLONE_NEWNS = 0x00020000
_MS_NOSUID, _MS_NODEV, _MS_REC, _MS_PRIVATE = 0x2, 0x4, 0x4000, 0x40000
MAX_FILES = 200  # descriptors in one SCM_RIGHTS message (the kernel allows 253)


# ---- inside the sandbox: the server ---------------------------------------------------------


class _SockFprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]


def install_seccomp(program: bytes) -> None:
    """Load a classic-BPF seccomp filter into this (single-threaded) process, for good."""
    libc = ctypes.CDLL(None, use_errno=True)
    buf = ctypes.create_string_buffer(program, len(program))
    prog = _SockFprog(len(program) // 8, ctypes.cast(buf, ctypes.c_void_p))
    if libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_NO_NEW_PRIVS)")
    if libc.prctl(_PR_SET_SECCOMP, _SECCOMP_MODE_FILTER, ctypes.byref(prog), 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_SECCOMP)")


def _set_rlimits(limits: dict[str, int]) -> None:
    import resource

    for name, value in limits.items():
        resource.setrlimit(getattr(resource, name), (value, value))


class _CapHeader(ctypes.Structure):
    _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]


class _CapData(ctypes.Structure):
    _fields_ = [("effective", ctypes.c_uint32), ("permitted", ctypes.c_uint32)]
    _fields_ += [("inheritable", ctypes.c_uint32)]


def fresh_folders(libc: ctypes.CDLL) -> None:
    """A mount namespace of this child's own, with new tmpfs folders where it may write
    (sizes from isolation.TMPFS_MB): nothing of an earlier child is in them, nothing written
    there reaches the server or a later child."""
    from autograder.isolation import TMPFS_MB
    from autograder.isolation import libc_check as check

    check(libc.unshare(_CLONE_NEWNS), "unshare(CLONE_NEWNS)")
    check(libc.mount(None, b"/", None, _MS_REC | _MS_PRIVATE, None), "making / private")
    for folder, mb in TMPFS_MB.items():
        opts = f"size={mb * 2**20},mode=1777".encode()
        flags = _MS_NOSUID | _MS_NODEV
        check(libc.mount(b"tmpfs", folder.encode(), b"tmpfs", flags, opts), f"tmpfs on {folder}")


def drop_capabilities(libc: ctypes.CDLL) -> None:
    """No capability left, in any set, for good (raises if one is): the server's mount rights
    stop here, before the submission's first line."""
    for cap in range(64):
        if libc.prctl(_PR_CAPBSET_DROP, cap, 0, 0, 0) != 0 and ctypes.get_errno() != 22:
            raise OSError(ctypes.get_errno(), f"PR_CAPBSET_DROP {cap}")  # 22: no such cap
    libc.prctl(_PR_CAP_AMBIENT, _PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0)
    header = _CapHeader(0x20080522, 0)  # _LINUX_CAPABILITY_VERSION_3: two data structs
    data = (_CapData * 2)()
    if libc.capset(ctypes.byref(header), data) != 0:
        raise OSError(ctypes.get_errno(), "capset")
    with open("/proc/self/status") as f:
        left = [line for line in f if line.startswith("Cap") and set(line.split()[1]) != {"0"}]
    if left:
        raise OSError(f"capabilities left: {left}")


def _copy_in(names: list[str], fds: list[int], into: Path) -> str | None:
    """Copy each file from its descriptor into the child's own folder; a problem in words."""
    for name, fd in zip(names, fds, strict=True):
        try:
            with os.fdopen(fd, "rb") as src, open(into / Path(name).name, "wb") as dst:
                shutil.copyfileobj(src, dst, 2**20)
        except OSError as exc:
            if exc.errno == 28:  # ENOSPC
                from autograder.isolation import TMPFS_MB

                mb = TMPFS_MB.get(str(into), 0)
                return f"the files handed in do not fit in the worker's {mb} MB folder"
            raise
    return None


def _child(sock: socket.socket, fds: list[int], program: bytes | None) -> None:
    """The forked worker. Never returns: it ends with ``os._exit``."""
    code = 0
    try:
        sock.close()  # the zygote's socket is not the child's to use
        request_fd, out_fd, log_fd, *file_fds = fds
        with os.fdopen(request_fd, "rb") as f:
            request = json.loads(f.read())
        libc = ctypes.CDLL(None, use_errno=True)
        fresh_folders(libc)
        work = Path(request["module_path"]).parent
        problem = _copy_in(request.pop("files", []), file_fds, work)
        drop_capabilities(libc)
        os.dup2(log_fd, 1)
        os.dup2(log_fd, 2)
        os.dup2(out_fd, 3)
        os.closerange(4, 65536)  # nothing of the zygote's stays open in the child
        out_fd = 3
        if problem is not None:
            event = {"event": "import_error", "message": problem}
            os.write(out_fd, (json.dumps(event) + "\n").encode())
            os._exit(0)
        _set_rlimits(request.pop("rlimits", {}))
        os.chdir(work)
        if program is not None:
            install_seccomp(program)
        from autograder.worker import serve

        serve(request, out_fd)
    except BaseException:  # noqa: BLE001 - whatever happens, never back into the server loop
        import traceback

        traceback.print_exc()
        code = 70
    finally:
        with contextlib.suppress(BaseException):
            sys.stdout.flush()
            sys.stderr.flush()
        os._exit(code)


def _serve(ctl_fd: int, preload: list[str], warm_up: str = "") -> None:
    ctypes.CDLL(None).prctl(_PR_SET_DUMPABLE, 0, 0, 0, 0)
    for name in preload:  # the lab's own libraries: the point of the zygote
        importlib.import_module(name)
    importlib.import_module("autograder.worker")
    if warm_up:  # first-call set-up (the week's, see Week.warm_up), done once for all children
        module, _, function = warm_up.partition(":")
        getattr(importlib.import_module(module), function)()
    # Move what exists now out of the collector's sight: a child's collections would otherwise
    # walk (and so copy, page by page) the server's whole heap of torch objects.
    gc.collect()
    gc.freeze()
    from autograder.isolation import seccomp_filter

    program = seccomp_filter()
    state = _own_state()
    sock = socket.socket(fileno=ctl_fd)
    sock.send(b"ready")
    while True:
        msg, fds, _, _ = socket.recv_fds(sock, 64, 3 + MAX_FILES)
        if not msg:
            return  # the grader is gone
        if msg != b"run" or len(fds) < 3:
            for fd in fds:
                os.close(fd)
            continue
        pid = os.fork()
        if pid == 0:
            _child(sock, fds, program)
        for fd in fds:
            os.close(fd)
        status = _watch(sock, pid)
        sock.send(f"exit {status}".encode())
        if status is None or _own_state() != state:
            return  # the grader has gone; or a child changed what the next would inherit


def _own_state() -> tuple[Any, ...]:
    """What a child inherits from the server and could change from outside it (the same
    uid may renice it, pin it to a CPU, change its scheduler; seccomp refuses prlimit on it):
    checked after each child, and a server whose state moved stops serving."""
    import resource

    limits = tuple(
        resource.getrlimit(getattr(resource, n)) for n in dir(resource) if n.startswith("RLIMIT_")
    )
    return (
        limits,
        os.getpriority(os.PRIO_PROCESS, 0),
        sorted(os.sched_getaffinity(0)),
        os.sched_getscheduler(0),
    )


def _watch(sock: socket.socket, pid: int) -> int | None:
    """Wait for the child, killing it when the grader says so; its exit code (negative: the
    signal). None when the grader has gone away."""
    pidfd = os.pidfd_open(pid)
    try:
        while True:
            ready, _, _ = select.select([sock, pidfd], [], [])
            if pidfd in ready:
                break
            msg = sock.recv(64)
            with contextlib.suppress(ProcessLookupError):
                if not msg or msg == b"kill":
                    os.kill(pid, signal.SIGKILL)
            if not msg:
                os.waitpid(pid, 0)
                return None
    finally:
        os.close(pidfd)
    _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status)


# ---- outside: the grader's side ------------------------------------------------------------


class ZygoteChild:
    """One run in a zygote, with the part of ``subprocess.Popen`` the runner uses."""

    def __init__(self, zygote: Zygote) -> None:
        self.zygote = zygote
        self.returncode: int | None = None

    def poll(self) -> int | None:
        if self.returncode is None:
            self._read(block=False)
        return self.returncode

    def wait(self) -> int:
        while self.returncode is None:
            self._read(block=True)
        return self.returncode

    def kill(self) -> None:
        if self.poll() is None:
            try:
                self.zygote.sock.send(b"kill")
            except OSError:
                pass
            self.wait()

    def _read(self, block: bool) -> None:
        try:
            if not block:
                from autograder.isolation import readable  # the grader's side only

                if not readable(self.zygote.sock.fileno(), 0):
                    return
            self.zygote.sock.settimeout(30)
            msg = self.zygote.sock.recv(64)
        except OSError:
            msg = b""
        if msg.startswith(b"exit "):
            self.returncode = int(msg.split()[1]) if msg.split()[1] != b"None" else -9
        else:  # the zygote died (killed by its child, say): so did the child
            self.zygote.close()
            self.returncode = -signal.SIGKILL
        self.zygote.busy = False


class Zygote:
    """A running fork server (see the module docstring)."""

    def __init__(
        self, make_argv: Callable[[int], tuple[list[str], list[int], Any]], wait: bool = True
    ) -> None:
        """``make_argv(fd)``: the bwrap command, descriptors to pass, and a ``close()``-able
        jail, for a server whose control socket is descriptor ``fd``. ``wait=False`` returns
        at once; ``wait_started`` waits. (Started from this thread: bwrap's
        --die-with-parent ends the server when the thread that started it ends.)"""
        self.sock, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        from autograder import isolation  # the grader's side only

        argv, fds, jail = make_argv(theirs.fileno())
        try:
            self.proc = subprocess.Popen(
                isolation.launched(argv, jail),  # a root grader's uid 65534, then bwrap
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.PIPE,
                pass_fds=fds,
                start_new_session=True,
            )
        finally:
            theirs.close()
            jail.close()
        self.busy = False
        self.started = False
        if wait:
            self.wait_started()

    def wait_started(self) -> None:
        """Wait until the server has imported what it preloads (RuntimeError if it died)."""
        if self.started:
            return
        self.sock.settimeout(120)
        try:
            ready = self.sock.recv(64)
        except OSError:
            ready = b""
        if ready != b"ready":
            err = self._stderr()
            self.close()
            raise RuntimeError(f"the torch worker server did not start: {err or 'no message'}")
        self.started = True

    def _stderr(self) -> str:
        if self.proc.poll() is None or self.proc.stderr is None:
            return ""
        return self.proc.stderr.read().decode(errors="replace").strip()[-500:]

    @property
    def alive(self) -> bool:
        return self.proc.poll() is None and self.sock.fileno() != -1

    def spawn(
        self,
        request: dict[str, Any],
        out_fd: int,
        log_fd: int,
        files: dict[str, Path] | None = None,
    ) -> ZygoteChild:
        """Start one run; the child reads ``request`` from a memfd of its own, and each of
        ``files`` ({name: host path}) from a descriptor, into its own folder."""
        files = files or {}
        if len(files) > MAX_FILES:
            raise OSError(f"more than {MAX_FILES} files to hand to one worker")
        opened: list[int] = []
        memfd = os.memfd_create("torchlab-request", 0)
        try:
            for path in files.values():
                opened.append(os.open(path, os.O_RDONLY | os.O_NOFOLLOW))
            os.write(memfd, json.dumps({**request, "files": list(files)}).encode())
            os.lseek(memfd, 0, os.SEEK_SET)
            socket.send_fds(self.sock, [b"run"], [memfd, out_fd, log_fd, *opened])
        finally:
            os.close(memfd)
            for fd in opened:
                os.close(fd)
        self.busy = True
        return ZygoteChild(self)

    def close(self) -> None:
        with contextlib.suppress(OSError):
            self.sock.close()
        if self.proc.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.proc.pid, signal.SIGKILL)
        self.proc.wait()
        if self.proc.stderr is not None:
            self.proc.stderr.close()


class Pool:
    """Idle zygotes by configuration, so a class's submissions share the torch import."""

    def __init__(self, keep: int = 2) -> None:
        self.keep = keep
        self.idle: dict[Any, list[Zygote]] = {}
        self.starting: dict[Any, Zygote] = {}
        self.lock = threading.Lock()

    def prestart(self, key: Any, start: Callable[[bool], Zygote]) -> None:
        """Start a server for ``key`` without waiting for it, unless one is idle or starting;
        the next ``acquire`` for ``key`` waits for it instead of starting another."""
        with self.lock:
            if key in self.starting or any(z.alive for z in self.idle.get(key, [])):
                return
            self.starting[key] = start(False)

    def acquire(self, key: Any, start: Callable[[bool], Zygote]) -> Zygote:
        with self.lock:
            early = self.starting.pop(key, None)
        if early is not None:
            with contextlib.suppress(RuntimeError):  # it died: start one here, and say why
                early.wait_started()
                return early
        with self.lock:
            while self.idle.get(key):
                z = self.idle[key].pop()
                if z.alive:
                    return z
                z.close()
        return start(True)

    def release(self, key: Any, z: Zygote) -> None:
        if not z.alive or z.busy:
            z.close()
            return
        with self.lock:
            spare = self.idle.setdefault(key, [])
            spare.append(z)
            while sum(len(v) for v in self.idle.values()) > self.keep:
                oldest = next(k for k, v in self.idle.items() if v)
                self.idle[oldest].pop(0).close()

    def close(self) -> None:
        with self.lock:
            starting, self.starting = list(self.starting.values()), {}
            for zs in self.idle.values():
                for z in zs:
                    z.close()
            self.idle.clear()
        for z in starting:  # a server started for a run that never came
            z.close()


POOL = Pool(keep=4)  # a public and a hidden server for two jobs
atexit.register(POOL.close)


if __name__ == "__main__":
    _serve(int(sys.argv[1]), json.loads(sys.argv[2]), *sys.argv[3:4])
