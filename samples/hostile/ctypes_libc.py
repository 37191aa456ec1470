"""Hostile submission: calls libc through ctypes, below every Python-level check.

With ``libc.open`` it could read the reference engine and write the gradebook without the
interpreter seeing a file being opened. It loads libc (``ctypes.CDLL(None)``) and reads
``reference_impl/strides.py`` next to the autograder it finds in ``sys.modules``. Week 1
has no native code, so the guard must refuse ctypes ("may not use ctypes") and the score is 0.
"""

import ctypes
import os
import sys


def arange(*args, **kwargs):
    root = os.path.dirname(os.path.dirname(sys.modules["autograder"].__file__))
    libc = ctypes.CDLL(None)
    fd = libc.open(os.path.join(root, "reference_impl", "strides.py").encode(), os.O_RDONLY)
    buf = ctypes.create_string_buffer(1 << 20)
    n = libc.read(fd, buf, len(buf))
    exec(buf.raw[:n].decode(), globals())
    return globals()["arange"](*args, **kwargs)
