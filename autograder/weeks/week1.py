"""Week 1 cases: strides and views, each compared with real torch.

Every case is written once against ``lib`` (real torch, or the engine under test). ``tasks``
lists every task of ``labs/week1_strides/strides.py`` the case needs; the tags are measured
(``python -m autograder.authoring week1``) and ``tests/test_task_tags.py`` keeps them true.

The module imports neither torch nor hypothesis: property cases import hypothesis inside their
strategy functions, so a learner's check stays fast when torch's answers are cached.

Convention: every case's first call into ``lib`` is ``lib.arange``, and its first observation
depends on it. An engine whose ``arange`` hangs, crashes or raises then fails every case the
same way, which is what the grader's bad-input tests expect.
"""

from __future__ import annotations

import random
from typing import Any

from autograder import attempt, case, observe, property_case, shares_storage
from autograder.observe import raised

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


# --- helpers shared by the cases (plain Python: they run with torch and with the engine) -----


def _prod(sizes: Any) -> int:
    n = 1
    for s in sizes:
        n *= int(s)
    return n


def _values_only(fn: Any) -> Any:
    """Shape, dtype and values of ``fn()``, not its layout.

    Used for arithmetic on non-contiguous operands, where torch lays the result out like its
    inputs (``x.t() + 1`` has strides ``(1, 4)``): ``arithmetic_result_layout`` checks that
    separately, so a layout mistake does not also cost the values.
    """
    obs = attempt(fn)
    if isinstance(obs, dict) and obs.get("kind") == "tensor":
        return {k: obs[k] for k in ("kind", "shape", "dtype", "values")}
    return obs


def _arith(fn: Any) -> Any:
    """The result of an elementwise op; an empty result's strides are left out.

    For numel 0 torch's TensorIterator may hand back odd strides (``zeros(4, 0, 1) * 3`` has
    strides ``(0, 1, 0)``): an accident of its implementation, not a rule to learn.
    """
    obs = attempt(fn)
    if isinstance(obs, dict) and obs.get("kind") == "tensor" and 0 in obs["shape"]:
        obs.pop("stride")
    return obs


def _guard(fn: Any) -> Any:
    """``fn()`` (already plain observations), or the error it raised."""
    try:
        return fn()
    except Exception as exc:  # noqa: BLE001 - every error is data here
        return raised(exc)


def _row_byte_offsets(a: Any) -> list[int]:
    """Where each row (each index of all dims but the last) starts, in bytes from the storage."""
    sizes, strides = list(a.shape), list(a.stride())
    offsets = [int(a.storage_offset())]
    for size, stride in zip(sizes[:-1], strides[:-1], strict=True):
        offsets = [o + i * int(stride) for o in offsets for i in range(int(size))]
    return [int(o) * int(a.element_size()) for o in offsets]


def _aligned_report(a: Any) -> dict[str, Any]:
    offsets = _row_byte_offsets(a)
    return {
        "row byte offsets": offsets,
        "all rows 32-byte aligned": all(o % 32 == 0 for o in offsets),
    }


def _write_scene(lib: Any) -> Any:
    """``scene(write, dtype=None)``: apply an in-place ``write`` to a fresh
    ``arange(12).view(3, 4)`` and observe what it returned and what ``x`` holds after."""

    def scene(write: Any, dtype: Any = None) -> Any:
        x = lib.arange(12, dtype=dtype).view(3, 4)
        try:
            result = write(x)
        except Exception as exc:  # noqa: BLE001 - the error is the observation
            return raised(exc)
        return {"result": observe(result), "x": observe(x)}

    return scene


def _fmt_shape(shape: Any) -> str:
    shape = list(shape)
    return "(" + ", ".join(map(str, shape)) + ("," if len(shape) == 1 else "") + ")"


# --- Task 1.1 / 1.2 / 1.3: a fresh tensor, its strides, its values --------------------------


@case(W, points=1, tasks=("1.1", "1.2", "1.3", "1.4"))
def arange_is_contiguous(lib):
    """A fresh tensor is row-major: the last dim has stride 1."""
    return observe(lib.arange(24).view(2, 3, 4))


@case(W, points=1, tasks=("1.1", "1.2", "1.3", "1.4"))
def factories_infer_dtype(lib):
    """tensor() infers int64 / float32 / bool like torch; factories default to float32."""
    return {
        "arange(1, 5).view(2, 2)": observe(lib.arange(1, 5).view(2, 2)),
        "tensor([[1, 2], [3, 4]])": attempt(lambda: lib.tensor([[1, 2], [3, 4]])),
        "tensor([1, 2.5])": attempt(lambda: lib.tensor([1, 2.5])),
        "tensor([True, False])": attempt(lambda: lib.tensor([True, False])),
        "tensor([True, 2])": attempt(lambda: lib.tensor([True, 2])),
        "tensor([1, 2], dtype=float64)": attempt(lambda: lib.tensor([1, 2], dtype=lib.float64)),
        "tensor(3)": attempt(lambda: lib.tensor(3)),
        "tensor(2.5)": attempt(lambda: lib.tensor(2.5)),
        "tensor([])": attempt(lambda: lib.tensor([])),
        "zeros(2, 3)": attempt(lambda: lib.zeros(2, 3)),
        "zeros((2, 3), dtype=bool)": attempt(lambda: lib.zeros((2, 3), dtype=lib.bool)),
        "ones([2], dtype=int64)": attempt(lambda: lib.ones([2], dtype=lib.int64)),
        "zeros(())": attempt(lambda: lib.zeros(())),
        "empty(2, 3)": attempt(lambda: lib.empty(2, 3), values=False),
    }


@case(W, points=1, tasks=("1.1", "1.2", "1.3"))
def range_factory_forms(lib):
    """arange's start/end/step forms, float steps, empty ranges and a bad step sign."""
    return {
        "arange(5)": attempt(lambda: lib.arange(5)),
        "arange(2, 8)": attempt(lambda: lib.arange(2, 8)),
        "arange(1, 10, 3)": attempt(lambda: lib.arange(1, 10, 3)),
        "arange(10, 1, -3)": attempt(lambda: lib.arange(10, 1, -3)),
        "arange(0, 1, 0.25)": attempt(lambda: lib.arange(0, 1, 0.25)),
        "arange(4, dtype=float64)": attempt(lambda: lib.arange(4, dtype=lib.float64)),
        "arange(0)": attempt(lambda: lib.arange(0)),
        "arange(5, 5)": attempt(lambda: lib.arange(5, 5)),
        "arange(5, 2)": attempt(lambda: lib.arange(5, 2)),
    }


@case(W, points=2, tasks=("1.1", "1.2", "1.3", "1.4"))
def contiguous_strides_of_fresh_tensors(lib):
    """Row-major strides, including size-1 and size-0 dims (a size-0 dim counts as 1).

    ``arange(n).view(shape)`` and ``zeros(shape)`` must agree: both are fresh tensors.
    """
    shapes = [(2, 3, 4), (5,), (1, 1), (2, 1, 3), (4, 0, 3), (2, 0), (0,), (3, 1, 1, 2)]
    out = {}
    for s in shapes:
        n = _prod(s)
        out[f"arange({n}).view{_fmt_shape(s)}"] = attempt(lambda s=s, n=n: lib.arange(n).view(*s))
        out[f"zeros{_fmt_shape(s)}"] = attempt(lambda s=s: lib.zeros(*s))
    return out


@case(W, points=1, tasks=("1.1", "1.4", "1.5", "1.6"))
def size_and_stride_accessors(lib):
    """size(), stride(), dim(), numel(), element_size(), len() and their negative dims."""
    x = lib.arange(24.0).view(2, 3, 4)
    return {
        "x.shape": attempt(lambda: x.shape),
        "x.size()": attempt(lambda: x.size()),
        "x.size(-1)": attempt(lambda: x.size(-1)),
        "x.size(3)": attempt(lambda: x.size(3)),
        "x.stride()": attempt(lambda: x.stride()),
        "x.stride(-3)": attempt(lambda: x.stride(-3)),
        "x.stride(-4)": attempt(lambda: x.stride(-4)),
        "x.dim()": attempt(lambda: x.dim()),
        "x.ndim": attempt(lambda: x.ndim),
        "x.numel()": attempt(lambda: x.numel()),
        "len(x)": attempt(lambda: len(x)),
        "len(x[0].t())": attempt(lambda: len(x[0].t())),
        "element_size float32": attempt(lambda: x.element_size()),
        "element_size float64": attempt(lambda: lib.zeros(1, dtype=lib.float64).element_size()),
        "element_size int64": attempt(lambda: lib.zeros(1, dtype=lib.int64).element_size()),
        "element_size bool": attempt(lambda: lib.zeros(1, dtype=lib.bool).element_size()),
        "x.storage_offset()": attempt(lambda: x.storage_offset()),
        "repr(x) starts with 'tensor('": attempt(lambda: repr(x).startswith("tensor(")),
    }


@case(W, points=2, tasks=("1.1", "1.3", "1.4", "1.5", "1.6", "1.7", "1.8", "1.9"))
def is_contiguous_rules(lib):
    """Contiguity skips size-1 dims (any stride there) and holds for every zero-size tensor."""
    x = lib.arange(12).view(3, 4)
    w = lib.arange(10)
    return {
        "x[1]": attempt(lambda: x[1].is_contiguous()),
        "x[1:]": attempt(lambda: x[1:].is_contiguous()),
        "x[:1] (size-1 rows)": attempt(lambda: x[:1].is_contiguous()),
        "x[:, :1] (one column)": attempt(lambda: x[:, :1].is_contiguous()),
        "x[:, 1:3]": attempt(lambda: x[:, 1:3].is_contiguous()),
        "x.t()": attempt(lambda: x.t().is_contiguous()),
        "x.unsqueeze(1)": attempt(lambda: x.unsqueeze(1).is_contiguous()),
        "as_strided((2, 1, 3), (3, 999, 1))": attempt(
            lambda: w.as_strided((2, 1, 3), (3, 999, 1)).is_contiguous()
        ),
        "as_strided((0, 3), (7, 5))": attempt(lambda: w.as_strided((0, 3), (7, 5)).is_contiguous()),
        "as_strided((3, 0), (100, 1))": attempt(
            lambda: w.as_strided((3, 0), (100, 1)).is_contiguous()
        ),
        "zeros(4, 1).t()": attempt(lambda: lib.zeros(4, 1).t().is_contiguous()),
        "zeros(3, 1).expand(3, 4)": attempt(lambda: lib.zeros(3, 1).expand(3, 4).is_contiguous()),
    }


@case(W, points=2, tasks=("1.1", "1.2", "1.3", "1.4", "1.5", "1.6", "1.9"))
def values_read_through_strides(lib):
    """tolist() and item() walk the strides from the storage offset, whatever the layout."""
    x = lib.arange(12).view(3, 4)
    f = lib.arange(12, dtype=lib.float32).view(3, 4)
    return {
        "x.t().tolist()": attempt(lambda: x.t().tolist()),
        "x[1:, ::2]": attempt(lambda: x[1:, ::2]),
        "x[:, 3]": attempt(lambda: x[:, 3]),
        "as_strided((2, 2), (1, 4), 5)": attempt(lambda: x.as_strided((2, 2), (1, 4), 5)),
        "x[2, 1].item()": attempt(lambda: x[2, 1].item()),
        "f[1, 2].item() is a float": attempt(lambda: f[1, 2].item()),
        "tensor([True])[0].item()": attempt(lambda: lib.tensor([True])[0].item()),
        "x[1:2, 3:].item()": attempt(lambda: x[1:2, 3:].item()),
        "x.item() (12 elements)": attempt(lambda: x.item()),
    }


# --- Task 1.4: view -------------------------------------------------------------------------


@case(W, points=3, tasks=("1.1", "1.2", "1.3", "1.4", "1.9"))
def view_chunk_rule(lib):
    """Size (3,2,4), strides (4,12,1): dims 0 and 1 are separate chunks, so they can't merge."""
    q = lib.arange(24).as_strided((3, 2, 4), (4, 12, 1))
    return {
        "q": observe(q),
        "q.view(3, 8)": attempt(lambda: q.view(3, 8)),
        "q.view(3, 2, 2, 2)": attempt(lambda: q.view(3, 2, 2, 2)),
        "q.view(6, 4)": attempt(lambda: q.view(6, 4)),
        "q.view(24)": attempt(lambda: q.view(24)),
        "q.view(3, 2, 4, 1)": attempt(lambda: q.view(3, 2, 4, 1)),
        "q.view(1, 3, 2, 4)": attempt(lambda: q.view(1, 3, 2, 4)),
        "q.view(3, 1, 2, 4)": attempt(lambda: q.view(3, 1, 2, 4)),
    }


@case(W, points=2, tasks=("1.1", "1.2", "1.3", "1.4", "1.6"))
def view_of_a_sliced_tensor(lib):
    """A column slice keeps each row contiguous: rows may split or merge, columns not."""
    x = lib.arange(48).view(2, 3, 8)[:, :, :4]
    return {
        "x": observe(x),
        "x.view(6, 4)": attempt(lambda: x.view(6, 4)),
        "x.view(2, 3, 2, 2)": attempt(lambda: x.view(2, 3, 2, 2)),
        "x.view(2, 12)": attempt(lambda: x.view(2, 12)),
        "x.view(24)": attempt(lambda: x.view(24)),
        "x[1].view(12)": attempt(lambda: x[1].view(12)),
        "x[1, 1:].view(2, 2, 2)": attempt(lambda: x[1, 1:].view(2, 2, 2)),
    }


@case(W, points=2, tasks=("1.1", "1.2", "1.3", "1.4"))
def view_minus_one_inference(lib):
    """One -1 is inferred from the numel; two -1s, other negatives or a bad fit are errors."""
    z = lib.arange(6)
    return {
        "z.view(-1)": attempt(lambda: z.view(-1)),
        "z.view(2, -1)": attempt(lambda: z.view(2, -1)),
        "z.view(-1, 3)": attempt(lambda: z.view(-1, 3)),
        "z.view(1, -1, 1)": attempt(lambda: z.view(1, -1, 1)),
        "z.view(3, 2, -1)": attempt(lambda: z.view(3, 2, -1)),
        "z.view((2, 3))": attempt(lambda: z.view((2, 3))),
        "z.view([3, 2])": attempt(lambda: z.view([3, 2])),
        "z.view(-1, -1)": attempt(lambda: z.view(-1, -1)),
        "z.view(-2)": attempt(lambda: z.view(-2)),
        "z.view(5, -1)": attempt(lambda: z.view(5, -1)),
        "z.view(-1, 0)": attempt(lambda: z.view(-1, 0)),
    }


@case(W, points=1, tasks=("1.1", "1.2", "1.3", "1.4"))
def view_wrong_numel(lib):
    """A shape with a different number of elements is a RuntimeError, never a silent view."""
    z = lib.arange(6)
    return {
        "z.view(4)": attempt(lambda: z.view(4)),
        "z.view(2, 2)": attempt(lambda: z.view(2, 2)),
        "z.view(7)": attempt(lambda: z.view(7)),
        "z.view(2, 3, 2)": attempt(lambda: z.view(2, 3, 2)),
        "z.view(2, 3)": attempt(lambda: z.view(2, 3)),
    }


@case(W, points=2, tasks=("1.1", "1.2", "1.3", "1.4", "1.5", "1.7", "1.8"))
def view_adds_and_drops_size_one_dims(lib):
    """Size-1 dims can be inserted or removed anywhere, even on non-contiguous tensors."""
    x = lib.arange(12).view(3, 4)
    e = lib.zeros(3, 1).expand(3, 4)
    return {
        "x.t().view(4, 1, 3)": attempt(lambda: x.t().view(4, 1, 3)),
        "x.t().view(1, 4, 3)": attempt(lambda: x.t().view(1, 4, 3)),
        "x.t().view(4, 3, 1)": attempt(lambda: x.t().view(4, 3, 1)),
        "x.t().view(4, 3)": attempt(lambda: x.t().view(4, 3)),
        "x.t().view(3, 4)": attempt(lambda: x.t().view(3, 4)),
        "x.t().unsqueeze(1).view(4, 3)": attempt(lambda: x.t().unsqueeze(1).view(4, 3)),
        "e.view(1, 3, 4)": attempt(lambda: e.view(1, 3, 4)),
        "e.view(3, 4, 1)": attempt(lambda: e.view(3, 4, 1)),
    }


# --- Task 1.5: permute, transpose, t --------------------------------------------------------


@case(W, points=2, tasks=("1.1", "1.2", "1.3", "1.4", "1.5"))
def transpose_then_view(lib):
    """t() swaps strides; the result is a view but no longer contiguous, so view() fails."""
    x = lib.arange(12).view(3, 4)
    y = x.t()
    return {
        "x.t()": observe(y),
        "shares storage": shares_storage(x, y),
        "x.t().view(12)": attempt(lambda: y.view(12)),
    }


@case(W, points=2, tasks=("1.1", "1.2", "1.3", "1.4", "1.5"))
def permute_strides_and_errors(lib):
    """permute reorders sizes and strides; dims may be negative, tuples or lists."""
    y = lib.arange(24).view(2, 3, 4)
    return {
        "y.permute(2, 0, 1)": attempt(lambda: y.permute(2, 0, 1)),
        "y.permute(-1, 0, 1)": attempt(lambda: y.permute(-1, 0, 1)),
        "y.permute((2, 1, 0))": attempt(lambda: y.permute((2, 1, 0))),
        "y.permute([1, 2, 0])": attempt(lambda: y.permute([1, 2, 0])),
        "y.permute(0, 1, 2)": attempt(lambda: y.permute(0, 1, 2)),
        "y.permute(2, 0, 1).permute(1, 2, 0)": attempt(lambda: y.permute(2, 0, 1).permute(1, 2, 0)),
        "shares storage": attempt(lambda: shares_storage(y, y.permute(2, 0, 1))),
        "y.permute(0, 1)": attempt(lambda: y.permute(0, 1)),
        "y.permute(0, 0, 1)": attempt(lambda: y.permute(0, 0, 1)),
        "y.permute(0, 1, 3)": attempt(lambda: y.permute(0, 1, 3)),
    }


@case(W, points=1, tasks=("1.1", "1.2", "1.3", "1.4", "1.5", "1.6"))
def transpose_and_t(lib):
    """transpose with negative dims; t() on 0-, 1- and 2-d tensors, and its 3-d error."""
    y = lib.arange(24).view(2, 3, 4)
    x = lib.arange(12).view(3, 4)
    return {
        "y.transpose(-1, 0)": attempt(lambda: y.transpose(-1, 0)),
        "y.transpose(1, -2)": attempt(lambda: y.transpose(1, -2)),
        "y.transpose(0, 3)": attempt(lambda: y.transpose(0, 3)),
        "x.t().t()": attempt(lambda: x.t().t()),
        "arange(6).t()": attempt(lambda: lib.arange(6).t()),
        "tensor(5).t()": attempt(lambda: lib.tensor(5).t()),
        "y.t()": attempt(lambda: y.t()),
        "x[:, 1:3].t()": attempt(lambda: x[:, 1:3].t()),
    }


# --- Task 1.6: narrow, select, __getitem__ --------------------------------------------------


@case(W, points=2, tasks=("1.1", "1.2", "1.3", "1.4", "1.5", "1.6"))
def narrow_offsets_and_errors(lib):
    """narrow moves the storage offset; start may be negative; bounds are checked."""
    z = lib.arange(6)
    x = lib.arange(12).view(3, 4)
    return {
        "x.narrow(-1, 1, 2)": attempt(lambda: x.narrow(-1, 1, 2)),
        "x.narrow(0, 1, 2)": attempt(lambda: x.narrow(0, 1, 2)),
        "z.narrow(0, -2, 2)": attempt(lambda: z.narrow(0, -2, 2)),
        "z.narrow(0, 6, 0)": attempt(lambda: z.narrow(0, 6, 0)),
        "x.t().narrow(1, 1, 2)": attempt(lambda: x.t().narrow(1, 1, 2)),
        "z.narrow(0, 5, 2)": attempt(lambda: z.narrow(0, 5, 2)),
        "z.narrow(0, 7, 0)": attempt(lambda: z.narrow(0, 7, 0)),
        "z.narrow(0, -7, 1)": attempt(lambda: z.narrow(0, -7, 1)),
        "z.narrow(1, 0, 1)": attempt(lambda: z.narrow(1, 0, 1)),
        "tensor(5).narrow(0, 0, 1)": attempt(lambda: lib.tensor(5).narrow(0, 0, 1)),
    }


@case(W, points=2, tasks=("1.1", "1.2", "1.3", "1.4", "1.5", "1.6"))
def select_drops_a_dim(lib):
    """select removes a dim and adds index * stride to the offset; negative indices wrap."""
    x = lib.arange(12).view(3, 4)
    y = lib.arange(24).view(2, 3, 4)
    return {
        "x.select(0, 1)": attempt(lambda: x.select(0, 1)),
        "x.select(1, -1)": attempt(lambda: x.select(1, -1)),
        "y.select(-2, 1)": attempt(lambda: y.select(-2, 1)),
        "x.t().select(0, 2)": attempt(lambda: x.t().select(0, 2)),
        "x.select(0, 1).select(0, 2)": attempt(lambda: x.select(0, 1).select(0, 2)),
        "x.select(0, 3)": attempt(lambda: x.select(0, 3)),
        "x.select(-1, -5)": attempt(lambda: x.select(-1, -5)),
        "x.select(2, 0)": attempt(lambda: x.select(2, 0)),
        "zeros(0, 3).select(0, 0)": attempt(lambda: lib.zeros(0, 3).select(0, 0)),
        "tensor(5).select(0, 0)": attempt(lambda: lib.tensor(5).select(0, 0)),
    }


@case(W, points=2, tasks=("1.1", "1.2", "1.3", "1.4", "1.5", "1.6"))
def getitem_ints_and_slices(lib):
    """Integers select, slices narrow; steps multiply the stride."""
    x = lib.arange(12).view(3, 4)
    y = lib.arange(24).view(2, 3, 4)
    return {
        "x[1]": attempt(lambda: x[1]),
        "x[-1]": attempt(lambda: x[-1]),
        "x[1, 2]": attempt(lambda: x[1, 2]),
        "x[-1, -1]": attempt(lambda: x[-1, -1]),
        "x[:, 1]": attempt(lambda: x[:, 1]),
        "x[::2]": attempt(lambda: x[::2]),
        "x[1::2, ::3]": attempt(lambda: x[1::2, ::3]),
        "x[1:3, -2:]": attempt(lambda: x[1:3, -2:]),
        "y[1, :, 1::2]": attempt(lambda: y[1, :, 1::2]),
        "y[:, ::2][:, :, 3]": attempt(lambda: y[:, ::2][:, :, 3]),
        "x.t()[1:, 1]": attempt(lambda: x.t()[1:, 1]),
        "x[(1,)]": attempt(lambda: x[(1,)]),
        "x[()]": attempt(lambda: x[()]),
    }


@case(W, points=2, tasks=("1.1", "1.2", "1.3", "1.4", "1.6"))
def getitem_slice_clamping(lib):
    """Out-of-range slice bounds clamp (like Python lists); empty results keep an offset."""
    x = lib.arange(12).view(3, 4)
    z = lib.arange(6)
    return {
        "x[10:]": attempt(lambda: x[10:]),
        "x[5:2]": attempt(lambda: x[5:2]),
        "x[-100:2]": attempt(lambda: x[-100:2]),
        "x[:, 10:20]": attempt(lambda: x[:, 10:20]),
        "x[:, 2:1]": attempt(lambda: x[:, 2:1]),
        "z[2:100:2]": attempt(lambda: z[2:100:2]),
        "z[-2:]": attempt(lambda: z[-2:]),
        "z[:-4]": attempt(lambda: z[:-4]),
        "z[-3:-1]": attempt(lambda: z[-3:-1]),
        "z[1:5:3]": attempt(lambda: z[1:5:3]),
        "z[4:-4]": attempt(lambda: z[4:-4]),
    }


@case(W, points=3, tasks=("1.1", "1.2", "1.3", "1.4", "1.5", "1.6", "1.7"))
def getitem_none_and_ellipsis(lib):
    """None inserts a size-1 dim (like unsqueeze); ... stands for all the dims not named."""
    x = lib.arange(12).view(3, 4)
    y = lib.arange(24).view(2, 3, 4)
    return {
        "x[None]": attempt(lambda: x[None]),
        "x[:, None]": attempt(lambda: x[:, None]),
        "x[..., None]": attempt(lambda: x[..., None]),
        "x[None, None]": attempt(lambda: x[None, None]),
        "x.t()[None]": attempt(lambda: x.t()[None]),
        "x[None, ..., 1]": attempt(lambda: x[None, ..., 1]),
        "x[1, ..., None, ::2]": attempt(lambda: x[1, ..., None, ::2]),
        "y[..., 1]": attempt(lambda: y[..., 1]),
        "y[0, ..., 0]": attempt(lambda: y[0, ..., 0]),
        "y[..., 0, :]": attempt(lambda: y[..., 0, :]),
        "y[:, None, 1:, ::3]": attempt(lambda: y[:, None, 1:, ::3]),
        "y[...]": attempt(lambda: y[...]),
    }


@case(W, points=2, tasks=("1.1", "1.4", "1.6"))
def getitem_errors(lib):
    """Out-of-bounds integers and too many indices are IndexErrors; bad steps ValueErrors."""
    x = lib.arange(12).view(3, 4)
    return {
        "x[3]": attempt(lambda: x[3]),
        "x[-4]": attempt(lambda: x[-4]),
        "x[1, 4]": attempt(lambda: x[1, 4]),
        "x[0, 0, 0]": attempt(lambda: x[0, 0, 0]),
        "x[None, 0, 0, 0]": attempt(lambda: x[None, 0, 0, 0]),
        "x[::0]": attempt(lambda: x[::0]),
        "x[::-1]": attempt(lambda: x[::-1]),
        "x[1.5]": attempt(lambda: x[1.5]),
        "tensor(5)[0]": attempt(lambda: lib.tensor(5)[0]),
        "zeros(0, 3)[0]": attempt(lambda: lib.zeros(0, 3)[0]),
    }


# --- Task 1.7: unsqueeze, squeeze, flatten --------------------------------------------------


@case(W, points=2, tasks=("1.1", "1.2", "1.3", "1.4", "1.5", "1.6", "1.7"))
def unsqueeze_strides(lib):
    """A new dim at d gets stride size[d] * stride[d] (1 at the end), so views stay viewable."""
    x = lib.arange(12).view(3, 4)
    return {
        "x.unsqueeze(0)": attempt(lambda: x.unsqueeze(0)),
        "x.unsqueeze(-1)": attempt(lambda: x.unsqueeze(-1)),
        "x.unsqueeze(-3)": attempt(lambda: x.unsqueeze(-3)),
        "x.unsqueeze(1)": attempt(lambda: x.unsqueeze(1)),
        "x.t().unsqueeze(1)": attempt(lambda: x.t().unsqueeze(1)),
        "x.t().unsqueeze(-1)": attempt(lambda: x.t().unsqueeze(-1)),
        "x[:, ::2].unsqueeze(2)": attempt(lambda: x[:, ::2].unsqueeze(2)),
        "x[:, 1:3].unsqueeze(0)": attempt(lambda: x[:, 1:3].unsqueeze(0)),
        "x.unsqueeze(3)": attempt(lambda: x.unsqueeze(3)),
        "x.unsqueeze(-4)": attempt(lambda: x.unsqueeze(-4)),
    }


@case(W, points=2, tasks=("1.1", "1.2", "1.3", "1.4", "1.6", "1.7"))
def squeeze_variants(lib):
    """squeeze() drops every size-1 dim; squeeze(d) only d, and only if its size is 1."""
    a = lib.arange(6).view(2, 1, 3, 1)
    y = lib.arange(24).view(2, 3, 4)
    return {
        "a.squeeze()": attempt(lambda: a.squeeze()),
        "a.squeeze(-1)": attempt(lambda: a.squeeze(-1)),
        "a.squeeze(1)": attempt(lambda: a.squeeze(1)),
        "a.squeeze(0) (size 2: no-op)": attempt(lambda: a.squeeze(0)),
        "a.squeeze((1, 3))": attempt(lambda: a.squeeze((1, 3))),
        "a.squeeze((0, -1))": attempt(lambda: a.squeeze((0, -1))),
        "y[:, :1].squeeze(1)": attempt(lambda: y[:, :1].squeeze(1)),
        "y[:, 1:2, 2:3].squeeze()": attempt(lambda: y[:, 1:2, 2:3].squeeze()),
        "a.squeeze(4)": attempt(lambda: a.squeeze(4)),
        "a.squeeze((1, 1))": attempt(lambda: a.squeeze((1, 1))),
    }


@case(W, points=2, tasks=("1.1", "1.2", "1.3", "1.4", "1.5", "1.6", "1.7", "1.10"))
def flatten_view_or_copy(lib):
    """flatten is a view when the dims merge (view rule) and a copy otherwise, like reshape."""
    y = lib.arange(24).view(2, 3, 4)
    p = y.permute(1, 0, 2)
    s = y[:, :, ::2]
    return {
        "y.flatten()": attempt(lambda: y.flatten()),
        "y.flatten(1)": attempt(lambda: y.flatten(1)),
        "y.flatten(-2, -1)": attempt(lambda: y.flatten(-2, -1)),
        "p.flatten(0, 1)": attempt(lambda: p.flatten(0, 1)),
        "p.flatten(0, 1) shares storage": attempt(lambda: shares_storage(p.flatten(0, 1), y)),
        "p.flatten(1)": attempt(lambda: p.flatten(1)),
        "p.flatten(1) shares storage": attempt(lambda: shares_storage(p.flatten(1), y)),
        "s.flatten(0, 1)": attempt(lambda: s.flatten(0, 1)),
        "s.flatten(0, 1) shares storage": attempt(lambda: shares_storage(s.flatten(0, 1), y)),
        "s.flatten(1)": attempt(lambda: s.flatten(1)),
        "tensor(5).flatten()": attempt(lambda: lib.tensor(5).flatten()),
        "y.flatten(2, 1)": attempt(lambda: y.flatten(2, 1)),
        "y.flatten(0, 3)": attempt(lambda: y.flatten(0, 3)),
    }


# --- Task 1.8: expand, broadcast_shapes -----------------------------------------------------


@case(W, points=2, tasks=("1.1", "1.2", "1.3", "1.4", "1.5", "1.8"))
def expand_strides(lib):
    """Expanded dims (and new leading dims) get stride 0; -1 keeps a size."""
    c = lib.arange(3).view(3, 1)
    x = lib.arange(12).view(3, 4)
    return {
        "c.expand(3, 4)": attempt(lambda: c.expand(3, 4)),
        "c.expand(-1, 4)": attempt(lambda: c.expand(-1, 4)),
        "c.expand(2, -1, 4)": attempt(lambda: c.expand(2, -1, 4)),
        "c.expand((2, 3, 4))": attempt(lambda: c.expand((2, 3, 4))),
        "c.expand(2, 3, 1)": attempt(lambda: c.expand(2, 3, 1)),
        "x.t().expand(2, 4, 3)": attempt(lambda: x.t().expand(2, 4, 3)),
        "x.expand(3, 4)": attempt(lambda: x.expand(3, 4)),
        "tensor(7).expand(2, 3)": attempt(lambda: lib.tensor(7).expand(2, 3)),
        "shares storage": attempt(lambda: shares_storage(c, c.expand(3, 4))),
    }


@case(W, points=1, tasks=("1.1", "1.2", "1.3", "1.4", "1.8"))
def expand_errors(lib):
    """Only size-1 dims expand; -1 is not allowed for a new leading dim."""
    c = lib.arange(3).view(3, 1)
    return {
        "zeros(3, 2).expand(3, 4)": attempt(lambda: lib.zeros(3, 2).expand(3, 4)),
        "c.expand(4)": attempt(lambda: c.expand(4)),
        "c.expand(-1, 3, 4)": attempt(lambda: c.expand(-1, 3, 4)),
        "c.expand(4, 4)": attempt(lambda: c.expand(4, 4)),
        "c.expand(3, 5)": attempt(lambda: c.expand(3, 5)),
    }


@case(W, points=1, tasks=("1.1", "1.2", "1.3", "1.4", "1.8"))
def broadcast_shapes_rule(lib):
    """Align from the right; a size-1 dim stretches; anything else must match (0 included)."""
    c = lib.arange(3).view(3, 1)
    return {
        "c.expand(broadcast_shapes(c.shape, (1, 4)))": attempt(
            lambda: c.expand(*lib.broadcast_shapes(c.shape, (1, 4)))
        ),
        "(3, 1), (1, 4)": attempt(lambda: lib.broadcast_shapes((3, 1), (1, 4))),
        "(2, 1, 4), (3, 1)": attempt(lambda: lib.broadcast_shapes((2, 1, 4), (3, 1))),
        "(), (3,)": attempt(lambda: lib.broadcast_shapes((), (3,))),
        "(0,), (1,)": attempt(lambda: lib.broadcast_shapes((0,), (1,))),
        "(2, 0), (1, 1)": attempt(lambda: lib.broadcast_shapes((2, 0), (1, 1))),
        "[2, 1], [1, 3], (4, 1, 1)": attempt(
            lambda: lib.broadcast_shapes([2, 1], [1, 3], (4, 1, 1))
        ),
        "(5, 1, 3) alone": attempt(lambda: lib.broadcast_shapes((5, 1, 3))),
        "(3,), (4,)": attempt(lambda: lib.broadcast_shapes((3,), (4,))),
        "(0,), (3,)": attempt(lambda: lib.broadcast_shapes((0,), (3,))),
        "(2, 3), (3, 2)": attempt(lambda: lib.broadcast_shapes((2, 3), (3, 2))),
    }


@case(W, points=3, tasks=("1.1", "1.2", "1.3", "1.4", "1.5", "1.6", "1.7", "1.8", "1.10"))
def expanded_tensor_views_and_copies(lib):
    """Stride-0 tensors are not contiguous; some views still work, reshape/contiguous copy."""
    e = lib.arange(3.0).view(3, 1).expand(3, 4)
    return {
        "e": observe(e, storage=True),
        "e.view(3, 2, 2)": attempt(lambda: e.view(3, 2, 2)),
        "e.view(12)": attempt(lambda: e.view(12)),
        "e.view(4, 3)": attempt(lambda: e.view(4, 3)),
        "e.t()": attempt(lambda: e.t()),
        "e.t().view(4, 3)": attempt(lambda: e.t().view(4, 3)),
        "e[0]": attempt(lambda: e[0]),
        "e[:, 0]": attempt(lambda: e[:, 0]),
        "e.reshape(12)": attempt(lambda: e.reshape(12), storage=True),
        "e.reshape(12) shares storage": attempt(lambda: shares_storage(e.reshape(12), e)),
        "e.reshape(3, 2, 2) shares storage": attempt(lambda: shares_storage(e.reshape(3, 2, 2), e)),
        "e.contiguous()": attempt(lambda: e.contiguous(), storage=True),
        "e.contiguous() shares storage": attempt(lambda: shares_storage(e.contiguous(), e)),
        "e.flatten(0, 0)": attempt(lambda: e.flatten(0, 0)),
    }


@case(W, points=3, tasks=("1.1", "1.2", "1.3", "1.4", "1.6", "1.8", "1.12"))
def writing_into_expanded_tensors(lib):
    """Writes whose target has several elements on one memory location raise (fill_ is exempt).

    Writing one element of an expanded tensor is allowed, and shows up in every position that
    shares it.
    """

    def write(code):
        e = lib.arange(3.0).view(3, 1).expand(3, 4)
        try:
            code(e)
        except Exception as exc:  # noqa: BLE001 - the error is the observation
            return raised(exc)
        return observe(e)

    def setitem(key, value):
        def run(e):
            e[key] = value

        return run

    return {
        "e[0] = 5": write(setitem(0, 5)),
        "e[...] = 1": write(setitem(Ellipsis, 1)),
        "e.add_(1)": write(lambda e: e.add_(1)),
        "e.mul_(2)": write(lambda e: e.mul_(2)),
        "e.copy_(ones(3, 4))": write(lambda e: e.copy_(lib.ones(3, 4))),
        "e[0, 1] = 5": write(setitem((0, 1), 5)),
        "e[:, 0] = tensor([1., 2., 3.])": write(setitem((slice(None), 0), lib.tensor([1.0, 2, 3]))),
        "e.fill_(1)": write(lambda e: e.fill_(1)),
    }


# --- Task 1.9: unfold, as_strided ----------------------------------------------------------


@case(W, points=2, tasks=("1.1", "1.2", "1.3", "1.4", "1.5", "1.6", "1.9"))
def unfold_windows(lib):
    """unfold(d, size, step): a new last dim of length size, stride[d] multiplied by step."""
    w = lib.arange(10)
    x = lib.arange(12).view(3, 4)
    return {
        "w.unfold(0, 3, 1)": attempt(lambda: w.unfold(0, 3, 1)),
        "w.unfold(0, 3, 2)": attempt(lambda: w.unfold(0, 3, 2)),
        "w.unfold(0, 4, 3) drops the tail": attempt(lambda: w.unfold(0, 4, 3)),
        "w.unfold(0, 10, 1)": attempt(lambda: w.unfold(0, 10, 1)),
        "w[1:].unfold(0, 3, 3)": attempt(lambda: w[1:].unfold(0, 3, 3)),
        "x.unfold(1, 2, 2)": attempt(lambda: x.unfold(1, 2, 2)),
        "x.unfold(0, 2, 1)": attempt(lambda: x.unfold(0, 2, 1)),
        "x.unfold(-1, 3, 1)": attempt(lambda: x.unfold(-1, 3, 1)),
        "x.t().unfold(0, 2, 2)": attempt(lambda: x.t().unfold(0, 2, 2)),
        "w.unfold(0, 0, 1)": attempt(lambda: w.unfold(0, 0, 1)),
        "shares storage": attempt(lambda: shares_storage(w, w.unfold(0, 3, 1))),
    }


@case(W, points=1, tasks=("1.1", "1.2", "1.3", "1.9"))
def unfold_errors(lib):
    """A window longer than the dim, a zero step, a negative size or a bad dim raise."""
    w = lib.arange(10)
    return {
        "w.unfold(0, 11, 1)": attempt(lambda: w.unfold(0, 11, 1)),
        "w.unfold(0, 3, 0)": attempt(lambda: w.unfold(0, 3, 0)),
        "w.unfold(0, -1, 1)": attempt(lambda: w.unfold(0, -1, 1)),
        "w.unfold(1, 2, 1)": attempt(lambda: w.unfold(1, 2, 1)),
        "zeros(0, 3).unfold(0, 1, 1)": attempt(lambda: lib.zeros(0, 3).unfold(0, 1, 1)),
        "zeros(0, 3).unfold(1, 2, 1)": attempt(lambda: lib.zeros(0, 3).unfold(1, 2, 1)),
    }


@case(W, points=2, tasks=("1.1", "1.2", "1.3", "1.4", "1.9"))
def as_strided_overlapping_windows(lib):
    """as_strided may overlap elements (stride smaller than size) or repeat them (stride 0)."""
    w = lib.arange(10)
    x = lib.arange(12).view(3, 4)
    return {
        "w.as_strided((3, 3), (1, 1))": attempt(lambda: w.as_strided((3, 3), (1, 1))),
        "w.as_strided((4, 3), (2, 1))": attempt(lambda: w.as_strided((4, 3), (2, 1))),
        "w.as_strided((5, 2), (1, 5))": attempt(lambda: w.as_strided((5, 2), (1, 5))),
        "w.as_strided((2, 2), (0, 3))": attempt(lambda: w.as_strided((2, 2), (0, 3))),
        "w.as_strided((3, 3), (3, 1), 1)": attempt(lambda: w.as_strided((3, 3), (3, 1), 1)),
        "w.as_strided([3], [2])": attempt(lambda: w.as_strided([3], [2])),
        "as_strided(w, (2, 5), (1, 2))": attempt(lambda: lib.as_strided(w, (2, 5), (1, 2))),
        "x.as_strided((2, 2, 2), (4, 4, 1))": attempt(lambda: x.as_strided((2, 2, 2), (4, 4, 1))),
        "w.as_strided((), (), 9)": attempt(lambda: w.as_strided((), (), 9)),
        "shares storage": attempt(lambda: shares_storage(w, w.as_strided((3, 3), (1, 1)))),
    }


@case(W, points=2, tasks=("1.1", "1.2", "1.3", "1.6", "1.9"))
def as_strided_offset_defaults_to_the_views(lib):
    """Without storage_offset, as_strided keeps the input's offset (not 0); strides are absolute."""
    w = lib.arange(10)
    v = w[2:]
    return {
        "w[2:].as_strided((2, 2), (1, 1))": attempt(lambda: v.as_strided((2, 2), (1, 1))),
        "w[2:].as_strided((2, 2), (1, 1), 0)": attempt(lambda: v.as_strided((2, 2), (1, 1), 0)),
        "w[::2].as_strided((3,), (1,))": attempt(lambda: w[::2].as_strided((3,), (1,))),
        "w[7:].as_strided((2,), (1,), 1)": attempt(lambda: w[7:].as_strided((2,), (1,), 1)),
        "w[5:].as_strided((5,), (1,))": attempt(lambda: w[5:].as_strided((5,), (1,))),
        "w[5:].as_strided((6,), (1,))": attempt(lambda: w[5:].as_strided((6,), (1,))),
    }


@case(W, points=2, tasks=("1.1", "1.2", "1.3", "1.9"))
def as_strided_bounds(lib):
    """The largest offset reached must lie inside the storage; negative strides are refused."""
    w = lib.arange(10)
    return {
        "w.as_strided((3, 3), (4, 1))": attempt(lambda: w.as_strided((3, 3), (4, 1))),
        "w.as_strided((3, 3), (3, 1))": attempt(lambda: w.as_strided((3, 3), (3, 1))),
        "w.as_strided((), (), 10)": attempt(lambda: w.as_strided((), (), 10)),
        "w.as_strided((10,), (1,), 1)": attempt(lambda: w.as_strided((10,), (1,), 1)),
        "w.as_strided((2,), (-1,))": attempt(lambda: w.as_strided((2,), (-1,))),
        "w.as_strided((3, 0), (100, 1))": attempt(lambda: w.as_strided((3, 0), (100, 1))),
        "w.as_strided((2, 1, 3), (3, 999, 1))": attempt(
            lambda: w.as_strided((2, 1, 3), (3, 999, 1))
        ),
        "w.as_strided((2, 3), (3,))": attempt(lambda: w.as_strided((2, 3), (3,))),
    }


@case(W, points=3, tasks=("1.1", "1.2", "1.3", "1.4", "1.6", "1.8", "1.9", "1.11", "1.12"))
def writes_through_overlapping_views(lib):
    """One storage element seen at several indices: a write shows up at all of them."""

    def scenario(make_view, write):
        w = lib.arange(10)
        v = make_view(w)
        write(v)
        return {"view": observe(v), "base": observe(w)}

    def set_item(key, value):
        def run(v):
            v[key] = value

        return run

    return {
        "as_strided((3, 3), (1, 1))[0, 2] = 100": _guard(
            lambda: scenario(lambda w: w.as_strided((3, 3), (1, 1)), set_item((0, 2), 100))
        ),
        "unfold(0, 3, 1)[1] = -1": _guard(
            lambda: scenario(lambda w: w.unfold(0, 3, 1), set_item(1, -1))
        ),
        "as_strided((3, 3), (1, 1)).fill_(7)": _guard(
            lambda: scenario(lambda w: w.as_strided((3, 3), (1, 1)), lambda v: v.fill_(7))
        ),
        "unfold(0, 4, 2).mul_(0)": _guard(
            lambda: scenario(lambda w: w.unfold(0, 4, 2), lambda v: v.mul_(0))
        ),
        "as_strided((2, 2), (0, 3))[1, 1] = 50": _guard(
            lambda: scenario(lambda w: w.as_strided((2, 2), (0, 3)), set_item((1, 1), 50))
        ),
    }


# --- Task 1.10: contiguous, reshape, clone --------------------------------------------------


@case(W, points=3, tasks=("1.1", "1.2", "1.3", "1.4", "1.5", "1.6", "1.9", "1.10"))
def contiguous_copies_only_when_needed(lib):
    """contiguous() returns the tensor itself when it is contiguous (any offset, any size-1
    stride), and a fresh row-major copy otherwise."""
    x = lib.arange(12).view(3, 4)
    w = lib.arange(10)
    cases = {
        "x": lambda: x,
        "x[1]": lambda: x[1],
        "x[1:]": lambda: x[1:],
        "x.t()": lambda: x.t(),
        "x[:, ::2]": lambda: x[:, ::2],
        "x[:, :1]": lambda: x[:, :1],
        "as_strided((2, 1, 3), (3, 999, 1))": lambda: w.as_strided((2, 1, 3), (3, 999, 1)),
        "as_strided((0, 3), (7, 5))": lambda: w.as_strided((0, 3), (7, 5)),
    }
    out = {}
    for label, make in cases.items():
        v = make()
        out[f"{label}.contiguous()"] = attempt(lambda v=v: v.contiguous(), storage=True)
        out[f"{label}.contiguous() shares storage"] = attempt(
            lambda v=v: shares_storage(v.contiguous(), v)
        )
    return out


@case(W, points=3, tasks=("1.1", "1.2", "1.3", "1.4", "1.5", "1.6", "1.9", "1.10"))
def reshape_copies_exactly_when_torch_does(lib):
    """reshape is view() when the view rule allows it and a contiguous copy otherwise."""
    base = lib.arange(24)
    q = base.as_strided((3, 2, 4), (4, 12, 1))
    x = base[:12].view(3, 4)
    targets = {
        "q.reshape(3, 8)": lambda: q.reshape(3, 8),
        "q.reshape(3, 2, 2, 2)": lambda: q.reshape(3, 2, 2, 2),
        "q.reshape(-1)": lambda: q.reshape(-1),
        "x.t().reshape(12)": lambda: x.t().reshape(12),
        "x.t().reshape(4, 3)": lambda: x.t().reshape(4, 3),
        "x.t().reshape(4, 1, 3)": lambda: x.t().reshape(4, 1, 3),
        "x[:, :2].reshape(6)": lambda: x[:, :2].reshape(6),
        "x[1:].reshape(2, 2, 2)": lambda: x[1:].reshape(2, 2, 2),
        "x[:, ::2].reshape(6)": lambda: x[:, ::2].reshape(6),
        "x[::2].reshape(8)": lambda: x[::2].reshape(8),
    }
    out = {}
    for label, make in targets.items():
        out[label] = attempt(make, storage=True)
        out[f"{label} shares storage"] = attempt(lambda make=make: shares_storage(make(), base))
    return out


@case(W, points=1, tasks=("1.1", "1.2", "1.3", "1.4", "1.5", "1.10"))
def reshape_errors(lib):
    """reshape checks the numel and the -1 like view does, but never fails on layout."""
    z = lib.arange(6)
    return {
        "z.reshape(4)": attempt(lambda: z.reshape(4)),
        "z.reshape(-1, -1)": attempt(lambda: z.reshape(-1, -1)),
        "z.reshape(4, -1)": attempt(lambda: z.reshape(4, -1)),
        "z.reshape((3, 2))": attempt(lambda: z.reshape((3, 2))),
        "z.view(2, 3).t().reshape(-1)": attempt(lambda: z.view(2, 3).t().reshape(-1)),
        "zeros(0, 3).reshape(-1, 0)": attempt(lambda: lib.zeros(0, 3).reshape(-1, 0)),
    }


@case(W, points=2, tasks=("1.1", "1.2", "1.3", "1.4", "1.5", "1.6", "1.8", "1.10", "1.12"))
def clone_is_a_copy(lib):
    """clone() never shares storage. Like torch, it keeps the strides of a dense tensor (a
    transpose stays transposed) and packs a tensor with gaps or repeats row-major."""
    x = lib.arange(12).view(3, 4)

    def cloned(v):
        c = v.clone()
        return {
            "clone": observe(c, storage=True),
            "shares storage": attempt(lambda: shares_storage(c, v)),
        }

    def write_to_clone():
        c = x.clone()
        c[0] = -1
        return {"clone": observe(c), "original": observe(x)}

    return {
        "x.clone()": _guard(lambda: cloned(x)),
        "x[1:].clone()": _guard(lambda: cloned(x[1:])),
        "x[:, ::2].clone()": _guard(lambda: cloned(x[:, ::2])),
        "x.t().clone()": _guard(lambda: cloned(x.t())),
        "zeros(3, 1).expand(3, 4).clone()": _guard(lambda: cloned(lib.zeros(3, 1).expand(3, 4))),
        "clone()[0] = -1 leaves x alone": _guard(write_to_clone),
    }


@case(W, points=1, tasks=("1.1", "1.2", "1.3", "1.9"))
def empty_strided_storage_size(lib):
    """empty_strided allocates just enough for the largest offset reached (1 + sum).

    The same layout as a view keeps its base's whole storage.
    """
    return {
        "arange(6).as_strided((2, 3), (1, 2))": observe(
            lib.arange(6.0).as_strided((2, 3), (1, 2)), storage=True
        ),
        "empty_strided((2, 3), (1, 2))": attempt(
            lambda: lib.empty_strided((2, 3), (1, 2)), values=False, storage=True
        ),
        "empty_strided((2, 3), (4, 1))": attempt(
            lambda: lib.empty_strided((2, 3), (4, 1)), values=False, storage=True
        ),
        "empty_strided((2, 3), (0, 1))": attempt(
            lambda: lib.empty_strided((2, 3), (0, 1)), values=False, storage=True
        ),
        "empty_strided((0, 3), (4, 1))": attempt(
            lambda: lib.empty_strided((0, 3), (4, 1)), values=False, storage=True
        ),
        "empty_strided((), ())": attempt(
            lambda: lib.empty_strided((), ()), values=False, storage=True
        ),
        "empty_strided((2, 3), (1, 2), dtype=float64)": attempt(
            lambda: lib.empty_strided((2, 3), (1, 2), dtype=lib.float64),
            values=False,
            storage=True,
        ),
        "empty_strided((2, 3), (3,))": attempt(
            lambda: lib.empty_strided((2, 3), (3,)), values=False, storage=True
        ),
    }


# --- Zero-size, 0-d and size-1 tensors (across tasks) -----------------------------------------


@case(W, points=2, tasks=("1.1", "1.2", "1.3", "1.4", "1.5", "1.7", "1.10"))
def zero_size_tensors(lib):
    """numel 0: always contiguous; view/reshape infer strides as if each size were >= 1."""
    zz = lib.arange(0.0).view(0, 3)
    return {
        "zz = arange(0).view(0, 3)": observe(zz, storage=True),
        "zeros(0, 3).t()": attempt(lambda: zz.t()),
        "zeros(3, 0).t()": attempt(lambda: lib.zeros(3, 0).t()),
        "zz.view(-1)": attempt(lambda: zz.view(-1)),
        "zz.view(3, -1)": attempt(lambda: zz.view(3, -1)),
        "zz.view(5, 0)": attempt(lambda: zz.view(5, 0)),
        "zz.view(-1, 5)": attempt(lambda: zz.view(-1, 5)),
        "zz.view(-1, 0)": attempt(lambda: zz.view(-1, 0)),
        "zz.view(0, -1)": attempt(lambda: zz.view(0, -1)),
        "zz.t().view(3, 0) (same shape)": attempt(lambda: zz.t().view(3, 0)),
        "zz.t().view(0, 3)": attempt(lambda: zz.t().view(0, 3)),
        "zz.reshape(3, 0)": attempt(lambda: zz.reshape(3, 0)),
        "zz.flatten()": attempt(lambda: zz.flatten()),
        "zz.contiguous()": attempt(lambda: zz.contiguous()),
    }


@case(W, points=2, tasks=("1.1", "1.2", "1.3", "1.4", "1.6", "1.7", "1.8"))
def zero_size_views(lib):
    """Slicing to empty, expanding to or from size 0, unsqueezing a zero-size tensor."""
    x = lib.arange(12).view(3, 4)
    zz = lib.zeros(0, 3)
    return {
        "x[3:]": attempt(lambda: x[3:]),
        "x[:, 4:]": attempt(lambda: x[:, 4:]),
        "x[1:1, 2:]": attempt(lambda: x[1:1, 2:]),
        "x.narrow(1, 4, 0)": attempt(lambda: x.narrow(1, 4, 0)),
        "zz.expand(2, 0, 3)": attempt(lambda: zz.expand(2, 0, 3)),
        "zeros(3, 1).expand(3, 0)": attempt(lambda: lib.zeros(3, 1).expand(3, 0)),
        "zz.unsqueeze(0)": attempt(lambda: zz.unsqueeze(0)),
        "zz.unsqueeze(1)": attempt(lambda: zz.unsqueeze(1)),
        "zz.unsqueeze(2)": attempt(lambda: zz.unsqueeze(2)),
        "zz.squeeze()": attempt(lambda: zz.squeeze()),
        "zz[1:]": attempt(lambda: zz[1:]),
        "zz[:, 1]": attempt(lambda: zz[:, 1]),
        "zz.narrow(0, 0, 0)": attempt(lambda: zz.narrow(0, 0, 0)),
        "len(zz)": attempt(lambda: len(zz)),
    }


@case(W, points=2, tasks=("1.1", "1.2", "1.3", "1.4", "1.6", "1.7", "1.8"))
def zero_dim_tensors(lib):
    """A 0-d tensor has shape (), strides () and one element; it views to (1,) and back."""
    v = lib.arange(6)[5]
    s = lib.tensor(5)
    return {
        "arange(6)[5]": observe(v, storage=True),
        "tensor(5)": observe(s, storage=True),
        "s.dim()": attempt(lambda: s.dim()),
        "s.numel()": attempt(lambda: s.numel()),
        "s.size()": attempt(lambda: s.size()),
        "s.stride()": attempt(lambda: s.stride()),
        "s.item()": attempt(lambda: s.item()),
        "s.tolist()": attempt(lambda: s.tolist()),
        "s.view(1)": attempt(lambda: s.view(1)),
        "s.view(-1)": attempt(lambda: s.view(-1)),
        "s.view(1, 1)": attempt(lambda: s.view(1, 1)),
        "s.view(1).view(())": attempt(lambda: s.view(1).view(())),
        "s.view(2)": attempt(lambda: s.view(2)),
        "s.unsqueeze(0)": attempt(lambda: s.unsqueeze(0)),
        "s.unsqueeze(-1)": attempt(lambda: s.unsqueeze(-1)),
        "s.unsqueeze(1)": attempt(lambda: s.unsqueeze(1)),
        "s.squeeze()": attempt(lambda: s.squeeze()),
        "s.squeeze(0)": attempt(lambda: s.squeeze(0)),
        "s.expand(3)": attempt(lambda: s.expand(3)),
        "s[None]": attempt(lambda: s[None]),
        "s[...]": attempt(lambda: s[...]),
        "len(s)": attempt(lambda: len(s)),
        "arange(4).view(2, 2)[1, 0]": attempt(lambda: lib.arange(4).view(2, 2)[1, 0]),
    }


@case(W, points=2, tasks=("1.1", "1.2", "1.3", "1.4", "1.5", "1.6", "1.7", "1.9"))
def size_one_dims(lib):
    """Size-1 dims carry whatever stride; contiguity and the view rule ignore it."""
    x = lib.arange(12).view(3, 4)
    odd = lib.arange(10).as_strided((2, 1, 3), (3, 999, 1))
    return {
        "odd": observe(odd),
        "odd.view(6)": attempt(lambda: odd.view(6)),
        "odd.view(2, 3)": attempt(lambda: odd.view(2, 3)),
        "odd.view(3, 1, 2)": attempt(lambda: odd.view(3, 1, 2)),
        "odd.squeeze(1)": attempt(lambda: odd.squeeze(1)),
        "odd.transpose(0, 1)": attempt(lambda: odd.transpose(0, 1)),
        "x[:, :1]": attempt(lambda: x[:, :1]),
        "x[:, :1].view(3)": attempt(lambda: x[:, :1].view(3)),
        "x[:, :1].t()": attempt(lambda: x[:, :1].t()),
        "x[:1].view(2, 2)": attempt(lambda: x[:1].view(2, 2)),
        "x[:, None, 2:].squeeze(1)": attempt(lambda: x[:, None, 2:].squeeze(1)),
    }


# --- Task 1.11: elementwise arithmetic with broadcasting ------------------------------------


@case(W, points=2, tasks=("1.1", "1.2", "1.3", "1.4", "1.8", "1.10", "1.11"))
def broadcasting_arithmetic(lib):
    """+ - * broadcast their operands; the result is a fresh contiguous tensor."""
    col = lib.arange(3).view(3, 1)
    row = lib.arange(4)
    y = lib.arange(24).view(2, 3, 4)
    return {
        "col + row": attempt(lambda: col + row),
        "col - row": attempt(lambda: col - row),
        "row - col": attempt(lambda: row - col),
        "col * row": attempt(lambda: col * row),
        "y * row": attempt(lambda: y * row),
        "y + col": attempt(lambda: y + col),
        "y - tensor(1)": attempt(lambda: y - lib.tensor(1)),
        "arange(2).view(2, 1, 1) * col": attempt(lambda: lib.arange(2).view(2, 1, 1) * col),
        "shares storage with col": attempt(lambda: shares_storage(col + row, col)),
    }


@case(W, points=2, tasks=("1.1", "1.2", "1.3", "1.4", "1.5", "1.6", "1.8", "1.9", "1.10", "1.11"))
def arithmetic_on_views(lib):
    """Elementwise ops read each operand through its own strides (values; the layout of the
    result is arithmetic_result_layout's business)."""
    x = lib.arange(12).view(3, 4)
    e = lib.arange(3).view(3, 1).expand(3, 4)
    return {
        "x.t() + x.t()": _values_only(lambda: x.t() + x.t()),
        "x.t() * arange(3)": _values_only(lambda: x.t() * lib.arange(3)),
        "x[:, ::2] - x[:, 1::2]": _values_only(lambda: x[:, ::2] - x[:, 1::2]),
        "x[1:] * x[:-1]": _values_only(lambda: x[1:] * x[:-1]),
        "e + x": _values_only(lambda: e + x),
        "x.unfold(1, 2, 1) * 10": _values_only(lambda: x.unfold(1, 2, 1) * 10),
        "x[2, 1] + x[:, 0]": _values_only(lambda: x[2, 1] + x[:, 0]),
    }


@case(W, points=2, tasks=("1.1", "1.2", "1.3", "1.4", "1.5", "1.6", "1.8", "1.10", "1.11"))
def arithmetic_result_layout(lib):
    """The result is dense but follows the inputs' memory order (TensorIterator): a transposed
    input gives a transposed result; broadcast (stride-0) operands do not vote."""
    x = lib.arange(12).view(3, 4)
    y = lib.arange(24).view(2, 3, 4)
    t = lib.arange(6.0).view(2, 3).t()
    return {
        "arange(6.).view(2, 3).t() + 1": attempt(lambda: t + 1),
        "x.t() * x.t()": attempt(lambda: x.t() * x.t()),
        "y.permute(2, 0, 1) + 1": attempt(lambda: y.permute(2, 0, 1) + 1),
        "x.t() + arange(3)": attempt(lambda: x.t() + lib.arange(3)),
        "x.t().contiguous() + x.t()": attempt(lambda: x.t().contiguous() + x.t()),
        "x[:, ::2].t() * 2": attempt(lambda: x[:, ::2].t() * 2),
        "x[:, ::2] + 1": attempt(lambda: x[:, ::2] + 1),
        "arange(3).view(3, 1) + arange(4)": attempt(
            lambda: lib.arange(3).view(3, 1) + lib.arange(4)
        ),
        "zeros(3, 1).expand(3, 4).t() + 1": attempt(lambda: lib.zeros(3, 1).expand(3, 4).t() + 1),
    }


@case(W, points=2, tasks=("1.1", "1.2", "1.3", "1.8", "1.10", "1.11"))
def type_promotion(lib):
    """int64 with float gives float32; float32 with float64 gives float64; bool is lowest.

    Subtraction refuses bool operands (tensor or Python bool) whatever the other side is.
    """
    i = lib.arange(3)
    f = lib.arange(3, dtype=lib.float32)
    d = lib.arange(3, dtype=lib.float64)
    b = lib.tensor([True, False, True])
    return {
        "int64 + float32": attempt(lambda: i + f),
        "int64 * float64": attempt(lambda: i * d),
        "float32 - float64": attempt(lambda: f - d),
        "int64 * 2.5": attempt(lambda: i * 2.5),
        "int64 + 2": attempt(lambda: i + 2),
        "float32 + 2": attempt(lambda: f + 2),
        "2.5 - int64": attempt(lambda: 2.5 - i),
        "10 - int64": attempt(lambda: 10 - i),
        "3 * float64": attempt(lambda: 3 * d),
        "bool + bool": attempt(lambda: b + b),
        "bool * bool": attempt(lambda: b * b),
        "bool + 1": attempt(lambda: b + 1),
        "bool + True": attempt(lambda: b + True),
        "bool * 1.5": attempt(lambda: b * 1.5),
        "int64 + bool": attempt(lambda: i + b),
        "int64 * True": attempt(lambda: i * True),
        "bool - bool": attempt(lambda: b - b),
        "int64 - bool": attempt(lambda: i - b),
        "float32 - True": attempt(lambda: f - True),
        "True - float32": attempt(lambda: True - f),
    }


@case(W, points=2, tasks=("1.1", "1.2", "1.3", "1.8", "1.10", "1.11"))
def zero_dim_operands_in_promotion(lib):
    """A 0-d tensor only changes the dtype when it is of a higher kind (int < float)."""
    i = lib.arange(3)
    f = lib.arange(3, dtype=lib.float32)
    return {
        "int64 + tensor(1.5, float64)": attempt(lambda: i + lib.tensor(1.5, dtype=lib.float64)),
        "float32 + tensor(1.5, float64)": attempt(lambda: f + lib.tensor(1.5, dtype=lib.float64)),
        "tensor(2) + float32": attempt(lambda: lib.tensor(2) + f),
        "tensor(2.5) * int64": attempt(lambda: lib.tensor(2.5) * i),
        "tensor(2) * bool": attempt(lambda: lib.tensor(2) * lib.tensor([True, False])),
        "tensor(2) - tensor(0.5)": attempt(lambda: lib.tensor(2) - lib.tensor(0.5)),
    }


@case(W, points=1, tasks=("1.1", "1.2", "1.3", "1.8", "1.10", "1.11"))
def broadcast_errors_and_empty_results(lib):
    """Mismatched non-1 sizes raise; a size-0 dim broadcasts against 1 to an empty result."""
    return {
        "arange(3) + arange(4)": attempt(lambda: lib.arange(3) + lib.arange(4)),
        "ones(3) + ones(4)": attempt(lambda: lib.ones(3) + lib.ones(4)),
        "ones(2, 3) + ones(3, 2)": attempt(lambda: lib.ones(2, 3) + lib.ones(3, 2)),
        "ones(2, 3) * ones(2)": attempt(lambda: lib.ones(2, 3) * lib.ones(2)),
        "zeros(0, 3) + ones(3)": attempt(lambda: lib.zeros(0, 3) + lib.ones(3)),
        "zeros(0, 1) + ones(4)": attempt(lambda: lib.zeros(0, 1) + lib.ones(4)),
        "ones(2, 1) + ones(0)": attempt(lambda: lib.ones(2, 1) + lib.ones(0)),
        "zeros(0) + ones(3)": attempt(lambda: lib.zeros(0) + lib.ones(3)),
    }


# --- Task 1.12: writes through views --------------------------------------------------------


@case(W, points=2, tasks=("1.1", "1.2", "1.3", "1.4", "1.5", "1.6", "1.8", "1.12"))
def setitem_writes_through_views(lib):
    """x[...] = v writes into the storage: the base and every other view see it."""

    def scene(write):
        x = lib.arange(12).view(3, 4)
        t = x.t()
        try:
            write(x)
        except Exception as exc:  # noqa: BLE001 - the error is the observation
            return raised(exc)
        return {"x": observe(x), "x.t()": observe(t)}

    def put(key, value):
        def run(x):
            x[key] = value

        return run

    return {
        "x[0] = 5": scene(put(0, 5)),
        "x[1, 2] = -7": scene(put((1, 2), -7)),
        "x[:, 1] = tensor([7, 8, 9])": scene(put((slice(None), 1), lib.tensor([7, 8, 9]))),
        "x[1:, ::2] = tensor([-1, -2])": scene(
            put((slice(1, None), slice(None, None, 2)), lib.tensor([-1, -2]))
        ),
        "x[..., -1] = 0": scene(put((Ellipsis, -1), 0)),
        "x[0] = 2.7 (int64 target)": scene(put(0, 2.7)),
        "x[:] = arange(4.)": scene(put(slice(None), lib.arange(4, dtype=lib.float32))),
        "x.t()[1] = 100": scene(lambda x: x.t().__setitem__(1, 100)),
        "x[0] = ones(1, 1, 4) (leading 1s dropped)": scene(
            put(0, lib.ones(1, 1, 4, dtype=lib.int64))
        ),
        "x[0] = ones(2, 1, 4)": scene(put(0, lib.ones(2, 1, 4, dtype=lib.int64))),
        "x[1] = tensor([7, 8, 9])": scene(put(1, lib.tensor([7, 8, 9]))),
        "x[5] = 1": scene(put(5, 1)),
    }


@case(W, points=2, tasks=("1.1", "1.2", "1.3", "1.4", "1.5", "1.6", "1.12"))
def fill_through_views(lib):
    """fill_ writes every element of the view (and returns it); other elements stay."""

    scene = _write_scene(lib)

    return {
        "x.t()[1].fill_(-1)": scene(lambda x: x.t()[1].fill_(-1)),
        "x.t().fill_(1)": scene(lambda x: x.t().fill_(1)),
        "x[:, 1::2].fill_(0)": scene(lambda x: x[:, 1::2].fill_(0)),
        "x[1:, 1:].fill_(2.7) (int64)": scene(lambda x: x[1:, 1:].fill_(2.7)),
        "x[0, 0].fill_(9)": scene(lambda x: x[0, 0].fill_(9)),
        "x[3:].fill_(9) (empty)": scene(lambda x: x[3:].fill_(9)),
    }


@case(W, points=2, tasks=("1.1", "1.2", "1.3", "1.4", "1.5", "1.6", "1.8", "1.12"))
def copy_with_broadcasting(lib):
    """copy_(src) broadcasts src to the target's shape and casts to the target's dtype."""

    scene = _write_scene(lib)

    return {
        "x.copy_(tensor([1, 2, 3, 4]))": scene(lambda x: x.copy_(lib.tensor([1, 2, 3, 4]))),
        "x.copy_(tensor([[1], [2], [3]]))": scene(lambda x: x.copy_(lib.tensor([[1], [2], [3]]))),
        "x.t().copy_(arange(3))": scene(lambda x: x.t().copy_(lib.arange(3))),
        "x[:, ::2].copy_(tensor([[10, 20]]))": scene(
            lambda x: x[:, ::2].copy_(lib.tensor([[10, 20]]))
        ),
        "x.copy_(tensor([-1.5, 2.5, 3.9, -0.1]))": scene(
            lambda x: x.copy_(lib.tensor([-1.5, 2.5, 3.9, -0.1]))
        ),
        "float x.copy_(tensor([True, False, True, False]))": scene(
            lambda x: x.copy_(lib.tensor([True, False, True, False])), dtype=lib.float32
        ),
        "x.copy_(tensor([1, 2, 3]))": scene(lambda x: x.copy_(lib.tensor([1, 2, 3]))),
        "x[0].copy_(zeros(2, 4))": scene(lambda x: x[0].copy_(lib.zeros(2, 4))),
        "x[0].copy_(ones(1, 4)) (copy_ keeps no 1s)": scene(lambda x: x[0].copy_(lib.ones(1, 4))),
    }


@case(W, points=2, tasks=("1.1", "1.2", "1.3", "1.4", "1.5", "1.6", "1.8", "1.11", "1.12"))
def add_and_mul_in_place(lib):
    """add_/mul_ broadcast the other operand into self; self's shape and dtype never change."""

    scene = _write_scene(lib)

    return {
        "x.add_(1)": scene(lambda x: x.add_(1)),
        "x.t().add_(arange(3))": scene(lambda x: x.t().add_(lib.arange(3))),
        "x[:, :2].mul_(tensor([[10], [100], [1000]]))": scene(
            lambda x: x[:, :2].mul_(lib.tensor([[10], [100], [1000]]))
        ),
        "x[1].mul_(x[0])": scene(lambda x: x[1].mul_(x[0])),
        "float x.add_(arange(4))": scene(lambda x: x.add_(lib.arange(4)), dtype=lib.float32),
        "float x.mul_(0.5)": scene(lambda x: x.mul_(0.5), dtype=lib.float32),
        "x.add_(True)": scene(lambda x: x.add_(True)),
        "x.add_(1.5) (int64 self)": scene(lambda x: x.add_(1.5)),
        "x.mul_(tensor(2.0))": scene(lambda x: x.mul_(lib.tensor(2.0))),
        "x[:, :1].add_(ones(3, 4))": scene(lambda x: x[:, :1].add_(lib.ones(3, 4))),
    }


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
        "packed float32 (3, 5)": _guard(lambda: _aligned_report(packed)),
        "float32 (3, 5)": _guard(lambda: _aligned_report(a)),
        "float64 (4, 3)": _guard(lambda: _aligned_report(d)),
        "int64 (2, 3, 7)": _guard(lambda: _aligned_report(c)),
        "a[1:]": _guard(lambda: _aligned_report(a[1:])),
        "d[::2]": _guard(lambda: _aligned_report(d[::2])),
        "c[1]": _guard(lambda: _aligned_report(c[1])),
        "a[:, 1:] (column slice)": _guard(lambda: _aligned_report(a[:, 1:])),
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


# --- Property cases -------------------------------------------------------------------------
#
# Strategies import hypothesis lazily and produce plain JSON data; the case functions turn that
# data into calls on ``lib``. Each strategy draws one integer from hypothesis and seeds a
# ``random.Random`` with it (deterministic under derandomize; hypothesis's own generate phase
# repeats near-identical examples, a seed keeps the 40 examples well spread), then builds the
# example, tracking shapes in plain Python so each op is chosen to fit the shape it will meet.
# An op torch still rejects becomes an error observation.

_SIZES = [0, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 5, 5]  # zero-size dims stay the exception


def _slice_len(size: int, start: Any, stop: Any, step: int) -> int:
    return len(range(*slice(start, stop, step).indices(size)))


def _index_key(items: list) -> Any:
    """JSON index items -> a Python index: ints, ["slice", a, b, c], "None", "..."."""
    key = []
    for it in items:
        if isinstance(it, list):
            key.append(slice(it[1], it[2], it[3]))
        elif it == "None":
            key.append(None)
        elif it == "...":
            key.append(Ellipsis)
        else:
            key.append(it)
    return tuple(key)


def _render_index(items: list) -> str:
    parts = []
    for it in items:
        if isinstance(it, list):
            a, b, c = it[1:]
            text = f"{'' if a is None else a}:{'' if b is None else b}"
            parts.append(text + (f":{c}" if c != 1 else ""))
        else:
            parts.append(str(it))
    return "[" + ", ".join(parts) + "]"


def _index_shape(items: list, shape: list[int]) -> list[int]:
    """The shape ``x[items]`` has (assuming it is valid), for drawing the next op."""
    consumed = sum(1 for it in items if it not in ("None", "..."))
    out, d = [], 0
    for it in items:
        if it == "None":
            out.append(1)
        elif it == "...":
            n = max(len(shape) - consumed, 0)
            out.extend(shape[d : d + n])
            d += n
        elif isinstance(it, list):
            out.append(_slice_len(shape[d], it[1], it[2], it[3]) if d < len(shape) else 0)
            d += 1
        else:
            d += 1
    return out + shape[d:]


def _render_op(op: list) -> str:
    name, args = op[0], op[1:]
    if name == "index":
        return _render_index(args[0])
    if name in ("permute", "expand", "view", "reshape"):
        return f".{name}({', '.join(map(str, args[0]))})"
    if name == "squeeze" and args and isinstance(args[0], list):
        return f".squeeze({_fmt_shape(args[0])})"
    return f".{name}({', '.join(map(str, args))})"


def _apply_op(x: Any, op: list) -> Any:
    name, args = op[0], op[1:]
    if name == "index":
        return x[_index_key(args[0])]
    if name in ("permute", "expand", "view", "reshape"):
        return getattr(x, name)(*args[0])
    if name == "squeeze":
        if not args:
            return x.squeeze()
        return x.squeeze(tuple(args[0]) if isinstance(args[0], list) else args[0])
    return getattr(x, name)(*args)


def _factorisation(rnd: Any, numel: int) -> list[int]:
    """A random shape with ``numel`` elements (1-4 dims, a zero somewhere if numel is 0)."""
    ndim = rnd.choice([1, 2, 2, 3, 3, 4])
    if numel == 0:
        dims = [rnd.randint(1, 3) for _ in range(ndim - 1)]
        dims.insert(rnd.randint(0, ndim - 1), 0)
        return dims
    dims, rest = [], numel
    for _ in range(ndim - 1):
        d = rnd.choice([k for k in range(1, rest + 1) if rest % k == 0])
        dims.append(d)
        rest //= d
    dims.append(rest)
    return dims


def _regroup(rnd: Any, shape: list[int]) -> list[int]:
    """A nearby shape: merge two neighbours, split one dim, or add/drop a size-1 dim."""
    shape = list(shape)
    how = rnd.choice(["merge", "merge", "split", "one"])
    if how == "merge" and len(shape) >= 2:
        i = rnd.randint(0, len(shape) - 2)
        return shape[:i] + [shape[i] * shape[i + 1]] + shape[i + 2 :]
    splittable = [i for i, s in enumerate(shape) if s >= 4 and (s % 2 == 0 or s % 3 == 0)]
    if how == "split" and splittable:
        i = rnd.choice(splittable)
        k = 2 if shape[i] % 2 == 0 else 3
        return shape[:i] + [k, shape[i] // k] + shape[i + 1 :]
    if 1 in shape and len(shape) > 1 and rnd.random() < 0.5:
        shape.remove(1)
        return shape
    i = rnd.randint(0, len(shape))
    return shape[:i] + [1] + shape[i:]


def _maybe_infer(rnd: Any, shape: list[int]) -> list[int]:
    """Sometimes replace one size by -1."""
    if shape and rnd.random() < 0.25:
        shape = list(shape)
        shape[rnd.randint(0, len(shape) - 1)] = -1
    return shape


def _draw_bounds(rnd: Any, size: int) -> list[Any]:
    """Slice bounds: mostly a non-empty range (either end may be negative or omitted),
    sometimes anything at all, out-of-range and reversed bounds included."""
    if size and rnd.random() < 0.8:
        lo = rnd.randint(0, size - 1)
        hi = rnd.randint(lo + 1, size + 2)
        lo = None if lo == 0 and rnd.random() < 0.5 else lo - size if rnd.random() < 0.3 else lo
        hi = None if rnd.random() < 0.3 else hi - size if hi < size and rnd.random() < 0.3 else hi
        return [lo, hi]
    lo = None if rnd.random() < 0.3 else rnd.randint(-size - 2, size + 2)
    hi = None if rnd.random() < 0.3 else rnd.randint(-size - 2, size + 2)
    return [lo, hi]


def _draw_view_op(rnd: Any, shape: list[int], first: bool = False) -> tuple[list, list[int]]:
    """One view op that suits ``shape``, and the shape it produces.

    The first op of a chain is one that changes the layout (so that later views meet
    non-contiguous tensors); later ops favour view, which then often has to fail.
    """
    nd = len(shape)
    if first and nd >= 1:
        names = ["permute", "permute", "transpose", "index", "index", "unfold", "expand"]
        names += ["narrow"]
    else:
        names = ["unsqueeze", "view", "view", "view", "expand", "flatten"]
        if nd >= 1:
            names += ["permute", "transpose", "narrow", "select", "squeeze"]
            names += ["index", "index", "unfold"]
    if nd <= 2:
        names.append("t")
    name = rnd.choice(names)

    def dim(extra: int = 0) -> int:
        d = rnd.randint(0, nd - 1 + extra)
        return d - (nd + extra) if rnd.random() < 0.3 else d

    def wrap(d: int, n: int) -> int:
        return d + n if d < 0 else d

    if name == "permute":
        perm = rnd.sample(range(nd), nd)
        perm = [p - nd if rnd.random() < 0.2 else p for p in perm]
        return ["permute", perm], [shape[wrap(p, nd)] for p in perm]
    if name == "transpose":
        d0, d1 = dim(), dim()
        out = list(shape)
        out[wrap(d0, nd)], out[wrap(d1, nd)] = shape[wrap(d1, nd)], shape[wrap(d0, nd)]
        return ["transpose", d0, d1], out
    if name == "t":
        return ["t"], shape[::-1]
    if name == "narrow":
        d = dim()
        size = shape[wrap(d, nd)]
        start = rnd.randint(-size, size)
        room = size - wrap(start, size) if size else 0
        if rnd.random() < 0.1:  # sometimes one too long: torch raises
            length = room + 1
        else:
            length = rnd.randint(1, room) if room and rnd.random() < 0.85 else 0
        out = list(shape)
        out[wrap(d, nd)] = length
        return ["narrow", d, start, length], out
    if name == "select":
        d = dim()
        size = shape[wrap(d, nd)]
        index = rnd.randint(-size, size - 1) if size else 0
        return ["select", d, index], shape[: wrap(d, nd)] + shape[wrap(d, nd) + 1 :]
    if name == "unsqueeze":
        d = dim(extra=1) if nd else rnd.choice([0, -1])
        w = wrap(d, nd + 1)
        return ["unsqueeze", d], shape[:w] + [1] + shape[w:]
    if name == "squeeze":
        form = rnd.choice(["all", "one", "tuple"])
        if form == "all":
            return ["squeeze"], [s for s in shape if s != 1]
        if form == "one":
            d = dim()
            w = wrap(d, nd)
            return ["squeeze", d], shape if shape[w] != 1 else shape[:w] + shape[w + 1 :]
        dims = sorted(rnd.sample(range(nd), rnd.randint(1, min(nd, 2))))
        out = [s for i, s in enumerate(shape) if not (i in dims and s == 1)]
        return ["squeeze", [d - nd if rnd.random() < 0.3 else d for d in dims]], out
    if name == "expand":
        sizes = [rnd.choice([1, 2, 3, 3, 0, -1]) if s == 1 else rnd.choice([s, -1]) for s in shape]
        lead = [rnd.randint(1, 3) for _ in range(rnd.choice([0, 0, 1] if nd else [1, 2]))]
        out = lead + [s if e == -1 else e for s, e in zip(shape, sizes, strict=True)]
        return ["expand", lead + sizes], out
    if name == "view":
        target = (
            _regroup(rnd, shape) if nd and rnd.random() < 0.5 else _factorisation(rnd, _prod(shape))
        )
        return ["view", _maybe_infer(rnd, target)], target
    if name == "flatten":
        if nd == 0:
            return ["flatten", 0, -1], [1]
        a, b = sorted([rnd.randint(0, nd - 1), rnd.randint(0, nd - 1)])
        out = shape[:a] + [_prod(shape[a : b + 1])] + shape[b + 1 :]
        a = a - nd if rnd.random() < 0.3 else a
        b = b - nd if rnd.random() < 0.3 else b
        return ["flatten", a, b], out
    if name == "unfold":
        d = dim()
        w = wrap(d, nd)
        size = 0 if not shape[w] or rnd.random() < 0.1 else rnd.randint(1, shape[w])
        step = rnd.randint(1, 3)
        out = list(shape)
        out[w] = (shape[w] - size) // step + 1
        return ["unfold", d, size, step], out + [size]
    # name == "index": items for the leading (or, after "...", the trailing) dims, maybe a None
    k = rnd.randint(1, nd)
    from_end = k < nd and rnd.random() < 0.4
    items: list[Any] = []
    for size in shape[nd - k :] if from_end else shape[:k]:
        kind = rnd.choice(["all", "slice", "slice", "slice", "int"])
        if kind == "int" and size:
            items.append(rnd.randint(-size, size - 1))
        elif kind == "slice":
            items.append(["slice", *_draw_bounds(rnd, size), rnd.choice([1, 1, 2, 3])])
        else:
            items.append(["slice", None, None, 1])
    if from_end:
        items.insert(0, "...")
    elif rnd.random() < 0.2:
        items.append("...")
    if rnd.random() < 0.3:
        items.insert(rnd.randint(0, len(items)), "None")
    return ["index", items], _index_shape(items, shape)


def _random_shape(rnd: Any, sizes: list[int] = _SIZES, max_dims: int = 4) -> list[int]:
    return [rnd.choice(sizes) for _ in range(rnd.randint(1, max_dims))]


def _view_chain_strategy() -> Any:
    from hypothesis import strategies as st

    @st.composite
    def chains(draw: Any) -> dict[str, Any]:
        rnd = random.Random(draw(st.integers(0, 2**32 - 1)))
        shape = _random_shape(rnd)
        ops, cur = [], list(shape)
        for i in range(rnd.choice([1, 2, 3, 3, 4, 4, 5, 5])):
            op, cur = _draw_view_op(rnd, cur, first=i == 0)
            ops.append(op)
        return {"shape": shape, "ops": ops}

    return chains()


def _chain_start(shape: list[int]) -> str:
    return f"arange({_prod(shape)}).view({', '.join(map(str, shape))})"


def _view_chain_label(ex: dict[str, Any]) -> str:
    return _chain_start(ex["shape"]) + "".join(_render_op(op) for op in ex["ops"])


def _observe_chain(x: Any, ops: list) -> dict[str, Any]:
    """Observe every step; stop after the first one that raises."""
    out: dict[str, Any] = {}
    for i, op in enumerate(ops):
        label = f"step {i + 1} {_render_op(op)}"
        try:
            x = _apply_op(x, op)
        except Exception as exc:  # noqa: BLE001 - the error is the observation
            out[label] = raised(exc)
            break
        out[label] = attempt(lambda x=x: x)
    return out


@property_case(
    W,
    strategy=_view_chain_strategy,
    n=40,
    points=3,
    label=_view_chain_label,
    tasks=("1.1", "1.2", "1.3", "1.4", "1.5", "1.6", "1.7", "1.8", "1.9", "1.10"),
)
def random_view_chains(lib, ex):
    """A random chain of view ops on arange(n).view(shape); every step is compared."""
    shape = ex["shape"]
    x = lib.arange(_prod(shape)).view(*shape)
    return {"start": observe(x), **_observe_chain(x, ex["ops"])}


def _permute_reshape_strategy() -> Any:
    from hypothesis import strategies as st

    @st.composite
    def examples(draw: Any) -> dict[str, Any]:
        rnd = random.Random(draw(st.integers(0, 2**32 - 1)))
        shape = [rnd.choice(_SIZES) for _ in range(rnd.choice([1, 2, 2, 3, 3, 3, 4, 4]))]
        perm = list(range(len(shape)))
        while len(shape) > 1 and perm == sorted(perm) and rnd.random() < 0.9:
            perm = rnd.sample(range(len(shape)), len(shape))
        target = [shape[p] for p in perm]
        if rnd.random() < 0.6:
            for _ in range(rnd.randint(1, 2)):
                target = _regroup(rnd, target)
        else:
            target = _factorisation(rnd, _prod(shape))
        return {"shape": shape, "perm": perm, "target": _maybe_infer(rnd, target)}

    return examples()


def _permute_reshape_label(ex: dict[str, Any]) -> str:
    perm = ", ".join(map(str, ex["perm"]))
    return f"{_chain_start(ex['shape'])}.permute({perm}) to {_fmt_shape(ex['target'])}"


@property_case(
    W,
    strategy=_permute_reshape_strategy,
    n=40,
    points=3,
    label=_permute_reshape_label,
    tasks=("1.1", "1.2", "1.3", "1.4", "1.5", "1.10"),
)
def random_permute_then_view_or_reshape(lib, ex):
    """view follows the chunk rule exactly; reshape is a view exactly when view works."""
    shape, target = ex["shape"], ex["target"]
    base = lib.arange(_prod(shape)).view(*shape)
    x = base.permute(*ex["perm"])
    return {
        "x": observe(x, values=False),
        "x.view(target)": attempt(lambda: x.view(*target)),
        "x.reshape(target)": attempt(lambda: x.reshape(*target)),
        "x.reshape(target) shares storage": attempt(
            lambda: shares_storage(x.reshape(*target), base)
        ),
        "x.contiguous() shares storage": attempt(lambda: shares_storage(x.contiguous(), base)),
    }


_DTYPES = ["int64", "float32", "float64", "bool"]
_SCALARS = {"int": 3, "float": 2.5, "bool": True}


def _broadcast_strategy() -> Any:
    from hypothesis import strategies as st

    @st.composite
    def examples(draw: Any) -> dict[str, Any]:
        rnd = random.Random(draw(st.integers(0, 2**32 - 1)))
        full = [
            rnd.choice([0, 1, 2, 3, 3, 4, 4, 5]) for _ in range(rnd.choice([0, 1, 2, 2, 3, 3, 4]))
        ]
        if 0 in full and rnd.random() < 0.6:  # keep most results non-empty
            full = [s or 2 for s in full]

        def operand() -> list[int]:
            shape = full[rnd.choice([0, 0, 0, 1, 2]) :] if full else []
            return [1 if rnd.random() < 0.35 else s for s in shape]

        a, b = operand(), operand()
        if b and rnd.random() < 0.15:  # sometimes not broadcastable
            i = rnd.randint(0, len(b) - 1)
            b[i] = b[i] + 2
        return {
            "a": a,
            "a_dtype": rnd.choice(_DTYPES),
            "b": b,
            "b_dtype": rnd.choice(_DTYPES),
            "other": rnd.choice(["tensor", "tensor", "tensor", "tensor", "int", "float", "bool"]),
            "op": rnd.choice(["+", "-", "*"]),
            "reflected": rnd.random() < 0.3,
        }

    return examples()


def _make_operand(lib: Any, shape: list[int], dtype: str) -> Any:
    """Deterministic values of ``dtype``, computed from ``arange(n)``: small ints (some
    negative), halves, mixed bools."""
    index = lib.arange(_prod(shape)).tolist()
    if dtype == "bool":
        flat: list[Any] = [i % 3 == 0 for i in index]
    elif dtype == "int64":
        flat = [(i * 7 + 3) % 11 - 5 for i in index]
    else:
        flat = [i * 0.5 - 2 for i in index]
    if not shape:
        return lib.tensor(flat[0], dtype=getattr(lib, dtype))
    return lib.tensor(flat, dtype=getattr(lib, dtype)).view(*shape)


def _broadcast_label(ex: dict[str, Any]) -> str:
    a = f"{ex['a_dtype']} tensor {_fmt_shape(ex['a'])}"
    if ex["other"] == "tensor":
        b = f"{ex['b_dtype']} tensor {_fmt_shape(ex['b'])}"
    else:
        b = repr(_SCALARS[ex["other"]])
    left, right = (b, a) if ex["reflected"] else (a, b)
    return f"{left} {ex['op']} {right}"


@property_case(
    W,
    strategy=_broadcast_strategy,
    n=40,
    points=3,
    label=_broadcast_label,
    tasks=("1.1", "1.2", "1.3", "1.4", "1.8", "1.10", "1.11"),
)
def random_broadcast_arithmetic(lib, ex):
    """Broadcast shapes, promoted dtypes and values of + - * between random operands."""
    a = _make_operand(lib, ex["a"], ex["a_dtype"])
    if ex["other"] == "tensor":
        b = _make_operand(lib, ex["b"], ex["b_dtype"])
    else:
        b = _SCALARS[ex["other"]]
    left, right = (b, a) if ex["reflected"] else (a, b)
    ops = {"+": lambda: left + right, "-": lambda: left - right, "*": lambda: left * right}
    return _arith(ops[ex["op"]])
