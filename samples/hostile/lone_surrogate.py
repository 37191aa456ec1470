"""Hostile submission: puts a lone surrogate ("\\ud800") into every text the grader keeps.

Its ``arange`` prints ``"\\udcff"`` and raises ``ValueError("\\ud800 ...")``. The worker
sends both with ``json.dumps`` (``ensure_ascii``: they travel as ``"\\ud800"`` escapes), and
``json.loads`` in the grader turns them back into a Python str that is not valid Unicode.
The grader keeps it in the report; writing the student's HTML page or results.json as UTF-8,
or printing the console table, then raises ``UnicodeEncodeError`` in the grader's own
process, which ends the grading of the whole class. The grader must make every text from the
worker encodable (replace lone surrogates) before it keeps it, survive, score this student
0, and grade every other student normally.
"""

import sys


def arange(*args, **kwargs):
    print("output with a lone surrogate: \udcff")
    sys.stdout.flush()
    raise ValueError("\ud800 a lone surrogate in the message")
