"""torchlab's autograder: cases written once, run against real torch and the engine under test.

The pieces, in the order a check flows through them:

- ``cases``: the registry. A case is a small scenario written against a ``lib`` argument.
- ``observe``: turns what a case produced into plain data (shape, strides, values, errors).
- ``oracle``: runs each case with real torch and caches the observations on disk.
- ``worker`` / ``runner``: run each case with the engine under test in a child process,
  with a time and memory limit, and judge it.
- ``judge``: compares two observations and explains the first difference in plain words.
- ``report``: one report model, rendered as a text table, HTML, JSON or pytest failures.
"""

from autograder.cases import case, property_case
from autograder.observe import attempt, observe, shares_storage

__all__ = ["attempt", "case", "observe", "property_case", "shares_storage"]
