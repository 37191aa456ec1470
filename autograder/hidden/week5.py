"""Week 5 hidden cases: variations on the public ones, run only when grading.

Random broadcasting arithmetic, random chains of views, random reductions on the device, a
model trained with momentum (its buffers live on the device and are updated through the
fallback), and random convolution shapes against torch's meta device.
"""

from __future__ import annotations

from typing import Any

import torch

from autograder import case, property_case
from autograder.weeks.week5.common import W, data, device, each, kind_only, result, shares
from autograder.weeks.week5.kernels import _train


def _broadcast_pairs() -> Any:
    from hypothesis import strategies as st

    dims = st.lists(st.sampled_from([1, 2, 3]), min_size=0, max_size=3)
    return st.tuples(dims, dims, st.sampled_from(["add", "mul", "sub", "alpha"]))


@property_case(
    W, _broadcast_pairs, n=20, points=3, hidden=True,
    tasks=("5.1", "5.2", "5.3", "5.4", "5.5", "5.7", "5.8"),
    label=lambda ex: f"{ex[2]} of {ex[0]} and {ex[1]}",
)  # fmt: skip
def hidden_random_broadcast_arithmetic(lib: Any, example: Any) -> Any:
    """Random shapes combined by add, mul, sub (a fallback op) and add with alpha on the device:
    the CPU's values, shape, strides and dtype, or the CPU's refusal."""
    a_shape, b_shape, op = example
    dev = device(lib)
    a, b = data(*a_shape).to(dev), data(*b_shape, start=1).to(dev)
    ops = {
        "add": lambda: a + b,
        "mul": lambda: a * b,
        "sub": lambda: a - b,
        "alpha": lambda: torch.add(a, b, alpha=-0.5),
    }
    return kind_only(lambda: result(ops[op](), dev))


VIEW_STEPS = [
    ("t", lambda x: x.t() if x.dim() == 2 else x),
    ("flatten-view", lambda x: x.view(-1) if x.is_contiguous() else x),
    ("first row", lambda x: x[0] if x.dim() > 1 else x),
    ("every other", lambda x: x[::2]),
    ("unsqueeze", lambda x: x.unsqueeze(0)),
    ("squeeze", lambda x: x.squeeze()),
    ("narrow", lambda x: x.narrow(0, 0, max(1, x.shape[0] - 1)) if x.dim() else x),
    ("expand", lambda x: x.unsqueeze(0).expand(2, *x.shape)),
]


def _view_chains() -> Any:
    from hypothesis import strategies as st

    return st.lists(st.integers(0, len(VIEW_STEPS) - 1), min_size=1, max_size=5)


@property_case(
    W, _view_chains, n=20, points=3, tasks=("5.1", "5.2", "5.3", "5.4", "5.5", "5.6"), hidden=True,
    label=lambda ex: " then ".join(VIEW_STEPS[i][0] for i in ex),
)  # fmt: skip
def hidden_random_view_chains(lib: Any, example: Any) -> Any:
    """Random chains of views on the device: every step's geometry and values as on the CPU,
    all sharing the first tensor's storage; then a write through the last view shows in it."""
    dev = device(lib)
    x = data(4, 3).to(dev)
    v = x
    for i in example:
        v = VIEW_STEPS[i][1](v)
    out = {"view": result(v, dev), "shares": shares(v, x)}
    if v.numel() and not any(s == 0 for s in v.stride()):  # expand cannot be written through
        v.copy_(data(*v.shape, start=20))
        out["base after the write"] = result(x, dev)
    return out


def _reductions() -> Any:
    from hypothesis import strategies as st

    shape = st.lists(st.integers(1, 3), min_size=1, max_size=3)
    return st.tuples(shape, st.lists(st.integers(-3, 2), max_size=2, unique=True), st.booleans())


@property_case(
    W, _reductions, n=20, points=2, hidden=True,
    tasks=("5.1", "5.2", "5.3", "5.4", "5.5", "5.7", "5.9"),
    label=lambda ex: f"{ex[0]}.sum({ex[1]}, keepdim={ex[2]})",
)  # fmt: skip
def hidden_random_sums(lib: Any, example: Any) -> Any:
    """Random sums on the device (dims in and out of range): the CPU's result, on the device
    and the learner's own shape function agreeing with torch's meta."""
    shape, dims, keepdim = example
    dev = device(lib)
    x = data(*shape).to(dev)
    return {
        "device": kind_only(lambda: result(x.sum(dims, keepdim=keepdim), dev)),
        "sum_shape": kind_only(lambda: list(lib.sum_shape(shape, dims, keepdim))),
    }


@case(W, points=4, tasks=("5.1", "5.2", "5.3", "5.4", "5.5", "5.6", "5.7", "5.8"), hidden=True)
def hidden_mlp_with_momentum(lib: Any) -> Any:
    """Four SGD steps with momentum on the device (the momentum buffers live on the device,
    updated by ops that fall back): the CPU's losses, gradients and weights."""
    return _train(device(lib), seed=7, steps=4, lr=0.05, momentum=0.9)


def _convs() -> Any:
    from hypothesis import strategies as st

    return st.tuples(
        st.integers(4, 12), st.integers(1, 4), st.integers(1, 3), st.integers(0, 2),
        st.integers(1, 2), st.sampled_from([1, 2]),
    )  # fmt: skip


@property_case(
    W,
    _convs,
    n=25,
    points=2,
    tasks="5.9",
    hidden=True,
    label=lambda ex: "size {}, kernel {}, stride {}, padding {}, dilation {}, groups {}".format(
        *ex
    ),
)
def hidden_random_conv2d_shapes(lib: Any, example: Any) -> Any:
    """Random convolutions: ``conv2d_shape`` equals torch's meta result, or both refuse."""
    size, k, stride, padding, dilation, groups = example
    return each(
        {
            "shape": lambda: kind_only(
                lambda: list(
                    lib.conv2d_shape(
                        [2, 4, size, size + 1], [6, 4 // groups, k, k], stride, padding,
                        dilation, groups,
                    )
                )
            )
        }
    )  # fmt: skip


@case(W, points=3, tasks=("5.1", "5.2", "5.3", "5.4", "5.5", "5.6", "5.7", "5.8"), hidden=True)
def hidden_random_programs_from_the_differential_generator(lib: Any) -> Any:
    """Twenty programs from the generator the course's engine is held to (autograder/
    differential/week5.py), with seeds the differential run does not use: tensors made on the
    device, views, kernels, the fallback, copies and backward, compared with the CPU."""
    import random

    from autograder.differential import week5 as gen

    return [gen.execute(lib, gen.generate(random.Random(f"hidden:{i}"))) for i in range(20)]
