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
    averaged,
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


# ---- what the reducer must not do ---------------------------------------------------------


def _batchnorm_model(rank: int, frozen: bool = False) -> torch.nn.Module:
    """Linear(6, 4)-BatchNorm1d(4)-Linear(4, 2), weights and running statistics differing per
    rank; with ``frozen`` the last Linear needs no gradient."""
    with build_lock:
        model = torch.nn.Sequential(
            torch.nn.Linear(6, 4), torch.nn.BatchNorm1d(4), torch.nn.Linear(4, 2)
        )
        g = torch.Generator().manual_seed(500 + rank)
        with torch.no_grad():
            for t in [*model.parameters(), *model.buffers()]:
                if t.is_floating_point():
                    t.copy_(torch.randint(1, 5, t.shape, generator=g).float() / 4)
        if frozen:
            model[2].requires_grad_(False)
    return model


def _state(model: torch.nn.Module) -> dict[str, Any]:
    return {n: floats(t) for n, t in [*model.named_parameters(), *model.named_buffers()]
            if t.is_floating_point()}  # fmt: skip


@case(W, points=2, tasks=("7.2", "7.3", "7.4", "7.5", "7.6"))
def task_7_6_construction_broadcasts_everything(lib: Any) -> Any:
    """Right after construction every rank holds rank 0's parameters, frozen ones included
    (they are part of the model even if no gradient is reduced for them), and rank 0's
    buffers. A world of 3."""

    def rank_main(w: World) -> Any:
        _init(lib, w)
        model = _batchnorm_model(w.rank, frozen=True)
        lib.MiniDDP(model)
        return _state(model)

    return guard(lambda: run_world(3, rank_main))


@case(W, points=2, tasks=("7.2", "7.3", "7.4", "7.5", "7.6"))
def task_7_6_buffers_after_evaluation(lib: Any) -> Any:
    """Buffers take rank 0's values at a forward only if the forward before it recorded a
    graph (``require_forward_param_sync``): after an evaluation under ``no_grad`` each rank
    keeps its own running statistics for one forward. Six forwards (train, train, no_grad,
    no_grad, eval mode with autograd, train), with a step after each that records: each
    rank's buffers after each forward. A world of 2."""

    def rank_main(w: World) -> Any:
        _init(lib, w)
        model = _batchnorm_model(w.rank)
        ddp = lib.MiniDDP(model)
        opt = torch.optim.SGD(model.parameters(), lr=0.125)
        g = torch.Generator().manual_seed(600 + w.rank)
        seen = []
        for grad, train_mode in ((1, 1), (1, 1), (0, 1), (0, 1), (1, 0), (1, 1)):
            model.train(bool(train_mode))
            x = torch.randint(-4, 5, (4, 6), generator=g).float() / 4
            with torch.set_grad_enabled(bool(grad)):
                out = ddp(x)
            if grad:
                opt.zero_grad()
                out.pow(2).mean().backward()
                opt.step()
            seen.append({n: floats(b) for n, b in model.named_buffers() if b.is_floating_point()})
        return {"buffers after each forward": seen, "weights": _weights(model)}

    return guard(lambda: run_world(2, rank_main))


@case(W, points=2, tasks=("7.2", "7.3", "7.4", "7.5", "7.6"))
def task_7_6_a_float64_model(lib: Any) -> Any:
    """A float64 model: the buckets are float64 (what a hook is given says so) and the
    gradients keep float64's precision through them. Two steps, a world of 2."""

    def rank_main(w: World) -> Any:
        _init(lib, w)
        model = mlp(w.rank, (6, 8, 3), smooth=True).double()
        dtypes: list = []

        def hook(state, bucket):  # no annotations: real DDP checks a hook's
            dtypes.append(str(bucket.buffer().dtype))
            return averaged(bucket)

        ddp = lib.MiniDDP(model)
        ddp.register_comm_hook(None, hook)
        opt = torch.optim.SGD(model.parameters(), lr=0.125)
        g = torch.Generator().manual_seed(700 + w.rank)
        for _ in range(2):
            x = torch.randn(4, 6, generator=g, dtype=torch.float64)
            opt.zero_grad()
            ddp(x).pow(2).mean().backward()
            opt.step()
        grads = [p.grad.tolist() for p in model.parameters()]
        return {"bucket dtypes": dtypes, "grads": grads}

    return guard(lambda: run_world(2, rank_main))


@case(W, points=2, tasks=("7.2", "7.3", "7.4", "7.5", "7.6"))
def task_7_6_only_its_own_backwards_are_reduced(lib: Any) -> Any:
    """Only a backward through a forward of the wrapper is reduced: a backward through the
    inner module before any forward of the wrapper, one after a training step, and one
    after an evaluation forward under ``no_grad`` leave each rank's own gradients (added to
    what ``.grad`` held), and they do not count as the order gradients arrive in: the next
    training step's buckets (40 bytes) are rebuilt from the first training backward. A
    world of 2: the gradients after each backward, and the last step's events."""

    def rank_main(w: World) -> Any:
        _init(lib, w)
        model = _two_branches(w.rank)
        events = Events(model)
        ddp = lib.MiniDDP(model, bucket_cap_mb=40 / 2**20)
        ddp.register_comm_hook(None, events.hook)
        x = torch.arange(16.0).reshape(4, 4) / 8 - w.rank
        seen = []

        def inner_backward() -> None:  # the inner module: not DDP's forward
            model.order = "ba"
            model(x).sum().backward()
            model.order = "ab"
            seen.append([floats(p.grad) for p in model.parameters()])

        inner_backward()
        ddp(x).pow(2).sum().backward()
        seen.append([floats(p.grad) for p in model.parameters()])
        inner_backward()
        with torch.no_grad():
            ddp(x)
        inner_backward()
        events.iteration(1)
        ddp(x).pow(2).sum().backward()
        seen.append([floats(p.grad) for p in model.parameters()])
        return {"grads after each backward": seen, "events": events.log}

    return guard(lambda: run_world(2, rank_main))


@case(W, points=2, tasks=("7.2", "7.3", "7.4", "7.5", "7.6"))
def task_7_6_gradients_accumulate(lib: Any) -> Any:
    """Two backwards without ``zero_grad``: the second bucket holds what ``.grad`` holds
    then (the reduced first gradient plus the new one), and ``.grad`` stays a tensor of its
    own, not a view of a bucket. Three backwards; the gradients after each. A world of 2."""

    def rank_main(w: World) -> Any:
        _init(lib, w)
        model = mlp(w.rank)
        ddp = lib.MiniDDP(model)
        seen = []
        for k in range(3):
            x = torch.arange(24.0).reshape(4, 6) / 8 - w.rank - k
            ddp(x).pow(2).sum().backward()
            seen.append([floats(p.grad) for p in model.parameters()])
        views = [p.grad._is_view() for p in model.parameters()]
        return {"grads after each backward": seen, ".grad is a view": views}

    return guard(lambda: run_world(2, rank_main))


class _TwoBranches(torch.nn.Module):
    """Two square layers used in an order that the caller picks per forward: ``a`` then
    ``b``, or ``b`` then ``a`` (the order gradients arrive follows); and a small side layer
    ``c`` on the first input column, computed before them (its gradients arrive last) or,
    with ``late_side``, after them (they arrive first)."""

    def __init__(self, rank: int) -> None:
        super().__init__()
        with torch.no_grad():
            self.a = torch.nn.Linear(4, 4)
            self.b = torch.nn.Linear(4, 4)
            self.c = torch.nn.Linear(1, 2)
            g = torch.Generator().manual_seed(800 + rank)
            for p in self.parameters():
                p.copy_(torch.randint(-3, 4, p.shape, generator=g).float() / 4)
        self.order, self.late_side = "ab", False

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        first, second = (self.a, self.b) if self.order == "ab" else (self.b, self.a)
        if not self.late_side:
            side = self.c(x[:, :1])
        out = second(torch.relu(first(x)))
        if self.late_side:
            side = self.c(x[:, :1])
        return out + side.repeat(1, 2)


def _two_branches(rank: int) -> torch.nn.Module:
    with build_lock:
        return _TwoBranches(rank)


@case(W, points=2, tasks=("7.2", "7.3", "7.4", "7.5", "7.6"))
def task_7_6_rebuilt_once(lib: Any) -> Any:
    """The buckets are rebuilt once, from the order of the first backward, even if later
    backwards see another order: a model that uses its two layers in the order a, b, then
    b, a, then a, b, with buckets of 40 bytes. The events of four iterations."""

    def rank_main(w: World) -> Any:
        _init(lib, w)
        model = _two_branches(w.rank)
        events = Events(model)
        ddp = lib.MiniDDP(model, bucket_cap_mb=40 / 2**20)
        ddp.register_comm_hook(None, events.hook)

        def between(step: int) -> None:
            model.order = "ab" if step % 2 == 0 else "ba"
            events.iteration(step)

        train(ddp, w.rank, 4, width=4, between=between)
        return {"events": events.log, "weights": _weights(model)}

    return guard(lambda: run_world(2, rank_main))


@case(W, points=2, tasks=("7.2", "7.3", "7.4", "7.5", "7.6"))
def task_7_6_ranks_agree_on_the_layout(lib: Any) -> Any:
    """Ranks whose gradients arrive in different orders still build the same buckets: rank
    0's layout, sent to the others (``sync_bucket_indices``). Rank 0 uses its layers a
    then b, the others b then a, and rank 2 computes its side layer last (so that its own
    layout would have another number of buckets); buckets of 40 bytes, three iterations, a
    world of 3: each rank's events and gradients."""

    def rank_main(w: World) -> Any:
        _init(lib, w)
        model = _two_branches(w.rank)
        model.order = "ab" if w.rank == 0 else "ba"
        model.late_side = w.rank == 2
        events = Events(model)
        ddp = lib.MiniDDP(model, bucket_cap_mb=40 / 2**20)
        ddp.register_comm_hook(None, events.hook)
        train(ddp, w.rank, 3, width=4, between=events.iteration)
        return {"events": events.log, "grads": [floats(p.grad) for p in model.parameters()]}

    return guard(lambda: run_world(3, rank_main))


@case(W, points=1, tasks=("7.2", "7.3", "7.4", "7.5", "7.6"))
def task_7_6_its_hook_runs_after_yours(lib: Any) -> Any:
    """The reducer hooks each parameter's ``AccumulateGrad`` node, so its work follows any
    hook on the parameter, even one registered after wrapping: with the course's gradient
    hooks added after ``MiniDDP(...)``, a gradient is still seen arriving before the launch
    of the bucket it completes. Two iterations, buckets of 100 000 bytes."""

    def rank_main(w: World) -> Any:
        _init(lib, w)
        model = mlp(w.rank, BIG)
        ddp = lib.MiniDDP(model, bucket_cap_mb=CAP_100K, find_unused_parameters=True)
        events = Events(model)
        ddp.register_comm_hook(None, events.hook)
        train(ddp, w.rank, 2, width=64, between=events.iteration)
        return events.log

    return guard(lambda: run_world(2, rank_main))


def bits(t: torch.Tensor) -> list:
    """A float32 tensor's values as their bit patterns: equal only if equal to the last bit."""
    return t.detach().contiguous().view(torch.int32).flatten().tolist()


@case(W, points=1, tasks=("7.2", "7.3", "7.4", "7.5", "7.6"))
def task_7_6_the_division_bit_for_bit(lib: Any) -> Any:
    """DDP multiplies each gradient by ``1 / world_size`` as it copies it into the bucket
    (reducer.cpp: ``mul_out`` with ``1 / div_factor``); dividing by the world size instead
    differs in the last bit of some values. Three ranks with the same weights and the same
    data, so every rank holds the same gradient and the order of summation cannot matter:
    the gradients' bit patterns after one backward."""

    def rank_main(w: World) -> Any:
        _init(lib, w)
        model = mlp(0, (6, 8, 3), smooth=True)
        ddp = lib.MiniDDP(model)
        x = torch.randn(4, 6, generator=torch.Generator().manual_seed(5))
        ddp(x).pow(2).mean().backward()
        return [bits(p.grad) for p in model.parameters()]

    return guard(lambda: run_world(3, rank_main))
