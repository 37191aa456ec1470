"""Week 1 cases. Property cases: random shapes and chains of views, drawn once from a fixed seed."""

from __future__ import annotations

import random
from typing import Any

from autograder import attempt, observe, property_case, shares_storage
from autograder.differential import random_programs_case
from autograder.observe import raised
from autograder.weeks.week1.common import (
    W,
    _arith,
    _fmt_shape,
    _prod,
)

# --- Property cases -------------------------------------------------------------------------
#
# Strategies import hypothesis lazily and produce plain JSON data; the case functions turn that
# data into calls on ``lib``. Each strategy draws one integer from hypothesis and seeds a
# ``random.Random`` with it (deterministic under derandomize; hypothesis's own generate phase
# repeats near-identical examples, a seed keeps the 40 examples well spread), then builds the
# example, tracking shapes in plain Python so each op is chosen to fit the shape it will meet.
# An op torch still rejects becomes an error observation.

_SIZES = [0, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 5, 5]  # zero-size dims stay the exception


def _slice_len(size: int, start: Any, stop: Any, step: int) -> int:
    return len(range(*slice(start, stop, step).indices(size)))


def _index_key(items: list) -> Any:
    """JSON index items -> a Python index: ints, ["slice", a, b, c], "None", "..."."""
    key = []
    for it in items:
        if isinstance(it, list):
            key.append(slice(it[1], it[2], it[3]))
        elif it == "None":
            key.append(None)
        elif it == "...":
            key.append(Ellipsis)
        else:
            key.append(it)
    return tuple(key)


def _render_index(items: list) -> str:
    parts = []
    for it in items:
        if isinstance(it, list):
            a, b, c = it[1:]
            text = f"{'' if a is None else a}:{'' if b is None else b}"
            parts.append(text + (f":{c}" if c != 1 else ""))
        else:
            parts.append(str(it))
    return "[" + ", ".join(parts) + "]"


def _index_shape(items: list, shape: list[int]) -> list[int]:
    """The shape ``x[items]`` has (assuming it is valid), for drawing the next op."""
    consumed = sum(1 for it in items if it not in ("None", "..."))
    out, d = [], 0
    for it in items:
        if it == "None":
            out.append(1)
        elif it == "...":
            n = max(len(shape) - consumed, 0)
            out.extend(shape[d : d + n])
            d += n
        elif isinstance(it, list):
            out.append(_slice_len(shape[d], it[1], it[2], it[3]) if d < len(shape) else 0)
            d += 1
        else:
            d += 1
    return out + shape[d:]


def _render_op(op: list) -> str:
    name, args = op[0], op[1:]
    if name == "index":
        return _render_index(args[0])
    if name in ("permute", "expand", "view", "reshape"):
        return f".{name}({', '.join(map(str, args[0]))})"
    if name == "squeeze" and args and isinstance(args[0], list):
        return f".squeeze({_fmt_shape(args[0])})"
    return f".{name}({', '.join(map(str, args))})"


def _apply_op(x: Any, op: list) -> Any:
    name, args = op[0], op[1:]
    if name == "index":
        return x[_index_key(args[0])]
    if name in ("permute", "expand", "view", "reshape"):
        return getattr(x, name)(*args[0])
    if name == "squeeze":
        if not args:
            return x.squeeze()
        return x.squeeze(tuple(args[0]) if isinstance(args[0], list) else args[0])
    return getattr(x, name)(*args)


def _factorisation(rnd: Any, numel: int) -> list[int]:
    """A random shape with ``numel`` elements (1-4 dims, a zero somewhere if numel is 0)."""
    ndim = rnd.choice([1, 2, 2, 3, 3, 4])
    if numel == 0:
        dims = [rnd.randint(1, 3) for _ in range(ndim - 1)]
        dims.insert(rnd.randint(0, ndim - 1), 0)
        return dims
    dims, rest = [], numel
    for _ in range(ndim - 1):
        d = rnd.choice([k for k in range(1, rest + 1) if rest % k == 0])
        dims.append(d)
        rest //= d
    dims.append(rest)
    return dims


def _regroup(rnd: Any, shape: list[int]) -> list[int]:
    """A nearby shape: merge two neighbours, split one dim, or add/drop a size-1 dim."""
    shape = list(shape)
    how = rnd.choice(["merge", "merge", "split", "one"])
    if how == "merge" and len(shape) >= 2:
        i = rnd.randint(0, len(shape) - 2)
        return shape[:i] + [shape[i] * shape[i + 1]] + shape[i + 2 :]
    splittable = [i for i, s in enumerate(shape) if s >= 4 and (s % 2 == 0 or s % 3 == 0)]
    if how == "split" and splittable:
        i = rnd.choice(splittable)
        k = 2 if shape[i] % 2 == 0 else 3
        return shape[:i] + [k, shape[i] // k] + shape[i + 1 :]
    if 1 in shape and len(shape) > 1 and rnd.random() < 0.5:
        shape.remove(1)
        return shape
    i = rnd.randint(0, len(shape))
    return shape[:i] + [1] + shape[i:]


def _maybe_infer(rnd: Any, shape: list[int]) -> list[int]:
    """Sometimes replace one size by -1."""
    if shape and rnd.random() < 0.25:
        shape = list(shape)
        shape[rnd.randint(0, len(shape) - 1)] = -1
    return shape


def _draw_bounds(rnd: Any, size: int) -> list[Any]:
    """Slice bounds: mostly a non-empty range (either end may be negative or omitted),
    sometimes anything at all, out-of-range and reversed bounds included."""
    if size and rnd.random() < 0.8:
        lo = rnd.randint(0, size - 1)
        hi = rnd.randint(lo + 1, size + 2)
        lo = None if lo == 0 and rnd.random() < 0.5 else lo - size if rnd.random() < 0.3 else lo
        hi = None if rnd.random() < 0.3 else hi - size if hi < size and rnd.random() < 0.3 else hi
        return [lo, hi]
    lo = None if rnd.random() < 0.3 else rnd.randint(-size - 2, size + 2)
    hi = None if rnd.random() < 0.3 else rnd.randint(-size - 2, size + 2)
    return [lo, hi]


def _draw_view_op(rnd: Any, shape: list[int], first: bool = False) -> tuple[list, list[int]]:
    """One view op that suits ``shape``, and the shape it produces.

    The first op of a chain is one that changes the layout (so that later views meet
    non-contiguous tensors); later ops favour view, which then often has to fail.
    """
    nd = len(shape)
    if first and nd >= 1:
        names = ["permute", "permute", "transpose", "index", "index", "unfold", "expand"]
        names += ["narrow"]
    else:
        names = ["unsqueeze", "view", "view", "view", "expand", "flatten"]
        if nd >= 1:
            names += ["permute", "transpose", "narrow", "select", "squeeze"]
            names += ["index", "index", "unfold"]
    if nd <= 2:
        names.append("t")
    name = rnd.choice(names)

    def dim(extra: int = 0) -> int:
        d = rnd.randint(0, nd - 1 + extra)
        return d - (nd + extra) if rnd.random() < 0.3 else d

    def wrap(d: int, n: int) -> int:
        return d + n if d < 0 else d

    if name == "permute":
        perm = rnd.sample(range(nd), nd)
        perm = [p - nd if rnd.random() < 0.2 else p for p in perm]
        return ["permute", perm], [shape[wrap(p, nd)] for p in perm]
    if name == "transpose":
        d0, d1 = dim(), dim()
        out = list(shape)
        out[wrap(d0, nd)], out[wrap(d1, nd)] = shape[wrap(d1, nd)], shape[wrap(d0, nd)]
        return ["transpose", d0, d1], out
    if name == "t":
        return ["t"], shape[::-1]
    if name == "narrow":
        d = dim()
        size = shape[wrap(d, nd)]
        start = rnd.randint(-size, size)
        room = size - wrap(start, size) if size else 0
        if rnd.random() < 0.1:  # sometimes one too long: torch raises
            length = room + 1
        else:
            length = rnd.randint(1, room) if room and rnd.random() < 0.85 else 0
        out = list(shape)
        out[wrap(d, nd)] = length
        return ["narrow", d, start, length], out
    if name == "select":
        d = dim()
        size = shape[wrap(d, nd)]
        index = rnd.randint(-size, size - 1) if size else 0
        return ["select", d, index], shape[: wrap(d, nd)] + shape[wrap(d, nd) + 1 :]
    if name == "unsqueeze":
        d = dim(extra=1) if nd else rnd.choice([0, -1])
        w = wrap(d, nd + 1)
        return ["unsqueeze", d], shape[:w] + [1] + shape[w:]
    if name == "squeeze":
        form = rnd.choice(["all", "one", "tuple"])
        if form == "all":
            return ["squeeze"], [s for s in shape if s != 1]
        if form == "one":
            d = dim()
            w = wrap(d, nd)
            return ["squeeze", d], shape if shape[w] != 1 else shape[:w] + shape[w + 1 :]
        dims = sorted(rnd.sample(range(nd), rnd.randint(1, min(nd, 2))))
        out = [s for i, s in enumerate(shape) if not (i in dims and s == 1)]
        return ["squeeze", [d - nd if rnd.random() < 0.3 else d for d in dims]], out
    if name == "expand":
        sizes = [rnd.choice([1, 2, 3, 3, 0, -1]) if s == 1 else rnd.choice([s, -1]) for s in shape]
        lead = [rnd.randint(1, 3) for _ in range(rnd.choice([0, 0, 1] if nd else [1, 2]))]
        out = lead + [s if e == -1 else e for s, e in zip(shape, sizes, strict=True)]
        return ["expand", lead + sizes], out
    if name == "view":
        target = (
            _regroup(rnd, shape) if nd and rnd.random() < 0.5 else _factorisation(rnd, _prod(shape))
        )
        return ["view", _maybe_infer(rnd, target)], target
    if name == "flatten":
        if nd == 0:
            return ["flatten", 0, -1], [1]
        a, b = sorted([rnd.randint(0, nd - 1), rnd.randint(0, nd - 1)])
        out = shape[:a] + [_prod(shape[a : b + 1])] + shape[b + 1 :]
        a = a - nd if rnd.random() < 0.3 else a
        b = b - nd if rnd.random() < 0.3 else b
        return ["flatten", a, b], out
    if name == "unfold":
        d = dim()
        w = wrap(d, nd)
        size = 0 if not shape[w] or rnd.random() < 0.1 else rnd.randint(1, shape[w])
        step = rnd.randint(1, 3)
        out = list(shape)
        out[w] = (shape[w] - size) // step + 1
        return ["unfold", d, size, step], out + [size]
    # name == "index": items for the leading (or, after "...", the trailing) dims, maybe a None
    k = rnd.randint(1, nd)
    from_end = k < nd and rnd.random() < 0.4
    items: list[Any] = []
    for size in shape[nd - k :] if from_end else shape[:k]:
        kind = rnd.choice(["all", "slice", "slice", "slice", "int"])
        if kind == "int" and size:
            items.append(rnd.randint(-size, size - 1))
        elif kind == "slice":
            items.append(["slice", *_draw_bounds(rnd, size), rnd.choice([1, 1, 2, 3])])
        else:
            items.append(["slice", None, None, 1])
    if from_end:
        items.insert(0, "...")
    elif rnd.random() < 0.2:
        items.append("...")
    if rnd.random() < 0.3:
        items.insert(rnd.randint(0, len(items)), "None")
    return ["index", items], _index_shape(items, shape)


def _random_shape(rnd: Any, sizes: list[int] = _SIZES, max_dims: int = 4) -> list[int]:
    return [rnd.choice(sizes) for _ in range(rnd.randint(1, max_dims))]


def _view_chain_strategy() -> Any:
    from hypothesis import strategies as st

    @st.composite
    def chains(draw: Any) -> dict[str, Any]:
        rnd = random.Random(draw(st.integers(0, 2**32 - 1)))
        shape = _random_shape(rnd)
        ops, cur = [], list(shape)
        for i in range(rnd.choice([1, 2, 3, 3, 4, 4, 5, 5])):
            op, cur = _draw_view_op(rnd, cur, first=i == 0)
            ops.append(op)
        return {"shape": shape, "ops": ops}

    return chains()


def _chain_start(shape: list[int]) -> str:
    return f"arange({_prod(shape)}).view({', '.join(map(str, shape))})"


def _view_chain_label(ex: dict[str, Any]) -> str:
    return _chain_start(ex["shape"]) + "".join(_render_op(op) for op in ex["ops"])


def _observe_chain(x: Any, ops: list) -> dict[str, Any]:
    """Observe every step; stop after the first one that raises."""
    out: dict[str, Any] = {}
    for i, op in enumerate(ops):
        label = f"step {i + 1} {_render_op(op)}"
        try:
            x = _apply_op(x, op)
        except Exception as exc:  # noqa: BLE001 - the error is the observation
            out[label] = raised(exc)
            break
        out[label] = attempt(lambda x=x: x)
    return out


@property_case(
    W,
    strategy=_view_chain_strategy,
    n=40,
    points=3,
    label=_view_chain_label,
    tasks=("1.1", "1.2", "1.3", "1.4", "1.5", "1.6", "1.7", "1.8", "1.9", "1.10"),
)
def random_view_chains(lib, ex):
    """A random chain of view ops on arange(n).view(shape); every step is compared."""
    shape = ex["shape"]
    x = lib.arange(_prod(shape)).view(*shape)
    return {"start": observe(x), **_observe_chain(x, ex["ops"])}


def _permute_reshape_strategy() -> Any:
    from hypothesis import strategies as st

    @st.composite
    def examples(draw: Any) -> dict[str, Any]:
        rnd = random.Random(draw(st.integers(0, 2**32 - 1)))
        shape = [rnd.choice(_SIZES) for _ in range(rnd.choice([1, 2, 2, 3, 3, 3, 4, 4]))]
        perm = list(range(len(shape)))
        while len(shape) > 1 and perm == sorted(perm) and rnd.random() < 0.9:
            perm = rnd.sample(range(len(shape)), len(shape))
        target = [shape[p] for p in perm]
        if rnd.random() < 0.6:
            for _ in range(rnd.randint(1, 2)):
                target = _regroup(rnd, target)
        else:
            target = _factorisation(rnd, _prod(shape))
        return {"shape": shape, "perm": perm, "target": _maybe_infer(rnd, target)}

    return examples()


def _permute_reshape_label(ex: dict[str, Any]) -> str:
    perm = ", ".join(map(str, ex["perm"]))
    return f"{_chain_start(ex['shape'])}.permute({perm}) to {_fmt_shape(ex['target'])}"


@property_case(
    W,
    strategy=_permute_reshape_strategy,
    n=40,
    points=3,
    label=_permute_reshape_label,
    tasks=("1.1", "1.2", "1.3", "1.4", "1.5", "1.10"),
)
def random_permute_then_view_or_reshape(lib, ex):
    """view follows the chunk rule exactly; reshape is a view exactly when view works."""
    shape, target = ex["shape"], ex["target"]
    base = lib.arange(_prod(shape)).view(*shape)
    x = base.permute(*ex["perm"])
    return {
        "x": observe(x, values=False),
        "x.view(target)": attempt(lambda: x.view(*target)),
        "x.reshape(target)": attempt(lambda: x.reshape(*target)),
        "x.reshape(target) shares storage": attempt(
            lambda: shares_storage(x.reshape(*target), base)
        ),
        "x.contiguous() shares storage": attempt(lambda: shares_storage(x.contiguous(), base)),
    }


_DTYPES = ["int64", "float32", "float64", "bool"]
_SCALARS = {"int": 3, "float": 2.5, "bool": True}


def _broadcast_strategy() -> Any:
    from hypothesis import strategies as st

    @st.composite
    def examples(draw: Any) -> dict[str, Any]:
        rnd = random.Random(draw(st.integers(0, 2**32 - 1)))
        full = [
            rnd.choice([0, 1, 2, 3, 3, 4, 4, 5]) for _ in range(rnd.choice([0, 1, 2, 2, 3, 3, 4]))
        ]
        if 0 in full and rnd.random() < 0.6:  # keep most results non-empty
            full = [s or 2 for s in full]

        def operand() -> list[int]:
            shape = full[rnd.choice([0, 0, 0, 1, 2]) :] if full else []
            return [1 if rnd.random() < 0.35 else s for s in shape]

        a, b = operand(), operand()
        if b and rnd.random() < 0.15:  # sometimes not broadcastable
            i = rnd.randint(0, len(b) - 1)
            b[i] = b[i] + 2
        return {
            "a": a,
            "a_dtype": rnd.choice(_DTYPES),
            "b": b,
            "b_dtype": rnd.choice(_DTYPES),
            "other": rnd.choice(["tensor", "tensor", "tensor", "tensor", "int", "float", "bool"]),
            "op": rnd.choice(["+", "-", "*"]),
            "reflected": rnd.random() < 0.3,
        }

    return examples()


def _make_operand(lib: Any, shape: list[int], dtype: str) -> Any:
    """Deterministic values of ``dtype``, computed from ``arange(n)``: small ints (some
    negative), halves, mixed bools."""
    index = lib.arange(_prod(shape)).tolist()
    if dtype == "bool":
        flat: list[Any] = [i % 3 == 0 for i in index]
    elif dtype == "int64":
        flat = [(i * 7 + 3) % 11 - 5 for i in index]
    else:
        flat = [i * 0.5 - 2 for i in index]
    if not shape:
        return lib.tensor(flat[0], dtype=getattr(lib, dtype))
    return lib.tensor(flat, dtype=getattr(lib, dtype)).view(*shape)


def _broadcast_label(ex: dict[str, Any]) -> str:
    a = f"{ex['a_dtype']} tensor {_fmt_shape(ex['a'])}"
    if ex["other"] == "tensor":
        b = f"{ex['b_dtype']} tensor {_fmt_shape(ex['b'])}"
    else:
        b = repr(_SCALARS[ex["other"]])
    left, right = (b, a) if ex["reflected"] else (a, b)
    return f"{left} {ex['op']} {right}"


@property_case(
    W,
    strategy=_broadcast_strategy,
    n=40,
    points=3,
    label=_broadcast_label,
    tasks=("1.1", "1.2", "1.3", "1.4", "1.8", "1.10", "1.11"),
)
def random_broadcast_arithmetic(lib, ex):
    """Broadcast shapes, promoted dtypes and values of + - * between random operands."""
    a = _make_operand(lib, ex["a"], ex["a_dtype"])
    if ex["other"] == "tensor":
        b = _make_operand(lib, ex["b"], ex["b_dtype"])
    else:
        b = _SCALARS[ex["other"]]
    left, right = (b, a) if ex["reflected"] else (a, b)
    ops = {"+": lambda: left + right, "-": lambda: left - right, "*": lambda: left * right}
    return _arith(ops[ex["op"]])


random_programs_case(
    W,
    n=60,
    points=4,
    tasks=tuple(f"1.{i}" for i in range(1, 13)),
    doc="""Random programs of everything above together (the generator the course's engine is held
    to, autograder/differential/week1.py): tensors of every dtype, chains of views, copies,
    ``+ - *`` with broadcasting and promotion, writes through views, read back after each step.
    A failure prints the program; run it on torch and on yours to see where they part.""",
    first=lambda lib: lib.arange(1),  # every case's first call (see the package's docstring)
)
