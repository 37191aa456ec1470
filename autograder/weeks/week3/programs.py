"""Week 3 cases. Random programs of everything together, from the generator the course's engine
is held to (autograder/differential/week3.py), drawn once from the public cases' own seeds."""

from __future__ import annotations

from autograder.differential import random_programs_case
from autograder.weeks.week3.common import W

random_programs_case(
    W,
    n=40,
    points=4,
    tasks=tuple(f"3.{i}" for i in range(1, 8)),
    doc="""Expression graphs with views and in-place ops, broadcasting and dtypes, every kind of
    hook, retain_graph and create_graph, checkpoint, custom Functions, no_grad and
    inference_mode, ``inputs=`` and ``autograd.grad``: each step's result, grad_fn and version,
    then every tensor's grad and the graph. A failure prints the program; run it on torch and
    on yours to see where they part.""",
)
