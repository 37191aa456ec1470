"""Week 3 cases: an autograd engine of your own, each compared with real torch.

Every case is written once against ``lib`` (real torch, or the engine under test) using torch's
own names: ``lib.tensor``, ``t.grad_fn.next_functions``, ``lib.autograd.grad``,
``lib.autograd.Function``, ``lib.nn.Module``, ``lib.optim.Adam``. ``tasks`` lists every task of
``labs/week3_autograd/autograd.py`` the case needs; the tags are measured by blanking one task
at a time in a copy of the solution. Every call into ``lib`` sits inside ``error``/``failure``
so an engine that raises fails a case the same way torch's would be seen to.
"""

# isort: off
# Imported in this order, so cases are listed task by task.
from autograder.weeks.week3 import tensors, ops, engine, rules, functions, nn_optim  # noqa: F401
from autograder.weeks.week3 import programs  # noqa: F401

# isort: on
