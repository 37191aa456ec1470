"""Hostile submission: monkeypatches the grading machinery it can reach to "pass" everything.

At import it replaces ``autograder.judge.judge`` (always PASS), the code of
``autograder.cases.run_case`` (so the worker's own reference to it runs the fake too) and
``autograder.observe.observe`` (both return a "passed" marker), and puts fake ``torch``,
``pytest`` and ``torch.testing`` modules into ``sys.modules`` whose every attribute says
"passed". All of that lives in the worker's process; the grader must judge in its own
process, against torch's answers the worker never sees, and score 0.
"""

import sys
import types


class _Passed(types.ModuleType):
    def __getattr__(self, name):
        return lambda *a, **k: "passed"


def _fake_run_case(c, lib, examples=None):
    return {"kind": "value", "type": "str", "value": "passed"}


def _patch() -> None:
    import autograder.cases
    import autograder.judge
    import autograder.observe

    verdict = autograder.judge.Verdict(autograder.judge.PASS)
    autograder.judge.judge = lambda expected, actual: verdict
    autograder.cases.run_case.__code__ = _fake_run_case.__code__
    autograder.cases.run_case = _fake_run_case
    autograder.observe.observe = lambda *a, **k: "passed"
    for name in ("torch", "torch.testing", "pytest", "_pytest"):
        sys.modules[name] = _Passed(name)


_patch()


def arange(*args, **kwargs):
    return "passed"
