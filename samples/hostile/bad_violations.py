"""Hostile submission: sends a result for the running case whose "violations" is a number.

During its first case it finds the case the worker is running (``case`` in the worker's
stack frames) and writes ``{"event": "result", "id": <that case>, "violations": 7,
"observation": 0}`` to the descriptor named on the worker's command line, then raises. The
runner accepts a result for the current case and cleans it with ``[str(v) for v in
event.get("violations", [])]``: iterating an int raises ``TypeError`` in the grader's own
process, which ends the grading of the whole class. The grader must check the type of every
field it reads from the pipe, survive, score this student 0, and grade every other student
normally.
"""

import json
import os
import sys


def _running_case():
    frame = sys._getframe()
    while frame is not None:
        case = frame.f_locals.get("case")
        if hasattr(case, "id"):
            return case.id
        frame = frame.f_back
    return "week1::arange_is_contiguous"


def arange(*args, **kwargs):
    line = {"event": "result", "id": _running_case(), "violations": 7, "observation": 0}
    for arg in sys.argv[1:]:
        if arg.isdigit():
            os.write(int(arg), (json.dumps(line) + "\n").encode())
    raise NotImplementedError("arange: nothing here but a bad result line")
