"""Week 7's speed targets (issue 30), ranks as threads in one process, on this machine:

- a world of 4 with init, 50 all_reduces and a DDP step on the reference: under 1 s;
- the reference's ring all_reduce of 1M floats at W=4: under 10 ms;
- real DDP on labccl: at most 2x gloo per step (MLP 64-256-256-10, batch 32);
- the reference's MiniDDP (Task 7.6) on labccl: at most 3x real DDP on gloo per step;
- the reference's fully_shard (Task 7.8) on labccl beside FSDP2 on gloo (no target: printed);
- week 7c's labccl in C++ (``reference_impl/cpp_c10d.cpp``, a ``c10d::Backend``): its ring
  all_reduce of 1M floats and real DDP's step on it, beside gloo (the same targets as labccl's).

Each figure is the median of ``--runs`` runs, the reference (labccl over the course's
interconnect) beside gloo (TCP over loopback) measured in the same run.

    python benchmarks/bench_c10d.py [--runs 5]
"""

from __future__ import annotations

import argparse
import statistics
import time
from typing import Any

import torch
import torch.distributed as dist
import torch.distributed.fsdp

from autograder.weeks.week7.world import World, run_world
from reference_impl import c10d as lab


def _register_cpp() -> str:
    """Week 7c's C++ backend, under a name of its own (week 7's labccl keeps "labccl")."""
    from reference_impl import cpp_c10d

    if not hasattr(dist.Backend, "LABCCL_CPP"):
        dist.Backend.register_backend("labccl_cpp", cpp_c10d.create_labccl, devices=["cpu"])
    return "labccl_cpp"


def _init(backend: str, w: World) -> None:
    names = {"labccl": lab.register_labccl, "labccl_cpp": _register_cpp}
    name = names[backend]() if backend in names else "gloo"
    dist.init_process_group(name, store=w.store, rank=w.rank, world_size=w.world_size)


def _mlp(rank: int) -> torch.nn.Module:
    torch.manual_seed(0)  # the same weights on every rank (built one at a time below)
    return torch.nn.Sequential(
        torch.nn.Linear(64, 256), torch.nn.ReLU(), torch.nn.Linear(256, 256), torch.nn.ReLU(),
        torch.nn.Linear(256, 10),
    )  # fmt: skip


def whole_world(backend: str) -> float:
    """Seconds for a world of 4: init, 50 all_reduces of 4 floats, DDP built, one step."""

    def rank_main(w: World) -> None:
        _init(backend, w)
        t = torch.ones(4)
        for _ in range(50):
            dist.all_reduce(t)
        model = torch.nn.parallel.DistributedDataParallel(_mlp(w.rank))
        model(torch.ones(32, 64)).sum().backward()

    start = time.perf_counter()
    run_world(4, rank_main, seconds=60)
    return time.perf_counter() - start


def ring_1m(backend: str) -> float:
    """Milliseconds per all_reduce of 1M floats at W=4 (median of 5 in the world, rank 0)."""

    def rank_main(w: World) -> float:
        _init(backend, w)
        t = torch.ones(1 << 20)
        times = []
        for _ in range(5):
            dist.barrier()
            start = time.perf_counter()
            dist.all_reduce(t)
            times.append(time.perf_counter() - start)
        return statistics.median(times)

    return 1000 * max(run_world(4, rank_main, seconds=60))


def _wrap(how: str, module: torch.nn.Module) -> torch.nn.Module:
    if how == "DDP":
        return torch.nn.parallel.DistributedDataParallel(module)
    if how == "MiniDDP":
        return lab.MiniDDP(module)
    shard = lab.fully_shard if how == "lab fully_shard" else torch.distributed.fsdp.fully_shard
    for i in (0, 2, 4):
        shard(module[i])
    return shard(module)


def ddp_step(backend: str, world_size: int, how: str = "DDP") -> float:
    """Milliseconds per step (forward, backward, SGD) after two warm-up steps, the model
    wrapped by ``how``: real DDP, the reference's MiniDDP, or fully_shard (lab or FSDP2)."""

    def rank_main(w: World) -> float:
        _init(backend, w)
        model = _wrap(how, _mlp(w.rank))
        opt = torch.optim.SGD(model.parameters(), lr=0.01)
        x = torch.ones(32, 64)
        times = []
        for i in range(7):
            start = time.perf_counter()
            opt.zero_grad()
            model(x).sum().backward()
            opt.step()
            if i >= 2:
                times.append(time.perf_counter() - start)
        return statistics.median(times)

    return 1000 * max(run_world(world_size, rank_main, seconds=60))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    rows: list[tuple[str, Any, Any, str]] = []

    def med(fn: Any, *a: Any) -> float:
        return statistics.median(fn(*a) for _ in range(args.runs))

    whole = {b: med(whole_world, b) for b in ("labccl", "gloo")}
    rows.append(("world of 4: init, 50 all_reduce, DDP step (s)", whole["labccl"],
                 whole["gloo"], "< 1 s"))  # fmt: skip
    ring = {b: med(ring_1m, b) for b in ("labccl", "gloo")}
    rows.append(("all_reduce 1M floats, W=4 (ms)", ring["labccl"], ring["gloo"], "< 10 ms"))
    for n in (2, 4):
        step = {b: med(ddp_step, b, n) for b in ("labccl", "gloo")}
        ratio = step["labccl"] / step["gloo"]
        rows.append(
            (f"DDP step, W={n} (ms)", step["labccl"], step["gloo"], f"{ratio:.2f}x gloo (<= 2x)")
        )
    for n in (2, 4):
        mine = med(ddp_step, "labccl", n, "MiniDDP")
        gloo = med(ddp_step, "gloo", n, "DDP")
        rows.append((f"MiniDDP step vs DDP on gloo, W={n} (ms)", mine, gloo,
                     f"{mine / gloo:.2f}x gloo (<= 3x)"))  # fmt: skip
        mine = med(ddp_step, "labccl", n, "lab fully_shard")
        gloo = med(ddp_step, "gloo", n, "FSDP2")
        rows.append((f"fully_shard step vs FSDP2 on gloo, W={n} (ms)", mine, gloo,
                     f"{mine / gloo:.2f}x"))  # fmt: skip
    _register_cpp()  # built (or found in the cache) before anything is timed
    ring = {b: med(ring_1m, b) for b in ("labccl_cpp", "gloo")}
    rows.append(("C++ labccl: all_reduce 1M floats, W=4 (ms)", ring["labccl_cpp"], ring["gloo"],
                 "< 10 ms"))  # fmt: skip
    for n in (2, 4):
        step = {b: med(ddp_step, b, n) for b in ("labccl_cpp", "gloo")}
        ratio = step["labccl_cpp"] / step["gloo"]
        rows.append((f"C++ labccl: DDP step, W={n} (ms)", step["labccl_cpp"], step["gloo"],
                     f"{ratio:.2f}x gloo (<= 2x)"))  # fmt: skip
    print(f"{'':48} {'labccl':>10} {'gloo':>10}  target")
    for name, mine, gloo, target in rows:
        print(f"{name:48} {mine:10.3f} {gloo:10.3f}  {target}")


if __name__ == "__main__":
    main()
