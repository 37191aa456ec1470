"""Week 1: a strided tensor on a flat NumPy storage, built the way PyTorch builds one.

Underneath, a PyTorch CPU tensor is a *storage* (one flat buffer, ``c10/core/StorageImpl.h``)
plus a *view* of it (``c10/core/TensorImpl.h``): shape, stride, storage_offset and dtype.
Element ``(i_0, ..., i_{n-1})`` lives at

    storage[storage_offset + i_0 * stride[0] + ... + i_{n-1} * stride[n-1]]

Every view op below (view, permute, expand, select, slicing, ...) only computes a new
(shape, stride, storage_offset) over the SAME storage; copies allocate a new one.
Names and signatures mirror torch; each docstring says where the rule lives in PyTorch 2.13.
This module must never import torch: NumPy only holds the flat storage.

The exercises ("Task 1.x" in a docstring; each may span several functions):
  1.1 contiguous_strides            1.8  expand, infer_expand_geometry, infer_broadcast_size,
  1.2 element_offsets,                   broadcast_shapes
      compute_storage_nbytes        1.9  unfold, as_strided
  1.3 is_contiguous,
      is_non_overlapping_and_dense  1.10 contiguous, reshape, clone, reorder_dimensions,
  1.4 view, infer_size,                  infer_dense_strides
      compute_stride                1.11 + - *: result_type, compute_output_strides, binary_op
  1.5 permute, transpose, t         1.12 __setitem__, fill_, copy_, add_, mul_,
  1.6 narrow, select, _slice,            _inplace_binary_op, assert_no_internal_overlap,
      __getitem__                        assert_no_partial_overlap
  1.7 unsqueeze, squeeze, flatten   1.13 empty_aligned
"""

from __future__ import annotations

import builtins
import functools
import math
import operator
from collections.abc import Iterator, Sequence

import numpy as np

# === Given: dtypes, storage, Size and small argument helpers ======================================


class DType:
    """A scalar type (c10/core/ScalarType.h). ``str()`` is torch's name, e.g. "float32"."""

    def __init__(self, name: str, np_dtype: type, legacy_name: str) -> None:
        self.name = name
        self.np = np.dtype(np_dtype)
        self.itemsize = self.np.itemsize
        self.legacy_name = legacy_name  # torch's old name, used in its messages: "Float"
        self.tensor_type = f"torch.{legacy_name}Tensor"
        self.is_floating_point = self.np.kind == "f"

    def __repr__(self) -> str:
        return self.name


float32 = DType("float32", np.float32, "Float")
float64 = DType("float64", np.float64, "Double")
int64 = DType("int64", np.int64, "Long")
bool = DType("bool", np.bool_, "Bool")  # torch.bool: from here on, Python's is builtins.bool

_PROMOTION_ORDER = [bool, int64, float32, float64]  # promoteTypes, restricted to our 4 dtypes


def promote_types(a: DType | None, b: DType | None) -> DType | None:
    """c10/core/ScalarType.cpp: promoteTypes (None plays torch's ScalarType::Undefined)."""
    if a is None or b is None:
        return a or b
    return max(a, b, key=_PROMOTION_ORDER.index)


def _scalar_dtype(value: object) -> DType:
    """The dtype torch gives a Python number: bool, int64, or the default float32."""
    if isinstance(value, builtins.bool):
        return bool
    return int64 if isinstance(value, int) else float32


def _is_scalar(value: object) -> builtins.bool:
    return isinstance(value, builtins.bool | int | float)


class Storage:
    """One flat, typed buffer (c10/core/StorageImpl.h). Views of each other share it."""

    def __init__(self, data: np.ndarray) -> None:
        self.data = data  # 1-D

    def nbytes(self) -> int:
        return self.data.nbytes

    def data_ptr(self) -> int:
        """The address of the first byte; 0 for an empty storage, as in torch."""
        return self.data.ctypes.data if self.data.nbytes else 0


class Size(tuple):
    """torch.Size: a tuple of ints."""

    def __repr__(self) -> str:
        return f"Size({list(self)})"


def _is_int(value: object) -> builtins.bool:
    return not isinstance(value, builtins.bool) and hasattr(type(value), "__index__")


def _parse_shape(args: tuple, fn: str, name: str = "size") -> tuple[int, ...]:
    """``f(2, 3)``, ``f((2, 3))`` and ``f([2, 3])`` all mean (2, 3), like torch's arg parser."""
    if not args:
        raise TypeError(f'{fn}() missing 1 required positional arguments: "{name}"')
    if len(args) == 1 and isinstance(args[0], Sequence):
        args = tuple(args[0])
    for i, v in enumerate(args):
        if not _is_int(v):
            raise TypeError(
                f"{fn}(): argument '{name}' failed to unpack the object at pos {i + 1} with "
                f'error "type must be tuple of ints,but got {type(v).__name__}"'
            )
    return tuple(operator.index(v) for v in args)


def _check_size_nonnegative(shape: Sequence[int]) -> None:
    for s in shape:
        if s < 0:
            raise RuntimeError(
                f"Trying to create tensor with negative dimension {s}: {list(shape)}"
            )


def maybe_wrap_dim(dim: int, ndim: int, wrap_scalar: builtins.bool = True) -> int:
    """c10/core/WrapDimMinimal.h: maybe_wrap_dim. -1 means the last dim.

    A 0-d tensor is treated as 1-d (dims 0 and -1 are accepted) unless ``wrap_scalar`` is
    False, which ``size(d)`` and ``stride(d)`` use.
    """
    dim = operator.index(dim)
    if ndim == 0:
        if not wrap_scalar:
            raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
        ndim = 1
    if not -ndim <= dim <= ndim - 1:
        raise IndexError(
            f"Dimension out of range (expected to be in range of [{-ndim}, {ndim - 1}], "
            f"but got {dim})"
        )
    return dim + ndim if dim < 0 else dim


def _unpack_slice(s: slice) -> tuple[int | None, int | None, int]:
    """Python's own slice checks (PySlice_Unpack), before torch sees the numbers."""
    start, stop, step = (
        None if v is None else operator.index(v) for v in (s.start, s.stop, s.step)
    )
    if step == 0:
        raise ValueError("slice step cannot be zero")
    return start, stop, 1 if step is None else step


# === Tasks 1.1 and 1.2: the formulas everything else is built on ==============================


def contiguous_strides(shape: Sequence[int]) -> tuple[int, ...]:
    """Task 1.1: the row-major strides of a fresh tensor of ``shape``.

    c10/util/strides.h: contiguous_strides. The last dim has stride 1 and each earlier dim
    steps over one whole row of the dims after it. A size-0 dim counts as size 1 there, so
    ``zeros(4, 0, 3)`` has strides (3, 3, 1), not (0, 3, 1).
    """
    ### BEGIN SOLUTION
    strides = [1] * len(shape)
    for d in range(len(shape) - 2, -1, -1):
        strides[d] = strides[d + 1] * max(shape[d + 1], 1)
    return tuple(strides)
    ### END SOLUTION


def element_offsets(shape: Sequence[int], stride: Sequence[int], storage_offset: int) -> np.ndarray:
    """Task 1.2: an int64 array of ``shape`` holding each element's index into the storage.

    ``offsets[i_0, ..., i_n] = storage_offset + sum(i_k * stride[k])``: the formula every read
    and write goes through (c10/core/TensorImpl.h keeps exactly sizes, strides and
    storage_offset; TensorIterator walks them in aten/src/ATen/TensorIterator.cpp).
    """
    ### BEGIN SOLUTION
    offsets = np.array(storage_offset, dtype=np.int64)  # 0-d: the single element of a 0-d tensor
    for size, step in zip(shape, stride, strict=True):
        # Add one dim at a time: broadcasting an index column against the offsets so far.
        offsets = offsets[..., None] + np.arange(size, dtype=np.int64) * step
    return offsets
    ### END SOLUTION


def compute_storage_nbytes(size: Sequence[int], stride: Sequence[int], itemsize: int) -> int:
    """Task 1.2: bytes needed to hold the element with the largest offset (offset 0 view).

    The offset formula read backwards: the last element sits at sum((size - 1) * stride), so a
    storage of that many elements plus one holds every element. ``empty_strided`` and
    ``as_strided`` use it to size and to bounds-check a layout.

    aten/src/ATen/EmptyTensor.cpp: computeStorageNbytes: (1 + sum((size - 1) * stride)) *
    itemsize, or 0 if any size is 0. torch computes in unsigned 64-bit ints, so a negative
    (size - 1) * stride shows up as an overflow.
    """
    ### BEGIN SOLUTION
    if any(s == 0 for s in size):
        return 0
    if any((s - 1) * st < 0 for s, st in zip(size, stride, strict=True)):
        raise RuntimeError(
            f"Storage size calculation overflowed with sizes={list(size)} and "
            f"strides={list(stride)}"
        )
    return (1 + sum((s - 1) * st for s, st in zip(size, stride, strict=True))) * itemsize
    ### END SOLUTION


# === The Tensor ===================================================================================


class Tensor:
    """A view of a Storage: (storage, shape, stride, storage_offset, dtype), as TensorImpl."""

    def __init__(
        self,
        storage: Storage,
        shape: Sequence[int],
        stride: Sequence[int],
        storage_offset: int,
        dtype: DType,
    ) -> None:
        self._storage = storage
        self._shape = Size(int(s) for s in shape)
        self._stride = tuple(int(s) for s in stride)
        self._storage_offset = int(storage_offset)
        self.dtype = dtype

    # --- given: metadata accessors ----------------------------------------------------------------

    @property
    def shape(self) -> Size:
        return self._shape

    def size(self, dim: int | None = None) -> Size | int:
        if dim is None:
            return self._shape
        return self._shape[maybe_wrap_dim(dim, self.dim(), wrap_scalar=False)]

    def stride(self, dim: int | None = None) -> tuple[int, ...] | int:
        if dim is None:
            return self._stride
        return self._stride[maybe_wrap_dim(dim, self.dim(), wrap_scalar=False)]

    def storage_offset(self) -> int:
        return self._storage_offset

    def dim(self) -> int:
        return len(self._shape)

    @property
    def ndim(self) -> int:
        return self.dim()

    def numel(self) -> int:
        return math.prod(self._shape)

    def element_size(self) -> int:
        return self.dtype.itemsize

    def untyped_storage(self) -> Storage:
        return self._storage

    def __len__(self) -> int:
        if self.dim() == 0:
            raise TypeError("len() of a 0-d tensor")
        return self._shape[0]

    def __bool__(self) -> builtins.bool:
        if self.numel() != 1:
            amount = "no values" if self.numel() == 0 else "more than one value"
            raise RuntimeError(f"Boolean value of Tensor with {amount} is ambiguous")
        return builtins.bool(self.item())

    def __iter__(self) -> Iterator[Tensor]:
        if self.dim() == 0:
            raise TypeError("iteration over a 0-d tensor")
        return (self[i] for i in range(len(self)))

    def __repr__(self) -> str:
        suffix = "" if self.dtype in (float32, int64, bool) else f", dtype={self.dtype}"
        try:
            return f"tensor({self.tolist()}{suffix})"
        except NotImplementedError:
            return f"tensor(<shape={list(self.shape)}, stride={list(self.stride())}>{suffix})"

    # --- given: reading and writing elements (through element_offsets, Task 1.2) ------------------

    def _alias_with(
        self, shape: Sequence[int], stride: Sequence[int], storage_offset: int | None = None
    ) -> Tensor:
        """A new view of the same storage (aten: alias_with_sizes_and_strides). No checks."""
        offset = self._storage_offset if storage_offset is None else storage_offset
        return Tensor(self._storage, shape, stride, offset, self.dtype)

    def _offsets(self) -> np.ndarray:
        return element_offsets(self._shape, self._stride, self._storage_offset)

    def _values(self) -> np.ndarray:
        """The elements as a fresh NumPy array of ``shape`` (a copy, read through the strides)."""
        return np.asarray(self._storage.data[self._offsets()])

    def _write_values(self, values: np.ndarray) -> None:
        """Store ``values`` (broadcastable to ``shape``) into this view's elements."""
        self._storage.data[self._offsets()] = values

    def tolist(self) -> list | builtins.bool | int | float:
        return self._values().tolist()

    def item(self) -> builtins.bool | int | float:
        if self.numel() != 1:
            raise RuntimeError(
                f"a Tensor with {self.numel()} elements cannot be converted to Scalar"
            )
        return self._values().reshape(-1)[0].item()

    # --- Task 1.3: contiguity ---------------------------------------------------------------------

    def is_contiguous(self) -> builtins.bool:
        """Task 1.3: True when the strides are the row-major strides of the shape.

        c10/core/Contiguity.h: _compute_contiguous. Walking from the last dim, every dim of
        size != 1 must have stride == (product of the sizes after it). Size-1 dims are skipped
        (any stride is fine: there is only index 0), and a tensor with no elements is always
        contiguous, whatever its strides. So a stride-0 (expanded) dim of size > 1 makes a
        tensor with elements non-contiguous (0 is never the expected stride), while an empty
        one stays contiguous: ``empty_strided((3, 0), (0, 1))`` is contiguous.
        """
        ### BEGIN SOLUTION
        if self.numel() == 0:
            return True
        expected = 1
        for size, step in zip(reversed(self._shape), reversed(self._stride), strict=True):
            if size == 1:
                continue
            if step != expected:
                return False
            expected *= size
        return True
        ### END SOLUTION

    # --- Task 1.4: view ---------------------------------------------------------------------------

    def view(self, *shape: int) -> Tensor:
        """Task 1.4: the same elements, in row-major order, seen with a new shape; no copy.

        aten/src/ATen/native/TensorShape.cpp: view_impl = infer_size (the -1), then
        computeStride (can the new shape be expressed with strides over the SAME storage?).
        When it can't: "view size is not compatible with input tensor's size and stride".
        """
        shape = _parse_shape(shape, "view")
        ### BEGIN SOLUTION
        new_shape = infer_size(shape, self.numel())
        new_stride = compute_stride(self._shape, self._stride, new_shape)
        if new_stride is None:
            raise RuntimeError(
                "view size is not compatible with input tensor's size and stride (at least one "
                "dimension spans across two contiguous subspaces). Use .reshape(...) instead."
            )
        return self._alias_with(new_shape, new_stride)
        ### END SOLUTION

    # --- Task 1.5: permute, transpose, t ----------------------------------------------------------

    def permute(self, *dims: int) -> Tensor:
        """Task 1.5: reorder the dims; sizes and strides move together, the storage stays.

        aten/src/ATen/native/TensorShape.cpp: permute / _permute_size_stride_estimation.
        ``dims`` must name every dim exactly once (negative dims wrap). The length check's
        message says "permute(sparse_coo)" in torch, even for dense tensors.
        """
        dims = _parse_shape(dims, "permute", "dims")
        ### BEGIN SOLUTION
        if len(dims) != self.dim():
            raise RuntimeError(
                "permute(sparse_coo): number of dimensions in the tensor input does not match "
                "the length of the desired ordering of dimensions i.e. "
                f"input.dim() = {self.dim()} is not equal to len(dims) = {len(dims)}"
            )
        wrapped = [maybe_wrap_dim(d, self.dim()) for d in dims]
        if len(set(wrapped)) != len(wrapped):
            raise RuntimeError("permute(): duplicate dims are not allowed.")
        return self._alias_with(
            [self._shape[d] for d in wrapped], [self._stride[d] for d in wrapped]
        )
        ### END SOLUTION

    def transpose(self, dim0: int, dim1: int) -> Tensor:
        """Task 1.5: swap two dims (aten/src/ATen/native/TensorShape.cpp: transpose)."""
        ### BEGIN SOLUTION
        d0, d1 = maybe_wrap_dim(dim0, self.dim()), maybe_wrap_dim(dim1, self.dim())
        shape, stride = list(self._shape), list(self._stride)
        if self.dim() > 0:  # a 0-d tensor has nothing to swap (dims 0 and -1 still accepted)
            shape[d0], shape[d1] = shape[d1], shape[d0]
            stride[d0], stride[d1] = stride[d1], stride[d0]
        return self._alias_with(shape, stride)
        ### END SOLUTION

    def t(self) -> Tensor:
        """Task 1.5: transpose(0, 1) for <= 2-d tensors; 0-d and 1-d come back as a plain view.

        aten/src/ATen/native/TensorShape.cpp: t / check_t.
        """
        ### BEGIN SOLUTION
        if self.dim() > 2:
            raise RuntimeError(
                f"t() expects a tensor with <= 2 dimensions, but self is {self.dim()}D"
            )
        return self.transpose(0, 0 if self.dim() < 2 else 1)
        ### END SOLUTION

    # --- Task 1.6: narrow, select, slicing, indexing ----------------------------------------------

    def narrow(self, dim: int, start: int, length: int) -> Tensor:
        """Task 1.6: elements start..start+length-1 of ``dim``: only the offset and one size move.

        aten/src/ATen/native/TensorShape.cpp: narrow_symint, which then calls slice.
        ``start`` may be negative (counted from the end) and may equal the size (empty result).
        """
        ### BEGIN SOLUTION
        if self.dim() == 0:
            raise RuntimeError("narrow() cannot be applied to a 0-dim tensor.")
        if length < 0:
            raise RuntimeError("narrow(): length must be non-negative.")
        size = self._shape[maybe_wrap_dim(dim, self.dim())]
        if not -size <= start <= size:
            raise IndexError(
                f"start out of range (expected to be in range of [{-size}, {size}], "
                f"but got {start})"
            )
        if start < 0:
            start += size
        if start + length > size:
            raise RuntimeError(
                f"start ({start}) + length ({length}) exceeds dimension size ({size})."
            )
        return self._slice(dim, start, start + length, 1)
        ### END SOLUTION

    def select(self, dim: int, index: int) -> Tensor:
        """Task 1.6: fix ``dim`` at ``index``: the dim disappears, index * stride joins the offset.

        aten/src/ATen/native/TensorShape.cpp: select_symint.
        """
        ### BEGIN SOLUTION
        if self.dim() == 0:
            raise IndexError("select() cannot be applied to a 0-dim tensor.")
        dim = maybe_wrap_dim(dim, self.dim())
        size = self._shape[dim]
        if not -size <= index < size:
            raise IndexError(
                f"select(): index {index} out of range for tensor of size "
                f"{list(self._shape)} at dimension {dim}"
            )
        if index < 0:
            index += size
        shape, stride = list(self._shape), list(self._stride)
        del shape[dim], stride[dim]
        return self._alias_with(shape, stride, self._storage_offset + index * self._stride[dim])
        ### END SOLUTION

    def _slice(self, dim: int, start: int | None, stop: int | None, step: int) -> Tensor:
        """Task 1.6: ``x[start:stop:step]`` along ``dim`` (step > 0), as a view.

        aten/src/ATen/native/TensorShape.cpp: slice. Negative bounds count from the end, then
        both are clamped into [0, size] (never an error, like Python lists); the size is
        ceil((stop - start) / step) and the stride is multiplied by step.
        """
        ### BEGIN SOLUTION
        if self.dim() == 0:
            raise IndexError("slice() cannot be applied to a 0-dim tensor.")
        dim = maybe_wrap_dim(dim, self.dim())
        size = self._shape[dim]
        start = 0 if start is None else start
        stop = size if stop is None else stop
        if start < 0:
            start += size
        if stop < 0:
            stop += size
        start = min(max(start, 0), size)
        stop = min(max(stop, start), size)
        shape, stride = list(self._shape), list(self._stride)
        shape[dim] = (stop - start + step - 1) // step
        stride[dim] *= step
        return self._alias_with(shape, stride, self._storage_offset + start * self._stride[dim])
        ### END SOLUTION

    def __getitem__(self, index: object) -> Tensor:
        """Task 1.6: basic indexing with ints, slices (step > 0), None, ... and tuples of them.

        torch/csrc/autograd/python_variable_indexing.cpp: THPVariable_getitem and
        aten/src/ATen/TensorIndexing.h: applySlicing. Walk the index items with a cursor ``dim``
        into the result: an int selects (the dim goes away), a slice slices (cursor moves on),
        None unsqueezes (cursor moves on), ``...`` skips the dims no item names.
        Every result is a view. Out-of-range ints are IndexErrors naming the item's position.
        """
        ### BEGIN SOLUTION
        if not isinstance(index, tuple):
            # A lone int or slice takes a shortcut that skips the "too many indices" check,
            # so on a 0-d tensor it gets its own messages.
            if self.dim() == 0 and _is_int(index):
                i = operator.index(index)
                if i == 0:
                    raise IndexError(
                        "invalid index of a 0-dim tensor. Use `tensor.item()` in Python or "
                        "`tensor.item<T>()` in C++ to convert a 0-dim tensor to a number"
                    )
                raise IndexError(f"index {i} is out of bounds for dimension 0 with size 0")
            if self.dim() == 0 and isinstance(index, slice):
                raise IndexError("slice() cannot be applied to a 0-dim tensor.")
            index = (index,)
        for item in index:
            if not (item is None or item is Ellipsis or isinstance(item, slice) or _is_int(item)):
                raise IndexError(
                    "only integers, slices (`:`), ellipsis (`...`), None and long or byte "
                    f"Variables are valid indices (got {type(item).__name__})"
                )
        specified = sum(1 for item in index if isinstance(item, slice) or _is_int(item))
        if specified > self.dim():
            raise IndexError(f"too many indices for tensor of dimension {self.dim()}")
        result, dim = self._alias_with(self._shape, self._stride), 0  # x[()] is a new view too
        for position, item in enumerate(index):
            if item is None:
                result, dim = result.unsqueeze(dim), dim + 1
            elif item is Ellipsis:
                dim += self.dim() - specified
            elif isinstance(item, slice):
                start, stop, step = _unpack_slice(item)
                if step <= 0:
                    raise ValueError("step must be greater than zero")
                result, dim = result._slice(dim, start, stop, step), dim + 1
            else:
                i, size = operator.index(item), result.shape[dim]
                if not -size <= i < size:
                    raise IndexError(
                        f"index {i} is out of bounds for dimension {position} with size {size}"
                    )
                result = result.select(dim, i)
        return result
        ### END SOLUTION

    # --- Task 1.7: unsqueeze, squeeze, flatten ----------------------------------------------------

    def unsqueeze(self, dim: int) -> Tensor:
        """Task 1.7: insert a size-1 dim at ``dim`` (-1 appends).

        aten/src/ATen/native/TensorShape.cpp: unsqueeze / inferUnsqueezeGeometry. The new
        stride is size[dim] * stride[dim] (1 at the end), so the tensor stays viewable the same
        way.
        """
        ### BEGIN SOLUTION
        dim = maybe_wrap_dim(dim, self.dim() + 1)
        shape, stride = list(self._shape), list(self._stride)
        new_stride = 1 if dim >= self.dim() else shape[dim] * stride[dim]
        shape.insert(dim, 1)
        stride.insert(dim, new_stride)
        return self._alias_with(shape, stride)
        ### END SOLUTION

    def squeeze(self, dim: int | Sequence[int] | None = None) -> Tensor:
        """Task 1.7: drop size-1 dims: all of them, or only those named (an int or a tuple).

        aten/src/ATen/native/TensorShape.cpp: squeeze / inferSqueezeGeometry, and
        dim_list_to_bitset (aten/src/ATen/WrapDimUtilsMulti.h) for a tuple. A named dim whose
        size is not 1 is left alone (still a view); naming a dim twice is an error.
        """
        ### BEGIN SOLUTION
        if dim is None:
            chosen = set(range(self.dim()))
        else:
            dims = [dim] if _is_int(dim) else list(dim)
            chosen = set()
            for d in dims:
                d = maybe_wrap_dim(d, self.dim())
                if d in chosen:
                    raise RuntimeError(f"dim {d} appears multiple times in the list of dims")
                chosen.add(d)
        keep = [d for d in range(self.dim()) if not (d in chosen and self._shape[d] == 1)]
        return self._alias_with([self._shape[d] for d in keep], [self._stride[d] for d in keep])
        ### END SOLUTION

    def flatten(self, start_dim: int = 0, end_dim: int = -1) -> Tensor:
        """Task 1.7: merge dims start_dim..end_dim into one, with reshape (a view when possible).

        aten/src/ATen/native/TensorShape.cpp: flatten. A 0-d tensor becomes shape (1,);
        start_dim == end_dim returns the tensor itself.
        """
        ### BEGIN SOLUTION
        start = maybe_wrap_dim(start_dim, self.dim())
        end = maybe_wrap_dim(end_dim, self.dim())
        if start > end:
            raise RuntimeError("flatten() has invalid args: start_dim cannot come after end_dim")
        if self.dim() == 0:
            return self.reshape(1)
        if start == end:
            return self
        merged = math.prod(self._shape[start : end + 1])
        return self.reshape(*self._shape[:start], merged, *self._shape[end + 1 :])
        ### END SOLUTION

    # --- Task 1.8: expand -------------------------------------------------------------------------

    def expand(self, *sizes: int) -> Tensor:
        """Task 1.8: repeat size-1 dims (and add leading dims) without copying: stride 0.

        aten/src/ATen/native/TensorShape.cpp: expand, and aten/src/ATen/ExpandUtils.cpp:
        inferExpandGeometry. -1 keeps a size. A negative size other than -1 only trips torch's
        numel overflow check.
        """
        sizes = _parse_shape(sizes, "expand")
        ### BEGIN SOLUTION
        if len(sizes) < self.dim():
            raise RuntimeError(
                f"expand({self.dtype.tensor_type}{{{list(self._shape)}}}, size={list(sizes)}): "
                f"the number of sizes provided ({len(sizes)}) must be greater or equal to the "
                f"number of dimensions in the tensor ({self.dim()})"
            )
        shape, stride = infer_expand_geometry(self._shape, self._stride, sizes)
        if any(s < 0 for s in shape):
            raise RuntimeError("numel: integer multiplication overflow")
        return self._alias_with(shape, stride)
        ### END SOLUTION

    # --- Task 1.9: unfold, as_strided -------------------------------------------------------------

    def unfold(self, dimension: int, size: int, step: int) -> Tensor:
        """Task 1.9: sliding windows of ``size`` every ``step`` along ``dimension``, as a view.

        aten/src/ATen/native/TensorShape.cpp: unfold. ``dimension`` gets (n - size) // step + 1
        windows and stride * step; a new last dim of length ``size`` walks inside a window
        with the old stride. A 0-d tensor is checked like a 1-element 1-d one (dim 0 or -1,
        size 0 or 1), but the result is one window, with no dim of windows:
        ``tensor(5).unfold(0, 1, 1)`` has shape (1,) and stride (1,), where
        ``tensor([5]).unfold(0, 1, 1)`` has shape (1, 1).
        """
        ### BEGIN SOLUTION
        d = maybe_wrap_dim(dimension, self.dim())
        max_size = self._shape[d] if self.dim() else 1
        if size > max_size:
            raise RuntimeError(
                f"maximum size for tensor at dimension {d} is {max_size} but size is {size}"
            )
        if size < 0:
            raise RuntimeError(f"size is {size} but must be >= 0")
        if step <= 0:
            raise RuntimeError(f"step is {step} but must be > 0")
        if self.dim() == 0:
            return self.as_strided([size], [1])
        shape, stride = list(self._shape), list(self._stride)
        shape[d], stride[d] = (shape[d] - size) // step + 1, stride[d] * step
        return self.as_strided(shape + [size], stride + [self._stride[d]])
        ### END SOLUTION

    def as_strided(
        self, size: Sequence[int], stride: Sequence[int], storage_offset: int | None = None
    ) -> Tensor:
        """Task 1.9: any (size, stride, offset) over this storage, if it stays inside it.

        aten/src/ATen/native/TensorShape.cpp: as_strided_tensorimpl / setStrided and
        aten/src/ATen/native/Resize.h: checkInBoundsForStorage. Strides are absolute (not
        relative to this view's); the offset defaults to this view's. Overlaps are allowed.
        """
        size, stride = tuple(size), tuple(stride)
        ### BEGIN SOLUTION
        offset = self._storage_offset if storage_offset is None else operator.index(storage_offset)
        if len(size) != len(stride):
            raise RuntimeError("mismatch in length of strides and shape")
        if any(s < 0 for s in stride):
            raise RuntimeError(
                "as_strided: Negative strides are not supported at the moment, "
                f"got strides: {list(stride)}"
            )
        itemsize = self.dtype.itemsize
        needed = compute_storage_nbytes(size, stride, itemsize)
        if needed and needed + offset * itemsize > self._storage.nbytes():
            raise RuntimeError(
                f"setStorage: sizes {list(size)}, strides {list(stride)}, storage offset "
                f"{offset}, and itemsize {itemsize} requiring a storage size of "
                f"{needed + offset * itemsize} are out of bounds for storage of size "
                f"{self._storage.nbytes()}"
            )
        if offset < 0:
            raise RuntimeError(f"Tensor: invalid storage offset {offset}")
        return self._alias_with(size, stride, offset)
        ### END SOLUTION

    # --- Task 1.10: contiguous, reshape, clone ----------------------------------------------------

    def contiguous(self) -> Tensor:
        """Task 1.10: self if already contiguous, else a row-major copy in a new storage.

        aten/src/ATen/native/TensorProperties.cpp: contiguous (clone with
        MemoryFormat::Contiguous when needed).
        """
        ### BEGIN SOLUTION
        if self.is_contiguous():
            return self
        out = _empty_dense(self._shape, contiguous_strides(self._shape), self.dtype)
        out._write_values(self._values())
        return out
        ### END SOLUTION

    def reshape(self, *shape: int) -> Tensor:
        """Task 1.10: view() when the view rule allows it, otherwise a contiguous copy.

        aten/src/ATen/native/TensorShape.cpp: reshape_symint: infer_size, then computeStride;
        if that fails, ``_unsafe_view(self.clone(MemoryFormat::Contiguous), shape)``.
        """
        shape = _parse_shape(shape, "reshape", "shape")
        ### BEGIN SOLUTION
        new_shape = infer_size(shape, self.numel())
        new_stride = compute_stride(self._shape, self._stride, new_shape)
        if new_stride is not None:
            return self._alias_with(new_shape, new_stride)
        # Only a non-contiguous tensor gets here (a contiguous one can always be viewed).
        return self.contiguous().view(new_shape)
        ### END SOLUTION

    def clone(self) -> Tensor:
        """Task 1.10: a copy in a new storage that keeps the layout (torch.preserve_format).

        aten/src/ATen/native/TensorFactories.cpp: clone / empty_like. A non-overlapping and
        dense tensor keeps its exact strides (a transpose stays transposed); anything else
        (gaps, repeats) gets infer_dense_strides: packed, dims in the same order of strides.
        """
        ### BEGIN SOLUTION
        if is_non_overlapping_and_dense(self):
            stride = self._stride
        else:
            stride = infer_dense_strides(self._shape, self._stride)
        out = _empty_dense(self._shape, stride, self.dtype)
        out._write_values(self._values())
        return out
        ### END SOLUTION

    # --- Task 1.11: arithmetic (given: the operator plumbing) -------------------------------------

    def __add__(self, other: object) -> Tensor:
        return binary_op("add", self, other) if _is_operand(other) else NotImplemented

    def __radd__(self, other: object) -> Tensor:
        return binary_op("add", other, self) if _is_operand(other) else NotImplemented

    def __sub__(self, other: object) -> Tensor:
        return binary_op("sub", self, other) if _is_operand(other) else NotImplemented

    def __rsub__(self, other: object) -> Tensor:
        return binary_op("sub", other, self) if _is_operand(other) else NotImplemented

    def __mul__(self, other: object) -> Tensor:
        return binary_op("mul", self, other) if _is_operand(other) else NotImplemented

    def __rmul__(self, other: object) -> Tensor:
        return binary_op("mul", other, self) if _is_operand(other) else NotImplemented

    # --- Task 1.12: writes through views ----------------------------------------------------------

    def __setitem__(self, index: object, value: object) -> None:
        """Task 1.12: ``x[index] = value`` writes into the storage, so every view sees it.

        torch/csrc/autograd/python_variable_indexing.cpp: THPVariable_setitem and
        aten/src/ATen/TensorIndexing.h: set_item / copy_to. A Python number becomes a 0-d
        tensor of x's dtype. Then copy_to: a value of the target's shape is copied
        (``target.copy_(value)``, so the overlap checks apply); a 0-d value fills the target
        (``target.fill_(value)``); any other value loses its leading size-1 dims, is expanded
        to the target's shape, and is copied.
        """
        ### BEGIN SOLUTION
        if isinstance(value, Tensor):
            src = value
        elif _is_scalar(value):
            src = tensor(value, dtype=self.dtype)
        else:
            raise TypeError(f"can't assign a {type(value).__name__} to a {self.dtype.tensor_type}")
        dst = self[index]
        if src.shape != dst.shape and src.dim() == 0:
            dst.fill_(src)
            return
        if src.shape != dst.shape:
            shape = list(src.shape)
            while shape and shape[0] == 1:  # slicePrefix1sSize
                shape.pop(0)
            src = src.view(shape).expand(dst.shape)
        dst.copy_(src)
        ### END SOLUTION

    def fill_(self, value: builtins.bool | int | float | Tensor) -> Tensor:
        """Task 1.12: write ``value`` (cast to self's dtype) into every element; returns self.

        aten/src/ATen/native/Fill.cpp: fill_. A number is written without the internal
        overlap check: writing one value several times to a location is harmless. A 0-d
        tensor is copied instead (``self.copy_(value)``, checks and all), from a clone when it
        is a view of self's storage, so reading it cannot see the write.
        """
        ### BEGIN SOLUTION
        if isinstance(value, Tensor):
            if value.dim() != 0:
                raise RuntimeError(
                    "fill_ only supports 0-dimension value tensor but got tensor with "
                    f"{value.dim()} dimensions."
                )
            return self.copy_(value.clone() if value._storage is self._storage else value)
        with np.errstate(all="ignore"):
            self._write_values(np.asarray(value).astype(self.dtype.np))
        return self
        ### END SOLUTION

    def copy_(self, src: Tensor | builtins.bool | int | float) -> Tensor:
        """Task 1.12: copy ``src`` (broadcast to self's shape, cast to self's dtype) into self.

        aten/src/ATen/native/Copy.cpp: copy_ / copy_impl, through a TensorIterator: the
        internal-overlap and partial-overlap checks, then the broadcast shape must be self's.
        Copying a tensor onto itself (same data, same layout) returns at once.
        """
        ### BEGIN SOLUTION
        if isinstance(src, Tensor) and (
            src is self
            or (
                src._storage is self._storage
                and (src._storage_offset, src._stride, src._shape, src.dtype)
                == (self._storage_offset, self._stride, self._shape, self.dtype)
            )
        ):
            return self
        if not _is_operand(src):
            raise TypeError(f"copy_(): argument 'src' must be Tensor, not {type(src).__name__}")
        assert_no_internal_overlap(self)
        if isinstance(src, Tensor):
            assert_no_partial_overlap(self, src)
        shape = infer_broadcast_size(self._shape, src.shape if isinstance(src, Tensor) else ())
        if shape != self._shape:
            raise RuntimeError(
                f"output with shape {list(self._shape)} doesn't match the broadcast shape "
                f"{list(shape)}"
            )
        values = src.expand(shape)._values() if isinstance(src, Tensor) else np.asarray(src)
        with np.errstate(all="ignore"):  # float -> int truncates, like static_cast
            self._write_values(values.astype(self.dtype.np))
        return self
        ### END SOLUTION

    def add_(self, other: Tensor | builtins.bool | int | float) -> Tensor:
        """Task 1.12: self += other, in place (aten/src/ATen/native/BinaryOps.cpp: add_)."""
        ### BEGIN SOLUTION
        return _inplace_binary_op("add", self, other)
        ### END SOLUTION

    def mul_(self, other: Tensor | builtins.bool | int | float) -> Tensor:
        """Task 1.12: self *= other, in place (aten/src/ATen/native/BinaryOps.cpp: mul_)."""
        ### BEGIN SOLUTION
        return _inplace_binary_op("mul", self, other)
        ### END SOLUTION


def _is_operand(value: object) -> builtins.bool:
    return isinstance(value, Tensor) or _is_scalar(value)


def _empty_dense(shape: Sequence[int], stride: Sequence[int], dtype: DType) -> Tensor:
    """A new zeroed storage of exactly numel elements, seen with dense ``stride``."""
    storage = Storage(np.zeros(math.prod(shape), dtype=dtype.np))
    return Tensor(storage, shape, stride, 0, dtype)


# === Task 1.3 (continued): dense layouts ==========================================================


def is_non_overlapping_and_dense(t: Tensor) -> builtins.bool:
    """Task 1.3: True when the elements fill a block of storage exactly, in SOME dim order.

    c10/core/Contiguity.h: _compute_non_overlapping_and_dense (TensorImpl also counts every
    contiguous tensor). Sort the dims of size >= 2 by stride: the smallest must be 1 and each
    next one the product of the sizes before it. ``x.t()`` is dense; ``x[:, ::2]`` (gaps) and
    expanded tensors (repeats) are not.
    """
    ### BEGIN SOLUTION
    if t.is_contiguous():
        return True
    shape, stride = t.shape, t.stride()
    if t.dim() == 1:
        return shape[0] < 2 or stride[0] == 1
    expected = 1
    for d in sorted(range(t.dim()), key=lambda d: (shape[d] < 2, stride[d])):
        if shape[d] < 2:
            return True  # only size 0/1 dims left: their strides don't matter
        if stride[d] != expected:
            return False
        expected *= shape[d]
    return True
    ### END SOLUTION


# === Task 1.4 (continued): the view rule ==========================================================


def infer_size(shape: Sequence[int], numel: int) -> tuple[int, ...]:
    """Task 1.4: replace a -1 in ``shape`` by what makes the element count ``numel``.

    aten/src/ATen/InferSize.h: infer_size_impl. At most one -1; no other negative sizes;
    the product must equal numel; -1 next to a 0 is ambiguous for an empty tensor.
    """
    ### BEGIN SOLUTION
    infer_dim, known = None, 1
    for d, size in enumerate(shape):
        if size == -1:
            if infer_dim is not None:
                raise RuntimeError("only one dimension can be inferred")
            infer_dim = d
        elif size >= 0:
            known *= size
        else:
            raise RuntimeError(
                f"invalid shape dimension {size} at index {d} of shape {list(shape)}"
            )
    if numel == known or (infer_dim is not None and known > 0 and numel % known == 0):
        result = list(shape)
        if infer_dim is not None:
            if known == 0:
                raise RuntimeError(
                    f"cannot reshape tensor of 0 elements into shape {list(shape)} because the "
                    "unspecified dimension size -1 can be any value and is ambiguous"
                )
            result[infer_dim] = numel // known
        return tuple(result)
    raise RuntimeError(f"shape '{list(shape)}' is invalid for input of size {numel}")
    ### END SOLUTION


def compute_stride(
    oldshape: Sequence[int], oldstride: Sequence[int], newshape: Sequence[int]
) -> tuple[int, ...] | None:
    """Task 1.4: strides that show ``newshape`` over the same storage, or None if impossible.

    aten/src/ATen/TensorUtils.cpp: computeStride_impl. Cut the old dims into "chunks" that are
    contiguous among themselves (dim d-1 continues the chunk when its stride is exactly
    size-so-far * the chunk's base stride; size-1 dims never cut). Walking both shapes from the
    back, each chunk must be covered exactly by a run of new dims, which get strides as if the
    chunk were a contiguous tensor. A new dim can never span two chunks.
    Empty tensors: old strides if the shape is unchanged, else contiguous-like strides.
    """
    ### BEGIN SOLUTION
    if len(oldshape) == 0:
        return (1,) * len(newshape)
    numel = math.prod(oldshape)
    if numel == 0:
        if tuple(oldshape) == tuple(newshape):
            return tuple(oldstride)
        return contiguous_strides(newshape)
    newstride = [0] * len(newshape)
    view_d = len(newshape) - 1
    chunk_base_stride = oldstride[-1]
    tensor_numel = view_numel = 1
    for tensor_d in range(len(oldshape) - 1, -1, -1):
        tensor_numel *= oldshape[tensor_d]
        chunk_ends = tensor_d == 0 or (
            oldshape[tensor_d - 1] != 1
            and oldstride[tensor_d - 1] != tensor_numel * chunk_base_stride
        )
        if not chunk_ends:
            continue
        # Hand out new dims (size-1 ones too) until they hold as many elements as the chunk.
        while view_d >= 0 and (view_numel < tensor_numel or newshape[view_d] == 1):
            newstride[view_d] = view_numel * chunk_base_stride
            view_numel *= newshape[view_d]
            view_d -= 1
        if view_numel != tensor_numel:
            return None
        if tensor_d > 0:
            chunk_base_stride = oldstride[tensor_d - 1]
            tensor_numel = view_numel = 1
    if view_d != -1:
        return None
    return tuple(newstride)
    ### END SOLUTION


# === Task 1.8 (continued): broadcasting ===========================================================


def infer_expand_geometry(
    tensor_sizes: Sequence[int], tensor_strides: Sequence[int], sizes: Sequence[int]
) -> tuple[list[int], list[int]]:
    """Task 1.8: the (sizes, strides) of ``expand(sizes)``.

    aten/src/ATen/ExpandUtils.cpp: inferExpandGeometry. Align from the right. An existing dim
    keeps its stride if its size stays (or -1); a size-1 dim that grows gets stride 0. A new
    leading dim gets stride 0, unless its size is 1 (then size * stride of the next dim).
    """
    ### BEGIN SOLUTION
    ndim, tensor_dim = len(sizes), len(tensor_sizes)
    if tensor_dim == 0:  # a 0-d tensor: every dim is new, all strides 0 (even size-1 ones)
        return list(sizes), [0] * ndim
    out_sizes, out_strides = [0] * ndim, [0] * ndim
    for i in range(ndim - 1, -1, -1):
        dim = tensor_dim - (ndim - i)
        if dim >= 0:
            size, stride = tensor_sizes[dim], tensor_strides[dim]
        else:
            size, stride = 1, out_sizes[i + 1] * out_strides[i + 1]
        target = sizes[i]
        if target == -1:
            if dim < 0:
                raise RuntimeError(
                    f"The expanded size of the tensor (-1) isn't allowed in a leading, "
                    f"non-existing dimension {i}"
                )
            target = size
        if size != target:
            if size != 1:
                raise RuntimeError(
                    f"The expanded size of the tensor ({target}) must match the existing size "
                    f"({size}) at non-singleton dimension {i}.  Target sizes: {list(sizes)}.  "
                    f"Tensor sizes: {list(tensor_sizes)}"
                )
            size, stride = target, 0
        out_sizes[i], out_strides[i] = size, stride
    return out_sizes, out_strides
    ### END SOLUTION


def infer_broadcast_size(a: Sequence[int], b: Sequence[int]) -> Size:
    """Task 1.8: the broadcast shape of two operands, as binary ops and copy_ compute it.

    aten/src/ATen/ExpandUtils.cpp: infer_size (renamed here: view's infer_size is another
    function). Align from the right; sizes must match or one must be 1; a 1 takes the other
    size, even 0.
    """
    ### BEGIN SOLUTION
    ndim = max(len(a), len(b))
    out = [0] * ndim
    for i in range(ndim - 1, -1, -1):
        offset = ndim - 1 - i
        size_a = a[len(a) - 1 - offset] if offset < len(a) else 1
        size_b = b[len(b) - 1 - offset] if offset < len(b) else 1
        if not (size_a == size_b or size_a == 1 or size_b == 1):
            raise RuntimeError(
                f"The size of tensor a ({size_a}) must match the size of tensor b ({size_b}) "
                f"at non-singleton dimension {i}"
            )
        out[i] = size_b if size_a == 1 else size_a
    return Size(out)
    ### END SOLUTION


def broadcast_shapes(*shapes: int | Sequence[int]) -> Size:
    """Task 1.8: the shape all ``shapes`` broadcast to (torch.broadcast_shapes).

    torch/functional.py: broadcast_shapes -> torch/_refs/__init__.py: _broadcast_shapes
    (Python, so its messages differ from the C++ infer_size used by + - *). An int means a
    1-d shape; no shapes gives ().
    """
    ### BEGIN SOLUTION
    shapes = tuple((s,) if _is_int(s) else s for s in shapes if s is not None)
    for shape in shapes:
        if not isinstance(shape, Sequence):
            raise RuntimeError(
                "Input shapes should be of type ints, a tuple of ints, or a list of ints, "
                f"got {shape}"
            )
    common = [1] * max((len(s) for s in shapes), default=0)
    for arg_idx, shape in enumerate(shapes):
        for idx in range(-1, -1 - len(shape), -1):
            if shape[idx] == common[idx]:
                continue
            if common[idx] == 1:
                if shape[idx] < 0:
                    raise ValueError("Attempting to broadcast a dimension with negative length!")
                common[idx] = shape[idx]
            elif shape[idx] != 1:
                raise RuntimeError(
                    f"Attempting to broadcast a dimension of length {shape[idx]} at {idx}! "
                    f"Mismatching argument at index {arg_idx} had {shape}; but expected shape "
                    f"should be broadcastable to {common}"
                )
    return Size(common)
    ### END SOLUTION


# === Task 1.10 (continued): which layout a new tensor gets ========================================


def reorder_dimensions(shape: Sequence[int], operand_strides: Sequence[Sequence[int]]) -> list[int]:
    """Task 1.10: the dims ordered from fastest- to slowest-moving in memory (``perm``).

    aten/src/ATen/TensorIterator.cpp: reorder_dimensions. Start from row-major order
    (perm = [n-1, ..., 0]) and insertion-sort by stride, asking each operand in turn: a stride
    0 (broadcast) says nothing, a smaller stride goes first, equal strides put the smaller size
    first. When no operand can tell, the dims keep their row-major order.
    """
    ### BEGIN SOLUTION

    def should_swap(dim0: int, dim1: int) -> int:  # 1: swap, -1: keep, 0: don't know
        for strides in operand_strides:
            s0, s1 = strides[dim0], strides[dim1]
            if s0 == 0 or s1 == 0:
                continue
            if s0 != s1:
                return 1 if s0 > s1 else -1
            if shape[dim0] > shape[dim1]:
                return 1
        return 0

    perm = list(range(len(shape) - 1, -1, -1))
    for i in range(1, len(shape)):
        dim1 = i
        for dim0 in range(i - 1, -1, -1):
            comparison = should_swap(perm[dim0], perm[dim1])
            if comparison > 0:
                perm[dim0], perm[dim1] = perm[dim1], perm[dim0]
                dim1 = dim0
            elif comparison < 0:
                break
    return perm
    ### END SOLUTION


def infer_dense_strides(shape: Sequence[int], stride: Sequence[int]) -> tuple[int, ...]:
    """Task 1.10: packed strides with the same dim order as ``stride`` (used by clone).

    aten/src/ATen/ExpandUtils.cpp: infer_dense_strides, which sorts exactly like
    TensorIterator (reorder_dimensions), then hands out strides 1, size, size*size, ...
    in that order (a size-0 or size-1 dim does not grow the stride).
    """
    ### BEGIN SOLUTION
    out = [0] * len(shape)
    next_stride = 1
    for d in reorder_dimensions(shape, [stride]):
        out[d] = next_stride
        if shape[d] > 1:
            next_stride *= shape[d]
    return tuple(out)
    ### END SOLUTION


# === Task 1.11: elementwise + - * with broadcasting and type promotion ============================

_UFUNCS = {"add": np.add, "sub": np.subtract, "mul": np.multiply}


def result_type(*operands: Tensor | builtins.bool | int | float) -> DType:
    """Task 1.11: the dtype of ``a op b`` (torch.result_type).

    aten/src/ATen/native/TypeProperties.cpp: update_result_type_state / result_type.
    Three priority groups: tensors with dims, 0-d tensors, Python numbers (an int is int64, a
    float the default float32). A lower group only matters if it is of a higher *kind*
    (bool < integer < floating): ``int64 tensor + 2.5`` is float32, ``float32 tensor +
    float64 0-d tensor`` stays float32.
    """
    ### BEGIN SOLUTION

    def combine_categories(higher: DType | None, lower: DType | None) -> DType | None:
        if higher is None:
            return lower
        if higher.is_floating_point:
            return higher
        if higher is bool or (lower is not None and lower.is_floating_point):
            return promote_types(higher, lower)
        return higher

    dim_result = zero_result = wrapped_result = None
    for x in operands:
        if not isinstance(x, Tensor):
            wrapped_result = promote_types(wrapped_result, _scalar_dtype(x))
        elif x.dim() > 0:
            dim_result = promote_types(dim_result, x.dtype)
        else:
            zero_result = promote_types(zero_result, x.dtype)
    return combine_categories(dim_result, combine_categories(zero_result, wrapped_result))
    ### END SOLUTION


def compute_output_strides(shape: Size, operands: Sequence[object]) -> tuple[int, ...]:
    """Task 1.11: the strides TensorIterator gives a new output of ``shape``.

    aten/src/ATen/TensorIterator.cpp: compute_fast_setup_type, else compute_strides +
    reorder_dimensions + allocate_or_resize_outputs. The output copies its inputs' layout. If
    all operands have the output's shape: all contiguous -> contiguous; all channels-last
    (NHWC, 4-d) -> channels-last; all dense with equal strides -> those strides. Otherwise sort
    the dims by the inputs' strides (broadcast dims count as 0) and pack the output in that
    order, unless the order is plain row-major. So ``x.t() + 1`` is laid out like ``x.t()``.
    """
    ### BEGIN SOLUTION

    def channels_last(t: Tensor) -> builtins.bool:  # Contiguity.h: channels_last_contiguous_2d
        if t.dim() != 4:
            return False
        expected = 1
        for d in (1, 3, 2, 0):  # NHWC: C moves fastest, then W, H, N
            if t.shape[d] != 1:
                if t.stride(d) != expected:
                    return False
                expected *= t.shape[d]
        return True

    tensors = [x for x in operands if isinstance(x, Tensor)]
    shapes = [x.shape if isinstance(x, Tensor) else Size() for x in operands]
    if all(s == shapes[0] for s in shapes):  # the fast set-up paths
        if all(t.is_contiguous() for t in tensors):
            return contiguous_strides(shape)
        if all(channels_last(t) for t in tensors):
            n, c, h, w = shape
            return (h * w * c, 1, w * c, c)
        first = tensors[0].stride()
        if all(is_non_overlapping_and_dense(t) and t.stride() == first for t in tensors):
            return first
    operand_strides = []
    for t in tensors:
        lead = len(shape) - t.dim()  # missing leading dims, and broadcast size-1 dims: stride 0
        strides = [0] * lead + [
            0 if size == 1 and shape[lead + i] != 1 else stride
            for i, (size, stride) in enumerate(zip(t.shape, t.stride(), strict=True))
        ]
        operand_strides.append(strides)
    perm = reorder_dimensions(shape, operand_strides)
    if perm == list(range(len(shape) - 1, -1, -1)):
        return contiguous_strides(shape)
    out, next_stride = [0] * len(shape), 1
    for d in perm:
        out[d] = next_stride
        next_stride *= shape[d]
    return tuple(out)
    ### END SOLUTION


def binary_op(name: str, a: Tensor | builtins.bool | int | float, b: object) -> Tensor:
    """Task 1.11: ``a + b``, ``a - b`` or ``a * b`` as a new tensor (name: add / sub / mul).

    aten/src/ATen/native/BinaryOps.cpp (BinaryOps.h: sub_check for bools), via TensorIterator
    (aten/src/ATen/TensorIterator.cpp): broadcast the shapes (infer_size), promote the dtypes
    (result_type), replace each tensor of another dtype by a converted copy (on CPU it is
    ``x.to(dtype)``, laid out like ``clone()``), compute, and write into a new tensor laid out
    by compute_output_strides. Operands are read through their own strides, so broadcasting is
    just expand().
    """
    ### BEGIN SOLUTION
    if name == "sub":
        a_bool, b_bool = (
            (x.dtype if isinstance(x, Tensor) else _scalar_dtype(x)) is bool for x in (a, b)
        )
        if a_bool and b_bool:
            raise RuntimeError(
                "Subtraction, the `-` operator, with two bool tensors is not supported. "
                "Use the `^` or `logical_xor()` operator instead."
            )
        if a_bool or b_bool:
            raise RuntimeError(
                "Subtraction, the `-` operator, with a bool tensor is not supported. "
                "If you are trying to invert a mask, use the `~` or `logical_not()` operator "
                "instead."
            )
    shape = infer_broadcast_size(*(x.shape if isinstance(x, Tensor) else () for x in (a, b)))
    dtype = result_type(a, b)

    def converted(x: object) -> object:
        if not isinstance(x, Tensor) or x.dtype is dtype:
            return x
        c = x.clone()
        with np.errstate(all="ignore"):
            return Tensor(Storage(c._storage.data.astype(dtype.np)), c.shape, c.stride(), 0, dtype)

    def values(x: object) -> np.ndarray:
        return x.expand(shape)._values() if isinstance(x, Tensor) else np.asarray(x, dtype.np)

    a, b = converted(a), converted(b)
    with np.errstate(all="ignore"):  # int64 wraps around and float32 overflows to inf silently
        result = _UFUNCS[name](values(a), values(b))
    out = _empty_dense(shape, compute_output_strides(shape, (a, b)), dtype)
    out._write_values(result)
    return out
    ### END SOLUTION


# === Task 1.12 (continued): the overlap checks every in-place write goes through ==================


def assert_no_internal_overlap(t: Tensor) -> None:
    """Task 1.12: refuse a write target in which several elements share one memory location.

    aten/src/ATen/MemoryOverlap.cpp: has_internal_overlap / assert_no_internal_overlap.
    Dense tensors: no overlap. Otherwise a dim of size > 1 with stride 0 (an expand) is a
    certain overlap -> RuntimeError. Anything else is "too hard" to decide and allowed.
    """
    ### BEGIN SOLUTION
    if is_non_overlapping_and_dense(t):
        return
    if any(size > 1 and stride == 0 for size, stride in zip(t.shape, t.stride(), strict=True)):
        raise RuntimeError(
            "unsupported operation: more than one element of the written-to tensor refers to a "
            "single memory location. Please clone() the tensor before performing the operation."
        )
    ### END SOLUTION


def assert_no_partial_overlap(a: Tensor, b: Tensor) -> None:
    """Task 1.12: refuse reading ``b`` while writing ``a`` when they partly share memory.

    aten/src/ATen/MemoryOverlap.cpp: get_overlap_status / assert_no_partial_overlap. Only
    decided for two dense tensors on one storage: the same byte range with the same strides is
    a full overlap (fine: x.add_(x)); any other intersection of the byte ranges is partial.
    """
    ### BEGIN SOLUTION
    if a is b or a.numel() == 0 or b.numel() == 0 or a._storage is not b._storage:
        return
    if not (is_non_overlapping_and_dense(a) and is_non_overlapping_and_dense(b)):
        return  # too hard to tell: torch lets it through
    a_begin = a.storage_offset() * a.element_size()
    b_begin = b.storage_offset() * b.element_size()
    a_end = a_begin + a.numel() * a.element_size()
    b_end = b_begin + b.numel() * b.element_size()
    if (a_begin, a_end) == (b_begin, b_end):
        partial = a.stride() != b.stride()
    else:
        partial = a_begin < b_end and b_begin < a_end
    if partial:
        raise RuntimeError(
            "unsupported operation: some elements of the input tensor and the written-to tensor "
            "refer to a single memory location. Please clone() the tensor before performing the "
            "operation."
        )
    ### END SOLUTION


def _inplace_binary_op(name: str, self: Tensor, other: object) -> Tensor:
    """Task 1.12: ``self = self op other`` in place (add_ / mul_), as TensorIterator does it.

    aten/src/ATen/TensorIterator.cpp: build: overlap checks first, then the broadcast shape
    (it must be self's shape: "output with shape ... doesn't match the broadcast shape"), then
    the dtypes: compute in result_type(self, other), which must be castable back to self's
    dtype (c10/core/ScalarType.h: canCast: no float -> int, nothing non-bool -> bool).
    """
    ### BEGIN SOLUTION
    if not _is_operand(other):
        raise TypeError(f"{name}_(): argument 'other' must be Tensor, not {type(other).__name__}")
    assert_no_internal_overlap(self)
    if isinstance(other, Tensor) and other is not self:
        assert_no_partial_overlap(self, other)
    shape = infer_broadcast_size(self.shape, other.shape if isinstance(other, Tensor) else ())
    if shape != self.shape:
        raise RuntimeError(
            f"output with shape {list(self.shape)} doesn't match the broadcast shape {list(shape)}"
        )
    common = result_type(self, other)
    if (common.is_floating_point and not self.dtype.is_floating_point) or (
        common is not bool and self.dtype is bool
    ):
        raise RuntimeError(
            f"result type {common.legacy_name} can't be cast to the desired output type "
            f"{self.dtype.legacy_name}"
        )
    other_values = other.expand(shape)._values() if isinstance(other, Tensor) else np.asarray(other)
    offsets = self._offsets()
    with np.errstate(all="ignore"):
        if common is self.dtype and np.unique(offsets).size < offsets.size:
            # Elements share a location (an overlap torch found "too hard" to reject) and self
            # is not cast first: torch's kernel updates them one by one, so use ufunc.at.
            _UFUNCS[name].at(self._storage.data, offsets, other_values.astype(common.np))
        else:
            result = _UFUNCS[name](self._values().astype(common.np), other_values.astype(common.np))
            self._write_values(np.asarray(result).astype(self.dtype.np))
    return self
    ### END SOLUTION


# === Given: factories =============================================================================


def empty(*size: int, dtype: DType | None = None) -> Tensor:
    """A new contiguous tensor (torch.empty; here its storage is zeroed)."""
    shape = _parse_shape(size, "empty")
    _check_size_nonnegative(shape)
    return _empty_dense(shape, contiguous_strides(shape), dtype or float32)


def zeros(*size: int, dtype: DType | None = None) -> Tensor:
    shape = _parse_shape(size, "zeros")
    _check_size_nonnegative(shape)
    return _empty_dense(shape, contiguous_strides(shape), dtype or float32)


def ones(*size: int, dtype: DType | None = None) -> Tensor:
    out = zeros(*size, dtype=dtype)
    out._storage.data[:] = 1
    return out


def empty_strided(size: Sequence[int], stride: Sequence[int], dtype: DType | None = None) -> Tensor:
    """A new tensor with exactly these strides and just enough storage for them."""
    size, stride, dtype = tuple(size), tuple(stride), dtype or float32
    if len(size) != len(stride):
        raise RuntimeError(
            f"dimensionality of sizes ({len(size)}) must match dimensionality of strides "
            f"({len(stride)})"
        )
    _check_size_nonnegative(size)
    nbytes = compute_storage_nbytes(size, stride, dtype.itemsize)
    storage = Storage(np.zeros(nbytes // dtype.itemsize, dtype=dtype.np))
    return Tensor(storage, size, stride, 0, dtype)


def as_strided(
    x: Tensor, size: Sequence[int], stride: Sequence[int], storage_offset: int | None = None
) -> Tensor:
    return x.as_strided(size, stride, storage_offset)


def _infer_shape(data: object) -> tuple[int, ...]:
    """torch/csrc/utils/tensor_new.cpp: compute_sizes: follow the first element down."""
    shape = []
    while isinstance(data, list | tuple | str):
        if isinstance(data, str):
            raise ValueError("too many dimensions 'str'")
        shape.append(len(data))
        if not data:
            break
        data = data[0]
    return tuple(shape)


def _infer_dtype(data: object) -> DType:
    """torch/csrc/utils/tensor_new.cpp: infer_scalar_type: promote over every element."""
    if _is_scalar(data):
        return _scalar_dtype(data)
    if isinstance(data, str):
        raise TypeError("new(): invalid data type 'str'")
    if isinstance(data, list | tuple):
        if not data:
            return float32
        return functools.reduce(promote_types, map(_infer_dtype, data))
    raise RuntimeError(f"Could not infer dtype of {type(data).__name__}")


def _flatten_data(data: object, shape: tuple[int, ...], dim: int, out: list, dtype: DType) -> None:
    """torch/csrc/utils/tensor_new.cpp: recursive_store: check lengths, collect the numbers."""
    if dim == len(shape):
        if not _is_scalar(data):
            name = type(data).__name__
            if dtype.is_floating_point:
                raise TypeError(f"must be real number, not {name}")
            raise TypeError(f"'{name}' object cannot be interpreted as an integer")
        out.append(data)
        return
    if not isinstance(data, list | tuple):
        raise TypeError("not a sequence")
    if len(data) != shape[dim]:
        raise ValueError(f"expected sequence of length {shape[dim]} at dim {dim} (got {len(data)})")
    for item in data:
        _flatten_data(item, shape, dim + 1, out, dtype)


def tensor(data: object, dtype: DType | None = None) -> Tensor:
    """A new contiguous tensor from (nested lists of) Python numbers; dtype inferred like torch."""
    if isinstance(data, str):
        raise TypeError("new(): invalid data type 'str'")
    if isinstance(data, Tensor):  # torch copies it (and warns); keep its dtype
        data, dtype = data.tolist(), dtype or data.dtype
    shape = _infer_shape(data)
    dtype = dtype or _infer_dtype(data)
    flat: list = []
    if math.prod(shape):
        _flatten_data(data, shape, 0, flat, dtype)
    out = _empty_dense(shape, contiguous_strides(shape), dtype)
    with np.errstate(all="ignore"):
        out._storage.data[:] = np.array(flat, dtype=dtype.np)
    return out


def arange(
    start: int | float,
    end: int | float | None = None,
    step: int | float = 1,
    dtype: DType | None = None,
) -> Tensor:
    """torch.arange: aten/src/ATen/native/RangeFactories.cpp: arange_out.

    The length is ceil((end - start) / step) computed in double (exact integer arithmetic
    for int64); values are start + i * step computed in double, then cast. (torch's SIMD kernel
    uses fused multiply-adds per vector, so a float step that is not a binary fraction, e.g.
    0.1, can differ in the last bit from 16 elements on, depending on the CPU.)
    """
    if end is None:
        start, end = 0, start
    if dtype is None:
        dtype = float32 if any(isinstance(v, float) for v in (start, end, step)) else int64
    if dtype is bool:
        raise NotImplementedError("\"arange_cpu\" not implemented for 'Bool'")
    cast = int if dtype is int64 else float  # Scalar.to<accscalar_t>(): int64 truncates
    xstart, xend, xstep = cast(start), cast(end), cast(step)
    if xstep == 0:
        raise RuntimeError("step must be nonzero")
    if not (math.isfinite(xstart) and math.isfinite(xend)):
        raise RuntimeError(f"unsupported range: {xstart:g} -> {xend:g}")
    if not ((xstep > 0 and xend >= xstart) or (xstep < 0 and xend <= xstart)):
        raise RuntimeError("upper bound and lower bound inconsistent with step sign")
    if dtype is int64:
        n = (xend - xstart + xstep - (1 if xstep > 0 else -1)) // xstep
        values = xstart + xstep * np.arange(n, dtype=np.int64)
    else:
        n = math.ceil((float(end) - float(start)) / float(step))
        values = xstart + xstep * np.arange(n, dtype=np.float64)
    out = _empty_dense((n,), contiguous_strides((n,)), dtype)
    out._storage.data[:] = values.astype(dtype.np)
    return out


# === Task 1.13: a layout whose rows start on 32-byte boundaries ===================================


def empty_aligned(*size: int, dtype: DType | None = None, align: int = 32) -> Tensor:
    """Task 1.13: an uninitialised tensor whose rows each start on an ``align``-byte boundary.

    Hardware (SIMD loads, DMA engines) often wants every row aligned. Pad each row to a pitch
    of round_up(size[-1] * itemsize, align) bytes: allocate
    ``empty(*size[:-1], pitch // itemsize)`` and narrow the last dim back to size[-1]. The last
    dim keeps stride 1, stride(-2) is pitch // itemsize, and the padding stays in the storage.
    When padding is needed, some dim before the last has size > 1 and the tensor has elements,
    the padding sits between rows, so the result is not contiguous and view(-1) fails
    (``empty_aligned(3, 5)``: strides (8, 1)). Otherwise it is contiguous even when padded:
    ``empty_aligned(1, 5)`` and ``empty_aligned(5)`` hold 32 bytes, and an empty tensor is
    always contiguous.
    ValueError unless ``align`` is a positive multiple of the itemsize.
    """
    shape = _parse_shape(size, "empty_aligned") if size else ()
    dtype = dtype or float32
    _check_size_nonnegative(shape)
    ### BEGIN SOLUTION
    if not _is_int(align) or align <= 0 or align % dtype.itemsize:
        raise ValueError(f"align must be a positive multiple of the element size {dtype.itemsize}")
    if not shape:
        raise IndexError("empty_aligned() needs at least one dimension (rows to align)")
    per_row = align // dtype.itemsize  # elements per alignment unit
    pitch = -(-shape[-1] // per_row) * per_row  # round up, in elements
    return empty(*shape[:-1], pitch, dtype=dtype).narrow(-1, 0, shape[-1])
    ### END SOLUTION
