"""Hostile submission: starts an unguarded process to do what the worker may not.

The child (``python -c``) imports torch and prints the reference engine's source; the
submission then executes that source and delegates everything to it. It tries
``os.system``, ``os.popen``, ``os.posix_spawn``, ``subprocess.run`` and
``_posixsubprocess.fork_exec`` (which raises no audit event). The guard must refuse every
one ("may not start other processes"), and the score is 0.
"""

import os
import sys

_ROOT = os.path.dirname(os.path.dirname(sys.modules["autograder"].__file__))
_CHILD = (
    "import torch, sys; "
    f"sys.stdout.write(open({os.path.join(_ROOT, 'reference_impl', 'strides.py')!r}).read())"
)
_CMD = [sys.executable, "-c", _CHILD]


def _subprocess():
    import subprocess

    return subprocess.run(_CMD, capture_output=True, text=True, timeout=30).stdout


def _popen():
    return os.popen(f"{sys.executable} -c {_CHILD!r}").read()


def _system():
    os.system(f"{sys.executable} -c {_CHILD!r} > out.txt")
    return open("out.txt").read()


def _posix_spawn():
    os.posix_spawn(sys.executable, _CMD, {})
    return ""


def _fork_exec():
    import _posixsubprocess

    r, w = os.pipe()
    args = [os.fsencode(a) for a in _CMD]
    _posixsubprocess.fork_exec(
        *(args, [args[0]], True, (w,), None, None, -1, -1, -1, w, -1, w),
        *(r, w, True, False, -1, None, None, None, -1, None, False),
    )
    os.close(w)
    with os.fdopen(r) as f:
        return f.read()


def arange(*args, **kwargs):
    errors = []
    for attempt in (_system, _popen, _posix_spawn, _subprocess, _fork_exec):
        try:
            source = attempt()
        except (OSError, ImportError, AttributeError, TypeError) as exc:
            errors.append(exc)
            continue
        if "def contiguous_strides" in source:
            exec(source, globals())
            return globals()["arange"](*args, **kwargs)
    raise errors[0] if errors else RuntimeError("no child answered")
