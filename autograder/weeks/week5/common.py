"""Helpers shared by the week-5 cases.

Each case runs twice: once with torch on the CPU (``lib.setup()`` gives "cpu") and once with the
learner's device (``lib.setup()`` gives "labdev"). The same program runs on both, and what it
sees is compared: values, shapes, strides, dtypes, which results share storage, and the keys a
tensor dispatches on. The helpers use torch to make inputs and to read results (through
``.cpu()``, which is the learner's ``_copy_from`` on their device), never to answer for the
learner.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable
from typing import Any

import torch

from autograder.observe import dtype_name, guard, raised

W = "week5"
_COUNTER = itertools.count()

# The backend component of a CPU tensor's keys, and what it is for a PrivateUse1 tensor
# (c10/core/DispatchKeySet.h: per-backend functionality keys exist once for each backend).
_BACKEND_KEYS = {"CPU": "PrivateUse1", "AutogradCPU": "AutogradPrivateUse1"}
_BACKEND_KEYS["AutocastCPU"] = "AutocastPrivateUse1"


def device(lib: Any) -> str:
    """Set the device up and give its name: "cpu" for torch's run, "labdev" for yours."""
    return lib.setup()


def fresh_ns(tag: str) -> str:
    """A namespace no registration has used yet in this process."""
    return f"torchlab_{tag}_{next(_COUNTER)}"


def data(*shape: int, start: int = 0, dtype: torch.dtype = torch.float32) -> torch.Tensor:
    """A CPU tensor of distinct, exactly representable values (the same on both runs)."""
    n = 1
    for s in shape:
        n *= s
    t = torch.arange(n, dtype=torch.float64) * 0.5 - 2.0 + start
    return t.reshape(shape).to(dtype)


def where(t: torch.Tensor, dev: str) -> str:
    """Which device a tensor is on, in words both runs share."""
    return "the device" if t.device.type == dev else t.device.type


def geometry(t: Any, dev: str) -> dict[str, Any]:
    """Shape, strides, offset, dtype and device: what a kernel decides without values."""
    if not isinstance(t, torch.Tensor):
        return {"kind": "value", "type": type(t).__name__, "value": repr(t)[:200]}
    return {
        "kind": "tensor",
        "shape": list(t.shape),
        "stride": list(t.stride()),
        "storage_offset": int(t.storage_offset()),
        "dtype": dtype_name(t),
        "device": where(t, dev),
    }


def result(t: Any, dev: str) -> dict[str, Any]:
    """Geometry and values (read back through ``.cpu()``)."""
    out = geometry(t, dev)
    if out["kind"] == "tensor":
        out["values"] = t.detach().cpu().tolist()
    return out


def values(t: torch.Tensor) -> dict[str, Any]:
    """A result brought back to the CPU: dtype, shape and values."""
    return {"dtype": dtype_name(t), "shape": list(t.shape), "values": t.tolist()}


def shares(a: torch.Tensor, b: torch.Tensor) -> bool:
    """Do two tensors use one storage (a view and its base)?"""
    return a.untyped_storage().data_ptr() == b.untyped_storage().data_ptr()


def backend_keys(t: torch.Tensor, dev: str) -> list[str]:
    """``torch._C._dispatch_keys(t)`` by name. On torch's run (a CPU tensor) the backend keys
    are written as a PrivateUse1 tensor has them: the same functionality keys for the other
    backend component, which is what torch gives a tensor whose TensorImpl was made with the
    PrivateUse1 key (c10/core/TensorImpl.cpp adds the autograd and autocast keys)."""
    names = re.findall(r"\w+", str(torch._C._dispatch_keys(t)).split("(", 1)[1])
    if dev == "cpu":
        names = [_BACKEND_KEYS.get(n, n) for n in names]
    return names


def each(cases: dict[str, Callable[[], Any]]) -> dict[str, Any]:
    """Run each named step on its own: one that raises is recorded, the others still run."""
    return {name: guard(fn) for name, fn in cases.items()}


NOT_GRADED = "[not graded: the wording; only the kind of error is]"


def kind_only(fn: Callable[[], Any]) -> Any:
    """``fn()``, or the error it raised graded by kind alone: meta kernels word their errors
    differently from the real ones (notes, section 6), so no case grades on the words or on the
    numbers they name. The message is kept as it was raised, so a failing check shows your own
    error's text (and torch's), with a note that the wording is not graded."""
    try:
        return fn()
    except Exception as exc:  # noqa: BLE001 - every error is data here
        seen = raised(exc)
        if seen["type"] == "NotImplementedError":  # an exercise not written yet: say which
            return seen
        message = f"{seen['message'] or '(no message)'} {NOT_GRADED}"
        return {"kind": "raised", "type": seen["type"], "message": message, "facts": []}


def mlp(seed: int, sizes: tuple[int, ...] = (4, 8, 3)) -> torch.nn.Module:
    """A small MLP with the same weights on both runs."""
    g = torch.Generator().manual_seed(seed)
    layers: list[torch.nn.Module] = []
    for i, (a, b) in enumerate(itertools.pairwise(sizes)):
        layer = torch.nn.Linear(a, b)
        with torch.no_grad():
            layer.weight.copy_(torch.rand(b, a, generator=g) - 0.5)
            layer.bias.copy_(torch.rand(b, generator=g) - 0.5)
        layers.append(layer)
        if i < len(sizes) - 2:
            layers.append(torch.nn.ReLU())
    return torch.nn.Sequential(*layers)


def base_name(op: str) -> str:
    """ "aten::sub.out", "aten.sub_.Tensor" -> "sub": in-place and out= forms are one op."""
    name = re.sub(r"^aten(::|\.)", "", op).split(".")[0]
    return name if name.startswith("_") else name.rstrip("_")


def fell_back(lib: Any, program: Callable[[], Any]) -> list[str]:
    """The ops that reached the fallback while ``program`` ran, by base name, each once."""
    return sorted({base_name(op) for op in lib.fallback_ops(program)})
