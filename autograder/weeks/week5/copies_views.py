"""Tasks 5.5 and 5.6: copies between the CPU and the device, and views that share storage."""

from __future__ import annotations

import warnings
from typing import Any

import torch

from autograder.cases import case, property_case
from autograder.weeks.week5.common import (
    W,
    data,
    device,
    each,
    geometry,
    result,
    shares,
    values,
)


@case(W, points=3, tasks=("5.1", "5.2", "5.3", "5.4", "5.5"))
def task_5_5_to_device_and_back(lib: Any) -> Any:
    """``x.to("labdev")`` then ``.cpu()`` gives x back, for float, double, integer and bool
    tensors; ``.to`` on the device keeps the dtype and makes a contiguous tensor there."""
    dev = device(lib)
    out = {}
    for dtype in (torch.float32, torch.float64, torch.int64, torch.int32, torch.bool):
        x = data(2, 3, dtype=dtype)
        out[str(dtype)] = {"there": geometry(x.to(dev, copy=True), dev)}
        out[str(dtype)]["back"] = values(x.to(dev, copy=True).cpu())
    return out


@case(W, points=2, tasks=("5.1", "5.2", "5.3", "5.4", "5.5"))
def task_5_5_copies_convert_and_keep_layout(lib: Any) -> Any:
    """A copy may change dtype on the way (CPU to device, device to device), keeps a
    transposed layout's strides (``empty_strided``), and ``copy_`` broadcasts its source."""
    dev = device(lib)
    x = data(2, 3)
    return each(
        {
            "to float64 on the way": lambda: result(x.to(dev, torch.float64, copy=True), dev),
            "int on the device": lambda: result(x.to(dev, copy=True).to(torch.int32), dev),
            "transposed keeps strides": lambda: result(x.t().to(dev, copy=True), dev),
            "copy_ broadcasts a row": lambda: result(
                torch.empty(3, 3, device=dev).copy_(torch.tensor([1.0, 2.0, 3.0])), dev
            ),
            "device to device": lambda: result(x.to(dev, copy=True).clone(), dev),
        }
    )


@case(W, points=2, tasks=("5.1", "5.2", "5.3", "5.4", "5.5", "5.8"))
def task_5_8_copy_back_resizes(lib: Any) -> Any:
    """``_copy_from_and_resize``: an ``out=`` tensor on the device with the wrong shape (empty,
    too small, or as many elements in another shape) gets the result's shape and values, as on
    the CPU (the fallback hands its CPU result back through it; torch resizes an out= tensor of
    another shape, with a warning: aten/src/ATen/native/Resize.cpp, resize_output), and its
    storage grows to the result's bytes (elements times their size), as the CPU's does."""
    dev = device(lib)

    def into(shape: tuple[int, ...], *out_shape: int) -> Any:
        a, b = data(*shape), data(*shape, start=1)
        out = torch.empty(*out_shape, device=dev)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # "An output with one or more elements was resized"
            torch.sub(a.to(dev), b.to(dev), out=out)
        return {**result(out, dev), "storage_nbytes": out.untyped_storage().nbytes()}

    return each(
        {
            "empty out": lambda: into((2, 3), 0),
            "too small": lambda: into((2, 3), 2),
            "as many elements, another shape": lambda: into((2, 3), 3, 2),
            "empty out, 100 elements": lambda: into((100,), 0),
        }
    )


@case(W, points=1, tasks=("5.1", "5.2", "5.3", "5.4", "5.5"))
def task_5_5_storage_resize_keeps_bytes(lib: Any) -> Any:
    """``untyped_storage().resize_(n)`` on the device (torch/csrc/StorageMethods.cpp sends a
    PrivateUse1 storage to the hooks' ``resizePrivateUse1Bytes``): the storage has n bytes
    after it, and the bytes it had are kept, as the CPU's ``resize_bytes_cpu`` keeps them
    (aten/src/ATen/native/Resize.cpp), so the tensor on it still reads its values."""
    dev = device(lib)

    def grow(n: int, start: int) -> Any:
        x = data(2, 2, start=start).to(dev)
        storage = x.untyped_storage()
        storage.resize_(n)
        return {"storage nbytes": storage.nbytes(), "tensor": result(x, dev)}

    return each({"16 to 64 bytes": lambda: grow(64, 3), "16 to 20 bytes": lambda: grow(20, 7)})


VIEWS = {
    "view(3, 2)": lambda x: x.view(3, 2),
    "view(-1)": lambda x: x.view(-1),
    "t()": lambda x: x.t(),
    "x[1]": lambda x: x[1],
    "x[:, 1:]": lambda x: x[:, 1:],
    "x[:, ::2]": lambda x: x[:, ::2],
    "unsqueeze(0)": lambda x: x.unsqueeze(0),
    "expand(4, 2, 3)": lambda x: x.expand(4, 2, 3),
    "permute(1, 0)": lambda x: x.permute(1, 0),
    "as_strided((2, 2), (1, 2), 1)": lambda x: x.as_strided((2, 2), (1, 2), 1),
    "reshape(6)": lambda x: x.reshape(6),
    "t().reshape(6), a copy": lambda x: x.t().reshape(6),
    "unflatten": lambda x: x.view(6).unflatten(0, (3, 2)),
}


@case(W, points=4, tasks=("5.1", "5.2", "5.3", "5.4", "5.5", "5.6"))
def task_5_6_views_share_storage(lib: Any) -> Any:
    """Views on the device: shape, strides, offset and values as on the CPU, and the view
    shares its base's storage (``reshape`` of a transposed tensor is the one that copies)."""
    dev = device(lib)
    out = {}
    for name, make in VIEWS.items():

        def one(make: Any = make) -> Any:
            x = data(2, 3).to(dev)
            v = make(x)
            return {"view": result(v, dev), "shares storage": shares(v, x)}

        out[name] = each({"": one})[""]
    return out


OFFSET_VIEWS = {
    "view(2, 3)": lambda x: x.view(2, 3),
    "view(3, 2).t()": lambda x: x.view(3, 2).t(),
    "unsqueeze(0)": lambda x: x.unsqueeze(0),
    "x[:4].expand(2, 4)": lambda x: x[:4].expand(2, 4),
    "as_strided((2, 2), (1, 2)), no offset given": lambda x: x.as_strided((2, 2), (1, 2)),
    "reshape(3, 2)": lambda x: x.reshape(3, 2),
    "x[1:].view(5)": lambda x: x[1:].view(5),
}


@case(W, points=2, tasks=("5.1", "5.2", "5.3", "5.4", "5.5", "5.6"))
def task_5_6_views_of_a_view_that_starts_later(lib: Any) -> Any:
    """Views of ``x = data(8)[2:]``, which starts 2 elements into its storage: each starts where
    x does (or later), as on the CPU. ``view`` keeps the offset (aten/src/ATen/native/
    TensorShape.cpp, view_impl), and ``as_strided`` without an offset takes the tensor's own
    (as_strided_tensorimpl: ``storage_offset.value_or(self.storage_offset())``), which
    ``expand`` relies on."""
    dev = device(lib)
    out = {}
    for name, make in OFFSET_VIEWS.items():

        def one(make: Any = make) -> Any:
            base = data(8).to(dev)
            v = make(base[2:])
            return {"view": result(v, dev), "shares storage": shares(v, base)}

        out[name] = each({"": one})[""]
    return out


@case(W, points=2, tasks=("5.1", "5.2", "5.3", "5.4", "5.5", "5.6"))
def task_5_6_writes_show_through_views(lib: Any) -> Any:
    """A write through a view changes the base (and the other way round): no view kernel may
    copy. ``copy_`` into a row, into a column, and into the base seen by a transposed view."""
    dev = device(lib)

    def row() -> Any:
        x = data(2, 3).to(dev)
        x[1].copy_(torch.tensor([7.0, 8.0, 9.0]))
        return result(x, dev)

    def column() -> Any:
        x = data(2, 3).to(dev)
        x.t()[2].copy_(torch.tensor([5.0, 6.0]))
        return result(x, dev)

    def base() -> Any:
        x = data(2, 3).to(dev)
        v = x.view(3, 2).t()
        x.copy_(data(2, 3, start=10))
        return result(v, dev)

    return each({"row": row, "column": column, "base seen through a view": base})


@case(W, points=1, tasks=("5.1", "5.2", "5.3", "5.4", "5.5", "5.6"))
def task_5_6_impossible_view_raises(lib: Any) -> Any:
    """``view`` refuses a shape no strides can give (a transposed tensor flattened) and a shape
    with the wrong number of elements, with RuntimeError as on the CPU."""
    dev = device(lib)
    x = data(2, 3).to(dev)
    return each({"t().view(6)": lambda: result(x.t().view(6), dev), "view(4)": lambda: x.view(4)})


@case(W, points=2, tasks=("5.1", "5.2", "5.3", "5.4", "5.5", "5.6"))
def task_5_6_views_allocate_nothing(lib: Any) -> Any:
    """Views cost no memory: a tensor and five views of it hold one block, its own."""
    dev = device(lib)

    def program() -> Any:
        x = data(4, 6).to(dev)
        return [x.view(6, 4), x.t(), x[1:], x.unsqueeze(1), x.expand(2, 4, 6)]

    return lib.memory_held(program)


def _strided_views() -> Any:
    from hypothesis import strategies as st

    dims = st.integers(1, 3)
    return st.tuples(
        st.lists(dims, min_size=1, max_size=3),
        st.lists(st.integers(0, 4), min_size=3, max_size=3),
        st.integers(0, 3),
    )


def _strided_label(ex: Any) -> str:
    size, stride, offset = ex
    return f"as_strided({size}, {stride[: len(size)]}, {offset})"


@property_case(
    W, _strided_views, n=25, points=3, tasks=("5.1", "5.2", "5.3", "5.4", "5.5", "5.6"),
    label=_strided_label,
)  # fmt: skip
def task_5_6_random_as_strided(lib: Any, example: Any) -> Any:
    """Random ``as_strided`` views of a 24-element tensor on the device (any sizes, strides and
    offset that stay inside it, overlapping and zero strides included): geometry and values as
    on the CPU, always sharing the storage."""
    size, stride, offset = example
    stride = stride[: len(size)]
    dev = device(lib)
    x = data(24).to(dev)
    v = x.as_strided(size, stride, offset)
    return {"view": result(v, dev), "shares storage": shares(v, x)}
