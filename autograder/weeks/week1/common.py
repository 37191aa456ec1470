"""Helpers shared by the week-1 cases (plain Python: they run with torch and with the engine)."""

from __future__ import annotations

from typing import Any

from autograder import attempt, observe
from autograder.observe import raised

W = "week1"


def storage_extent(size: Any, stride: Any) -> int:
    """Elements a storage needs for this layout at offset 0: one past the farthest element."""
    if any(int(s) == 0 for s in size):
        return 0
    return 1 + sum((int(s) - 1) * int(st) for s, st in zip(size, stride, strict=True))


# The trusted torch constructions of the lab's helper functions (``lib.contiguous_strides``
# on torch's side) live in autograder/truth/week1.py, where no worker can read them.


def value(fn: Any) -> Any:
    """``fn()`` made plain (tuples, lists, NumPy or torch arrays of numbers become lists), or
    the error it raised: for the helpers that return numbers rather than tensors."""

    def plain(v: Any) -> Any:
        if hasattr(v, "tolist"):
            v = v.tolist()
        if isinstance(v, list | tuple):
            return [plain(e) for e in v]
        return int(v) if isinstance(v, int) and not isinstance(v, bool) else v

    try:
        result = fn()
    except Exception as exc:  # noqa: BLE001 - every error is data here
        return raised(exc)
    if result is None or isinstance(result, bool | int | float | str):
        return {"kind": "value", "type": type(result).__name__, "value": result}
    if isinstance(result, list | tuple) or hasattr(result, "tolist"):
        return {"kind": "value", "type": "list", "value": plain(result)}
    return {"kind": "value", "type": type(result).__name__, "value": repr(result)[:200]}


# --- helpers shared by the cases (plain Python: they run with torch and with the engine) -----


def _prod(sizes: Any) -> int:
    n = 1
    for s in sizes:
        n *= int(s)
    return n


def _values_only(fn: Any) -> Any:
    """Shape, dtype and values of ``fn()``, not its layout.

    Used for arithmetic on non-contiguous operands, where torch lays the result out like its
    inputs (``x.t() + 1`` has strides ``(1, 4)``): ``arithmetic_result_layout`` checks that
    separately, so a layout mistake does not also cost the values.
    """
    obs = attempt(fn)
    if isinstance(obs, dict) and obs.get("kind") == "tensor":
        return {k: obs[k] for k in ("kind", "shape", "dtype", "values")}
    return obs


def _arith(fn: Any) -> Any:
    """The result of an elementwise op; an empty result's strides are left out.

    For numel 0 torch's TensorIterator may hand back odd strides (``zeros(4, 0, 1) * 3`` has
    strides ``(0, 1, 0)``): an accident of its implementation, not a rule to learn.
    """
    obs = attempt(fn)
    if isinstance(obs, dict) and obs.get("kind") == "tensor" and 0 in obs["shape"]:
        obs.pop("stride")
    return obs


def _row_byte_offsets(a: Any) -> list[int]:
    """Where each row (each index of all dims but the last) starts, in bytes from the storage."""
    sizes, strides = list(a.shape), list(a.stride())
    offsets = [int(a.storage_offset())]
    for size, stride in zip(sizes[:-1], strides[:-1], strict=True):
        offsets = [o + i * int(stride) for o in offsets for i in range(int(size))]
    return [int(o) * int(a.element_size()) for o in offsets]


def _aligned_report(a: Any) -> dict[str, Any]:
    offsets = _row_byte_offsets(a)
    return {
        "row byte offsets": offsets,
        "all rows 32-byte aligned": all(o % 32 == 0 for o in offsets),
    }


def _write_scene(lib: Any) -> Any:
    """``scene(write, dtype=None)``: apply an in-place ``write`` to a fresh
    ``arange(12).view(3, 4)`` and observe what it returned and what ``x`` holds after."""

    def scene(write: Any, dtype: Any = None) -> Any:
        x = lib.arange(12, dtype=dtype).view(3, 4)
        try:
            result = write(x)
        except Exception as exc:  # noqa: BLE001 - the error is the observation
            return raised(exc)
        return {"result": observe(result), "x": observe(x)}

    return scene


def _fmt_shape(shape: Any) -> str:
    shape = list(shape)
    return "(" + ", ".join(map(str, shape)) + ("," if len(shape) == 1 else "") + ")"
