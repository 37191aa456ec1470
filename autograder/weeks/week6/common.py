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
    hand it to their compiler; ``torch._dynamo.testing.CompileCounter`` does the same).
    ``ran`` says which compile's graph each run used (1 for the first), so a case sees which
    cache entry answered a call, not only whether one did."""

    def __init__(self) -> None:
        self.n = 0
        self.ran: list[int] = []

    def __call__(self, gm: Any, example_inputs: list[Any]) -> Any:
        self.n += 1
        number, forward = self.n, gm.forward

        def run(*args: Any) -> Any:
            self.ran.append(number)
            return forward(*args)

        return run


# ---- Part 2: ATen graphs, AOTAutograd and the lab's Inductor ------------------------------------


def aten_ops(gm: Any) -> list[str]:
    """An ATen graph's calls in order, as torch prints them (``aten.sin.default``;
    ``getitem`` for the items of a tuple result)."""
    out = []
    for n in gm.graph.nodes:
        if n.op == "call_function":
            out.append("getitem" if n.target is operator.getitem else str(n.target))
    return out


def results(gm_or_fn: Any, *args: Any, boxed: bool = False) -> tuple[Any, ...]:
    """What a graph (or a boxed compiled function) returns, as a tuple."""
    out = gm_or_fn(list(args)) if boxed else gm_or_fn(*args)
    return tuple(out) if isinstance(out, (list, tuple)) else (out,)


def close(got: Any, want: Any, atol: float = 1e-5) -> Any:
    """Whether ``got`` matches ``want`` (tensors: shape, dtype and values within ``atol``;
    ``None`` for ``None``), as data: ``True``, or what differs first."""
    got = tuple(got) if isinstance(got, (list, tuple)) else (got,)
    want = tuple(want) if isinstance(want, (list, tuple)) else (want,)
    if len(got) != len(want):
        return f"{len(got)} results, torch gives {len(want)}"
    for i, (g, w) in enumerate(zip(got, want, strict=True)):
        if w is None or g is None:
            if g is not w:
                return f"result {i}: {type(g).__name__}, torch gives {type(w).__name__}"
            continue
        if not isinstance(g, torch.Tensor):
            return f"result {i}: a {type(g).__name__}, torch gives a tensor"
        if tuple(g.shape) != tuple(w.shape) or g.dtype != w.dtype:
            return f"result {i}: {tuple(g.shape)} {g.dtype}, torch gives {tuple(w.shape)} {w.dtype}"
        if not torch.allclose(g.detach(), w.detach(), atol=atol, rtol=1e-5, equal_nan=True):
            return f"result {i}: values differ by up to {(g - w).abs().max().item():.3g}"
    return True


def raises(fn: Any) -> Any:
    """``fn()``'s result, or ``"raised"``: where torch's error type is not part of the question
    (make_fx raises GuardOnDataDependentSymNode where a bare FakeTensorMode raises
    DataDependentOutputException; both refuse the same program)."""
    try:
        return fn()
    except NotImplementedError:
        raise
    except Exception:  # noqa: BLE001 - that it raised is the observation
        return "raised"


def steps(lowered: Any) -> dict[str, Any]:
    """A lowered graph's fused kernels (how many) and extern calls (in order). Works on the
    lab's ``Lowered`` and on the oracle's reading of the code Inductor wrote. Where a kernel
    falls between extern calls it does not depend on is not compared: Inductor orders
    them to lower peak memory (``reorder_for_peak_memory`` in ``torch/_inductor/config.py``)."""
    return {
        "kernels": sum(1 for s in lowered.steps if hasattr(s, "loops")),
        "extern calls": [str(s.op) for s in lowered.steps if not hasattr(s, "loops")],
    }


def decomposed(lib: Any, fn: Any, *args: Any) -> dict[str, Any]:
    """``make_fx(fn, decomposition_table=lib.decompositions())``: the ops it traces to and
    whether the graph computes what ``fn`` does."""
    from torch.fx.experimental.proxy_tensor import make_fx

    table = lib.decompositions()
    gm = make_fx(fn, tracing_mode="fake", decomposition_table=table)(*args)
    return {"ops": aten_ops(gm), "computes fn": close(results(gm, *args), results(fn, *args))}


# The ops of the lab's decomposition table (Task 6.8).
DECOMPOSED = (
    "gelu", "gelu_backward", "silu", "_softmax", "_log_softmax", "_softmax_backward_data",
    "_log_softmax_backward_data", "addmm", "t",
)  # fmt: skip


def decomposition_table() -> Any:
    """Torch's own table for the lab's ops: the graphs the lowering cases start from (the
    learner's table is checked by Task 6.8's cases alone)."""
    from torch._decomp import get_decompositions

    return get_decompositions([getattr(torch.ops.aten, name) for name in DECOMPOSED])


def aten_graph(fn: Any, *args: Any) -> Any:
    """``fn``'s ATen graph with torch's decompositions, traced by torch (``make_fx``, fake
    tensors): both sides of a lowering case start from this same graph."""
    from torch.fx.experimental.proxy_tensor import make_fx

    return make_fx(fn, tracing_mode="fake", decomposition_table=decomposition_table())(*args)


def fused(lib: Any, fn: Any, *args: Any) -> dict[str, Any]:
    """Task 6.10's question: the kernels and extern calls ``lib.lower`` makes of ``fn``'s
    ATen graph, in order (Inductor: its ``cpp_fused_*`` kernels and ``extern_kernels``)."""
    return steps(lib.lower(aten_graph(fn, *args)))


def generated(lib: Any, fn: Any, *args: Any) -> dict[str, Any]:
    """Task 6.11's question: the compiled graph's results, compared with ``fn`` run eagerly."""
    compiled = lib.compile_graph(aten_graph(fn, *args))
    got = results(compiled, *args, boxed=True)
    return {"computes fn": close(got, results(fn, *args))}


def functional(lib: Any, fn: Any, *args: Any) -> dict[str, Any]:
    """Task 6.7's question, on ``fn``'s ATen graph (traced by torch, in-place ops and all):
    how many results the functional graph has, what in-place ops are left, the multiset of
    its compute ops (views aside: where a view is replayed is not compared), and what it
    computes: each mutated input's new value, then ``fn``'s results."""
    from torch.fx.experimental.proxy_tensor import make_fx

    gm = make_fx(fn, tracing_mode="fake")(*[a.clone() for a in args])
    graph = lib.functionalize(gm)
    ops = aten_ops(graph)
    mine = [a.clone() for a in args]
    got = results(graph, *mine)
    unchanged = all(torch.equal(a, b) for a, b in zip(mine, args, strict=True))
    theirs = [a.clone() for a in args]
    want = results(fn, *theirs)
    news = tuple(t for t, a in zip(theirs, args, strict=True) if not torch.equal(t, a))
    return {
        "results": len(got),
        "in-place ops left": sorted(o for o in ops if o.split(".")[1].endswith("_")),
        "compute ops": sorted(o for o in ops if o.split(".")[1] not in _VIEW_NAMES),
        "inputs untouched": unchanged,
        "computes fn": close(got, news + want),
    }


_VIEW_NAMES = {"view", "_unsafe_view", "t", "transpose", "permute", "unsqueeze", "squeeze",
               "alias", "detach", "expand"}  # fmt: skip


def partitioned(lib: Any, fn: Any, *args: Any) -> dict[str, Any]:
    """Task 6.9's question: ``aot_function(fn)`` with ``lib.partition`` as its partitioner
    (torch's decompositions, so both sides cut the same joint graph): the forward graph's
    calls and outputs (its results, then the saved values, by node name), the backward's
    calls and inputs, and the gradients, compared with eager autograd."""
    from functorch.compile import aot_function, make_boxed_func

    kept: list[Any] = []

    def keep(gm: Any, _: Any) -> Any:
        kept.append(gm)
        return make_boxed_func(gm.forward)

    compiled = aot_function(
        fn, keep, keep, partition_fn=lib.partition, decompositions=decomposition_table()
    )
    mine = [a.detach().clone().requires_grad_(a.requires_grad) for a in args]
    out = results(compiled, *mine)
    sum(o.sum() for o in out).backward()
    theirs = [a.detach().clone().requires_grad_(a.requires_grad) for a in args]
    sum(o.sum() for o in results(fn, *theirs)).backward()
    fw, bw = kept
    names = lambda g, op: [str(n.name) for n in g.graph.nodes if n.op == op]  # noqa: E731
    return {
        "forward ops": aten_ops(fw),
        "forward outputs": [str(a) for a in fw.graph.output_node().args[0]],
        "backward inputs": names(bw, "placeholder"),
        "backward ops": aten_ops(bw),
        "backward outputs": [str(a) for a in bw.graph.output_node().args[0]],
        "gradients": close([a.grad for a in mine], [a.grad for a in theirs]),
        "results": close(out, results(fn, *theirs)),
    }
