"""Tasks 6.1-6.3: the backend contract, bytecode to FX graphs, and graph breaks.

Compared with the graphs real Dynamo hands a recording backend for the same program:
how many, each one's calls in order (``common.op_name``), its placeholders, and what it
computes on its example inputs; and the function's own result.
"""

from __future__ import annotations

from typing import Any

import torch

from autograder.cases import case
from autograder.observe import guard
from autograder.weeks.week6.common import W, captured, fresh, graph_ops, inputs, unwrapped, value

# ---- Task 6.1: the backend contract and explain ---------------------------------------------


def _compile_with_recorder(lib: Any, source: str, *calls: tuple) -> dict[str, Any]:
    fn = fresh(source)
    torch._dynamo.reset()
    recorder = guard(lambda: lib.GraphRecorder())
    if isinstance(recorder, dict):  # it raised: the observation says how
        return recorder
    compiled = torch.compile(fn, backend=recorder)
    results = [guard(lambda a=a: value(unwrapped(compiled, *a))) for a in calls]
    return {
        "results": results,
        "graphs": guard(lambda: [graph_ops(gm) for gm in recorder.graphs]),
        "graphs run again": guard(
            lambda: [
                value(tuple(gm(*ex)))
                for gm, ex in zip(recorder.graphs, recorder.example_inputs, strict=True)
            ]
        ),
        "example_inputs": guard(
            lambda: [[list(t.shape) for t in ex] for ex in recorder.example_inputs]
        ),
    }


@case(W, points=2, tasks="6.1")
def task_6_1_recorder_receives_each_graph(lib: Any) -> Any:
    """A backend gets ``(gm, example_inputs)``: the recorder keeps both, and what it returns
    runs in place of the function (its result is the eager one)."""
    source = "def f(x, y):\n    a = torch.sin(x) + y\n    return a.relu() * 2\n"
    return _compile_with_recorder(lib, source, (inputs(4), inputs(4, start=1)))


@case(W, points=2, tasks="6.1")
def task_6_1_recorder_result_is_reused(lib: Any) -> Any:
    """A second call that the guards accept runs what the backend returned, with the new
    values: the recorder sees one graph, and both results are right."""
    source = "def f(x):\n    return (x * 3).cos()\n"
    return _compile_with_recorder(lib, source, (inputs(2, 3),), (inputs(2, 3, start=2),))


@case(W, points=2, tasks="6.1")
def task_6_1_recorder_sees_each_piece_of_a_break(lib: Any) -> Any:
    """A ``print`` between two operations: the backend is handed two graphs."""
    source = "def f(x):\n    y = x * 2\n    print('torchlab')\n    return y + 1\n"
    return _compile_with_recorder(lib, source, (inputs(3),))


def _explained(lib: Any, source: str, *args: Any) -> dict[str, Any]:
    fn = fresh(source)

    def run() -> dict[str, Any]:
        out = lib.explain(fn, *args)
        return {
            "graph_count": out["graph_count"],
            "graph_break_count": out["graph_break_count"],
            "ops_per_graph": [graph_ops(gm) for gm in out["graphs"]],
        }

    return guard(run)


EXPLAINED = {
    "straight line": ("def f(x, y):\n    return (torch.sin(x) + y).relu() * 2\n", 2),
    "print between": ("def f(x):\n    y = x * 2\n    print('torchlab')\n    return y + 1\n", 1),
    "print first": ("def f(x):\n    print('torchlab')\n    return x * 2\n", 1),
    "branch on a tensor": (
        "def f(x):\n    if x.sum() > 0:\n        return x * 2\n    return x - 1\n",
        1,
    ),
    "item": ("def f(x):\n    n = x.sum().item()\n    return x * 2 + 1\n", 1),
    "a loop, unrolled": (
        "def f(x):\n    for i in range(3):\n        x = x * 2 + i\n    return x\n",
        1,
    ),
    "nothing to compile": ("def f(x):\n    return x\n", 1),
}


@case(W, points=3, tasks="6.1")
def task_6_1_explain_counts_graphs_and_breaks(lib: Any) -> Any:
    """``explain`` on seven programs: graph and break counts, and each graph's calls, as
    ``torch._dynamo.explain`` gives them (breaks are one fewer than graphs)."""
    out = {}
    for name, (source, n) in EXPLAINED.items():
        args = [inputs(3, start=1.75)] if n == 1 else [inputs(3), inputs(3, start=1)]
        out[name] = _explained(lib, source, *args)
    return out


@case(W, points=2, tasks="6.1")
def task_6_1_explain_a_module_and_a_list(lib: Any) -> Any:
    """A list argument and a call of an ``nn.Module``: Dynamo inlines the module's forward,
    so its layer's function appears in the graph."""
    source = "def f(xs):\n    return torch.nn.functional.relu(xs[0]) + xs[1]\n"
    layer = torch.nn.Linear(3, 2)
    with torch.no_grad():
        layer.weight.copy_(inputs(2, 3))
        layer.bias.copy_(inputs(2))
    module_source = "def g(x):\n    return layer(x).sum()\n"
    fn = fresh(module_source, {"layer": layer})
    return {
        "list": _explained(lib, source, [inputs(3), inputs(3, start=1)]),
        "module": guard(lambda: _explain_counts(lib.explain(fn, inputs(2, 3)))),
    }


@case(W, points=1, tasks="6.1")
def task_6_1_explain_a_function_already_compiled(lib: Any) -> Any:
    """``explain`` on a function Dynamo has already compiled, then twice more: the same
    answer each time. ``torch._dynamo.explain`` resets Dynamo first; without that, each
    explain adds a cache entry to the function's code, and past the recompile limit Dynamo
    runs it eagerly and hands the backend nothing. The limit is 8
    (``torch._dynamo.config.recompile_limit``); this case sets it to 2, so that three explains
    cross it rather than ten."""
    fn = fresh("def f(x):\n    y = x.relu()\n    print('torchlab')\n    return y * 2\n")
    x = inputs(4)
    torch._dynamo.reset()
    with torch._dynamo.config.patch(recompile_limit=2):
        torch.compile(fn, backend="eager")(x)
        return [guard(lambda: _explain_counts(lib.explain(fn, x))) for _ in range(3)]


def _explain_counts(out: dict[str, Any]) -> dict[str, Any]:
    return {"graph_count": out["graph_count"], "graph_break_count": out["graph_break_count"]}


# ---- Task 6.2: straight-line capture ------------------------------------------------------

STRAIGHT = {
    "sin add relu mul": "def f(x, y):\n    a = torch.sin(x) + y\n    return a.relu() * 2\n",
    "first use orders placeholders": "def f(x, y):\n    return y.sin() + x\n",
    "keyword arguments": (
        "def f(x, y):\n    a = torch.add(x, y, alpha=2)\n    return a.sum(dim=0, keepdim=True)\n"
    ),
    "functional relu and matmul": (
        "def f(x, w):\n    h = torch.nn.functional.relu(x @ w)\n    return -h / 2 - x.t().sum()\n"
    ),
    "a dead value stays": "def f(x):\n    y = x + 1\n    return x * 2\n",
    "shape is a constant": "def f(x):\n    return x * x.shape[0] + x.shape[1]\n",
    "tuple of results": "def f(x, y):\n    return x.sum(), y * 3, x - y\n",
    "the same input twice": "def f(x):\n    return x * x + x\n",
    "the same result twice": "def f(x):\n    a = x.sin()\n    b = a\n    return a, b, a * 2\n",
    "a global after a method": "def f(x):\n    y = x.relu()\n    return torch.sin(y)\n",
    "the function's own globals": "def f(x):\n    return F.relu(x) * scale\n",
    "Python arithmetic is folded": "def f(x):\n    return x * (x.shape[0] * 2 - 1)\n",
    "a list argument to torch": "def f(x, y):\n    return torch.cat([x, y], dim=0).sum(1)\n",
    "gelu from torch._C._nn": "def f(x):\n    return torch.nn.functional.gelu(x) + 1\n",
}


def _two(shape: tuple[int, ...]) -> list[torch.Tensor]:
    return [inputs(*shape), inputs(*shape, start=0.5)]


@case(W, points=2, tasks="6.2")
def task_6_2_capture_straight_line(lib: Any) -> Any:
    """One graph per program: a placeholder per tensor used, in order of first use; one
    node per call, method or operator, in program order; the graph computes the result."""
    out = {}
    for name in ("sin add relu mul", "first use orders placeholders", "the same input twice"):
        source = STRAIGHT[name]
        fn = fresh(source)
        args = _two((2, 3))[: fn.__code__.co_argcount]
        out[name] = captured(lib, fn, *args)
    return out


@case(W, points=2, tasks="6.2")
def task_6_2_capture_keywords_and_functions(lib: Any) -> Any:
    """Keyword arguments reach the node (``alpha=2``, ``dim=0``); ``torch.nn.functional``
    functions and operators (``@``, unary ``-``, ``/``) are recorded as calls."""
    out = {}
    out["keyword arguments"] = captured(lib, fresh(STRAIGHT["keyword arguments"]), *_two((2, 3)))
    fn = fresh(STRAIGHT["functional relu and matmul"])
    out["functional relu and matmul"] = captured(lib, fn, inputs(2, 3), inputs(3, 2, start=1))
    return out


@case(W, points=2, tasks="6.2")
def task_6_2_constants_and_dead_values(lib: Any) -> Any:
    """Python values are constants: ``x.shape[0]`` is an int in the graph, not a node. A
    value nobody uses is still recorded (Dynamo does not remove it)."""
    return {
        name: captured(lib, fresh(STRAIGHT[name]), inputs(2, 3))
        for name in ("a dead value stays", "shape is a constant")
    }


@case(W, points=2, tasks="6.2")
def task_6_2_several_results(lib: Any) -> Any:
    """A tuple of results: the graph returns each tensor the function returns."""
    return captured(lib, fresh(STRAIGHT["tuple of results"]), *_two((3,)))


@case(W, points=2, tasks="6.2")
def task_6_2_lists_ints_and_nothing_to_do(lib: Any) -> Any:
    """Tensors inside a list argument are placeholders too; an int argument is a constant;
    a function that computes nothing gives no graph at all."""
    listed = fresh("def f(xs, n):\n    return xs[0] * n + xs[1]\n")
    nothing = fresh("def f(x, y):\n    return y, x\n")
    return {
        "list and int": captured(lib, listed, _two((2, 2)), 3),
        "nothing": captured(lib, nothing, *_two((2,))),
    }


@case(W, points=2, tasks="6.2")
def task_6_2_globals_folding_and_lists(lib: Any) -> Any:
    """Globals come from the function's own module (``fn.__globals__``: here ``F`` and
    ``scale`` exist only there), and 3.11's ``LOAD_GLOBAL`` pushes a NULL only when the low
    bit of its argument says so; arithmetic on Python ints is folded, not recorded; a list of
    tensors reaches ``torch.cat`` as tensors; ``F.gelu`` (a builtin of ``torch._C._nn``) is a
    torch function too; one result returned twice is one graph output."""
    out = {}
    names = {"F": torch.nn.functional, "scale": 3.0}
    for name in (
        "the same result twice",
        "a global after a method",
        "the function's own globals",
        "Python arithmetic is folded",
        "gelu from torch._C._nn",
    ):
        out[name] = captured(lib, fresh(STRAIGHT[name], names), inputs(2, 3))
    out["a list argument to torch"] = captured(
        lib, fresh(STRAIGHT["a list argument to torch"]), *_two((2, 3))
    )
    return out


@case(W, points=1, tasks="6.2")
def task_6_2_graph_is_an_fx_graph_module(lib: Any) -> Any:
    """``capture`` gives ``torch.fx.GraphModule`` objects whose example inputs are the real
    tensors: a graph can be run again, and prints as code."""
    fn = fresh(STRAIGHT["sin add relu mul"])
    x, y = _two((4,))

    def run() -> Any:
        got = lib.capture(fn, x, y)
        gm = got.graphs[0]
        return {
            "type": isinstance(gm, torch.fx.GraphModule),
            "inputs are the arguments": [e is x or e is y for e in got.example_inputs[0]],
            "run again": value(gm(y, x)),
        }

    return guard(run)


# ---- Task 6.3: graph breaks -----------------------------------------------------------------

BREAKS = {
    "print between": "def f(x):\n    y = x * 2\n    print('torchlab')\n    return y + 1\n",
    "print first": "def f(x):\n    print('torchlab')\n    return x * 2\n",
    "print last": "def f(x):\n    y = x * 2\n    print('torchlab')\n    return y\n",
    "two prints": (
        "def f(x):\n    y = x * 2\n    print('a')\n    z = y + 1\n    print('b')\n"
        "    w = z.sin()\n    return w.cos()\n"
    ),
    "resume uses an input": "def f(x):\n    a = x * 2\n    print('torchlab')\n    return a + x\n",
    "dead value before a break": (
        "def f(x, y):\n    a = x * 2\n    b = y + 1\n    print('torchlab')\n    return a - 1\n"
    ),
    "branch": "def f(x):\n    if x.sum() > 0:\n        return x * 2\n    return x - 1\n",
    "branch then more": (
        "def f(x):\n    y = x.cos()\n    if y.mean() < 0.5:\n        y = y * 3\n    return y + x\n"
    ),
    "branch on a Python value": (
        "def f(x, n):\n    y = x * 2\n    if n > 2:\n        return y * 3\n    return y - 1\n"
    ),
    "branch on not n": (
        "def f(x, n):\n    y = x * 2\n    if not n:\n        return y - 1\n    return y + 1\n"
    ),
    "overwritten before it is read": (
        "def f(x):\n    a = x * 2\n    print('torchlab')\n    a = x + 1\n    return a\n"
    ),
    "read only where the branch jumps": (
        "def f(x):\n    a = x * 2\n    if x.sum() > 0:\n        return x.sin()\n    return a\n"
    ),
    "read only after a later branch": (
        "def f(x, n):\n    a = x * 2\n    print('torchlab')\n    if n > 2:\n"
        "        return x.cos()\n    return a + 1\n"
    ),
    "a read after a return": (
        "def f(x, n):\n    b = x.cos()\n    if n > 2:\n        a = x * 2\n"
        "        print('torchlab')\n        return a\n    return x.sin() + b\n"
    ),
    "stored b before a": (
        "def f(x):\n    b = x * 2\n    a = x + 1\n    print('torchlab')\n    return a - b\n"
    ),
    "print with keywords": (
        "def f(x):\n    y = x * 2\n    print('torchlab', 6, sep='-')\n    return y + 1\n"
    ),
}


@case(W, points=3, tasks=("6.2", "6.3"))
def task_6_3_print_breaks_the_graph(lib: Any) -> Any:
    """``print`` cannot be in a graph: the graph ends before it, it runs, a new graph starts
    after it. A piece with no call gives no graph."""
    return {
        name: captured(lib, fresh(BREAKS[name]), inputs(3))
        for name in ("print between", "print first", "print last", "two prints")
    }


@case(W, points=2, tasks=("6.2", "6.3"))
def task_6_3_resume_takes_live_values_as_inputs(lib: Any) -> Any:
    """After a break, the new graph's inputs are the values it uses (an earlier graph's
    result, an argument), in order of first use; a value computed before the break stays in
    the first graph even when nothing uses it later."""
    return {
        "resume uses an input": captured(lib, fresh(BREAKS["resume uses an input"]), inputs(3)),
        "dead value": captured(lib, fresh(BREAKS["dead value before a break"]), *_two((3,))),
    }


@case(W, points=3, tasks=("6.2", "6.3"))
def task_6_3_branch_on_a_tensor(lib: Any) -> Any:
    """``if x.sum() > 0`` needs the data: the graph so far computes the condition, the
    branch taken runs in a new graph. Both directions."""
    fn = BREAKS["branch"]
    return {
        "true": captured(lib, fresh(fn), inputs(3, start=2)),
        "false": captured(lib, fresh(fn), inputs(3, start=-2)),
        "then more": captured(lib, fresh(BREAKS["branch then more"]), inputs(3)),
    }


@case(W, points=2, tasks=("6.2", "6.3"))
def task_6_3_branch_on_a_python_value(lib: Any) -> Any:
    """A branch on an int is no break: Dynamo knows the value and follows it."""
    fn, negated = BREAKS["branch on a Python value"], BREAKS["branch on not n"]
    return {
        "n=3": captured(lib, fresh(fn), inputs(3), 3),
        "n=1": captured(lib, fresh(fn), inputs(3), 1),
        "not n, n=2": captured(lib, fresh(negated), inputs(3), 2),
        "not n, n=0": captured(lib, fresh(negated), inputs(3), 0),
    }


@case(W, points=3, tasks=("6.2", "6.3"))
def task_6_3_what_is_live_after_a_break(lib: Any) -> Any:
    """A local is handed on only if some path after the break reads it before writing it
    (``livevars_analysis``): a value overwritten first is not; one read only where the
    branch jumps, or only after a later branch, is; a read after a return (another path)
    does not count. The live locals are handed on in the order the function first stored
    them. And a ``print`` with keywords prints the real values, once."""
    x = inputs(3, start=-1.5)
    return {
        "overwritten": captured(lib, fresh(BREAKS["overwritten before it is read"]), x),
        "branch jumps": captured(lib, fresh(BREAKS["read only where the branch jumps"]), x),
        "later branch": captured(lib, fresh(BREAKS["read only after a later branch"]), x, 3),
        "after a return": captured(lib, fresh(BREAKS["a read after a return"]), x, 3),
        "print with keywords": captured(lib, fresh(BREAKS["print with keywords"]), x),
        "stored b before a": captured(lib, fresh(BREAKS["stored b before a"]), x),
    }
