"""Hostile submission: sends back an observation shaped to crash the judge.

It patches the worker's ``autograder.cases.raised`` so that every error becomes
``{"kind": "raised"}``, with no ``type`` or ``message``, and makes ``arange`` raise. The judge
runs in the grader's process; a judge that indexes ``act["type"]`` without checking raises
KeyError there, which ends the whole class's grading. The grader must survive, score this
student 0 with a clear message, and grade every other student normally.
"""

import sys

cases = sys.modules.get("autograder.cases")
if cases is not None:
    cases.raised = lambda exc: {"kind": "raised"}


def arange(*args, **kwargs):
    raise ValueError("arange: nothing here")
