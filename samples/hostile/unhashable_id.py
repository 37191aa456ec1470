"""Hostile submission: writes an event whose case id is a list into the worker's result pipe.

During its first case it writes ``{"event": "start", "id": ["x"]}`` (and a result line with
the same id) to the descriptor named on the worker's command line. The line is valid JSON
with an "event" key, so the runner acts on it: ``event.get("id") in wanted`` looks a list up
in a set and raises ``TypeError: unhashable type``, outside the ``try`` that guards parsing,
which ends the grading of the whole class. The grader must check every field's type before
using it (a case id is a str it sent), survive, score this student 0, and grade every other
student normally.
"""

import json
import os
import sys

LINES = [{"event": "start", "id": ["x"]}, {"event": "result", "id": ["x"], "observation": 1}]


def arange(*args, **kwargs):
    data = "".join(json.dumps(e) + "\n" for e in LINES).encode()
    for arg in sys.argv[1:]:
        if arg.isdigit():
            os.write(int(arg), data)
    raise NotImplementedError("arange: nothing here but a list for an id")
