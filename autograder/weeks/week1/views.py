"""Week 1 cases. Tasks 1.4-1.7: view, permute and transpose, narrow/select/indexing,
unsqueeze/squeeze/flatten."""

from __future__ import annotations

from autograder import attempt, case, observe, shares_storage
from autograder.weeks.week1.common import (
    W,
    value,
)

# --- Task 1.4: view -------------------------------------------------------------------------


# (old size, old stride, new shapes): the chunk rule on layouts that are not contiguous.
_CHUNKS = [
    ((3, 2, 4), (4, 12, 1), [(3, 8), (6, 4), (3, 2, 2, 2), (24,), (3, 1, 2, 4), (1, 3, 2, 4)]),
    ((2, 3, 4), (24, 8, 1), [(6, 4), (2, 12), (2, 3, 2, 2), (24,), (3, 2, 4)]),
    ((4, 3), (1, 4), [(12,), (2, 2, 3), (4, 3, 1), (1, 4, 3), (4, 1, 3)]),
    ((2, 1, 3), (3, 999, 1), [(6,), (2, 3), (3, 2), (1, 2, 3, 1)]),
    ((3, 4), (0, 1), [(12,), (3, 2, 2), (6, 2)]),
    ((2, 0, 3), (0, 5, 1), [(0,), (6, 0), (0, 2, 3)]),
    ((), (), [(1,), (1, 1), ()]),
]


@case(W, points=3, tasks=("1.1", "1.4"))
def task_1_4_compute_stride(lib):
    """compute_stride(oldshape, oldstride, newshape): the chunk rule itself, on transposed,
    sliced, expanded and zero-size layouts; None exactly where torch's view refuses."""
    out = {"arange(6).stride()": value(lambda: lib.arange(6).stride())}
    for size, stride, shapes in _CHUNKS:
        for shape in shapes:
            out[f"compute_stride({size}, {stride}, {shape})"] = value(
                lambda a=(size, stride, shape): lib.compute_stride(*a)
            )
    return out


@case(W, points=2, tasks=("1.1", "1.4"))
def task_1_4_infer_size(lib):
    """infer_size(shape, numel) fills in one -1, and raises torch's errors for two -1s, other
    negative sizes, a count that cannot match and the ambiguous -1 of zero elements."""
    out = {"arange(6).stride()": value(lambda: lib.arange(6).stride())}
    for shape, numel in [
        ((2, -1), 6),
        ((-1,), 0),
        ((3, -1, 2), 12),
        ((-1, 4), 12),
        ((5, 5), 12),
        ((-1, 5), 12),
        ((-1, -1), 12),
        ((2, -2), 4),
        ((0, -1), 0),
        ((2, 0), 0),
        ((), 1),
        ((-1,), 1),
    ]:
        out[f"infer_size({shape}, {numel})"] = value(lambda a=(shape, numel): lib.infer_size(*a))
    return out


@case(W, points=2, tasks=("1.1", "1.2", "1.3", "1.4"))
def task_1_4_view_of_strided_layouts(lib):
    """view on layouts that are not contiguous: the strides it gives, or torch's error."""
    out = {"arange(6).view(2, 3)": observe(lib.arange(6).view(2, 3))}
    for size, stride, shapes in _CHUNKS:
        for shape in shapes:
            out[f"empty_strided({size}, {stride}).view{shape}"] = attempt(
                lambda a=(size, stride), shape=shape: lib.empty_strided(*a).view(shape),
                values=False,
            )
    return out


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
