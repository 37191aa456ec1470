"""Helpers shared by the week-2b cases. Both sides have torch here: the helpers use it to
make inputs and read results, never to answer for the learner."""

from __future__ import annotations

import itertools
import types
from typing import Any

import torch

from autograder.observe import dtype_name

W = "week2b"
_COUNTER = itertools.count()

# The keys a computed table is compared on: those a custom op and aten share meaningfully.
TABLE_KEYS = ["CPU", "Meta", "AutogradCPU", "ADInplaceOrView", "BackendSelect", "AutocastCPU"]


# torch's own entry points, bound when the cases load: before any learner code runs in the
# worker, so a submission that rebinds ``torch._C`` or ``torch.ops`` later does not reach them.
_FIND_SCHEMA = torch._C._dispatch_find_schema_or_throw
_OP_NAMESPACE = torch._ops._OpNamespace


def make_linear(lib: Any, tag: str) -> Any:
    """Task 2.5's op as the dispatcher holds it, from ``lib.make_linear("<fresh ns>::linear")``."""
    qualname = f"{fresh_ns(tag)}::linear"
    return registered(lib, qualname, lib.make_linear(qualname), "make_linear")


def make_mul(lib: Any, tag: str) -> Any:
    """Task 2.6's op as the dispatcher holds it, from ``lib.make_mul("<fresh ns>")``."""
    ns = fresh_ns(tag)
    return registered(lib, f"{ns}::mul", lib.make_mul(ns), "make_mul")


def registered(lib: Any, qualname: str, returned: Any, task: str) -> Any:
    """The op the dispatcher has under ``qualname``, looked up by the grader: never the object
    the learner's function returned (returning aten's own op would copy aten perfectly). On
    torch's side (``oracle.TorchLib``, not a module) the answer is aten's op itself."""
    if not isinstance(lib, types.ModuleType):
        return returned
    try:
        _FIND_SCHEMA(qualname, "")
    except RuntimeError:
        raise RuntimeError(
            f"{task} returned {type(returned).__name__}, but torch's dispatcher has no operator "
            f"named {qualname}: register the op under the name you are given"
        ) from None
    ns, name = qualname.split("::")
    return getattr(_OP_NAMESPACE(ns), name).default


def fresh_ns(tag: str) -> str:
    """A namespace no registration has used yet in this process."""
    return f"torchlab_{tag}_{next(_COUNTER)}"


def inputs(*shape: int, start: int = 0, grad: bool = False) -> torch.Tensor:
    """A float64 tensor of distinct, exactly representable values (no randomness: both runs
    must see the same numbers)."""
    n = 1
    for s in shape:
        n *= s
    t = (torch.arange(n, dtype=torch.float64) * 0.25 - 1.5 + start).reshape(shape)
    return t.requires_grad_(grad)


def result(t: Any) -> dict[str, Any]:
    """A result's shape, dtype, device and (off the meta device) values."""
    if not isinstance(t, torch.Tensor):
        return {"kind": "value", "type": type(t).__name__, "value": repr(t)[:200]}
    out: dict[str, Any] = {
        "kind": "tensor",
        "shape": list(t.shape),
        "dtype": dtype_name(t),
        "device": t.device.type,
    }
    if t.device.type != "meta" and not isinstance(t, torch._subclasses.FakeTensor):
        out["values"] = t.detach().tolist()
    return out


def grads(*tensors: torch.Tensor) -> list[Any]:
    """Each tensor's ``.grad`` as a result (None where there is none)."""
    return [None if t.grad is None else result(t.grad) for t in tensors]


def chain_rows(chain: Any) -> list[list[str]]:
    """A trace as rows [key, kernel, file] (plain lists: one layout for both sides)."""
    return [[str(d["key"]), str(d["kernel"]), str(d["file"])] for d in chain]
