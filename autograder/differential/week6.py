"""Week 6's random programs: functions captured, guarded and cached by real Dynamo and by an
engine (``compile.py``), every observation compared.

Three kinds of program, drawn in turn:

- ``capture``: a random function of square tensors (so ``t()`` and ``@`` always fit), an int
  and a list of tensors: pointwise ops, operators, reductions kept as 0-d tensors, keyword
  arguments, ``x.shape`` constants, ``print`` (a break), ``if`` on a tensor (a break) or on
  the int (no break), a tuple or one tensor returned. Compared: the graphs (each one's calls,
  placeholders, what it outputs on its example inputs) and the result.
- ``guards``: a random example (tensors of random shape, dtype and requires_grad, ints,
  floats, lists of tensors, None) and probes that change one thing about it (a size, a
  transpose, the dtype, requires_grad, a value, a list's length, an alias, grad mode).
  Compared: each probe's decision.
- ``cache``: a random call sequence (sizes, int values, ``dynamic`` None/True/False,
  ``mark_dynamic``, ``reset``) through ``LabCompiler`` and through ``torch.compile``.
  Compared: the results and the compile count after each call.

Five more kinds for part 2, each a random function of ``x``, ``y`` (m, n), ``w`` (n, k) and
``v`` (n,) made of pointwise ops, broadcasting, reductions (kept dims or not, to 0-d),
softmax and log_softmax, ``@`` and ``t()``:

- ``trace``: ``aten_trace`` against ``make_fx(tracing_mode="fake")``: calls, shapes, values;
- ``functional``: with in-place ops on inputs, intermediates and views of them:
  ``functionalize`` against AOTAutograd's forward graph;
- ``decompose``: ``make_fx`` with your table against torch's: calls and values;
- ``joint``: some inputs needing grad: ``aot_function`` with your ``partition`` against
  ``default_partition``: both graphs' calls, the saved values, the gradients;
- ``fusion``: ``lower`` against the code Inductor writes (kernels, extern calls), and
  ``compile_graph``'s results against eager.

``EXCLUDED`` lists what the generator leaves out, with the reason.
"""

from __future__ import annotations

import contextlib
import io
import random
from typing import Any

import torch

from autograder.observe import guard
from autograder.weeks.week6.common import CompileCounter, captured, fresh, value

EXCLUDED = {
    "calls of Python functions": "Dynamo inlines them; the lab's mini-Dynamo refuses them",
    "loops": "Dynamo unrolls them (backward jumps); the lab's interpreter goes forward only",
    "non-contiguous tensors with dynamic sizes": (
        "Dynamo guards their strides as formulas of the sizes; the lab refuses them"
    ),
    "mark_dynamic on a size-1 dim": "Dynamo raises a ConstraintViolation: nothing to compare",
    "breaks inside LabCompiler": "LabCompiler compiles straight-line functions only",
    "dtypes other than float32 in part 2": (
        "torch's decompositions insert casts for half types (pw_cast_for_opmath); the lab's "
        "lowering computes in the inputs' dtype"
    ),
    "slices, gathers and data-dependent shapes in part 2": (
        "functionalization writes them back with *_scatter ops; the lowering has no indexing"
    ),
}

UNARY = [
    "{a}.sin()",
    "torch.cos({a})",
    "{a}.relu()",
    "torch.nn.functional.relu({a})",
    "-{a}",
    "{a} * 2",
    "{a} + 1.5",
    "torch.tanh({a})",
    "{a}.exp().clamp(max=4.0)",
    "{a}.abs()",
    "{a}.sigmoid()",
    "{a} * x.shape[0]",
    "{a} * n",
    "{a}.t()",
]
BINARY = [
    "{a} + {b}",
    "{a} - {b}",
    "{a} * {b}",
    "{a} / ({b}.abs() + 1)",
    "torch.maximum({a}, {b})",
    "torch.add({a}, {b}, alpha=2)",
    "{a}.sum(0, keepdim=True) * {b}",
    "{a}.mean(dim=1, keepdim=True) + {b}",
]
MATRIX = ["{a} @ {b}", "torch.mm({a}, {b})"]  # both operands square
REDUCE = ["{a}.sum()", "{a}.mean()", "torch.amax({a})"]
CONDITIONS = ["{a}.sum() > 0", "{a}.mean() < 0.5", "({a} * 2).amax() >= 1"]


def generate(rng: random.Random) -> dict[str, Any]:
    kind = rng.choice(list(KINDS))
    return KINDS[kind](rng)


# ---- capture ------------------------------------------------------------------------------------


def _capture(rng: random.Random) -> dict[str, Any]:
    size = rng.choice([2, 3])
    square = ["x", "y", "xs[0]"]  # square tensors: t() and @ fit
    any_tensor = list(square)  # square or 0-d: broadcasting always fits
    lines: list[str] = []
    fresh_names = (f"v{i}" for i in range(100))

    def pick(pool: list[str]) -> str:
        return rng.choice(pool)

    for _ in range(rng.randint(1, 7)):
        roll = rng.random()
        if roll < 0.12:
            lines.append("print('torchlab')")
            continue
        if roll < 0.24 and len(lines) < 6:
            cond = rng.choice(CONDITIONS).format(a=pick(any_tensor))
            if rng.random() < 0.25:
                cond = rng.choice(["n > 2", "n <= 2"])
            target = pick([s for s in square if "[" not in s])
            body = rng.choice(UNARY + BINARY).format(a=target, b=pick(square))
            lines.append(f"if {cond}:\n        {target} = {body}")
            continue
        name = next(fresh_names)
        if roll < 0.34:
            lines.append(f"{name} = {rng.choice(REDUCE).format(a=pick(any_tensor))}")
            any_tensor.append(name)
            continue
        if roll < 0.44:
            template = rng.choice(MATRIX)
            lines.append(f"{name} = {template.format(a=pick(square), b=pick(square))}")
        elif roll < 0.72:
            template = rng.choice(BINARY)
            # a reduced first operand ((1, n) from sum(0, keepdim=True)) is square again
            # only if the second is: those templates take a square second operand
            second = pick(square if "keepdim" in template else any_tensor)
            lines.append(f"{name} = {template.format(a=pick(square), b=second)}")
        else:
            lines.append(f"{name} = {rng.choice(UNARY).format(a=pick(square))}")
        square.append(name)
        any_tensor.append(name)
    returned = rng.sample(any_tensor, k=min(len(any_tensor), rng.randint(1, 3)))
    result = returned[0] if len(returned) == 1 else "(" + ", ".join(returned) + ",)"
    return {
        "kind": "capture",
        "size": size,
        "n": rng.randint(1, 4),
        "starts": [round(rng.uniform(-2, 2), 2) for _ in range(4)],
        "lines": lines,
        "return": result,
    }


def _capture_source(program: dict[str, Any]) -> str:
    body = "".join(f"    {line}\n" for line in program["lines"])
    return f"def f(x, y, n, xs):\n{body}    return {program['return']}\n"


def _tensor(shape: list[int], start: float, dtype: torch.dtype = torch.float32) -> torch.Tensor:
    n = 1
    for s in shape:
        n *= s
    return (torch.arange(n, dtype=torch.float64) * 0.25 + start).to(dtype).reshape(shape)


def _capture_args(program: dict[str, Any]) -> tuple:
    s, starts = program["size"], program["starts"]
    x, y = _tensor([s, s], starts[0]), _tensor([s, s], starts[1])
    xs = [_tensor([s, s], starts[2]), _tensor([s, s], starts[3])]
    return x, y, program["n"], xs


# ---- guards -----------------------------------------------------------------------------------

DTYPES = {"float32": torch.float32, "float64": torch.float64, "int64": torch.int64}


def _tensor_spec(rng: random.Random) -> dict[str, Any]:
    dtype = rng.choice(list(DTYPES))
    return {
        "t": "tensor",
        "shape": [rng.randint(1, 4) for _ in range(rng.randint(0, 3))],
        "dtype": dtype,
        "grad": dtype != "int64" and rng.random() < 0.25,
        "transposed": rng.random() < 0.15,
    }


def _value_spec(rng: random.Random) -> dict[str, Any]:
    roll = rng.random()
    if roll < 0.5:
        return _tensor_spec(rng)
    if roll < 0.65:
        return {"t": "int", "v": rng.randint(0, 5)}
    if roll < 0.75:
        return {"t": "float", "v": rng.choice([0.5, 1.5, 2.0])}
    if roll < 0.9:
        return {"t": "list", "items": [_tensor_spec(rng) for _ in range(rng.randint(1, 3))]}
    return {"t": "none"}


def _guards(rng: random.Random) -> dict[str, Any]:
    names = ["a", "b", "c"][: rng.randint(1, 3)]
    example = {name: _value_spec(rng) for name in names}
    tensors = [k for k, v in example.items() if v["t"] == "tensor"]
    if len(tensors) == 1 and len(names) > 1 and rng.random() < 0.3:
        other = rng.choice([k for k in names if k != tensors[0]])
        example[other] = {"t": "same", "of": tensors[0]}  # one tensor passed twice
    if not any(v["t"] in ("tensor", "list") for v in example.values()):
        example[names[0]] = _tensor_spec(rng)
    probes = [_probe(rng, example) for _ in range(rng.randint(4, 10))]
    return {"kind": "guards", "example": example, "probes": probes}


def _probe(rng: random.Random, example: dict[str, Any]) -> list[Any]:
    """One change to the example: [how, argument name, detail]."""
    name = rng.choice(list(example))
    spec = example[name]
    choices: list[list[Any]] = [["same", name, None], ["no_grad", name, None]]
    if spec["t"] == "same":
        choices += [["unalias", name, None], ["alias_other", name, None]]
    if spec["t"] == "tensor":
        choices += [
            ["size", name, rng.randint(0, max(len(spec["shape"]) - 1, 0))],
            ["dtype", name, rng.choice(list(DTYPES))],
            ["grad", name, None],
            ["transpose", name, None],
            ["int", name, 3],
            ["parameter", name, None],
        ]
        others = [k for k, v in example.items() if v["t"] == "tensor" and k != name]
        if others:
            choices.append(["alias", name, rng.choice(others)])
    elif spec["t"] in ("int", "float"):
        choices += [["value", name, rng.choice([0, 1, 2, 3, 0.5, 1.5, True])]]
    elif spec["t"] == "list":
        choices += [["longer", name, None], ["shorter", name, None], ["tuple", name, None]]
        choices.append(["alias_items", name, None])
    else:
        choices.append(["value", name, 0])
    return rng.choice(choices)


def _make(spec: dict[str, Any], start: float = 0.0) -> Any:
    kind = spec["t"]
    if kind == "tensor":
        t = _tensor(spec["shape"], start, DTYPES[spec["dtype"]])
        if spec["transposed"] and t.dim() >= 2:
            t = t.transpose(0, 1).contiguous().transpose(0, 1)
        return t.requires_grad_(spec["grad"])
    if kind in ("int", "float"):
        return spec["v"]
    if kind == "list":
        return [_make(item, start + i) for i, item in enumerate(spec["items"])]
    return None


def _apply_probe(example: dict[str, Any], probe: list[Any]) -> tuple[dict[str, Any], bool]:
    """A fresh copy of the example's values with the probe's change; and whether to check it
    under ``torch.no_grad()``."""
    how, name, detail = probe
    values = _values(example)
    spec = example[name]
    if how == "size":
        shape = list(spec["shape"]) or [1]
        shape[min(detail, len(shape) - 1)] += 1
        values[name] = _make({**spec, "shape": shape})
    elif how == "dtype":
        values[name] = _make({**spec, "dtype": detail, "grad": False})
    elif how == "grad":
        t = values[name]
        values[name] = (
            t.detach().requires_grad_(not t.requires_grad) if t.is_floating_point() else t
        )
    elif how == "transpose":
        t = values[name].detach()
        values[name] = t.t().contiguous().t() if t.dim() == 2 else t.unsqueeze(0)
    elif how in ("int", "value"):
        values[name] = detail
    elif how == "parameter":
        values[name] = torch.nn.Parameter(values[name].detach().double())
    elif how == "alias":
        values[name] = values[detail]
    elif how == "longer":
        values[name] = values[name] + [values[name][-1].clone()]
    elif how == "shorter":
        values[name] = values[name][:-1]
    elif how == "tuple":
        values[name] = tuple(values[name])
    elif how == "alias_items":
        values[name] = [values[name][0]] * len(values[name])
    elif how == "unalias":  # the same geometry, but a tensor of its own
        values[name] = (
            values[spec["of"]].detach().clone().requires_grad_(values[spec["of"]].requires_grad)
        )
    elif how == "alias_other":  # both names now hold another tensor, together
        t = values[spec["of"]].detach().clone().requires_grad_(values[spec["of"]].requires_grad)
        values[name] = values[spec["of"]] = t
    return values, how == "no_grad"


def _values(example: dict[str, Any]) -> dict[str, Any]:
    """Fresh values for an example's specs (a "same" spec is the very tensor it names)."""
    values = {
        k: _make(spec, i) for i, (k, spec) in enumerate(example.items()) if spec["t"] != "same"
    }
    for k, spec in example.items():
        if spec["t"] == "same":
            values[k] = values[spec["of"]]
    return {k: values[k] for k in example}


# ---- cache ------------------------------------------------------------------------------------

CACHED = {
    "pointwise": "def f(x, n):\n    return (x.sin() * n).sum(0) + 1\n",
    "matmul": "def f(x, n):\n    return (x @ x.t()) * n\n",
}


def _cache(rng: random.Random) -> dict[str, Any]:
    calls = []
    for _ in range(rng.randint(3, 10)):
        if calls and rng.random() < 0.08:
            calls.append(["reset"])
            continue
        rows, cols = rng.choice([1, 2, 3, 4, 5]), rng.choice([2, 3])
        step = ["call", [rows, cols], rng.choice([1, 2, 3, 4])]
        if rng.random() < 0.15:
            step.append("transposed")  # the same sizes laid out the other way round
        calls.append(step)
    return {
        "kind": "cache",
        "fn": rng.choice(list(CACHED)),
        "dynamic": rng.choice([None, None, True, False]),
        "mark": rng.random() < 0.2,
        "calls": calls,
    }


# ---- running ----------------------------------------------------------------------------------


# ---- part 2: ATen programs (tracing, functionalization, decompositions, partition, fusion) ---

POINTWISE1 = [
    "{a}.sin()", "torch.cos({a})", "{a}.exp()", "torch.tanh({a})", "{a}.sigmoid()",
    "{a}.relu()", "-{a}", "{a}.abs()", "{a} * 2.0", "{a} + 1.5", "F.gelu({a})",
    "F.gelu({a}, approximate='tanh')", "F.silu({a})", "torch.erf({a})",
]  # fmt: skip
POINTWISE2 = ["{a} + {b}", "{a} - {b}", "{a} * {b}", "torch.maximum({a}, {b})",
              "{a} / ({b}.abs() + 1)"]  # fmt: skip
INPLACE = ["{a}.add_({b})", "{a}.mul_(2.0)", "{a}.sub_(0.5)", "{a}.t().add_(1.0)",
           "{a}.view(-1).mul_(3.0)", "{a}.unsqueeze(0).add_({b})", "{a}.copy_({b})"]  # fmt: skip


def _aten_program(rng: random.Random, kind: str) -> dict[str, Any]:
    """A random function of ``x``, ``y`` (m, n), ``w`` (n, k) and ``v`` (n,): pointwise ops,
    broadcasting, reductions (with and without keepdim, and to 0-d), softmax and
    log_softmax, ``@`` and ``t()``; for ``functional``, in-place ops on inputs, intermediates
    and views of them; for ``views``, fusion's programs with flat views (``reshape(-1)``) of
    computed values too (a kind of its own, so that the cases' fusion programs stay as drawn)."""
    m, n, k = rng.randint(2, 5), rng.randint(2, 5), rng.randint(2, 5)
    shapes = {"x": (m, n), "y": (m, n), "w": (n, k), "v": (n,)}
    names = iter(f"t{i}" for i in range(100))
    lines: list[str] = []

    def pick(fit: Any = None) -> str:
        pool = [v for v, sh in shapes.items() if fit is None or fit(sh)]
        return rng.choice(pool)

    def add(expr: str, shape: tuple[int, ...]) -> str:
        name = next(names)
        lines.append(f"{name} = {expr}")
        shapes[name] = shape
        return name

    for _ in range(rng.randint(2, 7)):
        roll = rng.random()
        two_d = lambda sh: len(sh) == 2  # noqa: E731
        if kind == "functional" and roll < 0.35:
            a = pick(two_d)
            template = rng.choice(INPLACE)
            b = pick(lambda sh, a=a: sh in (shapes[a], shapes[a][1:], ()))
            if "copy_" in template:
                b = pick(lambda sh, a=a: sh == shapes[a])
            if rng.random() < 0.5 and not a.startswith("t"):
                a = add(f"{a}.clone()", shapes[a])  # an intermediate, not the input, is written
            lines.append(template.format(a=a, b=b))
            continue
        if kind == "views" and roll >= 0.93:  # a flat view of a computed value
            a = pick(two_d)
            add(f"{a}.reshape(-1)", (shapes[a][0] * shapes[a][1],))
            continue
        if roll < 0.35:
            a = pick()
            add(rng.choice(POINTWISE1).format(a=a), shapes[a])
        elif roll < 0.6:
            a = pick()
            b = pick(lambda sh, a=a: sh == shapes[a] or sh in (shapes[a][-1:], ()))
            add(rng.choice(POINTWISE2).format(a=a, b=b), shapes[a])
        elif roll < 0.75:
            a = pick(two_d)
            d, keep = rng.choice([0, 1, -1]), rng.random() < 0.5
            red = rng.choice(["sum", "mean", "amax"])
            sh = list(shapes[a])
            if keep:
                sh[d] = 1
            else:
                sh.pop(d)
            add(f"{a}.{red}({d}, keepdim={keep})", tuple(sh))
        elif roll < 0.82:
            a = pick()
            add(f"{a}.sum()", ())
        elif roll < 0.9:
            a = pick(two_d)
            op = rng.choice(["torch.softmax", "torch.log_softmax"])
            add(f"{op}({a}, {rng.choice([0, 1, -1])})", shapes[a])
        elif roll < 0.96:
            a = pick(lambda sh: len(sh) == 2 and sh[1] == n)
            add(f"{a} @ w", (shapes[a][0], k))
        else:
            a = pick(two_d)
            add(f"{a}.t()", shapes[a][::-1])
    made = [v for v in shapes if v.startswith("t")] or ["x"]
    returned = rng.sample(made, k=min(len(made), rng.randint(1, 2)))
    grads = {v: rng.random() < 0.7 for v in ("x", "y", "w", "v")}
    return {
        "kind": kind,
        "lines": lines,
        "return": returned[0] if len(returned) == 1 else "(" + ", ".join(returned) + ",)",
        "shapes": {v: list(shapes[v]) for v in ("x", "y", "w", "v")},
        "start": round(rng.uniform(-1, 1), 2),
        "grads": grads if kind == "joint" else {},
    }


def _aten_source(program: dict[str, Any]) -> str:
    body = "".join(f"    {line}\n" for line in program["lines"])
    return f"def f(x, y, w, v):\n{body}    return {program['return']}\n"


def _aten_args(program: dict[str, Any]) -> list[torch.Tensor]:
    out = []
    for i, name in enumerate(("x", "y", "w", "v")):
        shape = program["shapes"][name]
        count = 1
        for size in shape:
            count *= size
        t = torch.arange(count, dtype=torch.float64).mul(0.37).add(program["start"] + i).sin()
        t = t.to(torch.float32).reshape(shape)
        out.append(t.requires_grad_(program["grads"].get(name, False)))
    return out


def _execute_aten(lib: Any, program: dict[str, Any]) -> Any:
    from autograder.weeks.week6 import common

    fn = fresh(_aten_source(program), {"F": torch.nn.functional})
    args = _aten_args(program)
    ask = {
        "trace": lambda: _traced(lib, fn, *args),
        "functional": lambda: common.functional(lib, fn, *args),
        "decompose": lambda: common.decomposed(lib, fn, *args),
        "joint": lambda: common.partitioned(lib, fn, *args),
        "fusion": lambda: {**common.fused(lib, fn, *args), **common.generated(lib, fn, *args)},
        "views": lambda: {**common.fused(lib, fn, *args), **common.generated(lib, fn, *args)},
    }[program["kind"]]
    return guard(ask)


def _traced(lib: Any, fn: Any, *args: Any) -> Any:
    from autograder.weeks.week6.aot import traced

    return traced(lib, fn, *args)


def execute(lib: Any, program: dict[str, Any]) -> Any:
    if program["kind"] == "capture":
        fn = fresh(_capture_source(program))
        with contextlib.redirect_stdout(io.StringIO()):  # its prints are not the report's
            return captured(lib, fn, *_capture_args(program))
    if program["kind"] == "guards":
        return _execute_guards(lib, program)
    if program["kind"] == "cache":
        return _execute_cache(lib, program)
    return _execute_aten(lib, program)


def _execute_guards(lib: Any, program: dict[str, Any]) -> Any:
    example = _values(program["example"])
    check = guard(lambda: lib.make_guards(example))
    if isinstance(check, dict):
        return check
    out = []
    for probe in program["probes"]:
        values, no_grad = _apply_probe(program["example"], probe)
        if no_grad:
            with torch.no_grad():
                out.append(guard(lambda v=values: bool(check(v))))
        else:
            out.append(guard(lambda v=values: bool(check(v))))
    return out


def _execute_cache(lib: Any, program: dict[str, Any]) -> Any:
    fn, counter = fresh(CACHED[program["fn"]]), CompileCounter()
    compiled = guard(lambda: lib.LabCompiler(fn, counter, dynamic=program["dynamic"]))
    if isinstance(compiled, dict):
        return compiled
    results, counts = [], []
    first = True
    for step in program["calls"]:
        if step[0] == "reset":
            compiled.reset()
            continue
        x = _tensor(step[1], 0.5)
        if "transposed" in step:
            x = x.t().contiguous().t()
        if first and program["mark"] and step[1][0] > 1:
            torch._dynamo.mark_dynamic(x, 0)
        first = False
        results.append(guard(lambda x=x, n=step[2]: value(compiled(x, n))))
        counts.append(counter.n)
    return {"results": results, "compiles": counts}


# ---- reading ----------------------------------------------------------------------------------


def describe(program: dict[str, Any]) -> str:
    if program["kind"] == "capture":
        s, starts = program["size"], program["starts"]
        args = f"# x, y, xs[0], xs[1]: ({s}, {s}) arange * 0.25 from {starts}; n = {program['n']}"
        return _capture_source(program) + args
    if program["kind"] in ATEN_KINDS:
        shapes = ", ".join(f"{k}: {tuple(v)}" for k, v in program["shapes"].items())
        grads = [k for k, g in program["grads"].items() if g]
        return (
            f"# {program['kind']}\n{_aten_source(program)}# {shapes}; sin(arange * 0.37 + "
            f"{program['start']} + i); requires_grad: {grads or 'none'}"
        )
    if program["kind"] == "guards":
        lines = [f"make_guards({program['example']})"]
        lines += [f"  probe: {p}" for p in program["probes"]]
        return "\n".join(lines)
    lines = [CACHED[program["fn"]].rstrip(), f"LabCompiler(f, dynamic={program['dynamic']})"]
    if program["mark"]:
        lines.append("mark_dynamic(first x, 0)")
    lines += [f"  {step}" for step in program["calls"]]
    return "\n".join(lines)


ATEN_KINDS = ("trace", "functional", "decompose", "joint", "fusion", "views")
KINDS: dict[str, Any] = {
    "capture": _capture,
    "guards": _guards,
    "cache": _cache,
    **{kind: (lambda rng, kind=kind: _aten_program(rng, kind)) for kind in ATEN_KINDS},
}


def BREAK(engine: Any) -> Any:  # noqa: N802 - the name every generator uses
    """Break the engine on purpose (for ``--broken``): guards that ignore strides."""
    original = engine.tensor_match

    def sloppy(t: Any, dynamic_dims: Any = frozenset()) -> Any:
        check = original(t, dynamic_dims)
        return lambda x: (
            check(x) or (isinstance(x, torch.Tensor) and x.shape == t.shape and x.dtype == t.dtype)
        )

    engine.tensor_match = sloppy

    def undo() -> None:
        engine.tensor_match = original

    return undo
