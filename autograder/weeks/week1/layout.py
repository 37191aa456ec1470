"""Week 1 cases. Tasks 1.1-1.3: a fresh tensor's strides, element offsets and contiguity."""

from __future__ import annotations

from autograder import attempt, case, observe
from autograder.weeks.week1.common import (
    W,
    _fmt_shape,
    _prod,
    value,
)

# --- Task 1.1 / 1.2 / 1.3: a fresh tensor, its strides, its values --------------------------


# Shapes whose row-major strides hold every rule of Task 1.1: size-1 and size-0 dims, 0-d.
_SHAPES = [(2, 3, 4), (5,), (), (1, 1), (2, 1, 3), (4, 0, 3), (0,), (3, 1, 1, 2), (2, 0, 0)]

# (size, stride, storage offset) layouts no view op is needed to build: transposed, padded,
# stepped, expanded (stride 0), overlapping, zero-size and 0-d.
_LAYOUTS = [
    ((2, 3), (3, 1), 0),
    ((3, 2), (1, 3), 0),
    ((2, 3), (4, 1), 1),
    ((4,), (2,), 3),
    ((3, 4), (0, 1), 0),
    ((2, 2), (1, 1), 0),
    ((2, 1, 3), (3, 999, 1), 0),
    ((0, 3), (7, 5), 2),
    ((), (), 5),
    ((2, 3, 4), (1, 8, 2), 0),
]


@case(W, points=1, tasks="1.1")
def task_1_1_contiguous_strides(lib):
    """contiguous_strides(shape) is what a fresh torch tensor of that shape has."""
    out = {"arange(6).stride()": value(lambda: lib.arange(6).stride())}
    for shape in _SHAPES:
        out[f"contiguous_strides({shape})"] = value(lambda s=shape: lib.contiguous_strides(s))
        out[f"zeros{_fmt_shape(shape)}.stride()"] = value(lambda s=shape: lib.zeros(s).stride())
    return out


@case(W, points=2, tasks=("1.1", "1.2"))
def task_1_2_element_offsets_and_storage_size(lib):
    """element_offsets(shape, stride, offset) names the storage element each index reads, and
    compute_storage_nbytes(size, stride, itemsize) how many bytes hold the farthest one."""
    out = {"arange(6).tolist()": value(lambda: lib.arange(6).tolist())}
    for size, stride, offset in _LAYOUTS:
        out[f"element_offsets({size}, {stride}, {offset})"] = value(
            lambda a=(size, stride, offset): lib.element_offsets(*a)
        )
    for size, stride, _ in _LAYOUTS:
        for itemsize in (8, 1):
            out[f"compute_storage_nbytes({size}, {stride}, {itemsize})"] = value(
                lambda a=(size, stride, itemsize): lib.compute_storage_nbytes(*a)
            )
    for size, stride in [((2,), (-1,)), ((2, 3), (3, -1))]:
        out[f"compute_storage_nbytes({size}, {stride}, 4)"] = value(
            lambda a=(size, stride): lib.compute_storage_nbytes(*a, 4)
        )
    x = lib.arange(12.0)
    out["arange(12.).tolist()[5]"] = value(lambda: x.tolist()[5])
    out["tensor([4, 5, 6]).tolist()"] = value(lambda: lib.tensor([4, 5, 6]).tolist())
    return out


@case(W, points=2, tasks=("1.1", "1.2", "1.3"))
def task_1_3_contiguity_of_layouts(lib):
    """is_contiguous skips size-1 dims and holds for zero elements; a stride-0 dim of size > 1
    never is. is_non_overlapping_and_dense accepts any dim order that packs the storage."""
    out = {"arange(6).is_contiguous()": value(lambda: lib.arange(6).is_contiguous())}
    for size, stride, _ in _LAYOUTS:
        out[f"empty_strided({size}, {stride}).is_contiguous()"] = value(
            lambda a=(size, stride): lib.empty_strided(*a).is_contiguous()
        )
        out[f"is_non_overlapping_and_dense(empty_strided({size}, {stride}))"] = value(
            lambda a=(size, stride): lib.is_non_overlapping_and_dense(lib.empty_strided(*a))
        )
    out["empty_strided((2, 3), (3, 1))"] = attempt(
        lambda: lib.empty_strided((2, 3), (3, 1)), values=False
    )
    return out


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


@case(W, points=2, tasks=("1.1", "1.2", "1.3", "1.4", "1.5", "1.6", "1.7", "1.8", "1.9"))
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
