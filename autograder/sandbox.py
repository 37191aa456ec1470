"""The guard a worker installs just before it imports submitted code.

It is a CPython audit hook (PEP 578, ``sys.addaudithook``): once added, a hook cannot be
removed from Python, and it sees every import, file open, process start, signal, socket and
ctypes call the submission makes. The hook refuses (raises) and records:

- importing a module the lab forbids (week 1 forbids torch: the engine must use its own
  strides, and a strided tensor that secretly wraps torch.Tensor scores nothing);
- reading anything but Python's own files (the standard library, site-packages), the
  autograder's, the engine's folder and its working folder; and, even there, the reference
  engine, the hidden cases, torch's answers (the oracle cache), the gradebook, other
  students' submissions, or torch's own files. An allowlist: answers left anywhere else on
  the machine (an old oracle cache, the course's git history, a copy in /tmp) stay unread;
- writing anywhere but the worker's own working folder;
- starting processes (fork bombs, shells) or threads, signalling other processes, opening
  sockets;
- ctypes, and extension modules from outside Python's own folders, in labs that have no
  native code (a library's constructor runs before any hook could look at what it does);
- the ways around a hook: sub-interpreters (the hook is per interpreter), the garbage
  collector's object lists (they reach the hook's own policy), raising its rlimits or another
  process's, symbolic links and folder descriptors (paths the hook cannot resolve), and the
  few C functions that raise no audit event (pidfd_send_signal, mkfifo, fork_exec...), which
  are removed from the worker before the hook goes in.

It is one layer, not a jail: the runner also sets memory, CPU-time and file-size limits, runs
the worker in its own process group with a stripped environment, and never lets it see the
expected answers. The worker imports the (trusted) case modules before installing the hook.
"""

from __future__ import annotations

import _imp
import importlib
import os
import pwd
import site
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
    "os.utime",
    "shutil.rmtree",
    "shutil.copyfile",
    "shutil.move",
}
_WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_APPEND | os.O_CREAT | os.O_TRUNC
# C functions that reach outside the process but raise no audit event: deleted from their
# modules before the hook goes in (and fresh copies of those modules cannot be made after).
_UNAUDITED = {
    "posix": ("pidfd_open", "mkfifo", "mknod"),
    "os": ("pidfd_open", "mkfifo", "mknod"),
    "_signal": ("pidfd_send_signal",),
    "signal": ("pidfd_send_signal",),
    "_posixsubprocess": ("fork_exec",),
    "subprocess": ("_fork_exec",),
}
# Extension modules that start processes or interpreters the hook does not see.
_NO_IMPORT = {
    "_posixsubprocess",
    "_xxsubinterpreters",
    "_xxinterpchannels",
    "_testcapi",
    "_testinternalcapi",
}
# Extension modules that load any library with no audit event (ctypes raises events).
_NATIVE_LOADERS = {"_cffi_backend"}
_REFUSED = {
    "gc.get_objects": "may not list the interpreter's objects",
    "gc.get_referrers": "may not list the interpreter's objects",
    "gc.get_referents": "may not list the interpreter's objects",
    "cpython.PyInterpreterState_New": "may not start another interpreter",
    "resource.setrlimit": "may not change its resource limits",
    "os.symlink": "may not create symbolic links",
}


class GuardViolation(PermissionError):
    """What the guard raises; a PermissionError, so ordinary error handling applies."""


def _under(path: str, roots: list[str]) -> bool:
    return any(path == r or path.startswith(r.rstrip(os.sep) + os.sep) for r in roots)


def _always_denied() -> list[str]:
    """Answers the policy may not list: the course's git history (every version of the
    reference) and the default oracle cache, whichever cache the grader itself uses."""
    repo = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))
    try:
        home = pwd.getpwuid(os.getuid()).pw_dir  # HOME is the worker's folder
    except KeyError:
        home = os.path.expanduser("~")
    return [os.path.join(repo, ".git"), os.path.join(home, ".cache", "torchlab")]


def _python_roots() -> list[str]:
    """Where Python and its packages live: imports must keep working under the guard."""
    roots = {sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix}
    roots.update(site.getsitepackages())
    roots.add(os.path.dirname(os.path.realpath(__file__)))  # the autograder package
    return sorted(roots)


def _remove_unaudited() -> None:
    for name in sys.builtin_module_names:  # loaded now: no fresh copy is made afterwards
        if name not in sys.modules:
            importlib.import_module(name)
    for module, names in _UNAUDITED.items():
        mod = sys.modules.get(module)
        for attr in names if mod else ():
            if hasattr(mod, attr):
                delattr(mod, attr)
            if attr in getattr(mod, "__all__", ()):
                mod.__all__.remove(attr)

    def create_builtin(spec: Any) -> Any:
        raise ImportError(f"may not load a second copy of the built-in module {spec.name}")

    _imp.create_builtin = create_builtin  # a fresh posix would bring back mkfifo


def install(policy: dict[str, Any]) -> list[str]:
    """Install the hook for ``policy`` and return the list it appends violations to.

    ``policy``: ``forbid_modules`` (top-level names), ``deny_read`` and ``write_ok``
    (absolute paths), ``read_ok`` (folders readable besides Python's own: the engine's),
    ``allow_native`` (ctypes, and libraries from outside Python's folders), ``lab``.
    """
    violations: list[str] = []
    forbid = set(policy.get("forbid_modules", []))
    deny_read = [os.path.realpath(p) for p in [*policy.get("deny_read", []), *_always_denied()]]
    write_ok = [os.path.realpath(p) for p in policy.get("write_ok", [])] + ["/dev/null"]
    native_ok = [os.path.realpath(p) for p in _python_roots()]  # extension modules: Python's
    read_ok = [os.path.realpath(p) for p in policy.get("read_ok", [])] + native_ok
    read_ok += write_ok + ["/dev/urandom", f"/proc/{os.getpid()}"]
    allow_native = bool(policy.get("allow_native", False))
    lab = policy.get("lab", "this lab")
    me = os.getpid()
    _remove_unaudited()

    def refuse(what: str) -> None:
        if what not in violations:
            violations.append(what)
        raise GuardViolation(f"{lab}: {what}")

    def start_new_thread(*args: Any, **kwargs: Any) -> Any:
        """Threads raise no audit event; as root no rlimit caps them (a thread bomb takes
        the machine's process ids), and they race the hook's path checks."""
        refuse("may not start threads")

    for module in ("_thread", "threading"):
        for name in ("start_new_thread", "start_new", "_start_new_thread"):
            if hasattr(sys.modules.get(module), name):
                setattr(sys.modules[module], name, start_new_thread)

    def check_path(raw: Any, writing: bool) -> str | None:
        if isinstance(raw, int):  # an already-open file descriptor
            return None
        path = os.path.realpath(os.fsdecode(raw))
        if writing and not _under(path, write_ok):
            refuse(f"may not write {path} (only its own working folder)")
        if _under(path, deny_read) or not _under(path, read_ok):
            refuse(f"may not read {path}")
        return path

    def check_folder(raw: Any) -> None:
        """A folder descriptor or working folder outside ours would let a relative path
        (``dir_fd=``, ``chdir``) land where the check above did not look."""
        if isinstance(raw, int):
            return
        path = check_path(raw, writing=False)
        if path and os.path.isdir(path) and not _under(path, write_ok):
            refuse(f"may not open the folder {path} (only its own working folder)")

    def hook(event: str, args: tuple) -> None:
        if event in _REFUSED:
            refuse(_REFUSED[event])
        elif event == "import":
            if str(args[0]) in _NO_IMPORT:
                refuse(f"may not import {args[0]}")
            library = args[1] if len(args) > 1 and isinstance(args[1], str) else None
            if library and not allow_native and not _under(os.path.realpath(library), native_ok):
                refuse(f"may not load native code ({os.path.basename(library)})")
            if str(args[0]) in _NATIVE_LOADERS and not allow_native:
                refuse(f"may not load native code ({args[0]})")
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
            if isinstance(flags, int) and mode is None:  # os.open: maybe a folder
                check_folder(path)
        elif event == "os.chdir":
            check_folder(args[0])
        elif event in ("os.listdir", "os.scandir"):
            check_path(args[0] if args and args[0] is not None else ".", writing=False)
        elif event == "resource.prlimit":
            if args[0] not in (me, 0) or (len(args) > 2 and args[2] is not None):
                refuse("may not change resource limits")
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
