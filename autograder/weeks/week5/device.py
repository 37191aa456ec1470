"""Tasks 5.1 to 5.4: the device exists, its memory is aligned and counted, and tensors on it are
made the way torch makes them (compared with the same calls on the CPU)."""

from __future__ import annotations

from typing import Any

import torch

from autograder.cases import case
from autograder.weeks.week5.common import W, backend_keys, device, each, geometry, kind_only


@case(W, points=1, tasks="5.1")
def task_5_1_device_strings(lib: Any) -> Any:
    """``torch.device("labdev")`` and ``"labdev:0"`` parse as torch parses a device name: the
    type is the name and the index is kept."""
    dev = device(lib)
    return each(
        {
            "type": lambda: torch.device(dev).type == dev,
            "index": lambda: torch.device(f"{dev}:0").index,
            "no index": lambda: torch.device(dev).index,
        }
    )


@case(W, points=1, tasks="5.1")
def task_5_1_generated_methods(lib: Any) -> Any:
    """``generate_methods_for_privateuse1_backend``: ``Tensor.labdev()``, ``Tensor.is_labdev``
    and ``Module.labdev()`` exist, as ``Tensor.cpu()``, ``Tensor.is_cpu`` and ``Module.cpu()``
    do."""
    dev = device(lib)
    return {
        "Tensor.<name>()": callable(getattr(torch.Tensor, dev, None)),
        "Tensor.is_<name>": hasattr(torch.Tensor, f"is_{dev}"),
        "Module.<name>()": callable(getattr(torch.nn.Module, dev, None)),
    }


@case(W, points=3, tasks=("5.1", "5.2"))
def task_5_2_allocator_alone(lib: Any) -> Any:
    """The allocator asked directly for n bytes: the block is 32-byte aligned, counted as n
    rounded up to 32 bytes (none for zero) while it lives, and given back when it goes."""
    device(lib)
    return each({f"{n} bytes": lambda n=n: lib.allocator_probe(n) for n in (1, 31, 32, 33, 100, 0)})


@case(W, points=3, tasks=("5.1", "5.2", "5.3"))
def task_5_3_storages_on_the_device(lib: Any) -> Any:
    """``torch.UntypedStorage(n, device=...)`` asks the allocator for n bytes, under the
    device guard, with no kernel involved: each storage has its n bytes on the device in a
    32-byte aligned block; the allocator holds each block rounded up to 32 bytes (none for zero
    bytes) and has them all back when the storages go."""
    dev = device(lib)

    def storage(n: int) -> Any:
        s = torch.UntypedStorage(n, device=dev)
        return {"nbytes": s.nbytes(), "aligned": s.data_ptr() % 32 == 0, "device": s.device.type}

    def held(*sizes: int) -> Any:
        return lambda: lib.memory_held(lambda: [torch.UntypedStorage(n, device=dev) for n in sizes])

    out = each({f"{n} bytes": lambda n=n: storage(n) for n in (1, 32, 40, 100, 0)})
    for row in out.values():
        if isinstance(row, dict) and row.get("device") == dev:
            row["device"] = "the device"
    out.update(
        each(
            {
                "held: 40 bytes": held(40),
                "held: 1, 33, 64, 0 bytes": held(1, 33, 64, 0),
                "held after they go": lambda: lib.memory_held(
                    lambda: [torch.UntypedStorage(500, device=dev)].clear()
                ),
            }
        )
    )
    return out


def _guard_calls(dev: str) -> Any:
    """What torch asks a backend's device guard, through ``torch.accelerator``
    (torch/accelerator/__init__.py): the current index (getDevice), setting it (setDevice),
    and a ``device_index`` block that swaps it in and back (exchangeDevice)."""
    from autograder.observe import guard

    def swapped() -> Any:
        with torch.accelerator.device_index(0):
            inside = torch.accelerator.current_device_index()
        return [inside, torch.accelerator.current_device_index()]

    return {
        "accelerator": guard(lambda: str(torch.accelerator.current_accelerator()) == dev),
        "current index": guard(lambda: torch.accelerator.current_device_index()),
        "set index 0": guard(lambda: torch.accelerator.set_device_index(0)),
        "current after": guard(lambda: torch.accelerator.current_device_index()),
        "device_index(0) block": guard(swapped),
        "device module's current_device": guard(
            lambda: torch.get_device_module(dev).current_device()
        ),
    }


@case(W, points=2, tasks=("5.1", "5.3"))
def task_5_3_guard_answers_as_torchs_own(lib: Any) -> Any:
    """Your guard, through ``torch.accelerator``, answers as the device guard of torch's own
    Python backend for PrivateUse1 (``_setup_privateuseone_for_python_backend``): device 0 is
    current, setting it works, a ``device_index(0)`` block enters and leaves it."""
    return lib.guard_program(_guard_calls)


def _missing_device(dev: str) -> Any:
    """A device index that does not exist (the device count: the first index past the last)
    asked of a backend's guard through ``torch.accelerator`` and the device module: setDevice
    and exchangeDevice refuse it with RuntimeError, and the current device stays."""
    from autograder.observe import guard

    acc = torch.accelerator
    n = acc.device_count()

    def block() -> Any:
        with acc.device_index(n):
            return acc.current_device_index()

    return {
        "device_count": guard(lambda: n),
        "set_device_index(count)": kind_only(lambda: acc.set_device_index(n)),
        "current after it": guard(acc.current_device_index),
        "device_index(count) block": kind_only(block),
        "current after the block": guard(acc.current_device_index),
        "device module's set_device(count)": kind_only(
            lambda: torch.get_device_module(dev).set_device(n)
        ),
        "current after that": guard(acc.current_device_index),
    }


@case(W, points=2, tasks=("5.1", "5.3"))
def task_5_3_no_such_device(lib: Any) -> Any:
    """An index past the last device is refused with RuntimeError by setDevice and by
    exchangeDevice (a ``torch.accelerator.device_index`` block), and the current device stays
    0. Torch's own Python backend cannot show it (its guard accepts every index: torch/csrc/acc/
    Module.cpp, PythonDeviceGuard::setDevice does nothing), so torch's side is CUDA's guard on a
    machine with one GPU, recorded by scripts/record_week5_guard.py: c10/cuda/impl/
    CUDAGuardImpl.h sends setDevice and exchangeDevice to cudaSetDevice, whose "invalid device
    ordinal" is torch.AcceleratorError, a RuntimeError. Only the kind of error is graded."""
    return lib.guard_program(_missing_device)


@case(W, points=2, tasks=("5.1", "5.3"))
def task_5_3_device_module(lib: Any) -> Any:
    """``torch.get_device_module("labdev")`` is your module and answers as torch's own device
    module for the CPU does (``torch.cpu``, torch/cpu/__init__.py): available, one device,
    synchronize and ``set_device`` return, whether the device is given as an index, as the bare
    name (a ``torch.device`` whose index is None means the one device there is) or as
    "<name>:0"."""
    dev = device(lib)
    mod = torch.get_device_module(dev)
    return each(
        {
            "is_available": lambda: mod.is_available(),
            "device_count": lambda: mod.device_count(),
            "synchronize": lambda: mod.synchronize(),
            "synchronize(0)": lambda: mod.synchronize(0),
            "synchronize(<name>)": lambda: mod.synchronize(dev),
            "set_device(0)": lambda: mod.set_device(0),
            "set_device(<name>)": lambda: mod.set_device(dev),
            "set_device(<name>:0)": lambda: mod.set_device(f"{dev}:0"),
            "set_device(torch.device(<name>))": lambda: mod.set_device(torch.device(dev)),
            "torch.<name> is the same module": lambda: getattr(torch, dev) is mod,
        }
    )


@case(W, points=3, tasks=("5.1", "5.2", "5.4"))
def task_5_4_empty(lib: Any) -> Any:
    """``torch.empty`` on the device (``empty.memory_format``): shape, contiguous strides,
    dtype and device for several shapes and dtypes, a channels_last request, and zero
    elements."""
    dev = device(lib)
    return each(
        {
            "2x3 float32": lambda: geometry(torch.empty(2, 3, device=dev), dev),
            "4 int64": lambda: geometry(torch.empty(4, dtype=torch.int64, device=dev), dev),
            "2x3x4 float64": lambda: geometry(
                torch.empty(2, 3, 4, dtype=torch.float64, device=dev), dev
            ),
            "channels_last": lambda: geometry(
                torch.empty(2, 3, 4, 5, device=dev, memory_format=torch.channels_last), dev
            ),
            "bool scalar": lambda: geometry(torch.empty((), dtype=torch.bool, device=dev), dev),
            "zero elements": lambda: geometry(torch.empty(0, 3, device=dev), dev),
        }
    )


@case(W, points=2, tasks=("5.1", "5.2", "5.4"))
def task_5_4_empty_strided(lib: Any) -> Any:
    """``torch.empty_strided`` on the device keeps the strides asked for (a transposed layout,
    a gap between rows, a stride of 0) and its storage has exactly the bytes those strides
    reach, as torch sizes it (at::detail::computeStorageNbytes in aten/src/ATen/EmptyTensor.cpp:
    one past the farthest element, times the item size): not the element count's bytes."""
    dev = device(lib)

    def make(size: tuple[int, ...], stride: tuple[int, ...]) -> Any:
        t = torch.empty_strided(size, stride, device=dev)
        return {**geometry(t, dev), "storage_nbytes": t.untyped_storage().nbytes()}

    return each(
        {
            "transposed": lambda: make((2, 3), (1, 2)),
            "gap between rows": lambda: make((2, 3), (5, 1)),
            "3-d": lambda: make((2, 2, 2), (1, 4, 2)),
            "stride 0 (expanded)": lambda: make((4, 3), (0, 1)),
        }
    )


@case(W, points=2, tasks=("5.1", "5.2", "5.4"))
def task_5_4_dispatch_keys(lib: Any) -> Any:
    """A device tensor dispatches on PrivateUse1 and on the autograd and autocast keys that go
    with it, nothing else (``torch._C._dispatch_keys``); ``requires_grad`` changes none of
    them."""
    dev = device(lib)
    t = torch.empty(3, device=dev)
    g = torch.empty(3, device=dev).requires_grad_()
    return {"tensor": backend_keys(t, dev), "requires_grad": backend_keys(g, dev)}


@case(W, points=2, tasks=("5.1", "5.2", "5.4"))
def task_5_4_blocks_are_aligned(lib: Any) -> Any:
    """Every block the allocator gives is 32-byte aligned, whatever the size asked (the chip
    reads memory in 32-byte rows). Torch's CPU blocks are aligned to 64 bytes, so to 32 too."""
    dev = device(lib)
    sizes = [1, 3, 5, 7, 9, 33, 100, 1000]
    tensors = [torch.empty(n, dtype=torch.uint8, device=dev) for n in sizes]
    tensors += [torch.empty(n, dtype=torch.float64, device=dev) for n in sizes]
    return {"every data_ptr % 32 == 0": [t.data_ptr() % 32 == 0 for t in tensors]}


@case(W, points=3, tasks=("5.1", "5.2", "5.4"))
def task_5_4_memory_is_counted(lib: Any) -> Any:
    """The allocator counts what live tensors hold: each block rounded up to 32 bytes, one block
    per storage, none for zero bytes; everything is given back when the tensors go."""
    dev = device(lib)

    def make(*sizes: int) -> Any:
        return lambda: lib.memory_held(
            lambda: [torch.empty(n, dtype=torch.uint8, device=dev) for n in sizes]
        )

    return each(
        {
            "1 byte": make(1),
            "32 bytes": make(32),
            "33 bytes": make(33),
            "three blocks": make(10, 64, 70),
            "zero bytes": make(0),
            "float32 2x3": lambda: lib.memory_held(lambda: torch.empty(2, 3, device=dev)),
            "freed again": lambda: lib.memory_held(lambda: [torch.empty(500, device=dev)].clear()),
        }
    )


@case(W, points=2, tasks=("5.1", "5.2", "5.4"))
def task_5_1_peak_memory(lib: Any) -> Any:
    """``max_memory_allocated`` is a peak, as torch.cuda's is (torch/cuda/memory.py: "the
    peak allocated memory", whose starting point ``reset_peak_memory_stats`` resets): after a
    reset, tensors made on the device raise it by the bytes their blocks hold (the allocation
    that raises it counts), it stays there when they are gone, and another reset brings it down
    to what is held then."""
    dev = device(lib)

    def make(*sizes: int) -> Any:
        return lambda: lib.memory_peak(lambda: [torch.empty(n, device=dev) for n in sizes])

    return each({"8 floats": make(8), "three tensors": make(8, 100, 3), "zero floats": make(0)})
