"""Tasks 6.10 to 6.12: the lab's Inductor (loop IR, fusion, code generation) and
``backend="labdev"``.

Both sides start from the same ATen graph (``common.aten_graph``: ``make_fx`` with torch's
decompositions). 6.10 compares the steps (fused kernels and extern calls, in order) with
the code real Inductor writes for that graph: Inductor runs in the grader's own process
only, never in the sandbox (it starts compiler processes). 6.11 and 6.12 compare results
with the program run eagerly, on each side.
"""

from __future__ import annotations

from typing import Any

import torch

from autograder.cases import case
from autograder.observe import guard
from autograder.weeks.week6.common import (
    W,
    aten_graph,
    close,
    fused,
    generated,
    inputs,
    unwrapped,
)

X, Y = inputs(8, 6), inputs(8, 6, start=0.3)
WT = inputs(6, 5, start=-0.2)


# ---- Task 6.10: loop IR and fusion --------------------------------------------------------------


@case(W, points=2, tasks="6.10")
def task_6_10_pointwise_chain_is_one_kernel(lib: Any) -> Any:
    """``((x.sin() + 1) * y).relu()``: four pointwise ops inlined into one loop, one kernel
    (Inductor: ``cpp_fused_add_mul_relu_sin_0``)."""
    return guard(lambda: fused(lib, lambda x, y: ((x.sin() + 1) * y).relu(), X, Y))


@case(W, points=2, tasks="6.10")
def task_6_10_reductions_fuse_with_their_consumers(lib: Any) -> Any:
    """Softmax (two reductions and the pointwise ops between them), ``x - x.mean(0)`` and two
    reductions of one input: each one kernel, every loop between two extern calls in one."""
    return {
        "softmax": guard(lambda: fused(lib, lambda x: torch.softmax(x, -1), X)),
        "mean sub": guard(lambda: fused(lib, lambda x: x - x.mean(0, keepdim=True), X)),
        "two sums": guard(lambda: fused(lib, lambda x: (x.sum(0), x.amax(1)), X)),
    }


@case(W, points=2, tasks="6.10")
def task_6_10_mm_is_an_extern_call(lib: Any) -> Any:
    """``mm`` is never a loop: an extern call, with the pointwise ops after it as one kernel
    (``(x @ w).relu() + 1``), and the ones before it as another (``x.exp() @ w``)."""
    return {
        "epilogue": guard(lambda: fused(lib, lambda x, w: (x @ w).relu() + 1, X, WT)),
        "before and after": guard(lambda: fused(lib, lambda x, w: (x.exp() @ w).tanh(), X, WT)),
        "mm only": guard(lambda: fused(lib, lambda x, w: x @ w, X, WT)),
    }


@case(W, points=1, tasks="6.10")
def task_6_10_a_reduction_after_mm_runs_after_it(lib: Any) -> Any:
    """A reduction of ``mm``'s result and what follows it: one kernel, after the extern call
    (a reduction's result is as late as what it reads)."""
    return guard(lambda: fused(lib, lambda x, w: (x @ w).sum(0) * 2, X, WT))


@case(W, points=1, tasks="6.10")
def task_6_10_views_need_no_kernel(lib: Any) -> Any:
    """A view of an input is new sizes and strides on the same memory: ``x.t()`` returned, or
    handed to ``mm``, needs no kernel."""
    return {
        "t returned": guard(lambda: fused(lib, lambda x: x.t(), X)),
        "t to mm": guard(lambda: fused(lib, lambda x, y: x.t() @ y, X, Y)),
        "unsqueeze": guard(lambda: fused(lib, lambda x: x.unsqueeze(0), X)),
    }


# ---- Task 6.11: code generation -----------------------------------------------------------------


@case(W, points=2, tasks=("6.10", "6.11"))
def task_6_11_generated_code_computes_the_graph(lib: Any) -> Any:
    """The generated module's ``call`` returns what the program computes: a pointwise chain,
    softmax, ``mm`` with an epilogue, a reduction to a 0-d tensor, a constant that is not a
    finite number, a sum over an empty list of dims (torch reduces every dim)."""
    return {
        "pointwise": guard(lambda: generated(lib, lambda x, y: ((x.sin() + 1) * y).relu(), X, Y)),
        "softmax": guard(lambda: generated(lib, lambda x: torch.softmax(x, -1), X)),
        "mm relu": guard(lambda: generated(lib, lambda x, w: (x @ w).relu() + 1, X, WT)),
        "sum": guard(lambda: generated(lib, lambda x: (x * x).sum(), X)),
        "infinity": guard(lambda: generated(lib, lambda x: x.exp() * float("inf"), X)),
        "sum over no dims": guard(lambda: generated(lib, lambda x: x.sum([]) + 1, X)),
    }


@case(W, points=2, tasks=("6.10", "6.11"))
def task_6_11_strided_inputs_and_broadcasting(lib: Any) -> Any:
    """Loads follow each input's strides (a transposed input, a slice with an offset) and
    broadcast (a row, a column); reductions keep or drop their dims."""
    xt = inputs(6, 8).t()
    sliced = inputs(8, 7)[:, 1:]
    row, col = inputs(6, start=0.4), inputs(8, 1, start=0.9)
    return {
        "transposed": guard(lambda: generated(lib, lambda a, b: a * 2 + b, xt, Y)),
        "offset": guard(lambda: generated(lib, lambda a: a.exp().sum(1), sliced)),
        "row and column": guard(lambda: generated(lib, lambda x, r, c: x * r - c, X, row, col)),
        "keepdim": guard(lambda: generated(lib, lambda x: x / x.sum(1, keepdim=True), X)),
        "mean": guard(lambda: generated(lib, lambda x: x.mean(0) + x.mean(), X)),
    }


@case(W, points=2, tasks=("6.10", "6.11"))
def task_6_11_views_of_computed_values(lib: Any) -> Any:
    """Views of values that are computed, not loaded: a reshape (the flat index split again),
    of a contiguous input and of a transposed one (the split offsets index its storage), a
    permute that is not its own inverse, an expand with a new leading dim, a squeeze of a
    dim that is not 1 (nothing happens), two reads of one input at two places, negative
    reduction dims, a loop whose value does not depend on every loop variable (a row
    broadcast down a matrix, and summed down it: the reduction still counts every row), and a
    contiguous view of another shape returned (the buffer in the view's shape, not its own)."""
    x3, sq = inputs(2, 3, 4), inputs(6, 6, start=0.2)
    row, xt = inputs(6, start=0.4), inputs(6, 8).t()
    return {
        "reshape": guard(lambda: generated(lib, lambda x: (x.sin() * 2).view(6, 8) + 1, X)),
        "reshape of a transpose": guard(
            lambda: generated(lib, lambda a: (a.sin() * 2).reshape(6, 8) + 1, xt)
        ),
        "permute": guard(lambda: generated(lib, lambda a: (a * 2).permute(1, 2, 0) + 1, x3)),
        "expand": guard(lambda: generated(lib, lambda x, r: (r * 2).expand(8, 6) * x, X, row)),
        "squeeze": guard(lambda: generated(lib, lambda x: (x * 2).squeeze(0) + 1, X)),
        "two reads": guard(lambda: generated(lib, lambda s: s + s.t(), sq)),
        "negative dims": guard(
            lambda: generated(lib, lambda x: x.amax(-1, keepdim=True) + x.sum(-2, keepdim=True), X)
        ),
        "sum over -1": guard(lambda: generated(lib, lambda x: x.sum(-1) * 2, X)),
        "a row broadcast": guard(lambda: generated(lib, lambda r: (r * 2).expand(8, 6) + 1, row)),
        "a row broadcast, summed": guard(
            lambda: generated(lib, lambda r: (r * 2).expand(8, 6).sum(0), row)
        ),
        "a flat view returned": guard(lambda: generated(lib, lambda x: (x * 2).view(-1), X)),
    }


@case(W, points=1, tasks=("6.10", "6.11"))
def task_6_11_several_results_and_views_of_results(lib: Any) -> Any:
    """Several results, one of them a view of a computed buffer, one an input's view."""

    def f(x: torch.Tensor, y: torch.Tensor) -> Any:
        z = (x + y).cos()
        return z, z.t(), y.t(), z.sum(0), z

    def run() -> dict[str, Any]:
        out = generated(lib, f, X, Y)
        compiled = lib.compile_graph(aten_graph(f, X, Y))
        got = compiled([X, Y])
        # a value returned twice is one buffer returned twice (Inductor: ``return (buf0, buf0)``)
        out["returned twice is one tensor"] = got[0].data_ptr() == got[4].data_ptr()
        return out

    return guard(run)


# ---- Task 6.12: backend="labdev" ----------------------------------------------------------------


def _train(lib: Any, backend: Any, steps: int = 3) -> dict[str, Any]:
    """Three SGD steps of a Linear(4, 8)-GELU-Linear(8, 2) model compiled with ``backend``,
    and the same steps eagerly from the same weights: losses and weights compared."""

    def run(compiled: bool) -> tuple[list[torch.Tensor], list[torch.Tensor]]:
        torch.manual_seed(0)
        mlp = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.GELU(), torch.nn.Linear(8, 2))
        opt = torch.optim.SGD(mlp.parameters(), lr=0.1)
        model = torch.compile(mlp, backend=backend) if compiled else mlp
        x, y = inputs(16, 4, start=-0.5) / 4, inputs(16, 2, start=0.2) / 8
        losses = []
        for _ in range(steps):
            opt.zero_grad()
            loss = ((model(x) - y) ** 2).mean()
            loss.backward()
            opt.step()
            losses.append(loss.detach())
        return losses, [p.detach().clone() for p in mlp.parameters()]

    from torch._dynamo.utils import counters

    torch._dynamo.reset()
    counters.clear()
    losses, params = run(True)
    through_aot = counters["aot_autograd"]["total"] >= 1  # not a backend that runs gm as it is
    eager_losses, eager_params = run(False)
    torch._dynamo.reset()
    return {
        "compiled through AOTAutograd": through_aot,
        "losses": close(losses, eager_losses),
        "weights": close(params, eager_params),
    }


@case(W, points=1, tasks=("6.8", "6.10", "6.11", "6.12"))
def task_6_12_labdev_is_a_registered_backend(lib: Any) -> Any:
    """After ``register_labdev()`` (twice: the second changes nothing) ``"labdev"`` is one of
    ``torch._dynamo.list_backends()``, and ``torch.compile(f, backend="labdev")`` runs."""
    lib.register_labdev()
    lib.register_labdev()
    listed = "labdev" in torch._dynamo.list_backends()
    torch._dynamo.reset()
    out = unwrapped(torch.compile(lambda x: (x.sin() * 2).sum(1), backend="labdev"), X)
    torch._dynamo.reset()
    return {"listed": listed, "computes f": close(out, (X.sin() * 2).sum(1))}


@case(W, points=3, tasks=("6.8", "6.9", "6.10", "6.11", "6.12"))
def task_6_12_mlp_trains_as_eager(lib: Any) -> Any:
    """An MLP trained three SGD steps through ``torch.compile(backend=labdev_backend)``: the
    forward and backward graphs both go through your partition and your kernels; the losses
    and weights are eager's."""
    return guard(lambda: unwrapped(_train, lib, lib.labdev_backend))


@case(W, points=2, tasks=("6.8", "6.9", "6.10", "6.11", "6.12"))
def task_6_12_graph_breaks_and_softmax_under_labdev(lib: Any) -> Any:
    """A function that breaks (a ``print``) gives two graphs, each compiled by labdev; one
    with softmax and a reduction backpropagates through your decompositions."""

    def f(x: torch.Tensor) -> torch.Tensor:
        y = torch.softmax(x * 2, -1)
        print("between the graphs")
        return (y * x).sum(0)

    def run() -> dict[str, Any]:
        torch._dynamo.reset()
        x = X.clone().requires_grad_(True)
        out = torch.compile(f, backend=lib.labdev_backend)(x)
        out.sum().backward()
        ex = X.clone().requires_grad_(True)
        want = f(ex)
        want.sum().backward()
        torch._dynamo.reset()
        return {"result": close(out, want), "gradient": close(x.grad, ex.grad)}

    import contextlib
    import io

    with contextlib.redirect_stdout(io.StringIO()):
        return guard(lambda: unwrapped(run))
