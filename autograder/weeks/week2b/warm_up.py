"""What week 2b's fork server runs once, before it forks any worker.

The first custom op, the first ``opcheck`` and the first ``torch.compile`` of a process each
pay for lazy set-up inside torch (dynamo's tracing state, AOT autograd's first graph, fake
tensor caches): about 0.15 s that every forked worker would otherwise pay again. Doing it
here, on an op of our own in a namespace no case uses, leaves it done in every child.
Nothing here touches a learner's code or an answer."""

from __future__ import annotations

import torch


def warm_up() -> None:
    """Define, check and compile one throwaway custom op (``torchlab_warm_up::scale``)."""

    @torch.library.custom_op("torchlab_warm_up::scale", mutates_args=())
    def scale(x: torch.Tensor, k: float) -> torch.Tensor:
        return x * k

    @scale.register_fake
    def _(x: torch.Tensor, k: float) -> torch.Tensor:
        return torch.empty_like(x)

    def backward(ctx: object, grad: torch.Tensor) -> tuple[torch.Tensor, None]:
        return grad * ctx.k, None  # type: ignore[attr-defined]

    def setup_context(ctx: object, inputs: tuple, output: torch.Tensor) -> None:
        ctx.k = inputs[1]  # type: ignore[attr-defined]

    scale.register_autograd(backward, setup_context=setup_context)
    x = torch.randn(3, 4, dtype=torch.float64, requires_grad=True)
    torch.library.opcheck(scale, (x, 2.0))
    compiled = torch.compile(lambda t: scale(t, 3.0).relu(), backend="eager", fullgraph=True)
    compiled(x).sum().backward()
    torch._dynamo.reset()  # the children start with dynamo's caches empty, as a fresh process
