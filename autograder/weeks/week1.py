"""Week 1 cases: strides and views, each compared with real torch.

Every case is written once against ``lib`` (real torch, or the engine under test). Cases name
the tasks they check (``tasks="1.4"`` is Task 1.4 in ``labs/week1_strides/strides.py``).
"""

from __future__ import annotations

from typing import Any

from autograder import attempt, case, observe, shares_storage

W = "week1"


def _torch_empty_aligned(torch: Any, *size: Any, dtype: Any = None, align: int = 32) -> Any:
    """The trusted construction of a row-aligned layout: pad each row, then narrow it back.

    Every row of ``torch.empty(rows, pitch)`` starts ``pitch * itemsize`` bytes after the
    last one; slicing ``[..., :cols]`` keeps that pitch as ``stride(-2)``.
    """
    if len(size) == 1 and isinstance(size[0], list | tuple):
        size = tuple(size[0])
    dtype = dtype or torch.float32
    itemsize = torch.empty((), dtype=dtype).element_size()
    if align <= 0 or align % itemsize:
        raise ValueError(f"align must be a positive multiple of the element size {itemsize}")
    per_row = align // itemsize
    pitch = -(-size[-1] // per_row) * per_row
    return torch.empty(*size[:-1], pitch, dtype=dtype)[..., : size[-1]]


# Names the torch side of a week-1 case may use that torch itself does not have.
TORCH_EXTRAS = {"empty_aligned": _torch_empty_aligned}


# --- Task 1.1 / 1.2 / 1.3: a fresh tensor, its strides, its values --------------------------


@case(W, points=1, tasks=("1.1", "1.2", "1.3"))
def arange_is_contiguous(lib):
    """A fresh tensor is row-major: the last dim has stride 1."""
    return observe(lib.arange(24).view(2, 3, 4))


# --- Task 1.5: permute, transpose, t --------------------------------------------------------


@case(W, points=2, tasks="1.5")
def transpose_then_view(lib):
    """t() swaps strides; the result is a view but no longer contiguous, so view() fails."""
    x = lib.arange(12).view(3, 4)
    y = x.t()
    return {
        "x.t()": observe(y),
        "shares storage": shares_storage(x, y),
        "x.t().view(12)": attempt(lambda: y.view(12)),
    }
