"""Week 7's random programs: collectives over random worlds, dtypes, shapes, ops and roots,
called directly (Task 7.3) or through ``dist.*`` on the learner's backend (Task 7.4),
random parameter lists for DDP's bucket assignment (Task 7.5), and random models trained
under DDP (Tasks 7.6-7.7: real DDP on torch's side, ``MiniDDP`` on the learner's) and
under ``fully_shard`` (Task 7.8: FSDP2 on torch's side, the learner's on theirs). Torch
runs each on gloo (ranks as threads), the engine on its own library over the course's
interconnect.

Data are small integers (as floats or ints), so every order of summation gives the same bits:
torch's ring and yours may add in different orders, and that is not a difference.
"""

from __future__ import annotations

import random
from typing import Any

import torch
import torch.distributed as dist

from autograder.observe import raised
from autograder.weeks.week7.common import World, data, plain, run_world

COLLECTIVES = ("broadcast", "reduce", "all_gather", "reduce_scatter", "all_reduce")
OPS = ("SUM", "AVG", "MAX", "MIN", "PRODUCT")
DTYPES = ("float32", "float64", "int32", "int64", "bfloat16")
# What torch itself refuses is not drawn: AVG of an integer tensor (gloo divides in place, and
# the quotient cannot be stored) is a case of its own (task_7_3_reduce_ops).
EXCLUDED = {"AVG on integer dtypes": "an error on both sides, checked once by a public case"}


# ---- drawing ------------------------------------------------------------------------------


def _collective(rng: random.Random, through: str) -> dict[str, Any]:
    kind = rng.choice(COLLECTIVES)
    world_size = rng.choice((2, 3, 4))
    dtype = rng.choice(DTYPES)
    ops = [o for o in OPS if not (o == "AVG" and dtype.startswith("int"))]
    shape = [rng.randint(0 if rng.random() < 0.1 else 1, 6) for _ in range(rng.randint(1, 3))]
    return {
        "kind": through,
        "collective": kind,
        "world_size": world_size,
        "dtype": dtype,
        "shape": shape,
        "op": rng.choice(ops),
        "root": rng.randrange(world_size),
        "salt": rng.randrange(1000),
        "async": through == "process_group" and rng.random() < 0.5,
    }


def _buckets(rng: random.Random) -> dict[str, Any]:
    n = rng.randint(1, 9)
    dtypes = rng.sample(["float32", "float64", "float16"], rng.choice((1, 1, 2)))
    tensors = [
        {"numel": rng.choice((1, 3, 10, 40, 100, 256, 1000)), "dtype": rng.choice(dtypes)}
        for _ in range(n)
    ]
    limits = sorted(rng.sample([8, 40, 100, 400, 1024, 4000, 10**6], rng.randint(1, 3)))
    sparse = [rng.random() < 0.15 for _ in range(n)] if rng.random() < 0.3 else []
    # The order gradients became ready; torch closes leftover buckets of several dtypes in its
    # hash map's order then, which the lab does not model: one dtype only.
    indices = rng.sample(range(n), n) if len(dtypes) == 1 and rng.random() < 0.4 else []
    return {"kind": "buckets", "tensors": tensors, "limits": limits, "sparse": sparse,
            "indices": indices}  # fmt: skip


HOOKS = ("none", "watch", "allreduce_hook", "fp16_compress_hook")


def _ddp(rng: random.Random) -> dict[str, Any]:
    """A small MLP under DDP (Tasks 7.6-7.7): widths, whether its layers are defined in the
    opposite order to their use, a bucket cap in bytes (None: DDP's defaults),
    find_unused_parameters, a communication hook, and steps."""
    depth = rng.randint(1, 3)
    hook = rng.choice(HOOKS)
    # float16's sum of three numbers depends on the order, which is the library's business
    world_size = 2 if hook == "fp16_compress_hook" else rng.choice((2, 3, 4))
    return {
        "kind": "ddp",
        "world_size": world_size,
        "widths": [rng.randint(1, 12) for _ in range(depth + 1)],
        "backwards": depth > 1 and rng.random() < 0.4,
        "cap": rng.choice((None, None, 24, 100, 400, 1000, 4000)),
        "find_unused": rng.random() < 0.3,
        "hook": hook,
        "steps": rng.randint(1, 3),
        "salt": rng.randrange(1000),
        "norm": rng.random() < 0.3,  # a BatchNorm1d after the first Linear: buffers
        "evaluate": rng.random() < 0.3,  # a forward under no_grad before each later step
    }


def _fsdp(rng: random.Random) -> dict[str, Any]:
    """A small MLP under ``fully_shard`` (Task 7.8): widths (some with fewer rows than
    ranks), which Linears are sharded and in what order, whether the whole model is too,
    and steps."""
    depth = rng.randint(1, 3)
    layers = [2 * i for i in range(depth)]
    chosen = sorted(rng.sample(layers, rng.randint(0, depth)))
    root = not chosen or rng.random() < 0.7
    return {
        "kind": "fsdp",
        "world_size": rng.choice((2, 3, 4)),
        "widths": [rng.randint(1, 9) for _ in range(depth + 1)],
        "layout": chosen + ([None] if root else []),
        "steps": rng.randint(1, 2),
        "salt": rng.randrange(1000),
    }


KINDS: dict[str, Any] = {
    "collective": lambda rng: _collective(rng, "collective"),
    "process_group": lambda rng: _collective(rng, "process_group"),
    "buckets": _buckets,
    "ddp": _ddp,
    "fsdp": _fsdp,
}


def generate(rng: random.Random) -> dict[str, Any]:
    return KINDS[rng.choice(list(KINDS))](rng)


# ---- running --------------------------------------------------------------------------------


def _run_collective(lib: Any, p: dict[str, Any], w: World, call: Any) -> Any:
    """One collective on rank ``w.rank``: what the rank's tensors hold afterwards."""
    op = getattr(dist.ReduceOp, p["op"])
    world_size, rank, root = p["world_size"], w.rank, p["root"]
    mine = data(rank, p["shape"], p["dtype"], p["salt"], p["op"])
    kind = p["collective"]
    if kind == "broadcast":
        call("broadcast", mine, root)
        return plain(mine)
    if kind == "reduce":
        call("reduce", mine, root, op)
        return plain(mine) if rank == root else None  # torch leaves the others unspecified
    if kind == "all_reduce":
        call("all_reduce", mine, op)
        return plain(mine)
    if kind == "all_gather":
        out = [torch.zeros_like(mine) for _ in range(world_size)]
        call("all_gather", out, mine)
        return [plain(t) for t in out]
    blocks = [
        data(rank, p["shape"], p["dtype"], p["salt"] + 1 + i, p["op"]) for i in range(world_size)
    ]
    out = torch.zeros_like(mine)
    call("reduce_scatter", out, blocks, op)
    return {"output": plain(out), "inputs unchanged": all(
        torch.equal(b, data(rank, p["shape"], p["dtype"], p["salt"] + 1 + i, p["op"]))
        for i, b in enumerate(blocks))}  # fmt: skip


def collective_on(lib: Any, p: dict[str, Any]) -> Any:
    """Run a drawn collective on every rank; each rank's result, then (the learner's side
    only has one) what the interconnect carried."""

    def rank_main(w: World) -> Any:
        if p["kind"] == "collective":
            comm = lib.Comm(w.port)

            def call(name: str, *args: Any) -> None:
                getattr(lib, name)(comm, *args)

        else:
            dist.init_process_group(
                lib.register_labccl(), store=w.store, rank=w.rank, world_size=w.world_size
            )

            def call(name: str, *args: Any) -> None:
                work = _DIST[name](*args, async_op=p["async"])
                if p["async"]:
                    work.wait()

        return _run_collective(lib, p, w, call)

    return run_world(p["world_size"], rank_main)


_DIST = {
    "broadcast": lambda t, src, async_op: dist.broadcast(t, src, async_op=async_op),
    "reduce": lambda t, dst, op, async_op: dist.reduce(t, dst, op, async_op=async_op),
    "all_reduce": lambda t, op, async_op: dist.all_reduce(t, op, async_op=async_op),
    "all_gather": lambda outs, t, async_op: dist.all_gather(outs, t, async_op=async_op),
    "reduce_scatter": lambda out, ins, op, async_op: dist.reduce_scatter(
        out, ins, op, async_op=async_op
    ),
}


def bucket_tensors(p: dict[str, Any]) -> list[torch.Tensor]:
    return [torch.zeros(t["numel"], dtype=getattr(torch, t["dtype"])) for t in p["tensors"]]


def buckets_of(lib: Any, p: dict[str, Any]) -> Any:
    buckets, limits = lib.compute_bucket_assignment_by_size(
        bucket_tensors(p), p["limits"], p["sparse"], p["indices"]
    )
    return {"buckets": [list(b) for b in buckets], "limits": list(limits)}


class _Layers(torch.nn.Module):
    """Linear layers with ReLU between them, registered in use order or (``backwards``) the
    opposite, so that parameter order and gradient order disagree."""

    def __init__(
        self, widths: list[int], backwards: bool, g: torch.Generator, norm: bool = False
    ) -> None:
        super().__init__()
        layers = [torch.nn.Linear(a, b) for a, b in zip(widths, widths[1:], strict=False)]
        self.backwards = backwards
        self.layers = torch.nn.ModuleList(layers[::-1] if backwards else layers)
        self.norm = torch.nn.BatchNorm1d(widths[1]) if norm else None
        with torch.no_grad():
            for p in self.parameters():
                p.copy_(torch.randn(p.shape, generator=g) / 2)
            if self.norm is not None:  # running statistics of this rank's own
                self.norm.running_mean.copy_(torch.randn(widths[1], generator=g))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        layers = list(self.layers)
        for i, layer in enumerate(layers[::-1] if self.backwards else layers):
            x = layer(torch.relu(x) if i else x)
            if i == 0 and self.norm is not None:
                x = self.norm(x)
        return x


def _plain(fn: Any) -> Any:
    def hook(state, bucket):  # no annotations: real DDP checks a hook's
        return fn(state, bucket)

    return hook


def ddp_on(lib: Any, p: dict[str, Any]) -> Any:
    """Train the drawn model under the engine's DDP on every rank: the events of backward
    (gradients arriving, buckets launched: ``common.Events``) when a hook watches, the losses
    and the weights."""
    from autograder.weeks.week7.common import Events, build_lock, floats, train

    def rank_main(w: World) -> Any:
        dist.init_process_group(
            lib.register_labccl(), store=w.store, rank=w.rank, world_size=w.world_size
        )
        with build_lock:
            g = torch.Generator().manual_seed(1000 * p["salt"] + w.rank)
            model = _Layers(p["widths"], p["backwards"], g, p.get("norm", False))
        events = Events(model)
        cap = None if p["cap"] is None else p["cap"] / 2**20
        ddp = lib.MiniDDP(model, bucket_cap_mb=cap, find_unused_parameters=p["find_unused"])
        if p["hook"] == "watch":
            ddp.register_comm_hook(None, events.hook)
        elif p["hook"] != "none":
            ddp.register_comm_hook(None, _plain(getattr(lib, p["hook"])))
        smooth = p["hook"] == "fp16_compress_hook"

        def between(step: int) -> None:
            if step and p.get("evaluate"):
                with torch.no_grad():
                    ddp(torch.ones(4, p["widths"][0]) * w.rank)
            events.iteration(step)

        losses = train(ddp, w.rank, p["steps"], p["widths"][0], between=between, smooth=smooth)
        return {
            "events": events.log,
            "losses": losses,
            "weights": [floats(t) for t in model.parameters()],
            "buffers": [floats(t) for t in model.buffers() if t.is_floating_point()],
        }

    return run_world(p["world_size"], rank_main)


def fsdp_on(lib: Any, p: dict[str, Any]) -> Any:
    """Train the drawn model under the engine's ``fully_shard`` on every rank (its backend
    inside the course's recording group): the collectives of each kind in order, the
    losses, the local shards and their gradients."""
    from autograder.weeks.week7 import backend, fsdp
    from autograder.weeks.week7.common import build_lock, train

    backend.register_recorder()

    def rank_main(w: World) -> Any:
        log: list = []
        backend.record_into(lib, log)
        dist.init_process_group("recorded", store=w.store, rank=w.rank, world_size=w.world_size)
        with build_lock:
            g = torch.Generator().manual_seed(1000 * p["salt"] + w.rank)
            model = _Layers(p["widths"], False, g)
        for i in p["layout"]:
            lib.fully_shard(model if i is None else model.layers[i // 2])
        losses = train(model, w.rank, p["steps"], p["widths"][0])
        return {
            "collectives": fsdp.collectives(log),
            "losses": losses,
            "shards": fsdp.shards(model),
            "grads": fsdp.grad_shards(model),
        }

    return run_world(p["world_size"], rank_main)


def execute(lib: Any, program: dict[str, Any]) -> Any:
    try:
        if program["kind"] == "buckets":
            return buckets_of(lib, program)
        if program["kind"] == "ddp":
            return ddp_on(lib, program)
        if program["kind"] == "fsdp":
            return fsdp_on(lib, program)
        return collective_on(lib, program)
    except Exception as exc:  # noqa: BLE001 - an error is an observation
        return raised(exc)


def describe(p: dict[str, Any]) -> str:
    if p["kind"] == "fsdp":
        names = ["the model" if i is None else f"Linear {i // 2}" for i in p["layout"]]
        return (
            f"world of {p['world_size']} ranks; MLP of widths {p['widths']} (seed "
            f"{p['salt']}); fully_shard on {', then '.join(names)}; {p['steps']} SGD step(s)"
        )
    if p["kind"] == "ddp":
        order = ", layers defined last first" if p["backwards"] else ""
        order += ", BatchNorm1d after the first Linear" if p.get("norm") else ""
        order += ", a forward under no_grad before each later step" if p.get("evaluate") else ""
        cap = "default caps" if p["cap"] is None else f"bucket_cap_mb={p['cap']}/2**20"
        return (
            f"world of {p['world_size']} ranks; MLP of widths {p['widths']}{order} (seed "
            f"{p['salt']}); DDP with {cap}, find_unused_parameters={p['find_unused']}, "
            f"hook {p['hook']}; {p['steps']} SGD step(s)"
        )
    if p["kind"] == "buckets":
        sizes = ", ".join(f"{t['numel']} x {t['dtype']}" for t in p["tensors"])
        return (
            f"dist._compute_bucket_assignment_by_size([{sizes}], {p['limits']}, "
            f"expect_sparse_gradient={p['sparse']}, tensor_indices={p['indices']})"
        )
    via = "dist." if p["kind"] == "process_group" else "your "
    extra = {"broadcast": f"src={p['root']}", "reduce": f"dst={p['root']}, op={p['op']}"}
    args = extra.get(p["collective"], f"op={p['op']}" if "reduce" in p["collective"] else "")
    return (
        f"world of {p['world_size']} ranks; each rank's tensor: {p['dtype']} of shape "
        f"{p['shape']} (seed {p['salt']})\n{via}{p['collective']}({args})"
        + (" with async_op=True, then wait()" if p["async"] else "")
    )


def BREAK(engine: Any) -> Any:  # noqa: N802 - the name every generator uses
    """Break the engine on purpose (for ``--broken``): MAX reduces as SUM."""
    original = engine.combine

    def sloppy(a: Any, b: Any, op: Any) -> None:
        original(a, b, dist.ReduceOp.SUM if op == dist.ReduceOp.MAX else op)

    engine.combine = sloppy

    def undo() -> None:
        engine.combine = original

    return undo
