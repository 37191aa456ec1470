"""The guard a worker installs just before it imports submitted code.

It is a CPython audit hook (PEP 578, ``sys.addaudithook``): once added, a hook cannot be
removed from Python, and it sees every import, file open, process start, signal, socket and
ctypes call the submission makes. The hook refuses (raises) and records:

- importing a module the lab forbids (week 1 forbids torch: the engine must use its own
  strides, and a strided tensor that secretly wraps torch.Tensor scores nothing);
- reading the reference engine, the hidden cases, torch's answers (the oracle cache), the
  gradebook, other students' submissions, or torch's own files;
- writing anywhere but the worker's own working folder;
- starting processes (fork bombs, shells), signalling other processes, opening sockets;
- ctypes, in labs that have no native code.

It is one layer, not a jail: the runner also sets memory, CPU-time and file-size limits, runs
the worker in its own process group with a stripped environment, and never lets it see the
expected answers. The worker imports the (trusted) case modules before installing the hook.
"""

from __future__ import annotations

import os
import sys
from typing import Any

_PROCESS_EVENTS = {
    "os.fork",
    "os.forkpty",
    "os.system",
    "os.exec",
    "os.posix_spawn",
    "os.spawn",
    "subprocess.Popen",
    "pty.spawn",
}
_PATH_WRITE_EVENTS = {
    "os.remove",
    "os.rmdir",
    "os.mkdir",
    "os.rename",
    "os.chmod",
    "os.chown",
    "os.truncate",
    "os.link",
    "os.symlink",
    "os.utime",
    "shutil.rmtree",
    "shutil.copyfile",
    "shutil.move",
}
_WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_APPEND | os.O_CREAT | os.O_TRUNC


class GuardViolation(PermissionError):
    """What the guard raises; a PermissionError, so ordinary error handling applies."""


def _under(path: str, roots: list[str]) -> bool:
    return any(path == r or path.startswith(r.rstrip(os.sep) + os.sep) for r in roots)


def install(policy: dict[str, Any]) -> list[str]:
    """Install the hook for ``policy`` and return the list it appends violations to.

    ``policy``: ``forbid_modules`` (top-level names), ``deny_read`` and ``write_ok``
    (absolute paths), ``allow_native`` (ctypes), ``lab`` (for messages).
    """
    violations: list[str] = []
    forbid = set(policy.get("forbid_modules", []))
    deny_read = [os.path.realpath(p) for p in policy.get("deny_read", [])]
    write_ok = [os.path.realpath(p) for p in policy.get("write_ok", [])] + ["/dev/null"]
    allow_native = bool(policy.get("allow_native", False))
    lab = policy.get("lab", "this lab")
    me = os.getpid()

    def refuse(what: str) -> None:
        if what not in violations:
            violations.append(what)
        raise GuardViolation(f"{lab}: {what}")

    def check_path(raw: Any, writing: bool) -> None:
        if isinstance(raw, int):  # an already-open file descriptor
            return
        path = os.path.realpath(os.fsdecode(raw))
        if _under(path, deny_read):
            refuse(f"may not read {path}")
        if writing and not _under(path, write_ok):
            refuse(f"may not write {path} (only its own working folder)")

    def hook(event: str, args: tuple) -> None:
        if event == "import":
            top = str(args[0]).split(".")[0]
            if top in forbid:
                if f"imported {top}" not in violations:
                    violations.append(f"imported {top}")
                raise ImportError(
                    f"{lab} forbids importing {top}: your engine must do the work itself"
                )
        elif event == "open":
            path, mode, flags = (list(args) + [None, None, None])[:3]
            writing = bool(mode and any(c in str(mode) for c in "wax+")) or bool(
                isinstance(flags, int) and flags & _WRITE_FLAGS
            )
            check_path(path, writing)
        elif event in _PATH_WRITE_EVENTS:
            for arg in args[:2]:
                if isinstance(arg, str | bytes | os.PathLike):
                    check_path(arg, writing=True)
        elif event in _PROCESS_EVENTS:
            refuse("may not start other processes")
        elif event in ("os.kill", "os.killpg", "signal.pthread_kill"):
            if args and args[0] not in (me, 0):
                refuse("may not signal other processes")
        elif event.startswith("socket."):
            refuse("may not use the network")
        elif event.startswith("ctypes.") and not allow_native:
            refuse("may not use ctypes")

    sys.addaudithook(hook)
    return violations
