"""Week 5's side of torch: the same programs on the CPU, and the shapes from torch's meta device.

- ``setup``: torch's run uses the CPU, so every program's answers are the CPU's.
- ``memory_held``: what the tensors a program keeps take, by torch's own storages: each storage
  ``nbytes`` rounded up to the chip's 32-byte rows, one block per storage that has bytes. The
  device's allocator must report the same (a copy where a view belongs, or a leak, shows).
- ``fallback_ops``: the ops torch's own dispatch logging (``LoggingTensorMode``,
  torch/testing/_internal/logging_tensor.py) sees for the program, less the lab's kernels and
  the ops torch composes from others (a CompositeExplicitAutograd kernel), by base name.
- ``guard_program``: the program on torch's own Python backend for PrivateUse1, in a child
  process; what that backend cannot show (a device index that does not exist) as CUDA's guard
  answered it on one GPU (``RECORDED_ON_CUDA``).
- ``memory_peak``: the peak as torch.cuda.max_memory_allocated defines it, for a program whose
  only allocations are what it keeps: what those hold (``memory_held``), kept after they go.
- The shape functions: torch's meta kernels on meta tensors (conv2d: the CPU kernel on zeros,
  which checks what the meta kernel skips).
- ``linear_relu`` and ``make_matmul_op``: aten's own ops.

Hidden from every worker (see ``autograder/truth/__init__.py``).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from autograder.weeks.week5.common import NOT_GRADED, base_name

# The ops the lab gives a labdev kernel (labdev.cpp's TORCH_LIBRARY_IMPL(aten, PrivateUse1)),
# by base name: these never reach the fallback.
LAB_KERNELS = {
    "empty", "empty_strided", "_copy_from", "_copy_from_and_resize", "as_strided", "view",
    "_reshape_alias",
    "fill_", "add", "mul", "sum", "mm", "relu",
}  # fmt: skip


def _setup(torch: Any) -> str:
    return "cpu"


def _storages(kept: Any) -> list[Any]:
    """The storages behind what a program kept: tensors' storages, and storages themselves."""
    if isinstance(kept, list | tuple):
        return [s for k in kept for s in _storages(k)]
    if isinstance(kept, dict):
        return [s for k in kept.values() for s in _storages(k)]
    if hasattr(kept, "untyped_storage"):
        return [kept.untyped_storage()]
    return [kept] if hasattr(kept, "nbytes") and hasattr(kept, "data_ptr") else []


def _memory_held(torch: Any, program: Callable[[], Any]) -> dict[str, int]:
    kept = program()
    storages = {s.data_ptr(): s for s in _storages(kept)}
    sizes = [s.nbytes() for s in storages.values() if s.nbytes() > 0]
    return {"bytes": sum((n + 31) // 32 * 32 for n in sizes), "blocks": len(sizes)}


def _memory_peak(torch: Any, program: Callable[[], Any]) -> dict[str, int]:
    """A peak as torch's allocators define it (torch.cuda.max_memory_allocated: the most bytes
    held at once since reset_peak_memory_stats, which starts it again from what is held now),
    for a program whose only allocations are what it returns: the peak is what that holds
    (``memory_held``'s bytes), it stays there after those are gone, and a reset brings it back
    to what is held then, nothing above the start."""
    held = _memory_held(torch, program)["bytes"]
    return {"while it lives": held, "after it is gone": held, "after a reset": 0}


def _fallback_ops(torch: Any, program: Callable[[], Any]) -> list[str]:
    from torch.testing._internal.logging_tensor import LoggingTensorMode, capture_logs

    with capture_logs(is_mode=True) as logs, LoggingTensorMode():
        program()
    out = []
    for line in logs:
        op = re.search(r"torch\._ops\.aten\.([\w.]+)\(", line).group(1)
        name, overload = op.split(".")
        qualified = f"aten::{name}" + ("" if overload == "default" else f".{overload}")
        composed = torch._C._dispatch_has_kernel_for_dispatch_key(
            qualified, "CompositeExplicitAutograd"
        )
        if base_name(op) not in LAB_KERNELS and not composed:
            out.append(f"aten::{base_name(op)}")
    return out


def _allocator_probe(torch: Any, nbytes: int) -> dict[str, Any]:
    """A storage of ``nbytes`` from torch's CPU allocator (64-byte aligned, so 32 too), held as
    the chip holds it: its nbytes rounded up to 32, one block unless it is empty."""
    s = torch.UntypedStorage(nbytes)
    n = s.nbytes()
    return {
        "aligned": s.data_ptr() % 32 == 0,
        "while it lives": {"bytes": (n + 31) // 32 * 32, "blocks": int(n > 0)},
        "after": {"bytes": 0, "blocks": 0},
    }


# Guard programs torch's Python backend cannot answer, as CUDA's guard answered them on a
# machine with one GPU (torch 2.11.0+cu130, NVIDIA H200, one GPU), recorded by
# scripts/record_week5_guard.py, which runs the case's own program there: the Python backend's
# guard accepts every device index (torch/csrc/acc/Module.cpp, PythonDeviceGuard::setDevice
# does nothing), while CUDA's (c10/cuda/impl/CUDAGuardImpl.h) asks cudaSetDevice, whose
# "invalid device ordinal" is torch.AcceleratorError, a RuntimeError. Record again after
# changing the program (its name is the key).
_REFUSED_ON_CUDA = {  # the same answer each time, as recorded
    "kind": "raised",
    "type": "RuntimeError",
    "message": f"CUDA error: invalid device ordinal {NOT_GRADED}",  # kind_only's note added
    "facts": [],
}
RECORDED_ON_CUDA: dict[str, Any] = {
    "_missing_device": {
        "device_count": 1,
        "set_device_index(count)": _REFUSED_ON_CUDA,
        "current after it": 0,
        "device_index(count) block": _REFUSED_ON_CUDA,
        "current after the block": 0,
        "device module's set_device(count)": _REFUSED_ON_CUDA,
        "current after that": 0,
    }
}


def _guard_program(torch: Any, program: Callable[[str], Any]) -> Any:
    """``program(device name)`` run on torch's own Python PrivateUse1 backend (torch/utils/
    backend_registration.py, _setup_privateuseone_for_python_backend: one device, its guard
    torch._C._acc.DeviceGuard), in a child process: a backend is renamed once per process,
    and never in the grader's. A program in ``RECORDED_ON_CUDA`` has CUDA's answers."""
    if program.__name__ in RECORDED_ON_CUDA:
        return RECORDED_ON_CUDA[program.__name__]
    code = (
        "import importlib, json, sys, torch\n"
        "from torch.utils.backend_registration import _setup_privateuseone_for_python_backend\n"
        "_setup_privateuseone_for_python_backend('labdev')\n"
        f"fn = getattr(importlib.import_module({program.__module__!r}), {program.__name__!r})\n"
        "print(json.dumps(fn('labdev')))\n"
    )
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
    if out.returncode != 0:
        raise RuntimeError(f"torch's Python backend could not run {program.__name__}: {out.stderr}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def _meta(torch: Any, shape: Sequence[int]) -> Any:
    return torch.empty(list(shape), device="meta")


def _broadcast_shapes(torch: Any, *shapes: Sequence[int]) -> list[int]:
    out = _meta(torch, [])
    for s in shapes:
        out = out + _meta(torch, s)
    return list(out.shape)


def _matmul_shape(torch: Any, a: Sequence[int], b: Sequence[int]) -> list[int]:
    return list(torch.matmul(_meta(torch, a), _meta(torch, b)).shape)


def _sum_shape(torch: Any, shape: Sequence[int], dim: Any, keepdim: bool) -> list[int]:
    return list(_meta(torch, shape).sum(dim=dim, keepdim=keepdim).shape)


def _conv2d_shape(
    torch: Any,
    input: Sequence[int],
    weight: Sequence[int],
    stride: Any = 1,
    padding: Any = 0,
    dilation: Any = 1,
    groups: int = 1,
) -> list[int]:
    # The CPU kernel on zeros, not the meta one: torch's meta kernel for convolution
    # (torch/_meta_registrations.py) skips the check that groups divide the out channels, which
    # the real kernels make (aten/src/ATen/native/Convolution.cpp, check_shape_forward).
    zeros = [torch.zeros(list(shape)) for shape in (input, weight)]
    out = torch.nn.functional.conv2d(*zeros, None, stride, padding, dilation, groups)
    return list(out.shape)


def _view_shape(torch: Any, shape: Sequence[int], size: Sequence[int]) -> list[int]:
    return list(_meta(torch, shape).view(list(size)).shape)


def _linear_relu(torch: Any, x: Any, w: Any, b: Any) -> Any:
    return torch.relu(torch.nn.functional.linear(x, w, b))


def _make_matmul_op(torch: Any, qualname: str) -> Any:
    return torch.ops.aten.matmul.default


TORCH_EXTRAS = {
    "setup": _setup,
    "memory_held": _memory_held,
    "memory_peak": _memory_peak,
    "fallback_ops": _fallback_ops,
    "guard_program": _guard_program,
    "allocator_probe": _allocator_probe,
    "broadcast_shapes": _broadcast_shapes,
    "matmul_shape": _matmul_shape,
    "sum_shape": _sum_shape,
    "conv2d_shape": _conv2d_shape,
    "view_shape": _view_shape,
    "linear_relu": _linear_relu,
    "make_matmul_op": _make_matmul_op,
}
