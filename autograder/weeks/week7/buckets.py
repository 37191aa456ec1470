"""Task 7.5: DDP's bucket assignment, against ``dist._compute_bucket_assignment_by_size``."""

from __future__ import annotations

from typing import Any

import torch

from autograder.cases import case
from autograder.observe import guard
from autograder.weeks.week7.common import W, error_of

# The MLP Linear(64, 256)-ReLU-Linear(256, 256)-ReLU-Linear(256, 10): its parameters' shapes.
MLP = [(256, 64), (256,), (256, 256), (256,), (10, 256), (10,)]


def _assign(lib: Any, tensors: list, limits: list[int], *rest: Any) -> Any:
    def run() -> Any:
        buckets, per_bucket = lib.compute_bucket_assignment_by_size(tensors, limits, *rest)
        return {"buckets": [list(b) for b in buckets], "limits": list(per_bucket)}

    return guard(run)


@case(W, points=3, tasks="7.5")
def task_7_5_buckets_of_an_mlp(lib: Any) -> Any:
    """An MLP's parameters in DDP's order (reversed: gradients of the last layer come
    first) and in forward order, with DDP's default limits (1 MiB first, then 25 MiB), small
    limits and tiny ones: a bucket closes once it holds at least its limit."""
    params = [torch.zeros(s) for s in MLP]
    reverse = params[::-1]
    return {
        "reversed, default limits": _assign(lib, reverse, [1048576, 26214400]),
        "reversed, [1024, 100000]": _assign(lib, reverse, [1024, 100000]),
        "reversed, [10, 10]": _assign(lib, reverse, [10, 10]),
        "forward, [100000]": _assign(lib, params, [100000]),
        "forward, [300000, 1000]": _assign(lib, params, [300000, 1000]),
    }


@case(W, points=3, tasks="7.5")
def task_7_5_dtypes_sparse_and_ready_order(lib: Any) -> Any:
    """Buckets hold one dtype each, and each dtype walks the limits on its own; a tensor that
    expects a sparse gradient gets a bucket of its own (limit 0); with ``tensor_indices`` (the
    order gradients became ready) the buckets keep the order they closed in. No tensors at
    all: an error."""
    mixed = [torch.zeros(10), torch.zeros(5, dtype=torch.float64), torch.zeros(3),
             torch.zeros(100), torch.zeros(20, dtype=torch.float64)]  # fmt: skip
    same = [torch.zeros(n) for n in (10, 5, 3, 100)]
    return {
        "two dtypes": _assign(lib, mixed, [40, 400]),
        "sparse": _assign(lib, same, [40, 400], [False, False, True, False]),
        "sparse by index": _assign(lib, same, [40, 400], [True, False, False, False], [3, 2, 1, 0]),
        "ready order": _assign(lib, same, [40, 400], [], [3, 2, 1, 0]),
        "ready order, one limit": _assign(lib, same, [40], [], [1, 3, 0, 2]),
        "no tensors": error_of(lambda: lib.compute_bucket_assignment_by_size([], [40])),
    }
