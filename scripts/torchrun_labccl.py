"""Week 7 on real processes: your ``labccl`` under ``torchrun``, checked against gloo.

On one machine, two processes::

    torchrun --nproc_per_node 2 scripts/torchrun_labccl.py

On two hosts, one process each (run it on both, with the first host's address)::

    torchrun --nnodes 2 --nproc_per_node 1 --rdzv_backend c10d \\
        --rdzv_endpoint HOST:29400 --rdzv_id week7 scripts/torchrun_labccl.py

What two hosts need (the ports to open, ``GLOO_SOCKET_IFNAME``) and what the store-carried
port costs: the chapter's section "Beyond one machine: torchrun" (``curriculum/week7_c10d.md``).

``--impl`` takes what ``torchlab check --impl`` takes: ``lab`` (the default: the
``labs/week7_c10d/c10d.py`` of the course folder you run it in, else the one beside this
script) or another folder or file.

``torchrun`` (``torch/distributed/run.py``) starts one process per rank and gives each its
``RANK``, ``WORLD_SIZE`` and the address of a ``TCPStore`` (``MASTER_ADDR``,
``MASTER_PORT``). Each process here is one rank: it connects to that store
(``dist.rendezvous("env://")``, what ``init_process_group`` does itself), puts a
``StorePort`` over it on its main thread (``labs/week7_c10d/multihost.py``: the port your
``current_port()`` reads, as the course's rank threads carry theirs), imports your module,
calls ``register_labccl()`` and ``init_process_group("labccl", ...)``, then creates a gloo
group of the same ranks (``dist.new_group(backend="gloo")``). Every check runs the same
program on both groups and compares: ``all_reduce`` with SUM and AVG, ``broadcast``,
``all_gather``, ``reduce_scatter`` (integer-valued data: equal bit for bit), and a few steps of
``DistributedDataParallel`` on each (parameters within a relative 1e-5). The ring's messages
are counted as the checks count them: ``2(W-1)`` per rank for ``all_reduce``. Rank 0 prints a
PASS or FAIL line per check; the exit status is 0 when every check passed.
"""

from __future__ import annotations

import argparse
import copy
import importlib.util
import os
import re
import statistics
import sys
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from types import ModuleType
from typing import Any

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

import torch  # noqa: E402
import torch.distributed as dist  # noqa: E402

from autograder.labs import given_file, resolve_impl  # noqa: E402
from autograder.weeks import WEEKS  # noqa: E402

WEEK = WEEKS["week7"]
TASKS_USED = "Tasks 7.2, 7.3 and 7.4"  # Comm, the collectives, the backend


@dataclass
class Verdict:
    """One check on one rank: whether labccl gave gloo's answer, and what this rank sent."""

    name: str
    ok: bool
    detail: str
    messages: int
    elements: int


class LabError(Exception):
    """The learner's module raised (or a rank timed out): this run cannot go on."""


def load_module(path: Path, name: str) -> ModuleType:
    """Import a Python file as module ``name`` (``importlib``, as the grader's worker does)."""
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot import {path}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def lab_path(impl: str) -> Path:
    """The c10d.py to run: ``torchlab check``'s ``--impl`` rules; for ``lab``, the course
    folder this is run in, else the one this script belongs to."""
    path = resolve_impl(WEEK, impl)
    if impl == "lab" and not path.is_file():
        path = WEEK.lab_dir(REPO) / f"{WEEK.module}.py"
    return path


def ints(rank: int, n: int, salt: int) -> torch.Tensor:
    """Small integers as float32 (exact under any order of summation), seeded per rank."""
    g = torch.Generator().manual_seed(1000 * salt + rank)
    return torch.randint(-20, 21, (n,), generator=g).float()


def first_difference(mine: torch.Tensor, gloos: torch.Tensor) -> str:
    if mine.shape != gloos.shape or mine.dtype != gloos.dtype:
        return (
            f"labccl gave {mine.dtype} {list(mine.shape)}, gloo {gloos.dtype} {list(gloos.shape)}"
        )
    a, b = mine.reshape(-1), gloos.reshape(-1)
    where = (a != b).nonzero()
    i = int(where[0]) if len(where) else 0
    return f"first at index {i}: labccl {a[i].item()}, gloo {b[i].item()}"


class Run:
    """This rank's side of the checks: the port, the two groups, and the verdicts so far."""

    def __init__(self, port: Any, gloo: Any) -> None:
        self.port, self.gloo = port, gloo
        self.rank, self.world_size = port.rank, port.world_size
        self.verdicts: list[Verdict] = []

    def check(self, name: str, body: Callable[[], tuple[bool, str]]) -> None:
        """Run ``body`` (it runs labccl and gloo and compares), counting what this rank sent."""
        m0, e0 = self.port.messages, self.port.elements
        ok, detail = body()
        sent = self.port.messages - m0, self.port.elements - e0
        self.verdicts.append(Verdict(name, ok, detail, *sent))

    def compare(self, fn: Callable[..., Any], inputs: list[torch.Tensor]) -> tuple[bool, str]:
        """``fn(tensors, group)`` on copies of ``inputs``, once on labccl (the default group)
        and once on gloo; then whether every tensor came out the same."""
        mine = [t.clone() for t in inputs]
        fn(mine, None)
        gloos = [t.clone() for t in inputs]
        fn(gloos, self.gloo)
        for i, (a, b) in enumerate(zip(mine, gloos, strict=True)):
            if not torch.equal(a, b):
                which = f"tensor {i}: " if len(inputs) > 1 else ""
                return False, f"{which}{first_difference(a, b)}"
        return True, ""


def collectives(run: Run) -> None:
    r, w = run.rank, run.world_size
    n = 12  # divides into 2, 3 or 4 ring chunks
    for op in ("SUM", "AVG"):
        reduce_op = getattr(dist.ReduceOp, op)
        run.check(
            f"all_reduce {op}",
            lambda reduce_op=reduce_op: run.compare(
                lambda ts, g: dist.all_reduce(ts[0], op=reduce_op, group=g), [ints(r, n, 1)]
            ),
        )
    root = w - 1  # not rank 0: the tree must start where it is told
    run.check(
        f"broadcast from rank {root}",
        lambda: run.compare(
            lambda ts, g: dist.broadcast(ts[0], src=root, group=g), [ints(r, 7, 2)]
        ),
    )
    run.check(
        "all_gather",
        lambda: run.compare(
            lambda ts, g: dist.all_gather(ts[1:], ts[0], group=g),
            [ints(r, 5, 3)] + [torch.zeros(5) for _ in range(w)],
        ),
    )
    run.check(
        "reduce_scatter SUM",
        lambda: run.compare(
            lambda ts, g: dist.reduce_scatter(ts[0], ts[1:], group=g),
            [torch.zeros(4)] + [ints(r, 4, 4 + i) for i in range(w)],
        ),
    )


def ddp(run: Run, steps: int) -> None:
    """Real ``DistributedDataParallel`` on labccl and on gloo: the same model (each rank
    starts from its own weights: DDP broadcasts rank 0's), the same batches, SGD."""
    from torch.nn.parallel import DistributedDataParallel as DDP

    def body() -> tuple[bool, str]:
        torch.manual_seed(100 + run.rank)
        model = torch.nn.Sequential(torch.nn.Linear(6, 16), torch.nn.ReLU(), torch.nn.Linear(16, 3))
        mine, gloos = DDP(copy.deepcopy(model)), DDP(copy.deepcopy(model), process_group=run.gloo)
        opts = [torch.optim.SGD(m.parameters(), lr=0.1) for m in (mine, gloos)]
        g = torch.Generator().manual_seed(200 + run.rank)
        for step in range(1, steps + 1):
            x, y = torch.randn(8, 6, generator=g), torch.randn(8, 3, generator=g)
            for m, opt in zip((mine, gloos), opts, strict=True):
                opt.zero_grad()
                torch.nn.functional.mse_loss(m(x), y).backward()
                opt.step()
            pairs = zip(mine.module.named_parameters(), gloos.module.parameters(), strict=True)
            for (name, a), b in pairs:
                if not torch.allclose(a, b, rtol=1e-5, atol=1e-6):
                    gap = (a - b).abs().max().item()
                    return False, f"after step {step}, {name} is off by up to {gap:.3g}"
        return True, ""

    run.check(f"DDP, {steps} steps of SGD", body)


def timing(run: Run) -> str:
    """The median time of one all_reduce of 1 MiB, labccl then gloo (shown, never judged)."""
    t = torch.ones(2**18)

    def median(group: Any) -> float:
        times = []
        for _ in range(4):
            dist.barrier(group=run.gloo)
            start = time.perf_counter()
            dist.all_reduce(t, group=group)
            times.append(time.perf_counter() - start)
        return statistics.median(times[1:]) * 1e3

    mine, gloos = median(None), median(run.gloo)
    return f"all_reduce of 1 MiB (262144 float32): labccl {mine:.1f} ms, gloo {gloos:.1f} ms"


def expected_messages(name: str, w: int) -> tuple[list[int] | None, str]:
    """The textbook count of each rank's messages (None: per-rank counts vary)."""
    if name.startswith("all_reduce"):
        return [2 * (w - 1)] * w, f"a ring sends 2(W-1) = {2 * (w - 1)} each"
    if name.startswith(("all_gather", "reduce_scatter")):
        return [w - 1] * w, f"a ring sends W-1 = {w - 1} each"
    if name.startswith("broadcast"):
        return None, f"a binomial tree sends W-1 = {w - 1} in all"
    return None, ""


def report(run: Run) -> int:
    """Rank 0 prints one line per check from every rank's verdicts (gathered over gloo);
    the number of checks that failed."""
    everyone: list[Any] = [None] * run.world_size
    dist.all_gather_object(everyone, [v.__dict__ for v in run.verdicts], group=run.gloo)
    failed = 0
    for i, name in enumerate(v.name for v in run.verdicts):
        ranks = [Verdict(**per_rank[i]) for per_rank in everyone]
        messages = [v.messages for v in ranks]
        want, rule = expected_messages(name, run.world_size)
        problems = [f"rank {v_rank}: {v.detail}" for v_rank, v in enumerate(ranks) if not v.ok]
        if want is not None and messages != want:
            problems.append(f"messages per rank {messages}, where {rule}")
        elif name.startswith("broadcast") and sum(messages) != run.world_size - 1:
            problems.append(f"{sum(messages)} messages in all, where {rule}")
        failed += bool(problems)
        if run.rank == 0:
            verdict = "FAIL" if problems else "PASS"
            said = "; ".join(problems) if problems else "same as gloo on every rank"
            print(f"{verdict}  {name}: {said}", flush=True)
            elements = [v.elements for v in ranks]
            note = f" ({rule})" if rule else ""
            print(f"      messages per rank {messages}{note}, elements {elements}", flush=True)
    return failed


def explain(exc: BaseException, path: Path, rank: int) -> str:
    """What to tell the learner when their module (or a rank's wait) stopped the run."""
    text = str(exc)
    if isinstance(exc, NotImplementedError):
        task = re.search(r"\(Task (\d+\.\d+)\)", text)
        if task:
            return (
                f"not implemented yet: {text}. This script runs your labccl, which needs "
                f"{TASKS_USED}: finish Task {task.group(1)} (`torchlab check week7 -k "
                f"{task.group(1)}` shows what is left), then run it again."
            )
    if isinstance(exc, TimeoutError):
        return text
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if f.filename == str(path)]
    where = f" ({path.name}, line {frames[-1].lineno})" if frames else ""
    return (
        f"your labccl raised {type(exc).__name__}: {text}{where}. `torchlab check week7` runs "
        "the same collectives on threads, case by case, and says which one raises."
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--impl",
        default="lab",
        help="lab (default: your labs/week7_c10d/c10d.py), or a folder/file",
    )
    parser.add_argument(
        "--timeout", type=float, default=60.0, help="seconds a rank waits for a message"
    )
    parser.add_argument("--steps", type=int, default=3, help="DDP steps")
    args = parser.parse_args(argv)
    if "RANK" not in os.environ or "MASTER_ADDR" not in os.environ:
        print(
            "run this under torchrun, which starts the ranks and their store: "
            "torchrun --nproc_per_node 2 scripts/torchrun_labccl.py",
            file=sys.stderr,
        )
        return 2
    path = lab_path(args.impl)
    if not path.is_file():
        print(f"cannot find {path}: --impl takes lab, or a folder or a c10d.py", file=sys.stderr)
        return 2

    multihost = load_module(given_file(WEEK, "multihost.py"), "labccl_multihost")
    port, store = multihost.port_from_env(args.timeout)
    multihost.install(port)  # where current_port() looks: this (main) thread
    rank, world_size = port.rank, port.world_size
    if rank == 0:
        print(
            f"labccl on {world_size} processes under torchrun, checked against gloo in the same "
            f"processes\n  your module: {path}\n  the interconnect: {port!r} over the TCPStore at "
            f"{os.environ['MASTER_ADDR']}:{os.environ['MASTER_PORT']}",
            flush=True,
        )
    started = time.perf_counter()
    try:
        try:
            lab = load_module(path, "labccl_lab")
            backend = lab.register_labccl()
            dist.init_process_group(
                backend,
                store=store,
                rank=rank,
                world_size=world_size,
                timeout=timedelta(seconds=max(args.timeout, 30.0)),
            )
            run = Run(port, dist.new_group(backend="gloo"))
            collectives(run)
            ddp(run, args.steps)
            speed = timing(run)
        except Exception as exc:  # noqa: BLE001 - the learner's error, said in words
            print(f"[rank {rank}] {explain(exc, path, rank)}", file=sys.stderr, flush=True)
            return 1
        failed = report(run)
        if rank == 0:
            total = len(run.verdicts)
            took = time.perf_counter() - started
            print(f"speed (not judged): {speed}", flush=True)
            print(
                f"{total - failed} of {total} checks passed in {took:.1f} s"
                + ("" if not failed else ": each FAIL line says where labccl and gloo differ"),
                flush=True,
            )
        return 1 if failed else 0
    finally:
        if dist.is_initialized():
            dist.destroy_process_group()


if __name__ == "__main__":
    sys.exit(main())
