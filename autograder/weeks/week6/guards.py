"""Tasks 6.4 and 6.5: guards, the cache, recompiles and automatic dynamic shapes.

6.4 is compared with the guard tree real Dynamo installs for a function that uses every
argument: each probe is answered by ``guard_manager.check(f_locals)``, Dynamo's own check.
6.5 is compared with ``torch.compile``'s compile count (a counting backend) after each call
of the same call sequence, and with the results.
"""

from __future__ import annotations

from typing import Any

import torch

from autograder.cases import case
from autograder.observe import guard
from autograder.weeks.week6.common import CompileCounter, W, fresh, inputs, value

Z = torch.zeros


def _decisions(lib: Any, example: dict[str, Any], probes: dict[str, dict[str, Any]]) -> Any:
    check = guard(lambda: lib.make_guards(example))
    if isinstance(check, dict):
        return check
    out: dict[str, Any] = {name: guard(lambda p=p: bool(check(p))) for name, p in probes.items()}
    with torch.no_grad():
        out["the same, under no_grad"] = guard(lambda: bool(check(example)))
    return out


# ---- Task 6.4: guards -------------------------------------------------------------------------


@case(W, points=2, tasks="6.4")
def task_6_4_tensor_match_sizes_and_strides(lib: Any) -> Any:
    """``TENSOR_MATCH`` compares sizes and strides exactly: another size, a transpose of the
    same size, a slice with other strides, an expanded tensor all fail; a fresh tensor of the
    same geometry passes."""
    x = Z(2, 3)
    probes = {
        "same geometry": {"x": Z(2, 3)},
        "other size": {"x": Z(3, 2)},
        "size 1": {"x": Z(1, 3)},
        "transposed": {"x": Z(3, 2).t()},
        "sliced": {"x": Z(2, 4)[:, :3]},
        "expanded": {"x": Z(3).expand(2, 3)},
        "3-d": {"x": Z(2, 3, 1)},
    }
    return _decisions(lib, {"x": x}, probes)


@case(W, points=2, tasks="6.4")
def task_6_4_tensor_match_type_dtype_grad_device(lib: Any) -> Any:
    """``TENSOR_MATCH`` also compares the Python type (a Parameter is not a Tensor), dtype,
    device, requires_grad and the dispatch keys; a non-tensor fails it."""
    probes = {
        "same": {"x": Z(2, 3)},
        "float64": {"x": Z(2, 3, dtype=torch.float64)},
        "int64": {"x": Z(2, 3, dtype=torch.int64)},
        "requires_grad": {"x": Z(2, 3, requires_grad=True)},
        "Parameter": {"x": torch.nn.Parameter(Z(2, 3))},
        "meta": {"x": Z(2, 3, device="meta")},
        "an int": {"x": 3},
        "a list": {"x": [Z(2, 3)]},
        "an inference tensor": {"x": _inference(Z(2, 3))},
    }
    return _decisions(lib, {"x": Z(2, 3)}, probes)


def _inference(t: torch.Tensor) -> torch.Tensor:
    """``t`` copied under ``inference_mode``: the same geometry, fewer dispatch keys (no
    ``ADInplaceOrView``), which only ``TENSOR_MATCH``'s key-set check can see."""
    with torch.inference_mode():
        return t.clone()


@case(W, points=2, tasks="6.4")
def task_6_4_requires_grad_example(lib: Any) -> Any:
    """Compiled for a tensor that requires grad: one that does not fails, and the other way."""
    return {
        "example requires grad": _decisions(
            lib,
            {"x": Z(2, requires_grad=True)},
            {"same": {"x": Z(2, requires_grad=True)}, "no grad": {"x": Z(2)}},
        ),
        "example does not": _decisions(
            lib, {"x": Z(2)}, {"same": {"x": Z(2)}, "grad": {"x": Z(2, requires_grad=True)}}
        ),
    }


@case(W, points=2, tasks="6.4")
def task_6_4_numbers_are_specialised(lib: Any) -> Any:
    """An int or float argument is a constant in the graph, so its guard is ``EQUALS_MATCH``:
    the same type and value (``True`` is not ``1``, ``2.0`` is not ``2``)."""
    x = Z(2)
    ints = {
        "same": {"x": x, "n": 2},
        "other value": {"x": x, "n": 3},
        "a float": {"x": x, "n": 2.0},
        "True for 1": {"x": x, "n": True},
    }
    floats = {"same": {"x": x, "s": 1.5}, "other": {"x": x, "s": 2.5}, "an int": {"x": x, "s": 1}}
    flags = {"same": {"x": x, "b": True}, "False": {"x": x, "b": False}, "1": {"x": x, "b": 1}}
    ones = {"same": {"x": x, "n": 1}, "True": {"x": x, "n": True}, "1.0": {"x": x, "n": 1.0}}
    return {
        "int": _decisions(lib, {"x": x, "n": 2}, ints),
        "the int 1": _decisions(lib, {"x": x, "n": 1}, ones),
        "float": _decisions(lib, {"x": x, "s": 1.5}, floats),
        "bool": _decisions(lib, {"x": x, "b": True}, flags),
    }


@case(W, points=2, tasks="6.4")
def task_6_4_lists_and_none(lib: Any) -> Any:
    """A list gets its type and ``LENGTH_CHECK``, then each item's own guard; ``None`` is
    ``NONE_MATCH``: only ``None`` passes."""
    a, b = Z(2), Z(3)
    lists = {
        "same": {"xs": [Z(2), Z(3)]},
        "shorter": {"xs": [Z(2)]},
        "longer": {"xs": [Z(2), Z(3), Z(3)]},
        "a tuple": {"xs": (Z(2), Z(3))},
        "item of another size": {"xs": [Z(2), Z(4)]},
        "items swapped": {"xs": [Z(3), Z(2)]},
    }
    nones = {"same": {"x": a, "t": None}, "zero": {"x": a, "t": 0}, "a tensor": {"x": a, "t": a}}
    return {
        "list": _decisions(lib, {"xs": [a, b]}, lists),
        "None": _decisions(lib, {"x": a, "t": None}, nones),
    }


@case(W, points=2, tasks="6.4")
def task_6_4_no_tensor_aliasing(lib: Any) -> Any:
    """Two distinct tensor arguments must stay distinct (``NO_TENSOR_ALIASING``): the same
    tensor passed twice fails; two tensors swapped pass."""
    x, y = Z(2), Z(2)
    probes = {
        "distinct": {"x": Z(2), "y": Z(2)},
        "swapped": {"x": y, "y": x},
        "x twice": {"x": x, "y": x},
        "in a list": {"x": x, "y": y},
    }
    listed = {"distinct": {"xs": [Z(2), Z(2)]}, "same twice": {"xs": [x, x]}}
    other = Z(2)
    twice = {
        "the same again": {"x": x, "y": x},
        "another, twice": {"x": other, "y": other},
        "two distinct": {"x": Z(2), "y": Z(2)},
    }
    return {
        "arguments": _decisions(lib, {"x": x, "y": y}, probes),
        "list items": _decisions(lib, {"xs": [x, y]}, listed),
        "one tensor passed twice": _decisions(lib, {"x": x, "y": x}, twice),
    }


@case(W, points=2, tasks="6.4")
def task_6_4_grad_mode_is_global_state(lib: Any) -> Any:
    """Guards made with grad mode on fail under ``torch.no_grad()``; made under no_grad,
    they fail with grad mode on."""
    x = Z(2)

    def made_under_no_grad() -> Any:
        with torch.no_grad():
            check = lib.make_guards({"x": x})
            inside = bool(check({"x": Z(2)}))
        return {"inside no_grad": inside, "outside": bool(check({"x": Z(2)}))}

    return {
        "made with grad": _decisions(lib, {"x": x}, {"same": {"x": Z(2)}}),
        "made under no_grad": guard(made_under_no_grad),
    }


@case(W, points=1, tasks="6.4")
def task_6_4_tensor_match_on_its_own(lib: Any) -> Any:
    """``tensor_match(t)`` is the predicate for one tensor: the same checks as above."""
    x = Z(3, 2)

    def run() -> Any:
        match = lib.tensor_match(x)
        probes = [Z(3, 2), Z(2, 3).t(), Z(3, 2, dtype=torch.float64), Z(3, 3), 1.0]
        return [bool(match(p)) for p in probes]

    return guard(run)


# ---- Task 6.5: the cache and recompiles -------------------------------------------------------


def _sequence(lib: Any, source: str, calls: list[tuple], **options: Any) -> Any:
    """Compile counts and results after each call of ``calls``, and for a call that
    compiled nothing, which compile's graph answered it (``None``: none, the function ran
    eagerly). Dynamo tries the most recently used entry first, so after an automatic-dynamic
    recompile the new, dynamic entry answers even for the size the first entry was compiled
    for. (A call that compiles may return what capturing computed or run the new graph: both
    give the same result, so it is not asked which.)"""
    fn, counter = fresh(source), CompileCounter()
    compiled = guard(lambda: lib.LabCompiler(fn, counter, **options))
    if isinstance(compiled, dict):
        return compiled
    counts, results, ran = [], [], []
    for args in calls:
        before, compiles = len(counter.ran), counter.n
        results.append(guard(lambda a=args: value(compiled(*a))))
        counts.append(counter.n)
        if counter.n != compiles:
            ran.append("compiled")
        else:
            ran.append(counter.ran[-1] if len(counter.ran) > before else None)
    return {"results": results, "compiles": counts, "graph run": ran}


POINTWISE = "def f(x):\n    return (x.sin() * 2).sum(0)\n"
HANDED_BACK = "def f(z, y):\n    return z * 2, y, z\n"
SCALED = "def f(x, n):\n    return x * n + 1\n"


def _sized(*sizes: int) -> list[tuple]:
    return [(inputs(s),) for s in sizes]


@case(W, points=2, tasks=("6.2", "6.4", "6.5"))
def task_6_5_cache_hit_and_recompile(lib: Any) -> Any:
    """The same geometry reuses the entry; a new dtype or a new int value compiles again;
    going back to an earlier one reuses its entry. A result that is an argument handed
    straight back comes from this call's arguments; one tensor passed twice compiles once."""
    dtypes = [(inputs(4),), (inputs(4, dtype=torch.float64),), (inputs(4),)]
    ints = [(inputs(4), 2), (inputs(4), 2)]
    a, b = inputs(3), inputs(3, start=1)
    handed = [(a, b), (b, a), (a, a)]
    return {
        "dtypes": _sequence(lib, POINTWISE, dtypes, dynamic=False),
        "ints": _sequence(lib, SCALED, ints, dynamic=False),
        "arguments handed back": _sequence(lib, HANDED_BACK, handed),
        "one tensor twice": _sequence(lib, "def f(x, y):\n    return x * y\n", [(a, a)] * 3),
    }


@case(W, points=3, tasks=("6.2", "6.4", "6.5"))
def task_6_5_automatic_dynamic_shapes(lib: Any) -> Any:
    """By default a size that changes makes that dim dynamic at the recompile: shapes
    4, 4, 5 compile twice; 4 again runs the newer, dynamic graph (the most recently used
    entry is tried first); 6 and 7 compile nothing; size 1 is specialised and compiles
    again."""
    return _sequence(lib, POINTWISE, _sized(4, 4, 5, 4, 6, 7, 1, 8))


@case(W, points=2, tasks=("6.2", "6.4", "6.5"))
def task_6_5_automatic_dynamic_ints(lib: Any) -> Any:
    """An int argument whose value changes becomes a graph input at the recompile: later
    values need no compile."""
    calls = [(inputs(4), 2), (inputs(4), 2), (inputs(4), 3), (inputs(4), 4), (inputs(5), 4)]
    calls.append((inputs(6), 5))
    return _sequence(lib, SCALED, calls)


@case(W, points=2, tasks=("6.2", "6.4", "6.5"))
def task_6_5_recompile_limit(lib: Any) -> Any:
    """``dynamic=False``: every new size compiles, up to the limit of 8 entries; after it
    the function runs eagerly (results still right, no more compiles)."""
    return _sequence(lib, POINTWISE, _sized(*range(2, 14)), dynamic=False)


@case(W, points=2, tasks=("6.2", "6.4", "6.5"))
def task_6_5_dynamic_true(lib: Any) -> Any:
    """``dynamic=True``: every dim is dynamic from the first compile (sizes 0 and 1 still
    specialised); a new rank compiles again; ints are graph inputs from the start."""
    shapes = _sized(2, 3, 4, 5) + [(inputs(1),), (inputs(3, 2),)]
    ints = [(inputs(3), 2), (inputs(3), 5), (inputs(4), 7)]
    return {
        "shapes": _sequence(lib, POINTWISE, shapes, dynamic=True),
        "ints": _sequence(lib, SCALED, ints, dynamic=True),
    }


@case(W, points=2, tasks=("6.2", "6.4", "6.5"))
def task_6_5_dynamic_dims_per_argument(lib: Any) -> Any:
    """Each argument's dims are tracked apart: a matmul whose left rows change, then whose
    right columns change, then whose inner size changes."""
    shapes = [((2, 3), (3, 4)), ((3, 3), (3, 4)), ((4, 3), (3, 5)), ((4, 3), (3, 6))]
    shapes.append(((4, 2), (2, 6)))
    calls = [(inputs(*a), inputs(*b)) for a, b in shapes]
    return _sequence(lib, "def f(x, y):\n    return x @ y\n", calls)


@case(W, points=2, tasks=("6.2", "6.4", "6.5"))
def task_6_5_mark_dynamic_and_reset(lib: Any) -> Any:
    """``torch._dynamo.mark_dynamic(x, 0)`` before the first call: one compile serves sizes
    8, 9 and 100. ``reset()`` forgets every entry: the next call compiles again."""
    fn, counter = fresh(POINTWISE), CompileCounter()

    def run() -> Any:
        compiled = lib.LabCompiler(fn, counter)
        x = inputs(8)
        torch._dynamo.mark_dynamic(x, 0)
        counts = []
        for t in (x, inputs(9), inputs(100)):
            compiled(t)
            counts.append(counter.n)
        compiled.reset()
        result = value(compiled(inputs(9)))
        counts.append(counter.n)
        return {"compiles": counts, "after reset": result}

    return guard(run)


@case(W, points=3, tasks=("6.2", "6.4", "6.5"))
def task_6_5_duck_sizing(lib: Any) -> Any:
    """``dynamic=True`` gives equal sizes one symbol (duck sizing): a ``(3, 3)`` compile
    serves ``(4, 4)`` but not ``(3, 2)``. A dim found dynamic because its size changed has a
    symbol of its own: after ``(1, 2)`` and ``(2, 2)``, ``(5, 2)`` needs no compile."""
    ducked = [(inputs(3, 3),), (inputs(4, 4),), (inputs(3, 2),)]
    found = [(inputs(1, 2),), (inputs(2, 2),), (inputs(5, 2),)]
    return {
        "equal sizes": _sequence(lib, POINTWISE, ducked, dynamic=True),
        "a dim found dynamic": _sequence(lib, POINTWISE, found, dynamic=True),
    }


@case(W, points=3, tasks=("6.2", "6.4", "6.5"))
def task_6_5_dynamic_guards_still_guard(lib: Any) -> Any:
    """A dynamic dim still needs a contiguous tensor (its strides are formulas of the sizes):
    a transposed one of the same size compiles again. A dynamic int still needs an int: a
    bool or a float compiles again. A dim marked dynamic stays dynamic at later compiles,
    though later tensors carry no mark."""
    rows = [(inputs(4, 3), 2), (inputs(5, 3), 2), (inputs(3, 5).t(), 2)]
    flags = [(inputs(4), 2), (inputs(4), 3), (inputs(4), True), (inputs(4), 2.5)]
    fn, counter = fresh(SCALED), CompileCounter()

    def sticky() -> Any:
        compiled = lib.LabCompiler(fn, counter)
        first = inputs(4, 3)
        torch._dynamo.mark_dynamic(first, 0)
        counts, results = [], []
        for x, n in ((first, 2), (inputs(5, 3), 2), (inputs(4, 3), 1), (inputs(5, 3), 4)):
            results.append(value(compiled(x, n)))
            counts.append(counter.n)
        return {"results": results, "compiles": counts}

    return {
        "transposed": _sequence(lib, SCALED, rows),
        "bool and float": _sequence(lib, SCALED, flags),
        "marked, then not": guard(sticky),
    }
