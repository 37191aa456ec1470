"""Week 5 cases. Random programs on the device, from the generator the course's engine is held
to (autograder/differential/week5.py), drawn once from the public cases' own seeds."""

from __future__ import annotations

from autograder.differential import random_programs_case
from autograder.weeks.week5.common import W

random_programs_case(
    W,
    n=40,
    points=4,
    tasks=("5.1", "5.2", "5.3", "5.4", "5.5", "5.6", "5.7", "5.8"),
    doc="""Tensors made on the device (copied from the CPU, contiguous or not; zeros, ones, full,
    empty_strided), views, the lab's kernels, ops through the fallback, writes, copies and a
    backward, each step read back through ``.cpu()`` and compared with the same program on the
    CPU, then what the kept tensors hold on the device. A failure prints the program (``dev``
    is "cpu" on torch's run, "labdev" on yours; ``data`` is the cases' own helper).""",
)
