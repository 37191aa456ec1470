"""Week 6's pictures: torch.fx graphs drawn as tables, real Dynamo's beside your mini-Dynamo's.

- ``draw_graph(gm)``: one graph as a table, one row per node: its name, its op
  (``placeholder``, ``call_function``, ``call_method``, ``output``), its target by name
  (``torch.sin``, ``operator.add``, ``relu``) and its arguments (other nodes by name).
- ``graphs_side_by_side(torch_side, yours)``: the graphs of one program drawn in two columns,
  and whether they agree: the same number of graphs, the same calls in each, in order
  (named as the week's checks name them: ``torch.sin``, ``operator.add``, ``method relu``),
  and the same number of inputs.
- ``compare_table(rows)``: small answers (counts, guard decisions, compile counts) of torch and
  of your module, one row per question.

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
    ``torch.nn.functional.relu``, a method's name, a placeholder's name."""
    target = node.target
    if isinstance(target, str):
        return target
    name = getattr(target, "__name__", None)
    if name is None:
        return str(target)
    if getattr(operator, name, None) is target:
        return f"operator.{name}"
    import torch

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
    or not implemented yet; the line under the table sums it up. Never raises."""
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
                try:
                    verdict = "same" if bool(ours.value == theirs.value) else "differ"
                except Exception:  # noqa: BLE001 - values that cannot be compared differ
                    verdict = "differ"
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


def _verdict_line(verdict: str, line: str) -> str:
    """The coloured sentence under a drawing that says whether the two sides agree."""
    color = _VERDICT_COLORS.get(verdict, "#cf222e")
    return (
        f"<div class='torchlab-verdict' data-verdict='{verdict}' "
        f"style='color:{color}'>{html.escape(line)}</div>"
    )


def _error(cls: str, text: str) -> HTML:
    return HTML(f"<div class='{cls}'><span style='color:#cf222e'>{html.escape(text)}</span></div>")
