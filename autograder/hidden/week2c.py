"""Week 2c hidden cases: the C++ op on inputs the public cases do not use (two batch
dimensions, float32 with gradients, a broadcast bias through backward), run only when grading."""

from __future__ import annotations

from typing import Any

import torch

from autograder import case
from autograder.observe import guard
from autograder.weeks.week2b.common import grads, inputs, result

W = "week2c"


@case(W, points=2, tasks=("2.9", "2.10"), hidden=True)
def hidden_two_batch_dims_and_float32(lib: Any) -> Any:
    """Two batch dimensions, in float64 and float32: values and gradients as aten::linear's."""
    lib.load_library()

    def run(dtype: torch.dtype) -> Any:
        x = inputs(2, 3, 4).to(dtype).requires_grad_()
        w = inputs(5, 4, start=1).to(dtype).requires_grad_()
        b = inputs(5, start=2).to(dtype).requires_grad_()
        out = lib.linear(x, w, b)
        (out * out).sum().backward()
        return {"out": result(out), "grads": grads(x, w, b)}

    return {
        "float64": guard(lambda: run(torch.float64)),
        "float32": guard(lambda: run(torch.float32)),
    }


@case(W, points=2, tasks=("2.9", "2.10"), hidden=True)
def hidden_gradcheck_two_batch_dims(lib: Any) -> Any:
    """gradcheck passes with two batch dimensions, with and without a bias."""
    lib.load_library()

    def check(bias: bool) -> Any:
        args = [inputs(2, 2, 3, grad=True), inputs(4, 3, start=1, grad=True)]
        if bias:
            args.append(inputs(4, start=2, grad=True))
        return torch.autograd.gradcheck(lambda *a: lib.linear(*a), args)

    return {"with bias": guard(lambda: check(True)), "without": guard(lambda: check(False))}
