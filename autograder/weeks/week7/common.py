"""Helpers shared by the week-7 cases: inputs, plain results and the interconnect's counters.
They make inputs and read results; they never answer for the learner."""

from __future__ import annotations

import threading
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
    "mlp",
    "train",
    "floats",
    "averaged",
    "Events",
    "build_lock",
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


# ---- models and training, for DDP (real and the learner's) -----------------------------------

build_lock = threading.Lock()  # ranks are threads: models are built one at a time, from seeds


def mlp(rank: int, sizes: tuple[int, ...] = (6, 8, 3), smooth: bool = False) -> torch.nn.Module:
    """An MLP whose weights differ per rank (DDP must broadcast rank 0's): quarters of small
    integers, or with ``smooth`` normal draws (every bit of the mantissa in use, so that a
    rounding such as float16's shows)."""
    with build_lock:
        layers: list[torch.nn.Module] = []
        for i, (a, b) in enumerate(zip(sizes, sizes[1:], strict=False)):
            if i:
                layers.append(torch.nn.ReLU())
            layers.append(torch.nn.Linear(a, b))
        model = torch.nn.Sequential(*layers)
        g = torch.Generator().manual_seed(100 + rank)
        with torch.no_grad():
            for p in model.parameters():
                if smooth:
                    p.copy_(torch.randn(p.shape, generator=g) / 2)
                else:
                    p.copy_(torch.randint(-3, 4, p.shape, generator=g).float() / 4)
    return model


def train(
    model: Any, rank: int, steps: int, width: int = 6, between: Any = None, smooth: bool = False
) -> list[float]:
    """``steps`` SGD steps on rank ``rank``'s own batches of 4 rows of ``width`` inputs;
    ``between(step)`` runs before each step. The losses."""
    opt = torch.optim.SGD(model.parameters(), lr=0.125)
    g = torch.Generator().manual_seed(200 + rank)
    losses = []
    for step in range(steps):
        if between is not None:
            between(step)
        if smooth:
            x = torch.randn(4, width, generator=g)
        else:
            x = torch.randint(-4, 5, (4, width), generator=g).float() / 4
        opt.zero_grad()
        loss = model(x).pow(2).mean()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return losses


def floats(t: torch.Tensor) -> list:
    """A tensor's values as floats, for the judge's tolerance (rounding them here would turn
    a difference in the last bit, from another order of summation, into one of 1e-5)."""
    return t.detach().double().tolist()


def averaged(bucket: Any) -> Any:
    """What DDP does with a bucket, written by the course for hooks that watch: divide by the
    world's size, all-reduce, and a future of the result."""
    tensor = bucket.buffer().div_(dist.get_world_size())
    work = dist.all_reduce(tensor, async_op=True)
    return work.get_future().then(lambda fut: fut.value()[0])


class Events:
    """The order things happen in during backward, as DDP's overlap is judged (never by the
    clock): ``grad <name>`` when a parameter's gradient has been accumulated (a hook the
    course registers *before* the model is wrapped, so it runs before any hook of the
    wrapper's), and ``launch <bucket> [<names>]`` when a bucket's communication starts (the
    course's communication hook, ``self.hook``, which then averages the bucket)."""

    def __init__(self, model: torch.nn.Module, log: list | None = None) -> None:
        self.log: list = [] if log is None else log
        self.names = {p.data_ptr(): name for name, p in model.named_parameters()}
        for name, p in model.named_parameters():
            p.register_post_accumulate_grad_hook(
                lambda _, name=name: self.log.append(f"grad {name}")
            )

    def hook(self, state, bucket):  # no annotations: real DDP checks a hook's
        names = ", ".join(self.names.get(p.data_ptr(), "?") for p in bucket.parameters())
        last = " (last)" if bucket.is_last() else ""
        self.log.append(f"launch {bucket.index()} [{names}]{last}")
        return averaged(bucket)

    def iteration(self, step: int) -> None:
        self.log.append(f"-- iteration {step}")
