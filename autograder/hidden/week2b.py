"""Hidden week-2b cases: random calls traced in random situations, compared with torch's
introspection, and random key sets. They ship only with the grader."""

from __future__ import annotations

import contextlib
from typing import Any

import torch

from autograder import case, property_case
from autograder.observe import guard
from autograder.weeks.week2b.common import W, chain_rows, inputs

K, KS = torch._C.DispatchKey, torch._C.DispatchKeySet

# op -> how to call it on a tensor x (the first argument decides the device and key set)
CALLS = {
    "aten::add.Tensor": lambda x: (x, x),
    "aten::mul.Tensor": lambda x: (x, x),
    "aten::add_.Tensor": lambda x: (x.detach().clone(), x),
    "aten::view": lambda x: (x, [3]),
    "aten::t": lambda x: (x,),
    "aten::neg": lambda x: (x,),
    "aten::linear": lambda x: (x, x.new_ones(2, 3).detach()),
    "aten::sum": lambda x: (x,),
}
MODES = {
    "none": contextlib.nullcontext,
    "no_grad": torch.no_grad,
    "inference_mode": torch.inference_mode,
    "AutogradCPU excluded": lambda: torch._C._ExcludeDispatchKeyGuard(KS(K.AutogradCPU)),
    "ADInplaceOrView excluded": lambda: torch._C._ExcludeDispatchKeyGuard(KS(K.ADInplaceOrView)),
}


def _situations() -> Any:
    from hypothesis import strategies as st

    return st.tuples(
        st.sampled_from(sorted(CALLS)),
        st.sampled_from(["cpu", "meta"]),
        st.booleans(),
        st.sampled_from(sorted(MODES)),
    ).map(list)


@property_case(
    W,
    _situations,
    n=30,
    points=3,
    tasks="2.8",
    hidden=True,
    label=lambda ex: " ".join(map(str, ex)),
)
def hidden_random_traces(lib: Any, example: list) -> Any:
    """A random op on a cpu or meta tensor, requiring grad or not, in a random mode: the
    kernels ``trace_call`` says it runs."""
    op, device, grad, mode = example

    def run() -> Any:
        x = inputs(3).to(device).requires_grad_(grad)
        with MODES[mode]():
            return chain_rows(lib.trace_call(op, *CALLS[op](x)))

    return guard(run)


@case(W, points=2, tasks="2.8", hidden=True)
def hidden_key_set_of_mixed_arguments(lib: Any) -> Any:
    """The key set of calls whose tensors differ: cpu with meta, an inference tensor with a
    normal one, a tensor made inside inference mode used outside it."""
    with torch.inference_mode():
        inner = inputs(3)
    pairs = {
        "cpu, meta": (inputs(3), inputs(3).to("meta")),
        "inference tensor, normal tensor": (inner, inputs(3)),
        "inference tensor alone": (inner,),
    }
    return {
        k: guard(lambda args=args: repr(lib.dispatch_key_set(*args))) for k, args in pairs.items()
    }
