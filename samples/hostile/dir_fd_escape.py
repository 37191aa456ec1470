"""Hostile submission: opens files relative to a folder descriptor the guard resolved wrongly.

The guard resolves a relative path against the working folder (``os.getcwd()``), but
``os.open(name, dir_fd=fd)`` resolves it against ``fd``. The submission opens its own
working folder (allowed), moves its working folder 24 levels down into new sub-folders of
its own (allowed), then opens ``"../" * 24 + "tmp/torchlab-escape-dir_fd_escape"`` and
``"../" * 24 + <repo>/reference_impl/strides.py`` with ``dir_fd``: the guard sees a path
inside the working folder; the kernel climbs from the working folder to ``/``. It writes the
marker, reads the reference engine and runs it in place of its own code. The guard must
check the folder a ``dir_fd`` names (or refuse ``dir_fd`` and ``chdir`` altogether),
refuse both opens, and the score is 0.
"""

import os
import sys

DEPTH = 24
MARK = "tmp/torchlab-escape-dir_fd_escape"


def _escape():
    top = os.open(".", os.O_RDONLY | os.O_DIRECTORY)  # the working folder: allowed
    here = os.getcwd()
    deep = os.path.join(*["d"] * DEPTH)
    os.makedirs(deep, exist_ok=True)
    os.chdir(deep)  # still inside the working folder: allowed
    up = "../" * DEPTH  # from here: back to the working folder; from ``top``: to "/"
    try:
        try:
            fd = os.open(up + MARK, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644, dir_fd=top)
            os.write(fd, b"written past the guard through dir_fd\n")
            os.close(fd)
        except FileExistsError:
            pass
        root = os.path.dirname(os.path.dirname(sys.modules["autograder"].__file__))
        fd = os.open(up + root.lstrip("/") + "/reference_impl/strides.py", os.O_RDONLY, dir_fd=top)
        with os.fdopen(fd) as f:
            return f.read()
    finally:
        os.chdir(here)


_done = False


def arange(*args, **kwargs):
    global _done
    if not _done:
        exec(_escape(), globals())  # the reference engine replaces this module's functions
        _done = True
    return globals()["arange"](*args, **kwargs)
