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

    ### BEGIN SOLUTION
    @torch.library.custom_op(qualname, mutates_args=())
    def linear(x: torch.Tensor, w: torch.Tensor, b: torch.Tensor | None = None) -> torch.Tensor:
        out = x @ w.t()  # a new tensor: a custom op may not return a view of its input
        return out if b is None else out + b

    @linear.register_fake
    def _(x: torch.Tensor, w: torch.Tensor, b: torch.Tensor | None = None) -> torch.Tensor:
        return x.new_empty((*x.shape[:-1], w.shape[0]))

    def setup_context(ctx: Any, inputs: tuple, output: torch.Tensor) -> None:
        x, w, b = inputs
        ctx.save_for_backward(x, w)
        ctx.has_bias = b is not None

    def backward(ctx: Any, grad: torch.Tensor) -> tuple:
        x, w = ctx.saved_tensors
        rows = grad.reshape(-1, grad.shape[-1])  # every leading dimension is a batch
        grad_w = rows.t() @ x.reshape(-1, x.shape[-1])
        return grad @ w, grad_w, rows.sum(0) if ctx.has_bias else None

    linear.register_autograd(backward, setup_context=setup_context)
    return linear
    ### END SOLUTION


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
    ### BEGIN SOLUTION
    lib = Library(ns, "DEF")
    _LIBRARIES.append(lib)
    lib.define("mul(Tensor a, Tensor b) -> Tensor")
    op = getattr(torch.ops, ns).mul.default

    def mul_cpu(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        return torch.mul(a, b)

    def mul_meta(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        shape = torch.broadcast_shapes(a.shape, b.shape)
        return torch.empty(shape, dtype=torch.result_type(a, b), device="meta")

    class MulFunction(torch.autograd.Function):
        @staticmethod
        def forward(ctx: Any, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
            ctx.save_for_backward(a, b)
            with torch._C._AutoDispatchBelowAutograd():  # the next kernel is the backend's
                return op(a, b)

        @staticmethod
        def backward(ctx: Any, grad: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
            a, b = ctx.saved_tensors
            return grad * b, grad * a  # broadcast shapes: the engine sums them back

    lib.impl("mul", mul_cpu, "CPU")
    lib.impl("mul", mul_meta, "Meta")
    lib.impl("mul", MulFunction.apply, "Autograd")
    return op
    ### END SOLUTION


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
        ### BEGIN SOLUTION
        self.ops.append(str(func))
        return func(*args, **(kwargs or {}))  # the mode is off in here: no recursion
        ### END SOLUTION


def record_aten_ops(fn: Callable[[], Any]) -> list[str]:
    """Task 2.7: run ``fn()`` under a ``RecordingMode`` and return the ops it recorded."""
    ### BEGIN SOLUTION
    with RecordingMode() as mode:
        fn()
    return mode.ops
    ### END SOLUTION


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
    ### BEGIN SOLUTION
    dk = getattr(torch._C.DispatchKey, key)
    seen: list[str] = []

    def fallback(keyset: torch._C.DispatchKeySet, op: Any, *args: Any, **kwargs: Any) -> Any:
        seen.append(op._schema.name)
        # Go on below this key: the same call, minus the key (else it lands here again).
        return op.redispatch(keyset.remove(dk), *args, **kwargs)

    lib = Library("_", "IMPL")
    lib.fallback(fallback, key, with_keyset=True)
    was_excluded = torch._C._dispatch_tls_is_dispatch_key_excluded(dk)
    torch._C._dispatch_tls_set_dispatch_key_excluded(dk, False)
    try:
        with torch._C._IncludeDispatchKeyGuard(dk):
            fn()
    finally:
        torch._C._dispatch_tls_set_dispatch_key_excluded(dk, was_excluded)
        lib._destroy()  # unregister now: a second fallback for the key would be refused
    return seen
    ### END SOLUTION


# ---- Task 2.8: the kernels one call runs -----------------------------------------------------


def kernel_file(registered_at: str) -> str:
    """Task 2.8: the source file in a table line's "registered at ..." text, from PyTorch's
    top folder: ``/__w/pytorch/pytorch/build/aten/src/ATen/RegisterCPU_0.cpp:1297`` gives
    ``aten/src/ATen/RegisterCPU_0.cpp``, a kernel in ``site-packages/torch/x.py:5`` gives
    ``torch/x.py``. Anything else (your own file) gives its file name.
    """
    ### BEGIN SOLUTION
    path = registered_at.split(" registered at ", 1)[-1].strip().rsplit(":", 1)[0]
    starts = [i for i in (path.find(f"/{top}/") for top in ("aten", "torch", "c10")) if i >= 0]
    return path[min(starts) + 1 :] if starts else path.rsplit("/", 1)[-1]
    ### END SOLUTION


def computed_table(qualname: str) -> dict[str, tuple[str, str]]:
    """Task 2.8: ``{key name: (kind, file)}`` from ``torch._C._dispatch_dump_table(qualname)``.

    Each line reads ``AutogradCPU: registered at <file>:<line> [autograd kernel]``; a
    fallthrough reads ``ADInplaceOrView: fallthrough registered at ... [backend fallback]``
    and its kind is ``"fallthrough"``.
    """
    ### BEGIN SOLUTION
    table = {}
    for line in torch._C._dispatch_dump_table(qualname).splitlines():
        key, _, rest = line.partition(": ")
        if not rest:
            continue
        kind = rest[rest.rindex("[") + 1 : rest.rindex("]")]
        if rest.startswith("fallthrough"):
            kind = "fallthrough"
        table[key] = (kind, kernel_file(rest[: rest.rindex("[")]))
    return table
    ### END SOLUTION


def dispatch_key_set(*args: Any) -> torch._C.DispatchKeySet:
    """Task 2.8: the key set a call with ``args`` dispatches on (``Dispatcher.h``,
    ``DispatchKeyExtractor``): the union of the tensor arguments' key sets, plus the
    thread-local include set, minus the thread-local exclude set
    (``torch._C._dispatch_tls_local_include_set`` / ``..._exclude_set``)."""
    ### BEGIN SOLUTION
    ks = torch._C._dispatch_tls_local_include_set()
    for arg in args:
        if isinstance(arg, torch.Tensor):
            ks = ks | torch._C._dispatch_keys(arg)
    return ks - torch._C._dispatch_tls_local_exclude_set()
    ### END SOLUTION


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
    ### BEGIN SOLUTION
    table = computed_table(qualname)
    ks = dispatch_key_set(*args)
    chain: list[dict[str, str]] = []
    while True:
        key = ks.highestPriorityTypeId().name
        if key not in table:
            raise NotImplementedError(
                f"Could not run '{qualname}' with arguments from the '{key}' backend"
            )
        kind, file = table[key]
        if kind == "fallthrough":
            ks = ks.remove(ks.highestPriorityTypeId())
            continue
        chain.append({"key": key, "kernel": kind, "file": file})
        if kind == "autograd kernel":
            ks = ks & torch._C._after_autograd_keyset
        elif key == "ADInplaceOrView":
            ks = ks & torch._C._after_ADInplaceOrView_keyset
        else:
            return chain
    ### END SOLUTION
