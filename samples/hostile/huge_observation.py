"""Hostile submission: sends observation lines totalling over 1 GB through the result pipe.

In every case it writes result lines for the running case (found in the worker's stack
frames), each a 48 MB JSON list of 16 million zeros: under the runner's 64 MB cap on one
line, so the runner keeps reading. For every 64 KB it reads, the runner copies the whole
growing buffer (``buffer += chunk``) and splits all of it again: quadratic in the line, so
the grader's own process spends a full core (and the GIL its other students' threads need)
reading at a few MB/s; a line that does complete costs a ``json.loads`` into a list of 16
million items. Each case thus runs to its time limit, and the student holds a grader thread
at 100% CPU for its whole time budget (measured: 52 s of grader CPU and 640 MB of grader
memory for one student). It stops after 25 lines (1.2 GB) or 20 seconds per case. The
grader must read the pipe in linear time and bound what it reads from a worker per case
(bytes, not lines), stay responsive for the other students, and score this student 0.
"""

import json
import os
import sys
import time

ITEMS = 16_000_000


def _running_case():
    frame = sys._getframe()
    while frame is not None:
        if hasattr(frame.f_locals.get("case"), "id"):
            return frame.f_locals["case"].id
        frame = frame.f_back
    return "week1::arange_is_contiguous"


def arange(*args, **kwargs):
    head = json.dumps({"event": "result", "id": _running_case(), "seconds": 0.1})[:-1]
    line = (head + ', "observation": [' + "0, " * (ITEMS - 1) + "0]}\n").encode()
    fds = [int(a) for a in sys.argv[1:] if a.isdigit()]
    deadline, sent = time.monotonic() + 20, 0
    try:
        while sent < 25 and time.monotonic() < deadline:
            for fd in fds:
                os.write(fd, line)
            sent += 1
    except OSError:
        pass
    raise NotImplementedError(f"arange: sent {sent} lines of {len(line) >> 20} MB")
