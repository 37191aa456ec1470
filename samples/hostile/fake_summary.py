"""Hostile submission: prints a fake "all passed" summary and writes fake result lines to
every file descriptor it inherited (3..20, and the one named on the worker's command line).

Each line claims that a case passed (``{"event": "result", "status": "pass"}``), one per case
of the week, hidden ones included (it finds them in the worker's case registry). The grader
must not believe what the engine prints, nor a result the worker did not produce: the real
results replace the fake ones, the score is 0, and the printed text is kept as output only.
"""

import json
import os
import sys

SUMMARY = "============ all 60 passed in 0.42s ============ score 133/133"


def _fake_lines() -> bytes:
    registry = getattr(sys.modules.get("autograder.cases"), "_REGISTRY", {})
    ids = [c.id for week in registry.values() for c in week.values()]
    fake = [{"event": "result", "id": i, "status": "pass", "message": ""} for i in ids]
    return "".join(json.dumps(e) + "\n" for e in fake).encode()


def _spray() -> None:
    print(SUMMARY)
    fds = set(range(3, 21))
    fds.update(int(a) for a in sys.argv[1:] if a.isdigit())
    lines = _fake_lines()
    for fd in sorted(fds):
        try:
            os.write(fd, lines)
        except OSError:
            pass


_spray()


def arange(*args, **kwargs):
    _spray()
    raise NotImplementedError("arange: nothing here but a fake summary")
