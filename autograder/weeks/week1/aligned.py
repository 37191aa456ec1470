"""Week 1 cases. Task 1.13: a layout whose rows start on 32-byte boundaries."""

from __future__ import annotations

from autograder import attempt, case, observe, shares_storage
from autograder.observe import guard
from autograder.weeks.week1.common import (
    W,
    _aligned_report,
)

# --- Task 1.13: the 32-byte aligned layout --------------------------------------------------


@case(W, points=2, tasks=("1.1", "1.3", "1.4", "1.6", "1.13"))
def aligned_layout_strides(lib):
    """Each row is padded to a multiple of 32 bytes: the pitch depends on the element size."""
    layouts = {
        "packed: arange(15.).view(3, 5)": lambda: lib.arange(15.0).view(3, 5),
        "empty_aligned(3, 5)": lambda: lib.empty_aligned(3, 5),
        "empty_aligned(3, 5, dtype=float64)": lambda: lib.empty_aligned(3, 5, dtype=lib.float64),
        "empty_aligned(3, 4, dtype=int64) (exact)": lambda: lib.empty_aligned(
            3, 4, dtype=lib.int64
        ),
        "empty_aligned(3, 8) (exact)": lambda: lib.empty_aligned(3, 8),
        "empty_aligned(3, 9)": lambda: lib.empty_aligned(3, 9),
        "empty_aligned(4, 9, dtype=float64)": lambda: lib.empty_aligned(4, 9, dtype=lib.float64),
        "empty_aligned(2, 7, dtype=int64)": lambda: lib.empty_aligned(2, 7, dtype=lib.int64),
        "empty_aligned(3, 1)": lambda: lib.empty_aligned(3, 1),
        "empty_aligned(1, 5) (padded, yet contiguous)": lambda: lib.empty_aligned(1, 5),
        "empty_aligned((2, 3, 5))": lambda: lib.empty_aligned((2, 3, 5)),
        "empty_aligned(5)": lambda: lib.empty_aligned(5),
        "empty_aligned(3, 5, align=64)": lambda: lib.empty_aligned(3, 5, align=64),
        "empty_aligned(3, 5, align=6) (not a multiple of 4)": lambda: lib.empty_aligned(
            3, 5, align=6
        ),
        "empty_aligned(3, 5, align=0)": lambda: lib.empty_aligned(3, 5, align=0),
    }
    return {k: attempt(make, values=False, storage=True) for k, make in layouts.items()}


@case(W, points=2, tasks=("1.1", "1.4", "1.6", "1.13"))
def aligned_rows_start_on_32_bytes(lib):
    """Row starts (offset + index * stride) * itemsize are multiples of 32, also for row views."""
    packed = lib.arange(15.0).view(3, 5)
    a = lib.empty_aligned(3, 5)
    d = lib.empty_aligned(4, 3, dtype=lib.float64)
    c = lib.empty_aligned(2, 3, 7, dtype=lib.int64)
    return {
        "packed float32 (3, 5)": guard(lambda: _aligned_report(packed)),
        "float32 (3, 5)": guard(lambda: _aligned_report(a)),
        "float64 (4, 3)": guard(lambda: _aligned_report(d)),
        "int64 (2, 3, 7)": guard(lambda: _aligned_report(c)),
        "a[1:]": guard(lambda: _aligned_report(a[1:])),
        "d[::2]": guard(lambda: _aligned_report(d[::2])),
        "c[1]": guard(lambda: _aligned_report(c[1])),
        "a[:, 1:] (column slice)": guard(lambda: _aligned_report(a[:, 1:])),
    }


@case(
    W,
    points=3,
    tasks=("1.1", "1.2", "1.3", "1.4", "1.5", "1.6", "1.7", "1.8", "1.10", "1.11", "1.12", "1.13"),
)
def aligned_views_and_copies(lib):
    """On a padded layout t() and row slices are views, view(-1) fails, reshape(-1) copies.

    ``a.copy_(packed)`` fills the logical elements only; the padding is never read.
    """
    packed = lib.arange(15.0).view(3, 5)
    a = lib.empty_aligned(3, 5)
    a.copy_(packed)
    exact = lib.empty_aligned(2, 8)
    exact.fill_(3)
    return {
        "packed": observe(packed, storage=True),
        "a after a.copy_(packed)": observe(a, storage=True),
        "a.t()": attempt(lambda: a.t(), storage=True),
        "a.t() shares storage": attempt(lambda: shares_storage(a.t(), a)),
        "a[1:]": attempt(lambda: a[1:], storage=True),
        "a[:, :3]": attempt(lambda: a[:, :3]),
        "a.view(3, 1, 5)": attempt(lambda: a.view(3, 1, 5)),
        "a.view(-1)": attempt(lambda: a.view(-1)),
        "a.reshape(-1)": attempt(lambda: a.reshape(-1), storage=True),
        "a.reshape(-1) shares storage": attempt(lambda: shares_storage(a.reshape(-1), a)),
        "a.contiguous()": attempt(lambda: a.contiguous(), storage=True),
        "a.contiguous() shares storage": attempt(lambda: shares_storage(a.contiguous(), a)),
        "a.flatten()": attempt(lambda: a.flatten(), storage=True),
        "a + 1": attempt(lambda: a + 1, storage=True),
        "a.unsqueeze(0).view(3, 5)": attempt(lambda: a.unsqueeze(0).view(3, 5)),
        "empty_aligned(2, 3, 5).view(6, 5)": attempt(
            lambda: lib.empty_aligned(2, 3, 5).view(6, 5), values=False, storage=True
        ),
        "empty_aligned(4, 5).view(2, 2, 5)": attempt(
            lambda: lib.empty_aligned(4, 5).view(2, 2, 5), values=False, storage=True
        ),
        "exact.view(-1)": attempt(lambda: exact.view(-1), storage=True),
        "exact.contiguous() shares storage": attempt(
            lambda: shares_storage(exact.contiguous(), exact)
        ),
    }
