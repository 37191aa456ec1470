"""What week 7's fork server runs once, before it forks any worker.

The first ``DistributedDataParallel`` in a process takes about 1.2 s of lazy imports, and
the first process group reads more of torch's sources: every forked worker would pay it
again, and the sandbox would see those reads as the learner's. A world of two threads runs
here once on a throwaway backend of our own (a pass-through process group): a group
created and destroyed, the collectives' Python paths, DDP built, one backward. The threads
end before any fork. Nothing here touches a learner's code or an answer."""

from __future__ import annotations

import threading
from typing import Any

import torch
import torch.distributed as dist


class _Solo(dist.ProcessGroup):
    """A process group whose collectives leave tensors as they are (what a world of one
    computes): enough for DDP to run every path once."""

    def getBackendName(self) -> str:  # noqa: N802 - c10d's name
        return "warmup"

    def _done(self, tensors: list) -> Any:
        fut: torch.futures.Future = torch.futures.Future()
        fut.set_result(tensors)

        class Done(dist._Work):
            def wait(self, timeout: Any = None) -> bool:
                return True

            def get_future(self) -> torch.futures.Future:
                return fut

        return Done()

    def allreduce(self, tensors: list, opts: Any = None) -> Any:
        return self._done(tensors)

    def broadcast(self, tensors: list, opts: Any = None) -> Any:
        return self._done(tensors)

    def allgather(self, outs: list, ins: list, opts: Any = None) -> Any:
        for out, t in zip(outs, ins, strict=True):
            for o in out:
                o.copy_(t)
        return self._done(ins)


_DONE = False


def warm_up() -> None:
    """Run a throwaway world once in this process (later calls do nothing)."""
    global _DONE
    if _DONE:
        return
    _DONE = True
    from autograder.weeks.week7.world import _thread_local_world

    _thread_local_world()
    if not hasattr(dist.Backend, "WARMUP"):
        dist.Backend.register_backend(
            "warmup", lambda store, rank, size, timeout: _Solo(rank, size), devices=["cpu"]
        )

    def rank_main() -> None:
        dist.init_process_group("warmup", store=dist.HashStore(), rank=0, world_size=1)
        t = torch.ones(2)
        dist.all_reduce(t)
        dist.broadcast(t, 0)
        dist.all_gather([torch.zeros(2)], t)
        model = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.ReLU(), torch.nn.Linear(4, 2))
        ddp = torch.nn.parallel.DistributedDataParallel(model)
        for _ in range(2):
            ddp(torch.ones(2, 3)).sum().backward()
        dist.destroy_process_group()

    thread = threading.Thread(target=rank_main)
    thread.start()
    thread.join()
