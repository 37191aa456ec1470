"""Hostile submission: ends its process with ``os._exit(0)`` in the middle of every case.

No ``finally`` and no exception handler runs, and the exit code says "success". The grader
must record a crash ("exited with code 0") for each case it ran, start a fresh worker for
the next, stop within the student's time budget, and score 0.
"""

import os


def arange(*args, **kwargs):
    os._exit(0)
