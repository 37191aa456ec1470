"""Hostile submission: a complete-looking engine whose Tensor wraps a ``torch.Tensor``.

Every factory, dtype and method is torch's own, behind a thin wrapper (torch is imported
lazily, inside the first call, so the module itself imports cleanly). With torch allowed it
scores full marks; week 1 forbids torch, so the guard must refuse the import and every case
must score zero with "your code imported torch, which this lab forbids".
"""

import operator


def _torch():
    import torch

    return torch


def _wrap(x):
    if isinstance(x, _torch().Tensor):
        return Tensor(x)
    if isinstance(x, tuple | list) and any(isinstance(e, _torch().Tensor) for e in x):
        return type(x)(_wrap(e) for e in x)
    return x


def _unwrap(x):
    if isinstance(x, Tensor):
        return x._t
    if isinstance(x, tuple | list):
        return type(x)(_unwrap(e) for e in x)
    if isinstance(x, dict):
        return {k: _unwrap(v) for k, v in x.items()}
    return x


def _call(fn):
    return lambda *a, **k: _wrap(fn(*_unwrap(a), **_unwrap(k)))


class Tensor:
    def __init__(self, t):
        self._t = t

    def __getattr__(self, name):
        attr = getattr(self._t, name)
        if not callable(attr):
            return _wrap(attr)

        def method(*a, **k):
            out = attr(*_unwrap(a), **_unwrap(k))
            return self if out is self._t else _wrap(out)  # x.add_(1) is x, as in torch

        return method

    def contiguous(self):  # torch returns the very same tensor when it already is
        t = self._t.contiguous()
        return self if t is self._t else Tensor(t)

    def __getitem__(self, index):
        return _wrap(self._t[_unwrap(index)])

    def __setitem__(self, index, value):
        self._t[_unwrap(index)] = _unwrap(value)

    def __len__(self):
        return len(self._t)

    def __iter__(self):
        return (_wrap(t) for t in self._t)

    def __bool__(self):
        return bool(self._t)

    def __repr__(self):
        return repr(self._t)


for _name in ("add", "radd", "sub", "rsub", "mul", "rmul", "eq"):
    _op = f"__{_name}__"
    setattr(Tensor, _op, lambda self, other, _op=_op: _wrap(getattr(self._t, _op)(_unwrap(other))))


def empty_aligned(*size, dtype=None, align=32):
    torch = _torch()
    if len(size) == 1 and isinstance(size[0], list | tuple):
        size = tuple(size[0])
    dtype = dtype or torch.float32
    itemsize = torch.empty((), dtype=dtype).element_size()
    if align <= 0 or align % itemsize:
        raise ValueError(f"align must be a positive multiple of the element size {itemsize}")
    per_row = align // itemsize
    pitch = -(-operator.index(size[-1]) // per_row) * per_row
    return Tensor(torch.empty(*size[:-1], pitch, dtype=dtype)[..., : size[-1]])


def __getattr__(name):  # every other name of the module: torch's own, wrapped
    if name.startswith("__"):
        raise AttributeError(name)
    torch = _torch()  # first: the import of torch is what the guard records
    try:
        from autograder.truth.week1 import TORCH_EXTRAS  # the lab's helpers, done by torch
    except ImportError:  # hidden from workers: torch's own functions are all it has
        TORCH_EXTRAS = {}
    del torch

    if name in TORCH_EXTRAS:
        return _call(lambda *a, **k: TORCH_EXTRAS[name](_torch(), *a, **k))
    attr = getattr(_torch(), name)
    return _call(attr) if callable(attr) and not isinstance(attr, type) else attr
