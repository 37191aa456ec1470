"""Week 7's truth: the learner's API answered by torch's own distributed stack.

Every case runs its world of ranks (threads, ``autograder/weeks/week7/world.py``) twice: here
with gloo, torch's CPU backend, through the public ``dist.*`` API; and in the worker with the
learner's library. Where the learner has a function, torch's is named beside it:

- ``LabStore`` -> ``dist.HashStore`` (with the store timeout set);
- ``Comm(port)`` -> a gloo process group for this rank (``init_process_group("gloo")`` on the
  world's store), and its ``isend/irecv/send/recv`` -> ``dist.isend/irecv/send/recv``;
- ``broadcast``, ``reduce``, ``all_gather``, ``reduce_scatter``, ``all_reduce``, ``barrier``
  -> gloo's collectives of the same name;
- ``register_labccl`` -> ``"gloo"``; ``create_labccl`` -> ``dist.ProcessGroupGloo``;
- ``compute_bucket_assignment_by_size`` -> ``dist._compute_bucket_assignment_by_size``;
- ``MiniDDP`` -> ``torch.nn.parallel.DistributedDataParallel`` with the same arguments (its
  C++ ``Reducer``);
- ``allreduce_hook``, ``fp16_compress_hook`` -> the hooks of
  ``torch.distributed.algorithms.ddp_comm_hooks.default_hooks``;
- ``fully_shard`` -> ``torch.distributed.fsdp.fully_shard`` (FSDP2).

What gloo sends over its sockets is not visible from Python, so the traffic of each algorithm
(messages per rank, elements in all) is its textbook cost, ``algorithm_traffic`` below: a
binomial tree (MPICH, ``MPIR_Bcast_intra_binomial``) and a ring (NCCL's ring; Patarasuk and
Yuan, "Bandwidth optimal all-reduce algorithms", 2009). Torch's own answers (the values) still
come from gloo.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import torch.distributed as dist

# Answered in a child process of the grader (autograder/oracle.py says why): these answers
# start rank threads and gloo's threads, which must not live on in the grader.
ORACLE_APART = True
TIMEOUT = timedelta(seconds=10)  # a gloo rank waiting longer than this means a broken case


def _store(torch: Any, timeout: timedelta = timedelta(seconds=300)) -> Any:
    store = dist.HashStore()
    store.set_timeout(timeout)
    return store


class _GlooComm:
    """A rank's gloo process group, with the learner's ``Comm`` methods."""

    def __init__(self, port: Any) -> None:
        import threading

        store = threading.current_thread().store  # type: ignore[attr-defined]
        dist.init_process_group(
            "gloo", store=store, rank=port.rank, world_size=port.world_size, timeout=TIMEOUT
        )
        self.rank, self.world_size = port.rank, port.world_size

    def isend(self, tensor: Any, dst: int) -> Any:
        return dist.isend(tensor, dst)

    def irecv(self, tensor: Any, src: int) -> Any:
        return dist.irecv(tensor, src)

    def send(self, tensor: Any, dst: int) -> None:
        dist.send(tensor, dst)

    def recv(self, tensor: Any, src: int) -> None:
        dist.recv(tensor, src)


def _binomial_sends(world_size: int, v: int) -> int:
    """How many messages relative rank ``v`` sends in a binomial-tree broadcast: one to
    ``v + m`` for each power of two ``m`` below ``v``'s lowest set bit (below ``W`` for the
    root) with ``v + m < W``."""
    low = v & -v if v else 1 << world_size.bit_length()
    powers = [1 << k for k in range(world_size.bit_length())]
    return sum(1 for m in powers if m < low and v + m < world_size)


def _algorithm_traffic(torch: Any, kind: str, world_size: int, numel: int, root: int = 0) -> Any:
    """``{"messages": per rank, "elements": over all ranks}`` of one collective on tensors of
    ``numel`` elements (for reduce_scatter and all_gather: each rank's block)."""
    w = world_size
    if kind == "broadcast":
        messages = [_binomial_sends(w, (r - root) % w) for r in range(w)]
        return {"messages": messages, "elements": (w - 1) * numel}
    if kind == "reduce":  # the tree backwards: every rank but the root sends once
        return {"messages": [0 if r == root else 1 for r in range(w)], "elements": (w - 1) * numel}
    if kind in ("all_gather", "reduce_scatter"):  # W - 1 hops of one block per rank
        return {"messages": [w - 1] * w, "elements": w * (w - 1) * numel}
    if kind == "all_reduce":  # reduce-scatter then all-gather: each chunk travels 2 (W - 1) hops
        return {"messages": [2 * (w - 1)] * w, "elements": 2 * (w - 1) * numel}
    raise ValueError(f"no textbook traffic for {kind!r}")


def _call(name: str) -> Any:
    """A collective of the learner's shape, ``fn(comm, *args)``, as gloo's ``dist.<name>``."""
    target = getattr(dist, name)
    return lambda torch, comm, *args: target(*args)


def _register(torch: Any) -> str:
    return "gloo"


def _create(torch: Any, store: Any, rank: int, world_size: int, timeout: Any) -> Any:
    return dist.ProcessGroupGloo(store, rank, world_size, TIMEOUT)


def _buckets(
    torch: Any,
    tensors: list,
    limits: list[int],
    expect_sparse_gradient: list[bool] | None = None,
    tensor_indices: list[int] | None = None,
) -> Any:
    return dist._compute_bucket_assignment_by_size(
        tensors, limits, expect_sparse_gradient or [], tensor_indices or []
    )


def _ddp(
    torch: Any,
    module: Any,
    process_group: Any = None,
    bucket_cap_mb: float | None = None,
    find_unused_parameters: bool = False,
) -> Any:
    return torch.nn.parallel.DistributedDataParallel(
        module,
        process_group=process_group,
        bucket_cap_mb=bucket_cap_mb,
        find_unused_parameters=find_unused_parameters,
    )


def _hook(name: str) -> Any:
    from torch.distributed.algorithms.ddp_comm_hooks import default_hooks

    target = getattr(default_hooks, name)
    return lambda torch, state, bucket: target(state, bucket)


def _fully_shard(torch: Any, module: Any) -> Any:
    from torch.distributed.fsdp import fully_shard

    return fully_shard(module)


TORCH_EXTRAS = {
    "LabStore": _store,
    "Comm": lambda torch, port: _GlooComm(port),
    "broadcast": _call("broadcast"),
    "reduce": _call("reduce"),
    "all_gather": _call("all_gather"),
    "reduce_scatter": _call("reduce_scatter"),
    "all_reduce": _call("all_reduce"),
    "barrier": lambda torch, comm: dist.barrier(),
    "register_labccl": _register,
    "create_labccl": _create,
    "compute_bucket_assignment_by_size": _buckets,
    "algorithm_traffic": _algorithm_traffic,
    "MiniDDP": _ddp,
    "allreduce_hook": _hook("allreduce_hook"),
    "fp16_compress_hook": _hook("fp16_compress_hook"),
    "fully_shard": _fully_shard,
}
