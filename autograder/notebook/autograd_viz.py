"""Week 3's pictures: the graph behind a tensor, for torch and for your engine alike.

Everything here reads only torch's public autograd API (``t.grad_fn``, ``node.next_functions``,
``node.variable``, ``node._saved_*``, ``t.shape``, ``register_hook``...), never ``torch``
itself, so the same call draws torch's graph and the graph of your ``autograd.py``:

- ``draw_graph(t)``: a graphviz drawing in ``torchviz.make_dot``'s style (grey nodes for
  backward functions, blue for leaves that get ``.grad``, orange for saved tensors, green for
  the output), so it can sit beside ``make_dot``'s picture of torch's graph;
- ``backward_path(t)``: the walk along ``next_functions`` from ``t.grad_fn``, one line per
  edge;
- ``node_timeline(lib, build)``: the order in which ``backward`` reaches each node and hook;
- ``graph_side_by_side`` and ``timeline_side_by_side``: torch beside your engine.

None of the ``*_side_by_side`` helpers ever raises: an unfinished engine is shown, not
stopped on.
"""

from __future__ import annotations

import html
from collections.abc import Callable
from typing import Any

from autograder.notebook.viz import HTML

SAVED_PREFIX = "_saved_"

# torchviz.make_dot's look, so the two drawings can be compared at a glance.
NODE_ATTR = {
    "style": "filled",
    "shape": "box",
    "align": "left",
    "fontsize": "10",
    "ranksep": "0.1",
    "height": "0.2",
    "fontname": "monospace",
}


def node_name(fn: Any) -> str:
    """A node's short class name, as torchviz shows it (``name()`` of torch's AccumulateGrad
    is the C++ name ``torch::autograd::AccumulateGrad``; its type is ``AccumulateGrad``)."""
    return type(fn).__name__


def _is_tensor(value: Any) -> bool:
    return hasattr(value, "shape") and hasattr(value, "grad_fn") and hasattr(value, "dtype")


def _size(t: Any) -> str:
    return "(" + ", ".join(str(int(s)) for s in t.shape) + ")"


def _saved(fn: Any) -> dict[str, Any]:
    """The node's ``_saved_*`` attributes, read one by one (a freed one is skipped)."""
    out = {}
    for attr in dir(fn):
        if attr.startswith(SAVED_PREFIX):
            try:
                out[attr[len(SAVED_PREFIX) :]] = getattr(fn, attr)
            except Exception:  # noqa: BLE001, S112 - freed by backward, or not readable
                continue
    return out


def draw_graph(output: Any, params: dict[str, Any] | None = None, show_saved: bool = False) -> Any:
    """A ``graphviz.Digraph`` of the graph behind ``output`` (a tensor of torch or of your
    engine), walking ``grad_fn.next_functions`` as ``torchviz.make_dot`` does.

    ``params`` names leaves (``dict(model.named_parameters())``); ``show_saved`` adds each
    node's ``_saved_*`` tensors in orange, like ``make_dot(..., show_saved=True)``."""
    from graphviz import Digraph

    names = {id(v): k for k, v in (params or {}).items()}
    dot = Digraph(node_attr=NODE_ATTR, graph_attr={"size": "12,12"})
    seen: set[int] = set()

    def label(t: Any, name: str = "") -> str:
        return f"{name or names.get(id(t), '')}\n {_size(t)}"

    def add_node(fn: Any) -> None:
        if id(fn) in seen:
            return
        seen.add(id(fn))
        if show_saved:
            for attr, value in _saved(fn).items():
                values = value if isinstance(value, tuple) else (value,)
                for i, t in enumerate(values):
                    if _is_tensor(t):
                        tag = attr if len(values) == 1 else f"{attr}[{i}]"
                        dot.edge(str(id(fn)), str(id(t)), dir="none")
                        dot.node(str(id(t)), label(t, tag), fillcolor="orange")
        if hasattr(fn, "variable"):  # AccumulateGrad: draw the leaf it writes .grad into
            var = fn.variable
            seen.add(id(var))
            dot.node(str(id(var)), label(var), fillcolor="lightblue")
            dot.edge(str(id(var)), str(id(fn)))
        dot.node(str(id(fn)), node_name(fn))
        for next_fn, _ in getattr(fn, "next_functions", ()):
            if next_fn is not None:
                dot.edge(str(id(next_fn)), str(id(fn)))
                add_node(next_fn)

    outputs = output if isinstance(output, tuple | list) else (output,)
    for out in outputs:
        dot.node(str(id(out)), label(out), fillcolor="darkolivegreen1")
        if out.grad_fn is not None:
            add_node(out.grad_fn)
            dot.edge(str(id(out.grad_fn)), str(id(out)))
    # torchviz's resize_graph: 0.15 inch per line of the drawing, at least 12 inches
    size = max(12, len(dot.body) * 0.15)
    dot.graph_attr.update(size=f"{size},{size}")
    return dot


def backward_path(output: Any) -> list[str]:
    """The graph behind ``output`` as backward walks it from ``output.grad_fn``: one line per
    edge of ``next_functions``, indented by depth, ``(input_nr)`` after each node. A node
    reached a second time is marked ``(seen)`` and not walked again; a ``None`` edge is an
    input that does not require grad."""
    lines: list[str] = []
    seen: set[int] = set()

    def walk(fn: Any, depth: int, input_nr: int | None) -> None:
        pad = "    " * depth
        edge = "" if input_nr is None else f" ({input_nr})"
        if fn is None:
            lines.append(f"{pad}None{edge}  <- no grad needed")
            return
        leaf = ""
        if hasattr(fn, "variable"):
            leaf = f"  -> .grad of the leaf {_size(fn.variable)}"
        if id(fn) in seen:
            lines.append(f"{pad}{node_name(fn)}{edge}  (seen)")
            return
        seen.add(id(fn))
        lines.append(f"{pad}{node_name(fn)}{edge}{leaf}")
        for next_fn, nr in getattr(fn, "next_functions", ()):
            walk(next_fn, depth + 1, nr)

    if output.grad_fn is None:
        return ["(no grad_fn: nothing to walk)"]
    walk(output.grad_fn, 0, None)
    return lines


def node_timeline(lib: Any, build: Callable[[Any], dict[str, Any]]) -> list[str]:
    """What ``backward`` does, in order: ``build(lib)`` returns named tensors, the last one the
    output; each gets a tensor hook, each node a pre-hook and a post-hook, each leaf a
    post-accumulate-grad hook, then ``output.sum().backward()`` runs. Raises what the library
    raises."""
    log: list[str] = []
    tensors = build(lib)
    *_, out = tensors.values()
    done: set[int] = set()
    for name, t in tensors.items():
        if not t.requires_grad:
            continue
        t.register_hook(lambda grad, name=name: log.append(f"tensor hook {name}"))
        node = t.grad_fn
        if node is None:  # a leaf: its node is the AccumulateGrad behind the first use
            t.register_post_accumulate_grad_hook(
                lambda p, name=name: log.append(f"post-accumulate-grad hook {name}")
            )
            continue
        for fn, _ in [(node, 0), *node.next_functions]:
            if fn is None or id(fn) in done:
                continue
            done.add(id(fn))
            label = node_name(fn)
            fn.register_prehook(lambda gout, label=label: log.append(f"pre-hook {label}"))
            fn.register_hook(lambda gin, gout, label=label: log.append(f"post-hook {label}"))
    out.sum().backward()
    return log


def diamond(lib: Any) -> dict[str, Any]:
    """The diamond of the chapter (section 4): ``h = x * 3`` feeds ``exp`` and ``cos``."""
    x = lib.tensor([0.5, 1.0], requires_grad=True)
    h = x * 3
    l_ = h.exp()
    r = h.cos()
    return {"x": x, "h": h, "l": l_, "r": r, "out": l_ + r}


# ---- torch beside your engine -----------------------------------------------------------------


def _svg(dot: Any) -> str:
    """The drawing as inline SVG, or its DOT source if the ``dot`` program is missing."""
    try:
        svg = dot.pipe(format="svg").decode()
        return svg[svg.index("<svg") :]
    except Exception:  # noqa: BLE001 - no graphviz binary: show the source instead
        return f"<pre>{html.escape(dot.source)}</pre>"


def _error(exc: BaseException) -> str:
    if isinstance(exc, NotImplementedError):
        text = f"not implemented yet: {exc}"
        return f"<div style='color:#9a6700'>{html.escape(text)}</div>"
    text = f"{type(exc).__name__}: {exc}"
    return f"<div style='color:#cf222e'>{html.escape(text)}</div>"


def _engine(week: str, impl: str | None) -> Any:
    from autograder.notebook import mine

    return mine(week, impl)


def _panels(title: str, left: str, right: str, css: str) -> HTML:
    return HTML(
        f"<div class='{css}'>"
        f"<div style='font-family:monospace;font-weight:bold'>{html.escape(title)}</div>"
        "<div style='display:flex;gap:32px;flex-wrap:wrap;align-items:flex-start'>"
        f"<div><div><b>torch</b></div>{left}</div>"
        f"<div><div><b>yours</b></div>{right}</div></div></div>"
    )


def graph_side_by_side(
    build: Callable[[Any], Any],
    title: str = "",
    *,
    show_saved: bool = False,
    week: str = "week3",
    impl: str | None = None,
) -> HTML:
    """``torchviz.make_dot`` of ``build(torch)`` beside ``draw_graph`` of ``build(your
    module)``, with the path backward walks under each."""
    import torch

    def side(lib: Any, torch_side: bool) -> str:
        try:
            out = build(lib)
            if torch_side:
                from torchviz import make_dot

                dot = make_dot(out, show_saved=show_saved)
            else:
                dot = draw_graph(out, show_saved=show_saved)
            path = "\n".join(backward_path(out))
            return f"{_svg(dot)}<pre>{html.escape(path)}</pre>"
        except Exception as exc:  # noqa: BLE001 - shown, not raised
            return _error(exc)

    try:
        theirs = side(_engine(week, impl), torch_side=False)
    except Exception as exc:  # noqa: BLE001 - a broken lab file is shown, not raised
        theirs = _error(exc)
    return _panels(title, side(torch, torch_side=True), theirs, "torchlab-graph")


def timeline_side_by_side(
    build: Callable[[Any], dict[str, Any]] = diamond,
    title: str = "the diamond: what backward runs, in order",
    *,
    week: str = "week3",
    impl: str | None = None,
) -> HTML:
    """``node_timeline`` for torch beside the one for your engine, line by line; lines that
    differ are marked in red."""
    import torch

    def attempt(lib: Any) -> tuple[list[str] | None, str]:
        try:
            return node_timeline(lib, build), ""
        except Exception as exc:  # noqa: BLE001 - shown, not raised
            return None, _error(exc)

    ours, ours_err = attempt(torch)
    try:
        theirs, theirs_err = attempt(_engine(week, impl))
    except Exception as exc:  # noqa: BLE001
        theirs, theirs_err = None, _error(exc)

    def column(lines: list[str] | None, err: str, other: list[str] | None) -> str:
        if lines is None:
            return err
        rows = []
        for i, line in enumerate(lines):
            same = other is not None and i < len(other) and other[i] == line
            color = "#1a7f37" if same or other is None else "#cf222e"
            rows.append(f"<div style='color:{color}'>{i + 1:2d}. {html.escape(line)}</div>")
        return f"<div style='font-family:monospace'>{''.join(rows)}</div>"

    verdict = ""
    if ours is not None and theirs is not None:
        verdict = (
            "<p style='color:#1a7f37'>Same order as torch.</p>"
            if ours == theirs
            else "<p style='color:#cf222e'>Different order: the first red line is the first "
            "difference.</p>"
        )
    panels = _panels(
        title,
        column(ours, ours_err, theirs),
        column(theirs, theirs_err, ours),
        "torchlab-timeline",
    )
    return HTML(panels.text + verdict)
