"""Week 2's side of torch: trusted torch constructions of the lab's helpers (see truth/__init__)."""

from __future__ import annotations

from typing import Any


def _torch_priority_order(torch: Any, keys: list) -> list:
    """Keys lowest priority first, as torch prints a key set holding all of them. (A union of
    keys on several backends holds extra keys too; the order of the given ones is the same.)"""
    ks = torch._C.DispatchKeySet(keys[0])
    for k in keys[1:]:
        ks = ks | torch._C.DispatchKeySet(k)
    order = [n.strip() for n in repr(ks)[len("DispatchKeySet(") : -1].split(",")]
    return sorted(keys, key=lambda k: order.index(k.name))


def _torch_tensor_key_set(torch: Any, device: str, inference: bool = False) -> Any:
    """The key set of a fresh tensor on ``device`` (made inside inference mode if asked)."""
    with torch.inference_mode(inference):
        return torch._C._dispatch_keys(torch.empty(2, device=device))


TORCH_EXTRAS = {
    "priority_order": _torch_priority_order,
    "tensor_key_set": _torch_tensor_key_set,
}
