"""Helpers shared by the week-6 cases. Both sides have torch here: the helpers make inputs,
name a graph's calls and read results, never answer for the learner."""

from __future__ import annotations

import contextlib
import io
import itertools
import operator
from typing import Any

import torch
import torch.fx

from autograder.observe import dtype_name, guard

W = "week6"
_FRESH = itertools.count()


def op_name(node: torch.fx.Node) -> str:
    """A graph node's operation as one readable string, the same for both sides:
    ``torch.sin``, ``torch.nn.functional.relu``, ``operator.add``, ``method relu``."""
    if node.op == "call_method":
        return f"method {node.target}"
    if node.op == "call_module":
        return f"module {node.target}"
    target = node.target
    name = getattr(target, "__name__", str(target))
    if getattr(operator, name, None) is target:
        return f"operator.{name}"
    if getattr(torch, name, None) is target:
        return f"torch.{name}"
    return f"{getattr(target, '__module__', '?')}.{name}"


def graph_ops(gm: Any) -> list[str]:
    """The calls of a graph, in order (placeholders and the output left out)."""
    nodes = gm.graph.nodes if hasattr(gm, "graph") else gm.nodes
    return [op_name(n) for n in nodes if n.op.startswith("call_")]


def placeholders(gm: Any) -> int:
    return sum(1 for n in gm.graph.nodes if n.op == "placeholder")


def value(v: Any) -> Any:
    """A result as plain data: tensors as shape, dtype and values (rounded to 1e-5: both
    sides compute with the same kernels, but a graph may order a sum differently)."""
    if isinstance(v, torch.Tensor):
        t = v.detach()
        values = (
            t.double().mul(1e5).round().div(1e5).tolist() if t.is_floating_point() else t.tolist()
        )
        return {"shape": list(t.shape), "dtype": dtype_name(t), "values": values}
    if isinstance(v, (list, tuple)):
        return [value(x) for x in v]
    if v is None or isinstance(v, (bool, int, float, str)):
        return v
    return {"type": type(v).__name__}


def fresh(source: str, names: dict[str, Any] | None = None) -> Any:
    """A new function from ``source`` (one ``def``), with a code object of its own: Dynamo
    keeps compiled code on the code object, so each case run gets a fresh one."""
    namespace: dict[str, Any] = {"torch": torch, **(names or {})}
    exec(compile(source, f"<week6 program {next(_FRESH)}>", "exec"), namespace)  # noqa: S102
    defined = [v for k, v in namespace.items() if callable(v) and getattr(v, "__code__", None)]
    return defined[-1]


def captured(lib: Any, fn: Any, *args: Any, run_graphs: bool = True) -> dict[str, Any]:
    """What ``lib.capture(fn, *args)`` gives, as plain data: each graph's calls and number of
    placeholders, what each graph computes on its example inputs, and ``fn``'s result."""
    with contextlib.redirect_stdout(io.StringIO()) as printed:
        got = guard(lambda: lib.capture(fn, *args))
    if isinstance(got, dict):  # capture raised: that is the observation
        return got
    out = guard(lambda: _describe(got, run_graphs))
    if isinstance(out, dict) and out.get("kind") != "raised":
        out["printed"] = printed.getvalue()  # a print runs once, with the real values
    return out


def _describe(got: Any, run_graphs: bool) -> dict[str, Any]:
    graphs, examples = list(got.graphs), list(got.example_inputs)
    out: dict[str, Any] = {
        "graphs": len(graphs),
        "ops": [graph_ops(gm) for gm in graphs],
        "placeholders": [placeholders(gm) for gm in graphs],
        "result": value(got.result),
    }
    if run_graphs:
        # Each graph's outputs in order: what the rest of the function still reads, the
        # stack first, then the live locals in the order the function first stored them.
        out["outputs"] = [value(tuple(gm(*ex))) for gm, ex in zip(graphs, examples, strict=True)]
    return out


def inputs(*shape: int, start: float = 0.0, dtype: torch.dtype = torch.float32) -> torch.Tensor:
    """Distinct, exactly representable values (no randomness: both runs see the same)."""
    n = 1
    for s in shape:
        n *= s
    return (torch.arange(n, dtype=torch.float64) * 0.25 - 1.5 + start).to(dtype).reshape(shape)


def unwrapped(fn: Any, *args: Any) -> Any:
    """``fn(*args)``, but an error a backend raised comes out as itself: Dynamo wraps it in
    ``BackendCompilerFailed`` ("backend=... raised: ..."), which would hide that an exercise
    is simply not written yet."""
    try:
        return fn(*args)
    except Exception as exc:
        inner: BaseException | None = exc
        while inner is not None:
            if isinstance(inner, NotImplementedError):
                raise inner from None
            inner = inner.__cause__ or inner.__context__
        raise


class CompileCounter:
    """A backend that counts compiles and runs the graph unchanged (both sides of a case
    hand it to their compiler; ``torch._dynamo.testing.CompileCounter`` does the same)."""

    def __init__(self) -> None:
        self.n = 0

    def __call__(self, gm: Any, example_inputs: list[Any]) -> Any:
        self.n += 1
        return gm.forward
