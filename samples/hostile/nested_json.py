"""Hostile submission: writes one deeply nested JSON line into the worker's result pipe.

During its first case it writes ``"[" * 100000`` and a newline to the descriptor named on
the worker's command line. The runner parses every line it reads with ``json.loads`` and
catches ``ValueError``, ``KeyError`` and ``TypeError``; a line nested this deep makes the
JSON decoder raise ``RecursionError`` (a ``RuntimeError``), which nothing catches, so it
escapes ``_supervise`` and ends the grading of the whole class. The grader must survive any
bytes on the pipe (treat an unreadable line as the worker's failure), score this student 0,
and grade every other student normally.
"""

import os
import sys

LINE = b"[" * 100_000 + b"\n"


def arange(*args, **kwargs):
    for arg in sys.argv[1:]:
        if arg.isdigit():
            os.write(int(arg), LINE)
    raise NotImplementedError("arange: nothing here but brackets")
