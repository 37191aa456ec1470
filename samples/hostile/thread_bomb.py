"""Hostile submission: starts threads from inside a case.

Threads raise no audit event, and when the grader runs as root no rlimit caps them: with
small stacks, tens of thousands of threads take every process id on the machine, and the
grader can no longer start a worker for anyone. (This one stops at 64 threads, so the file is
safe to keep; threads would also race the guard's path checks.) The guard must refuse the
first thread ("may not start threads"), and the score is 0.
"""

import threading
import time


def arange(*args, **kwargs):
    threading.stack_size(32 * 1024)
    for _ in range(64):
        threading.Thread(target=time.sleep, args=(60,), daemon=True).start()
    raise RuntimeError("64 threads started")
