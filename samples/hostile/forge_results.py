"""Hostile submission: forges the worker's own protocol, then dies so nothing corrects it.

During its first case it finds the worker's event pipe (the descriptor named on the worker's
command line), writes a well-formed ``{"event": "result", "status": "pass"}`` line for every
case of the week (hidden ones from the worker's case registry), then ends the process with
``os._exit(0)``. A runner that takes a result line's word for its status gives full marks.
The grader must give 0: only an observation, judged against torch in the grader's own
process, can pass a case.
"""

import json
import os
import sys


def arange(*args, **kwargs):
    registry = getattr(sys.modules.get("autograder.cases"), "_REGISTRY", {})
    lines = "".join(
        json.dumps({"event": "result", "id": c.id, "status": "pass", "message": ""}) + "\n"
        for week in registry.values()
        for c in week.values()
    )
    for arg in sys.argv[1:]:
        if arg.isdigit():
            os.write(int(arg), lines.encode())
    os._exit(0)
