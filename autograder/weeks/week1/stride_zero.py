"""Week 1 cases. Tasks 1.8-1.9: expand and broadcasting (stride 0), unfold and as_strided
(overlapping windows)."""

from __future__ import annotations

from autograder import attempt, case, observe, shares_storage
from autograder.observe import guard, raised
from autograder.weeks.week1.common import (
    W,
    value,
)

# --- Task 1.8: expand, broadcast_shapes -----------------------------------------------------


@case(W, points=2, tasks=("1.1", "1.8"))
def task_1_8_infer_expand_geometry(lib):
    """infer_expand_geometry(sizes, strides, target): stride 0 for every stretched or new dim,
    and for a new leading dim of size 1 the stride a fresh tensor would give it."""
    out = {"arange(6).stride()": value(lambda: lib.arange(6).stride())}
    for sizes, strides, target in [
        ((3,), (1,), (1, 3)),
        ((3,), (1,), (2, 3)),
        ((3, 1), (1, 1), (3, 4)),
        ((3, 1), (2, 5), (2, -1, 4)),
        ((1,), (7,), (1, 1, 5)),
        ((4, 3), (1, 4), (1, 4, 3)),
        ((4, 3), (1, 4), (2, 1, 4, 3)),
        ((), (), (2, 3)),
        ((), (), (1,)),
        ((2, 3), (3, 1), (2, 4)),
        ((2, 3), (3, 1), (-1, 2, 3)),
    ]:
        out[f"infer_expand_geometry({sizes}, {strides}, {target})"] = value(
            lambda a=(sizes, strides, target): lib.infer_expand_geometry(*a)
        )
    return out


@case(W, points=1, tasks=("1.1", "1.2", "1.3", "1.8"))
def expand_adds_leading_dims(lib):
    """A new leading dim of size 1 is not stretched: it gets size * stride of the dim after it
    (``zeros(3).expand(1, 3).stride()`` is (3, 1)), and a stretched one gets 0."""
    return {
        "arange(3).expand(1, 3)": attempt(lambda: lib.arange(3).expand(1, 3)),
        "zeros(3).expand(1, 3)": attempt(lambda: lib.zeros(3).expand(1, 3)),
        "zeros(3).expand(1, 1, 3)": attempt(lambda: lib.zeros(3).expand(1, 1, 3)),
        "zeros(3).expand(2, 1, 3)": attempt(lambda: lib.zeros(3).expand(2, 1, 3)),
        "tensor(5).expand(1)": attempt(lambda: lib.tensor(5).expand(1)),
        "tensor(5).expand(1, 1)": attempt(lambda: lib.tensor(5).expand(1, 1)),
        "empty_strided((2, 3), (1, 2)).expand(1, 2, 3)": attempt(
            lambda: lib.empty_strided((2, 3), (1, 2)).expand(1, 2, 3), values=False
        ),
    }


@case(W, points=2, tasks=("1.1", "1.2", "1.3", "1.4", "1.5", "1.8"))
def expand_strides(lib):
    """Expanded dims (and new leading dims) get stride 0; -1 keeps a size."""
    c = lib.arange(3).view(3, 1)
    x = lib.arange(12).view(3, 4)
    return {
        "c.expand(3, 4)": attempt(lambda: c.expand(3, 4)),
        "c.expand(-1, 4)": attempt(lambda: c.expand(-1, 4)),
        "c.expand(2, -1, 4)": attempt(lambda: c.expand(2, -1, 4)),
        "c.expand((2, 3, 4))": attempt(lambda: c.expand((2, 3, 4))),
        "c.expand(2, 3, 1)": attempt(lambda: c.expand(2, 3, 1)),
        "x.t().expand(2, 4, 3)": attempt(lambda: x.t().expand(2, 4, 3)),
        "x.expand(3, 4)": attempt(lambda: x.expand(3, 4)),
        "tensor(7).expand(2, 3)": attempt(lambda: lib.tensor(7).expand(2, 3)),
        "shares storage": attempt(lambda: shares_storage(c, c.expand(3, 4))),
    }


@case(W, points=1, tasks=("1.1", "1.2", "1.3", "1.4", "1.8"))
def expand_errors(lib):
    """Only size-1 dims expand; -1 is not allowed for a new leading dim."""
    c = lib.arange(3).view(3, 1)
    return {
        "zeros(3, 2).expand(3, 4)": attempt(lambda: lib.zeros(3, 2).expand(3, 4)),
        "c.expand(4)": attempt(lambda: c.expand(4)),
        "c.expand(-1, 3, 4)": attempt(lambda: c.expand(-1, 3, 4)),
        "c.expand(4, 4)": attempt(lambda: c.expand(4, 4)),
        "c.expand(3, 5)": attempt(lambda: c.expand(3, 5)),
        "zeros(3, 2).expand(2, 3, 4) (names the target's dim)": attempt(
            lambda: lib.zeros(3, 2).expand(2, 3, 4)
        ),
    }


@case(W, points=1, tasks=("1.1", "1.2", "1.3", "1.4", "1.8"))
def broadcast_shapes_rule(lib):
    """Align from the right; a size-1 dim stretches; anything else must match (0 included)."""
    c = lib.arange(3).view(3, 1)
    return {
        "c.expand(broadcast_shapes(c.shape, (1, 4)))": attempt(
            lambda: c.expand(*lib.broadcast_shapes(c.shape, (1, 4)))
        ),
        "(3, 1), (1, 4)": attempt(lambda: lib.broadcast_shapes((3, 1), (1, 4))),
        "(2, 1, 4), (3, 1)": attempt(lambda: lib.broadcast_shapes((2, 1, 4), (3, 1))),
        "(), (3,)": attempt(lambda: lib.broadcast_shapes((), (3,))),
        "(0,), (1,)": attempt(lambda: lib.broadcast_shapes((0,), (1,))),
        "(2, 0), (1, 1)": attempt(lambda: lib.broadcast_shapes((2, 0), (1, 1))),
        "[2, 1], [1, 3], (4, 1, 1)": attempt(
            lambda: lib.broadcast_shapes([2, 1], [1, 3], (4, 1, 1))
        ),
        "(5, 1, 3) alone": attempt(lambda: lib.broadcast_shapes((5, 1, 3))),
        "(3,), (4,)": attempt(lambda: lib.broadcast_shapes((3,), (4,))),
        "(0,), (3,)": attempt(lambda: lib.broadcast_shapes((0,), (3,))),
        "(2, 3), (3, 2)": attempt(lambda: lib.broadcast_shapes((2, 3), (3, 2))),
        "3, (2, 1) (an int is a 1-d shape)": attempt(lambda: lib.broadcast_shapes(3, (2, 1))),
    }


@case(W, points=3, tasks=("1.1", "1.2", "1.3", "1.4", "1.5", "1.6", "1.7", "1.8", "1.10"))
def expanded_tensor_views_and_copies(lib):
    """Stride-0 tensors are not contiguous; some views still work, reshape/contiguous copy."""
    e = lib.arange(3.0).view(3, 1).expand(3, 4)
    return {
        "e": observe(e, storage=True),
        "e.view(3, 2, 2)": attempt(lambda: e.view(3, 2, 2)),
        "e.view(12)": attempt(lambda: e.view(12)),
        "e.view(4, 3)": attempt(lambda: e.view(4, 3)),
        "e.t()": attempt(lambda: e.t()),
        "e.t().view(4, 3)": attempt(lambda: e.t().view(4, 3)),
        "e[0]": attempt(lambda: e[0]),
        "e[:, 0]": attempt(lambda: e[:, 0]),
        "e.reshape(12)": attempt(lambda: e.reshape(12), storage=True),
        "e.reshape(12) shares storage": attempt(lambda: shares_storage(e.reshape(12), e)),
        "e.reshape(3, 2, 2) shares storage": attempt(lambda: shares_storage(e.reshape(3, 2, 2), e)),
        "e.contiguous()": attempt(lambda: e.contiguous(), storage=True),
        "e.contiguous() shares storage": attempt(lambda: shares_storage(e.contiguous(), e)),
        "e.flatten(0, 0)": attempt(lambda: e.flatten(0, 0)),
    }


@case(W, points=3, tasks=("1.1", "1.2", "1.3", "1.4", "1.6", "1.8", "1.12"))
def writing_into_expanded_tensors(lib):
    """Writes whose target has several elements on one memory location raise (fill_ is exempt).

    Writing one element of an expanded tensor is allowed, and shows up in every position that
    shares it.
    """

    def write(code):
        e = lib.arange(3.0).view(3, 1).expand(3, 4)
        try:
            code(e)
        except Exception as exc:  # noqa: BLE001 - the error is the observation
            return raised(exc)
        return observe(e)

    def setitem(key, value):
        def run(e):
            e[key] = value

        return run

    return {
        "e[0] = 5": write(setitem(0, 5)),
        "e[...] = 1": write(setitem(Ellipsis, 1)),
        "e.add_(1)": write(lambda e: e.add_(1)),
        "e.mul_(2)": write(lambda e: e.mul_(2)),
        "e.copy_(ones(3, 4))": write(lambda e: e.copy_(lib.ones(3, 4))),
        "e[0, 1] = 5": write(setitem((0, 1), 5)),
        "e[:, 0] = tensor([1., 2., 3.])": write(setitem((slice(None), 0), lib.tensor([1.0, 2, 3]))),
        "e.fill_(1)": write(lambda e: e.fill_(1)),
    }


# --- Task 1.9: unfold, as_strided ----------------------------------------------------------


@case(W, points=2, tasks=("1.1", "1.2", "1.3", "1.4", "1.5", "1.6", "1.9"))
def unfold_windows(lib):
    """unfold(d, size, step): a new last dim of length size, stride[d] multiplied by step."""
    w = lib.arange(10)
    x = lib.arange(12).view(3, 4)
    return {
        "w.unfold(0, 3, 1)": attempt(lambda: w.unfold(0, 3, 1)),
        "w.unfold(0, 3, 2)": attempt(lambda: w.unfold(0, 3, 2)),
        "w.unfold(0, 4, 3) drops the tail": attempt(lambda: w.unfold(0, 4, 3)),
        "w.unfold(0, 10, 1)": attempt(lambda: w.unfold(0, 10, 1)),
        "w[1:].unfold(0, 3, 3)": attempt(lambda: w[1:].unfold(0, 3, 3)),
        "x.unfold(1, 2, 2)": attempt(lambda: x.unfold(1, 2, 2)),
        "x.unfold(0, 2, 1)": attempt(lambda: x.unfold(0, 2, 1)),
        "x.unfold(-1, 3, 1)": attempt(lambda: x.unfold(-1, 3, 1)),
        "x.t().unfold(0, 2, 2)": attempt(lambda: x.t().unfold(0, 2, 2)),
        "w.unfold(0, 0, 1)": attempt(lambda: w.unfold(0, 0, 1)),
        "shares storage": attempt(lambda: shares_storage(w, w.unfold(0, 3, 1))),
    }


@case(W, points=1, tasks=("1.1", "1.2", "1.3", "1.9"))
def unfold_of_a_0d_tensor(lib):
    """A 0-d tensor unfolds like a one-element 1-d one: ``tensor(5).unfold(0, 1, 1)`` has
    shape (1,); any larger window is out of range."""
    return {
        "arange(1).unfold(0, 1, 1)": attempt(lambda: lib.arange(1).unfold(0, 1, 1)),
        "tensor(5).unfold(0, 1, 1)": attempt(lambda: lib.tensor(5).unfold(0, 1, 1)),
        "tensor(5).unfold(-1, 1, 3)": attempt(lambda: lib.tensor(5).unfold(-1, 1, 3)),
        "tensor(5).unfold(0, 2, 1)": attempt(lambda: lib.tensor(5).unfold(0, 2, 1)),
        "tensor(5).unfold(0, 0, 1)": attempt(lambda: lib.tensor(5).unfold(0, 0, 1)),
        "tensor(5).unfold(1, 1, 1)": attempt(lambda: lib.tensor(5).unfold(1, 1, 1)),
    }


@case(W, points=1, tasks=("1.1", "1.2", "1.3", "1.9"))
def unfold_errors(lib):
    """A window longer than the dim, a zero step, a negative size or a bad dim raise."""
    w = lib.arange(10)
    return {
        "w.unfold(0, 11, 1)": attempt(lambda: w.unfold(0, 11, 1)),
        "w.unfold(0, 3, 0)": attempt(lambda: w.unfold(0, 3, 0)),
        "w.unfold(0, -1, 1)": attempt(lambda: w.unfold(0, -1, 1)),
        "w.unfold(1, 2, 1)": attempt(lambda: w.unfold(1, 2, 1)),
        "w.unfold(-1, 11, 1) (names dim 0)": attempt(lambda: w.unfold(-1, 11, 1)),
        "zeros(0, 3).unfold(0, 1, 1)": attempt(lambda: lib.zeros(0, 3).unfold(0, 1, 1)),
        "zeros(0, 3).unfold(1, 2, 1)": attempt(lambda: lib.zeros(0, 3).unfold(1, 2, 1)),
    }


@case(W, points=2, tasks=("1.1", "1.2", "1.3", "1.4", "1.9"))
def as_strided_overlapping_windows(lib):
    """as_strided may overlap elements (stride smaller than size) or repeat them (stride 0)."""
    w = lib.arange(10)
    x = lib.arange(12).view(3, 4)
    return {
        "w.as_strided((3, 3), (1, 1))": attempt(lambda: w.as_strided((3, 3), (1, 1))),
        "w.as_strided((4, 3), (2, 1))": attempt(lambda: w.as_strided((4, 3), (2, 1))),
        "w.as_strided((5, 2), (1, 5))": attempt(lambda: w.as_strided((5, 2), (1, 5))),
        "w.as_strided((2, 2), (0, 3))": attempt(lambda: w.as_strided((2, 2), (0, 3))),
        "w.as_strided((3, 3), (3, 1), 1)": attempt(lambda: w.as_strided((3, 3), (3, 1), 1)),
        "w.as_strided([3], [2])": attempt(lambda: w.as_strided([3], [2])),
        "as_strided(w, (2, 5), (1, 2))": attempt(lambda: lib.as_strided(w, (2, 5), (1, 2))),
        "x.as_strided((2, 2, 2), (4, 4, 1))": attempt(lambda: x.as_strided((2, 2, 2), (4, 4, 1))),
        "w.as_strided((), (), 9)": attempt(lambda: w.as_strided((), (), 9)),
        "shares storage": attempt(lambda: shares_storage(w, w.as_strided((3, 3), (1, 1)))),
    }


@case(W, points=2, tasks=("1.1", "1.2", "1.3", "1.6", "1.9"))
def as_strided_offset_defaults_to_the_views(lib):
    """Without storage_offset, as_strided keeps the input's offset (not 0); strides are absolute."""
    w = lib.arange(10)
    v = w[2:]
    return {
        "w[2:].as_strided((2, 2), (1, 1))": attempt(lambda: v.as_strided((2, 2), (1, 1))),
        "w[2:].as_strided((2, 2), (1, 1), 0)": attempt(lambda: v.as_strided((2, 2), (1, 1), 0)),
        "w[::2].as_strided((3,), (1,))": attempt(lambda: w[::2].as_strided((3,), (1,))),
        "w[7:].as_strided((2,), (1,), 1)": attempt(lambda: w[7:].as_strided((2,), (1,), 1)),
        "w[5:].as_strided((5,), (1,))": attempt(lambda: w[5:].as_strided((5,), (1,))),
        "w[5:].as_strided((6,), (1,))": attempt(lambda: w[5:].as_strided((6,), (1,))),
    }


@case(W, points=2, tasks=("1.1", "1.2", "1.3", "1.9"))
def as_strided_bounds(lib):
    """The largest offset reached must lie inside the storage; negative strides are refused."""
    w = lib.arange(10)
    return {
        "w.as_strided((3, 3), (4, 1))": attempt(lambda: w.as_strided((3, 3), (4, 1))),
        "w.as_strided((3, 3), (3, 1))": attempt(lambda: w.as_strided((3, 3), (3, 1))),
        "w.as_strided((), (), 10)": attempt(lambda: w.as_strided((), (), 10)),
        "w.as_strided((10,), (1,), 1)": attempt(lambda: w.as_strided((10,), (1,), 1)),
        "w.as_strided((2,), (-1,))": attempt(lambda: w.as_strided((2,), (-1,))),
        "w.as_strided((3, 0), (100, 1))": attempt(lambda: w.as_strided((3, 0), (100, 1))),
        "w.as_strided((2, 1, 3), (3, 999, 1))": attempt(
            lambda: w.as_strided((2, 1, 3), (3, 999, 1))
        ),
        "w.as_strided((2, 3), (3,))": attempt(lambda: w.as_strided((2, 3), (3,))),
    }


@case(W, points=3, tasks=("1.1", "1.2", "1.3", "1.6", "1.8", "1.9", "1.11", "1.12"))
def writes_through_overlapping_views(lib):
    """One storage element seen at several indices: a write shows up at all of them."""

    def scenario(make_view, write):
        w = lib.arange(10)
        v = make_view(w)
        write(v)
        return {"view": observe(v), "base": observe(w)}

    def set_item(key, value):
        def run(v):
            v[key] = value

        return run

    return {
        "as_strided((3, 3), (1, 1))[0, 2] = 100": guard(
            lambda: scenario(lambda w: w.as_strided((3, 3), (1, 1)), set_item((0, 2), 100))
        ),
        "unfold(0, 3, 1)[1] = -1": guard(
            lambda: scenario(lambda w: w.unfold(0, 3, 1), set_item(1, -1))
        ),
        "as_strided((3, 3), (1, 1)).fill_(7)": guard(
            lambda: scenario(lambda w: w.as_strided((3, 3), (1, 1)), lambda v: v.fill_(7))
        ),
        "unfold(0, 4, 2).mul_(0)": guard(
            lambda: scenario(lambda w: w.unfold(0, 4, 2), lambda v: v.mul_(0))
        ),
        "unfold(0, 4, 2).mul_(2) (shared elements doubled twice)": guard(
            lambda: scenario(lambda w: w.unfold(0, 4, 2), lambda v: v.mul_(2))
        ),
        "unfold(0, 4, 2).add_(1)": guard(
            lambda: scenario(lambda w: w.unfold(0, 4, 2), lambda v: v.add_(1))
        ),
        "as_strided((2, 2), (0, 3))[1, 1] = 50": guard(
            lambda: scenario(lambda w: w.as_strided((2, 2), (0, 3)), set_item((1, 1), 50))
        ),
    }
