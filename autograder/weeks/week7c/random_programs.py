"""Week 7c's own property case: real DDP and real FSDP2 trained on your C++ backend.

Week 7's generator (``autograder/differential/week7.py``) draws small models for DDP (widths,
layer order, bucket caps, ``find_unused_parameters``, hooks, BatchNorm, evaluation forwards)
and for ``fully_shard`` (which Linears are sharded, worlds of 2 to 4). Week 7 trains them
under the learner's ``MiniDDP`` and ``fully_shard``; here torch's own
``DistributedDataParallel``, ``default_hooks`` and FSDP2 train them, on your labccl on one side
and on gloo on the other: everything torch's parallel wrappers ask of a backend, on random
programs."""

from __future__ import annotations

from typing import Any

from autograder.cases import property_case
from autograder.differential import week7 as generator
from autograder.weeks.week7.random_programs import drawn, label
from autograder.weeks.week7c import W


class RealWrappersOn:
    """torch's DDP, communication hooks and FSDP2, over the backend of ``lib`` (yours, or
    gloo's on torch's side): what the generator's programs call ``MiniDDP``, the hooks and
    ``fully_shard``."""

    def __init__(self, lib: Any) -> None:
        import torch.distributed.fsdp
        from torch.distributed.algorithms.ddp_comm_hooks import default_hooks
        from torch.nn.parallel import DistributedDataParallel

        self.register_labccl = lib.register_labccl
        self.create_labccl = lib.create_labccl
        self.MiniDDP = DistributedDataParallel  # noqa: N815 - the generator's name
        self.allreduce_hook = default_hooks.allreduce_hook
        self.fp16_compress_hook = default_hooks.fp16_compress_hook
        self.fully_shard = torch.distributed.fsdp.fully_shard


def _drawn() -> Any:
    from hypothesis import strategies as st

    return st.one_of(drawn("ddp", "week7c"), drawn("fsdp", "week7c"))


@property_case(W, _drawn, n=8, points=3, tasks=("7.9", "7.10", "7.11"), label=label)
def random_models_under_real_ddp_and_fsdp2(lib: Any, program: Any) -> Any:
    """Random MLPs trained by torch's own DDP (bucket caps, unused parameters, hooks,
    BatchNorm buffers) or FSDP2 (random Linears sharded, worlds of 2 to 4) on your backend:
    the order of events in backward, the collectives FSDP2 issues, losses and weights."""
    return generator.execute(RealWrappersOn(lib), program)
