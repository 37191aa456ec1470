"""Task 2.8: the chain of kernels one call runs, read from torch's introspection.

Compared with torch's introspection (``autograder/truth/week2b.py``) for aten ops in the
situations of the chapter's table, and pinned to what really runs by an op whose kernels log
themselves (the recipe of ``shared/notes/torch-2.13-internals.md``, section 2).
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from typing import Any

import torch

from autograder.cases import case
from autograder.observe import guard
from autograder.weeks.week2b.common import TABLE_KEYS, W, chain_rows, fresh_ns, inputs

K, KS = torch._C.DispatchKey, torch._C.DispatchKeySet


def _exclude_autograd_cpu() -> Any:
    return torch._C._ExcludeDispatchKeyGuard(KS(K.AutogradCPU))


# The situations of the chapter's table: a name, how to make the inputs, the mode to call in.
SITUATIONS: dict[str, tuple[Callable[[], tuple], Callable[[], Any]]] = {
    "CPU tensors": (lambda: (inputs(3), inputs(3)), contextlib.nullcontext),
    "one requires grad": (lambda: (inputs(3, grad=True), inputs(3)), contextlib.nullcontext),
    "under no_grad": (lambda: (inputs(3, grad=True), inputs(3)), torch.no_grad),
    "under inference_mode": (lambda: (inputs(3, grad=True), inputs(3)), torch.inference_mode),
    "meta tensors": (lambda: (inputs(3).to("meta"),) * 2, contextlib.nullcontext),
    "AutogradCPU excluded": (lambda: (inputs(3, grad=True), inputs(3)), _exclude_autograd_cpu),
}


@case(W, points=1, tasks="2.8")
def task_2_8_kernel_file(lib: Any) -> Any:
    """The source file in a table line, from PyTorch's top folder (``aten/``, ``torch/``,
    ``c10/``), for every line of ``aten::add.Tensor``'s table, and a file of your own."""
    lines = torch._C._dispatch_dump_table("aten::add.Tensor").splitlines()
    texts = [line.partition(": ")[2].rsplit(" [", 1)[0] for line in lines if ": " in line]
    texts.append("registered at /home/me/course/my_kernels.py:12")
    return guard(lambda: [lib.kernel_file(t) for t in texts])


@case(W, points=2, tasks="2.8")
def task_2_8_computed_table(lib: Any) -> Any:
    """``computed_table`` of three aten ops on the keys that matter: the kind of each entry
    and the file it was registered in."""

    def table(name: str) -> Any:
        t = lib.computed_table(name)
        return {k: list(t[k]) if k in t else "missing" for k in TABLE_KEYS + ["AutogradMeta"]}

    return {
        name: guard(lambda name=name: table(name))
        for name in ("aten::add.Tensor", "aten::add_.Tensor", "aten::linear")
    }


@case(W, points=2, tasks="2.8")
def task_2_8_dispatch_key_set(lib: Any) -> Any:
    """The key set a call dispatches on: the tensors' keys, plus the thread-local include
    set, minus the exclude set, in each situation (and for a call with no tensor)."""
    out = {}
    for name, (make, mode) in SITUATIONS.items():
        args = make()

        def run(args: tuple = args, mode: Any = mode) -> str:
            with mode():
                return repr(lib.dispatch_key_set(*args))

        out[name] = guard(run)
    out["no tensor argument"] = guard(lambda: repr(lib.dispatch_key_set(3, "cpu")))
    return out


def _traces(lib: Any, qualname: str, extra: tuple = ()) -> dict[str, Any]:
    out = {}
    for name, (make, mode) in SITUATIONS.items():
        args = make()

        def run(args: tuple = args, mode: Any = mode) -> Any:
            with mode():
                return chain_rows(lib.trace_call(qualname, *args[: 2 - len(extra)], *extra))

        out[name] = guard(run)
    return out


@case(W, points=3, tasks="2.8")
def task_2_8_trace_add(lib: Any) -> Any:
    """``torch.add(a, b)``: the kernels it runs in each situation (an autograd kernel, then
    the backend's; only the backend's in inference mode or with autograd excluded)."""
    return _traces(lib, "aten::add.Tensor")


@case(W, points=2, tasks="2.8")
def task_2_8_trace_in_place_view_and_composite(lib: Any) -> Any:
    """``add_`` and ``view`` have a real ADInplaceOrView kernel between autograd and the
    backend (version counters, view tracking); ``linear`` is one CompositeImplicitAutograd
    kernel that calls other ops."""
    a, b = inputs(2, 3, grad=True), inputs(2, 3)
    calls = {
        "aten::add_.Tensor": (inputs(2, 3), b),
        "aten::view": (a, [6]),
        "aten::linear": (a, inputs(4, 3)),
    }
    return {
        q: guard(lambda q=q, args=args: chain_rows(lib.trace_call(q, *args)))
        for q, args in calls.items()
    }


@contextlib.contextmanager
def _logging_op(ns: str) -> Iterator[tuple[Any, list[str]]]:
    """``ns::f(Tensor x) -> Tensor`` whose CPU, Meta and Autograd kernels log their key."""
    ran: list[str] = []
    lib = torch.library.Library(ns, "DEF")
    try:
        lib.define("f(Tensor x) -> Tensor")
        op = getattr(torch.ops, ns).f.default

        def backend(key: str) -> Any:
            return lambda x: (ran.append(key), x * 2)[1]

        class F(torch.autograd.Function):
            @staticmethod
            def forward(ctx: Any, x: torch.Tensor) -> torch.Tensor:
                with torch._C._AutoDispatchBelowAutograd():
                    return op(x)

            @staticmethod
            def backward(ctx: Any, g: torch.Tensor) -> torch.Tensor:
                return 2 * g

        lib.impl("f", backend("CPU"), "CPU")
        lib.impl("f", backend("Meta"), "Meta")
        lib.impl("f", lambda x: (ran.append("Autograd"), F.apply(x))[1], "Autograd")
        yield op, ran
    finally:
        lib._destroy()


@case(W, points=3, tasks="2.8")
def task_2_8_trace_is_what_runs(lib: Any) -> Any:
    """For an op whose kernels log themselves, the trace names the kernels that really ran,
    in each situation: Autograd's (shown at AutogradCPU or AutogradMeta), then the backend's."""
    out = {}
    for name, (make, mode) in SITUATIONS.items():
        x = make()[0]

        def run(x: torch.Tensor = x, mode: Any = mode) -> Any:
            ns = fresh_ns("logged")
            with _logging_op(ns) as (op, ran):
                with mode():
                    traced = [d["key"] for d in lib.trace_call(f"{ns}::f", x)]
                    op(x)
                # The Autograd alias's kernel runs at the tensor's own AutogradX key.
                at = {"cpu": "AutogradCPU", "meta": "AutogradMeta"}[x.device.type]
                ran = [at if r == "Autograd" else r for r in ran]
                return {"traced": traced, "ran": ran, "same": traced == ran}

        out[name] = guard(run)
    return out
