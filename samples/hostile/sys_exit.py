"""Hostile submission: calls ``sys.exit(0)`` in the middle of every case.

A test runner that trusts exit code 0 would call that a success. The grader must record
each case as an error ("called sys.exit(0)"), score 0, and keep grading.
"""

import sys


def arange(*args, **kwargs):
    sys.exit(0)
