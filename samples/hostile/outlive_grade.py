"""Hostile submission: leaves a process behind that outlives the grade.

The guard refuses ``os.fork`` because the event is in ``sandbox._PROCESS_EVENTS``, a module
global the hook reads at call time: the submission empties it. It then double-forks; the
grandchild calls ``os.setsid()`` (a new session and process group, so the runner's
``killpg`` of the worker's group misses it), closes every inherited descriptor (the result
pipe too, so the grader is not kept waiting), sleeps 4 s and writes
``/tmp/torchlab-escape-outlive_grade`` (with a ``str`` subclass that the guard's realpath
reads as ``/dev/null``, see ``fspath_trick.py``), long after the worker is gone. The grader
must refuse the fork (whatever the submission rebinds), leave no process of the submission
running once it has graded it (a cgroup or PID namespace, not a process group), and the
score is 0.
"""

import os
import sys
import time

MARK = "/tmp/torchlab-escape-outlive_grade"


class Sly(str):
    def __getitem__(self, key):
        return "dev/null" if key == slice(1, None) else str.__getitem__(self, key)


def _linger():
    os.setsid()
    if os.fork():
        os._exit(0)
    os.closerange(0, 4096)
    time.sleep(4)
    with open(Sly(MARK), "w") as f:
        f.write(f"pid {os.getpid()} sid {os.getsid(0)} outlived the worker\n")
    os._exit(0)


_left: list[int] = []


def arange(*args, **kwargs):
    sandbox = sys.modules.get("autograder.sandbox")
    if sandbox is not None:
        sandbox._PROCESS_EVENTS = frozenset()
    if not _left:  # one lingering process is enough
        pid = os.fork()
        if pid == 0:
            try:
                _linger()
            finally:
                os._exit(0)
        _left.append(pid)
        os.waitpid(pid, 0)
    raise NotImplementedError("arange: a process was left behind")
