# Generated from reference_impl/real_dispatch.py by `torchlab release`: this is the file you edit.
# Replace each `raise NotImplementedError(...)` with your code; the docstring above it
# says what PyTorch does and where. Check your work with `torchlab check`.
# ruff: noqa: F401, F841
"""Week 2, part B: drive the real dispatcher. Here your module uses torch itself.

Part A built a dispatcher of your own. Now you register kernels in PyTorch's, watch the aten
ops a program reaches, and trace the kernels one call runs, key by key. Every answer is
compared with torch doing the same through its built-in ops:

- Task 2.5: a custom op with the high-level API (``torch.library.custom_op``,
  ``register_fake``, ``register_autograd``), compared with ``aten::linear``.
- Task 2.6: the same machinery one level down: ``torch.library.Library`` with one kernel per
  dispatch key (CPU, Meta, Autograd), compared with ``aten::mul.Tensor``.
- Task 2.7: a ``TorchDispatchMode`` that records the aten ops a program reaches, compared with
  torch's own ``LoggingTensorMode``; and a boxed fallback on a spare key that sees every op
  called, compared with torch's profiler.
- Task 2.8: the chain of kernels one call runs, computed from torch's introspection (key
  sets, thread-local sets, the computed dispatch table), with the file each kernel lives in.

Where PyTorch does this: ``torch/library.py`` and ``torch/_library/custom_ops.py`` (the
Python registration API), ``torch/utils/_python_dispatch.py`` (``TorchDispatchMode``),
``aten/src/ATen/core/dispatch/Dispatcher.h`` and ``OperatorEntry.cpp`` (the table),
``c10/core/DispatchKeySet.h`` (key sets and ``after_autograd_keyset``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import torch
from torch.library import Library
from torch.utils._python_dispatch import TorchDispatchMode

# A Library unregisters its kernels when it is garbage collected: keep each one alive.
_LIBRARIES: list[Library] = []


# ---- Task 2.5: a custom op, the high-level way ---------------------------------------------


def make_linear(qualname: str) -> Callable[..., torch.Tensor]:
    """Task 2.5: register ``qualname`` ("ns::name") as ``linear(x, w, b=None) = x @ w.T + b``.

    Use ``torch.library.custom_op`` (``torch/_library/custom_ops.py``): the schema is read from
    the type hints, so ``b: torch.Tensor | None = None`` becomes ``Tensor? b=None``. Then:

    - ``register_fake``: the output's shape, dtype and device without computing anything. Fake
      tensors (``torch.compile``) and the meta device use it; without it ``opcheck`` fails.
    - ``register_autograd``: ``setup_context`` saves what the backward needs, ``backward``
      returns one gradient per input (None for ``b`` when there is none).

    Return the op (calling it runs it). It must match ``aten::linear``: values, gradients,
    meta shapes, ``torch.library.opcheck`` and ``torch.compile(backend="eager")``.
    """

    raise NotImplementedError("make_linear (Task 2.5)")


# ---- Task 2.6: one kernel per dispatch key --------------------------------------------------


def make_mul(ns: str) -> torch._ops.OpOverload:
    """Task 2.6: define ``ns::mul(Tensor a, Tensor b) -> Tensor`` with ``Library(ns, "DEF")``
    and give it three kernels with ``Library.impl``, one per key:

    - ``CPU``: the computation (``torch.mul`` is allowed: below Autograd it reaches aten's).
    - ``Meta``: only the result's shape (broadcast) and dtype (type promotion), on "meta".
    - ``Autograd`` (the alias: every AutogradX key): a ``torch.autograd.Function`` whose
      forward redispatches below autograd (``torch._C._AutoDispatchBelowAutograd``), the way
      a VariableType kernel does (``torch/csrc/autograd/generated/VariableType*.cpp``). Its
      backward need not undo broadcasting: the engine sums each gradient back to its
      input's shape (``validate_outputs`` in ``torch/csrc/autograd/engine.cpp``).

    Keep the Library alive (``_LIBRARIES``) and return ``torch.ops.<ns>.mul.default``. Its
    computed table must look like ``aten::mul.Tensor``'s on CPU, Meta and AutogradCPU.
    """
    raise NotImplementedError("make_mul (Task 2.6)")


# ---- Task 2.7: the aten ops a program reaches -------------------------------------------------


class RecordingMode(TorchDispatchMode):
    """Task 2.7: a ``TorchDispatchMode`` (``torch/utils/_python_dispatch.py``) that appends
    the name of every op it sees to ``self.ops`` ("aten.add.Tensor": ``str(func)``) and then
    runs it.

    While the mode is on, the dispatcher's Python key is in the thread-local include set, so
    every call that gets that far down (below Autograd: after CompositeImplicitAutograd ops
    like ``linear`` have decomposed) lands in ``__torch_dispatch__``; the backward pass's ops
    too, since the engine calls them on this thread.
    """

    def __init__(self) -> None:
        super().__init__()
        self.ops: list[str] = []

    def __torch_dispatch__(
        self, func: Any, types: Any, args: tuple = (), kwargs: dict | None = None
    ) -> Any:
        raise NotImplementedError("RecordingMode.__torch_dispatch__ (Task 2.7)")


def record_aten_ops(fn: Callable[[], Any]) -> list[str]:
    """Task 2.7: run ``fn()`` under a ``RecordingMode`` and return the ops it recorded."""
    raise NotImplementedError("record_aten_ops (Task 2.7)")


def record_with_fallback(fn: Callable[[], Any], key: str = "AutocastHPU") -> list[str]:
    """Task 2.7: run ``fn()`` with a boxed fallback registered for the spare dispatch key
    ``key`` and switched on for this thread; return the names of the ops that reached it
    ("aten::add"), in order. Afterwards the key is off again and the fallback is gone.

    A fallback (``Library("_", "IMPL").fallback``, ``torch/library.py``; in C++
    ``TORCH_LIBRARY_IMPL(_, Key, m) { m.fallback(...) }``, ``Dispatcher::registerFallback``)
    is one *boxed* kernel for every op at one key: it gets the op and its arguments as a
    stack, whatever the op's signature. It is how a new backend falls back to the CPU for
    ops it lacks. ``AutocastHPU`` is spare here (no HPU on this machine), and like every
    autocast key it starts in the thread-local *exclude* set
    (``c10/core/impl/LocalDispatchKeySet.h``): taking it out and including it puts it in
    every call's key set, above Autograd, so the fallback sees each op the program calls,
    and the ops that composite kernels and the backward pass call in turn.
    """
    raise NotImplementedError("record_with_fallback (Task 2.7)")


# ---- Task 2.8: the kernels one call runs -----------------------------------------------------


def kernel_file(registered_at: str) -> str:
    """Task 2.8: the source file in a table line's "registered at ..." text, from PyTorch's
    top folder: ``/__w/pytorch/pytorch/build/aten/src/ATen/RegisterCPU_0.cpp:1297`` gives
    ``aten/src/ATen/RegisterCPU_0.cpp``, a kernel in ``site-packages/torch/x.py:5`` gives
    ``torch/x.py``. Anything else (your own file) gives its file name.
    """
    raise NotImplementedError("kernel_file (Task 2.8)")


def computed_table(qualname: str) -> dict[str, tuple[str, str]]:
    """Task 2.8: ``{key name: (kind, file)}`` from ``torch._C._dispatch_dump_table(qualname)``.

    Each line reads ``AutogradCPU: registered at <file>:<line> [autograd kernel]``; a
    fallthrough reads ``ADInplaceOrView: fallthrough registered at ... [backend fallback]``
    and its kind is ``"fallthrough"``.
    """
    raise NotImplementedError("computed_table (Task 2.8)")


def dispatch_key_set(*args: Any) -> torch._C.DispatchKeySet:
    """Task 2.8: the key set a call with ``args`` dispatches on (``Dispatcher.h``,
    ``DispatchKeyExtractor``): the union of the tensor arguments' key sets, plus the
    thread-local include set, minus the thread-local exclude set
    (``torch._C._dispatch_tls_local_include_set`` / ``..._exclude_set``)."""
    raise NotImplementedError("dispatch_key_set (Task 2.8)")


def trace_call(qualname: str, *args: Any) -> list[dict[str, str]]:
    """Task 2.8: the kernels a call of ``qualname`` with ``args`` runs, in order, as
    ``{"key", "kernel", "file"}`` (the kind and file from ``computed_table``).

    Start from ``dispatch_key_set(*args)`` and repeat: take the highest-priority key; a
    fallthrough entry is skipped by removing that key; a real kernel runs. After an
    ``autograd kernel`` the call goes on below autograd (the set ``&``
    ``torch._C._after_autograd_keyset``: what VariableType's redispatch does); after an
    ADInplaceOrView kernel below it (``torch._C._after_ADInplaceOrView_keyset``). Any other
    kernel (a backend's, a composite one) is the last: it computes the result. A key with no
    entry raises ``NotImplementedError`` naming the operator and the key, as torch does.
    """
    raise NotImplementedError("trace_call (Task 2.8)")
