"""Hostile submission: writes garbage into the worker's event pipe.

During its first case it writes a plain-text "all passed" line, a result line with no case
id, and a JSON list into the descriptor named on the worker's command line, then raises.
A runner that parses every line it reads as a well-formed event crashes, and the whole
class's grading with it. The grader must survive, score this student 0 and say the worker's
output could not be read, and grade every other student normally.
"""

import os
import sys

GARBAGE = b'all 60 passed, score 133/133\n{"event": "result"}\n[1, 2, 3]\n\xff\xfe\n'


def arange(*args, **kwargs):
    for arg in sys.argv[1:]:
        if arg.isdigit():
            os.write(int(arg), GARBAGE)
    raise NotImplementedError("arange: nothing here but garbage")
