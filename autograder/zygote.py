"""A fork server for the weeks whose learner module uses torch: import torch once, fork per run.

Importing torch costs about 1.5 s; a fresh worker per submission would pay it every time. So a
*zygote* starts inside the same bubblewrap sandbox a worker gets (``isolation.build``: the same
read-only binds, the same hidden answers, no network), imports torch and the worker code, and
then forks one child per run. The child is the worker: it reads its request, writes the
submission's files into ``/home/student``, lowers its rlimits, installs the seccomp filter
(no processes, no namespaces, no SysV IPC), and runs ``worker.serve``.

What keeps one run from reaching the next, or the grader:

- The zygote never reads a submission: the request travels in a memfd the grader hands to the
  child (``SCM_RIGHTS`` over a socket), so no student's code or answers ever sit in the memory
  the next child inherits.
- One child at a time. When it has exited (it cannot fork, so nothing of it survives), the
  zygote empties ``/home/student``, ``/tmp`` and ``/dev/shm``; if anything is left it exits
  instead of serving again, and the grader starts a fresh one.
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
import signal
import socket
import subprocess
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

_PR_SET_DUMPABLE, _PR_SET_NO_NEW_PRIVS, _PR_SET_SECCOMP, _SECCOMP_MODE_FILTER = 4, 38, 22, 2
WIPE = ("/home/student", "/tmp", "/dev/shm")  # what a child may write: emptied after each run


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


def _child(sock: socket.socket, fds: list[int], program: bytes | None) -> None:
    """The forked worker. Never returns: it ends with ``os._exit``."""
    code = 0
    try:
        sock.close()  # the zygote's socket is not the child's to use
        request_fd, out_fd, log_fd = fds
        with os.fdopen(request_fd, "rb") as f:
            request = json.loads(f.read())
        os.dup2(log_fd, 1)
        os.dup2(log_fd, 2)
        os.dup2(out_fd, 3)
        os.closerange(4, 65536)  # nothing of the zygote's stays open in the child
        out_fd = 3
        _set_rlimits(request.pop("rlimits", {}))
        work = Path(request["module_path"]).parent
        for name, text in request.pop("files", {}).items():
            (work / Path(name).name).write_bytes(text.encode("latin-1"))
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


def _wipe() -> bool:
    """Empty the writable folders; False if anything is left (the zygote then stops)."""
    for top in WIPE:
        for root, dirs, _ in os.walk(top):  # open every folder first (a child may chmod 000)
            for name in dirs:
                path = os.path.join(root, name)
                if not os.path.islink(path):
                    with contextlib.suppress(OSError):
                        os.chmod(path, 0o700)
        for root, dirs, files in os.walk(top, topdown=False):
            for name in files:
                with contextlib.suppress(OSError):
                    os.unlink(os.path.join(root, name))
            for name in dirs:
                path = os.path.join(root, name)
                with contextlib.suppress(OSError):
                    os.unlink(path) if os.path.islink(path) else os.rmdir(path)
    return not any(os.listdir(top) for top in WIPE)


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
    sock = socket.socket(fileno=ctl_fd)
    sock.send(b"ready")
    while True:
        msg, fds, _, _ = socket.recv_fds(sock, 64, 3)
        if not msg:
            return  # the grader is gone
        if msg != b"run" or len(fds) != 3:
            for fd in fds:
                os.close(fd)
            continue
        pid = os.fork()
        if pid == 0:
            _child(sock, fds, program)
        for fd in fds:
            os.close(fd)
        status = _watch(sock, pid)
        clean = _wipe()
        sock.send(f"exit {status}".encode())
        if not clean or status is None:
            return  # a fresh zygote serves the next run


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
                ready, _, _ = select.select([self.zygote.sock], [], [], 0)
                if not ready:
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
        argv, fds, jail = make_argv(theirs.fileno())
        try:
            self.proc = subprocess.Popen(
                argv,
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

    def spawn(self, request: dict[str, Any], out_fd: int, log_fd: int) -> ZygoteChild:
        """Start one run; the child reads ``request`` from a memfd of its own."""
        memfd = os.memfd_create("torchlab-request", 0)
        try:
            os.write(memfd, json.dumps(request).encode())
            os.lseek(memfd, 0, os.SEEK_SET)
            socket.send_fds(self.sock, [b"run"], [memfd, out_fd, log_fd])
        finally:
            os.close(memfd)
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
