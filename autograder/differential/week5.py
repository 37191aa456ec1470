"""Week 5's differential programs: random programs on the device, compared with the CPU.

A program (plain data) makes tensors on the device (``.to(dev)`` of a CPU tensor, contiguous
or not; ``zeros``/``ones``/``full``/``empty_strided(...).fill_``), then takes steps on them:
views (view, reshape, t, transpose, permute, basic indexing, expand, unsqueeze, squeeze,
narrow, select, as_strided), the lab's kernels (add with alpha, mul, sum over all or some dims,
mm, relu, fill_), ops that reach the CPU fallback (sub, neg, abs, maximum, clamp, cumsum, cat,
in-place add_/mul_, copy_ from the CPU or the device), copies (clone, contiguous, ``.to(dtype)``,
``.cpu()``) and, now and then, a backward through the device. Torch's run is the same program
on the CPU (``lib.setup()`` gives "cpu"); the learner's on their device ("labdev").

Each step observes its result (shape, strides, offset, dtype, whether it is on the device, and
its values through ``.cpu()``), which earlier tensors share its storage, and an error's type
(a device kernel words its errors its own way, so only the type is compared). At the end: every
leaf's gradient, and what the tensors the program keeps hold on the device (bytes and blocks,
each storage rounded up to the chip's 32-byte rows), so a copy where a view belongs, or a leak,
shows.
"""

from __future__ import annotations

import math
import random
from typing import Any

from autograder.differential import broadcast_shape, factor
from autograder.differential.week1 import order_dependent
from autograder.observe import error_kind

EXCLUDED = {
    "device indices and the guard": (
        "labdev:1, set_device and the guard are compared on torch's own Python backend for "
        "PrivateUse1 by the week's cases (guard_program); the CPU has no device index."
    ),
    "views through the fallback": (
        "a view op without a labdev kernel or a composite form (unfold, diagonal...) reaches "
        "cpu_fallback, which returns a copy (CPUFallback.cpp cannot alias); not drawn."
    ),
    "the layout of a result through the fallback": (
        "CPUFallback.cpp hands an out= result back through _copy_from_and_resize, which lays "
        "it out afresh (openreg's does the same), where the CPU kernel keeps its input's "
        "layout: a fallback op's result is made contiguous on both runs."
    ),
    "the stride of a size-1 dim": (
        "it addresses nothing, and torch's CPU and meta kernels disagree on it: "
        "empty_strided([3, 3, 1], [3, 1, 3]) * 0 has strides (3, 1, 3) on the CPU and (3, 1, 1) "
        "on meta, where the lab's kernels ask for their result's layout. Compared as None; "
        "so are an empty tensor's strides and offset (accidents of TensorIterator for numel 0, "
        "and of the size-1 strides they come from)."
    ),
    "zero_ through the fallback on an expanded tensor": (
        "the CPU kernel fills in place; cpu_fallback writes its CPU copy back with "
        "_copy_from_and_resize, which refuses a destination whose elements overlap (as copy_ "
        "does). Only fill_, which has a labdev kernel, is drawn on such a tensor."
    ),
    "what a failed backward leaves on the device": (
        "when backward raises (a saved tensor modified in place), torch's engine keeps the "
        "failed graph task's buffers (the root gradient, the inputs buffered for nodes that "
        "never ran) past the call: not what the program keeps, so memory is not compared then."
    ),
    "what an in-place write under autograd keeps": (
        "after y.mul_(z), y's new node saves z; when z's own graph saved y (z = y * y * 1), "
        "y's TensorImpl now leads to that node again: a cycle of C++ shared pointers Python's "
        "collector cannot see, so torch never frees those buffers (on the CPU too). Memory is "
        "not compared in a program that writes in place into a tensor that requires grad."
    ),
    "the layout of a broadcast": (
        "torch's CPU and meta TensorIterators may disagree on it, because the strides of "
        "size-1 dims (which address nothing) take part in choosing it: float64 [4, 1, 3] "
        "strides (1, 12, 4) + float32 [3, 3] gives (1, 4, 12) on the CPU and (9, 3, 1) on "
        "meta, where the lab's kernels ask. A broadcast add or mul is made contiguous on both "
        "runs; operands of one shape keep their layout and are compared."
    ),
    "writes whose answer depends on the loop order": (
        "as in week 1: overlaps torch calls too hard to decide are let through, and then which "
        "value lands where depends on the kernel (autograder/differential/week1.py)."
    ),
    "error messages": (
        "a device kernel and its meta kernel word errors their own way (the notes, section "
        "6); only the error's type is compared."
    ),
    "values that lose exactness": (
        "numbers stay small integers and halves, so every dtype agrees exactly whatever order "
        "a kernel adds in."
    ),
}

DTYPES = ("float32", "float64", "int64")
SCALARS = (0, 1, 2, -3, 0.5, 2.5)
VIEWS = (
    "view",
    "reshape",
    "t",
    "transpose",
    "permute",
    "getitem",
    "expand",
    "unsqueeze",
    "squeeze",
    "narrow",
    "select",
    "as_strided",
)
KERNELS = ("add", "mul", "sum", "sum_dim", "mm", "relu", "add_scalar", "mul_scalar")
FALLBACK = ("sub", "neg", "abs", "maximum", "clamp", "cumsum", "cat")
WRITES = ("fill_", "add_", "mul_", "copy_", "copy_cpu", "setitem", "zero_")
COPIES = ("clone", "contiguous", "to_dtype")  # .cpu() of a CPU tensor is itself: values only


# === generating ==================================================================================


class _Gen:
    """The (shape, dtype) the generator expects each slot to hold: only an expectation, used
    to draw arguments that mostly fit; a step that raises leaves its slot empty."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.slots: list[tuple[list[int], str]] = []
        self.grad = False

    def dim(self, n: int, extra: int = 0) -> int:
        r = self.rng
        m = max(n + extra, 1)
        if r.random() < 0.05:
            return m
        d = r.randrange(m)
        return d - m if r.random() < 0.3 else d

    def new(self) -> dict:
        r = self.rng
        dtype = r.choice(DTYPES)
        shape = [r.choice([1, 2, 3, 4]) for _ in range(r.choice([0, 1, 2, 2, 3]))]
        kind = r.choice(["to", "to", "to_t", "to_sliced", "zeros", "ones", "full", "strided"])
        if kind == "to_t" and len(shape) < 2:
            kind = "to"
        step: dict[str, Any] = {"op": "new", "kind": kind, "dtype": dtype, "shape": shape}
        step["start"] = r.randint(-3, 3)
        if kind == "full":
            step["value"] = r.choice(SCALARS) if dtype != "int64" else r.randint(-3, 3)
        if kind == "strided":
            order = list(range(len(shape)))
            r.shuffle(order)
            stride, acc = [0] * len(shape), 1
            for d in reversed(order):
                stride[d] = acc
                acc *= shape[d]
            step["stride"] = stride
            step["value"] = r.choice(SCALARS) if dtype != "int64" else r.randint(-3, 3)
        step["requires_grad"] = dtype != "int64" and kind.startswith("to") and r.random() < 0.25
        self.grad |= step["requires_grad"]
        out = [shape[1], shape[0], *shape[2:]] if kind == "to_t" else shape
        self.slots.append((out, dtype))
        return step

    def view(self, a: int) -> dict:
        r = self.rng
        shape, dtype = self.slots[a]
        n = len(shape)
        fn = r.choice(VIEWS)
        step: dict[str, Any] = {"op": "view", "fn": fn, "a": a}
        out = list(shape)
        if fn in ("view", "reshape"):
            out = factor(r, math.prod(shape), r.randint(0, 3))
            step["shape"] = list(out)
            if out and r.random() < 0.3:
                step["shape"][r.randrange(len(out))] = -1
        elif fn == "transpose":
            step["args"] = [self.dim(n), self.dim(n)]
        elif fn == "permute":
            dims = list(range(n))
            r.shuffle(dims)
            step["args"] = dims
            out = [shape[d] for d in dims]
        elif fn == "getitem":
            items = []
            for size in shape[: r.randint(0, n)]:
                if r.random() < 0.4:
                    items.append({"int": r.randint(-size, size - 1)})
                else:
                    items.append({"slice": [r.choice([None, 0, 1]), None, r.choice([1, 2])]})
            step["index"] = items
        elif fn == "expand":
            lead = [r.choice([1, 2, 3]) for _ in range(r.choice([0, 0, 1]))]
            out = lead + [s if s != 1 else r.choice([1, 2, 3]) for s in shape]
            step["sizes"] = out
        elif fn == "unsqueeze":
            d = self.dim(n, 1)
            step["args"] = [d]
            if -n - 1 <= d <= n:
                out.insert(d % (n + 1), 1)
        elif fn == "squeeze":
            step["args"] = [] if r.random() < 0.5 or not n else [self.dim(n)]
        elif fn in ("narrow", "select"):
            d = self.dim(n)
            size = shape[d] if -n <= d < n else 1
            if fn == "narrow":
                start = r.randint(0, max(size - 1, 0))
                step["args"] = [d, start, r.randint(0, size - start)]
            else:
                step["args"] = [d, r.randint(-size, max(size - 1, -size))]
                if -n <= d < n:
                    out = shape[: d % n] + shape[d % n + 1 :]
        elif fn == "as_strided":
            size = [r.choice([1, 2, 3]) for _ in range(r.randint(1, 3))]
            stride = [r.choice([0, 1, 2]) for _ in size]
            step["args"] = [size, stride, r.choice([0, 0, 1])]
            out = size
        self.slots.append((out, dtype))
        return step

    def other(self, shape: list[int]) -> int:
        r = self.rng
        fits = [k for k, (s, _) in enumerate(self.slots) if broadcast_shape(shape, s) is not None]
        return r.choice(fits) if fits and r.random() < 0.9 else r.randrange(len(self.slots))

    def kernel(self, a: int) -> dict:
        r = self.rng
        shape, dtype = self.slots[a]
        fn = r.choice(KERNELS + FALLBACK)
        step: dict[str, Any] = {"op": "compute", "fn": fn, "a": a}
        out = shape
        if fn in ("add", "mul", "sub", "maximum"):
            b = self.other(shape)
            step["b"] = b
            out = broadcast_shape(shape, self.slots[b][0]) or shape
            if fn == "add" and r.random() < 0.3:
                step["alpha"] = r.choice([2, -1])
        elif fn in ("add_scalar", "mul_scalar"):
            step["scalar"] = r.choice(SCALARS)
        elif fn == "sum":
            out = []
        elif fn == "sum_dim":
            n = len(shape)
            dims = r.sample(range(n), r.randint(1, n)) if n else [0]
            step["dims"] = [d - n if r.random() < 0.3 else d for d in dims]
            step["keepdim"] = r.random() < 0.4
        elif fn == "mm":
            k = shape[-1] if len(shape) == 2 else 2
            mats = [j for j, (s, _) in enumerate(self.slots) if len(s) == 2 and s[0] == k]
            step["b"] = r.choice(mats) if mats and r.random() < 0.9 else self.other(shape)
        elif fn == "clamp":
            step["min"], step["max"] = r.choice([(-1, 2), (0, None), (None, 1)])
        elif fn == "cumsum":
            step["dim"] = self.dim(len(shape))
        elif fn == "cat":
            same = [j for j, (s, _) in enumerate(self.slots) if s[1:] == shape[1:] and s]
            step["b"] = r.choice(same) if same else a
        self.slots.append((out, dtype))
        return step

    def write(self, a: int) -> dict:
        r = self.rng
        shape, _ = self.slots[a]
        fn = r.choice(WRITES)
        step: dict[str, Any] = {"op": "write", "fn": fn, "a": a}
        if fn in ("fill_",):
            step["value"] = r.choice(SCALARS)
        elif fn in ("add_", "mul_", "copy_"):
            step["b"] = self.other(shape)
        elif fn == "copy_cpu":
            step["shape"] = shape if r.random() < 0.8 else shape[1:]
            step["start"] = r.randint(-3, 3)
        elif fn == "setitem":
            size = shape[0] if shape else 1
            step["index"] = r.randint(-size, max(size - 1, -size)) if shape else None
            step["value"] = r.choice(SCALARS)
        return step

    def copy(self, a: int) -> dict:
        r = self.rng
        fn = r.choice(COPIES)
        shape, dtype = self.slots[a]
        step: dict[str, Any] = {"op": "copy", "fn": fn, "a": a}
        if fn == "to_dtype":
            dtype = step["dtype"] = r.choice(DTYPES)
        self.slots.append((shape, dtype))
        return step


def generate(rng: random.Random) -> dict[str, Any]:
    """One program: one to three tensors on the device, then 4 to 12 steps, maybe a backward."""
    g = _Gen(rng)
    steps = [g.new() for _ in range(rng.choice([1, 2, 2, 3]))]
    for _ in range(rng.randint(4, 12)):
        a = rng.randrange(len(g.slots))
        kind = rng.random()
        if kind < 0.3:
            steps.append(g.view(a))
        elif kind < 0.65:
            steps.append(g.kernel(a))
        elif kind < 0.85:
            steps.append(g.write(a))
        elif kind < 0.95:
            steps.append(g.copy(a))
        else:
            steps.append(g.new())
    if g.grad and rng.random() < 0.8:
        steps.append({"op": "backward", "a": rng.randrange(len(g.slots))})
    return {"steps": steps}


# === running =====================================================================================


class _Skip(Exception):
    pass


def _index(item: Any) -> Any:
    if isinstance(item, list):
        return tuple(_index(i) for i in item)
    if "int" in item:
        return item["int"]
    return slice(*item["slice"])


class _Run:
    def __init__(self, lib: Any) -> None:
        import torch

        self.torch = torch
        self.dev = lib.setup()
        self.T: list[Any] = []
        self.leaves: list[Any] = []
        self.cycle = False  # an in-place write under autograd: the graph may keep itself alive

    def get(self, k: int) -> Any:
        if self.T[k] is None:
            raise _Skip
        return self.T[k]

    def data(self, shape: list[int], dtype: str, start: int) -> Any:
        torch = self.torch
        t = torch.arange(math.prod(shape), dtype=torch.float64) * 0.5 - 2.0 + start
        return t.reshape(shape).to(getattr(torch, dtype))

    def make(self, s: dict) -> Any:
        torch, dev = self.torch, self.dev
        dtype, shape, kind = getattr(torch, s["dtype"]), s["shape"], s["kind"]
        if kind == "to":
            t = self.data(shape, s["dtype"], s["start"]).to(dev, copy=True)
        elif kind == "to_t":
            t = self.data([shape[1], shape[0], *shape[2:]], s["dtype"], s["start"])
            t = t.transpose(0, 1).to(dev, copy=True)  # a dense layout is kept (empty_strided)
        elif kind == "to_sliced":
            t = self.data([*shape[:-1], 2 * shape[-1]] if shape else [], s["dtype"], s["start"])
            t = (t[..., ::2] if shape else t).to(dev, copy=True)  # not dense: contiguous
        elif kind in ("zeros", "ones"):
            t = getattr(torch, kind)(shape, dtype=dtype, device=dev)
        elif kind == "full":
            t = torch.full(shape, s["value"], dtype=dtype, device=dev)
        else:
            t = torch.empty_strided(shape, s["stride"], dtype=dtype, device=dev)
            t.fill_(s["value"])
        if s["requires_grad"]:
            t.requires_grad_()
            self.leaves.append(t)
        return t

    def view(self, s: dict) -> Any:
        x, fn = self.get(s["a"]), s["fn"]
        if fn in ("view", "reshape"):
            return getattr(x, fn)(s["shape"])
        if fn == "t":
            return x.t()
        if fn == "getitem":
            return x[tuple(_index(i) for i in s["index"])]
        if fn == "expand":
            return x.expand(*s["sizes"])
        if fn == "permute":
            return x.permute(*s["args"])
        return getattr(x, fn)(*s["args"])

    def compute(self, s: dict) -> Any:
        torch, x, fn = self.torch, self.get(s["a"]), s["fn"]
        y = self.get(s["b"]) if "b" in s else None
        if fn in ("add", "mul") and x.shape != y.shape:
            # EXCLUDED: torch's CPU and meta TensorIterators may lay a broadcast out differently
            return self.compute({**s, "fn": fn + "_broadcast"}).contiguous()
        if fn in ("add", "add_broadcast"):
            return torch.add(x, y, alpha=s["alpha"]) if "alpha" in s else x + y
        if fn in ("mul", "mul_broadcast"):
            return x * y
        if fn == "add_scalar":
            return x + s["scalar"]
        if fn == "mul_scalar":
            return x * s["scalar"]
        if fn == "sum":
            return x.sum()
        if fn == "sum_dim":
            return x.sum(s["dims"], keepdim=s["keepdim"])
        if fn == "mm":
            return torch.mm(x, y)
        if fn == "relu":
            return torch.relu(x)
        if fn == "sub":
            return x - y
        if fn in ("neg", "abs"):
            return getattr(x, fn)()
        if fn == "maximum":
            return torch.maximum(x, y)
        if fn == "clamp":
            return x.clamp(min=s["min"], max=s["max"])
        if fn == "cumsum":
            return x.cumsum(s["dim"])
        return torch.cat([x, y])

    def fallback(self, s: dict) -> Any:
        """An op through the fallback, made contiguous: CPUFallback.cpp hands an out= result
        back through _copy_from_and_resize, which lays it out afresh (as openreg's does),
        where the CPU kernel keeps its input's layout (EXCLUDED)."""
        return self.compute(s).contiguous()

    def write(self, s: dict) -> Any:
        x, fn = self.get(s["a"]), s["fn"]
        self.cycle |= x.requires_grad  # EXCLUDED: the graph may keep itself alive
        if fn == "fill_":
            return x.fill_(s["value"]) is x
        if fn == "zero_":
            strides = zip(x.shape, x.stride(), strict=True)
            if x.numel() and any(n > 1 and st == 0 for n, st in strides):
                return "excluded: zero_ through the fallback on an expanded tensor"
            return x.zero_() is x
        if fn in ("add_", "mul_", "copy_"):
            y = self.get(s["b"])
            if order_dependent(x, y, fn):
                return "excluded: a write whose result depends on the kernel's loop order"
            return getattr(x, fn)(y) is x
        if fn == "copy_cpu":
            return x.copy_(self.data(s["shape"], "float32", s["start"])) is x
        if s["index"] is None:
            x[()] = s["value"]
        else:
            x[s["index"]] = s["value"]
        return None

    def copy(self, s: dict) -> Any:
        x, fn = self.get(s["a"]), s["fn"]
        if fn == "to_dtype":
            return x.to(getattr(self.torch, s["dtype"]))
        return getattr(x, fn)()

    def shares(self, t: Any) -> list[int]:
        ptr = t.untyped_storage().data_ptr()
        return [
            k
            for k, u in enumerate(self.T)
            if u is not None and u.device == t.device and u.untyped_storage().data_ptr() == ptr
        ]

    def observe(self, t: Any) -> Any:
        if not isinstance(t, self.torch.Tensor):
            return {"value": t}
        return {
            "shape": list(t.shape),
            # A size-1 dim's stride addresses nothing, and torch's own CPU and meta kernels
            # disagree on it (EXCLUDED): only the others are compared.
            "stride": [
                st if n != 1 and t.numel() else None
                for n, st in zip(t.shape, t.stride(), strict=True)
            ],
            "storage_offset": int(t.storage_offset()) if t.numel() else None,
            "dtype": str(t.dtype).removeprefix("torch."),
            "on the device": t.device.type == self.dev,
            "values": t.detach().cpu().tolist(),
            "requires_grad": t.requires_grad,
            "shares storage with": self.shares(t),
        }

    def step(self, s: dict) -> Any:
        op = s["op"]
        makes = op in ("new", "view", "compute", "copy")
        try:
            if op == "backward":
                self.get(s["a"]).sum().backward()
                return "done"
            if op == "compute" and s["fn"] in FALLBACK:
                op = "fallback"
            result = getattr(self, {"new": "make"}.get(op, op))(s)
        except _Skip:
            if makes:
                self.T.append(None)
            return "skipped"
        except Exception as exc:  # noqa: BLE001 - the error's type is the observation
            if makes:
                self.T.append(None)
            return {"raised": error_kind(exc)}
        if op == "write":
            return {"returns self": result, "after": self.observe(self.get(s["a"]))}
        obs = self.observe(result)
        self.T.append(result)
        return obs


def execute(lib: Any, program: dict[str, Any]) -> Any:
    """Run the program with ``lib``: every step observed, then the leaves' gradients and what
    the tensors it keeps hold on the device."""
    run = _Run(lib)

    def body() -> list[Any]:
        run.obs = [run.step(s) for s in program["steps"]]
        run.grads = [
            None if t.grad is None else run.observe(t.grad) for t in run.leaves
        ]  # before the graph goes: saved tensors are not what a program keeps
        kept = [t.detach() for t in run.T if t is not None and t.device.type == run.dev]
        run.T.clear()
        run.leaves.clear()
        return kept

    held = lib.memory_held(body)
    if any(
        o == {"raised": "RuntimeError"} and s["op"] == "backward"
        for s, o in zip(program["steps"], run.obs, strict=True)
    ):
        held = "not compared: a backward raised (EXCLUDED)"
    if run.cycle:
        held = "not compared: an in-place write under autograd (EXCLUDED)"
    return {"steps": run.obs, "grads": run.grads, "held on the device": held}


# === description ==================================================================================


def describe(program: dict[str, Any]) -> str:
    """The program as Python a learner can read (``dev`` is "cpu" for torch, yours for you)."""
    lines, n = [], 0
    for s in program["steps"]:
        op, a = s["op"], f"t{s['a']}" if "a" in s else ""
        b = f"t{s['b']}" if "b" in s else ""
        name = f"t{n}"
        if op == "new":
            d, shape, kind = f"torch.{s['dtype']}", s["shape"], s["kind"]
            src = f"data({shape}, {d}, start={s['start']})"  # copy=True: torch's run copies too
            text = {
                "to": f"{src}.to(dev, copy=True)",
                "to_t": f"data({[*shape[1:2], *shape[:1], *shape[2:]]}, {d}, start={s['start']})"
                ".transpose(0, 1).to(dev, copy=True)",
                "to_sliced": f"data({[*shape[:-1], 2 * shape[-1]] if shape else []}, {d}, "
                f"start={s['start']})[..., ::2].to(dev, copy=True)",
                "zeros": f"torch.zeros({shape}, dtype={d}, device=dev)",
                "ones": f"torch.ones({shape}, dtype={d}, device=dev)",
                "full": f"torch.full({shape}, {s.get('value')!r}, dtype={d}, device=dev)",
                "strided": f"torch.empty_strided({shape}, {s.get('stride')}, dtype={d}, "
                f"device=dev).fill_({s.get('value')!r})",
            }[kind]
            if s["requires_grad"]:
                text += ".requires_grad_()"
            lines.append(f"{name} = {text}")
        elif op == "view":
            fn = s["fn"]
            if fn in ("view", "reshape"):
                text = f"{a}.{fn}({s['shape']})"
            elif fn == "t":
                text = f"{a}.t()"
            elif fn == "getitem":
                parts = [
                    str(i["int"])
                    if "int" in i
                    else ":".join("" if v is None else str(v) for v in i["slice"])
                    for i in s["index"]
                ]
                text = f"{a}[{', '.join(parts) or '()'}]"
            elif fn == "expand":
                text = f"{a}.expand({', '.join(map(str, s['sizes']))})"
            else:
                text = f"{a}.{fn}({', '.join(map(repr, s['args']))})"
            lines.append(f"{name} = {text}")
        elif op == "compute":
            fn = s["fn"]
            text = {
                "add": f"torch.add({a}, {b}, alpha={s.get('alpha')})"
                if "alpha" in s
                else f"{a} + {b}",
                "mul": f"{a} * {b}",  # .contiguous() where the shapes differ
                "add_scalar": f"{a} + {s.get('scalar')!r}",
                "mul_scalar": f"{a} * {s.get('scalar')!r}",
                "sum": f"{a}.sum()",
                "sum_dim": f"{a}.sum({s.get('dims')}, keepdim={s.get('keepdim')})",
                "mm": f"torch.mm({a}, {b})",
                "relu": f"torch.relu({a})",
                "sub": f"{a} - {b}",
                "neg": f"{a}.neg()",
                "abs": f"{a}.abs()",
                "maximum": f"torch.maximum({a}, {b})",
                "clamp": f"{a}.clamp(min={s.get('min')}, max={s.get('max')})",
                "cumsum": f"{a}.cumsum({s.get('dim')})",
                "cat": f"torch.cat([{a}, {b}])",
            }[fn]
            lines.append(f"{name} = {text}" + (".contiguous()" if fn in FALLBACK else ""))
        elif op == "copy":
            fn = s["fn"]
            text = f"{a}.to(torch.{s['dtype']})" if fn == "to_dtype" else f"{a}.{fn}()"
            lines.append(f"{name} = {text}")
        elif op == "write":
            fn = s["fn"]
            if fn == "fill_":
                lines.append(f"{a}.fill_({s['value']!r})")
            elif fn == "zero_":
                lines.append(f"{a}.zero_()")
            elif fn == "copy_cpu":
                lines.append(f"{a}.copy_(data({s['shape']}, torch.float32, start={s['start']}))")
            elif fn == "setitem":
                index = "()" if s["index"] is None else s["index"]
                lines.append(f"{a}[{index}] = {s['value']!r}")
            else:
                lines.append(f"{a}.{fn}({b})")
            continue
        else:
            lines.append(f"{a}.sum().backward()")
            continue
        n += 1
    return "\n".join(lines)


# === a broken engine, for the test that shows the harness is not blind ===========================


def BREAK(module: Any) -> Any:  # noqa: N802 - the name the test looks for
    """A device neg that doubles instead (neg has no lab kernel, so this Python kernel for
    PrivateUse1 stands before the fallback); returns the function that takes it away again."""
    import torch

    module.setup()
    lib = torch.library.Library("aten", "IMPL")
    lib.impl("neg", lambda x: (x.cpu() * 2).to(x.device), "PrivateUse1")
    return lib._destroy
