"""Week 1 cases: strides and views, each compared with real torch.

Every case is written once against ``lib`` (real torch, or the engine under test). ``tasks``
lists every task of ``labs/week1_strides/strides.py`` the case needs; the tags are measured
by blanking one task at a time in a copy of the solution, and the project's tests keep them
true.

The module imports neither torch nor hypothesis: property cases import hypothesis inside their
strategy functions, so a learner's check stays fast when torch's answers are cached.

Convention: every case's first call into ``lib`` is ``lib.arange``, and its first observation
depends on it. An engine whose ``arange`` hangs, crashes or raises then fails every case the
same way, which is what the grader's bad-input tests expect.
"""

# isort: off
# Imported in this order, so cases are listed task by task.
from autograder.weeks.week1 import layout, views, stride_zero, copies  # noqa: F401
from autograder.weeks.week1 import arithmetic, writes, aligned, properties  # noqa: F401

# isort: on
