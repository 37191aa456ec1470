"""Task 3.2: the ops of a small MLP, their backward nodes and their derivatives.

Each op is compared three ways with torch on the same float64 inputs: the forward values, the
name of the node it records (``MulBackward0``...), and the gradient ``backward`` leaves in
each input. Broadcasting is the classic trap: a gradient must be summed back to its input's
shape (torch: ``at::sum_to``, aten/src/ATen/ExpandUtils.h).
"""

from __future__ import annotations

from typing import Any

from autograder.cases import case, property_case
from autograder.weeks.week3.common import (
    W,
    backward_grads,
    const,
    data,
    error,
    grads,
    graph,
    leaf,
    node_name,
    tensor,
)

BINARY = {
    "a + b": lambda a, b: a + b,
    "a - b": lambda a, b: a - b,
    "a * b": lambda a, b: a * b,
    "a / b": lambda a, b: a / b,
    "a + 2": lambda a, b: a + 2,
    "3 - a": lambda a, b: 3 - a,
    "a * 0.5": lambda a, b: a * 0.5,
    "2 * b": lambda a, b: 2 * b,
    "a / 4": lambda a, b: a / 4,
    "1 / b": lambda a, b: 1 / b,
    "-a": lambda a, b: -a,
    "a ** 2": lambda a, b: a**2,
    "b ** 0.5": lambda a, b: b**0.5,
    "b ** a": lambda a, b: b**a,
}

UNARY = {
    "exp": lambda t: t.exp(),
    "log": lambda t: t.log(),
    "tanh": lambda t: t.tanh(),
    "relu": lambda t: t.relu(),
    "sigmoid": lambda t: t.sigmoid(),
    "sin": lambda t: t.sin(),
    "cos": lambda t: t.cos(),
    "clone": lambda t: t.clone(),
}

REDUCTIONS = {
    "sum()": lambda t: t.sum(),
    "sum(0)": lambda t: t.sum(0),
    "sum(1, keepdim=True)": lambda t: t.sum(1, keepdim=True),
    "sum((0, 2))": lambda t: t.sum((0, 2)),
    "mean()": lambda t: t.mean(),
    "mean(-1)": lambda t: t.mean(-1),
    "mean(0, keepdim=True)": lambda t: t.mean(0, keepdim=True),
}

VIEWS = {
    "reshape(6, 4)": lambda t: t.reshape(6, 4),
    "view(4, 6)": lambda t: t.view(4, 6),
    "transpose(0, 2)": lambda t: t.transpose(0, 2),
    "[1]": lambda t: t[1],
    "[:, 1:]": lambda t: t[:, 1:],
    "[0, :, 2]": lambda t: t[0, :, 2],
    "[1:, ::2]": lambda t: t[1:, ::2],
}


def _pair(lib: Any) -> tuple[Any, Any]:
    # b is kept positive: log, division and b ** a stay real
    return leaf(lib, (2, 3), 11), leaf(lib, (2, 3), 12, low=0.5, high=3.0)


@case(W, points=2, tasks=("3.1", "3.2"))
def task_3_2_binary_node_names(lib: Any) -> Any:
    """Each arithmetic expression records torch's node: ``AddBackward0`` for two tensors,
    a different overload's node for a Python number, ``RsubBackward1`` for ``3 - a``..."""
    a, b = _pair(lib)
    return {name: error(lambda f=f: node_name(f(a, b).grad_fn)) for name, f in BINARY.items()}


@case(W, points=3, tasks=("3.1", "3.2", "3.3"))
def task_3_3_binary_values_and_gradients(lib: Any) -> Any:
    """Forward values and the gradients of ``sum()`` of each expression, for both inputs."""
    out = {}
    for name, f in BINARY.items():
        a, b = _pair(lib)
        out[name] = backward_grads(lib, f, a, b)
    return out


@case(W, points=2, tasks=("3.1", "3.2", "3.3"))
def task_3_3_unary_ops(lib: Any) -> Any:
    """exp, log, tanh, relu, sigmoid, sin, cos, clone: node name, values, gradient."""
    out = {}
    for name, f in UNARY.items():
        t = leaf(lib, (2, 3), 13, low=0.1 if name == "log" else -2.0)
        out[name] = {
            "node": error(lambda f=f, t=t: node_name(f(t).grad_fn)),
            "backward": backward_grads(lib, f, t),
        }
    return out


@case(W, points=2, tasks=("3.1", "3.2", "3.3"))
def task_3_3_relu_at_zero(lib: Any) -> Any:
    """relu's gradient is 0 where the input is exactly 0 (torch's ``threshold_backward``)."""
    t = lib.tensor([-1.0, 0.0, 2.0], dtype=lib.float64, requires_grad=True)
    return backward_grads(lib, lambda x: x.relu(), t)


@case(W, points=2, tasks=("3.1", "3.2", "3.3"))
def task_3_3_matmul(lib: Any) -> Any:
    """``a @ b`` for two matrices records ``MmBackward0``; the gradients are
    ``grad @ b.T`` and ``a.T @ grad``."""
    a, b = leaf(lib, (2, 3), 14), leaf(lib, (3, 4), 15)
    return {
        "node": error(lambda: node_name((a @ b).grad_fn)),
        "backward": backward_grads(lib, lambda x, y: x @ y, a, b),
        "matmul": backward_grads(lib, lambda x, y: x.matmul(y), a, b),
    }


@case(W, points=3, tasks=("3.1", "3.2", "3.3"))
def task_3_3_reductions(lib: Any) -> Any:
    """sum and mean over all, one or several dims, with and without ``keepdim``: values,
    node names (``SumBackward0`` / ``SumBackward1``...) and gradients."""
    out = {}
    for name, f in REDUCTIONS.items():
        t = leaf(lib, (2, 3, 4), 16)
        out[name] = {
            "node": error(lambda f=f, t=t: node_name(f(t).grad_fn)),
            "backward": backward_grads(lib, f, t),
        }
    return out


@case(W, points=3, tasks=("3.1", "3.2", "3.3"))
def task_3_3_views_and_indexing(lib: Any) -> Any:
    """reshape, view, t, transpose, expand and indexing: node names, values, and a gradient
    that lands where each element came from (zeros elsewhere)."""
    out = {}
    for name, f in VIEWS.items():
        t = leaf(lib, (2, 3, 4), 17)
        out[name] = {
            "node": error(lambda f=f, t=t: node_name(f(t).grad_fn)),
            "backward": backward_grads(lib, f, t),
        }
    m = leaf(lib, (2, 3), 18)
    out["t()"] = backward_grads(lib, lambda x: x.t() * const(lib, (3, 2), 19), m)
    out["t() node"] = error(lambda: node_name(m.t().grad_fn))
    r = leaf(lib, (1, 3), 20)
    out["expand(4, 3)"] = backward_grads(lib, lambda x: x.expand(4, 3) * const(lib, (4, 3), 21), r)
    out["expand node"] = error(lambda: node_name(r.expand(4, 3).grad_fn))
    return out


BROADCASTS = [
    ((3, 1), (1, 4)),
    ((4,), (2, 3, 4)),
    ((2, 1, 3), (3,)),
    ((1,), (2, 2)),
    ((5, 1, 1), (1, 2, 1)),
]


@case(W, points=3, tasks=("3.1", "3.2", "3.3"))
def task_3_3_broadcasting_reduced_in_backward(lib: Any) -> Any:
    """For ``a op b`` with broadcast shapes, each gradient has its own input's shape: summed
    over the dims broadcasting added or stretched (torch's ``sum_to``)."""
    out = {}
    for i, (sa, sb) in enumerate(BROADCASTS):
        for op in ("+", "-", "*", "/"):
            a = leaf(lib, sa, 30 + i)
            b = leaf(lib, sb, 40 + i, low=0.5, high=2.0)
            f = {"+": lambda x, y: x + y, "-": lambda x, y: x - y}.get(op)
            f = f or {"*": lambda x, y: x * y, "/": lambda x, y: x / y}[op]
            w = const(lib, _broadcast(sa, sb), 50 + i)  # weights: every element counts
            out[f"{sa} {op} {sb}"] = backward_grads(lib, lambda x, y, f=f, w=w: f(x, y) * w, a, b)
    return out


def _broadcast(sa: tuple[int, ...], sb: tuple[int, ...]) -> tuple[int, ...]:
    sa, sb = tuple(sa), tuple(sb)  # a property case's examples come back as lists
    n = max(len(sa), len(sb))
    pa, pb = (1,) * (n - len(sa)) + sa, (1,) * (n - len(sb)) + sb
    return tuple(max(x, y) for x, y in zip(pa, pb, strict=True))


@case(W, points=2, tasks=("3.1", "3.2", "3.3"))
def task_3_3_promotion_and_grad_dtypes(lib: Any) -> Any:
    """float32 times float64 gives float64; each gradient has its own leaf's dtype; a Python
    float keeps a float32 tensor float32."""
    a = leaf(lib, (3,), 60, dtype="float32")
    b = leaf(lib, (3,), 61)

    def run() -> Any:
        out = a * b
        out.sum().backward()
        half = a * 0.5
        return {
            "a * b": tensor(out),
            "a.grad": tensor(a.grad),
            "b.grad": tensor(b.grad),
            "a * 0.5": tensor(half),
        }

    return error(run)


@case(W, points=2, tasks=("3.1", "3.2"))
def task_3_2_graph_structure(lib: Any) -> Any:
    """``grad_fn.next_functions``: one entry per differentiable input, in argument order,
    ``AccumulateGrad`` for a leaf that requires grad and None for one that does not."""
    a, b, c = leaf(lib, (3,), 62), leaf(lib, (3,), 63), const(lib, (3,), 64)
    return {
        "(a * b).sin().sum()": error(lambda: graph((a * b).sin().sum().grad_fn)),
        "a * c + b": error(lambda: graph((a * c + b).grad_fn)),
        "c * a": error(lambda: graph((c * a).grad_fn)),
        "(a.view(1, 3) @ b.view(3, 1)).relu()": error(
            lambda: graph((a.view(1, 3) @ b.view(3, 1)).relu().grad_fn)
        ),
    }


# SliceBackward0 keeps its arguments as given: an omitted end is INT64_MAX, not the size
# (tools/autograd/derivatives.yaml: slice.Tensor saves start, end, step as SymInts).
SLICES = {"[1:]": lambda t: t[1:], "[:2]": lambda t: t[:2], "[::2]": lambda t: t[::2]}


@case(W, points=2, tasks=("3.1", "3.2"))
def task_3_2_saved_tensors(lib: Any) -> Any:
    """A node keeps what its backward needs, visible as torch names it: ``MulBackward0`` saves
    ``_saved_self`` and ``_saved_other``, ``ExpBackward0`` its ``_saved_result``,
    ``PowBackward0`` ``_saved_self`` and the number ``_saved_exponent``, ``SliceBackward0``
    its ``_saved_dim``, ``_saved_start``, ``_saved_end`` and ``_saved_step`` as given (an
    omitted end is INT64_MAX, not the dim's size)."""
    a, b = leaf(lib, (3,), 65), leaf(lib, (3,), 66)
    return {
        "mul self": error(lambda: tensor((a * b).grad_fn._saved_self)),
        "mul other": error(lambda: tensor((a * b).grad_fn._saved_other)),
        "exp result": error(lambda: tensor(a.exp().grad_fn._saved_result)),
        "tanh result": error(lambda: tensor(a.tanh().grad_fn._saved_result)),
        "pow self": error(lambda: tensor((a**3).grad_fn._saved_self)),
        "pow exponent": error(lambda: float((a**3).grad_fn._saved_exponent)),
        "log self": error(lambda: tensor((b * b).log().grad_fn._saved_self)),
        **{f"slice {k}": error(lambda f=f: _slice_args(f(a).grad_fn)) for k, f in SLICES.items()},
    }


def _slice_args(node: Any) -> Any:
    return [
        node_name(node),
        *(int(getattr(node, f"_saved_{k}")) for k in ("dim", "start", "end", "step")),
    ]


def _chains() -> Any:
    from hypothesis import strategies as st

    shapes = st.sampled_from(BROADCASTS + [((2, 3), (2, 3)), ((3,), (1,))])
    ops = st.lists(
        st.sampled_from(["add", "mul", "sub", "div", "tanh", "sigmoid", "exp"]),
        min_size=2,
        max_size=6,
    )
    return st.tuples(shapes, ops, st.integers(0, 10_000))


def _label(ex: Any) -> str:
    (sa, sb), ops, seed = ex
    return f"a{list(sa)}, b{list(sb)}, ops {' '.join(ops)}, seed {seed}"


@property_case(W, _chains, n=20, points=3, tasks=("3.1", "3.2", "3.3"), label=_label)
def random_chains_of_ops(lib: Any, example: Any) -> Any:
    """Random chains of broadcasting and elementwise ops: values, node names on the path and
    both gradients equal torch's."""
    (sa, sb), ops, seed = example
    a, b = leaf(lib, sa, seed), leaf(lib, sb, seed + 1, low=0.5, high=1.5)

    def program(x: Any, y: Any) -> Any:
        t = x
        for op in ops:
            if op == "add":
                t = t + y
            elif op == "mul":
                t = t * y
            elif op == "sub":
                t = y - t
            elif op == "div":
                t = t / (y * y + 1)
            else:
                t = getattr(t, op)()
        return t

    return {
        "names": error(lambda: graph(program(a, b).grad_fn, depth=3)),
        "backward": backward_grads(lib, program, a, b),
    }


def _broadcast_pairs() -> Any:
    from hypothesis import strategies as st

    @st.composite
    def pair(draw: Any) -> Any:
        out = tuple(draw(st.lists(st.integers(1, 4), min_size=1, max_size=4)))
        # each side keeps a suffix of the result's dims, some of them squeezed to 1
        a = tuple(
            d if draw(st.booleans()) else 1
            for d in out[len(out) - draw(st.integers(1, len(out))) :]
        )
        b = tuple(
            d if draw(st.booleans()) else 1
            for d in out[len(out) - draw(st.integers(1, len(out))) :]
        )
        return a, b, draw(st.sampled_from(["+", "-", "*", "/"])), draw(st.integers(0, 10_000))

    return pair()


def _pair_label(ex: Any) -> str:
    a, b, op, seed = ex
    return f"a{list(a)} {op} b{list(b)}, seed {seed}"


@property_case(W, _broadcast_pairs, n=25, points=3, tasks=("3.1", "3.2", "3.3"), label=_pair_label)
def random_broadcast_gradients(lib: Any, example: Any) -> Any:
    """Random broadcastable shapes: each gradient is summed back to its own input's shape."""
    sa, sb, op, seed = example
    sa, sb = tuple(sa), tuple(sb)
    a, b = leaf(lib, sa, seed), leaf(lib, sb, seed + 1, low=0.5, high=2.0)
    f = {"+": lambda x, y: x + y, "-": lambda x, y: x - y, "*": lambda x, y: x * y}.get(op)
    f = f or (lambda x, y: x / y)
    w = const(lib, _broadcast(sa, sb), seed + 2)
    return backward_grads(lib, lambda x, y: f(x, y) * w, a, b)


def _reductions() -> Any:
    from hypothesis import strategies as st

    @st.composite
    def reduction(draw: Any) -> Any:
        shape = tuple(draw(st.lists(st.integers(1, 4), min_size=1, max_size=4)))
        dims = draw(
            st.lists(
                st.integers(-len(shape), len(shape) - 1),
                max_size=len(shape),
                unique_by=lambda d: d % len(shape),
            )
        )
        return (
            shape,
            tuple(dims),
            draw(st.booleans()),
            draw(st.sampled_from(["sum", "mean"])),
            draw(st.integers(0, 10_000)),
        )

    return reduction()


def _reduction_label(ex: Any) -> str:
    shape, dims, keepdim, op, seed = ex
    return f"{op}(dim={list(dims)}, keepdim={keepdim}) of {list(shape)}, seed {seed}"


@property_case(W, _reductions, n=25, points=3, tasks=("3.1", "3.2", "3.3"), label=_reduction_label)
def random_reductions(lib: Any, example: Any) -> Any:
    """sum and mean over random dims (negative ones too), with and without keepdim: node
    name, values and the gradient spread back over the reduced dims."""
    shape, dims, keepdim, op, seed = example
    shape, dims = tuple(shape), tuple(dims)
    t = leaf(lib, shape, seed)

    def f(x: Any) -> Any:
        return getattr(x, op)(dims, keepdim=keepdim) if dims else getattr(x, op)()

    return {
        "node": error(lambda: node_name(f(t).grad_fn)),
        "backward": backward_grads(lib, lambda x: f(x) * 1.5, t),
    }


@case(W, points=2, tasks=("3.1", "3.2"))
def task_3_2_a_slice_that_keeps_everything(lib: Any) -> Any:
    """Indexing with a tuple skips a slice that keeps its whole dim (start 0, stop at least the
    size, step 1); if nothing is left it still returns a new tensor: an alias of ``t``
    (AliasBackward0, a view, not a leaf). A bare slice, ``t[:]``, takes a fast path that
    always slices (SliceBackward0); ``t[:, 1:]`` is a real slice."""
    t = leaf(lib, (2, 3), 7)
    keys = {
        "t[:]": lambda: t[:],
        "t[(slice(None),)]": lambda: t[(slice(None),)],
        "t[0:5]": lambda: t[0:5],
        "t[0:5, :]": lambda: t[0:5, :],
        "t[:, :3]": lambda: t[:, :3],
        "t[:, 1:]": lambda: t[:, 1:],
        "t[1]": lambda: t[1],
    }
    return {k: error(lambda f=f: {**_flags(f()), "values": tensor(f())}) for k, f in keys.items()}


def _flags(t: Any) -> Any:
    return {"is_leaf": bool(t.is_leaf), "graph": graph(t.grad_fn)}


@case(W, points=2, tasks=("3.1", "3.2"))
def task_3_2_matmul_needs_one_dtype(lib: Any) -> Any:
    """``@``/``mm`` and ``addmm`` never promote: float64 @ float32 raises RuntimeError
    ("expected m1 and m2 to have the same dtype"); addmm checks the bias against mat2, then
    mat1 against mat2. Same dtypes multiply as usual. The check is the kernel's, so the
    autograd wrapper has already made its MmBackward0 when it raises (VariableType: the node
    and its saved tensors come before the redispatch)."""
    a64, b64 = leaf(lib, (2, 3), 8), leaf(lib, (3, 2), 9)
    a32, b32 = leaf(lib, (2, 3), 8, "float32"), leaf(lib, (3, 2), 9, "float32")
    bias32 = leaf(lib, (2,), 10, "float32")
    return {
        "f64 @ f32": error(lambda: tensor(a64 @ b32)),
        "f32 @ f64": error(lambda: tensor(a32 @ b64)),
        "f32 @ f32": error(lambda: tensor(a32 @ b32)),
        "addmm(f32, f64, f32)": error(lambda: tensor(lib.addmm(bias32, a64, b32))),
        "addmm(f32, f32, f64)": error(lambda: tensor(lib.addmm(bias32, a32, b64))),
        "nodes made by a failing mm": error(lambda: _nodes_made_by(lambda: a32 @ b64, a32)),
    }


def _nodes_made_by(step: Any, x: Any) -> Any:
    """How many nodes ``step`` made, raising or not: the gap in sequence numbers between two
    nodes made just before and just after it."""
    before = (x * 2).grad_fn._sequence_nr()
    try:
        step()
    except Exception:  # noqa: BLE001 - only the nodes it made count here
        pass
    return (x * 2).grad_fn._sequence_nr() - before - 1


@case(W, points=2, tasks=("3.1", "3.2"))
def task_3_2_reshape_views_when_strides_allow(lib: Any) -> Any:
    """``reshape`` views a contiguous tensor (ViewBackward0) and, through ``_reshape_alias``, a
    non-contiguous one whose strides allow it (ReshapeAliasBackward0); otherwise it copies
    (UnsafeViewBackward0 over CloneBackward0). ``view`` works wherever no copy is needed."""
    x = leaf(lib, (3, 2), 11)
    e = leaf(lib, (3,), 12).expand(2, 3)
    cases = {
        "x.reshape(6)": lambda: x.reshape(6),
        "x.t().reshape(2, 3)": lambda: x.t().reshape(2, 3),
        "x.t().reshape(6)": lambda: x.t().reshape(6),
        "e.reshape(1, 2, 3)": lambda: e.reshape(1, 2, 3),
        "e.view(1, 2, 3)": lambda: e.view(1, 2, 3),
        "x.t().view(6)": lambda: x.t().view(6),
    }
    return {k: error(lambda f=f: graph(f().grad_fn, 2)) for k, f in cases.items()}


@case(W, points=3, tasks=("3.1", "3.2", "3.3"))
def task_3_3_second_derivative_nodes(lib: Any) -> Any:
    """With ``create_graph`` the backward pass records torch's own formulas, node for node:
    for ``x**3`` the gradient is ``g * (3 * x**2)`` with 3 a C++ number (MulBackward1); for
    sigmoid the formula is an op of its own (SigmoidBackwardBackward0); a mean's gradient is
    an expand divided by a number (DivBackward1); a broadcast gradient is one keepdim sum,
    then a view."""

    def grad_graph(f: Any, *shapes: tuple[int, ...]) -> Any:
        xs = [leaf(lib, s, 13 + i) for i, s in enumerate(shapes)]
        (g,) = lib.autograd.grad(f(*xs), [xs[-1]], create_graph=True)
        return {"graph": graph(g.grad_fn), "values": tensor(g)}

    return {
        "(x ** 3).sum()": error(lambda: grad_graph(lambda x: (x**3).sum(), (3,))),
        "x.sigmoid().sum()": error(lambda: grad_graph(lambda x: x.sigmoid().sum(), (3,))),
        "x.tanh().sum()": error(lambda: grad_graph(lambda x: x.tanh().sum(), (3,))),
        "x.mean()": error(lambda: grad_graph(lambda x: x.mean(), (2, 3))),
        "(a * b).sum(), b of (3,)": error(
            lambda: grad_graph(lambda a, b: (a * b * a).sum(), (2, 3), (3,))
        ),
    }


@case(W, points=1, tasks=("3.1", "3.2", "3.3", "3.4"))
def task_3_3_add_with_alpha(lib: Any) -> Any:
    """``y.add_(w, alpha=c)`` adds ``c * w``: AddBackward0 sends ``c * grad`` to ``w``
    (derivatives.yaml: ``other: handle_r_to_c(other.scalar_type(), maybe_multiply(grad,
    alpha.conj()))``) and ``grad`` to ``y``."""

    def run(alpha: Any) -> Any:
        x, w = leaf(lib, (3,), 21), leaf(lib, (3,), 22)
        y = x * 1
        y.add_(w, alpha=alpha)
        (y * const(lib, (3,), 23)).sum().backward()
        return {"y": tensor(y), "node": node_name(y.grad_fn), "grads": grads(x, w)}

    return {f"alpha={a}": error(lambda a=a: run(a)) for a in (2, -3, 0.5)}


@case(W, points=1, tasks=("3.1", "3.2"))
def task_3_2_integer_division_is_true_division(lib: Any) -> Any:
    """``/`` is true division: integer (and bool) operands give a float32 result, never a
    floor (aten/src/ATen/native/BinaryOps.cpp: div_true_type_promotion)."""
    i, j = lib.tensor([1, 2, 7]), lib.tensor([2, 2, -2])
    cases = {
        "int / int": lambda: i / j,
        "int / 2": lambda: i / 2,
        "3 / int": lambda: 3 / j,
        "bool / int": lambda: lib.tensor([True, False, True]) / j,
    }
    return {k: error(lambda f=f: tensor(f())) for k, f in cases.items()}


@case(W, points=2, tasks=("3.1", "3.2", "3.3"))
def task_3_3_pow_at_zero(lib: Any) -> Any:
    """Where the formula would give ``0 * inf``, torch's pow backward gives 0: ``x ** 0`` has a
    zero gradient everywhere (pow_backward: ``exponent == 0.0 ? zeros``), and the exponent's
    gradient is masked to 0 where the base is 0 (pow_backward_exponent: ``at::where(cond,
    zeros, grad * (result * log(self)))``) (torch/csrc/autograd/FunctionsManual.cpp)."""

    def base() -> Any:
        return lib.tensor([0.0, 1.0, 2.5], dtype=lib.float64, requires_grad=True)

    def exponent() -> Any:
        return lib.tensor([2.0, 0.0, -1.0], dtype=lib.float64, requires_grad=True)

    return {
        "x ** 0": backward_grads(lib, lambda x: x**0, base()),
        "x ** 0.0": backward_grads(lib, lambda x: x**0.0, base()),
        "x ** e": backward_grads(lib, lambda x, e: x**e, base(), exponent()),
        "x ** e, e of 2s": backward_grads(
            lib,
            lambda x, e: x**e,
            base(),
            lib.tensor([2.0] * 3, dtype=lib.float64, requires_grad=True),
        ),
    }


@case(W, points=1, tasks=("3.1", "3.2", "3.3"))
def task_3_3_relu_and_nan(lib: Any) -> Any:
    """relu keeps nan (``clamp_min``: nan propagates), and its backward picks, it does not
    multiply: ``threshold_backward`` writes 0 where the result is <= 0 and the incoming
    gradient as it is elsewhere, nan or inf included (aten/src/ATen/native/Activation.cpp)."""

    def run() -> Any:
        nan, inf = float("nan"), float("inf")
        x = lib.tensor([nan, -1.0, 0.0, 2.0, 3.0], dtype=lib.float64, requires_grad=True)
        y = x.relu()
        y.backward(lib.tensor([1.0, nan, inf, nan, inf], dtype=lib.float64))
        return {"relu": tensor(y), "x.grad": tensor(x.grad)}

    return error(run)


@case(W, points=2, tasks=("3.1", "3.2", "3.3"))
def task_3_3_matmul_gradient_keeps_a_column_major_layout(lib: Any) -> Any:
    """For a column-major matrix (a transposed contiguous one) ``mm``'s gradient is column-major
    too: torch computes it as ``(mat2 @ grad.t()).t()`` (FunctionsManual.cpp:
    mm_mat1_backward, mm_mat2_backward), so ``g.t().view(6)`` works and ``g.view(6)`` does
    not. The leaf's ``.grad`` is laid out like the leaf whatever arrives (accumulate_grad.h:
    the gradient layout contract, ``utils::clone_obey_contract``), here after ``* 2``."""

    def run(which: int) -> Any:
        m = lib.tensor(data((3, 2), 24), dtype=lib.float64).t().requires_grad_()
        other = const(lib, (3, 3), 25)
        out = (m @ other) if which == 0 else (other.t()[:2] @ m.t())
        (g,) = lib.autograd.grad((out * const(lib, tuple(out.shape), 26)).sum(), [m])
        return {
            "g": tensor(g),
            "g.t().view(6)": error(lambda: tensor(g.t().view(6))),
            "g.view(6)": error(lambda: tensor(g.view(6))),
        }

    def leaf_grad() -> Any:
        m = lib.tensor(data((3, 2), 27), dtype=lib.float64).t().requires_grad_()
        (m * 2 * const(lib, (2, 3), 28)).sum().backward()
        g = m.grad
        return {
            "g.t().view(6)": error(lambda: tensor(g.t().view(6))),
            "g.view(6)": error(lambda: tensor(g.view(6))),
        }

    return {
        "as mat1": error(lambda: run(0)),
        "as mat2": error(lambda: run(1)),
        "the leaf's .grad": error(leaf_grad),
    }


@case(W, points=1, tasks=("3.1", "3.2"))
def task_3_2_integer_sums_are_int64(lib: Any) -> Any:
    """``sum`` of an integer or bool tensor counts in int64: a bool sum is a count, not a
    logical or (aten/src/ATen/native/ReduceOps.cpp: get_dtype_from_self promotes integral
    types to int64)."""
    b = lib.tensor([[True, True, False], [True, False, False]])
    cases = {
        "bool sum()": lambda: b.sum(),
        "bool sum(0)": lambda: b.sum(0),
        "bool sum(1, keepdim=True)": lambda: b.sum(1, keepdim=True),
        "int64 sum()": lambda: lib.tensor([3, -1, 4]).sum(),
    }
    return {k: error(lambda f=f: tensor(f())) for k, f in cases.items()}


@case(W, points=1, tasks=("3.1", "3.2"))
def task_3_2_mean_needs_a_floating_dtype(lib: Any) -> Any:
    """``mean`` of an integer or bool tensor raises RuntimeError ("mean(): could not infer
    output dtype"): it does not truncate (aten/src/ATen/native/ReduceOps.cpp: mean_meta)."""
    return {
        "int64 mean()": error(lambda: tensor(lib.tensor([1, 2]).mean())),
        "int64 mean(0)": error(lambda: tensor(lib.tensor([[1, 2], [3, 5]]).mean(0))),
        "bool mean()": error(lambda: tensor(lib.tensor([True, False]).mean())),
    }


@case(W, points=1, tasks=("3.1", "3.2", "3.3"))
def task_3_3_squeeze_a_dim_that_is_not_1(lib: Any) -> Any:
    """``squeeze(t, dim)`` leaves a dim whose size is not 1 alone, and its backward then leaves
    the gradient alone too: SqueezeBackward1 unsqueezes only where the input had a 1
    (FunctionsManual.cpp: unsqueeze_to)."""
    w = const(lib, (2, 3), 29)
    out = {}
    for i, shape in enumerate([(2, 3), (2, 1, 3)]):
        t = leaf(lib, shape, 27 + i)
        out[f"squeeze(t, 1), t of {list(shape)}"] = {
            "node": error(lambda t=t: node_name(lib.squeeze(t, 1).grad_fn)),
            "backward": backward_grads(lib, lambda v: lib.squeeze(v, 1) * w, t),
        }
    return out


@case(W, points=1, tasks=("3.1", "3.2"))
def task_3_2_clone_keeps_the_layout(lib: Any) -> Any:
    """``clone()`` keeps a dense tensor's strides (memory_format=preserve: empty_like, then a
    copy): a clone of a transposed matrix is still transposed, so ``view(4)`` raises and
    ``t().view(4)`` works; a clone of a non-dense tensor (expanded, strided) is contiguous
    (aten/src/ATen/native/TensorFactories.cpp: clone, empty_like)."""
    m = const(lib, (2, 2), 30)
    cases = {
        "m.t().clone().view(4)": lambda: m.t().clone().view(4),
        "m.t().clone().t().view(4)": lambda: m.t().clone().t().view(4),
        "expand(2, 2).clone().view(4)": lambda: m[0].expand(2, 2).clone().view(4),
        "m[:, ::2].clone().view(2)": lambda: m[:, ::2].clone().view(2),
    }
    return {k: error(lambda f=f: tensor(f())) for k, f in cases.items()}


@case(W, points=2, tasks=("3.1", "3.2"))
def task_3_2_shapes_that_do_not_fit(lib: Any) -> Any:
    """Where torch refuses a shape it raises, and so must the engine: the same kind, naming the
    same numbers. Shapes that do not broadcast: RuntimeError "The size of tensor a (3) must
    match the size of tensor b (2) at non-singleton dimension 1" (aten/src/ATen/ExpandUtils.cpp:
    infer_size, called by TensorIteratorBase::compute_shape; for ``where`` the condition counts
    too). Matrices whose inner sizes differ: "mat1 and mat2 shapes cannot be multiplied (2x3 and
    2x3)" (aten/src/ATen/native/LinearAlgebra.cpp: mm's meta function, ADDMM_META), and an addmm
    bias that does not expand to the result. Sizes ``expand`` refuses (ExpandUtils.cpp:
    inferExpandGeometry; TensorShape.cpp: expand). A dim out of range: IndexError "Dimension out
    of range (expected to be in range of [-2, 1], but got 2)" (c10/core/WrapDimMinimal.h:
    maybe_wrap_dim), or named twice. ``t()`` of a 3-D tensor (TensorShape.cpp: check_t). NumPy's
    own answers are not torch's: a ValueError, or a dim quietly wrapped around."""
    a, b = leaf(lib, (2, 3), 120), leaf(lib, (2, 2), 121)
    c = leaf(lib, (2, 3, 4), 122)
    cases = {
        "(2, 3) + (2, 2)": lambda: a + b,
        "(2, 3) * (2, 2)": lambda: a * b,
        "(2, 2) / (2, 3, 4)": lambda: b / c,
        "(2, 3) ** (2, 2)": lambda: a**b,
        "where((2,), (2, 3), (2, 3))": lambda: lib.where(lib.tensor([True, False]), a, a),
        "(2, 3) @ (2, 3)": lambda: a @ a,
        "addmm((3,), (2, 3), (3, 4))": lambda: lib.addmm(leaf(lib, (3,), 123), a, c[0]),
        "a.expand(3, 3)": lambda: a.expand(3, 3),
        "a.expand(3)": lambda: a.expand(3),
        "a.expand(-1, 2, 3)": lambda: a.expand(-1, 2, 3),
        "a.sum(2)": lambda: a.sum(2),
        "a.mean(-3)": lambda: a.mean(-3),
        "a.sum((0, -2))": lambda: a.sum((0, -2)),
        "a.transpose(0, 2)": lambda: a.transpose(0, 2),
        "c.t()": lambda: c.t(),
    }
    return {k: error(lambda f=f: tensor(f())) for k, f in cases.items()}
