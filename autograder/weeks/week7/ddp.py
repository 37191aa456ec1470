"""Task 7.6: the learner's ``MiniDDP`` against real ``DistributedDataParallel``.

Torch's side wraps the model in real DDP on gloo; the learner's wraps it in ``MiniDDP`` on
their own backend. Both see the same models, data and arguments. What is compared: losses,
gradients and weights; and the order of events during backward (``common.Events``): which
gradients had arrived when each bucket was launched, and what each bucket held.
"""

from __future__ import annotations

from typing import Any

import torch
import torch.distributed as dist

from autograder.cases import case
from autograder.observe import guard
from autograder.weeks.week7 import backend
from autograder.weeks.week7.common import (
    Events,
    W,
    World,
    build_lock,
    floats,
    mlp,
    run_world,
    train,
)

# The proposal's MLP, Linear(64, 256)-ReLU-Linear(256, 256)-ReLU-Linear(256, 10): 340 008 bytes
# of parameters, so that a cap of 100 000 bytes splits it as in the notes (D5).
BIG = (64, 256, 256, 10)
CAP_100K = 100000 / 2**20  # bucket_cap_mb for a cap of 100 000 bytes


def _init(lib: Any, w: World) -> None:
    dist.init_process_group(
        lib.register_labccl(), store=w.store, rank=w.rank, world_size=w.world_size
    )


def _weights(model: torch.nn.Module) -> list:
    return [floats(p) for p in model.parameters()]


@case(W, points=3, tasks=("7.2", "7.3", "7.4", "7.5", "7.6"))
def task_7_6_miniddp_trains_as_ddp(lib: Any) -> Any:
    """``MiniDDP`` in worlds of 2 and 3, three SGD steps on each rank's own data: every rank
    starts from rank 0's weights, and after each backward holds the mean gradient; the
    losses, the weights after construction and at the end, as with real DDP."""

    def rank_main(w: World) -> Any:
        _init(lib, w)
        model = mlp(w.rank)
        ddp = lib.MiniDDP(model)
        start = _weights(model)
        losses = train(ddp, w.rank, 3)
        return {"weights at start": start, "losses": losses, "weights": _weights(model)}

    return {f"W={n}": guard(lambda n=n: run_world(n, rank_main)) for n in (2, 3)}


@case(W, points=3, tasks=("7.2", "7.3", "7.4", "7.5", "7.6"))
def task_7_6_buckets_launch_during_backward(lib: Any) -> Any:
    """With ``find_unused_parameters=True`` DDP packs the buckets by size from the start (a
    cap of 100 000 bytes here) and never rebuilds them. Over two iterations: the order in
    which gradients arrive and buckets are launched (a bucket goes as soon as its last
    gradient is in, before backward reaches the first layer), what each bucket holds, and
    the gradients after each backward."""

    def rank_main(w: World) -> Any:
        _init(lib, w)
        model = mlp(w.rank, BIG)
        events = Events(model)
        ddp = lib.MiniDDP(model, bucket_cap_mb=CAP_100K, find_unused_parameters=True)
        ddp.register_comm_hook(None, events.hook)
        grads: list = []

        def between(step: int) -> None:
            if step:
                grads.append([floats(p.grad) for p in model.parameters()][-2:])
            events.iteration(step)

        train(ddp, w.rank, 2, width=64, between=between)
        grads.append([floats(p.grad) for p in model.parameters()][-2:])
        return {"events": events.log, "last layer's gradients": grads}

    return guard(lambda: run_world(2, rank_main))


class _DefinedBackwards(torch.nn.Module):
    """A model whose layers are defined in the opposite order to their use: the head first,
    the body second, ``head(relu(body(x)))``. Its parameters' order is not the order in
    which gradients arrive."""

    def __init__(self, rank: int) -> None:
        super().__init__()
        with torch.no_grad():
            self.head = torch.nn.Linear(8, 3)
            self.body = torch.nn.Linear(6, 8)
            g = torch.Generator().manual_seed(300 + rank)
            for p in self.parameters():
                p.copy_(torch.randint(-3, 4, p.shape, generator=g).float() / 4)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.head(torch.relu(self.body(x)))


def _backwards_model(rank: int) -> torch.nn.Module:
    with build_lock:
        return _DefinedBackwards(rank)


@case(W, points=3, tasks=("7.2", "7.3", "7.4", "7.5", "7.6"))
def task_7_6_buckets_launch_in_order(lib: Any) -> Any:
    """Buckets launch in index order on every rank, or ranks would all-reduce different
    buckets against each other: in a model whose head is defined before its body, with
    small buckets (100 bytes) packed from the start, the head's bucket fills first and
    waits for the body's buckets to go. The events, and the gradients."""

    def rank_main(w: World) -> Any:
        _init(lib, w)
        model = _backwards_model(w.rank)
        events = Events(model)
        ddp = lib.MiniDDP(model, bucket_cap_mb=100 / 2**20, find_unused_parameters=True)
        ddp.register_comm_hook(None, events.hook)
        train(ddp, w.rank, 1)
        return {"events": events.log, "grads": [floats(p.grad) for p in model.parameters()]}

    return guard(lambda: run_world(3, rank_main))


@case(W, points=2, tasks=("7.2", "7.3", "7.4", "7.5", "7.6"))
def task_7_6_what_a_hook_is_given(lib: Any) -> Any:
    """A communication hook is called once per bucket with the bucket: its index, whether it
    is the last, its parameters, its flat buffer holding this rank's own gradients (not yet
    divided: dividing is the hook's business), and ``gradients()``, the buffer's views shaped
    as the parameters. Whatever tensor the hook's future gives becomes the gradients: here,
    twice this rank's own (nothing is all-reduced)."""

    def rank_main(w: World) -> Any:
        _init(lib, w)
        model = mlp(w.rank)
        names = {p.data_ptr(): n for n, p in model.named_parameters()}
        seen: list = []

        def hook(state, bucket):  # no annotations: real DDP checks a hook's
            seen.append(
                {
                    "state": state,
                    "index": bucket.index(),
                    "last": bucket.is_last(),
                    "parameters": [names[p.data_ptr()] for p in bucket.parameters()],
                    "buffer": floats(bucket.buffer()),
                    "gradients": [list(g.shape) for g in bucket.gradients()],
                }
            )
            future = torch.futures.Future()
            future.set_result(bucket.buffer() * 2)
            return future

        ddp = lib.MiniDDP(model, bucket_cap_mb=200 / 2**20, find_unused_parameters=True)
        ddp.register_comm_hook("my state", hook)
        x = torch.arange(12.0).reshape(2, 6) / 8 - w.rank
        ddp(x).sum().backward()
        return {"hook saw": seen, "grads": [floats(p.grad) for p in model.parameters()]}

    return guard(lambda: run_world(2, rank_main))


@case(W, points=2, tasks=("7.2", "7.3", "7.4", "7.5", "7.6"))
def task_7_6_buffers_follow_rank_0(lib: Any) -> Any:
    """A model with a buffer (``BatchNorm1d``'s running mean and variance): at construction
    and before every forward each rank's buffers take rank 0's values
    (``broadcast_buffers=True``), while each rank's batch statistics stay its own. The
    buffers and the losses after two steps."""

    def rank_main(w: World) -> Any:
        _init(lib, w)
        with build_lock:
            model = torch.nn.Sequential(torch.nn.Linear(6, 4), torch.nn.BatchNorm1d(4))
            g = torch.Generator().manual_seed(400 + w.rank)
            with torch.no_grad():
                for t in [*model.parameters(), *model.buffers()]:
                    if t.is_floating_point():
                        t.copy_(torch.randint(1, 4, t.shape, generator=g).float() / 4)
        ddp = lib.MiniDDP(model)
        losses = train(ddp, w.rank, 2)
        buffers = {n: floats(b) for n, b in model.named_buffers()}
        return {"losses": losses, "buffers after the last step": buffers}

    return guard(lambda: run_world(2, rank_main))


@case(W, points=2, tasks=("7.2", "7.3", "7.4", "7.5", "7.6"))
def task_7_6_without_a_hook_one_all_reduce_per_bucket(lib: Any) -> Any:
    """Without a communication hook, each bucket is one ``allreduce`` call on the backend
    (recorded by a process group of the course's wrapped around yours, as dtype and number
    of elements), made as soon as the bucket is full: two iterations, a cap of 100 000 bytes.
    The calls and gradient events in order (the construction's broadcasts are left out),
    and the weights."""
    backend.register_recorder()

    def rank_main(w: World) -> Any:
        log: list = []
        backend.record_into(lib, log)
        dist.init_process_group("recorded", store=w.store, rank=w.rank, world_size=w.world_size)
        model = mlp(w.rank, BIG)
        events = Events(model, log)
        ddp = lib.MiniDDP(model, bucket_cap_mb=CAP_100K)
        train(ddp, w.rank, 2, width=64, between=events.iteration)
        calls = [e for e in log if isinstance(e, str) or e[0] == "allreduce"]
        return {"calls": calls, "last layer": _weights(model)[-1]}

    return guard(lambda: run_world(2, rank_main))


# ---- torch 2.13's bucket policy ------------------------------------------------------


@case(W, points=3, tasks=("7.2", "7.3", "7.4", "7.5", "7.6"))
def task_7_6_one_bucket_then_rebuilt_in_ready_order(lib: Any) -> Any:
    """Torch 2.13's policy: the first iteration all-reduces one bucket holding every
    parameter (the order gradients arrive is not known yet); the next forward rebuilds the
    buckets once, in the order the gradients arrived, with a cap of 100 000 bytes: the last
    layer's bucket now launches before backward reaches the first layer. Three iterations'
    events; the weights at the end."""

    def rank_main(w: World) -> Any:
        _init(lib, w)
        model = mlp(w.rank, BIG)
        events = Events(model)
        ddp = lib.MiniDDP(model, bucket_cap_mb=CAP_100K)
        ddp.register_comm_hook(None, events.hook)
        train(ddp, w.rank, 3, width=64, between=events.iteration)
        return {"events": events.log, "last layer": _weights(model)[-1]}

    return guard(lambda: run_world(2, rank_main))


@case(W, points=2, tasks=("7.2", "7.3", "7.4", "7.5", "7.6"))
def task_7_6_first_bucket_cap(lib: Any) -> Any:
    """The caps: with ``bucket_cap_mb`` left at its default the rebuilt first bucket is
    capped at 1 MiB (``dist._DEFAULT_FIRST_BUCKET_BYTES``) and the rest at 25 MiB; a cap
    given by the user is used for every bucket. A model with a 600 x 600 layer (1.44 MB):
    the buckets of two iterations, by default and with a cap of 2 MiB."""

    def rank_main(w: World) -> Any:
        out = {}
        _init(lib, w)
        for label, cap in (("default caps", None), ("bucket_cap_mb=2", 2)):
            model = mlp(w.rank, (8, 600, 600, 4))
            events = Events(model)
            ddp = lib.MiniDDP(model, bucket_cap_mb=cap)
            ddp.register_comm_hook(None, events.hook)
            train(ddp, w.rank, 2, width=8, between=events.iteration)
            out[label] = [e for e in events.log if e.startswith(("launch", "--"))]
        return out

    return guard(lambda: run_world(2, rank_main))


@case(W, points=2, tasks=("7.2", "7.3", "7.4", "7.5", "7.6"))
def task_7_6_rebuilt_order_follows_the_graph(lib: Any) -> Any:
    """The rebuilt buckets follow the order gradients arrived, not the order parameters
    were defined: the model whose head is defined before its body, caps of 100 bytes, three
    iterations without ``find_unused_parameters``."""

    def rank_main(w: World) -> Any:
        _init(lib, w)
        model = _backwards_model(w.rank)
        events = Events(model)
        ddp = lib.MiniDDP(model, bucket_cap_mb=100 / 2**20)
        ddp.register_comm_hook(None, events.hook)
        train(ddp, w.rank, 3, between=events.iteration)
        return {"events": events.log, "weights": _weights(model)}

    return guard(lambda: run_world(2, rank_main))
