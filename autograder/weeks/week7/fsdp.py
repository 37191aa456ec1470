"""Task 7.8: the learner's ``fully_shard`` against FSDP2's (``torch.distributed.fsdp``).

Both sides shard the same models on the same worlds (the learner's on their backend, torch's
on gloo). What is compared: each rank's local shards (FSDP2's ``to_local()``) and their
gradients, the losses, which modules hold gathered parameters after forward, and the
collectives each side asks of its backend (recorded by the course's process group around
it): the all-gathers in order and the reduce-scatters in order, each sequence on its own
(FSDP2 prefetches the next all-gather during backward; when an all-gather is issued
relative to a reduce-scatter is its business, not the learner's).
"""

from __future__ import annotations

from typing import Any

import torch
import torch.distributed as dist

from autograder.cases import case
from autograder.observe import guard
from autograder.weeks.week7 import backend
from autograder.weeks.week7.common import (
    W,
    World,
    build_lock,
    error_of,
    floats,
    mlp,
    run_world,
    train,
)

TASKS = ("7.2", "7.3", "7.4", "7.8")
SIZES = (8, 16, 16, 4)  # Linear(8, 16)-ReLU-Linear(16, 16)-ReLU-Linear(16, 4)


def _init(lib: Any, w: World) -> None:
    dist.init_process_group(
        lib.register_labccl(), store=w.store, rank=w.rank, world_size=w.world_size
    )


def local(t: torch.Tensor) -> torch.Tensor:
    """This rank's part of a parameter or gradient: FSDP2's are DTensors (``to_local()``);
    yours are plain tensors already."""
    return t.to_local() if hasattr(t, "to_local") else t


def shard(lib: Any, model: torch.nn.Module, layout: tuple) -> None:
    """``fully_shard`` on the listed layers (indices into the Sequential; None: the whole
    model), in that order."""
    for i in layout:
        lib.fully_shard(model if i is None else model[i])


def shards(model: torch.nn.Module) -> dict[str, Any]:
    return {n: floats(local(p)) for n, p in model.named_parameters()}


def grad_shards(model: torch.nn.Module) -> dict[str, Any]:
    return {
        n: None if p.grad is None else floats(local(p.grad)) for n, p in model.named_parameters()
    }


def collectives(log: list) -> dict[str, list]:
    """The recorded calls, all-gathers and reduce-scatters each in their own order."""
    kinds = ("all_gather_single", "reduce_scatter_single")
    return {k: [c[1:] for c in log if isinstance(c, list) and c[0] == k] for k in kinds}


def _worlds(fn: Any, sizes: tuple = (2, 3, 4)) -> dict[str, Any]:
    return {f"W={n}": guard(lambda n=n: run_world(n, fn)) for n in sizes}


@case(W, points=2, tasks=("7.4", "7.8"))
def task_7_8_each_rank_keeps_its_rows(lib: Any) -> Any:
    """After ``fully_shard`` on each Linear and on the whole model, worlds of 2, 3 and 4:
    each rank's local shard of every parameter (``torch.chunk``'s rows of dim 0: 16 rows
    over 3 ranks are 6, 6 and 4; 4 rows over 3 ranks are 2, 2 and none), taken from the
    rank's own weights (nothing is broadcast); where the rows divide evenly, each shard's
    storage holds its own rows only (not the whole parameter)."""

    def rank_main(w: World) -> Any:
        _init(lib, w)
        model = mlp(w.rank, SIZES)
        shard(lib, model, (0, 2, 4, None))
        out: dict[str, Any] = {"shards": shards(model)}
        if SIZES[-1] % w.world_size == 0:  # even rows: FSDP2's padded storage is exact too
            out["storage bytes"] = {
                n: local(p).untyped_storage().nbytes() for n, p in model.named_parameters()
            }
        return out

    return _worlds(rank_main)


@case(W, points=3, tasks=TASKS)
def task_7_8_training_steps(lib: Any) -> Any:
    """Two SGD steps with every Linear and the whole model sharded, worlds of 2, 3 and 4:
    the losses, the local shards and the local gradient shards (each the mean over ranks of
    the gradient's rows this rank keeps)."""

    def rank_main(w: World) -> Any:
        _init(lib, w)
        model = mlp(w.rank, SIZES)
        shard(lib, model, (0, 2, 4, None))
        losses = train(model, w.rank, 2, width=8)
        return {"losses": losses, "shards": shards(model), "grads": grad_shards(model)}

    return _worlds(rank_main)


LAYOUTS = {
    "each Linear, then the model": (0, 2, 4, None),
    "the model alone": (None,),
    "the first Linear, then the model (which takes the rest)": (0, None),
    "the first two Linears, no root over them": (0, 2),
}


@case(W, points=3, tasks=TASKS)
def task_7_8_what_fully_shard_asks_of_a_backend(lib: Any) -> Any:
    """The collectives of one training step, for four ways of sharding the model (world of
    2): one ``all_gather_single`` per unit before its forward and, for a unit that is not a
    root (the first to run forward, which keeps its parameters), another before its
    backward; one ``reduce_scatter_single`` with AVG per unit once its backward is done (a
    unit whose inputs need no gradient waits for the end of backward, in module order).
    Sizes and ops in order, and the losses of two steps."""
    backend.register_recorder()

    def run(layout: tuple) -> Any:
        def rank_main(w: World) -> Any:
            log: list = []
            backend.record_into(lib, log)
            dist.init_process_group("recorded", store=w.store, rank=w.rank, world_size=w.world_size)
            model = mlp(w.rank, SIZES)
            shard(lib, model, layout)
            losses = train(model, w.rank, 2, width=8, between=lambda s: log.append(s))
            first = log[: log.index(1)]
            return {"step 0": collectives(first), "losses": losses}

        return guard(lambda: run_world(2, rank_main))

    return {label: run(layout) for label, layout in LAYOUTS.items()}


@case(W, points=2, tasks=TASKS)
def task_7_8_gathered_between_forward_and_backward(lib: Any) -> Any:
    """What the modules hold between forward and backward (the local shape of each
    registered parameter): the root keeps its gathered parameters, the others hold their
    shards again; after backward, every module holds shards. A world of 3."""

    def rank_main(w: World) -> Any:
        _init(lib, w)
        model = mlp(w.rank, SIZES)
        shard(lib, model, (0, 2, None))
        x = torch.arange(16.0).reshape(2, 8) / 8 - w.rank
        out = model(x)
        during = {n: list(local(p).shape) for n, p in model.named_parameters()}
        out.sum().backward()
        after = {n: list(local(p).shape) for n, p in model.named_parameters()}
        return {"after forward": during, "after backward": after, "grads": grad_shards(model)}

    return guard(lambda: run_world(3, rank_main))


@case(W, points=2, tasks=TASKS)
def task_7_8_gradients_accumulate(lib: Any) -> Any:
    """Two forward and backward passes without ``zero_grad``: each shard's gradient is the
    sum of the two reduced gradients (FSDP2 adds to ``.grad``). A world of 2."""

    def rank_main(w: World) -> Any:
        _init(lib, w)
        model = mlp(w.rank, SIZES)
        shard(lib, model, (0, 2, 4, None))
        for k in range(2):
            x = torch.arange(24.0).reshape(3, 8) / 8 - w.rank - k
            model(x).pow(2).sum().backward()
        return grad_shards(model)

    return guard(lambda: run_world(2, rank_main))


class _Block(torch.nn.Module):
    """Takes a keyword argument and returns a dict holding a tuple."""

    def __init__(self) -> None:
        super().__init__()
        self.lin = torch.nn.Linear(6, 6)

    def forward(self, *, x: torch.Tensor, scale: float) -> dict[str, Any]:
        h = torch.relu(self.lin(x)) * scale
        return {"out": h, "pair": (torch.tanh(self.lin(x / 2)), h / 2)}


class _Net(torch.nn.Module):
    """A block used twice, and a dict as the model's own output."""

    def __init__(self) -> None:
        super().__init__()
        self.inp = torch.nn.Linear(4, 6)
        self.block = _Block()
        self.head = torch.nn.Linear(6, 3)

    def forward(self, x: torch.Tensor) -> dict[str, torch.Tensor]:
        first = self.block(x=self.inp(x), scale=0.5)
        second = self.block(x=first["pair"][0], scale=2.0)
        return {"y": self.head(second["pair"][0] + first["pair"][1])}


def _net(rank: int) -> torch.nn.Module:
    with build_lock:
        model = _Net()
        g = torch.Generator().manual_seed(1100 + rank)
        with torch.no_grad():
            for p in model.parameters():
                p.copy_(torch.randint(-3, 4, p.shape, generator=g).float() / 4)
    return model


@case(W, points=2, tasks=TASKS)
def task_7_8_inputs_and_outputs_of_any_shape(lib: Any) -> Any:
    """A sharded block that takes its tensor by keyword, returns a dict holding a tuple, and
    runs twice in each forward; a model that returns a dict; a forward under ``no_grad``
    between the steps. Three steps, worlds of 2 and 3: losses, shards and gradient shards,
    the last step's reduce-scatters in order (a keyword input marks the block's backward as
    a positional one does), and ``fully_shard`` returns the module it was given."""

    def rank_main(w: World) -> Any:
        log: list = []
        backend.record_into(lib, log)
        dist.init_process_group("recorded", store=w.store, rank=w.rank, world_size=w.world_size)
        model = _net(w.rank)
        same = lib.fully_shard(model.block) is model.block
        lib.fully_shard(model.head)
        lib.fully_shard(model)
        opt = torch.optim.SGD(model.parameters(), lr=0.05)
        g = torch.Generator().manual_seed(1200 + w.rank)
        losses = []
        for _ in range(3):
            x = torch.randint(-4, 5, (4, 4), generator=g).float() / 4
            with torch.no_grad():
                model(x * 2)
            log.clear()
            opt.zero_grad()
            loss = model(x)["y"].pow(2).mean()
            loss.backward()
            opt.step()
            losses.append(loss.item())
        # FSDP2 prefetches after a no_grad forward (one all-gather more): reduce-scatters only
        reduced = collectives(log)["reduce_scatter_single"]
        return {"returns the module": same, "losses": losses, "shards": shards(model),
                "grads": grad_shards(model), "last step's reduce-scatters": reduced}  # fmt: skip

    backend.register_recorder()
    return _worlds(rank_main, (2, 3))


@case(W, points=2, tasks=TASKS)
def task_7_8_frozen_parameters(lib: Any) -> Any:
    """Parameters that need no gradient: the second Linear frozen before sharding, the first
    Linear's bias too (its unit still reduces the weight), and the last Linear frozen after
    sharding (FSDP2 reads ``requires_grad`` again at each gather). Their ``.grad`` stays
    None and they are left out of the reduce-scatters. A world of 2, one step: which
    parameters need gradients, the gradient shards, and the collectives in order."""
    backend.register_recorder()

    def rank_main(w: World) -> Any:
        log: list = []
        backend.record_into(lib, log)
        dist.init_process_group("recorded", store=w.store, rank=w.rank, world_size=w.world_size)
        model = mlp(w.rank, SIZES)
        model[2].requires_grad_(False)
        model[0].bias.requires_grad_(False)
        shard(lib, model, (0, 2, 4, None))
        model[4].requires_grad_(False)
        losses = train(model, w.rank, 1, width=8)
        return {
            "requires grad": {n: p.requires_grad for n, p in model.named_parameters()},
            "grads": grad_shards(model),
            "collectives": collectives(log),
            "losses": losses,
        }

    return guard(lambda: run_world(2, rank_main))


@case(W, points=1, tasks=TASKS)
def task_7_8_misuse_raises_as_fsdp2(lib: Any) -> Any:
    """What FSDP2 refuses, refused with the same kind of error: running a sharded child
    before the model that contains it (the root must run first), sharding an outer module
    before an inner one, and a unit whose parameters have two dtypes (at its first
    forward). A world of 2."""

    def rank_main(w: World) -> Any:
        _init(lib, w)
        x = torch.ones(2, 8)

        def child_first() -> None:
            model = mlp(w.rank, SIZES)
            shard(lib, model, (0, None))
            model[0](x)
            model(x)

        def outer_first() -> None:
            shard(lib, mlp(w.rank, SIZES), (None, 0))

        def two_dtypes() -> None:
            model = mlp(w.rank, SIZES)
            model[0].double()
            shard(lib, model, (None,))
            model(x)

        return {
            "a child before its root": error_of(child_first),
            "outer before inner": error_of(outer_first),
            "two dtypes in a unit": error_of(two_dtypes),
        }

    return guard(lambda: run_world(2, rank_main))
