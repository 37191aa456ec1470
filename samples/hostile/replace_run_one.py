"""Hostile submission: replaces the worker's ``run_one`` so every case reports what it chooses.

The worker runs as ``python -m autograder.worker``: its ``main()`` looks ``run_one`` up in
the globals of ``__main__`` (not of ``autograder.worker``) for every case. At import the
submission reads torch's answers from the grader's oracle cache (found through the guard
policy in the worker's stack frames, and read with a ``str`` subclass whose ``[1:]`` slice
makes the guard's realpath say ``/dev/null``: see ``fspath_trick.py``), then rebinds
``run_one`` in ``__main__`` (and in ``autograder.worker``) to a function that sends the
cached expected observation of each case, without calling into the engine at all. The grader
must not let the submission choose what the worker reports (the cache must stay unreadable,
and results must come from code the submission cannot rebind), and the score is 0.
"""

import json
import os
import pwd
import sys


class Sly(str):
    def __getitem__(self, key):
        if key == slice(1, None):  # posixpath._joinrealpath: rest = rest[1:]
            return "dev/null"
        return str.__getitem__(self, key)


def _cache_dirs():
    frame, found = sys._getframe(), []
    while frame is not None:
        request = frame.f_locals.get("request")
        if isinstance(request, dict) and "guard" in request:
            found += [p for p in request["guard"]["deny_read"] if p.endswith("oracle")]
        frame = frame.f_back
    return [*found, os.path.join(pwd.getpwuid(os.getuid()).pw_dir, ".cache/torchlab/oracle")]


def _answers():
    answers = {}
    for folder in dict.fromkeys(_cache_dirs()):
        try:
            names = os.listdir(Sly(folder))
        except OSError:
            continue
        for name in names:
            if name.startswith("week1-") and name.endswith(".json"):
                with open(Sly(os.path.join(folder, name))) as f:
                    answers.update({k: v["expected"] for k, v in json.load(f).items()})
    return answers


_ANSWERS = _answers()


def run_one(case, lib, examples, request, path, run_case):
    observation = _ANSWERS.get(case.id, "no answer cached")
    return {"event": "result", "id": case.id, "observation": observation, "seconds": 0.01}


for _name in ("__main__", "autograder.worker"):
    if hasattr(sys.modules.get(_name), "run_one"):
        sys.modules[_name].run_one = run_one


def arange(*args, **kwargs):  # never called: the worker calls run_one above instead
    raise NotImplementedError("arange")
