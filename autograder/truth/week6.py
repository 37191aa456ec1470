"""Week 6's side of torch: the same questions answered by real TorchDynamo.

- ``GraphRecorder``: a recording backend (what any backend receives, kept in order).
- ``explain``: ``torch._dynamo.explain(fn)(*args)`` itself.
- ``capture``: ``torch.compile(fn, backend=recorder)`` run once: the graphs Dynamo hands a
  backend, with their example inputs, and what the compiled function returned.
- ``make_guards`` / ``tensor_match``: Dynamo compiles a function that uses every argument
  (``_user_of``), and the cache entry's guard tree (``_debug_get_cache_entry_list``) answers
  each probe with ``guard_manager.check(f_locals)``: the check Dynamo itself runs.
- ``LabCompiler``: ``torch.compile(fn, backend=..., dynamic=...)`` after
  ``torch._dynamo.reset()``, so its compile count is the one a fresh process would see.

Hidden from every worker (see ``autograder/truth/__init__.py``).
"""

from __future__ import annotations

import itertools
import logging
import types
from typing import Any

_FRESH = itertools.count()
# Dynamo warns on the terminal at a break from .item() and at the recompile limit: both are
# what the cases ask for, and a learner reading their report should not see torch's logs.
logging.getLogger("torch._dynamo").setLevel(logging.ERROR)


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


TORCH_EXTRAS = {
    "GraphRecorder": lambda torch: _Recorder(),
    "explain": _explain,
    "capture": _capture,
    "make_guards": _make_guards,
    "tensor_match": _tensor_match,
    "LabCompiler": lambda torch, *a, **k: _Compiled(torch, *a, **k),
}
