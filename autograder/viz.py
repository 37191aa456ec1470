"""Drawings of how a view maps onto its storage, for torch tensors and engine tensors alike.

Only the public API both share is used (shape, stride(), storage_offset(), element_size(),
untyped_storage().nbytes()), so a learner can draw their own engine's views next to torch's.
"""

from __future__ import annotations

import html
import itertools
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
        f"<div><div style='font-family:monospace'>{caption}</div>"
        f"<table style='border-collapse:collapse'><tr>{''.join(cells)}{more}</tr></table></div>"
    )
