"""Hostile submission: floods the worker's event pipe and ignores its time limit.

During its first case it writes bursts of ``{"event": "imported"}`` lines into the descriptor
named on the worker's command line, forever, swallowing the worker's alarm (``except
BaseException``); a burst cut short by a full pipe leaves half a line. A runner that checks
its deadline only when the pipe falls silent does not stop this worker in time, and one that
parses every line it reads crashes. The grader must stop it at its time limit, score 0, and
grade every other student. (It stops writing once the grader is gone.)
"""

import os
import sys

LINE = b'{"event": "imported"}\n' * 4096


def arange(*args, **kwargs):
    fds = [int(a) for a in sys.argv[1:] if a.isdigit()]
    while True:
        try:
            for fd in fds:
                os.write(fd, LINE)
        except BrokenPipeError:
            os._exit(0)
        except BaseException:  # noqa: B036 - the alarm too: only the watchdog gets out
            pass
