"""Week 1's side of torch: trusted torch constructions of the lab's helpers (see truth/__init__)."""

from __future__ import annotations

from typing import Any

from autograder.weeks.week1.common import storage_extent


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


def _torch_contiguous_strides(torch: Any, shape: Any) -> tuple[int, ...]:
    """What a fresh torch tensor of ``shape`` has (c10/util/strides.h)."""
    return tuple(torch.empty(tuple(shape)).stride())


def _torch_element_offsets(torch: Any, shape: Any, stride: Any, storage_offset: int) -> Any:
    """Each element's storage index: view ``arange`` (whose values ARE the indices) with the
    layout, and read it back."""
    n = storage_offset + storage_extent(shape, stride)
    return torch.arange(n).as_strided(tuple(shape), tuple(stride), storage_offset)


def _torch_compute_storage_nbytes(torch: Any, size: Any, stride: Any, itemsize: int) -> int:
    """How many bytes torch gives ``empty_strided`` for this layout (EmptyTensor.cpp)."""
    dtype = {1: torch.bool, 2: torch.int16, 4: torch.float32, 8: torch.float64}[itemsize]
    return torch.empty_strided(tuple(size), tuple(stride), dtype=dtype).untyped_storage().nbytes()


def _torch_is_non_overlapping_and_dense(torch: Any, t: Any) -> bool:
    """torch's own check (TensorImpl::is_non_overlapping_and_dense, through prims_common)."""
    from torch._prims_common import is_non_overlapping_and_dense_or_false

    return bool(is_non_overlapping_and_dense_or_false(t))


def _torch_infer_size(torch: Any, shape: Any, numel: int) -> tuple[int, ...]:
    """The shape ``view`` settles on (InferSize.h), with torch's errors."""
    return tuple(torch.empty(numel).view(tuple(shape)).shape)


def _torch_compute_stride(torch: Any, oldshape: Any, oldstride: Any, newshape: Any) -> Any:
    """The strides ``view`` gives (TensorUtils.cpp: computeStride), None where it refuses."""
    old = torch.empty(storage_extent(oldshape, oldstride)).as_strided(oldshape, oldstride)
    try:
        return tuple(old.view(tuple(newshape)).stride())
    except RuntimeError:
        return None


def _torch_infer_expand_geometry(torch: Any, sizes: Any, strides: Any, target: Any) -> Any:
    """The (sizes, strides) ``expand`` gives (ExpandUtils.cpp: inferExpandGeometry)."""
    t = torch.empty(storage_extent(sizes, strides)).as_strided(sizes, strides)
    e = t.expand(tuple(target))
    return list(e.shape), list(e.stride())


# Names the torch side of a week-1 case may use that torch itself does not have.
TORCH_EXTRAS = {
    "empty_aligned": _torch_empty_aligned,
    "contiguous_strides": _torch_contiguous_strides,
    "element_offsets": _torch_element_offsets,
    "compute_storage_nbytes": _torch_compute_storage_nbytes,
    "is_non_overlapping_and_dense": _torch_is_non_overlapping_and_dense,
    "infer_size": _torch_infer_size,
    "compute_stride": _torch_compute_stride,
    "infer_expand_geometry": _torch_infer_expand_geometry,
}
