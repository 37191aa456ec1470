"""Hostile submission: tries to kill the grader (its parent process) from inside a case.

It tries ``os.kill(os.getppid(), SIGKILL)``, ``os.killpg`` on the grader's process group,
a pidfd (``signal.pidfd_send_signal``, which raises no audit event), and
``resource.prlimit`` to starve the grader of file descriptors. (It does not try
``os.kill(-1, ...)``: should the guard ever fail, that would kill every process on the
machine.) The grader must refuse each attempt ("may not signal other processes"), survive,
score 0, and grade every other student.
"""

import os
import resource
import signal


def _attempts():
    parent = os.getppid()
    yield lambda: os.kill(parent, signal.SIGKILL)
    yield lambda: os.killpg(os.getpgid(parent), signal.SIGKILL)
    yield lambda: signal.pidfd_send_signal(os.pidfd_open(parent), signal.SIGKILL)
    yield lambda: resource.prlimit(parent, resource.RLIMIT_NOFILE, (0, 0))


def arange(*args, **kwargs):
    errors = []
    for attempt in _attempts():
        try:
            attempt()
        except (OSError, AttributeError) as exc:
            errors.append(exc)
    raise errors[0] if errors else RuntimeError("the grader should be gone")
