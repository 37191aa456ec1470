"""Tasks 2.5 and 2.6: a custom op in torch's dispatcher, compared with the aten op it copies.

Task 2.5's ``make_linear`` is compared with ``aten::linear``: values, gradients, meta and fake
tensors, ``torch.library.opcheck``, ``torch.compile``. Task 2.6's ``make_mul`` (a kernel per
key, registered with ``Library.impl``) with ``aten::mul.Tensor``, its computed table included.
"""

from __future__ import annotations

from typing import Any

import torch

from autograder.cases import case
from autograder.observe import guard
from autograder.weeks.week2b.common import (
    TABLE_KEYS,
    W,
    grads,
    inputs,
    make_linear,
    make_mul,
    result,
)


def _linear(lib: Any) -> Any:
    return make_linear(lib, "linear")


@case(W, points=2, tasks="2.5")
def task_2_5_linear_values(lib: Any) -> Any:
    """``linear(x, w, b)`` and ``linear(x, w)`` give ``x @ w.T + b``, for a matrix and for a
    batch of matrices (every leading dimension is a batch)."""
    x, w, b = inputs(2, 3), inputs(4, 3, start=1), inputs(4, start=2)
    x3 = inputs(2, 2, 3, start=3)
    return {
        "x, w, b": guard(lambda: result(_linear(lib)(x, w, b))),
        "x, w": guard(lambda: result(_linear(lib)(x, w))),
        "batched x, w, b": guard(lambda: result(_linear(lib)(x3, w, b))),
    }


@case(W, points=2, tasks="2.5")
def task_2_5_linear_gradients(lib: Any) -> Any:
    """The backward of ``register_autograd``: gradients of x, w and b (and none for a missing
    bias), for a batched x, equal those of ``aten::linear``."""

    def run(bias: bool) -> Any:
        op = _linear(lib)
        x, w = inputs(2, 2, 3, grad=True), inputs(4, 3, start=1, grad=True)
        b = inputs(4, start=2, grad=True) if bias else None
        out = op(x, w, b) if bias else op(x, w)
        out.backward(inputs(2, 2, 4, start=5))
        return {"out": result(out), "grads": grads(x, w, *([b] if bias else []))}

    return {"with bias": guard(lambda: run(True)), "without bias": guard(lambda: run(False))}


@case(W, points=2, tasks="2.5")
def task_2_5_linear_on_meta_and_fake_tensors(lib: Any) -> Any:
    """``register_fake``: on the meta device and under ``FakeTensorMode`` the op gives the
    right shape, dtype and device without computing a value."""

    def meta() -> Any:
        return result(
            _linear(lib)(*(t.to("meta") for t in (inputs(5, 2, 3), inputs(4, 3), inputs(4))))
        )

    def fake() -> Any:
        from torch._subclasses.fake_tensor import FakeTensorMode

        op = _linear(lib)
        with FakeTensorMode() as mode:
            x, w = (mode.from_tensor(t) for t in (inputs(7, 3).float(), inputs(2, 3).float()))
            return result(op(x, w))

    return {"meta": guard(meta), "fake": guard(fake)}


@case(W, points=2, tasks="2.5")
def task_2_5_linear_passes_opcheck(lib: Any) -> Any:
    """``torch.library.opcheck`` (schema, autograd registration, fake tensor, AOT dispatch)
    finds what ``aten::linear`` gets: every test a SUCCESS. Without a bias the AOT test is
    left out: it traces the same graph again and costs a tenth of a second per run."""
    x, w, b = inputs(2, 3, grad=True), inputs(4, 3, start=1, grad=True), inputs(4, grad=True)
    quick = ("test_schema", "test_autograd_registration", "test_faketensor")
    return {
        "x, w, b": guard(lambda: torch.library.opcheck(_linear(lib), (x, w, b))),
        "x, w": guard(lambda: torch.library.opcheck(_linear(lib), (x, w), test_utils=quick)),
    }


@case(W, points=2, tasks="2.5")
def task_2_5_linear_under_torch_compile(lib: Any) -> Any:
    """``torch.compile(backend="eager", fullgraph=True)`` traces through the op with fake
    tensors (no graph break) and the compiled function gives the eager values."""

    def run() -> Any:
        op = _linear(lib)
        torch._dynamo.reset()

        @torch.compile(backend="eager", fullgraph=True)
        def f(x: torch.Tensor, w: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
            return op(x, w, b).relu() * 2

        return result(f(inputs(3, 3), inputs(2, 3, start=1), inputs(2, start=1)))

    return guard(run)


# ---- Task 2.6: Library.impl, one kernel per key ---------------------------------------------


def _mul(lib: Any) -> Any:
    return make_mul(lib, "mul")


@case(W, points=2, tasks="2.6")
def task_2_6_mul_values_broadcasting_and_promotion(lib: Any) -> Any:
    """The CPU kernel: ``mul(a, b)`` broadcasts and promotes like ``aten::mul``."""
    a = inputs(2, 3)

    def mul(x: torch.Tensor, y: torch.Tensor) -> Any:
        return guard(lambda: result(_mul(lib)(x, y)))

    return {
        "same shape": mul(a, inputs(2, 3, start=1)),
        "broadcast (2,3) by (3,)": mul(a, inputs(3, start=2)),
        "broadcast (2,1) by (1,3)": mul(inputs(2, 1), inputs(1, 3)),
        "int64 by float32": mul(torch.arange(3), inputs(3).float()),
    }


@case(W, points=2, tasks="2.6")
def task_2_6_mul_gradients_undo_broadcasting(lib: Any) -> Any:
    """The Autograd kernel: gradients of both inputs, each of its input's shape (the engine
    sums a broadcast gradient back: ``validate_outputs`` in torch/csrc/autograd/engine.cpp)."""

    def run(sa: tuple, sb: tuple) -> Any:
        op = _mul(lib)
        a, b = inputs(*sa, grad=True), inputs(*sb, start=1, grad=True)
        out = op(a, b)
        out.sum().backward()
        return {"requires_grad": out.requires_grad, "grads": grads(a, b)}

    return {
        "(2,3) by (2,3)": guard(lambda: run((2, 3), (2, 3))),
        "(2,3) by (3,)": guard(lambda: run((2, 3), (3,))),
        "(4,1,3) by (2,1)": guard(lambda: run((4, 1, 3), (2, 1))),
    }


@case(W, points=1, tasks="2.6")
def task_2_6_mul_on_meta(lib: Any) -> Any:
    """The Meta kernel: the broadcast shape and the promoted dtype, on "meta"."""
    a, b = inputs(4, 1, 3).to("meta"), torch.arange(2).reshape(2, 1).to("meta")
    return {
        "float64 by int64": guard(lambda: result(_mul(lib)(a, b))),
        "int64 by float32": guard(lambda: result(_mul(lib)(b, a.float()))),
    }


@case(W, points=1, tasks="2.6")
def task_2_6_mul_no_grad_and_inference_mode(lib: Any) -> Any:
    """Under ``no_grad`` the Autograd kernel still runs but records no graph; under
    ``inference_mode`` it is skipped: either way the result does not require grad."""
    a, b = inputs(3, grad=True), inputs(3, start=1)

    def under(mode: Any) -> Any:
        op = _mul(lib)
        with mode():
            out = op(a, b)
        return {"requires_grad": out.requires_grad, "value": result(out)}

    return {
        "enabled": guard(lambda: _mul(lib)(a, b).requires_grad),
        "no_grad": guard(lambda: under(torch.no_grad)),
        "inference_mode": guard(lambda: under(torch.inference_mode)),
    }


@case(W, points=2, tasks="2.6")
def task_2_6_mul_computed_table_looks_like_atens(lib: Any) -> Any:
    """The computed table (``torch._C._dispatch_dump_table``) on the keys that matter: a
    kernel at CPU and at Meta, an autograd kernel at AutogradCPU, and torch's fallthroughs at
    ADInplaceOrView, BackendSelect and AutocastCPU, as for ``aten::mul.Tensor``."""

    def run() -> Any:
        name = _mul(lib).name()
        rows = {}
        for line in torch._C._dispatch_dump_table(name).splitlines():
            k, _, rest = line.partition(": ")
            if k in TABLE_KEYS:
                through = "fallthrough " if rest.startswith("fallthrough") else ""
                rows[k] = through + rest[rest.rindex("[") + 1 : rest.rindex("]")]
        return {k: rows.get(k, "missing") for k in TABLE_KEYS}

    return guard(run)
