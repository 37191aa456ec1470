"""Week 1's differential programs: random chains of views, copies, arithmetic and writes.

A program (plain data) makes one or two tensors (``arange(...).view(...)``, ``tensor(...)``,
``zeros``/``ones``, ``empty_strided(...).fill_(...)``, ``as_strided`` over an ``arange``) in
every dtype the lab has, then takes steps on the tensors it holds: views (view, reshape,
permute, transpose, t, narrow, select, basic indexing with ints, slices, None and ``...``,
unsqueeze, squeeze, flatten, expand, unfold, as_strided), copies (contiguous, clone),
``+ - *`` with tensors and Python numbers (broadcasting, type promotion), writes (``x[i] = v``,
fill_, copy_, add_, mul_) and the module's helpers (broadcast_shapes, is_non_overlapping_and_
dense, compute_stride, infer_size). Arguments are drawn from the shapes the generator expects,
now and then out of range, so errors are compared too.

A step's observation is its result (geometry, contiguity, dtype, values; or the error, its
kind and the numbers its message names) and which earlier tensors share its storage; after a
write, every tensor the program holds is observed again, so a view that missed the write shows.
The same ``execute`` runs on torch (``autograder.oracle.torch_lib("week1")``) and on the
engine (the module itself).
"""

from __future__ import annotations

import math
import random
from typing import Any

from autograder.differential import broadcast_shape, factor
from autograder.observe import attempt, guard, observe, raised, shares_storage

# What torch 2.13 itself gets wrong, or what the lab leaves out, never drawn:
EXCLUDED = {
    "empty tensors' strides after arithmetic": (
        "for numel 0, TensorIterator may hand back odd strides (zeros(4, 0, 1) * 3 has strides "
        "(0, 1, 0)): an accident of its implementation, not a rule; programs make no empty "
        "tensor before arithmetic (the week's cases leave those strides out too)."
    ),
    "advanced indexing": "tensor and bool indices copy (index/index_put_): not in the lab.",
    "arange of bool": "torch refuses it; bool tensors are made with tensor([...]).",
    "values that overflow or lose exactness": (
        "numbers stay small integers and halves, so float32, float64 and int64 agree exactly "
        "with torch whatever order a kernel adds in."
    ),
}

DTYPES = ("int64", "float32", "float64", "bool")
SCALARS = (0, 1, 2, -3, 0.5, 2.5, True, False)
VIEW_OPS = (
    "view",
    "reshape",
    "permute",
    "transpose",
    "t",
    "narrow",
    "select",
    "getitem",
    "unsqueeze",
    "squeeze",
    "flatten",
    "expand",
    "unfold",
    "as_strided",
)
COPY_OPS = ("contiguous", "clone")
WRITES = ("setitem", "fill_", "copy_", "add_", "mul_")
HELPERS = ("broadcast_shapes", "is_non_overlapping_and_dense", "compute_stride", "infer_size")


# === generating ==================================================================================


def _between(r: random.Random, lo: int, hi: int) -> int:
    """randint that answers ``lo`` for an empty range (a dim of size 0)."""
    return r.randint(lo, hi) if hi >= lo else lo


def _numel(shape: list[int]) -> int:
    return math.prod(shape)


class _Gen:
    """What the generator expects each slot to hold: (shape, dtype). Only an expectation: if a
    step raises on torch, the slot holds nothing and later steps on it are skipped."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.slots: list[tuple[list[int], str]] = []

    def dim(self, ndim: int, extra: int = 0) -> int:
        """A dim for a tensor of ``ndim`` dims, negative half the time, seldom out of range."""
        r = self.rng
        n = max(ndim + extra, 1)
        if r.random() < 0.06:
            return r.choice([n, -n - 1])
        d = r.randrange(n)
        return d - n if r.random() < 0.4 else d

    def new(self) -> dict:
        r = self.rng
        dtype = r.choice(DTYPES)
        shape = [r.choice([1, 2, 3, 4]) for _ in range(r.choice([0, 1, 2, 2, 3, 3, 4]))]
        if r.random() < 0.08 and shape:
            shape[r.randrange(len(shape))] = 0
        kind = r.choice(["arange", "arange", "tensor", "zeros", "ones", "strided", "as_strided"])
        if dtype == "bool" and kind == "arange":
            kind = "tensor"
        step: dict[str, Any] = {"op": "new", "kind": kind, "dtype": dtype, "shape": shape}
        if kind == "tensor":
            step["data"] = _nested(r, shape, dtype)
        elif kind == "strided":
            # A layout of its own: a permutation of contiguous strides, some padded.
            order = list(range(len(shape)))
            r.shuffle(order)
            stride, acc = [0] * len(shape), 1
            for d in reversed(order):  # no padding: empty_strided leaves gaps uninitialised
                stride[d] = acc
                acc *= max(shape[d], 1)
            step["stride"] = stride
            step["value"] = r.choice(SCALARS)
        elif kind == "as_strided":
            stride = [r.choice([0, 1, 2, 3, 5]) for _ in shape]
            step["stride"] = stride
            step["offset"] = r.choice([0, 0, 1, 3])
            step["n"] = (
                step["offset"] + 1 + sum((s - 1) * st for s, st in zip(shape, stride, strict=True))
            )
            step["n"] = max(step["n"], 1)
            step["dtype"] = dtype if dtype != "bool" else "int64"
        self.slots.append((shape, step["dtype"]))
        return step

    def view_step(self, a: int) -> dict:
        r = self.rng
        shape, dtype = self.slots[a]
        n = len(shape)
        fn = r.choice(VIEW_OPS)
        step: dict[str, Any] = {"op": "view", "fn": fn, "a": a}
        out = list(shape)
        if fn in ("view", "reshape"):
            numel = _numel(shape)
            new = factor(r, numel, r.randint(0, 4)) if numel else [0, r.randint(1, 3)]
            if numel == 0:
                r.shuffle(new)
            if new and r.random() < 0.3:
                new[r.randrange(len(new))] = -1
            if r.random() < 0.05:
                new = [*new, 2]
            step["shape"] = new
            out = [s for s in new if s != -1] or []
            out = new if -1 not in new else out  # -1: the generator's guess is rough here
        elif fn == "permute":
            dims = list(range(n))
            r.shuffle(dims)
            dims = [d - n if r.random() < 0.3 else d for d in dims]
            if dims and r.random() < 0.05:
                dims[0] = dims[-1]
            step["dims"] = dims
            out = [shape[d] for d in dims] if len(set(d % n for d in dims)) == n else shape
        elif fn == "transpose":
            step["dims"] = [self.dim(n), self.dim(n)]
        elif fn == "narrow":
            d = self.dim(n)
            size = shape[d] if -n <= d < n else 1
            start = _between(r, -size, size)
            s0 = start % size if size and start < 0 else start
            step["args"] = [d, start, _between(r, 0, max(size - s0, 0) + (r.random() < 0.1))]
        elif fn == "select":
            d = self.dim(n)
            size = shape[d] if -n <= d < n else 1
            step["args"] = [
                d,
                _between(r, -size - (r.random() < 0.1), size - 1 + (r.random() < 0.1)),
            ]
            if -n <= d < n:
                out = shape[: d % n] + shape[d % n + 1 :]
        elif fn == "getitem":
            step["index"] = _index(r, shape)
        elif fn == "unsqueeze":
            d = self.dim(n, 1)
            step["args"] = [d]
            if -n - 1 <= d <= n:
                out = list(shape)
                out.insert(d % (n + 1), 1)
        elif fn == "squeeze":
            choice = r.random()
            if choice < 0.4:
                step["args"] = []
                out = [s for s in shape if s != 1]
            elif choice < 0.8 or n < 2:
                step["args"] = [self.dim(n)]
            else:
                step["args"] = [r.sample(range(n), r.randint(1, n))]
        elif fn == "flatten":
            a0, a1 = sorted([self.dim(n), self.dim(n)], key=lambda d: d % max(n, 1))
            step["args"] = [a0, a1] if r.random() < 0.9 else [a1, a0]
        elif fn == "expand":
            new = [s if s != 1 else r.choice([1, 2, 3]) for s in shape]
            new = [-1 if r.random() < 0.3 and s != 0 else s for s in new]
            lead = [r.choice([1, 2, 3]) for _ in range(r.choice([0, 0, 1, 2]))]
            if r.random() < 0.05 and new:
                new[0] = 5
            step["sizes"] = lead + new
            out = lead + [s if s != -1 else o for s, o in zip(new, shape, strict=True)]
        elif fn == "unfold":
            d = self.dim(n)
            size = shape[d] if -n <= d < n else 1
            step["args"] = [d, r.randint(0, size + (r.random() < 0.1)), r.randint(1, 3)]
        elif fn == "as_strided":
            size = [r.choice([1, 2, 3]) for _ in range(r.randint(0, 3))]
            stride = [r.choice([0, 1, 2, 3]) for _ in size]
            step["args"] = [size, stride, r.choice([None, 0, 1, 2])]
            out = size
        self.slots.append((out, dtype))
        return step

    def copy_step(self, a: int) -> dict:
        fn = self.rng.choice(COPY_OPS)
        self.slots.append(self.slots[a])
        return {"op": "copy", "fn": fn, "a": a}

    def operand(self, shape: list[int]) -> dict:
        """A second operand: a slot that broadcasts with ``shape`` (now and then any slot), or a
        Python number."""
        r = self.rng
        fits = [k for k, (s, _) in enumerate(self.slots) if broadcast_shape(shape, s) is not None]
        if r.random() < 0.3 or not self.slots:
            return {"scalar": r.choice(SCALARS)}
        if fits and r.random() < 0.9:
            return {"slot": r.choice(fits)}
        return {"slot": r.randrange(len(self.slots))}

    def binary_step(self, a: int) -> dict:
        r = self.rng
        shape, dtype = self.slots[a]
        b = self.operand(shape)
        fn = r.choice(["add", "sub", "mul"])
        if "scalar" in b and isinstance(b["scalar"], bool) and fn == "sub":
            fn = "mul"
        step = {"op": "binary", "fn": fn, "a": a, "b": b, "reflected": r.random() < 0.3}
        other = self.slots[b["slot"]][0] if "slot" in b else []
        self.slots.append((broadcast_shape(shape, other) or shape, dtype))
        return step

    def write_step(self, a: int) -> dict:
        r = self.rng
        shape, _ = self.slots[a]
        fn = r.choice(WRITES)
        step: dict[str, Any] = {"op": "write", "fn": fn, "a": a}
        if fn == "setitem":
            step["index"] = _index(r, shape)
            step["value"] = self.operand([]) if r.random() < 0.5 else {"scalar": r.choice(SCALARS)}
        elif fn == "fill_":
            step["value"] = {"scalar": r.choice(SCALARS)}
        else:
            step["value"] = self.operand(shape)
        return step

    def helper_step(self, a: int) -> dict:
        r = self.rng
        shape, _ = self.slots[a]
        fn = r.choice(HELPERS)
        step: dict[str, Any] = {"op": "helper", "fn": fn, "a": a}
        if fn == "broadcast_shapes":
            other = self.slots[r.randrange(len(self.slots))][0]
            step["shapes"] = [shape, other]
        elif fn in ("compute_stride", "infer_size"):
            numel = _numel(shape)
            new = factor(r, numel, r.randint(0, 4)) if numel else [0]
            if fn == "infer_size" and new and r.random() < 0.4:
                new[r.randrange(len(new))] = -1
            step["shape"] = new
        return step


def _nested(r: random.Random, shape: list[int], dtype: str) -> Any:
    if not shape:
        return _value(r, dtype)
    return [_nested(r, shape[1:], dtype) for _ in range(shape[0])]


def _value(r: random.Random, dtype: str) -> Any:
    if dtype == "bool":
        return r.random() < 0.5
    v = r.randint(-4, 9)
    return v + 0.5 * (r.random() < 0.3) if dtype.startswith("float") else v


def _index(r: random.Random, shape: list[int]) -> list[dict]:
    """Basic indexing items: ints (now and then out of range), slices, None and one ``...``."""
    items: list[dict] = []
    dims = iter(shape)
    ellipsis = False
    for _ in range(r.randint(0, len(shape) + 1)):
        kind = r.random()
        if kind < 0.12:
            items.append({"none": True})
            continue
        if kind < 0.2 and not ellipsis:
            ellipsis = True
            items.append({"ellipsis": True})
            continue
        size = next(dims, 2)
        if kind < 0.5:
            hi = size - 1 + (r.random() < 0.08)
            items.append({"int": _between(r, -size, hi)})
        else:
            start = r.choice([None, r.randint(-size - 1, size + 1)])
            stop = r.choice([None, r.randint(-size - 1, size + 1)])
            step = r.choice([None, 1, 2, 3] + [0] * (r.random() < 0.04))
            items.append({"slice": [start, stop, step]})
    return items


def generate(rng: random.Random) -> dict[str, Any]:
    """One program: one or two new tensors, then 4 to 14 steps."""
    g = _Gen(rng)
    steps = [g.new() for _ in range(rng.choice([1, 1, 2]))]
    for _ in range(rng.randint(4, 14)):
        a = rng.randrange(len(g.slots))
        kind = rng.random()
        if kind < 0.42:
            steps.append(g.view_step(a))
        elif kind < 0.5:
            steps.append(g.copy_step(a))
        elif kind < 0.66:
            steps.append(g.binary_step(a))
        elif kind < 0.88:
            steps.append(g.write_step(a))
        elif kind < 0.95:
            steps.append(g.helper_step(a))
        else:
            steps.append(g.new())
    return {"steps": steps}


# === running =====================================================================================


class _Skip(Exception):
    """A step names a slot an earlier step failed to make."""


def _py_index(items: list[dict]) -> tuple:
    out: list[Any] = []
    for item in items:
        if "none" in item:
            out.append(None)
        elif "ellipsis" in item:
            out.append(Ellipsis)
        elif "int" in item:
            out.append(item["int"])
        else:
            out.append(slice(*item["slice"]))
    return tuple(out)


class _Run:
    def __init__(self, lib: Any) -> None:
        self.lib = lib
        self.T: list[Any] = []  # None where the step that makes it raised

    def get(self, k: int) -> Any:
        if self.T[k] is None:
            raise _Skip
        return self.T[k]

    def value(self, v: dict) -> Any:
        return v["scalar"] if "scalar" in v else self.get(v["slot"])

    def make(self, s: dict) -> Any:
        lib, dtype = self.lib, getattr(self.lib, s["dtype"])
        kind, shape = s["kind"], s["shape"]
        if kind == "arange":
            return lib.arange(_numel(shape), dtype=dtype).view(shape)
        if kind == "tensor":
            return lib.tensor(s["data"], dtype=dtype)
        if kind in ("zeros", "ones"):  # zeros(2, 3) and zeros([]): both spellings
            return getattr(lib, kind)(*(shape or [shape]), dtype=dtype)
        if kind == "strided":
            return lib.empty_strided(shape, s["stride"], dtype=dtype).fill_(s["value"])
        return lib.arange(s["n"], dtype=dtype).as_strided(shape, s["stride"], s["offset"])

    def view(self, s: dict) -> Any:
        x, fn = self.get(s["a"]), s["fn"]
        if fn in ("view", "reshape"):
            return getattr(x, fn)(s["shape"])
        if fn == "permute":
            return x.permute(*s["dims"])
        if fn == "transpose":
            return x.transpose(*s["dims"])
        if fn == "t":
            return x.t()
        if fn == "getitem":
            return x[_py_index(s["index"])]
        if fn == "expand":
            return x.expand(*s["sizes"])
        if fn == "as_strided":
            size, stride, offset = s["args"]
            return (
                x.as_strided(size, stride) if offset is None else x.as_strided(size, stride, offset)
            )
        if fn == "squeeze" and s["args"] and isinstance(s["args"][0], list):
            return x.squeeze(tuple(s["args"][0]))
        return getattr(x, fn)(*s["args"])

    def binary(self, s: dict) -> Any:
        x, y = self.get(s["a"]), self.value(s["b"])
        a, b = (y, x) if s["reflected"] else (x, y)
        if s["fn"] == "add":
            return a + b
        if s["fn"] == "sub":
            return a - b
        return a * b

    def write(self, s: dict) -> Any:
        x, fn, v = self.get(s["a"]), s["fn"], self.value(s["value"])
        target = x
        if fn == "setitem":
            try:
                target = x[_py_index(s["index"])]
            except Exception:  # noqa: BLE001 - the write raises it again below
                target = None
        if target is not None and order_dependent(target, v, fn):
            return {"excluded": "a write whose result depends on the kernel's loop order"}
        if fn == "setitem":
            x[_py_index(s["index"])] = v
            return None
        result = getattr(x, fn)(v)
        return {"returns self": result is x}

    def helper(self, s: dict) -> Any:
        lib, x, fn = self.lib, self.get(s["a"]), s["fn"]
        if fn == "broadcast_shapes":
            return [int(d) for d in lib.broadcast_shapes(*[tuple(sh) for sh in s["shapes"]])]
        if fn == "is_non_overlapping_and_dense":
            return bool(lib.is_non_overlapping_and_dense(x))
        if fn == "infer_size":
            return [int(d) for d in lib.infer_size(s["shape"], x.numel())]
        if _numel(s["shape"]) != x.numel():
            return "skipped"  # compute_stride is only asked about shapes with x's numel
        strides = lib.compute_stride(tuple(x.shape), tuple(x.stride()), s["shape"])
        return None if strides is None else [int(d) for d in strides]

    def shares(self, t: Any) -> list[int]:
        return [k for k, u in enumerate(self.T) if u is not None and shares_storage(t, u)]

    def step(self, s: dict) -> Any:
        op = s["op"]
        makes = op in ("new", "view", "copy", "binary")
        try:
            if op == "new":
                result = self.make(s)
            elif op == "view":
                result = self.view(s)
            elif op == "copy":
                result = getattr(self.get(s["a"]), s["fn"])()
            elif op == "binary":
                result = self.binary(s)
            elif op == "write":
                return {"write": self.write(s), "after": [_obs(t) for t in self.T]}
            else:
                return {"helper": self.helper(s)}
        except _Skip:
            if makes:
                self.T.append(None)
            return "skipped"
        except Exception as exc:  # noqa: BLE001 - the error is the observation
            if makes:
                self.T.append(None)
            if op == "write":
                return {"write": raised(exc), "after": [_obs(t) for t in self.T]}
            return raised(exc)
        obs = {"result": attempt(lambda: result), "shares storage with": self.shares(result)}
        if op == "copy":
            obs["is a new tensor"] = result is not self.get(s["a"])
        self.T.append(result)
        return obs


def _offsets(t: Any) -> list[int]:
    """The storage index of every element, from the tensor's observed geometry."""
    out = [int(t.storage_offset())]
    for size, stride in zip(t.shape, t.stride(), strict=True):
        out = [o + i * int(stride) for o in out for i in range(int(size))]
    return out


def order_dependent(target: Any, value: Any, fn: str) -> bool:
    """Would torch's answer depend on the order its kernel visits elements? (EXCLUDED)

    MemoryOverlap.cpp decides overlap only for dense tensors and a dim of size > 1 with
    stride 0; anything else is "too hard" and let through. Then a target whose elements share
    a location gets several different values (not so for a number written by fill_ or
    ``x[i] = n``: the same value each time), and a source that partly overlaps the target is
    read while it is written.
    """
    offsets = _offsets(target)
    number = not hasattr(value, "shape")
    shared = len(set(offsets)) < len(offsets)
    certain = any(
        int(n) > 1 and int(st) == 0 for n, st in zip(target.shape, target.stride(), strict=True)
    )
    same_value_each_time = number and fn in ("fill_", "setitem", "copy_")
    if shared and not certain and not same_value_each_time:
        return True  # several values, or x += n, land on one location: which one wins?
    if number or not shares_storage(target, value) or value.numel() == 0:
        return False
    source = _offsets(value)
    if set(source).isdisjoint(offsets) or (source, value.dtype) == (offsets, target.dtype):
        return False  # no overlap, or each element read where it is written
    return not (_dense(target) and _dense(value))  # both dense: torch refuses (PARTIAL)


def _dense(t: Any) -> bool:
    """TensorImpl::is_non_overlapping_and_dense, from the geometry alone."""
    pairs = sorted(
        (int(st), int(n)) for n, st in zip(t.shape, t.stride(), strict=True) if int(n) != 1
    )
    expected = 1
    for stride, size in pairs:
        if stride != expected:
            return False
        expected *= size
    return True


def _obs(t: Any) -> Any:
    return None if t is None else guard(lambda: observe(t))


def execute(lib: Any, program: dict[str, Any]) -> Any:
    """Run the program with ``lib``; every step observed."""
    run = _Run(lib)
    return [run.step(s) for s in program["steps"]]


# === description ==================================================================================


def _fmt_index(items: list[dict]) -> str:
    parts = []
    for item in items:
        if "none" in item:
            parts.append("None")
        elif "ellipsis" in item:
            parts.append("...")
        elif "int" in item:
            parts.append(str(item["int"]))
        else:
            start, stop, step = item["slice"]
            text = f"{'' if start is None else start}:{'' if stop is None else stop}"
            parts.append(text + ("" if step is None else f":{step}"))
    if not parts:
        return "()"
    return ", ".join(parts) if len(parts) != 1 else parts[0] + ","


def _fmt_value(v: dict) -> str:
    return repr(v["scalar"]) if "scalar" in v else f"t{v['slot']}"


def describe(program: dict[str, Any]) -> str:
    """The program as Python a learner can read (``lib`` is torch or the engine)."""
    lines, n = [], 0
    for s in program["steps"]:
        op, a = s["op"], f"t{s['a']}" if "a" in s else ""
        name = f"t{n}"
        if op == "new":
            d, shape, kind = f"dtype=lib.{s['dtype']}", s["shape"], s["kind"]
            if kind == "arange":
                text = f"lib.arange({_numel(shape)}, {d}).view({shape})"
            elif kind == "tensor":
                text = f"lib.tensor({s['data']}, {d})"
            elif kind in ("zeros", "ones"):
                text = f"lib.{kind}({', '.join(map(str, shape)) if shape else '[]'}, {d})"
            elif kind == "strided":
                text = f"lib.empty_strided({shape}, {s['stride']}, {d}).fill_({s['value']!r})"
            else:
                text = (
                    f"lib.arange({s['n']}, {d}).as_strided({shape}, {s['stride']}, {s['offset']})"
                )
            lines.append(f"{name} = {text}")
        elif op == "view":
            fn = s["fn"]
            if fn in ("view", "reshape"):
                text = f"{a}.{fn}({s['shape']})"
            elif fn in ("permute", "transpose"):
                text = f"{a}.{fn}({', '.join(map(str, s['dims']))})"
            elif fn == "getitem":
                text = f"{a}[{_fmt_index(s['index'])}]"
            elif fn == "expand":
                text = f"{a}.expand({', '.join(map(str, s['sizes']))})"
            elif fn == "t":
                text = f"{a}.t()"
            elif fn == "squeeze" and s["args"] and isinstance(s["args"][0], list):
                text = f"{a}.squeeze({tuple(s['args'][0])})"
            elif fn == "as_strided" and s["args"][2] is None:
                text = f"{a}.as_strided({s['args'][0]}, {s['args'][1]})"
            else:
                text = f"{a}.{fn}({', '.join(map(repr, s['args']))})"
            lines.append(f"{name} = {text}")
        elif op == "copy":
            lines.append(f"{name} = {a}.{s['fn']}()")
        elif op == "binary":
            sym = {"add": "+", "sub": "-", "mul": "*"}[s["fn"]]
            b = _fmt_value(s["b"])
            lines.append(f"{name} = {b} {sym} {a}" if s["reflected"] else f"{name} = {a} {sym} {b}")
        elif op == "write":
            if s["fn"] == "setitem":
                lines.append(f"{a}[{_fmt_index(s['index'])}] = {_fmt_value(s['value'])}")
            else:
                lines.append(f"{a}.{s['fn']}({_fmt_value(s['value'])})")
            continue
        else:
            fn = s["fn"]
            if fn == "broadcast_shapes":
                args = ", ".join(str(tuple(sh)) for sh in s["shapes"])
            elif fn == "is_non_overlapping_and_dense":
                args = a
            elif fn == "infer_size":
                args = f"{s['shape']}, {a}.numel()"
            else:
                args = f"{a}.shape, {a}.stride(), {s['shape']}"
            lines.append(f"lib.{fn}({args})")
            continue
        n += 1
    return "\n".join(lines)


# === a broken engine, for the test that shows the harness is not blind ===========================


def BREAK(engine: Any) -> None:
    """Unsqueeze at the end gives stride 1 whatever the last dim holds, a mistake the chapter
    warns about: the new stride must be size[dim] * stride[dim]."""
    original = engine.Tensor.unsqueeze

    def unsqueeze(self: Any, dim: int) -> Any:
        out = original(self, dim)
        d = dim % (self.dim() + 1)
        stride = list(out.stride())
        stride[d] = 1
        return out.as_strided(out.shape, stride, out.storage_offset())

    engine.Tensor.unsqueeze = unsqueeze
