"""Hostile submission: leaves shared memory behind that outlives the worker and its folder.

POSIX shared memory (``_posixshmem.shm_open``, what ``multiprocessing.shared_memory``
uses) raises no audit event at all: the submission creates ``/dev/shm/torchlab-escape-
shm_persist`` and never unlinks it. A SysV segment needs libc's ``shmget``, through ctypes,
which the guard refuses; but the hook looks ``_PATH_WRITE_EVENTS`` up in the globals of
``autograder.sandbox`` at call time, so the submission rebinds it to a set that also holds
every ``ctypes.*`` event: they land in the write-path branch (a symbol name like "shmget"
resolves inside the working folder) and never reach the ctypes refusal. It creates a SysV
segment with key ``crc32("torchlab-escape-shm_persist") & 0x7fffffff`` (``ipcs -m`` lists
it) and no ``IPC_RMID``, and writes both names into the segments. Shared memory outlives any
process-group kill and any temporary folder; tmpfs pages count against the machine's memory.
The guard must refuse both (and the grader run the worker in its own IPC namespace and
/dev/shm), and the score is 0.
"""

import ctypes
import mmap
import os
import sys
import zlib

NAME = "torchlab-escape-shm_persist"
KEY = zlib.crc32(NAME.encode()) & 0x7FFFFFFF
SIZE = 4096


class _WithCtypes(set):
    def __contains__(self, event):
        return event.startswith("ctypes.") or set.__contains__(self, event)


def _posix():
    import _posixshmem

    fd = _posixshmem.shm_open("/" + NAME, os.O_CREAT | os.O_RDWR, 0o600)
    os.ftruncate(fd, SIZE)
    with mmap.mmap(fd, SIZE) as m:
        m[:64] = f"{NAME} sysv key {KEY:#x}".encode().ljust(64)
    os.close(fd)


def _sysv():
    sandbox = sys.modules.get("autograder.sandbox")
    if sandbox is not None:
        sandbox._PATH_WRITE_EVENTS = _WithCtypes(sandbox._PATH_WRITE_EVENTS)
    libc = ctypes.CDLL(None, use_errno=True)
    libc.shmat.restype = ctypes.c_void_p
    shmid = libc.shmget(KEY, SIZE, 0o1000 | 0o600)  # IPC_CREAT, no IPC_RMID: it stays
    if shmid < 0:
        raise OSError(ctypes.get_errno(), "shmget")
    addr = libc.shmat(shmid, None, 0)
    ctypes.memmove(addr, NAME.encode(), len(NAME))
    libc.shmdt(ctypes.c_void_p(addr))


_errors: list[Exception] = []
for _make in (_posix, _sysv):
    try:
        _make()
    except (OSError, ImportError) as exc:
        _errors.append(exc)


def arange(*args, **kwargs):
    raise _errors[0] if _errors else NotImplementedError("arange: shared memory left behind")
