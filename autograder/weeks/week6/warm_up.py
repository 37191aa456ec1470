"""What week 6's fork server runs once, before it forks any worker.

A process's first ``torch.compile`` pays for Dynamo's lazy set-up (its tracing state, the
guard builders, the first recompile with dynamic shapes reads sympy and more of Dynamo's
sources): about 0.4 s that every forked worker would pay again, and file reads the sandbox
would see as the learner's. Every path the cases take is walked once here, on functions of
our own: a recording backend, a graph break, a branch on a tensor, ``explain``, a guard
tree's check, automatic dynamic shapes and ints, ``dynamic=True``, ``mark_dynamic``, the
recompile limit. Nothing here touches a learner's code or an answer."""

from __future__ import annotations

import logging

import torch


def warm_up() -> None:
    """Compile throwaway functions down every path week 6's cases take."""
    from torch._dynamo.eval_frame import _debug_get_cache_entry_list

    logging.getLogger("torch._dynamo").setLevel(logging.ERROR)  # the recompile-limit warning

    def backend(gm: torch.fx.GraphModule, example_inputs: list) -> object:
        return gm.forward

    def pieces(x: torch.Tensor, n: int) -> torch.Tensor:
        y = x * n
        print(end="")
        if y.sum() > 0:
            return y.sin()
        return y - 1

    for sign in (1, -1):
        torch.compile(pieces, backend=backend)(torch.ones(3) * sign, 2)
    torch._dynamo.explain(pieces)(torch.ones(3), 2)
    torch._dynamo.reset()

    def scaled(x: torch.Tensor, n: int, xs: list) -> torch.Tensor:
        return (x * n + xs[0]).sum(0) @ x.t()

    for dynamic in (None, True, False):
        torch._dynamo.reset()
        compiled = torch.compile(scaled, backend=backend, dynamic=dynamic)
        for size, n in ((4, 2), (5, 3), (6, 4), (1, 5)):
            x = torch.ones(2, size)
            compiled(x, n, [x.clone()])

    def pointwise(x: torch.Tensor, n: int, xs: list) -> torch.Tensor:
        return (x.sin() * n).sum(0) + xs[0]

    x = torch.ones(8, 3)
    torch._dynamo.mark_dynamic(x, 0)
    torch._dynamo.reset()
    torch.compile(pointwise, backend=backend)(x, 2, [torch.ones(3)])
    entry = _debug_get_cache_entry_list(pointwise.__code__)[0]
    entry.guard_manager.check({"x": x, "n": 2, "xs": [torch.ones(3)]})
    with torch.no_grad():
        entry.guard_manager.check({"x": x, "n": 2, "xs": [torch.ones(3)]})
    torch.compile(lambda t: t.relu() + 1, backend="eager")(torch.ones(2, requires_grad=True))
    torch._dynamo.reset()  # the children start with Dynamo's caches empty
