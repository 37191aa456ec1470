"""Property cases for Tasks 2.6 and 2.7: random shapes and random programs, drawn once from a
fixed seed (hypothesis), the same examples for torch and for the engine."""

from __future__ import annotations

from typing import Any

import torch

from autograder.cases import property_case
from autograder.observe import guard
from autograder.weeks.week2b.common import W, grads, inputs, make_linear, make_mul, result


def _broadcast_pairs() -> Any:
    """Two shapes that broadcast: each dimension of the shorter is the other's, or 1."""
    from hypothesis import strategies as st

    @st.composite
    def pair(draw: Any) -> list[list[int]]:
        a = draw(st.lists(st.integers(1, 4), min_size=1, max_size=3))
        n = draw(st.integers(1, len(a)))
        b = [draw(st.sampled_from([d, 1])) for d in a[-n:]]
        return [a, b] if draw(st.booleans()) else [b, a]

    return pair()


@property_case(
    W, _broadcast_pairs, n=15, points=2, tasks="2.6", label=lambda ex: f"{ex[0]} by {ex[1]}"
)
def random_mul_broadcasting_and_gradients(lib: Any, shapes: list[list[int]]) -> Any:
    """``mul`` of two broadcasting shapes: the value, and both gradients summed back."""

    def run() -> Any:
        op = make_mul(lib, "rmul")
        a, b = inputs(*shapes[0], grad=True), inputs(*shapes[1], start=1, grad=True)
        out = op(a, b)
        out.sum().backward()
        return {"out": result(out), "grads": grads(a, b)}

    return guard(run)


# Steps of a random program on a (2, 3) tensor x and a (2, 3) tensor y.
STEPS = {
    "x + y": lambda x, y: x + y,
    "x * 2": lambda x, y: x * 2,
    "x.t()": lambda x, y: x.t(),
    "x.view(6)": lambda x, y: x.view(6),
    "x[1]": lambda x, y: x[1],
    "x.sum()": lambda x, y: x.sum(),
    "x.neg()": lambda x, y: x.neg(),
    "x.add_(y)": lambda x, y: x.add_(y),
    "x.unsqueeze(0)": lambda x, y: x.unsqueeze(0),
    "x.clone()": lambda x, y: x.clone(),
    "torch.cat": lambda x, y: torch.cat([x, y]),
    "x.expand(2, 2, 3)": lambda x, y: x.expand(2, 2, 3),
}


def _programs() -> Any:
    from hypothesis import strategies as st

    return st.lists(st.sampled_from(sorted(STEPS)), min_size=1, max_size=5)


@property_case(W, _programs, n=20, points=2, tasks="2.7", label=lambda ex: "; ".join(ex))
def random_programs_recorded(lib: Any, program: list[str]) -> Any:
    """A random program's aten ops, recorded, on fresh (2, 3) tensors."""
    x0, y0 = inputs(2, 3), inputs(2, 3, start=1)

    def run() -> None:
        x, y = x0.clone(), y0
        for step in program:
            STEPS[step](x, y)

    return guard(lambda: list(lib.record_aten_ops(run)))


def _linear_shapes() -> Any:
    from hypothesis import strategies as st

    return st.tuples(
        st.lists(st.integers(1, 3), min_size=0, max_size=2),  # batch dimensions of x
        st.integers(1, 4),  # in features
        st.integers(1, 4),  # out features
        st.booleans(),  # bias
    ).map(list)


@property_case(
    W,
    _linear_shapes,
    n=12,
    points=2,
    tasks="2.5",
    label=lambda ex: f"x {ex[0] + [ex[1]]}, w {[ex[2], ex[1]]}, bias {ex[3]}",
)
def random_linear_shapes(lib: Any, example: list) -> Any:
    """``linear`` on random batch shapes, with and without a bias: value and gradients."""
    batch, n_in, n_out, bias = example

    def run() -> Any:
        op = make_linear(lib, "rlinear")
        x, w = inputs(*batch, n_in, grad=True), inputs(n_out, n_in, start=1, grad=True)
        b = inputs(n_out, start=2, grad=True) if bias else None
        out = op(x, w, b) if bias else op(x, w)
        out.sum().backward()
        return {"out": result(out), "grads": grads(x, w, *([b] if bias else []))}

    return guard(run)
