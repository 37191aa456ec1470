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
