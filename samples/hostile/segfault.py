"""Hostile submission: crashes the interpreter (SIGSEGV) inside every case.

It stands in for a C++ lab whose extension dereferences a bad pointer. The grader must
record a crash ("segmentation fault", with the line of this file) for each case it ran,
start a fresh worker for the next, stop within the student's time budget, and score 0.
"""

import faulthandler


def arange(*args, **kwargs):
    faulthandler._sigsegv()
