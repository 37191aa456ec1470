"""Tasks 2.9 to 2.12: one operator registered from C++ with a kernel per key, and a boxed
fallback that logs. Both runs have torch: the cases use it to make inputs and read results."""

from __future__ import annotations

from typing import Any

import torch

from autograder.cases import case, property_case
from autograder.observe import guard
from autograder.weeks.week2b.common import grads, inputs, result

W = "week2c"


@case(W, points=3, tasks="2.9")
def task_2_9_linear_values(lib: Any) -> Any:
    """The CPU kernel: ``linear(x, w, b)`` and ``linear(x, w)`` for a matrix, a batch of
    matrices and a vector x; and the op has kernels at the same keys as the same op registered
    from Python (CPU, Meta, Autograd)."""
    lib.load_library()
    x, w, b = inputs(2, 3), inputs(4, 3, start=1), inputs(4, start=2)
    return {
        "x, w, b": guard(lambda: result(lib.linear(x, w, b))),
        "x, w": guard(lambda: result(lib.linear(x, w))),
        "batched x": guard(lambda: result(lib.linear(inputs(2, 2, 3, start=3), w, b))),
        "vector x": guard(lambda: result(lib.linear(inputs(3, start=4), w, b))),
        "float32": guard(lambda: result(lib.linear(x.float(), w.float(), b.float()))),
        "keys with a kernel": guard(lambda: sorted(lib.registered_keys())),
    }


def _meta_shapes(lib: Any, *shapes: list[int]) -> Any:
    from torch._subclasses.fake_tensor import FakeTensorMode

    def on_meta() -> Any:
        out = lib.linear(*(torch.empty(s, device="meta", dtype=torch.float64) for s in shapes))
        return {"shape": list(out.shape), "device": out.device.type, "dtype": str(out.dtype)}

    def under_fake() -> Any:
        with FakeTensorMode():
            out = lib.linear(*(torch.empty(s) for s in shapes))
            return {"shape": list(out.shape), "device": out.device.type}

    return {"meta": guard(on_meta), "fake": guard(under_fake)}


@case(W, points=3, tasks=("2.9", "2.11"))
def task_2_11_meta_fake_and_compile(lib: Any) -> Any:
    """The Meta kernel: on meta tensors and under FakeTensorMode the op gives the shape, dtype
    and device of the result without computing it; so ``torch.compile(backend="eager",
    fullgraph=True)`` traces through it and gives the same values."""
    lib.load_library()
    x, w, b = inputs(2, 3), inputs(4, 3, start=1), inputs(4, start=2)

    def compiled() -> Any:
        fn = torch.compile(lambda x, w, b: lib.linear(x, w, b).relu(), backend="eager")
        return result(fn(x, w, b))

    return {
        "matrix": _meta_shapes(lib, [2, 3], [4, 3], [4]),
        "batch, no bias": _meta_shapes(lib, [5, 2, 3], [4, 3]),
        "compiled": guard(compiled),
    }


@case(W, points=3, tasks=("2.9", "2.10"))
def task_2_10_gradients(lib: Any) -> Any:
    """The Autograd kernel: gradients of x, w and b (none for a missing bias, a batched x)
    equal those of ``aten::linear``, and the output has a grad_fn."""
    lib.load_library()

    def run(bias: bool, batched: bool) -> Any:
        x = inputs(2, 2, 3, grad=True) if batched else inputs(2, 3, grad=True)
        w = inputs(4, 3, start=1, grad=True)
        b = inputs(4, start=2, grad=True) if bias else None
        out = lib.linear(x, w, b)
        out.backward(torch.ones_like(out) * 0.5 + inputs(*out.shape, start=3).detach())
        has_node = out.grad_fn is not None
        return {"out": result(out), "grads": grads(x, w, *([b] if bias else [])), "node": has_node}

    return {
        "with bias": guard(lambda: run(True, False)),
        "without bias": guard(lambda: run(False, False)),
        "batched": guard(lambda: run(True, True)),
    }


@case(W, points=2, tasks=("2.9", "2.10"))
def task_2_10_gradcheck(lib: Any) -> Any:
    """``torch.autograd.gradcheck`` (finite differences against your backward) passes, with and
    without a bias and for a batched x; and a second call through ``no_grad`` records nothing."""
    lib.load_library()

    def check(*shapes: tuple[int, ...]) -> Any:
        args = [inputs(*s, start=i, grad=True) for i, s in enumerate(shapes)]
        return torch.autograd.gradcheck(lambda *a: lib.linear(*a), args)

    def no_grad() -> Any:
        with torch.no_grad():
            out = lib.linear(inputs(2, 3, grad=True), inputs(4, 3, grad=True))
        return {"requires_grad": out.requires_grad, "has grad_fn": out.grad_fn is not None}

    return {
        "x, w, b": guard(lambda: check((2, 3), (4, 3), (4,))),
        "x, w": guard(lambda: check((2, 3), (4, 3))),
        "batched": guard(lambda: check((2, 2, 3), (4, 3), (4,))),
        "no_grad": guard(no_grad),
    }


PROGRAMS = {
    "mul then add": lambda: (inputs(2, 3) * 2 + inputs(2, 3)).sum(1),
    "aten linear": lambda: torch.nn.functional.linear(inputs(2, 3), inputs(4, 3)),
    "views": lambda: inputs(2, 3).t().reshape(6).unsqueeze(0),
    "exp and neg": lambda: -inputs(3).exp(),
}


@case(W, points=3, tasks="2.12")
def task_2_12_fallback_logs_every_call(lib: Any) -> Any:
    """The boxed fallback at AutocastHPU sees every op the program calls, nested ones
    included, in the order they start, with the shapes of their inputs: as torch's profiler
    records them."""
    lib.load_library()
    return {name: guard(lambda p=p: lib.record_calls(p)) for name, p in PROGRAMS.items()}


@case(W, points=2, tasks="2.12")
def task_2_12_fallback_in_backward(lib: Any) -> Any:
    """The fallback also sees the calls a backward pass makes (autograd's nodes call ops), and
    leaves no trace once the key is off again."""
    lib.load_library()

    def backward() -> Any:
        x, w = inputs(2, 3, grad=True), inputs(4, 3, grad=True)
        out = torch.nn.functional.linear(x, w)
        return lib.record_calls(lambda: out.backward(torch.ones(2, 4, dtype=torch.float64)))

    def after() -> Any:
        lib.record_calls(lambda: inputs(2) + 1)
        return lib.record_calls(lambda: None)

    return {"backward": guard(backward), "afterwards": guard(after)}


def _shapes() -> Any:
    from hypothesis import strategies as st

    batch = st.lists(st.integers(1, 3), min_size=0, max_size=2)
    return st.tuples(batch, st.integers(1, 4), st.integers(1, 4), st.booleans())


def _label(ex: Any) -> str:
    batch, n_in, n_out, bias = ex
    return f"x {[*batch, n_in]}, w [{n_out}, {n_in}], bias={bias}"


@property_case(W, _shapes, n=20, points=3, tasks=("2.9", "2.10"), label=_label)
def task_2_10_random_shapes(lib: Any, example: Any) -> Any:
    """Random batch shapes and sizes: values and gradients of x, w and b as ``aten::linear``'s."""
    batch, n_in, n_out, bias = example
    lib.load_library()
    x = inputs(*batch, n_in, grad=True)
    w = inputs(n_out, n_in, start=1, grad=True)
    b = inputs(n_out, start=2, grad=True) if bias else None
    out = lib.linear(x, w, b)
    out.sum().backward()
    return {"out": result(out), "grads": grads(x, w, *([b] if bias else []))}


def _meta_shapes_examples() -> Any:
    from hypothesis import strategies as st

    batch = st.lists(st.integers(1, 3), min_size=0, max_size=3)
    return st.tuples(batch, st.integers(1, 5), st.integers(1, 5))


@property_case(
    W, _meta_shapes_examples, n=20, points=2, tasks="2.11",
    label=lambda ex: f"x {[*ex[0], ex[1]]}, w [{ex[2]}, {ex[1]}]",
)  # fmt: skip
def task_2_11_random_meta_shapes(lib: Any, example: Any) -> Any:
    """Random shapes on the meta device and under FakeTensorMode: the result's shape."""
    batch, n_in, n_out = example
    lib.load_library()
    return _meta_shapes(lib, [*batch, n_in], [n_out, n_in], [n_out])


def _programs() -> Any:
    from hypothesis import strategies as st

    return st.lists(st.sampled_from(["mul", "add", "t", "neg", "exp", "linear"]), min_size=1,
                    max_size=4)  # fmt: skip


STEPS = {
    "mul": lambda t: t * 0.5,
    "add": lambda t: t + t,
    "t": lambda t: t.t() if t.dim() == 2 else t,
    "neg": lambda t: -t,
    "exp": lambda t: t.exp(),
    "linear": lambda t: torch.nn.functional.linear(t, inputs(3, t.shape[-1])),
}


@property_case(
    W, _programs, n=15, points=3, tasks="2.12",
    label=lambda ex: " then ".join(ex),
)  # fmt: skip
def task_2_12_random_programs(lib: Any, example: Any) -> Any:
    """Random chains of ops: the fallback's log equals the profiler's, op by op."""
    lib.load_library()

    def program() -> None:
        t = inputs(2, 3)
        for step in example:
            t = STEPS[step](t)

    return lib.record_calls(program)
