"""The first program of every sandbox the grader starts: it sets the process up, then execs.

    python -I -S autograder/launch.py SPEC -- COMMAND...

``SPEC`` is JSON: ``rlimits`` (``{"RLIMIT_AS": bytes, ...}``, set on itself, so they pass to
everything the command starts), ``nproc_room`` (for a grader that is not root: RLIMIT_NPROC
at this user's process count plus that much room), and for a root grader ``view`` (the folders
bwrap binds, ``[[path, writable], ...]``) with ``view_dir``: in a mount namespace of its own, a
tmpfs on ``view_dir`` holding a bind of each folder, then uid and gid 65534 for good (see
``isolation.py``'s docstring for why). Then it execs ``COMMAND`` (bwrap, or a compiler).

Why a program of its own rather than ``subprocess``'s ``preexec_fn``: Python run in a forked
copy of the grader before exec is not safe when the grader has other threads (the C locks
they held are copied locked), and a grader process does have them (Inductor's compile
workers, torch's pools): such a child crashed with SIGSEGV now and then ("the torch worker
server did not start"). A fresh interpreter (``-I -S``: no site, no environment, only the
standard library) has no other thread.

It imports nothing from the course, so that it runs the same from any directory. Any failure
exits with status 126 and says what failed on stderr: the sandbox never starts half made.
"""

from __future__ import annotations

import ctypes
import json
import os
import resource
import sys
import warnings  # noqa: F401 - os.execvp imports it; once uid 65534, the stdlib may be unreadable

NOBODY = 65534
_CLONE_NEWNS = 0x00020000
_MS_NOSUID, _MS_NODEV, _MS_BIND, _MS_REC, _MS_PRIVATE = 0x2, 0x4, 0x1000, 0x4000, 0x40000


def _check(libc: ctypes.CDLL, result: int, what: str) -> None:
    if result != 0:
        errno = ctypes.get_errno()
        raise OSError(errno, f"{what}: {os.strerror(errno)}")


def _processes_of(uid: int) -> int:
    count = 0
    for entry in os.scandir("/proc"):
        try:
            count += entry.name.isdigit() and entry.stat().st_uid == uid
        except OSError:
            continue  # a process that ended while we looked
    return count


def enter_view(view: list[list], top: str) -> None:
    """A private mount namespace where ``top`` holds a bind of each folder of ``view``, then
    uid and gid 65534 for good."""
    libc = ctypes.CDLL(None, use_errno=True)
    _check(libc, libc.unshare(_CLONE_NEWNS), "unshare(CLONE_NEWNS)")
    _check(libc, libc.mount(None, b"/", None, _MS_REC | _MS_PRIVATE, None), "making / private")
    opts = b"mode=0755,size=65536"
    flags = _MS_NOSUID | _MS_NODEV
    _check(libc, libc.mount(b"tmpfs", top.encode(), b"tmpfs", flags, opts), "tmpfs")
    os.umask(0o022)
    for source, _writable in view:
        target = top + source
        if os.path.isdir(source):
            os.makedirs(target, exist_ok=True)
        else:
            os.makedirs(os.path.dirname(target), exist_ok=True)
            open(target, "a").close()
        bind = libc.mount(source.encode(), target.encode(), None, _MS_BIND | _MS_REC, None)
        _check(libc, bind, source)
    os.setgroups([])
    os.setresgid(NOBODY, NOBODY, NOBODY)
    os.setresuid(NOBODY, NOBODY, NOBODY)


def main(argv: list[str]) -> None:
    spec, command = json.loads(argv[0]), argv[2:]
    if argv[1] != "--" or not command:
        raise ValueError("usage: launch.py SPEC -- COMMAND...")
    for name, value in spec.get("rlimits", {}).items():
        resource.setrlimit(getattr(resource, name), (value, value))
    if spec.get("nproc_room") and os.getuid() != 0:  # root ignores NPROC
        # The kernel counts every process of this uid, the user's own included: leave room.
        room = _processes_of(os.getuid()) + spec["nproc_room"]
        resource.setrlimit(resource.RLIMIT_NPROC, (room, room))
    if spec.get("view"):
        enter_view(spec["view"], spec["view_dir"])
    os.execvp(command[0], command)


if __name__ == "__main__":
    try:
        main(sys.argv[1:])
    except Exception as exc:  # noqa: BLE001 - any failure: say it, start nothing
        print(f"torchlab launch: {exc}", file=sys.stderr)
        sys.exit(126)
