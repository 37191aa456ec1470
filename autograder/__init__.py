"""torchlab's autograder: cases written once, run against real torch and the engine under test.

The pieces, in the order a check flows through them:

- ``cases``: the registry. A case is a small scenario written against a ``lib`` argument.
- ``observe``: turns what a case produced into plain data (shape, strides, values, errors).
- ``oracle``: runs each case with real torch and caches the observations on disk.
- ``labs``: finds the learner's files (``labs/`` or ``cpp_labs/``, by ``Week.track``, or a
  submission's folder).
- ``runner``: ``run_week`` takes a ``Week`` and its cases to a report: torch's observations,
  a native week's build, the engine's runs, the judge.
- ``workers``: starts the child processes (``worker``) that run the engine under test, in
  a sandbox, directly or from a warm fork server, with a time and memory limit, and reads
  what they send as untrusted bytes.
- ``judge``: compares two observations and explains the first difference in plain words.
- ``report``: one report model, rendered as a text table, HTML, JSON or pytest failures.
"""

from autograder.cases import case, property_case
from autograder.observe import attempt, observe, shares_storage

__all__ = ["attempt", "case", "observe", "property_case", "shares_storage"]
