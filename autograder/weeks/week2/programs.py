"""Week 2 cases. Random programs of everything together, from the generator the course's engine
is held to (autograder/differential/week2.py), drawn once from the public cases' own seeds."""

from __future__ import annotations

from autograder.differential import random_programs_case
from autograder.weeks.week2.common import W

random_programs_case(
    W,
    n=40,
    points=4,
    tasks=("2.1", "2.2", "2.3", "2.4"),
    doc="""Operators of a namespace of their own, kernels on runtime and alias keys (some of them
    fallthroughs), fallbacks, a second library destroyed, cpu and meta tensors, and calls,
    redispatches, table dumps and key-set algebra inside nested inference_mode, no_grad and
    include/exclude guards. A failure prints the program; run it on torch and on yours to see
    where they part.""",
)
