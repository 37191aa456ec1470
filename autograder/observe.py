"""Observations: what a case saw, as plain data that can be cached, sent over a pipe and diffed.

A case returns observations built with the helpers here. They work the same on a real
``torch.Tensor`` and on a learner's engine tensor, because they only use the public API both
share (``shape``, ``stride()``, ``storage_offset()``, ``is_contiguous()``, ``tolist()``...).
"""

from __future__ import annotations

import builtins
import re
from collections.abc import Callable
from typing import Any

Observation = Any  # plain data: dict / list / str / int / float / bool / None


def is_tensor_like(x: object) -> bool:
    """True for torch tensors and engine tensors (anything with strides and an offset)."""
    return hasattr(x, "stride") and hasattr(x, "storage_offset") and hasattr(x, "shape")


def _ints(seq: Any) -> list[int]:
    return [int(v) for v in seq]


def dtype_name(x: Any) -> str:
    """'float32' for torch.float32 and for an engine's float32 alike."""
    return str(x.dtype).rsplit(".", 1)[-1]


def observe(x: Any, values: bool = True, storage: bool = False) -> Observation:
    """Everything week 1 compares about a tensor: geometry, contiguity, dtype and values.

    ``values=False`` for tensors whose contents are undefined (``empty``).
    ``storage=True`` adds the storage size in bytes (the memory a layout costs).
    Anything that is not a tensor is recorded by type, so the judge can say
    "torch returns a tensor here, yours returned list".
    """
    if not is_tensor_like(x):
        return describe_value(x)
    obs: dict[str, Any] = {
        "kind": "tensor",
        "shape": _ints(x.shape),
        "dtype": dtype_name(x),
        "stride": _ints(x.stride()),
        "storage_offset": int(x.storage_offset()),
        "is_contiguous": bool(x.is_contiguous()),
    }
    if storage:
        obs["storage_nbytes"] = int(x.untyped_storage().nbytes())
    if values:
        obs["values"] = _plain(x.tolist())
    return obs


def _plain(v: Any) -> Any:
    """Nested lists of Python numbers (NumPy scalars become Python ones)."""
    if isinstance(v, list | tuple):
        return [_plain(e) for e in v]
    if isinstance(v, bool | int | float):
        return v
    if hasattr(v, "item"):
        return v.item()
    return v


def describe_value(v: Any) -> Observation:
    """A non-tensor result: plain values are kept, other objects are named by type."""
    if v is None or isinstance(v, bool | int | float | str):
        return {"kind": "value", "type": type(v).__name__, "value": v}
    if isinstance(v, list | tuple) and all(isinstance(e, bool | int | float) for e in v):
        return {"kind": "value", "type": type(v).__name__, "value": list(v)}
    return {"kind": "value", "type": type(v).__name__, "value": repr(v)[:200]}


def error_kind(exc: BaseException) -> str:
    """The builtin exception class an error belongs to (torch's own classes derive from them)."""
    for cls in type(exc).__mro__:
        if getattr(builtins, cls.__name__, None) is cls:
            return cls.__name__
    return type(exc).__name__


def message_facts(message: str) -> list[int]:
    """The numbers an error message names (the index, the dimension, the sizes), each once,
    in the order it first names them.

    ``"index 9 is out of bounds for dimension 1 with size 4"`` -> ``[9, 1, 4]``. The judge
    compares these, not the wording: a message may say it in its own words, but it must name
    the numbers torch names, in torch's order (a number said twice need be said only once), so
    a message that swaps two sizes, or two versions, is a different message.
    """
    return list(dict.fromkeys(int(n) for n in re.findall(r"(?<![\w.])-?\d+", message)))


def raised(exc: BaseException, during: str = "") -> Observation:
    """An error is an observation too: where torch raises, the engine must raise the same kind,
    naming the same numbers. ``during="reading"``: the operation returned, but reading its
    result (``tolist()``, ``stride()``...) raised."""
    message = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
    obs = {"kind": "raised", "type": error_kind(exc), "message": message[:300]}
    obs["facts"] = message_facts(message)
    if during:
        obs["during"] = during
    return obs


def guard(fn: Callable[[], Observation]) -> Observation:
    """``fn()`` (already plain observations), or the error it raised, recorded."""
    try:
        return fn()
    except Exception as exc:  # noqa: BLE001 - every error is data here
        return raised(exc)


def attempt(fn: Callable[[], Any], **observe_kwargs: Any) -> Observation:
    """Run ``fn`` and observe its result, or record the error it raised.

    Use it for each step of a chain, so a step that raises is compared (torch raises
    RuntimeError here, does yours?) without losing the steps before it.
    """
    try:
        result = fn()
    except Exception as exc:  # noqa: BLE001 - every error is data here
        return raised(exc)
    try:
        return observe(result, **observe_kwargs)
    except Exception as exc:  # noqa: BLE001 - observing can hit an unfinished method
        return raised(exc, during="reading")


def shares_storage(a: Any, b: Any) -> bool:
    """True when two tensors are views of one storage (torch: equal untyped_storage data_ptr)."""
    return a.untyped_storage().data_ptr() == b.untyped_storage().data_ptr()
