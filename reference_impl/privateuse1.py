"""Week 5: a new device in PyTorch, ``labdev``, brought up the way a chip vendor does it.

PyTorch reserves one dispatch key for backends that live outside its tree: PrivateUse1
(c10/core/DispatchKey.h). A vendor renames it to the chip's name, registers a Python module
for ``torch.<name>``, and fills the key in from C++: an allocator, a device guard, the hooks,
kernels, and a fallback for everything else. After that, ``torch.ones(3, device="labdev") + 1``
and a model's training step run on the device with torch's own code above the kernels.

This file is the Python half; ``labdev.cpp`` beside it is the C++ half. The exercises
("Task 5.x" in a docstring or a C++ comment):
  5.1 the device in Python: rename the backend, the device module ``torch.labdev``
      (is_available, device_count, current_device, set_device, synchronize, memory stats),
      and the generated methods ``t.labdev()`` / ``t.is_labdev``  (setup, the module functions)
  5.2 the allocator (labdev.cpp): 32-byte aligned blocks from host memory, counted
  5.3 the device guard (labdev.cpp): exchangeDevice, getDevice, setDevice
  5.4 creating tensors (labdev.cpp): empty.memory_format, empty_strided
  5.5 copies (labdev.cpp): _copy_from, _copy_from_and_resize, resize_bytes
  5.6 views (labdev.cpp): as_strided and view, sharing storage
  5.7 kernels (labdev.cpp): fill_, add, mul, sum, mm, relu
  5.8 the boxed CPU fallback that logs each op it takes (labdev.cpp)
  5.9 meta shape functions: broadcast_shapes, matmul_shape, sum_shape, conv2d_shape,
      view_shape (here, in Python, compared with torch's meta device)
  5.10 meta kernels for custom ops: ``make_matmul_op`` (register_fake, here) and
      ``linear_relu_meta`` (labdev.cpp)

Reading map: torch/utils/backend_registration.py (rename_privateuse1_backend,
generate_methods_for_privateuse1_backend), torch/__init__.py (_register_device_module),
torch/accelerator/__init__.py, c10/core/impl/PrivateUse1Utils and DeviceGuardImplInterface.h.
"""

from __future__ import annotations

import math
import types
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import torch

DEVICE = "labdev"
_STATS = ("allocated_bytes", "peak_bytes", "live_blocks", "total_allocations")

# === Given: loading the C++ half ================================================================


def library_path() -> str:
    """The compiled ``labdev.cpp``. The grader builds it before your code runs and says where
    (``TORCHLAB_NATIVE_LIBRARY``); elsewhere torchlab builds it now, with
    ``torch.utils.cpp_extension`` and ninja, and keeps the build for the same source."""
    from autograder.native import library_path as built_library

    return built_library(Path(__file__), "week5")


def load_library() -> None:
    """Load the C++ half once: its static initializers register the allocator, the guard and
    the hooks, and its TORCH_LIBRARY blocks the kernels. A process keeps a library it has
    loaded, so after editing labdev.cpp restart the kernel (or the process)."""
    if not hasattr(torch.ops.labdev, "memory_stats"):
        torch.ops.load_library(library_path())


def use_caching_allocator(allocator: Any) -> None:
    """Given: lend a caching allocator to labdev. ``allocator`` is week 4c's
    ``CachingAllocator`` over ``Device(capacity, host_memory=True)``; from now on every labdev
    tensor's memory comes from it, and ``torch.accelerator.memory_stats()`` reports its
    statistics (labdev.cpp forwards ``c10::DeviceAllocator``'s calls to it). ``None`` goes back
    to Task 5.2's allocator; tensors made before keep the memory they have."""
    load_library()
    torch.ops.labdev.use_device_allocator(0 if allocator is None else allocator.lend_to_device())


# === Task 5.1: the device in Python =============================================================


def is_available() -> bool:
    """Task 5.1: torch.labdev.is_available(): is there a device to run on? Ask the hooks
    (``torch._C._accelerator_hooks_device_count``), as torch.cuda.is_available asks CUDA."""
    ### BEGIN SOLUTION
    return device_count() > 0
    ### END SOLUTION


def device_count() -> int:
    """Task 5.1: how many labdev devices there are: PrivateUse1HooksInterface::deviceCount
    (labdev.cpp), reached through ``torch._C._accelerator_hooks_device_count``."""
    ### BEGIN SOLUTION
    return int(torch._C._accelerator_hooks_device_count())
    ### END SOLUTION


def current_device() -> int:
    """Task 5.1: the current device's index, from the device guard (getDevice in labdev.cpp),
    reached through ``torch._C._accelerator_getDeviceIndex``."""
    ### BEGIN SOLUTION
    return int(torch._C._accelerator_getDeviceIndex())
    ### END SOLUTION


def set_device(device: int | str | torch.device) -> None:
    """Task 5.1: make ``device`` (an index, "labdev:0" or a torch.device) current, through the
    guard's setDevice (``torch._C._accelerator_setDeviceIndex``)."""
    ### BEGIN SOLUTION
    torch._C._accelerator_setDeviceIndex(_index(device))
    ### END SOLUTION


def synchronize(device: int | str | torch.device | None = None) -> None:
    """Task 5.1: wait for the device's work (the guard's synchronizeDevice)."""
    ### BEGIN SOLUTION
    index = -1 if device is None else _index(device)
    torch._C._accelerator_synchronizeDevice(index)
    ### END SOLUTION


def _index(device: int | str | torch.device) -> int:
    return device if isinstance(device, int) else (torch.device(device).index or 0)


def memory_stats() -> dict[str, int]:
    """Task 5.1: the allocator's counters (``torch.ops.labdev.memory_stats()`` gives them as a
    list, in the order of labdev.cpp's Stats) under torch.cuda.memory_stats' names:
    "allocated_bytes.all.current", "allocated_bytes.all.peak", "allocation.all.current" (live
    blocks) and "allocation.all.allocated" (every allocation so far)."""
    ### BEGIN SOLUTION
    allocated, peak, live, total = torch.ops.labdev.memory_stats()
    return {
        "allocated_bytes.all.current": allocated,
        "allocated_bytes.all.peak": peak,
        "allocation.all.current": live,
        "allocation.all.allocated": total,
    }
    ### END SOLUTION


def memory_allocated(device: Any = None) -> int:
    """Task 5.1: bytes held by live tensors now (torch.cuda.memory_allocated's meaning)."""
    ### BEGIN SOLUTION
    return memory_stats()["allocated_bytes.all.current"]
    ### END SOLUTION


def max_memory_allocated(device: Any = None) -> int:
    """Task 5.1: the most bytes held at once since the last reset_peak_memory_stats."""
    ### BEGIN SOLUTION
    return memory_stats()["allocated_bytes.all.peak"]
    ### END SOLUTION


def reset_peak_memory_stats(device: Any = None) -> None:
    """Task 5.1: start the peak again from what is held now."""
    ### BEGIN SOLUTION
    torch.ops.labdev.reset_peak_memory_stats()
    ### END SOLUTION


def manual_seed_all(seed: int) -> None:
    """Given: ``torch.manual_seed`` calls this on every registered device module. This chip
    has no generator of its own: random tensors are made on the CPU and copied over."""


def _is_in_bad_fork() -> bool:
    """Given: torch asks a device module this before it starts work in a forked child."""
    return False


MODULE_FUNCTIONS = (
    is_available,
    device_count,
    current_device,
    set_device,
    synchronize,
    memory_stats,
    memory_allocated,
    max_memory_allocated,
    reset_peak_memory_stats,
    manual_seed_all,
    _is_in_bad_fork,
)


def make_device_module() -> types.ModuleType:
    """Given: the module that becomes ``torch.labdev``, holding the functions above."""
    module = types.ModuleType(DEVICE, "The labdev device (torchlab week 5).")
    for fn in MODULE_FUNCTIONS:
        setattr(module, fn.__name__, fn)
    return module


def setup() -> str:
    """Task 5.1: make ``labdev`` a device torch knows, and return its name.

    1. ``torch.utils.rename_privateuse1_backend("labdev")``: PrivateUse1's name becomes
       "labdev" everywhere (device strings, errors, ``Tensor.device``). Torch allows it once
       per process (c10/core/DeviceType.cpp, register_privateuse1_backend), so a second call
       here must not try again;
    2. ``torch._register_device_module("labdev", make_device_module())``: ``torch.labdev``,
       which ``torch.get_device_module`` and ``torch.accelerator`` use;
    3. ``torch.utils.generate_methods_for_privateuse1_backend()``: ``Tensor.labdev()``,
       ``Tensor.is_labdev``, ``Module.labdev()`` (torch/utils/backend_registration.py).
    """
    load_library()
    ### BEGIN SOLUTION
    if torch._C._get_privateuse1_backend_name() == DEVICE:
        return DEVICE  # this process already did it: torch refuses a second rename
    torch.utils.rename_privateuse1_backend(DEVICE)
    torch._register_device_module(DEVICE, make_device_module())
    torch.utils.generate_methods_for_privateuse1_backend()
    return DEVICE
    ### END SOLUTION


# === Given: what the checks call ================================================================


def fallback_ops(program: Callable[[], Any]) -> list[str]:
    """The ops that reached your fallback (Task 5.8) while ``program`` ran, in order."""
    torch.ops.labdev.clear_fallback_log()
    program()
    return list(torch.ops.labdev.fallback_log())


def memory_held(program: Callable[[], Any]) -> dict[str, int]:
    """What ``program`` left allocated on the device: bytes and blocks still held after it
    returned (its result is kept until they are counted)."""
    before = memory_stats()
    kept = program()
    after = memory_stats()
    del kept
    return {
        "bytes": after["allocated_bytes.all.current"] - before["allocated_bytes.all.current"],
        "blocks": after["allocation.all.current"] - before["allocation.all.current"],
    }


def memory_peak(program: Callable[[], Any]) -> dict[str, int]:
    """The peak your device module reports (``max_memory_allocated``, Task 5.1) around
    ``program``, in bytes above what was held before it ran: after ``reset_peak_memory_stats``,
    while what it returned lives, after that is gone, and after another reset."""
    start = memory_allocated()
    reset_peak_memory_stats()
    kept = program()
    living = max_memory_allocated() - start
    del kept
    gone = max_memory_allocated() - start
    reset_peak_memory_stats()
    return {
        "while it lives": living,
        "after it is gone": gone,
        "after a reset": max_memory_allocated() - start,
    }


def allocator_probe(nbytes: int) -> dict[str, Any]:
    """Your allocator (Task 5.2) asked directly for ``nbytes``, with nothing else of the device
    in the way (``torch.ops.labdev.allocator_probe``, given in labdev.cpp)."""
    load_library()
    aligned, held, blocks, after, after_blocks = torch.ops.labdev.allocator_probe(nbytes)
    return {
        "aligned": bool(aligned),
        "while it lives": {"bytes": held, "blocks": blocks},
        "after": {"bytes": after, "blocks": after_blocks},
    }


def guard_program(program: Callable[[str], Any]) -> Any:
    """``program(device name)`` on your device (torch's side runs it on torch's own Python
    backend for PrivateUse1, whose guard is the model for yours)."""
    return program(setup())


def linear_relu(x: torch.Tensor, w: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    """The fused op of Task 5.10, ``torch.ops.labdev.linear_relu`` (labdev.cpp)."""
    return torch.ops.labdev.linear_relu(x, w, b)


# === Task 5.9: meta shape functions ============================================================


def broadcast_shapes(*shapes: Sequence[int]) -> list[int]:
    """Task 5.9: the shape two or more shapes broadcast to (torch.broadcast_shapes; in C++
    at::infer_size, aten/src/ATen/ExpandUtils.cpp): align from the right; sizes must be equal
    or 1. Raise RuntimeError when they cannot broadcast."""
    ### BEGIN SOLUTION
    ndim = max((len(s) for s in shapes), default=0)
    out = [1] * ndim
    for shape in shapes:
        for i, size in enumerate(shape):
            j = ndim - len(shape) + i
            if size != 1 and out[j] not in (1, size):
                raise RuntimeError(f"shapes {[list(s) for s in shapes]} cannot broadcast")
            if size != 1:
                out[j] = size
            elif out[j] == 1:
                out[j] = size
    return out
    ### END SOLUTION


def matmul_shape(a: Sequence[int], b: Sequence[int]) -> list[int]:
    """Task 5.9: the shape of ``torch.matmul(a, b)`` (aten/src/ATen/native/LinearAlgebra.cpp,
    _matmul_impl): 1-D arguments gain a dimension that is removed again; batch dimensions
    broadcast; the inner sizes must agree (RuntimeError otherwise)."""
    ### BEGIN SOLUTION
    if len(a) == 0 or len(b) == 0:
        raise RuntimeError("both arguments to matmul need at least 1 dimension")
    a2 = [1, *a] if len(a) == 1 else list(a)
    b2 = [*b, 1] if len(b) == 1 else list(b)
    if a2[-1] != b2[-2]:
        raise RuntimeError(f"matmul: inner sizes differ ({a2[-1]} and {b2[-2]})")
    out = broadcast_shapes(a2[:-2], b2[:-2]) + [a2[-2], b2[-1]]
    if len(a) == 1:
        out.pop(-2)
    if len(b) == 1:
        out.pop(-1)
    return out
    ### END SOLUTION


def sum_shape(shape: Sequence[int], dim: int | Sequence[int] | None, keepdim: bool) -> list[int]:
    """Task 5.9: the shape of ``x.sum(dim, keepdim)``: dims may be negative; None or [] means
    every dimension; a reduced dimension stays as 1 with keepdim. IndexError for a dimension
    out of range (torch's maybe_wrap_dim), RuntimeError for one given twice."""
    ### BEGIN SOLUTION
    ndim = len(shape)
    dims = [dim] if isinstance(dim, int) else list(dim or range(ndim))
    wrapped = []
    for d in dims:
        if not -max(ndim, 1) <= d < max(ndim, 1):
            raise IndexError(f"Dimension out of range (got {d} for {ndim} dimensions)")
        wrapped.append(d % max(ndim, 1))
    if len(set(wrapped)) != len(wrapped):
        raise RuntimeError(f"dim {dims} appears more than once in the list of dims")
    return [1 if i in wrapped else s for i, s in enumerate(shape) if keepdim or i not in wrapped]
    ### END SOLUTION


def conv2d_shape(
    input: Sequence[int],
    weight: Sequence[int],
    stride: int | Sequence[int] = 1,
    padding: int | Sequence[int] = 0,
    dilation: int | Sequence[int] = 1,
    groups: int = 1,
) -> list[int]:
    """Task 5.9: the shape of ``conv2d`` (aten/src/ATen/native/ConvUtils.h,
    conv_output_size): input [N, C, H, W], weight [O, C/groups, kH, kW]; each spatial size is
    (size + 2*padding - dilation*(k-1) - 1) // stride + 1. RuntimeError when the channels do
    not match or an output size would be below 1."""

    ### BEGIN SOLUTION
    def pair(v: int | Sequence[int]) -> list[int]:
        return [v, v] if isinstance(v, int) else list(v)

    (s, p, d) = (pair(stride), pair(padding), pair(dilation))
    n, c, *spatial = input
    o, cg, *kernel = weight
    if c != cg * groups or o % groups:
        raise RuntimeError(f"conv2d: input has {c} channels, weight expects {cg * groups}")
    out = [(x + 2 * p[i] - d[i] * (kernel[i] - 1) - 1) // s[i] + 1 for i, x in enumerate(spatial)]
    if any(size < 1 for size in out):
        raise RuntimeError(f"conv2d: output size {out} is too small")
    return [n, o, *out]
    ### END SOLUTION


def view_shape(shape: Sequence[int], size: Sequence[int]) -> list[int]:
    """Task 5.9: the shape ``x.view(size)`` asks for, with one -1 filled in (at::infer_size,
    aten/src/ATen/InferSize.h). RuntimeError when the element count cannot match or more than
    one -1 is given."""
    ### BEGIN SOLUTION
    numel = math.prod(shape)
    if list(size).count(-1) > 1:
        raise RuntimeError("only one dimension can be inferred")
    known = math.prod(s for s in size if s != -1)
    if -1 in size:
        if known == 0 or numel % known:
            raise RuntimeError(f"shape '{list(size)}' is invalid for input of size {numel}")
        return [numel // known if s == -1 else s for s in size]
    if known != numel:
        raise RuntimeError(f"shape '{list(size)}' is invalid for input of size {numel}")
    return list(size)
    ### END SOLUTION


# === Task 5.10: a custom op's meta kernel ======================================================


def make_matmul_op(qualname: str) -> Callable[..., torch.Tensor]:
    """Task 5.10: a custom op ``qualname`` ("ns::matmul") that computes ``a @ b``, with a fake
    (meta) kernel registered through ``torch.library.register_fake`` that gives the result's
    shape from ``matmul_shape`` without computing anything. FakeTensorMode, the meta device
    and ``torch.compile`` call only the fake kernel (torch/_library/custom_ops.py)."""

    ### BEGIN SOLUTION
    @torch.library.custom_op(qualname, mutates_args=())
    def op(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        return torch.matmul(a, b)

    @op.register_fake
    def _(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        return a.new_empty(matmul_shape(a.shape, b.shape))

    return op
    ### END SOLUTION
