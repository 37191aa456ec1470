"""Task 2.7: the aten ops a program reaches, recorded by a ``TorchDispatchMode``.

Compared with torch's own ``LoggingTensorMode`` on the same program. The inputs are made
before recording starts, so only the program's own ops are in the list.
"""

from __future__ import annotations

from typing import Any

import torch

from autograder.cases import case
from autograder.observe import guard
from autograder.weeks.week2b.common import W, inputs


def _record(lib: Any, program: Any) -> Any:
    return guard(lambda: list(lib.record_aten_ops(program)))


@case(W, points=2, tasks="2.7")
def task_2_7_record_add_and_views(lib: Any) -> Any:
    """``x + y`` reaches ``aten.add.Tensor``; ``x.t()``, ``x.view(6)``, ``x[0]`` and
    ``x.expand(2, 2, 3)`` each reach their own view op (no copy)."""
    x, y = inputs(2, 3), inputs(2, 3, start=1)
    return {
        "x + y": _record(lib, lambda: x + y),
        "views": _record(lib, lambda: (x.t(), x.view(6), x[0], x.expand(2, 2, 3))),
        "x + 1": _record(lib, lambda: x + 1),
    }


@case(W, points=2, tasks="2.7")
def task_2_7_record_in_place_ops(lib: Any) -> Any:
    """In-place methods reach the in-place overloads (``aten.add_.Tensor``...), and a write
    through a view reaches the view op and then the in-place op."""

    def program() -> None:
        x, y = inputs(2, 3), inputs(2, 3, start=1)
        x.add_(y)
        x.mul_(2)
        x[0].zero_()

    x0, y0 = inputs(2, 3), inputs(2, 3, start=1)  # made outside: only the ops are recorded
    return {
        "add_, mul_, zero_ through x[0]": _record(lib, lambda: _in_place(x0.clone(), y0)),
        "made inside": _record(lib, program),
    }


def _in_place(x: torch.Tensor, y: torch.Tensor) -> None:
    x.add_(y)
    x.mul_(2)
    x[0].zero_()


@case(W, points=2, tasks="2.7")
def task_2_7_record_backward(lib: Any) -> Any:
    """The backward pass runs aten ops too (on this thread, under the mode): the gradient of
    ``(x * y).sum()`` is ``ones_like``, ``expand``, ``mul``, and the leaf's ``detach``."""
    x, y = inputs(3, grad=True), inputs(3, start=1)
    return _record(lib, lambda: (x * y).sum().backward())


@case(W, points=2, tasks="2.7")
def task_2_7_record_composite_ops_decompose(lib: Any) -> Any:
    """A CompositeImplicitAutograd op never reaches the mode itself: ``linear`` arrives as
    ``t`` and ``addmm`` (or ``mm``), ``softmax`` as ``_softmax``."""
    x, w, b = inputs(2, 3), inputs(4, 3, start=1), inputs(4)
    return {
        "linear with bias": _record(lib, lambda: torch.nn.functional.linear(x, w, b)),
        "linear without bias": _record(lib, lambda: torch.nn.functional.linear(x, w)),
        "softmax": _record(lib, lambda: torch.softmax(x, dim=1)),
    }


@case(W, points=1, tasks="2.7")
def task_2_7_mode_as_a_context_manager(lib: Any) -> Any:
    """``with RecordingMode() as m:`` gives the mode itself, whose ``.ops`` lists the ops in
    order; ops after the ``with`` block are not recorded."""
    x = inputs(3)

    def run() -> Any:
        with lib.RecordingMode() as mode:
            y = x * 2
            y.sum()
        x + 1  # after the block: not recorded
        return list(mode.ops)

    return guard(run)


def _fallback(lib: Any, program: Any) -> Any:
    return guard(lambda: list(lib.record_with_fallback(program)))


@case(W, points=2, tasks="2.7")
def task_2_7_fallback_sees_every_call(lib: Any) -> Any:
    """A boxed fallback on a key above Autograd sees each op the program calls, before it
    decomposes: ``linear`` itself, then the ``t`` and ``matmul`` its composite kernel calls,
    which the mode below Autograd never sees. Compared with the profiler's op events."""
    x, y, w = inputs(2, 3), inputs(2, 3, start=1), inputs(4, 3, start=2)
    return {
        "x + y, view, t, mm": _fallback(lib, lambda: torch.mm((x + y).view(3, 2).t(), x.t())),
        "linear": _fallback(lib, lambda: torch.nn.functional.linear(x, w)),
        "in place through a view": _fallback(lib, lambda: _tensor_in_place(x.clone(), y)),
    }


def _tensor_in_place(x: torch.Tensor, y: torch.Tensor) -> None:
    """Like ``_in_place`` with tensors only: a boxed Python fallback gets a Python number
    where the schema has a wrapped-number Tensor, and cannot redispatch it (torch 2.13)."""
    x.add_(y)
    x.mul_(y)
    x[0].zero_()


@case(W, points=2, tasks="2.7")
def task_2_7_fallback_sees_backward(lib: Any) -> Any:
    """The backward pass calls ops through the dispatcher on this thread too: the fallback
    sees the gradient formulas' ops (``mul``, ``expand``...) and the engine's own."""
    x, y = inputs(3, grad=True), inputs(3, start=1)
    return _fallback(lib, lambda: (x * y).sum(0).backward())


@case(W, points=1, tasks="2.7")
def task_2_7_fallback_leaves_no_trace(lib: Any) -> Any:
    """Afterwards the thread-local sets are as before and the fallback is unregistered: a
    second run works (a second fallback for a key that still has one is refused), and ops
    after it reach no fallback."""
    x = inputs(3)

    def run() -> Any:
        first = list(lib.record_with_fallback(lambda: x + x))
        second = list(lib.record_with_fallback(lambda: x * x))
        return {
            "first": first,
            "second": second,
            "include set after": repr(torch._C._dispatch_tls_local_include_set()),
            "exclude set after": repr(torch._C._dispatch_tls_local_exclude_set()),
        }

    return guard(run)
