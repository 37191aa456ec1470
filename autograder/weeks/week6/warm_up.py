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
    torch._dynamo.reset()
    _warm_aot()
    torch._dynamo.reset()  # the children start with Dynamo's caches empty


def _warm_aot() -> None:
    """Part 2's paths: make_fx with fake tensors and a decomposition table, a dispatch mode
    under FakeTensorMode, AOTAutograd's inference graph (a mutated input), its joint graph
    cut by the default partitioner, a compiled backward, ``exec`` of generated code, and a
    training step through ``aot_autograd`` (its first compile starts tqdm's monitor thread
    unless tqdm is told not to: a thread the sandbox would refuse)."""
    import torch.nn.functional as F  # noqa: N812 - the name everyone uses
    from functorch.compile import aot_function, make_boxed_func
    from torch._decomp import get_decompositions
    from torch._dynamo.backends.common import aot_autograd
    from torch._functorch.partitioners import default_partition
    from torch._subclasses.fake_tensor import FakeTensorMode
    from torch.fx.experimental.proxy_tensor import make_fx
    from torch.utils._python_dispatch import TorchDispatchMode

    try:
        import tqdm

        tqdm.tqdm.monitor_interval = 0
    except ImportError:
        pass
    aten = torch.ops.aten
    names = ["gelu", "gelu_backward", "silu", "_softmax", "_log_softmax", "addmm", "t",
             "_softmax_backward_data", "_log_softmax_backward_data"]  # fmt: skip
    table = get_decompositions([getattr(aten, n) for n in names])
    x, w, b = torch.ones(3, 4), torch.ones(5, 4), torch.ones(5)

    def mlp(x: torch.Tensor, w: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        return torch.log_softmax(F.gelu(F.linear(x, w, b)), -1) + torch.softmax(x, 0).sum()

    make_fx(mlp, tracing_mode="fake", decomposition_table=table)(x, w, b)
    make_fx(lambda t: t.clone().add_(1).view(-1), tracing_mode="fake")(x)

    class Mode(TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):  # noqa: ANN001, ANN204
            return func(*args, **(kwargs or {}))

    fake_mode = FakeTensorMode()
    with fake_mode, Mode():
        fake = fake_mode.from_tensor(x)
        (fake.t() @ fake).relu().sum()

    def boxed(gm: torch.fx.GraphModule, _: object) -> object:
        return make_boxed_func(gm.forward)

    def mutate(x: torch.Tensor, buf: torch.Tensor) -> torch.Tensor:
        buf.add_(1)
        return x.sin() + buf

    aot_function(mutate, boxed)(x, torch.zeros(3, 4))
    joint = aot_function(mlp, boxed, boxed, partition_fn=default_partition, decompositions=table)
    grads = [t.clone().requires_grad_(True) for t in (x, w, b)]
    joint(*grads).sum().backward()
    namespace: dict = {}
    exec(
        compile("import torch\ndef call(args):\n    return (args[0] * 2,)\n", "<w>", "exec"),
        namespace,
    )  # noqa: S102, E501
    namespace["call"]([x])
    model = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.GELU(), torch.nn.Linear(8, 2))
    backend = aot_autograd(fw_compiler=boxed, bw_compiler=boxed, decompositions=table)
    torch.compile(model, backend=backend)(x).sum().backward()
