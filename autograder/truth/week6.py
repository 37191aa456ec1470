"""Week 6's side of torch: the same questions answered by real TorchDynamo, AOTAutograd
and Inductor.

- ``GraphRecorder``: a recording backend (what any backend receives, kept in order).
- ``explain``: ``torch._dynamo.explain(fn)(*args)`` itself.
- ``capture``: ``torch.compile(fn, backend=recorder)`` run once: the graphs Dynamo hands a
  backend, with their example inputs, and what the compiled function returned.
- ``make_guards`` / ``tensor_match``: Dynamo compiles a function that uses every argument
  (``_user_of``), and the cache entry's guard tree (``_debug_get_cache_entry_list``) answers
  each probe with ``guard_manager.check(f_locals)``: the check Dynamo itself runs.
- ``LabCompiler``: ``torch.compile(fn, backend=..., dynamic=...)`` after
  ``torch._dynamo.reset()``, so its compile count is the one a fresh process would see.
- ``aten_trace``: ``make_fx(fn, tracing_mode="fake")``; ``functionalize``: the forward graph
  ``aot_function`` makes of the graph; ``decompositions``: ``get_decompositions`` for the
  lab's ops; ``partition``: ``default_partition``.
- ``lower`` and ``compile_graph``: Inductor on the graph (``torch.compile``), its steps read
  from the code it wrote (``run_and_get_code``); ``labdev_backend`` / ``register_labdev``:
  Inductor's ``compile_fx``, under the lab's name. Inductor runs here, in the grader's own
  process, never in a sandbox: it starts compiler processes.

Hidden from every worker (see ``autograder/truth/__init__.py``).
"""

from __future__ import annotations

import itertools
import logging
import os
import types
from typing import Any

from autograder.oracle import cache_dir

_FRESH = itertools.count()
# Dynamo warns on the terminal at a break from .item() and at the recompile limit: both are
# what the cases ask for, and a learner reading their report should not see torch's logs.
logging.getLogger("torch._dynamo").setLevel(logging.ERROR)
# Inductor's own caches (ISA probes, its precompiled headers, compiled kernels: about 150 MB)
# live with the oracle's, not in /tmp. Set before any of torch asks for the folder:
# torch._inductor.runtime.cache_dir_utils.cache_dir fixes it in the environment on first use.
os.environ.setdefault("TORCHINDUCTOR_CACHE_DIR", str(cache_dir() / "inductor"))


class _Recorder:
    def __init__(self) -> None:
        self.graphs: list[Any] = []
        self.example_inputs: list[list[Any]] = []

    def __call__(self, gm: Any, example_inputs: list[Any]) -> Any:
        self.graphs.append(gm)
        self.example_inputs.append(list(example_inputs))
        return gm.forward


def _explain(torch: Any, fn: Any, *args: Any) -> dict[str, Any]:
    out = torch._dynamo.explain(fn)(*args)  # it resets Dynamo before and after
    return {
        "graph_count": out.graph_count,
        "graph_break_count": out.graph_break_count,
        "graphs": list(out.graphs),
    }


def _capture(torch: Any, fn: Any, *args: Any, **_: Any) -> Any:
    torch._dynamo.reset()
    recorder = _Recorder()
    result = torch.compile(fn, backend=recorder)(*args)
    return types.SimpleNamespace(
        graphs=recorder.graphs, example_inputs=recorder.example_inputs, result=result
    )


def _user_of(example: dict[str, Any]) -> Any:
    """A function of ``example``'s names that uses every value in it (each tensor, each list
    item, each number), so Dynamo guards all of them."""
    uses: list[str] = []

    def walk(expr: str, value: Any) -> None:
        if isinstance(value, (list, tuple)):
            uses.append(f"len({expr})")
            for i, item in enumerate(value):
                walk(f"{expr}[{i}]", item)
        elif value is None:
            uses.append(f"({expr} is None)")
        else:
            uses.append(f"{expr} + 1")

    for name, value in example.items():
        walk(name, value)
    source = f"def f({', '.join(example)}):\n    return ({', '.join(uses)},)\n"
    namespace: dict[str, Any] = {}
    exec(compile(source, f"<week6 guards {next(_FRESH)}>", "exec"), namespace)  # noqa: S102
    return namespace["f"]


def _make_guards(torch: Any, example: dict[str, Any], *_: Any, **__: Any) -> Any:
    from torch._dynamo.eval_frame import _debug_get_cache_entry_list

    torch._dynamo.reset()
    fn = _user_of(example)
    torch.compile(fn, backend="eager")(*example.values())
    manager = _debug_get_cache_entry_list(fn.__code__)[0].guard_manager
    return lambda f_locals: bool(manager.check(dict(f_locals)))


def _tensor_match(torch: Any, t: Any, dynamic_dims: Any = frozenset()) -> Any:
    check = _make_guards(torch, {"x": t})
    return lambda x: check({"x": x})


class _Compiled:
    """``torch.compile(fn, backend, dynamic)`` with LabCompiler's API."""

    def __init__(self, torch: Any, fn: Any, backend: Any, dynamic: Any = None, **_: Any) -> None:
        self._torch = torch
        torch._dynamo.reset()
        self._compiled = torch.compile(fn, backend=backend, dynamic=dynamic)

    def __call__(self, *args: Any) -> Any:
        return self._compiled(*args)

    def reset(self) -> None:
        self._torch._dynamo.reset()


# ---- Part 2: AOTAutograd and Inductor -----------------------------------------------------------


def _aten_trace(torch: Any, fn: Any, *args: Any) -> Any:
    from torch.fx.experimental.proxy_tensor import make_fx

    return make_fx(fn, tracing_mode="fake")(*args)


def examples(torch: Any, gm: Any) -> list[Any]:
    """Real inputs with the geometry of ``gm``'s placeholders (their ``meta["val"]``), filled
    with distinct values: what AOTAutograd and Inductor are run on."""
    out = []
    for i, node in enumerate(n for n in gm.graph.nodes if n.op == "placeholder"):
        val = node.meta["val"]
        t = torch.empty_strided(tuple(val.shape), tuple(val.stride()), dtype=val.dtype)
        n = max(t.untyped_storage().nbytes() // max(t.element_size(), 1), 1)
        flat = torch.arange(n, dtype=torch.float64).mul(0.37).add(i * 0.11).sin().to(val.dtype)
        t.as_strided((n,), (1,), 0).copy_(flat)
        out.append(t)
    return out


def _functionalize(torch: Any, gm: Any) -> Any:
    """AOTAutograd's forward graph for ``gm`` (inputs that need no grad: the inference
    graph), through a compiler that keeps it: mutated inputs' new values, then outputs."""
    from functorch.compile import aot_function, make_boxed_func

    kept: list[Any] = []

    def keep(g: Any, _: Any) -> Any:
        kept.append(g)
        return make_boxed_func(g.forward)

    aot_function(gm, keep)(*examples(torch, gm))
    return kept[0]


def _decompositions(torch: Any) -> Any:
    from autograder.weeks.week6.common import decomposition_table

    return decomposition_table()


def _partition(torch: Any, joint: Any, joint_inputs: Any, **kwargs: Any) -> Any:
    from torch._functorch.partitioners import default_partition

    return default_partition(joint, joint_inputs, **kwargs)


def _inductor(torch: Any, gm: Any) -> tuple[Any, str]:
    """``gm`` compiled by Inductor (the oracle's process only: it starts compilers), and the
    Python module it wrote."""
    from torch._inductor.utils import run_and_get_code

    torch._dynamo.reset()
    compiled = torch.compile(gm, backend="inductor")
    _, codes = run_and_get_code(compiled, *examples(torch, gm))
    return compiled, "\n".join(codes)


def _lower(torch: Any, gm: Any) -> Any:
    """Inductor's steps for ``gm``, read from the code it wrote, in the order ``call`` runs
    them: each ``cpp_fused_*`` kernel and each ``extern_kernels.*`` call."""
    import re

    _, code = _inductor(torch, gm)
    if "def call(" not in code:
        # Every output a view of an input (y.t().t()): AOTAutograd hands back the views
        # itself and Inductor writes no code at all, so no kernel and no extern call runs.
        return types.SimpleNamespace(steps=[], code=code)
    call = code[code.index("def call(") :]
    steps = []
    for m in re.finditer(r"^\s+(cpp_fused_\w+)\(|^\s+extern_kernels\.(\w+)\(", call, re.M):
        if m.group(1):
            steps.append(types.SimpleNamespace(name=m.group(1), loops=[m.group(1)]))
        else:
            steps.append(types.SimpleNamespace(op=m.group(2)))
    return types.SimpleNamespace(steps=steps, code=code)


def _compile_graph(torch: Any, gm: Any, example_inputs: Any = None) -> Any:
    compiled, _ = _inductor(torch, gm)
    return lambda args: compiled(*args)


def _register_labdev(torch: Any) -> None:
    """Inductor itself registered under the lab's name."""
    from torch._dynamo.backends.registry import _COMPILER_FNS, register_backend
    from torch._inductor.compile_fx import compile_fx

    if "labdev" not in _COMPILER_FNS:
        register_backend(compile_fx, name="labdev")


def _labdev_backend(torch: Any, gm: Any, example_inputs: Any) -> Any:
    from torch._inductor.compile_fx import compile_fx

    return compile_fx(gm, example_inputs)


TORCH_EXTRAS = {
    "GraphRecorder": lambda torch: _Recorder(),
    "explain": _explain,
    "capture": _capture,
    "make_guards": _make_guards,
    "tensor_match": _tensor_match,
    "LabCompiler": lambda torch, *a, **k: _Compiled(torch, *a, **k),
    "aten_trace": _aten_trace,
    "functionalize": _functionalize,
    "decompositions": _decompositions,
    "partition": _partition,
    "lower": _lower,
    "compile_graph": _compile_graph,
    "register_labdev": _register_labdev,
    "labdev_backend": _labdev_backend,
}
