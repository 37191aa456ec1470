"""Tasks 6.6 to 6.9: ATen tracing, functionalization, decompositions and the partition.

6.6 is compared with ``make_fx(fn, tracing_mode="fake")``; 6.7 with the forward graph
AOTAutograd makes of the same ATen graph; 6.8 with ``make_fx`` under torch's own table
(``get_decompositions``); 6.9 with ``default_partition`` cutting the same joint graph
inside ``aot_function``. Every graph is also run and compared with the program run eagerly.
"""

from __future__ import annotations

from typing import Any

import torch
import torch.nn.functional as F  # noqa: N812 - the name everyone uses

from autograder.cases import case
from autograder.observe import guard
from autograder.weeks.week6.common import (
    W,
    aten_ops,
    close,
    decomposed,
    functional,
    inputs,
    partitioned,
    raises,
    results,
)

aten = torch.ops.aten


def traced(lib: Any, fn: Any, *args: Any) -> dict[str, Any]:
    """``lib.aten_trace(fn, *args)``: its calls, the shape each call's ``meta["val"]`` gives,
    and whether the graph run on real inputs computes what ``fn`` does."""
    gm = lib.aten_trace(fn, *args)
    shapes = [
        list(n.meta["val"].shape) if isinstance(n.meta.get("val"), torch.Tensor) else None
        for n in gm.graph.nodes
        if n.op == "call_function"
    ]
    return {
        "ops": aten_ops(gm),
        "shapes": shapes,
        "placeholders": sum(1 for n in gm.graph.nodes if n.op == "placeholder"),
        "computes fn": close(results(gm, *args), results(fn, *args)),
    }


# ---- Task 6.6: ATen tracing ---------------------------------------------------------------------


@case(W, points=2, tasks="6.6")
def task_6_6_trace_pointwise_and_reduction(lib: Any) -> Any:
    """``gelu(x).sum()`` and ``(x * y).relu() + 1``: one ATen call per op, in order, each with
    the shape fake tensors give it; the graph computes what the function does."""
    x, y = inputs(3, 4), inputs(3, 4, start=0.3)
    return {
        "gelu sum": guard(lambda: traced(lib, lambda x: F.gelu(x).sum(), x)),
        "mul relu add": guard(lambda: traced(lib, lambda x, y: (x * y).relu() + 1, x, y)),
    }


@case(W, points=2, tasks="6.6")
def task_6_6_trace_sees_ops_after_composites(lib: Any) -> Any:
    """A dispatch mode sees ATen calls after the composite ops have run: ``F.linear`` arrives
    as ``t`` and ``addmm``, ``torch.softmax`` as ``_softmax``, ``x.reshape`` of a transposed
    tensor as ``clone`` and ``_unsafe_view``."""
    x, w, b = inputs(3, 4), inputs(5, 4, start=0.2), inputs(5, start=0.1)
    return {
        "linear": guard(lambda: traced(lib, lambda x, w, b: F.linear(x, w, b), x, w, b)),
        "softmax": guard(lambda: traced(lib, lambda x: torch.softmax(x, -1), x)),
        "reshape": guard(lambda: traced(lib, lambda x: x.t().reshape(12) * 2, x)),
    }


@case(W, points=2, tasks="6.6")
def task_6_6_trace_tuples_inplace_and_views(lib: Any) -> Any:
    """``torch.max(x, 1)`` gives a tuple: each item a ``getitem`` node; in-place ops and views
    are traced as they are (``add_``, ``view``): removing them is Task 6.7's job."""
    x = inputs(3, 4)
    return {
        "max": guard(lambda: traced(lib, lambda x: torch.max(x, 1), x)),
        "inplace": guard(lambda: traced(lib, lambda x: x.clone().add_(1).view(-1), x)),
        "input returned": guard(lambda: traced(lib, lambda x, y: (x, x + y), x, x)),
    }


@case(W, points=1, tasks="6.6")
def task_6_6_branch_on_a_value_cannot_be_traced(lib: Any) -> Any:
    """Fake tensors have no values: ``if x.sum() > 0`` cannot be decided, so tracing raises
    (Dynamo would break the graph there instead); a branch on a shape traces fine."""
    x = inputs(3, 4)

    def on_value(x: torch.Tensor) -> torch.Tensor:
        return x * 2 if x.sum() > 0 else x * 3

    def on_shape(x: torch.Tensor) -> torch.Tensor:
        return x * 2 if x.shape[0] > 2 else x * 3

    return {
        "on a value": guard(lambda: raises(lambda: aten_ops(lib.aten_trace(on_value, x)))),
        "on a shape": guard(lambda: traced(lib, on_shape, x)),
    }


# ---- Task 6.7: functionalization ----------------------------------------------------------------


@case(W, points=2, tasks="6.7")
def task_6_7_mutated_input_is_returned_first(lib: Any) -> Any:
    """``buf.add_(1)`` on an input becomes ``add``, and the input's new value is returned
    before the program's results (the caller copies it back); the graph leaves its inputs
    untouched."""
    x, buf = inputs(2, 2), torch.zeros(2, 2)

    def f(x: torch.Tensor, buf: torch.Tensor) -> torch.Tensor:
        buf.add_(1)
        return x.sin() + buf

    return guard(lambda: functional(lib, f, x, buf))


@case(W, points=2, tasks="6.7")
def task_6_7_write_through_a_view(lib: Any) -> Any:
    """``y.view(-1).mul_(2)`` writes into ``y`` through a view: ``y``'s new value is the
    view's new value viewed back (AOTAutograd's own example); a later read of ``y`` sees it."""
    x, buf = inputs(2, 2), torch.zeros(2, 2)

    def f(x: torch.Tensor, buf: torch.Tensor) -> torch.Tensor:
        y = x.sin()
        buf.add_(1)
        y.view(-1).mul_(2)
        return y + buf

    return guard(lambda: functional(lib, f, x, buf))


@case(W, points=2, tasks="6.7")
def task_6_7_views_read_after_their_base_changed(lib: Any) -> Any:
    """A view taken before its base is written sees the write (views are replayed from
    the base's new value); an input written through its transpose comes back whole."""
    x = inputs(2, 3)

    def stale_view(x: torch.Tensor) -> Any:
        y = x.cos()
        v = y.t()
        y.add_(1)
        return v * 2

    def through_transpose(x: torch.Tensor) -> Any:
        x.t().mul_(3)
        return x.sum(0)

    return {
        "stale view": guard(lambda: functional(lib, stale_view, x)),
        "input through t": guard(lambda: functional(lib, through_transpose, x)),
    }


@case(W, points=2, tasks="6.7")
def task_6_7_writes_through_chains_of_views(lib: Any) -> Any:
    """Writes through a permute that is not its own inverse, through an unsqueeze, through a
    view of a view (each step undone, the last first), and a view read again after an
    in-place op that read it: every one as AOTAutograd's graph has it."""
    x3, x, sq = inputs(2, 3, 4), inputs(2, 3), inputs(3, 3)

    def permuted(x: torch.Tensor) -> Any:
        x.permute(1, 2, 0).mul_(inputs(3, 4, 2))
        return x * 1

    def unsqueezed(x: torch.Tensor) -> Any:
        y = x.exp()
        y.unsqueeze(0).add_(1)
        return y

    def view_of_view(x: torch.Tensor) -> Any:
        y = x.sin()
        y.view(3, 2).t().mul_(inputs(2, 3, start=0.5))
        return y + 1

    def reread(x: torch.Tensor) -> Any:
        y = x.cos()
        v = y.view(9)
        y.mul_(2)
        y.view(9).add_(v)  # reads v (stale since mul_) in the op that writes its base
        return v * 1

    return {
        "permute": guard(lambda: functional(lib, permuted, x3)),
        "unsqueeze": guard(lambda: functional(lib, unsqueezed, x)),
        "view of a view": guard(lambda: functional(lib, view_of_view, x)),
        "read again": guard(lambda: functional(lib, reread, sq)),
    }


@case(W, points=1, tasks="6.7")
def task_6_7_several_mutated_inputs_in_input_order(lib: Any) -> Any:
    """Two inputs written in the opposite order, one of them twice: each comes back once,
    in the order of the inputs; an intermediate written in place stays inside the graph."""
    a, b, c = inputs(3), inputs(3, start=1.0), inputs(3, start=2.0)

    def f(a: torch.Tensor, b: torch.Tensor, c: torch.Tensor) -> torch.Tensor:
        b.mul_(2)
        a.add_(c)
        b.add_(1)
        t = c.clone()
        t.sub_(a)
        return t

    return guard(lambda: functional(lib, f, a, b, c))


# ---- Task 6.8: decompositions -------------------------------------------------------------------


@case(W, points=2, tasks="6.8")
def task_6_8_gelu_both_forms_and_silu(lib: Any) -> Any:
    """``gelu`` (erf and tanh forms) and ``silu`` trace to the same small ops, in the same
    order, as torch's decompositions, and compute the same values."""
    x = inputs(3, 4)
    return {
        "gelu": guard(lambda: decomposed(lib, lambda x: F.gelu(x), x)),
        "gelu tanh": guard(lambda: decomposed(lib, lambda x: F.gelu(x, approximate="tanh"), x)),
        "silu": guard(lambda: decomposed(lib, lambda x: F.silu(x), x)),
    }


@case(W, points=2, tasks="6.8")
def task_6_8_softmax_and_log_softmax(lib: Any) -> Any:
    """``_softmax`` and ``_log_softmax`` over either dim: the max subtracted first, the sum
    kept as a dim of size 1."""
    x = inputs(3, 4)
    return {
        "softmax -1": guard(lambda: decomposed(lib, lambda x: torch.softmax(x, -1), x)),
        "softmax 0": guard(lambda: decomposed(lib, lambda x: torch.softmax(x, 0), x)),
        "log_softmax 1": guard(lambda: decomposed(lib, lambda x: torch.log_softmax(x, 1), x)),
    }


@case(W, points=2, tasks="6.8")
def task_6_8_linear_and_gelu_backward(lib: Any) -> Any:
    """``F.linear`` is ``t`` and ``addmm``: both decomposed (``transpose``; ``mm``, the scalings,
    ``add``), with ``beta`` and ``alpha`` too; ``gelu_backward`` called directly; ``t`` of a
    1-d tensor is ``transpose(0, 0)``, a view, never the tensor itself."""
    x, w, b = inputs(3, 4), inputs(5, 4, start=0.2), inputs(5, start=0.1)
    g = inputs(3, 4, start=0.7)
    return {
        "linear": guard(lambda: decomposed(lib, lambda x, w, b: F.linear(x, w, b), x, w, b)),
        "addmm scaled": guard(
            lambda: decomposed(
                lib, lambda b, x, w: torch.addmm(b, x, w.t(), beta=0.5, alpha=2.0), b, x, w
            )
        ),
        "gelu_backward": guard(lambda: decomposed(lib, aten.gelu_backward.default, g, x)),
        "t of a vector": guard(lambda: decomposed(lib, lambda b: b.t() * 2, b)),
    }


@case(W, points=2, tasks="6.8")
def task_6_8_edge_cases_of_the_table(lib: Any) -> Any:
    """``addmm`` with ``beta=0`` ignores the bias (no ``add``: a nan bias cannot leak);
    softmax of a transposed tensor makes it contiguous first (a ``clone``); the backward of
    log_softmax reads probabilities, ``exp`` of its output."""
    x, w = inputs(3, 4), inputs(5, 4, start=0.2)
    nan_bias = torch.full((5,), float("nan"))
    g = inputs(3, 4, start=0.7)
    out = torch.log_softmax(x, 1)
    return {
        "addmm beta 0": guard(
            lambda: decomposed(
                lib, lambda b, x, w: torch.addmm(b, x, w.t(), beta=0), nan_bias, x, w
            )
        ),
        "softmax of a transpose": guard(
            lambda: decomposed(lib, lambda x: torch.softmax(x.t(), -1), x)
        ),
        "log_softmax backward": guard(
            lambda: decomposed(
                lib, lambda g, o: aten._log_softmax_backward_data(g, o, 1, torch.float32), g, out
            )
        ),
    }


@case(W, points=1, tasks="6.8")
def task_6_8_other_ops_are_left_alone(lib: Any) -> Any:
    """Ops outside the table keep their own ATen call (``mean``, ``relu``, ``tanh``,
    ``sum``): a table lists only what it rewrites."""
    x = inputs(3, 4)
    return guard(lambda: decomposed(lib, lambda x: (x - x.mean(0)).relu().tanh().sum(), x))


# ---- Task 6.9: the partition --------------------------------------------------------------------


def _grad(*shape: int, start: float = 0.0) -> torch.Tensor:
    return inputs(*shape, start=start).requires_grad_(True)


@case(W, points=2, tasks="6.9")
def task_6_9_saved_values_of_tanh_mm(lib: Any) -> Any:
    """``tanh(x @ w)``, two results: the forward returns its results then what the backward
    reads (the inputs and the ``detach`` of tanh's output, in graph order)."""
    x, w = _grad(2, 3), _grad(3, 3, start=0.4)

    def f(x: torch.Tensor, w: torch.Tensor) -> Any:
        y = torch.tanh(x @ w)
        return y.sum(), y * 2

    return guard(lambda: partitioned(lib, f, x, w))


@case(W, points=2, tasks="6.9")
def task_6_9_mlp_with_gelu(lib: Any) -> Any:
    """An MLP layer pair, Linear-GELU-Linear, with its weights as inputs: the forward saves
    the input, both pre-activations' producers and the transposed second weight."""
    x, w1, b1 = _grad(3, 4), _grad(8, 4, start=0.2), _grad(8, start=0.1)
    w2, b2 = _grad(2, 8, start=0.3), _grad(2, start=0.5)

    def mlp(x: Any, w1: Any, b1: Any, w2: Any, b2: Any) -> Any:
        return F.linear(F.gelu(F.linear(x, w1, b1)), w2, b2)

    return guard(lambda: partitioned(lib, mlp, x, w1, b1, w2, b2))


@case(W, points=2, tasks="6.9")
def task_6_9_inputs_without_grad_and_tuples(lib: Any) -> Any:
    """An input that needs no gradient gets ``None`` from the backward; ``torch.max`` gives
    a tuple: its items are saved, never the tuple."""
    x, c = _grad(3, 4), inputs(3, 4, start=0.6)

    def f(x: torch.Tensor, c: torch.Tensor) -> Any:
        values, _ = torch.max(x * c, 1)
        return values.exp()

    return guard(lambda: partitioned(lib, f, x, c))


@case(W, points=1, tasks="6.9")
def task_6_9_softmax_saves_its_output(lib: Any) -> Any:
    """Softmax decomposed: the backward reads the forward's intermediate values; the
    partition saves each of them once, in graph order."""
    x = _grad(3, 4)
    return guard(lambda: partitioned(lib, lambda x: (torch.softmax(x, -1) * x).sum(1), x))
