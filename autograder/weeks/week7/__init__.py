"""Week 7 cases: torch.distributed for a new chip. The learner's module uses torch.

Each case runs one program on a world of ranks (threads: ``world.py``) twice: with gloo
through ``dist.*`` (``autograder/truth/week7.py``) and with the learner's library over the
course's interconnect. Observations are plain data: each rank's tensors after a collective,
store answers, Work states, DDP's parameters and the calls it makes, bucket assignments, and
what the interconnect carried.
"""

# isort: off
# Imported in this order, so cases are listed task by task.
from autograder.weeks.week7 import store, collectives, backend, buckets  # noqa: F401
from autograder.weeks.week7 import ddp, hooks, fsdp, random_programs  # noqa: F401

# isort: on
