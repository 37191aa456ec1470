"""Week 1 cases. Task 1.10: contiguous, reshape and clone; then the zero-size, 0-d and
size-1 corners across tasks."""

from __future__ import annotations

from autograder import attempt, case, observe, shares_storage
from autograder.observe import guard
from autograder.weeks.week1.common import (
    W,
    value,
)

# --- Task 1.10: contiguous, reshape, clone --------------------------------------------------


@case(W, points=2, tasks=("1.1", "1.2", "1.3", "1.4", "1.10"))
def task_1_10_copies_of_strided_layouts(lib):
    """clone keeps a dense layout's dim order and packs any other (infer_dense_strides);
    contiguous and reshape give row-major copies, or self / a view when they can."""
    out = {"arange(6)": observe(lib.arange(6))}
    layouts = [
        ((2, 3), (1, 2)),
        ((3, 2, 4), (4, 12, 1)),
        ((2, 3), (4, 1)),
        ((3, 4), (0, 1)),
        ((2, 2), (1, 1)),
        ((2, 3), (1, 1)),
        ((2, 3, 4), (1, 8, 2)),
        ((4,), (2,)),
        ((2, 1, 3), (3, 999, 1)),
        ((0, 3), (7, 5)),
    ]
    for size, stride in layouts:

        def make(a=(size, stride)):
            return lib.empty_strided(*a)

        name = f"empty_strided({size}, {stride})"
        out[f"{name}.clone()"] = attempt(lambda m=make: m().clone(), values=False)
        out[f"{name}.contiguous()"] = attempt(lambda m=make: m().contiguous(), values=False)
        out[f"{name}.reshape(-1)"] = attempt(lambda m=make: m().reshape(-1), values=False)
        out[f"{name}.contiguous() is itself"] = value(
            lambda m=make: (lambda t: t.contiguous() is t)(m())
        )
    return out


@case(W, points=3, tasks=("1.1", "1.2", "1.3", "1.4", "1.5", "1.6", "1.9", "1.10"))
def contiguous_copies_only_when_needed(lib):
    """contiguous() returns the tensor itself when it is contiguous (any offset, any size-1
    stride), and a fresh row-major copy otherwise."""
    x = lib.arange(12).view(3, 4)
    w = lib.arange(10)
    cases = {
        "x": lambda: x,
        "x[1]": lambda: x[1],
        "x[1:]": lambda: x[1:],
        "x.t()": lambda: x.t(),
        "x[:, ::2]": lambda: x[:, ::2],
        "x[:, :1]": lambda: x[:, :1],
        "as_strided((2, 1, 3), (3, 999, 1))": lambda: w.as_strided((2, 1, 3), (3, 999, 1)),
        "as_strided((0, 3), (7, 5))": lambda: w.as_strided((0, 3), (7, 5)),
    }
    out = {}
    for label, make in cases.items():
        v = make()
        out[f"{label}.contiguous()"] = attempt(lambda v=v: v.contiguous(), storage=True)
        out[f"{label}.contiguous() shares storage"] = attempt(
            lambda v=v: shares_storage(v.contiguous(), v)
        )
    return out


@case(W, points=3, tasks=("1.1", "1.2", "1.3", "1.4", "1.5", "1.6", "1.9", "1.10"))
def reshape_copies_exactly_when_torch_does(lib):
    """reshape is view() when the view rule allows it and a contiguous copy otherwise."""
    base = lib.arange(24)
    q = base.as_strided((3, 2, 4), (4, 12, 1))
    x = base[:12].view(3, 4)
    targets = {
        "q.reshape(3, 8)": lambda: q.reshape(3, 8),
        "q.reshape(3, 2, 2, 2)": lambda: q.reshape(3, 2, 2, 2),
        "q.reshape(-1)": lambda: q.reshape(-1),
        "x.t().reshape(12)": lambda: x.t().reshape(12),
        "x.t().reshape(4, 3)": lambda: x.t().reshape(4, 3),
        "x.t().reshape(4, 1, 3)": lambda: x.t().reshape(4, 1, 3),
        "x[:, :2].reshape(6)": lambda: x[:, :2].reshape(6),
        "x[1:].reshape(2, 2, 2)": lambda: x[1:].reshape(2, 2, 2),
        "x[:, ::2].reshape(6)": lambda: x[:, ::2].reshape(6),
        "x[::2].reshape(8)": lambda: x[::2].reshape(8),
    }
    out = {}
    for label, make in targets.items():
        out[label] = attempt(make, storage=True)
        out[f"{label} shares storage"] = attempt(lambda make=make: shares_storage(make(), base))
    return out


@case(W, points=1, tasks=("1.1", "1.2", "1.3", "1.4", "1.5", "1.10"))
def reshape_errors(lib):
    """reshape checks the numel and the -1 like view does, but never fails on layout."""
    z = lib.arange(6)
    return {
        "z.reshape(4)": attempt(lambda: z.reshape(4)),
        "z.reshape(-1, -1)": attempt(lambda: z.reshape(-1, -1)),
        "z.reshape(4, -1)": attempt(lambda: z.reshape(4, -1)),
        "z.reshape((3, 2))": attempt(lambda: z.reshape((3, 2))),
        "z.view(2, 3).t().reshape(-1)": attempt(lambda: z.view(2, 3).t().reshape(-1)),
        "zeros(0, 3).reshape(-1, 0)": attempt(lambda: lib.zeros(0, 3).reshape(-1, 0)),
    }


@case(W, points=2, tasks=("1.1", "1.2", "1.3", "1.4", "1.5", "1.6", "1.8", "1.10", "1.12"))
def clone_is_a_copy(lib):
    """clone() never shares storage. Like torch, it keeps the strides of a dense tensor (a
    transpose stays transposed) and packs a tensor with gaps or repeats row-major."""
    x = lib.arange(12).view(3, 4)

    def cloned(v):
        c = v.clone()
        return {
            "clone": observe(c, storage=True),
            "shares storage": attempt(lambda: shares_storage(c, v)),
        }

    def write_to_clone():
        c = x.clone()
        c[0] = -1
        return {"clone": observe(c), "original": observe(x)}

    return {
        "x.clone()": guard(lambda: cloned(x)),
        "x[1:].clone()": guard(lambda: cloned(x[1:])),
        "x[:, ::2].clone()": guard(lambda: cloned(x[:, ::2])),
        "x.t().clone()": guard(lambda: cloned(x.t())),
        "zeros(3, 1).expand(3, 4).clone()": guard(lambda: cloned(lib.zeros(3, 1).expand(3, 4))),
        "clone()[0] = -1 leaves x alone": guard(write_to_clone),
    }


@case(W, points=1, tasks=("1.1", "1.2", "1.3", "1.9"))
def empty_strided_storage_size(lib):
    """empty_strided allocates just enough for the largest offset reached (1 + sum).

    The same layout as a view keeps its base's whole storage.
    """
    return {
        "arange(6).as_strided((2, 3), (1, 2))": observe(
            lib.arange(6.0).as_strided((2, 3), (1, 2)), storage=True
        ),
        "empty_strided((2, 3), (1, 2))": attempt(
            lambda: lib.empty_strided((2, 3), (1, 2)), values=False, storage=True
        ),
        "empty_strided((2, 3), (4, 1))": attempt(
            lambda: lib.empty_strided((2, 3), (4, 1)), values=False, storage=True
        ),
        "empty_strided((2, 3), (0, 1))": attempt(
            lambda: lib.empty_strided((2, 3), (0, 1)), values=False, storage=True
        ),
        "empty_strided((0, 3), (4, 1))": attempt(
            lambda: lib.empty_strided((0, 3), (4, 1)), values=False, storage=True
        ),
        "empty_strided((), ())": attempt(
            lambda: lib.empty_strided((), ()), values=False, storage=True
        ),
        "empty_strided((2, 3), (1, 2), dtype=float64)": attempt(
            lambda: lib.empty_strided((2, 3), (1, 2), dtype=lib.float64),
            values=False,
            storage=True,
        ),
        "empty_strided((2, 3), (3,))": attempt(
            lambda: lib.empty_strided((2, 3), (3,)), values=False, storage=True
        ),
    }


# --- Zero-size, 0-d and size-1 tensors (across tasks) -----------------------------------------


@case(W, points=2, tasks=("1.1", "1.2", "1.3", "1.4", "1.5", "1.7", "1.10"))
def zero_size_tensors(lib):
    """numel 0: always contiguous; view/reshape infer strides as if each size were >= 1."""
    zz = lib.arange(0.0).view(0, 3)
    return {
        "zz = arange(0).view(0, 3)": observe(zz, storage=True),
        "zeros(0, 3).t()": attempt(lambda: zz.t()),
        "zeros(3, 0).t()": attempt(lambda: lib.zeros(3, 0).t()),
        "zz.view(-1)": attempt(lambda: zz.view(-1)),
        "zz.view(3, -1)": attempt(lambda: zz.view(3, -1)),
        "zz.view(5, 0)": attempt(lambda: zz.view(5, 0)),
        "zz.view(-1, 5)": attempt(lambda: zz.view(-1, 5)),
        "zz.view(-1, 0)": attempt(lambda: zz.view(-1, 0)),
        "zz.view(0, -1)": attempt(lambda: zz.view(0, -1)),
        "zz.t().view(3, 0) (same shape)": attempt(lambda: zz.t().view(3, 0)),
        "zz.t().view(0, 3)": attempt(lambda: zz.t().view(0, 3)),
        "zz.reshape(3, 0)": attempt(lambda: zz.reshape(3, 0)),
        "zz.flatten()": attempt(lambda: zz.flatten()),
        "zz.contiguous()": attempt(lambda: zz.contiguous()),
    }


@case(W, points=2, tasks=("1.1", "1.2", "1.3", "1.4", "1.6", "1.7", "1.8"))
def zero_size_views(lib):
    """Slicing to empty, expanding to or from size 0, unsqueezing a zero-size tensor."""
    x = lib.arange(12).view(3, 4)
    zz = lib.zeros(0, 3)
    return {
        "x[3:]": attempt(lambda: x[3:]),
        "x[:, 4:]": attempt(lambda: x[:, 4:]),
        "x[1:1, 2:]": attempt(lambda: x[1:1, 2:]),
        "x.narrow(1, 4, 0)": attempt(lambda: x.narrow(1, 4, 0)),
        "zz.expand(2, 0, 3)": attempt(lambda: zz.expand(2, 0, 3)),
        "zeros(3, 1).expand(3, 0)": attempt(lambda: lib.zeros(3, 1).expand(3, 0)),
        "zz.unsqueeze(0)": attempt(lambda: zz.unsqueeze(0)),
        "zz.unsqueeze(1)": attempt(lambda: zz.unsqueeze(1)),
        "zz.unsqueeze(2)": attempt(lambda: zz.unsqueeze(2)),
        "zz.squeeze()": attempt(lambda: zz.squeeze()),
        "zz[1:]": attempt(lambda: zz[1:]),
        "zz[:, 1]": attempt(lambda: zz[:, 1]),
        "zz.narrow(0, 0, 0)": attempt(lambda: zz.narrow(0, 0, 0)),
        "len(zz)": attempt(lambda: len(zz)),
    }


@case(W, points=2, tasks=("1.1", "1.2", "1.3", "1.4", "1.6", "1.7", "1.8"))
def zero_dim_tensors(lib):
    """A 0-d tensor has shape (), strides () and one element; it views to (1,) and back."""
    v = lib.arange(6)[5]
    s = lib.tensor(5)
    return {
        "arange(6)[5]": observe(v, storage=True),
        "tensor(5)": observe(s, storage=True),
        "s.dim()": attempt(lambda: s.dim()),
        "s.numel()": attempt(lambda: s.numel()),
        "s.size()": attempt(lambda: s.size()),
        "s.stride()": attempt(lambda: s.stride()),
        "s.item()": attempt(lambda: s.item()),
        "s.tolist()": attempt(lambda: s.tolist()),
        "s.view(1)": attempt(lambda: s.view(1)),
        "s.view(-1)": attempt(lambda: s.view(-1)),
        "s.view(1, 1)": attempt(lambda: s.view(1, 1)),
        "s.view(1).view(())": attempt(lambda: s.view(1).view(())),
        "s.view(2)": attempt(lambda: s.view(2)),
        "s.unsqueeze(0)": attempt(lambda: s.unsqueeze(0)),
        "s.unsqueeze(-1)": attempt(lambda: s.unsqueeze(-1)),
        "s.unsqueeze(1)": attempt(lambda: s.unsqueeze(1)),
        "s.squeeze()": attempt(lambda: s.squeeze()),
        "s.squeeze(0)": attempt(lambda: s.squeeze(0)),
        "s.expand(3)": attempt(lambda: s.expand(3)),
        "s[None]": attempt(lambda: s[None]),
        "s[...]": attempt(lambda: s[...]),
        "len(s)": attempt(lambda: len(s)),
        "arange(4).view(2, 2)[1, 0]": attempt(lambda: lib.arange(4).view(2, 2)[1, 0]),
    }


@case(W, points=2, tasks=("1.1", "1.2", "1.3", "1.4", "1.5", "1.6", "1.7", "1.9"))
def size_one_dims(lib):
    """Size-1 dims carry whatever stride; contiguity and the view rule ignore it."""
    x = lib.arange(12).view(3, 4)
    odd = lib.arange(10).as_strided((2, 1, 3), (3, 999, 1))
    return {
        "odd": observe(odd),
        "odd.view(6)": attempt(lambda: odd.view(6)),
        "odd.view(2, 3)": attempt(lambda: odd.view(2, 3)),
        "odd.view(3, 1, 2)": attempt(lambda: odd.view(3, 1, 2)),
        "odd.squeeze(1)": attempt(lambda: odd.squeeze(1)),
        "odd.transpose(0, 1)": attempt(lambda: odd.transpose(0, 1)),
        "x[:, :1]": attempt(lambda: x[:, :1]),
        "x[:, :1].view(3)": attempt(lambda: x[:, :1].view(3)),
        "x[:, :1].t()": attempt(lambda: x[:, :1].t()),
        "x[:1].view(2, 2)": attempt(lambda: x[:1].view(2, 2)),
        "x[:, None, 2:].squeeze(1)": attempt(lambda: x[:, None, 2:].squeeze(1)),
    }
