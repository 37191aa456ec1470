"""Drawings of how a view maps onto its storage, for torch tensors and engine tensors alike.

Only the public API both share is used (shape, stride(), storage_offset(), element_size(),
untyped_storage().nbytes()), so a learner can draw their own engine's views next to torch's.
"""

from __future__ import annotations

import html
import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
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
