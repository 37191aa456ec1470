"""Week 2b cases: drive the real dispatcher. The learner's module uses torch; so do the cases.

Each case runs twice in the usual way: with ``lib`` = the learner's ``real_dispatch`` module,
and with ``lib`` = torch answering the same question with its built-in ops and tools
(``autograder/truth/week2b.py``: ``aten::linear`` for the custom op, ``aten::mul`` for the
per-key one, torch's ``LoggingTensorMode`` for the recorder, torch's introspection for the
trace). Observations are plain data: values, shapes, op names, key names.

Convention (as in every week): the first observation of a case calls into ``lib`` inside a
guard, and every call into ``lib`` sits inside one. Operators get a namespace of their own per
case run (torch's registrations are global to a process, and the oracle runs every case).
"""

# isort: off
# Imported in this order, so cases are listed task by task.
from autograder.weeks.week2b import custom_ops, modes, trace, random_programs  # noqa: F401

# isort: on
