"""Helpers shared by the week-7 cases: inputs, plain results and the interconnect's counters.
They make inputs and read results; they never answer for the learner."""

from __future__ import annotations

from typing import Any

import torch
import torch.distributed as dist

from autograder.differential.week7 import data, plain
from autograder.oracle import TorchLib
from autograder.weeks.week7.world import World, run_world

W = "week7"
__all__ = ["W", "World", "data", "plain", "run_world", "traffic", "ints", "ReduceOp"]
ReduceOp = dist.ReduceOp


def ints(rank: int, *shape: int, dtype: torch.dtype = torch.float32, salt: int = 0) -> torch.Tensor:
    """Small integers (exact under any order of summation), seeded by rank and salt."""
    return data(rank, list(shape), str(dtype).removeprefix("torch."), salt)


def traffic(lib: Any, link: Any, kind: str, numel: int, root: int = 0) -> dict[str, Any]:
    """What each rank sent, counted by the learner's interconnect; on torch's side (gloo's
    sockets are invisible from Python) the algorithm's textbook cost, from the truth module."""
    if isinstance(lib, TorchLib):
        return lib.algorithm_traffic(kind, link.world_size, numel, root)
    return {"messages": list(link.messages), "elements": sum(link.elements)}
