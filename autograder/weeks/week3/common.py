"""Helpers shared by the week-3 cases (plain Python: they run with torch and with the engine).

A case builds its inputs with ``lib.tensor`` from plain lists (the same numbers on both sides:
no random generator is shared between torch and an engine), runs the same program, and returns
what it saw through the helpers here: values, dtypes, shapes, flags, node names and logs.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from autograder.observe import dtype_name, raised

W = "week3"

# Key phrases of torch's autograd errors (torch/csrc/autograd/*.cpp): an engine's message must
# contain the same phrase where torch's does. Compared as "which of these does it say".
PHRASES = [
    "does not require grad and does not have a grad_fn",
    "grad can be implicitly created only for scalar outputs",
    "Trying to backward through the graph a second time",
    "has been modified by an inplace operation",
    "a leaf Variable that requires grad is being used in an in-place operation",
    "appears to not have been used in the graph",
    "Only Tensors of floating point and complex dtype can require gradients",
    "you can only change requires_grad flags of leaf variables",
    "Jacobian mismatch for output 0 with respect to input 0",
]


def data(shape: tuple[int, ...], seed: int, low: float = -2.0, high: float = 2.0) -> Any:
    """Nested lists of numbers with two decimals, the same on every machine."""
    rng = random.Random(seed)

    def fill(dims: tuple[int, ...]) -> Any:
        if not dims:
            return round(rng.uniform(low, high), 2)
        return [fill(dims[1:]) for _ in range(dims[0])]

    return fill(tuple(shape))


def leaf(lib: Any, shape: tuple[int, ...], seed: int, dtype: str = "float64", **kw: Any) -> Any:
    """A leaf tensor that requires grad (float64 unless asked: gradients compare tightly)."""
    return lib.tensor(data(shape, seed, **kw), dtype=getattr(lib, dtype), requires_grad=True)


def const(lib: Any, shape: tuple[int, ...], seed: int, dtype: str = "float64", **kw: Any) -> Any:
    """A tensor that does not require grad."""
    return lib.tensor(data(shape, seed, **kw), dtype=getattr(lib, dtype))


def tensor(t: Any) -> Any:
    """Shape, dtype and values of a tensor; None stays None; anything else by type."""
    if t is None:
        return {"kind": "value", "type": "NoneType", "value": None}
    if not (hasattr(t, "shape") and hasattr(t, "dtype") and hasattr(t, "tolist")):
        return {"kind": "value", "type": type(t).__name__, "value": repr(t)[:200]}
    values = t.tolist()
    return {
        "kind": "tensor",
        "shape": [int(s) for s in t.shape],
        "dtype": dtype_name(t),
        "values": values,
    }


def flags(t: Any) -> dict[str, Any]:
    """What autograd says about a tensor: requires_grad, is_leaf, its node's name."""
    return {
        "requires_grad": bool(t.requires_grad),
        "is_leaf": bool(t.is_leaf),
        "grad_fn": node_name(t.grad_fn),
    }


def node_name(node: Any) -> str | None:
    return None if node is None else str(node.name())


def graph(node: Any, depth: int = 8) -> Any:
    """A node and everything below it, as nested ``[name, [children...]]`` in the order of
    ``next_functions`` (None where an input needs no gradient)."""
    if node is None:
        return None
    if depth == 0:
        return [node_name(node), "..."]
    return [node_name(node), [graph(n, depth - 1) for n, _ in node.next_functions]]


def grads(*tensors: Any) -> list[Any]:
    return [tensor(t.grad) for t in tensors]


def error(fn: Callable[[], Any]) -> Any:
    """``fn()`` (already plain), or the error it raised, recorded (kind and numbers)."""
    try:
        return fn()
    except Exception as exc:  # noqa: BLE001 - every error is data here
        return raised(exc)


def failure(fn: Callable[[], Any]) -> dict[str, Any]:
    """For a step where torch raises: what happened, and which of torch's key phrases
    (``PHRASES``) the message says, so a RuntimeError with the wrong story does not pass."""
    try:
        outcome, said = fn(), []
    except Exception as exc:  # noqa: BLE001 - every error is data here
        outcome, said = raised(exc), [p for p in PHRASES if p in str(exc)]
    return {"outcome": outcome, "message says": {"kind": "value", "type": "list", "value": said}}


def backward_grads(lib: Any, program: Callable[..., Any], *inputs: Any) -> Any:
    """``program(*inputs).sum().backward()`` (``sum`` only for non-scalar results): the
    result, then each input's gradient."""

    def run() -> Any:
        out = program(*inputs)
        total = out if out.dim() == 0 else out.sum()
        total.backward()
        return {"result": tensor(out), "grads": grads(*inputs)}

    return error(run)
