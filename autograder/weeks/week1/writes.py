"""Week 1 cases. Task 1.12: in-place writes through views, and the writes torch refuses."""

from __future__ import annotations

from autograder import case, observe
from autograder.observe import raised
from autograder.weeks.week1.common import (
    W,
    _write_scene,
)

# --- Task 1.12: writes through views --------------------------------------------------------


@case(W, points=2, tasks=("1.1", "1.2", "1.3", "1.4", "1.5", "1.6", "1.8", "1.12"))
def setitem_writes_through_views(lib):
    """x[...] = v writes into the storage: the base and every other view see it."""

    def scene(write):
        x = lib.arange(12).view(3, 4)
        t = x.t()
        try:
            write(x)
        except Exception as exc:  # noqa: BLE001 - the error is the observation
            return raised(exc)
        return {"x": observe(x), "x.t()": observe(t)}

    def put(key, value):
        def run(x):
            x[key] = value

        return run

    return {
        "x[0] = 5": scene(put(0, 5)),
        "x[1, 2] = -7": scene(put((1, 2), -7)),
        "x[:, 1] = tensor([7, 8, 9])": scene(put((slice(None), 1), lib.tensor([7, 8, 9]))),
        "x[1:, ::2] = tensor([-1, -2])": scene(
            put((slice(1, None), slice(None, None, 2)), lib.tensor([-1, -2]))
        ),
        "x[..., -1] = 0": scene(put((Ellipsis, -1), 0)),
        "x[0] = 2.7 (int64 target)": scene(put(0, 2.7)),
        "x[:] = arange(4.)": scene(put(slice(None), lib.arange(4, dtype=lib.float32))),
        "x.t()[1] = 100": scene(lambda x: x.t().__setitem__(1, 100)),
        "x[0] = ones(1, 1, 4) (leading 1s dropped)": scene(
            put(0, lib.ones(1, 1, 4, dtype=lib.int64))
        ),
        "x[0] = ones(2, 1, 4)": scene(put(0, lib.ones(2, 1, 4, dtype=lib.int64))),
        "x[1] = tensor([7, 8, 9])": scene(put(1, lib.tensor([7, 8, 9]))),
        "x[5] = 1": scene(put(5, 1)),
    }


@case(W, points=2, tasks=("1.1", "1.2", "1.3", "1.4", "1.5", "1.6", "1.8", "1.12"))
def fill_through_views(lib):
    """fill_ writes every element of the view (and returns it); other elements stay."""

    scene = _write_scene(lib)

    return {
        "x.t()[1].fill_(-1)": scene(lambda x: x.t()[1].fill_(-1)),
        "x.t().fill_(1)": scene(lambda x: x.t().fill_(1)),
        "x[:, 1::2].fill_(0)": scene(lambda x: x[:, 1::2].fill_(0)),
        "x[1:, 1:].fill_(2.7) (int64)": scene(lambda x: x[1:, 1:].fill_(2.7)),
        "x[0, 0].fill_(9)": scene(lambda x: x[0, 0].fill_(9)),
        "x[3:].fill_(9) (empty)": scene(lambda x: x[3:].fill_(9)),
        "x.fill_(tensor(7))": scene(lambda x: x.fill_(lib.tensor(7))),
        "x.fill_(tensor([7])) (not 0-d)": scene(lambda x: x.fill_(lib.tensor([7]))),
    }


@case(W, points=2, tasks=("1.1", "1.2", "1.3", "1.4", "1.6", "1.7", "1.8", "1.10", "1.12"))
def a_0d_value_fills(lib):
    """A 0-d tensor is a value, not an array: ``fill_(t)`` copies it (Fill.cpp: fill_ of a
    Tensor is ``self.copy_(value)``, from a clone when ``value`` is a view of self), so the
    internal-overlap check applies where ``fill_(7)`` skips it; and ``x[i] = t`` of another
    shape fills (TensorIndexing.h: copy_to), so reading ``t`` from x itself is no overlap."""

    scene = _write_scene(lib)

    def expanded(write):
        return scene(lambda x: write(x[0, :1].expand(3, 4)))

    return {
        "x[0, :1].expand(3, 4).fill_(7)": expanded(lambda e: e.fill_(7)),
        "x[0, :1].expand(3, 4).fill_(tensor(7))": expanded(lambda e: e.fill_(lib.tensor(7))),
        "x.fill_(x[2, 3])": scene(lambda x: x.fill_(x[2, 3])),
        "x[1].fill_(x[1, 2])": scene(lambda x: x[1].fill_(x[1, 2])),
        "x[None] = x[1, 1]": scene(lambda x: x.__setitem__(None, x[1, 1])),
        "x[1, 1, None] = x[1, 1]": scene(lambda x: x.__setitem__((1, 1, None), x[1, 1])),
        "x[:, 1:] = x[0, 0]": scene(
            lambda x: x.__setitem__((slice(None), slice(1, None)), x[0, 0])
        ),
        "x[0, 0] = x[1, 1] (same shape: copy_)": scene(lambda x: x.__setitem__((0, 0), x[1, 1])),
        "x[1] = x[1:2] (a 1-d value: copy_)": scene(lambda x: x.__setitem__(1, x[1:2])),
        "x[0] = x[0, :1] (too hard to check)": scene(lambda x: x.__setitem__(0, x[0, :1])),
    }


@case(W, points=1, tasks=("1.1", "1.2", "1.3", "1.4", "1.6", "1.8", "1.11", "1.12"))
def reading_what_you_write(lib):
    """A write may read its own target in full (``x[1].mul_(x[1])``), never in part: torch
    refuses a source that partly overlaps the target (assert_no_partial_overlap)."""

    scene = _write_scene(lib)

    return {
        "x[1].mul_(x[1]) (full overlap is fine)": scene(lambda x: x[1].mul_(x[1])),
        "x.view(-1)[1:].copy_(x.view(-1)[:-1]) (partial overlap)": scene(
            lambda x: x.view(-1)[1:].copy_(x.view(-1)[:-1])
        ),
        "x.view(-1)[1:].add_(x.view(-1)[:-1]) (partial overlap)": scene(
            lambda x: x.view(-1)[1:].add_(x.view(-1)[:-1])
        ),
    }


@case(W, points=2, tasks=("1.1", "1.2", "1.3", "1.4", "1.5", "1.6", "1.8", "1.12"))
def copy_with_broadcasting(lib):
    """copy_(src) broadcasts src to the target's shape and casts to the target's dtype."""

    scene = _write_scene(lib)

    return {
        "x.copy_(tensor([1, 2, 3, 4]))": scene(lambda x: x.copy_(lib.tensor([1, 2, 3, 4]))),
        "x.copy_(tensor([[1], [2], [3]]))": scene(lambda x: x.copy_(lib.tensor([[1], [2], [3]]))),
        "x.t().copy_(arange(3))": scene(lambda x: x.t().copy_(lib.arange(3))),
        "x[:, ::2].copy_(tensor([[10, 20]]))": scene(
            lambda x: x[:, ::2].copy_(lib.tensor([[10, 20]]))
        ),
        "x.copy_(tensor([-1.5, 2.5, 3.9, -0.1]))": scene(
            lambda x: x.copy_(lib.tensor([-1.5, 2.5, 3.9, -0.1]))
        ),
        "float x.copy_(tensor([True, False, True, False]))": scene(
            lambda x: x.copy_(lib.tensor([True, False, True, False])), dtype=lib.float32
        ),
        "x.copy_(tensor([1, 2, 3]))": scene(lambda x: x.copy_(lib.tensor([1, 2, 3]))),
        "x[0].copy_(zeros(2, 4))": scene(lambda x: x[0].copy_(lib.zeros(2, 4))),
        "x[0].copy_(ones(1, 4)) (copy_ keeps no 1s)": scene(lambda x: x[0].copy_(lib.ones(1, 4))),
    }


@case(W, points=2, tasks=("1.1", "1.2", "1.3", "1.4", "1.5", "1.6", "1.8", "1.11", "1.12"))
def add_and_mul_in_place(lib):
    """add_/mul_ broadcast the other operand into self; self's shape and dtype never change."""

    scene = _write_scene(lib)

    return {
        "x.add_(1)": scene(lambda x: x.add_(1)),
        "x.t().add_(arange(3))": scene(lambda x: x.t().add_(lib.arange(3))),
        "x[:, :2].mul_(tensor([[10], [100], [1000]]))": scene(
            lambda x: x[:, :2].mul_(lib.tensor([[10], [100], [1000]]))
        ),
        "x[1].mul_(x[0])": scene(lambda x: x[1].mul_(x[0])),
        "float x.add_(arange(4))": scene(lambda x: x.add_(lib.arange(4)), dtype=lib.float32),
        "float x.mul_(0.5)": scene(lambda x: x.mul_(0.5), dtype=lib.float32),
        "x.add_(True)": scene(lambda x: x.add_(True)),
        "x.add_(1.5) (int64 self)": scene(lambda x: x.add_(1.5)),
        "x.mul_(tensor(2.0))": scene(lambda x: x.mul_(lib.tensor(2.0))),
        "x[:, :1].add_(ones(3, 4))": scene(lambda x: x[:, :1].add_(lib.ones(3, 4))),
    }
