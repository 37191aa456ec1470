"""Task 7.7: communication hooks, the learner's against torch's ``default_hooks``, on real DDP
(so that a hook is judged on its own) and on the learner's ``MiniDDP``."""

from __future__ import annotations

from typing import Any

import torch
import torch.distributed as dist

from autograder.cases import case
from autograder.observe import guard
from autograder.weeks.week7.common import W, World, floats, mlp, plain, run_world, train
from autograder.weeks.week7.ddp import bits


def _init(lib: Any, w: World) -> None:
    dist.init_process_group(
        lib.register_labccl(), store=w.store, rank=w.rank, world_size=w.world_size
    )


def _plain_hook(fn: Any) -> Any:
    """A plain function calling ``fn``: real DDP reads a hook's ``__name__`` and signature."""

    def hook(state, bucket):  # no annotations: real DDP checks a hook's
        return fn(state, bucket)

    return hook


def _train_with_hook(lib: Any, w: World, hook_name: str, wrapper: str) -> Any:
    model = mlp(w.rank, (6, 16, 16, 3), smooth=True)
    if wrapper == "DDP":
        import torch

        ddp = torch.nn.parallel.DistributedDataParallel(model)
    else:
        ddp = lib.MiniDDP(model)
    ddp.register_comm_hook(None, _plain_hook(getattr(lib, hook_name)))
    grads: list = []

    def between(step: int) -> None:
        if step:
            grads.append([floats(p.grad) for p in model.parameters()])

    losses = train(ddp, w.rank, 2, between=between, smooth=True)
    grads.append([floats(p.grad) for p in model.parameters()])
    return {"losses": losses, "gradients": grads}


def _worlds(lib: Any, hook_name: str, wrapper: str) -> Any:
    """Worlds of 2 and 3; float16's only of 2: three float16 numbers summed in another order
    round differently, and a ring's order is the library's own business."""

    def rank_main(w: World) -> Any:
        _init(lib, w)
        return _train_with_hook(lib, w, hook_name, wrapper)

    sizes = (2,) if hook_name == "fp16_compress_hook" else (2, 3)
    return {f"W={n}": guard(lambda n=n: run_world(n, rank_main)) for n in sizes}


@case(W, points=2, tasks=("7.2", "7.3", "7.4", "7.7"))
def task_7_7_allreduce_hook_on_real_ddp(lib: Any) -> Any:
    """Your ``allreduce_hook`` registered on real DDP: gradients after each of two steps
    and the losses, worlds of 2 and 3, as with torch's ``allreduce_hook``."""
    return _worlds(lib, "allreduce_hook", "DDP")


@case(W, points=3, tasks=("7.2", "7.3", "7.4", "7.7"))
def task_7_7_fp16_compress_hook_on_real_ddp(lib: Any) -> Any:
    """Your ``fp16_compress_hook`` on real DDP: the gradients carry float16's rounding
    (weights and data use every bit of float32's mantissa, so a hook that does not compress
    shows), divided before the all-reduce as torch's hook does, and come back as float32.
    A world of 2."""
    return _worlds(lib, "fp16_compress_hook", "DDP")


@case(W, points=2, tasks=("7.2", "7.3", "7.4", "7.5", "7.6", "7.7"))
def task_7_7_hooks_on_miniddp(lib: Any) -> Any:
    """Your hooks on your ``MiniDDP``, against torch's hooks on real DDP."""
    return {
        hook: _worlds(lib, hook, "MiniDDP") for hook in ("allreduce_hook", "fp16_compress_hook")
    }


class _Bucket:
    """A bucket as a hook sees it, made by the course: the hooks use ``buffer()`` alone."""

    def __init__(self, buffer: torch.Tensor) -> None:
        self._buffer = buffer

    def buffer(self) -> torch.Tensor:
        return self._buffer


@case(W, points=2, tasks=("7.2", "7.3", "7.4", "7.7"))
def task_7_7_hooks_called_directly(lib: Any) -> Any:
    """Each hook called on a bucket of its own, in a world of 2: what its future gives
    (dtype and values), and whether that is the bucket's own buffer, changed in place
    (``allreduce_hook`` divides the buffer itself; ``fp16_compress_hook`` copies the result
    back into it and returns it, still float32)."""

    def rank_main(w: World) -> Any:
        _init(lib, w)
        out = {}
        for name in ("allreduce_hook", "fp16_compress_hook"):
            g = torch.Generator().manual_seed(900 + w.rank)
            buffer = torch.randn(6, generator=g)
            result = getattr(lib, name)(None, _Bucket(buffer)).wait()
            out[name] = {
                "result": plain(result),
                "is the buffer": result.data_ptr() == buffer.data_ptr(),
                "buffer after": floats(buffer),
            }
        return out

    return guard(lambda: run_world(2, rank_main))


@case(W, points=1, tasks=("7.2", "7.3", "7.4", "7.7"))
def task_7_7_fp16_overflows_as_torch_does(lib: Any) -> Any:
    """Gradients past float16's range: torch's hook casts first and divides after, so a
    gradient over 65504 becomes infinite even where the mean over ranks would fit (70000
    on one rank, -60000 on the other), and a sum over ranks that would pass 65504 does not,
    because each rank divides before the all-reduce (40000 on each). A world of 2."""

    def rank_main(w: World) -> Any:
        _init(lib, w)
        big = 70000.0 if w.rank == 0 else -60000.0  # the mean, 5000, fits float16
        # 40000 on each rank: divided first, the sum fits float16; summed first, it does not
        buffer = torch.tensor([big, 40000.0, 1000.0 * (w.rank + 1), 0.5])
        result = lib.fp16_compress_hook(None, _Bucket(buffer)).wait()
        return floats(result)

    return guard(lambda: run_world(2, rank_main))


@case(W, points=1, tasks=("7.2", "7.3", "7.4", "7.7"))
def task_7_7_allreduce_hook_bit_for_bit(lib: Any) -> Any:
    """``allreduce_hook`` divides each rank's gradients before the all-reduce, as torch's
    does; dividing the sum afterwards differs in the last bit of some values. Real DDP with
    your hook, three ranks with the same weights and data (every rank holds the same
    gradient, so the order of summation cannot matter): the gradients' bit patterns."""

    def rank_main(w: World) -> Any:
        _init(lib, w)
        model = mlp(0, (6, 8, 3), smooth=True)
        ddp = torch.nn.parallel.DistributedDataParallel(model)
        ddp.register_comm_hook(None, _plain_hook(lib.allreduce_hook))
        x = torch.randn(4, 6, generator=torch.Generator().manual_seed(5))
        ddp(x).pow(2).mean().backward()
        return [bits(p.grad) for p in model.parameters()]

    return guard(lambda: run_world(3, rank_main))
