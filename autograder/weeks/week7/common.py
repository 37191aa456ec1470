"""Helpers shared by the week-7 cases: inputs, plain results and the interconnect's counters.
They make inputs and read results; they never answer for the learner."""

from __future__ import annotations

from typing import Any

import torch
import torch.distributed as dist

from autograder.observe import raised
from autograder.oracle import TorchLib
from autograder.weeks.week7.world import World, run_world

W = "week7"
__all__ = [
    "W",
    "World",
    "data",
    "plain",
    "run_world",
    "traffic",
    "ints",
    "ReduceOp",
    "carried",
    "error_of",
]
ReduceOp = dist.ReduceOp


def data(rank: int, shape: list[int], dtype: str, salt: int = 0, op: str = "SUM") -> torch.Tensor:
    """Rank ``rank``'s input: small integers from a generator seeded by rank and salt (never
    the global RNG: ranks are threads and would race for it). PRODUCT gets values in -2..2 so
    that four ranks' product stays exact in bfloat16."""
    g = torch.Generator().manual_seed(1000 * salt + rank)
    low, high = (-2, 3) if op == "PRODUCT" else (-20, 21)
    return torch.randint(low, high, shape, generator=g).to(getattr(torch, dtype))


def plain(t: torch.Tensor) -> dict[str, Any]:
    dtype = str(t.dtype).removeprefix("torch.")
    return {"shape": list(t.shape), "dtype": dtype, "values": t.tolist()}


def ints(rank: int, *shape: int, dtype: torch.dtype = torch.float32, salt: int = 0) -> torch.Tensor:
    """Small integers (exact under any order of summation), seeded by rank and salt."""
    return data(rank, list(shape), str(dtype).removeprefix("torch."), salt)


def traffic(lib: Any, link: Any, kind: str, numel: int, root: int = 0) -> dict[str, Any]:
    """What each rank sent, counted by the learner's interconnect; on torch's side (gloo's
    sockets are invisible from Python) the algorithm's textbook cost, from the truth module."""
    if isinstance(lib, TorchLib):
        return lib.algorithm_traffic(kind, link.world_size, numel, root)
    return {"messages": list(link.messages), "elements": sum(link.elements)}


def carried(lib: Any, link: Any) -> bool:
    """Whether the world's collectives went over the course's interconnect: a backend that
    hands the work to gloo (``register_labccl`` returning ``"gloo"``) sends nothing over it.
    On torch's side gloo is the library, its own transport the interconnect: True."""
    return True if isinstance(lib, TorchLib) else sum(link.messages) > 0


def error_of(fn: Any) -> str:
    """The kind of error ``fn()`` raises (``"RuntimeError"``...), or ``"no error"``: for
    calls whose message is torch's own business (an internal assert naming its source
    line), or that must raise where torch raises."""
    try:
        fn()
    except Exception as exc:  # noqa: BLE001 - the error is the observation
        return raised(exc)["type"]
    return "no error"
