"""Week 2 cases: a dispatcher of your own, each compared with real torch.

Every case is written once against ``lib`` (real torch, or the engine under test) and uses
torch's own names: ``lib._C.DispatchKeySet``, ``lib._C._dispatch_keys``,
``lib.library.Library``, ``lib.ops.<ns>.<op>``, ``lib.inference_mode``. ``tasks`` lists every
task of ``labs/week2_dispatcher/dispatcher.py`` the case needs; the tags are measured by
blanking one task at a time in a copy of the solution.

Convention: every case's first observation calls into ``lib`` inside a guard, and every call
into ``lib`` sits inside a guard, so an engine that raises or hangs fails every case the same
way. Operators are registered in a namespace of the case's own and unregistered at its end
(torch's registrations are global to the oracle's process).
"""

# isort: off
# Imported in this order, so cases are listed task by task.
from autograder.weeks.week2 import keys, keysets, table, calls  # noqa: F401
from autograder.weeks.week2 import programs  # noqa: F401

# isort: on
