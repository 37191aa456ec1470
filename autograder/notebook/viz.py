"""Drawings for the notebooks, for torch and for a learner's engine alike.

Week 1: how a view maps onto its storage. Only the public API both share is used (shape,
stride(), storage_offset(), element_size(), untyped_storage().nbytes()), so a learner can draw
their own engine's views next to torch's.

Week 2: an operator's computed dispatch table and the chain of kernels one call runs, drawn
as SVG by graphviz's ``dot`` (run with a timeout), or as a plain HTML table with a one-line
note when ``dot`` is missing or fails. Nothing here ever raises.
"""

from __future__ import annotations

import html
import itertools
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any


class HTML:
    """Minimal rich-display object (Jupyter calls _repr_html_)."""

    def __init__(self, text: str) -> None:
        self.text = text

    def _repr_html_(self) -> str:
        return self.text


def element_offsets(t: Any) -> dict[tuple[int, ...], int]:
    """Every index of ``t`` and the storage element it reads: offset + sum(i_k * stride_k)."""
    shape, stride, base = list(t.shape), list(t.stride()), int(t.storage_offset())
    return {
        idx: base + sum(i * s for i, s in zip(idx, stride, strict=True))
        for idx in itertools.product(*(range(n) for n in shape))
    }


_PALETTE = ["#dbeafe", "#fde68a", "#bbf7d0", "#fecaca", "#e9d5ff", "#fed7aa", "#a5f3fc"]


def show_storage(t: Any, name: str = "x", max_cells: int = 64) -> HTML:
    """The storage as a row of cells, each labelled with the indices of ``t`` that read it.

    A cell read by several indices (expand, overlapping as_strided) is outlined in red; a
    cell no index reads (padding, a narrowed-away part) is left grey.
    """
    offsets = element_offsets(t)
    n_cells = int(t.untyped_storage().nbytes()) // int(t.element_size())
    readers: dict[int, list[tuple[int, ...]]] = {}
    for idx, off in offsets.items():
        readers.setdefault(off, []).append(idx)
    cells = []
    for off in range(min(n_cells, max_cells)):
        who = readers.get(off, [])
        color = _PALETTE[who[0][0] % len(_PALETTE)] if who and who[0] else "#dbeafe"
        color = color if who else "#f3f4f6"
        border = "2px solid #cf222e" if len(who) > 1 else "1px solid #9ca3af"
        label = "<br>".join(html.escape(str(list(i))) for i in who[:3]) + (
            "…" if len(who) > 3 else ""
        )
        cells.append(
            f"<td style='background:{color};border:{border};padding:2px 4px;"
            f"font-size:11px;text-align:center;vertical-align:top'>"
            f"<div style='color:#6b7280'>{off}</div>{label}</td>"
        )
    more = f"<td>… {n_cells - max_cells} more</td>" if n_cells > max_cells else ""
    caption = (
        f"{html.escape(name)}: shape {tuple(t.shape)}, stride {tuple(t.stride())}, "
        f"offset {int(t.storage_offset())} over a storage of {n_cells} elements"
    )
    return HTML(
        f"<div class='torchlab-storage'><div style='font-family:monospace'>{caption}</div>"
        f"<table style='border-collapse:collapse'><tr>{''.join(cells)}{more}</tr></table></div>"
    )


# ---- the chunk rule of view (Task 1.4), step by step ---------------------------------------------


@dataclass
class ViewChunk:
    """One step of the chunk rule: a run of old dims laid out back to back, and the new dims
    handed to it. Dims are listed outermost first."""

    old_dims: list[int]
    old_sizes: list[int]
    old_strides: list[int]
    base_stride: int  # the stride of the chunk's innermost dim: its new dims count in it
    new_dims: list[int] = field(default_factory=list)
    new_sizes: list[int] = field(default_factory=list)
    new_strides: list[int] = field(default_factory=list)

    @property
    def numel(self) -> int:
        return math.prod(self.old_sizes)

    @property
    def new_numel(self) -> int:
        return math.prod(self.new_sizes)

    @property
    def ok(self) -> bool:
        return self.new_numel == self.numel


@dataclass
class ViewPlan:
    """How ``view(new_shape)`` goes for a layout: its chunks and, if it works, the new strides.
    ``note`` explains a case the chunk rule does not decide (wrong element count, empty)."""

    shape: tuple[int, ...]
    stride: tuple[int, ...]
    new_shape: tuple[int, ...]
    chunks: list[ViewChunk] = field(default_factory=list)  # in the order they are walked
    new_stride: tuple[int, ...] | None = None
    note: str = ""


def view_plan(shape: Sequence[int], stride: Sequence[int], new_shape: Sequence[int]) -> ViewPlan:
    """The chunk rule of ``view`` (aten/src/ATen/TensorUtils.cpp: computeStride_impl), keeping
    every step so it can be drawn. Walk the old dims from the right: a dim starts a new chunk
    unless its stride is exactly (elements in the chunk so far) * (the chunk's base stride);
    size-1 dims never start one. Each chunk then takes new dims from the right (size-1 dims
    included) until they hold as many elements as the chunk; if they overshoot, a new dim
    would span two chunks and the view is impossible."""
    shape, stride, wanted = tuple(shape), tuple(stride), tuple(new_shape)
    numel = math.prod(shape)
    plan = ViewPlan(shape, stride, wanted)
    known = math.prod(s for s in wanted if s != -1)
    if wanted.count(-1) == 1 and known > 0 and numel % known == 0:
        wanted = tuple(numel // known if s == -1 else s for s in wanted)
        plan.new_shape = wanted
    if any(s < 0 for s in wanted) or math.prod(wanted) != numel:
        plan.note = (
            f"view{wanted} fails before the chunk rule: the new shape has {math.prod(wanted)} "
            f"elements, the tensor {numel}"
            if all(s >= 0 for s in wanted)
            else f"view{wanted} fails before the chunk rule: that shape is not valid here"
        )
        return plan
    if not shape:
        plan.new_stride = (1,) * len(wanted)
        plan.note = "a 0-d tensor has one element: every new dim gets stride 1"
        return plan
    if numel == 0:
        plan.new_stride = stride if shape == wanted else _row_major(wanted)
        plan.note = (
            "an empty tensor has no elements to keep in place: view keeps the strides when the "
            "shape is unchanged, and otherwise uses row-major strides (sizes of 0 count as 1)"
        )
        return plan
    new_stride = [0] * len(wanted)
    view_d = len(wanted) - 1
    chunk = ViewChunk([], [], [], stride[-1])
    for d in range(len(shape) - 1, -1, -1):
        chunk.old_dims.insert(0, d)
        chunk.old_sizes.insert(0, shape[d])
        chunk.old_strides.insert(0, stride[d])
        ends = d == 0 or (shape[d - 1] != 1 and stride[d - 1] != chunk.numel * chunk.base_stride)
        if not ends:
            continue
        plan.chunks.append(chunk)
        while view_d >= 0 and (chunk.new_numel < chunk.numel or wanted[view_d] == 1):
            new_stride[view_d] = chunk.new_numel * chunk.base_stride
            chunk.new_dims.insert(0, view_d)
            chunk.new_sizes.insert(0, wanted[view_d])
            chunk.new_strides.insert(0, new_stride[view_d])
            view_d -= 1
        if not chunk.ok:
            return plan
        if d > 0:
            chunk = ViewChunk([], [], [], stride[d - 1])
    if view_d == -1:
        plan.new_stride = tuple(new_stride)
    else:
        plan.note = f"new dims 0..{view_d} are left over with no chunk to take them"
    return plan


def _row_major(shape: Sequence[int]) -> tuple[int, ...]:
    out, step = [], 1
    for size in reversed(shape):
        out.insert(0, step)
        step *= max(size, 1)
    return tuple(out)


def _cell(text: object, color: str = "#ffffff", bold: bool = False) -> str:
    weight = "font-weight:bold;" if bold else ""
    return (
        f"<td style='background:{color};border:1px solid #9ca3af;padding:2px 8px;"
        f"text-align:center;{weight}'>{html.escape(str(text))}</td>"
    )


def _dims_table(rows: list[tuple[str, list[object], list[str]]]) -> str:
    """A small table: one labelled row per list, each value in its own colored cell."""
    body = []
    for label, values, colors in rows:
        cells = "".join(_cell(v, c) for v, c in zip(values, colors, strict=True))
        body.append(
            f"<tr><th style='text-align:right;padding-right:8px;font-weight:normal'>"
            f"{html.escape(label)}</th>{cells}</tr>"
        )
    return f"<table style='border-collapse:collapse;margin:4px 0'>{''.join(body)}</table>"


_BAD = "#fecaca"


def show_view_steps(t: Any, new_shape: Sequence[int] | int, name: str = "x") -> HTML:
    """Draws how ``t.view(new_shape)`` is decided: the old dims grouped into chunks (one color
    each), then one small table per chunk showing which new dims it takes and the strides they
    get, and where it fails if a new dim would have to span two chunks. Works on any object
    with ``shape`` and ``stride()`` (torch tensors and your engine's alike)."""
    try:
        wanted = (new_shape,) if isinstance(new_shape, int) else tuple(new_shape)
        plan = view_plan(tuple(t.shape), tuple(t.stride()), wanted)
        return HTML(render_view_plan(plan, name))
    except Exception as exc:  # noqa: BLE001 - a drawing never stops the notebook
        return HTML(
            f"<span style='color:#cf222e'>{html.escape(f'{type(exc).__name__}: {exc}')}</span>"
        )


def render_view_plan(plan: ViewPlan, name: str = "x") -> str:
    """The HTML of :func:`show_view_steps` for an already computed plan."""
    title = (
        f"{html.escape(name)}: shape {plan.shape}, stride {plan.stride} "
        f"&rarr; view{tuple(plan.new_shape)}"
    )
    parts = [f"<div style='font-family:monospace;font-weight:bold'>{title}</div>"]
    color_of_old: dict[int, str] = {}
    color_of_new: dict[int, str] = {}
    for k, chunk in enumerate(plan.chunks):
        color = _PALETTE[k % len(_PALETTE)]
        for d in chunk.old_dims:
            color_of_old[d] = color
        for d in chunk.new_dims:
            color_of_new[d] = color if chunk.ok else _BAD
    n_old, n_new = range(len(plan.shape)), range(len(plan.new_shape))
    if plan.chunks:
        parts.append(
            "<div>The whole picture: old dims colored by chunk, and the new dims each chunk "
            "takes (red: the dim that does not fit; white: never reached).</div>"
        )
        parts.append(
            _dims_table(
                [
                    ("old dim", list(n_old), [color_of_old.get(d, "#fff") for d in n_old]),
                    ("size", list(plan.shape), [color_of_old.get(d, "#fff") for d in n_old]),
                    ("stride", list(plan.stride), [color_of_old.get(d, "#fff") for d in n_old]),
                ]
            )
        )
        parts.append(
            _dims_table(
                [
                    ("new dim", list(n_new), [color_of_new.get(d, "#fff") for d in n_new]),
                    ("size", list(plan.new_shape), [color_of_new.get(d, "#fff") for d in n_new]),
                ]
            )
        )
    for k, chunk in enumerate(plan.chunks):
        color = _PALETTE[k % len(_PALETTE)]
        dims = ", ".join(map(str, chunk.old_dims))
        many = len(chunk.old_dims) > 1
        count = (
            f"{' &times; '.join(map(str, chunk.old_sizes))} = {chunk.numel}"
            if many
            else chunk.numel
        )
        lead = (
            f"<b>Step {k + 1}.</b> Chunk of old dim{'s' if many else ''} {dims}: {count} elements "
            f"laid out back to back, base stride {chunk.base_stride}."
        )
        if many:
            lead += (
                " They join: each has stride (elements to its right in the chunk) &times; (base "
                "stride), or size 1 (a size-1 dim never cuts a chunk)."
            )
        first = chunk.old_dims[0]
        if first > 0:
            prev, need = first - 1, chunk.numel * chunk.base_stride
            lead += (
                f" Old dim {prev} does not join: its stride is {plan.stride[prev]}, not "
                f"{chunk.numel} &times; {chunk.base_stride} = {need}."
            )
        rows: list[tuple[str, list[object], list[str]]] = [
            ("old dim", list(chunk.old_dims), [color] * len(chunk.old_dims)),
            ("size", list(chunk.old_sizes), [color] * len(chunk.old_dims)),
            ("stride", list(chunk.old_strides), [color] * len(chunk.old_dims)),
        ]
        new_color = color if chunk.ok else _BAD
        rows_new: list[tuple[str, list[object], list[str]]] = [
            ("new dim", list(chunk.new_dims), [new_color] * len(chunk.new_dims)),
            ("size", list(chunk.new_sizes), [new_color] * len(chunk.new_dims)),
            ("new stride", list(chunk.new_strides), [new_color] * len(chunk.new_dims)),
        ]
        if chunk.ok and not chunk.new_dims:
            verdict = (
                "<span style='color:#1a7f37'>&#10003; this chunk holds a single element: it "
                "needs no new dim.</span>"
            )
        elif chunk.ok:
            which = (
                f"new dims {', '.join(map(str, chunk.new_dims))} hold"
                if len(chunk.new_dims) > 1
                else f"new dim {chunk.new_dims[0]} holds"
            )
            verdict = (
                f"<span style='color:#1a7f37'>&#10003; {which} exactly {chunk.numel} elements, "
                f"so the chunk is split cleanly; the new strides count up from the base stride "
                f"{chunk.base_stride}.</span>"
            )
        elif not chunk.new_dims:
            verdict = (
                "<span style='color:#cf222e'>&#10007; no new dims are left for this chunk.</span>"
            )
        else:
            last = chunk.new_dims[0]
            verdict = (
                f"<span style='color:#cf222e'>&#10007; the new dims reach {chunk.new_numel} "
                f"elements, not {chunk.numel}: new dim {last} (size {plan.new_shape[last]}) would "
                f"have to span this chunk and the next one, which no single stride can do. "
                f"The view fails (reshape would copy).</span>"
            )
        parts.append(
            "<div style='margin-top:8px'>"
            f"<div>{lead}</div>{_dims_table(rows)}"
            f"<div>takes new dims from the right until they hold {chunk.numel} elements:</div>"
            f"{_dims_table(rows_new) if chunk.new_dims else ''}<div>{verdict}</div></div>"
        )
    if plan.note:
        parts.append(f"<div style='margin-top:8px'>{html.escape(plan.note)}.</div>")
    if plan.new_stride is not None:
        parts.append(
            f"<div style='margin-top:8px;color:#1a7f37;font-weight:bold'>view{plan.new_shape} "
            f"works: stride {plan.new_stride}, same storage, same offset.</div>"
        )
    else:
        parts.append(
            "<div style='margin-top:8px;color:#cf222e;font-weight:bold'>"
            f"view{plan.new_shape} is impossible: RuntimeError.</div>"
        )
    return f"<div class='torchlab-view-steps'>{''.join(parts)}</div>"


# ---- the dispatcher (week 2): an operator's computed table, and the kernels one call runs ------


@dataclass
class TableEntry:
    """One slot of an operator's computed dispatch table: which kernel fills the slot of
    ``key``, and why (``kind``: "kernel", "default backend kernel", "math kernel", "autograd
    kernel", "backend fallback", ... as torch's ``computeDispatchTableEntryWithDebug`` says)."""

    key: str
    kind: str
    kernel: str = ""  # where it was registered (torch), or the kernel's name (an engine)
    fallthrough: bool = False


def parse_dispatch_table(text: str) -> dict[str, TableEntry]:
    """``_dispatch_dump_table`` text (torch's or an engine's) as table entries, for the week's
    runtime keys. The parsing is the week-2 cases' own (``parse_table``), so the pictures
    and the checks read the table the same way."""
    from autograder.weeks.week2.common import parse_table

    return {k: _entry(k, kind) for k, kind in parse_table(text).items()}


def torch_kernel_sources(op: str, keys: Sequence[str]) -> dict[str, str]:
    """Where torch registered the kernel that fills each slot of ``op``'s computed table
    ("RegisterCPU_0.cpp:1297"), from ``_dispatch_get_computed_kernel_for_dispatch_key``;
    keys with no kernel are left out."""
    import torch

    out = {}
    for k in keys:
        try:
            debug = repr(torch._C._dispatch_get_computed_kernel_for_dispatch_key(op, k))
        except Exception:  # noqa: BLE001 - no kernel for this key
            continue
        if m := re.search(r"([\w.]+\.(?:cpp|py|h):\d+)", debug):
            out[k] = m.group(1)
    return out


def _entry(key: Any, value: Any) -> TableEntry:
    """A table slot from whatever an engine gives: an entry-like object, a (kernel, kind)
    pair, a kind string, or a kernel (a callable, drawn by its name)."""
    name = getattr(key, "name", None) or str(key)
    name = name.rsplit(".", 1)[-1] if name.startswith("DispatchKey.") else name
    if isinstance(value, TableEntry):
        return TableEntry(name, value.kind, value.kernel, value.fallthrough)
    if isinstance(value, str):
        through = value.startswith("fallthrough ")
        return TableEntry(name, value.removeprefix("fallthrough "), "", through)
    if isinstance(value, tuple | list) and len(value) == 2:
        kernel, kind = value
        return TableEntry(name, str(kind), _kernel_name(kernel), "fallthrough" in str(kind))
    kind = getattr(value, "kind", None) or getattr(value, "debug", None) or ""
    kernel = getattr(value, "kernel", value)
    fall = bool(getattr(value, "fallthrough", False) or getattr(kernel, "fallthrough", False))
    return TableEntry(name, str(kind), _kernel_name(kernel), fall)


def _kernel_name(kernel: Any) -> str:
    if kernel is None:
        return ""
    for attr in ("name", "debug", "__qualname__", "__name__"):
        value = getattr(kernel, attr, None)
        if isinstance(value, str) and value:
            return value
    return str(kernel)[:60]


def _table_entries(table: Any) -> list[TableEntry]:
    if isinstance(table, str):
        return list(parse_dispatch_table(table).values())
    if hasattr(table, "items"):
        return [_entry(k, v) for k, v in table.items()]
    return [v if isinstance(v, TableEntry) else _entry(*v) for v in table]


_KIND_COLORS = {
    "kernel": "#bbf7d0",
    "default backend kernel": "#dbeafe",
    "math kernel": "#e9d5ff",
    "autograd kernel": "#fde68a",
    "backend fallback": "#fed7aa",
    "fallthrough": "#f3f4f6",
    "missing": "#fecaca",
}


def _kind_color(entry: TableEntry) -> str:
    if entry.fallthrough:
        return _KIND_COLORS["fallthrough"]
    return _KIND_COLORS.get(entry.kind, "#ffffff")


def _render_dot(source: str, timeout: float = 10.0) -> str | None:
    """SVG from graphviz's ``dot``, or None when it is missing, slow or fails."""
    import shutil
    import subprocess

    dot = shutil.which("dot")
    if not dot:
        return None
    try:
        run = subprocess.run(
            [dot, "-Tsvg"], input=source, capture_output=True, text=True, timeout=timeout
        )
    except (OSError, subprocess.SubprocessError):
        return None
    if run.returncode != 0 or "<svg" not in run.stdout:
        return None
    return run.stdout[run.stdout.index("<svg") :]


def _dot_text(text: object) -> str:
    """Text for a graphviz HTML-like label."""
    return html.escape(str(text), quote=True)


def _fallback_note(what: str) -> str:
    return (
        f"<div style='color:#6b7280'>graphviz's <code>dot</code> is not available here, so "
        f"{html.escape(what)} is drawn as a plain table.</div>"
    )


def _error_html(cls: str, text: str) -> HTML:
    return HTML(f"<div class='{cls}'><span style='color:#cf222e'>{html.escape(text)}</span></div>")


def draw_dispatch_table(
    table: Any,
    op: str = "",
    keys: Sequence[str] | None = None,
    *,
    title: str = "",
    sources: dict[str, str] | None = None,
) -> HTML:
    """Draws an operator's computed dispatch table: one row per runtime key, highest priority
    first as torch lists it, with why the slot is filled (its kind) and, when known, by which
    kernel; colored by kind, fallthroughs grey. ``table`` is ``_dispatch_dump_table`` text
    (torch's or an engine's), a mapping from keys to kinds ("fallthrough backend fallback"),
    to (kernel, kind) pairs or to entries. ``keys`` keeps only those keys, in that order;
    ``sources`` names the kernel of a key (:func:`torch_kernel_sources`).
    Rendered as SVG with graphviz's ``dot``; without it, as an HTML table. Never raises."""
    try:
        entries = _table_entries(table)
        if keys is not None:
            by_key = {e.key: e for e in entries}
            entries = [by_key.get(k) or TableEntry(k, "missing") for k in keys]
        entries = [replace(e, kernel=(sources or {}).get(e.key, e.kernel)) for e in entries]
        name = title or (f"{op}: computed dispatch table" if op else "computed dispatch table")
        rows = "".join(
            f"<TR><TD ALIGN='LEFT' BGCOLOR='{_kind_color(e)}'><B>{_dot_text(e.key)}</B></TD>"
            f"<TD ALIGN='LEFT' BGCOLOR='{_kind_color(e)}'>"
            f"{_dot_text(('fallthrough ' if e.fallthrough else '') + (e.kind or '?'))}</TD>"
            f"<TD ALIGN='LEFT' BGCOLOR='{_kind_color(e)}'>{_dot_text(e.kernel or ' ')}</TD></TR>"
            for e in entries
        )
        dot = (
            "digraph table { node [shape=plaintext fontname=Helvetica fontsize=11];\n"
            f"t [label=<<TABLE BORDER='0' CELLBORDER='1' CELLSPACING='0' CELLPADDING='4'>"
            f"<TR><TD COLSPAN='3'><B>{_dot_text(name)}</B></TD></TR>"
            "<TR><TD><I>key</I></TD><TD><I>kind</I></TD><TD><I>kernel</I></TD></TR>"
            f"{rows}</TABLE>>]; }}\n"
        )
        svg = _render_dot(dot)
        body = (
            svg
            if svg is not None
            else _fallback_note("the table")
            + _html_table(
                name,
                ["key", "kind", "kernel"],
                [
                    (
                        [e.key, ("fallthrough " if e.fallthrough else "") + e.kind, e.kernel],
                        _kind_color(e),
                    )
                    for e in entries
                ],
            )
        )
        return HTML(f"<div class='torchlab-dispatch-table'>{body}</div>")
    except Exception as exc:  # noqa: BLE001 - a drawing never stops the notebook
        return _error_html(
            "torchlab-dispatch-table",
            f"this table cannot be drawn ({type(exc).__name__}: {exc})",
        )


def _html_table(caption: str, head: list[str], rows: list[tuple[list[object], str]]) -> str:
    cells = "".join(
        "<tr>"
        + "".join(
            f"<td style='background:{color};border:1px solid #9ca3af;padding:2px 8px'>"
            f"{html.escape(str(v))}</td>"
            for v in values
        )
        + "</tr>"
        for values, color in rows
    )
    heads = "".join(
        f"<th style='border:1px solid #9ca3af;padding:2px 8px'>{html.escape(h)}</th>" for h in head
    )
    return (
        f"<table style='border-collapse:collapse'><caption style='font-weight:bold'>"
        f"{html.escape(caption)}</caption><tr>{heads}</tr>{cells}</table>"
    )


def _chain_step(step: Any) -> tuple[str, str]:
    """(key, kernel) for one step of a chain: a key, a (key, kernel) pair, or an object
    with ``key`` and ``kernel``."""
    if isinstance(step, tuple | list) and len(step) == 2:
        key, kernel = step
    elif hasattr(step, "key"):
        key, kernel = step.key, getattr(step, "kernel", "")
    else:
        key, kernel = step, ""
    name = getattr(key, "name", None) or str(key)
    name = name.rsplit(".", 1)[-1] if name.startswith("DispatchKey.") else name
    return name, _kernel_name(kernel) if kernel else ""


def draw_kernel_chain(chain: Any, op: str = "", *, title: str = "") -> HTML:
    """Draws the kernels one call runs, in order: the call, then each kernel (its key and,
    when known, which kernel), joined by "redispatch" arrows. ``chain`` is a list of keys,
    (key, kernel) pairs, or objects with ``key`` and ``kernel``. SVG through graphviz's
    ``dot``; without it, an HTML table. Never raises."""
    try:
        steps = [_chain_step(s) for s in chain]
        name = title or (
            f"the kernels one call of {op} runs" if op else "the kernels one call runs"
        )
        lines = [
            'digraph chain { rankdir=LR; node [shape=box style="rounded,filled" '
            'fontname=Helvetica fontsize=11 fillcolor="#ffffff"]; edge [fontname=Helvetica '
            "fontsize=9];",
            f"labelloc=t; label=<<B>{_dot_text(name)}</B>>;",
            f'call [label=<{_dot_text(op or "call")}> fillcolor="#f3f4f6"];',
        ]
        previous = "call"
        for i, (key, kernel) in enumerate(steps, 1):
            color = (
                _KIND_COLORS["autograd kernel"]
                if key.startswith("Autograd")
                else (
                    _KIND_COLORS["kernel"]
                    if i == len(steps)
                    else _KIND_COLORS["default backend kernel"]
                )
            )
            detail = f"<BR/><FONT POINT-SIZE='9'>{_dot_text(kernel)}</FONT>" if kernel else ""
            lines.append(
                f'k{i} [label=<{i}. <B>{_dot_text(key)}</B>{detail}> fillcolor="{color}"];'
            )
            label = "dispatch" if i == 1 else "redispatch"
            lines.append(f'{previous} -> k{i} [label="{label}"];')
            previous = f"k{i}"
        if not steps:
            lines.append('none [label="no kernel ran" fillcolor="#fecaca"]; call -> none;')
        lines.append("}")
        svg = _render_dot("\n".join(lines))
        if svg is not None:
            body = svg
        else:
            body = _fallback_note("the chain") + _html_table(
                name,
                ["#", "key", "kernel"],
                [([i, key, kernel], "#ffffff") for i, (key, kernel) in enumerate(steps, 1)],
            )
        return HTML(f"<div class='torchlab-kernel-chain'>{body}</div>")
    except Exception as exc:  # noqa: BLE001 - a drawing never stops the notebook
        return _error_html(
            "torchlab-kernel-chain", f"this chain cannot be drawn ({type(exc).__name__}: {exc})"
        )
