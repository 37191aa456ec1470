"""Week 6 cases: torch.compile's front end, TorchDynamo. The learner's module uses torch.

Each case runs one program twice: through real Dynamo (``autograder/truth/week6.py``: a
recording backend, ``torch._dynamo.explain``, the guard tree of a cache entry,
``torch.compile``'s compile count) and through the learner's ``compile`` module. Observations
are plain data: graph counts, each graph's calls named by ``common.op_name``, placeholders,
what the graphs compute, guard decisions, compile counts. Every program is made fresh per
run (``common.fresh``): Dynamo keeps compiled code on the code object.
"""

# isort: off
# Imported in this order, so cases are listed task by task.
from autograder.weeks.week6 import capture, guards, aot, inductor, random_programs  # noqa: F401

# isort: on
