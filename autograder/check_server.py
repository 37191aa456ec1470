"""A warm check server: one per user, so that a learner's second check does not pay for torch.

The first ``torchlab check`` (or ``check(...)`` in a notebook, or ``pytest`` on a lab) starts a
background process for its user; later checks hand it the week, the learner's file and the
limits over a Unix socket and get the same report back. It keeps what a cold check pays for
each time: Python with the course imported, and the fork servers of the torch weeks (torch
imported and warmed once, ``zygote.py``). Every check still runs in the same sandbox, each in
a fresh child of a fork server, exactly as without the server: the server only saves starts.

Safety:
- The socket lives in a folder that only its user can enter (``runtime_dir``: mode 0700,
  owned by the user, checked before every use), and the server also refuses a peer whose uid
  (``SO_PEERCRED``) is not its own. It never grades a class: ``torchlab grade`` never uses it.
- The server exits after ``IDLE_SECONDS`` without a request, on ``torchlab server stop``, and
  whenever a client's ``code_key`` differs from its own (torch, the course's code or its cases
  changed): the client then starts a fresh one.
- Where it cannot start, a check runs as before and says so once (``TORCHLAB_NO_SERVER=1``
  turns it off).

Protocol: the client sends one JSON line; the server answers with JSON lines, ``{"say": text}``
for what a check prints on stderr while it runs (a C++ build), then ``{"report": {...}}`` or
``{"restart": reason}``.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import importlib.metadata
import io
import json
import os
import socket
import stat
import struct
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict
from pathlib import Path
from typing import Any

from autograder.labs import REPO_ROOT, resolve_impl
from autograder.report import Report
from autograder.weeks import Week, get_week
from autograder.workers import Limits

IDLE_SECONDS = float(os.environ.get("TORCHLAB_SERVER_IDLE", 15 * 60))
START_SECONDS = 20.0  # how long a client waits for a new server's socket
AUTOGRADER = Path(__file__).resolve().parent
_said_once = False


def runtime_dir() -> Path:
    """The user's own folder for the socket: ``$XDG_RUNTIME_DIR/torchlab`` or
    ``/tmp/torchlab-<uid>``, created 0700 and refused unless the user owns it and nobody else
    may enter it (a folder made beforehand by someone else would let them reach the socket)."""
    base = os.environ.get("XDG_RUNTIME_DIR")
    own = f"torchlab-{os.getuid()}"
    path = Path(base) / "torchlab" if base else Path(tempfile.gettempdir()) / own
    with contextlib.suppress(FileExistsError):
        path.mkdir(mode=0o700, parents=False)
    info = path.lstat()
    if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.getuid() or info.st_mode & 0o077:
        raise PermissionError(f"{path} is not a folder only you can enter: remove it")
    return path


def socket_path() -> Path:
    return runtime_dir() / "check.sock"


def code_key() -> str:
    """What a server's answers depend on: torch's version, the course's code and cases (every
    file of ``autograder/``), and the settings a check reads from the environment."""
    h = hashlib.sha256()
    for dist in ("torch", "hypothesis"):
        try:
            h.update(f"{dist}={importlib.metadata.version(dist)}".encode())
        except importlib.metadata.PackageNotFoundError:
            h.update(f"{dist}=absent".encode())
    for path in sorted(AUTOGRADER.rglob("*.py")):
        h.update(str(path.relative_to(AUTOGRADER)).encode() + path.read_bytes())
    for name in ("TORCHLAB_CACHE", "TORCHLAB_IMPL", "HOME", "PATH"):
        h.update(f"{name}={os.environ.get(name, '')}".encode())
    return h.hexdigest()[:24]


# --- the client --------------------------------------------------------------------------------


def run_week_warm(
    week: Week, impl: str, select: list[str] | None = None, limits: Limits | None = None
) -> Report:
    """``runner.run_week`` through the user's check server, started if need be; where it
    cannot be used, ``run_week`` here (said once)."""
    from autograder.runner import run_week

    limits = limits or Limits()
    if os.environ.get("TORCHLAB_NO_SERVER"):
        return run_week(week, impl, select, limits=limits)
    try:
        path = str(resolve_impl(week, impl)) if impl != "reference" else impl
        request = {
            "key": code_key(),
            "week": week.name,
            "impl": path,
            "select": select,
            "limits": asdict(limits),
        }
        report = _ask(request)
    except (OSError, ValueError, KeyError) as exc:
        _say_once(f"the check server could not be used ({exc}): checking without it")
        return run_week(week, impl, select, limits=limits)
    return report


def _say_once(line: str) -> None:
    global _said_once
    if not _said_once:
        print(line, file=sys.stderr)
        _said_once = True


def _ask(request: dict[str, Any]) -> Report:
    """Send ``request``; start a server first if none answers, or a fresh one if the running
    one is stale."""
    for _ in range(2):
        try:
            conn = _connect()
        except OSError:
            start_server()
            conn = _connect(wait=START_SECONDS)
        with conn:
            conn.sendall(json.dumps(request).encode() + b"\n")
            for line in conn.makefile("rb"):
                message = json.loads(line)
                if "say" in message:
                    print(message["say"], file=sys.stderr, flush=True)
                elif "report" in message:
                    return Report.from_dict(message["report"])
                elif "restart" in message:
                    _wait_gone(socket_path())
                    break
            else:
                raise OSError("the check server closed the connection without a report")
    raise OSError("the check server kept asking to restart")


def _connect(wait: float = 0.0) -> socket.socket:
    deadline = time.monotonic() + wait
    while True:
        conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            conn.connect(str(socket_path()))
            return conn
        except OSError:
            conn.close()
            if time.monotonic() >= deadline:
                raise
            time.sleep(0.05)


def _wait_gone(path: Path, seconds: float = 5.0) -> None:
    deadline = time.monotonic() + seconds
    while path.exists() and time.monotonic() < deadline:
        time.sleep(0.05)


def start_server() -> None:
    """Start this user's server in its own session, its output in the runtime folder."""
    log = (runtime_dir() / "server.log").open("ab")
    subprocess.Popen(
        [sys.executable, "-m", "autograder.check_server", "serve"],
        stdin=subprocess.DEVNULL,
        stdout=log,
        stderr=log,
        cwd=str(REPO_ROOT),
        start_new_session=True,  # outlives the check that started it
    )


def stop_server() -> bool:
    """Ask the running server to exit; False when none was running."""
    try:
        conn = _connect()
    except OSError:
        return False
    with conn:
        conn.sendall(b'{"stop": true}\n')
        conn.makefile("rb").read()
    _wait_gone(socket_path())
    return True


# --- the server --------------------------------------------------------------------------------


class _Said(io.TextIOBase):
    """The server's stderr during a check: each line goes to the client as ``{"say": ...}``."""

    def __init__(self, conn: socket.socket) -> None:
        self.conn, self.buffer = conn, ""

    def write(self, text: str) -> int:
        self.buffer += text
        while "\n" in self.buffer:
            line, self.buffer = self.buffer.split("\n", 1)
            with contextlib.suppress(OSError):  # a client that went away misses the line
                self.conn.sendall(json.dumps({"say": line}).encode() + b"\n")
        return len(text)

    def isatty(self) -> bool:
        return False


def _peer_uid(conn: socket.socket) -> int:
    creds = conn.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i"))
    return struct.unpack("3i", creds)[1]


def serve(idle_seconds: float = IDLE_SECONDS) -> int:
    """Answer checks until idle for ``idle_seconds``, asked to stop, or stale."""
    from autograder.runner import run_week

    key = code_key()
    path = socket_path()
    lock = (path.parent / "server.lock").open("w")
    deadline = time.monotonic() + 5.0  # a stale server may still be letting go
    while True:
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
            break
        except BlockingIOError:
            if time.monotonic() > deadline:
                return 0  # another server is running: that one answers
            time.sleep(0.05)
    with contextlib.suppress(FileNotFoundError):
        path.unlink()  # a server that died left it: the folder is the user's alone
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(str(path))
    os.chmod(path, 0o600)
    listener.listen(8)
    (path.parent / "server.pid").write_text(f"{os.getpid()}\n")
    listener.settimeout(idle_seconds)
    try:
        while True:
            try:
                conn, _ = listener.accept()
            except TimeoutError:
                return 0  # idle: a later check starts a fresh one
            with conn:
                if _peer_uid(conn) != os.getuid():
                    continue  # not this user's: no answer at all
                request = json.loads(conn.makefile("rb").readline() or b"{}")
                if request.get("stop"):
                    return 0
                if request.get("key") != key:
                    conn.sendall(json.dumps({"restart": "the course or torch changed"}).encode())
                    return 0
                asked = request["limits"]
                limits = Limits(**{**asked, "hide_paths": tuple(asked["hide_paths"])})
                real_stderr, sys.stderr = sys.stderr, _Said(conn)
                try:
                    week = get_week(request["week"])  # the front door: a name off the socket
                    report = run_week(week, request["impl"], request["select"], limits=limits)
                finally:
                    sys.stderr = real_stderr
                with contextlib.suppress(OSError):
                    conn.sendall(json.dumps({"report": report.to_dict()}).encode() + b"\n")
    finally:
        with contextlib.suppress(FileNotFoundError):
            path.unlink()  # before the lock goes, so a new server never loses its socket
        listener.close()
        lock.close()


if __name__ == "__main__":
    if sys.argv[1:] == ["serve"]:
        raise SystemExit(serve())
    raise SystemExit("usage: python -m autograder.check_server serve")
