"""Week 5 cases: a device of your own (``labdev``), real to torch, compared with the CPU.

Every case runs a program twice: with torch on the CPU and with your device. What torch does
on the CPU is the answer: values, shapes, strides, dtypes, which results share storage, the
keys a tensor dispatches on, what the allocator holds, and torch's meta shapes.
"""

from __future__ import annotations

from typing import Any

# isort: off
# Imported in this order, so cases are listed task by task.
from autograder.weeks.week5 import device, copies_views, kernels, meta  # noqa: F401
from autograder.weeks.week5 import programs  # noqa: F401

# isort: on

__all__: list[Any] = []
