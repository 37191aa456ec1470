"""Week 6's pictures: torch.fx graphs drawn as tables, real Dynamo's beside your mini-Dynamo's.

- ``draw_graph(gm)``: one graph as a table, one row per node: its name, its op
  (``placeholder``, ``call_function``, ``call_method``, ``output``), its target by name
  (``torch.sin``, ``operator.add``, ``relu``) and its arguments (other nodes by name).
- ``graphs_side_by_side(torch_side, yours)``: the graphs of one program drawn in two columns,
  and whether they agree: the same number of graphs, the same calls in each, in order
  (named as the week's checks name them: ``torch.sin``, ``operator.add``, ``method relu``),
  and the same number of inputs.
- ``compare_table(rows)``: small answers (counts, guard decisions, compile counts, tensors) of
  torch and of your module, one row per question.
- ``draw_steps(lowered)``: what your ``lower`` made of an ATen graph (part 2, Task 6.10): its
  inputs, its steps in order (each fused kernel with its loops, each extern call) and its
  outputs, one row per loop or call, with each loop's element written out as text.

A side is a ``GraphModule`` or ``torch.fx.Graph``, a list of them, anything with a ``graphs``
attribute or key (your ``Captured``, ``explain``'s dict), or a function of no arguments that
returns one of those: it is called here, so that an unfinished task is shown as "not implemented
yet" instead of stopping the notebook. Nothing here ever raises.
"""

from __future__ import annotations

import html
import operator
from collections.abc import Mapping
from typing import Any

from autograder.notebook.viz import HTML

# Row colors by the node's op.
_OP_COLORS = {
    "placeholder": "#dbeafe",
    "call_function": "#dcfce7",
    "call_method": "#fef9c3",
    "call_module": "#e9d5ff",
    "get_attr": "#fed7aa",
    "output": "#f3f4f6",
}
_VERDICT_COLORS = {"same": "#1a7f37", "not-implemented": "#9a6700"}
_CELL = "border:1px solid #9ca3af;padding:2px 8px;text-align:left;vertical-align:top"


class _Side:
    """What one side gave: a value, or an error line (``missing``: not implemented yet)."""

    def __init__(self, value: Any = None, error: str = "", missing: bool = False) -> None:
        self.value, self.error, self.missing = value, error, missing


def _unwrap(exc: BaseException) -> BaseException:
    """The ``NotImplementedError`` behind ``exc``, if there is one: Dynamo wraps an error a
    backend raised in ``BackendCompilerFailed``, which would hide an unwritten task."""
    inner: BaseException | None = exc
    seen: set[int] = set()
    while inner is not None and id(inner) not in seen:
        if isinstance(inner, NotImplementedError):
            return inner
        seen.add(id(inner))
        inner = inner.__cause__ or inner.__context__
    return exc


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return f"{type(exc).__name__}: {text.splitlines()[0] if text else ''}"[:300]


def _attempt(fn: Any) -> _Side:
    """``fn()`` if ``fn`` is a function of no arguments, else ``fn`` itself."""
    if not callable(fn) or _is_graph(fn):
        return _Side(fn)
    try:
        return _Side(fn())
    except Exception as exc:  # noqa: BLE001 - shown, not raised
        inner = _unwrap(exc)
        if isinstance(inner, NotImplementedError):
            return _Side(error=f"not implemented yet: {inner}", missing=True)
        return _Side(error=_first_line(inner))


def _is_graph(value: Any) -> bool:
    return hasattr(value, "nodes") or hasattr(getattr(value, "graph", None), "nodes")


def _graphs(value: Any) -> list[Any]:
    """The graphs in ``value``: one graph, a list of graphs, or something holding ``graphs``."""
    if _is_graph(value):
        return [value]
    if isinstance(value, Mapping) and "graphs" in value:
        value = value["graphs"]
    elif hasattr(value, "graphs"):
        value = value.graphs
    if isinstance(value, (list, tuple)) and all(_is_graph(g) for g in value):
        return list(value)
    raise TypeError(f"not a torch.fx graph or a list of graphs: {type(value).__name__}")


def _nodes(gm: Any) -> list[Any]:
    return list(gm.nodes if hasattr(gm, "nodes") else gm.graph.nodes)


def target_name(node: Any) -> str:
    """A node's target as a short readable name: ``torch.sin``, ``operator.add``,
    ``torch.nn.functional.relu``, an ATen overload as torch prints it (``aten.add.Tensor``),
    a method's name, a placeholder's name."""
    target = node.target
    if isinstance(target, str):
        return target
    import torch

    if isinstance(target, (torch._ops.OpOverload, torch._ops.OpOverloadPacket)):
        return str(target)
    name = getattr(target, "__name__", None)
    if name is None:
        return str(target)
    if getattr(operator, name, None) is target:
        return f"operator.{name}"
    if getattr(torch, name, None) is target:
        return f"torch.{name}"
    module = getattr(target, "__module__", None)
    return f"{module}.{name}" if module else name


def op_name(node: Any) -> str:
    """A call as the week's checks name it: ``torch.sin``, ``operator.add``, ``method relu``."""
    if node.op == "call_method":
        return f"method {node.target}"
    if node.op == "call_module":
        return f"module {node.target}"
    return target_name(node)


def _arg_text(arg: Any) -> str:
    if hasattr(arg, "op") and hasattr(arg, "name") and hasattr(arg, "target"):
        return str(arg.name)  # another node
    if isinstance(arg, tuple):
        inner = ", ".join(_arg_text(a) for a in arg)
        return f"({inner},)" if len(arg) == 1 else f"({inner})"
    if isinstance(arg, list):
        return "[" + ", ".join(_arg_text(a) for a in arg) + "]"
    if isinstance(arg, dict):
        return "{" + ", ".join(f"{k!r}: {_arg_text(v)}" for k, v in arg.items()) + "}"
    return repr(arg)


def _args_text(node: Any) -> str:
    parts = [_arg_text(a) for a in node.args]
    parts += [f"{k}={_arg_text(v)}" for k, v in node.kwargs.items()]
    return ", ".join(parts)


def _graph_table(gm: Any, caption: str) -> str:
    rows = []
    for node in _nodes(gm):
        color = _OP_COLORS.get(node.op, "#ffffff")
        cells = (node.name, node.op, target_name(node), _args_text(node))
        rows.append(
            "<tr>"
            + "".join(
                f"<td style='{_CELL};background:{color};font-family:monospace'>"
                f"{html.escape(str(c))}</td>"
                for c in cells
            )
            + "</tr>"
        )
    head = "".join(f"<th style='{_CELL}'>{h}</th>" for h in ("node", "op", "target", "args"))
    return (
        "<table style='border-collapse:collapse;margin-bottom:8px'>"
        f"<caption style='font-weight:bold;text-align:left'>{html.escape(caption)}</caption>"
        f"<tr>{head}</tr>{''.join(rows)}</table>"
    )


def _error_panel(side: _Side) -> str:
    color = "#9a6700" if side.missing else "#cf222e"
    return f"<div style='color:{color}'>{html.escape(side.error)}</div>"


def _graphs_panel(side: _Side) -> tuple[str, list[Any] | None]:
    """The HTML of one column, and its graphs (None when it has none to compare)."""
    if side.error:
        return _error_panel(side), None
    try:
        graphs = _graphs(side.value)
    except Exception as exc:  # noqa: BLE001
        return _error_panel(_Side(error=f"this cannot be drawn: {_first_line(exc)}")), None
    if not graphs:
        return "<div style='color:#6b7280'>no graph: nothing was compiled</div>", graphs
    tables = []
    for i, gm in enumerate(graphs, 1):
        caption = f"graph {i} of {len(graphs)}" if len(graphs) > 1 else "the graph"
        try:
            tables.append(_graph_table(gm, caption))
        except Exception as exc:  # noqa: BLE001
            tables.append(_error_panel(_Side(error=f"{caption}: {_first_line(exc)}")))
    return "".join(tables), graphs


def draw_graph(gm: Any, title: str = "") -> HTML:
    """One graph (or each graph of a list) as a table of its nodes. Never raises."""
    try:
        body, _ = _graphs_panel(_attempt(gm))
        head = f"<div style='font-weight:bold'>{html.escape(title)}</div>" if title else ""
        return HTML(f"<div class='torchlab-graphs'>{head}{body}</div>")
    except Exception as exc:  # noqa: BLE001 - a drawing never stops the notebook
        return _error("torchlab-graphs", f"this graph cannot be drawn ({_first_line(exc)})")


def _shape(graphs: list[Any]) -> list[tuple[list[str], int]]:
    """Each graph's calls in order and its number of inputs: what the checks compare."""
    return [
        (
            [op_name(n) for n in _nodes(gm) if n.op.startswith("call_")],
            sum(1 for n in _nodes(gm) if n.op == "placeholder"),
        )
        for gm in graphs
    ]


def _graphs_verdict(ours: list[Any], theirs: list[Any]) -> tuple[str, str]:
    want, got = _shape(ours), _shape(theirs)
    if len(want) != len(got):
        return "differ", f"Different number of graphs: torch {len(want)}, yours {len(got)}."
    for i, ((calls, inputs), (my_calls, my_inputs)) in enumerate(zip(want, got, strict=True), 1):
        if calls != my_calls:
            return "differ", f"Graph {i} differs: torch calls {calls}, yours {my_calls}."
        if inputs != my_inputs:
            return "differ", f"Graph {i} differs: torch has {inputs} inputs, yours {my_inputs}."
    n = len(want)
    return "same", (
        f"Same as torch: {n} {'graph' if n == 1 else 'graphs'}, the same calls in "
        f"{'it' if n == 1 else 'each'}, in the same order, and the same number of inputs."
    )


def graphs_side_by_side(
    torch_side: Any,
    yours: Any = None,
    name: str = "",
    *,
    labels: tuple[str, str] = ("torch (Dynamo)", "yours"),
) -> HTML:
    """Draws the graphs of ``torch_side`` beside those of ``yours`` (each a graph, a list of
    graphs, something with ``graphs``, or a function of no arguments giving one) and says
    whether they agree. With ``yours`` left out, draws ``torch_side`` alone. Never raises."""
    try:
        left, ours = _graphs_panel(_attempt(torch_side))
        title = f"<div style='font-family:monospace;font-weight:bold'>{html.escape(name)}</div>"
        if yours is None:
            return HTML(f"<div class='torchlab-graphs'>{title}{left}</div>")
        side = _attempt(yours)
        right, theirs = _graphs_panel(side)
        if ours is None:
            verdict, line = "differ", "torch's side could not be drawn."
        elif side.missing:
            verdict, line = "not-implemented", f"Nothing to compare yet: yours says {side.error}"
        elif theirs is None:
            verdict, line = "differ", f"Different: {side.error or 'yours cannot be drawn'}"
        else:
            verdict, line = _graphs_verdict(ours, theirs)
        return HTML(
            f"<div class='torchlab-graphs'>{title}"
            "<div style='display:flex;gap:32px;flex-wrap:wrap;align-items:flex-start'>"
            f"<div><div><b>{html.escape(labels[0])}</b></div>{left}</div>"
            f"<div><div><b>{html.escape(labels[1])}</b></div>{right}</div></div>"
            f"{_verdict_line(verdict, line)}"
            "</div>"
        )
    except Exception as exc:  # noqa: BLE001 - a drawing never stops the notebook
        return _error("torchlab-graphs", f"these graphs cannot be drawn ({_first_line(exc)})")


def _value_text(side: _Side) -> str:
    if side.error:
        return _error_panel(side)
    text = repr(side.value)
    text = text if len(text) <= 300 else text[:300] + "…"
    return f"<code>{html.escape(text)}</code>"


def compare_table(
    rows: Mapping[str, tuple[Any, Any]],
    title: str = "",
    *,
    labels: tuple[str, str] = ("torch (Dynamo)", "yours"),
) -> HTML:
    """One row per question: ``rows`` maps a label to (torch's answer, yours), each a value or
    a function of no arguments giving it. Shows both and marks each row the same, different
    or not implemented yet; the line under the table sums it up. Tensors and floats are the
    same when they are close (``_same``): a compiled graph may sum in another order. Never
    raises."""
    try:
        lines, verdicts = [], []
        for label, (ours_fn, yours_fn) in rows.items():
            ours, theirs = _attempt(ours_fn), _attempt(yours_fn)
            if theirs.missing:
                verdict, mark, color = "not-implemented", "not yet", "#9a6700"
            elif ours.error or theirs.error:
                same = bool(ours.error and theirs.error)
                same = same and ours.error.split(":")[0] == theirs.error.split(":")[0]
                verdict = "same" if same else "differ"
            else:
                verdict = "same" if _same(ours.value, theirs.value) else "differ"
            if verdict != "not-implemented":
                mark, color = ("same", "#1a7f37") if verdict == "same" else ("different", "#cf222e")
            verdicts.append(verdict)
            lines.append(
                f"<tr><td style='{_CELL}'>{html.escape(label)}</td>"
                f"<td style='{_CELL}'>{_value_text(ours)}</td>"
                f"<td style='{_CELL}'>{_value_text(theirs)}</td>"
                f"<td style='{_CELL};color:{color};font-weight:bold'>{mark}</td></tr>"
            )
        differ = verdicts.count("differ")
        if differ:
            verdict, line = "differ", f"{differ} of {len(verdicts)} answers differ from torch's."
        elif "not-implemented" in verdicts:
            verdict, line = "not-implemented", "Nothing to compare yet: write the task, re-run."
        else:
            verdict, line = "same", f"All {len(verdicts)} answers are the same as torch's."
        head = "".join(f"<th style='{_CELL}'>{html.escape(h)}</th>" for h in ("", *labels, ""))
        caption = (
            f"<caption style='font-weight:bold;text-align:left'>{html.escape(title)}</caption>"
            if title
            else ""
        )
        return HTML(
            "<div class='torchlab-values'>"
            f"<table style='border-collapse:collapse'>{caption}<tr>{head}</tr>"
            f"{''.join(lines)}</table>"
            f"{_verdict_line(verdict, line)}"
            "</div>"
        )
    except Exception as exc:  # noqa: BLE001 - a table never stops the notebook
        return _error("torchlab-values", f"this table cannot be shown ({_first_line(exc)})")


class _TextOps:
    """An ``ops`` handler that writes each call as text (as Inductor's ``MockHandler`` does):
    ``load(x_1, i0*6 + i1)``, ``sin(...)``, ``add(..., 1.0)``."""

    def load(self, name: str, index: str) -> str:
        return f"load({name}, {index})"

    def constant(self, value: Any, *_: Any) -> str:
        return repr(value)

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        return lambda *args: f"{name}({', '.join(str(a) for a in args)})"


def _loop_text(loop: Any) -> str:
    """One loop's element as text, ``inner`` run with ``_TextOps`` installed in the ``ops`` of
    the module that made it (``i0, i1...`` the loop's indices, ``r0...`` the reduced ones);
    ``""`` when it cannot be written out."""
    inner = getattr(loop, "inner", None)
    ops_class = getattr(inner, "__globals__", {}).get("_Ops")
    if ops_class is None or not hasattr(ops_class, "handler"):
        return ""
    ranges = tuple(getattr(loop, "ranges", ()))
    reduced = tuple(getattr(loop, "reduction_ranges", ()) or ())
    index = [f"i{d}" for d in range(len(ranges))] + [f"r{d}" for d in range(len(reduced))]
    before = ops_class.handler
    ops_class.handler = _TextOps()
    try:
        return str(inner(index))
    except Exception as exc:  # noqa: BLE001 - shown, not raised
        inner_exc = _unwrap(exc)
        if isinstance(inner_exc, NotImplementedError):
            return f"(not implemented yet: {inner_exc})"
        return f"({_first_line(inner_exc)})"
    finally:
        ops_class.handler = before


def _layout_text(layout: Any) -> str:
    """An extern call's argument or an output: a name, or (name, sizes, strides, offset)
    written as ``name`` or ``name as (sizes) stride (strides) offset k``."""
    if isinstance(layout, (tuple, list)) and len(layout) == 4:
        name, sizes, strides, offset = layout
        text = f"{name} {tuple(sizes)} stride {tuple(strides)}"
        return f"{text} offset {offset}" if offset else text
    return str(layout)


def _steps_rows(lowered: Any) -> list[tuple[str, str, str, str]]:
    """(step, buffer, what, element) for each loop of each kernel and each extern call."""
    rows = []
    for step in lowered.steps:
        loops = getattr(step, "loops", None)
        if loops is None:  # an extern call
            args = ", ".join(_layout_text(a) for a in step.args)
            buffer = step.buffer
            rows.append(
                (
                    f"extern {step.op}",
                    f"{buffer.name} {tuple(buffer.shape)}",
                    f"{step.op}({args})",
                    "",
                )
            )
            continue
        for loop in loops:
            kind = getattr(loop, "reduction_type", None)
            what = f"pointwise over {tuple(loop.ranges)}"
            if kind:
                what = (
                    f"{kind} over {tuple(loop.reduction_ranges)} for each of {tuple(loop.ranges)}"
                )
            buffer = loop.buffer
            rows.append((step.name, f"{buffer.name} {tuple(buffer.shape)}", what, _loop_text(loop)))
    return rows


def draw_steps(lowered: Any, title: str = "") -> HTML:
    """What ``lower`` made of a graph (Task 6.10): the inputs, then one row per step in the
    order ``call`` runs them (each loop of a fused kernel, with the buffer it fills and its
    element written out; each extern call), then the outputs. ``lowered`` is a ``Lowered``
    or a function of no arguments giving one (an unwritten task is "not implemented yet").
    Never raises."""
    try:
        side = _attempt(lowered)
        head = f"<div style='font-weight:bold'>{html.escape(title)}</div>" if title else ""
        if side.error:
            return HTML(f"<div class='torchlab-steps'>{head}{_error_panel(side)}</div>")
        value = side.value
        rows = _steps_rows(value)
        kernels = sum(1 for s in value.steps if hasattr(s, "loops"))
        externs = [str(s.op) for s in value.steps if not hasattr(s, "loops")]
        inputs = ", ".join(f"{b.name} {tuple(b.shape)}" for b in value.inputs)
        outputs = ", ".join(_layout_text(o) for o in value.outputs)
        colors = {True: "#dcfce7", False: "#fed7aa"}
        body = "".join(
            "<tr>"
            + "".join(
                f"<td style='{_CELL};background:{colors[not step.startswith('extern')]};"
                f"font-family:monospace'>{html.escape(c)}</td>"
                for c in (step, buffer, what, element)
            )
            + "</tr>"
            for step, buffer, what, element in rows
        )
        cells = ("step", "buffer", "what", "one element")
        header = "".join(f"<th style='{_CELL}'>{h}</th>" for h in cells)
        summary = (
            f"{kernels} {'kernel' if kernels == 1 else 'kernels'}, extern calls {externs}"
            f"; inputs: {inputs or 'none'}; outputs: {outputs or 'none'}"
        )
        return HTML(
            f"<div class='torchlab-steps'>{head}"
            f"<table style='border-collapse:collapse;margin-bottom:4px'><tr>{header}</tr>"
            f"{body}</table><div style='font-family:monospace'>{html.escape(summary)}</div></div>"
        )
    except Exception as exc:  # noqa: BLE001 - a drawing never stops the notebook
        return _error("torchlab-steps", f"these steps cannot be drawn ({_first_line(exc)})")


def _same(ours: Any, theirs: Any, atol: float = 1e-5) -> bool:
    """Whether two answers agree: tensors of the same shape and dtype whose values are close
    (``torch.allclose`` within ``atol``), floats close, lists, tuples and dicts item by item,
    anything else equal. Never raises: what cannot be compared differs."""
    try:
        import torch

        if isinstance(ours, torch.Tensor) or isinstance(theirs, torch.Tensor):
            return (
                isinstance(ours, torch.Tensor)
                and isinstance(theirs, torch.Tensor)
                and ours.shape == theirs.shape
                and ours.dtype == theirs.dtype
                and bool(
                    torch.allclose(
                        ours.detach(), theirs.detach(), atol=atol, rtol=1e-5, equal_nan=True
                    )
                )
            )
        if type(ours) is float or type(theirs) is float:
            if not isinstance(ours, (int, float)) or not isinstance(theirs, (int, float)):
                return False
            return abs(ours - theirs) <= atol + 1e-5 * abs(theirs)
        if isinstance(ours, (list, tuple)) and isinstance(theirs, (list, tuple)):
            return (
                type(ours) is type(theirs)
                and len(ours) == len(theirs)
                and all(_same(a, b, atol) for a, b in zip(ours, theirs, strict=True))
            )
        if isinstance(ours, Mapping) and isinstance(theirs, Mapping):
            return ours.keys() == theirs.keys() and all(
                _same(ours[k], theirs[k], atol) for k in ours
            )
        return bool(ours == theirs)
    except Exception:  # noqa: BLE001 - values that cannot be compared differ
        return False


def _verdict_line(verdict: str, line: str) -> str:
    """The coloured sentence under a drawing that says whether the two sides agree."""
    color = _VERDICT_COLORS.get(verdict, "#cf222e")
    return (
        f"<div class='torchlab-verdict' data-verdict='{verdict}' "
        f"style='color:{color}'>{html.escape(line)}</div>"
    )


def _error(cls: str, text: str) -> HTML:
    return HTML(f"<div class='{cls}'><span style='color:#cf222e'>{html.escape(text)}</span></div>")
