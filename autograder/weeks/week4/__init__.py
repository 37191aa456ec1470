"""Week 4 cases: a caching allocator of your own, with the policy of PyTorch 2.13's CUDA one.

Every case drives the allocator through ``lib`` (``lib.CachingAllocator``, ``lib.Device``,
``lib.AllocatorConfig``, ``lib.round_size``...). There is no GPU here, so the expected answers
are pinned (``Week.truth = "pinned"``, ``autograder/pinning.py``); each case module says where
its truth comes from, and ``PIN_CHECKS`` below refuse a pin that disagrees with torch's own
figures.
"""

from __future__ import annotations

from typing import Any

# isort: off
# Imported in this order, so cases are listed task by task.
from autograder.weeks.week4 import sizes, blocks, miss, stats, chip, gpu, ported  # noqa: F401

# isort: on
from autograder.weeks.week4.checks import PIN_CHECKS, PIN_SKIPPED  # noqa: F401, E402

__all__: list[Any] = []
