"""Week 3: reverse-mode autograd, built the way PyTorch's engine is built.

Every differentiable op run with grad mode on records a *Node* (torch/csrc/autograd/function.h):
the backward formula of that op, holding the tensors it needs (*SavedVariables*) and one *Edge*
per input, pointing at the node that produced that input (``next_functions``). A leaf that
requires grad is reached through its ``AccumulateGrad`` node, which adds into ``.grad``.
``backward()`` hands the graph to the *engine* (torch/csrc/autograd/engine.cpp), which

1. counts, for every node, how many edges point at it (``compute_dependencies``);
2. runs nodes from a ready queue, a heap that pops the node of HIGHEST ``sequence_nr`` first
   (``ReadyQueue::CompareNodeTaskTime``): the node created last runs first;
3. adds the gradients arriving for one node input in an *input buffer* (input_buffer.cpp), and
   queues the node when its dependency count drops to zero.

The backward formulas are written with this module's own Tensor ops, so with
``create_graph=True`` the backward pass records a graph too: second derivatives for free.

Where it does not model torch it raises NotImplementedError naming what torch does (an
inference tensor used outside inference_mode, a backward inside it, create_graph through an
in-place write on a view); everything else is checked against torch 2.13 on random programs
(``python -m autograder.differential week3``).

This module must never import torch. Its names mirror torch's, and the namespaces ``autograd``,
``nn``, ``optim`` and ``utils`` at the bottom let the same code run against it and torch.

The exercises ("Task 3.x" in a docstring; each may span several functions):
  3.1 tensors and leaves: tensor, zeros, ones, Tensor.requires_grad, Tensor.detach,
      is_grad_enabled, set_grad_enabled, no_grad, enable_grad, inference_mode
  3.2 ops and their backward nodes: collect_next_edges, set_history, Node.save,
      SavedVariable (store or pack, unpack with its version check), sum_to, add, sub, rsub,
      mul, div, neg, pow, exp, log, tanh, relu, sigmoid, sin, cos, mm, addmm, sum, mean, view,
      reshape, t, transpose, expand, unsqueeze, squeeze, select, slice, clone, to (each op with
      the ``apply`` of its backward node)
  3.3 the engine: GraphTask.compute_dependencies, GraphTask.init_to_execute, InputBuffer.add,
      validate_outputs, call_function, evaluate_function, execute, AccumulateGrad.apply,
      run_backward, backward, grad
  3.4 what makes it torch: modified_in_place_error (the version check's message),
      check_inplace, add_, mul_, zero_, copy_, squeeze_, rebase_history (CopySlices for a
      write through a view), view_grad_fn and handle_view_on_rebase (a view whose base was
      written), Tensor.register_hook, Tensor.retain_grad, Node.register_hook /
      register_prehook, Tensor.register_post_accumulate_grad_hook
  3.5 autograd.Function (apply, BackwardCFunction.apply, saved_tensors) and gradcheck
  3.6 saved_tensors_hooks and checkpoint (non-reentrant and reentrant)
  3.7 Module (__setattr__, named_parameters, state_dict, load_state_dict, train, zero_grad),
      Parameter, Linear, ReLU, Tanh, Sequential
  3.8 Optimizer, SGD.step, Adam.step
"""

from __future__ import annotations

import builtins
import functools
import heapq
import itertools
import math
import re
import threading
import types
import warnings
from collections import OrderedDict, defaultdict, namedtuple
from collections.abc import Callable, Iterator, Sequence
from typing import Any, NamedTuple

import numpy as np

# === Given: dtypes, Size and type promotion (c10/core/ScalarType.h) ==============================


class DType:
    """A scalar type. ``str()`` ends in torch's name: "autograd.float32"."""

    def __init__(self, name: str, np_dtype: type, legacy_name: str) -> None:
        self.name = name
        self.np = np.dtype(np_dtype)
        self.legacy_name = legacy_name  # torch's old name, used in error messages: "Float"
        self.is_floating_point = self.np.kind == "f"

    def __repr__(self) -> str:
        return f"autograd.{self.name}"


float32 = DType("float32", np.float32, "Float")
float64 = DType("float64", np.float64, "Double")
int64 = DType("int64", np.int64, "Long")
bool = DType("bool", np.bool_, "Bool")  # torch.bool: from here on, Python's is builtins.bool
_PROMOTION = (bool, int64, float32, float64)  # for these four, promoteTypes(a, b) is the later
_BY_NP = {d.np: d for d in _PROMOTION}
_INT64_MAX = 2**63 - 1


def _dtype_of(array: np.ndarray) -> DType:
    return _BY_NP[array.dtype]


def _promote(a: DType | None, b: DType | None) -> DType | None:
    if a is None or b is None:
        return a or b
    return max(a, b, key=_PROMOTION.index)


def _combine_categories(higher: DType | None, lower: DType | None) -> DType | None:
    """aten/src/ATen/native/TypeProperties.cpp: a lower tier only wins across a category."""
    if higher is None:
        return lower
    if higher.is_floating_point:
        return higher
    if higher is bool or (lower is not None and lower.is_floating_point):
        return _promote(higher, lower)
    return higher


# The C++ names torch's matmul errors use (c10::toString of the scalar type's C type).
_C_NAME = {float32: "float", float64: "double", int64: "long int", bool: "bool"}


def result_type(*operands: Tensor) -> DType:
    """torch.result_type: tensors with dims > 0-dim tensors > wrapped Python numbers.

    A wrapped Python float counts as the default dtype (float32), so ``float32_t * 2.5`` stays
    float32 and ``int64_t * 2.5`` becomes float32, as in torch.
    """
    tiers: list[DType | None] = [None, None, None]  # dim, zero-dim, wrapped number
    for t in operands:
        dt = t.dtype
        if t._is_wrapped_number:
            dt = float32 if dt.is_floating_point else dt
            tiers[2] = _promote(tiers[2], dt)
        else:
            tiers[0 if t.dim() else 1] = _promote(tiers[0 if t.dim() else 1], dt)
    return _combine_categories(tiers[0], _combine_categories(tiers[1], tiers[2]))


class Size(tuple):
    """torch.Size: a tuple of ints."""

    def __repr__(self) -> str:
        return f"autograd.Size({list(self)})"


def _format_size(shape: Sequence[int]) -> str:
    return "[" + ", ".join(str(s) for s in shape) + "]"


# === Task 3.1: tensors, leaves and grad mode ======================================================


class _ThreadState(threading.local):
    """Thread-local state, as torch keeps it: grad mode (c10/core/GradMode.h) and the stack of
    default saved-tensor hooks (torch/csrc/autograd/saved_variable_hooks.h)."""

    def __init__(self) -> None:
        self.grad_enabled = True
        self.inference_mode = False  # c10/core/InferenceMode.h: AutogradState's inference_mode
        self.graph_tasks: list = []  # the backward passes running, innermost last
        self.saved_tensors_hooks: list[tuple[Callable, Callable]] = []


_state = _ThreadState()


def is_grad_enabled() -> bool:
    """Task 3.1: is grad mode on in this thread? (torch.is_grad_enabled, GradMode::is_enabled)."""
    ### BEGIN SOLUTION
    return _state.grad_enabled
    ### END SOLUTION


class _GradModeContext:
    """A context manager that is also a decorator
    (torch/autograd/grad_mode.py: _DecoratorContextManager)."""

    mode: builtins.bool = True

    def __enter__(self) -> None:
        """Task 3.1: remember the old mode, set ``self.mode``."""
        ### BEGIN SOLUTION
        self.prev = _state.grad_enabled
        _state.grad_enabled = self.mode
        ### END SOLUTION

    def __exit__(self, *exc: object) -> None:
        """Task 3.1: restore the mode saved by ``__enter__``."""
        ### BEGIN SOLUTION
        _state.grad_enabled = self.prev
        ### END SOLUTION

    def __call__(self, fn: Callable) -> Callable:
        """As a decorator: run ``fn`` with this mode, a fresh context per call."""
        mode = self.mode

        @functools.wraps(fn)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            with set_grad_enabled(mode):
                return fn(*args, **kwargs)

        return wrapper


class no_grad(_GradModeContext):
    """torch.no_grad: ops inside record no graph."""

    mode = False


class enable_grad(_GradModeContext):
    """torch.enable_grad: ops inside record a graph, even under no_grad."""

    mode = True


class set_grad_enabled(_GradModeContext):
    """torch.set_grad_enabled(mode): sets the mode AT ONCE (in ``__init__``, as torch does, so
    it also works as a plain call); as a context manager it restores the old mode on exit."""

    def __init__(self, mode: builtins.bool) -> None:
        """Task 3.1: set grad mode now, remembering the old one for ``__exit__``."""
        ### BEGIN SOLUTION
        self.prev = _state.grad_enabled
        self.mode = builtins.bool(mode)
        _state.grad_enabled = self.mode
        ### END SOLUTION

    def __enter__(self) -> None:
        pass  # the mode was set by __init__

    def __call__(self, fn: Callable) -> Callable:
        _state.grad_enabled = self.prev  # as a decorator it must not change the mode now
        return super().__call__(fn)


class inference_mode:
    """torch.inference_mode(mode=True): no_grad and more (c10/core/InferenceMode.h). Grad mode is
    off, nothing is recorded even under enable_grad, and every tensor made inside is an
    *inference tensor*: no version counter, never saved for backward, never changed in place
    outside inference mode. A view of a normal tensor stays normal."""

    def __init__(self, mode: builtins.bool = True) -> None:
        self.mode = builtins.bool(mode)

    def __enter__(self) -> None:
        """Task 3.1: remember grad mode and inference mode, then set both as InferenceMode's
        constructor does: ``AutogradState(grad_mode=!enabled, inference_mode=enabled)``."""
        ### BEGIN SOLUTION
        self.prev = (_state.grad_enabled, _state.inference_mode)
        _state.grad_enabled, _state.inference_mode = not self.mode, self.mode
        ### END SOLUTION

    def __exit__(self, *exc: object) -> None:
        """Task 3.1: restore both."""
        ### BEGIN SOLUTION
        _state.grad_enabled, _state.inference_mode = self.prev
        ### END SOLUTION


def is_inference_mode_enabled() -> builtins.bool:
    return _state.inference_mode


def _not_differentiable_dtype_error() -> RuntimeError:
    return RuntimeError("only Tensors of floating point dtype can require gradients")


def _operator(method: Callable) -> Callable:
    """A Python operator of Tensor: for an operand that is neither a tensor nor a number it
    returns NotImplemented, so Python raises its own TypeError ("unsupported operand type(s)
    for +: 'Tensor' and 'NoneType'"), as it does for torch's tensors."""

    @functools.wraps(method)
    def operator(self: Tensor, other: Any) -> Any:
        if not isinstance(other, Tensor | int | builtins.float):
            return NotImplemented
        return method(self, other)

    return operator


class Tensor:
    """A NumPy array plus the autograd metadata torch keeps (torch/csrc/autograd/variable.h:
    AutogradMeta): requires_grad, grad, grad_fn and output_nr, the version counter, hooks."""

    def __init__(self, array: np.ndarray, requires_grad: builtins.bool = False) -> None:
        self._array = array
        self.grad: Tensor | None = None
        self._grad_fn: Node | None = None  # read through the grad_fn property
        self.output_nr = 0  # which output of grad_fn this tensor is
        self._requires_grad = False  # only meaningful on leaves
        self._version_counter = [0]  # shared by views and detach(), like torch's VariableVersion
        self._base: Tensor | None = None  # set on differentiable views: the ROOT base
        # A view's DifferentiableViewMeta (torch/csrc/autograd/variable.h): how to make it
        # again from its base (for CopySlices and AsStridedBackward0), the mode it was made in,
        # and the version its grad_fn was set at (attr_version).
        self._view_fn: Callable[[np.ndarray], np.ndarray] | None = None
        self._creation_meta = "DEFAULT"
        self._attr_version = 0
        # Made inside inference_mode (c10/core/InferenceMode.h): no version counter, no graph.
        self._is_inference = _state.inference_mode
        self._is_wrapped_number = False  # a Python scalar wrapped as a 0-dim tensor
        self._backward_hooks: dict[int, Callable] = {}  # tensor hooks of a leaf
        self._post_accumulate_grad_hooks: dict[int, Callable] = {}
        self._grad_accumulator: AccumulateGrad | None = None  # cached, one per leaf
        self._retains_grad = False
        if requires_grad and not self.dtype.is_floating_point:
            # A factory's own wording (torch/csrc/autograd/variable.cpp), not the setter's.
            raise RuntimeError(
                "Only Tensors of floating point and complex dtype can require gradients"
            )
        if requires_grad:
            self.requires_grad = True

    # --- plumbing -----------------------------------------------------------------------------
    @property
    def shape(self) -> Size:
        return Size(self._array.shape)

    def size(self, dim: int | None = None) -> Size | int:
        return self.shape if dim is None else self.shape[dim]

    @property
    def dtype(self) -> DType:
        return _dtype_of(self._array)

    @property
    def data(self) -> Tensor:
        return self.detach()

    @property
    def grad_fn(self) -> Node | None:
        """The node that made this tensor. A view whose base (or another view of it) was
        changed in place since its grad_fn was set gets a new one first
        (variable.cpp: VariableHooks::grad_fn, written in Task 3.4 as ``view_grad_fn``)."""
        if self._base is None or self._attr_version == self._version_counter[0]:
            return self._grad_fn
        return view_grad_fn(self)

    @grad_fn.setter
    def grad_fn(self, node: Node | None) -> None:
        # variable.cpp set_gradient_edge: a view's grad_fn is now up to date with its version
        self._grad_fn = node
        self._attr_version = self._version_counter[0]

    @property
    def is_leaf(self) -> builtins.bool:
        return self.grad_fn is None

    @property
    def _version(self) -> int:
        if self._is_inference:
            raise RuntimeError("Inference tensors do not track version counter.")
        return self._version_counter[0]

    def _bump_version(self) -> None:
        """An in-place write happened (c10/core/TensorImpl.h: VariableVersion::bump)."""
        if self._is_inference:  # no counter to bump; outside inference_mode, no writes
            if not _state.inference_mode:
                raise RuntimeError(
                    "Inplace update to inference tensor outside InferenceMode is not allowed."
                    "You can make a clone to get a normal tensor before doing inplace update."
                    "See https://github.com/pytorch/rfcs/pull/17 for more details."
                )
            return
        self._version_counter[0] += 1

    def is_inference(self) -> builtins.bool:
        return self._is_inference

    @property
    def retains_grad(self) -> builtins.bool:
        return self._retains_grad

    def dim(self) -> int:
        return self._array.ndim

    def numel(self) -> int:
        return int(self._array.size)

    def tolist(self) -> Any:
        return self._array.tolist()

    def item(self) -> builtins.float | int | builtins.bool:
        if self._array.size != 1:
            raise RuntimeError(
                f"a Tensor with {self._array.size} elements cannot be converted to Scalar"
            )
        return self._array.reshape(()).item()

    def __float__(self) -> builtins.float:
        return builtins.float(self.item())

    def __int__(self) -> int:
        return int(self.item())

    def numpy(self) -> np.ndarray:
        return self._array

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        return self._array if dtype is None else self._array.astype(dtype)

    def __len__(self) -> int:
        return self.shape[0]

    def __repr__(self) -> str:
        extra = ""
        if self.grad_fn is not None:
            extra = f", grad_fn=<{self.grad_fn.name()}>"
        elif self.requires_grad:
            extra = ", requires_grad=True"
        return f"tensor({self._array!r}{extra})"

    # --- Task 3.1 -----------------------------------------------------------------------------
    @property
    def requires_grad(self) -> builtins.bool:
        """Task 3.1: a leaf's own flag; a non-leaf requires grad because it has a grad_fn; a
        view made under no_grad has neither, and requires grad if its base does
        (variable.h: DifferentiableViewMeta::requires_grad)."""
        ### BEGIN SOLUTION
        if self._requires_grad or self._grad_fn is not None:
            return True
        return self._base is not None and self._base.requires_grad
        ### END SOLUTION

    @requires_grad.setter
    def requires_grad(self, value: builtins.bool) -> None:
        """Task 3.1: only leaves may change the flag (torch/csrc/autograd/python_variable.cpp:
        THPVariable_set_requires_grad), and only floating point tensors can require grad."""
        ### BEGIN SOLUTION
        if self._grad_fn is not None:  # C++ is_leaf(): a stale view's grad_fn is not remade
            raise RuntimeError(
                "you can only change requires_grad flags of leaf variables. If you want to use "
                "a computed variable in a subgraph that doesn't require differentiation use "
                "var_no_grad = var.detach()."
            )
        if value and not self.dtype.is_floating_point:
            raise _not_differentiable_dtype_error()
        if value and self._is_inference and not _state.inference_mode:
            raise RuntimeError(
                "Setting requires_grad=True on inference tensor outside InferenceMode is not "
                "allowed."
            )
        self._requires_grad = builtins.bool(value)
        ### END SOLUTION

    def requires_grad_(self, requires_grad: builtins.bool = True) -> Tensor:
        """Unlike the property, asking a non-leaf for True is no error: it requires grad
        already (variable.cpp: VariableHooks::requires_grad_; C++'s is_leaf reads grad_fn as
        it is, without remaking a stale view's)."""
        if requires_grad and self._grad_fn is not None:
            return self
        self.requires_grad = requires_grad
        return self

    def detach(self) -> Tensor:
        """Task 3.1: a new leaf sharing the data AND the version counter, with no history
        (torch: Tensor.detach is a view that is not differentiable)."""
        _refuse_inference_inputs(self)
        ### BEGIN SOLUTION
        out = Tensor(self._array)
        out._version_counter = self._version_counter
        out._is_inference = self._is_inference  # a view: an inference tensor's is one too
        return out
        ### END SOLUTION

    # --- ops: thin methods over the functions of Task 3.2 and 3.4 -------------------------------
    @_operator
    def __add__(self, other: Any) -> Tensor:
        return add(self, other)

    @_operator
    def __radd__(self, other: Any) -> Tensor:
        return add(self, other)

    @_operator
    def __sub__(self, other: Any) -> Tensor:
        return sub(self, other)

    @_operator
    def __rsub__(self, other: Any) -> Tensor:
        return rsub(self, other)

    @_operator
    def __mul__(self, other: Any) -> Tensor:
        return mul(self, other)

    @_operator
    def __rmul__(self, other: Any) -> Tensor:
        return mul(self, other)

    @_operator
    def __truediv__(self, other: Any) -> Tensor:
        return div(self, other)

    def __rtruediv__(self, other: Any) -> Tensor:
        # torch/_tensor.py __rtruediv__: ``self.reciprocal() * other``; the reciprocal is
        # computed (and its result saved) before a bad ``other`` makes it NotImplemented
        r = reciprocal(self)
        if not isinstance(other, Tensor | int | builtins.float):
            return NotImplemented
        return mul(r, other)

    def __neg__(self) -> Tensor:
        return neg(self)

    @_operator
    def __pow__(self, exponent: Any) -> Tensor:
        return pow(self, exponent)

    @_operator
    def __rpow__(self, base: Any) -> Tensor:
        return pow(base, self)

    @_operator
    def __matmul__(self, other: Tensor) -> Tensor:
        return mm(self, other)

    add = __add__
    sub = __sub__
    mul = __mul__
    div = __truediv__
    neg = __neg__

    def pow(self, exponent: Any) -> Tensor:
        return pow(self, exponent)

    def matmul(self, other: Tensor) -> Tensor:
        return mm(self, other)

    def mm(self, other: Tensor) -> Tensor:
        return mm(self, other)

    def exp(self) -> Tensor:
        return exp(self)

    def log(self) -> Tensor:
        return log(self)

    def tanh(self) -> Tensor:
        return tanh(self)

    def relu(self) -> Tensor:
        return relu(self)

    def sigmoid(self) -> Tensor:
        return sigmoid(self)

    def sin(self) -> Tensor:
        return sin(self)

    def cos(self) -> Tensor:
        return cos(self)

    def reciprocal(self) -> Tensor:
        return reciprocal(self)

    def sum(self, dim: int | Sequence[int] | None = None, keepdim: builtins.bool = False) -> Tensor:
        return sum(self, dim, keepdim)

    def mean(
        self, dim: int | Sequence[int] | None = None, keepdim: builtins.bool = False
    ) -> Tensor:
        return mean(self, dim, keepdim)

    def reshape(self, *shape: Any) -> Tensor:
        return reshape(self, _shape_arg(shape, "reshape"))

    def view(self, *shape: Any) -> Tensor:
        return view(self, _shape_arg(shape, "view"))

    def t(self) -> Tensor:
        return t(self)

    def transpose(self, dim0: int, dim1: int) -> Tensor:
        return transpose(self, dim0, dim1)

    def expand(self, *sizes: Any) -> Tensor:
        return expand(self, _shape_arg(sizes, "expand"))

    def __getitem__(self, key: Any) -> Tensor:
        return getitem(self, key)

    def clone(self) -> Tensor:
        return clone(self)

    def to(self, dtype: DType) -> Tensor:
        return to(self, dtype)

    def float(self) -> Tensor:
        return to(self, float32)

    def double(self) -> Tensor:
        return to(self, float64)

    def add_(self, other: Any, alpha: builtins.float = 1) -> Tensor:
        return add_(self, other, alpha)

    def mul_(self, other: Any) -> Tensor:
        return mul_(self, other)

    def zero_(self) -> Tensor:
        return zero_(self)

    def copy_(self, src: Any) -> Tensor:
        return copy_(self, src)

    def backward(
        self,
        gradient: Tensor | None = None,
        retain_graph: builtins.bool | None = None,
        create_graph: builtins.bool = False,
        inputs: Sequence[Tensor] | None = None,
    ) -> None:
        grads = None if gradient is None else (gradient,)
        backward((self,), grads, retain_graph, create_graph, inputs)

    def register_hook(self, hook: Callable) -> RemovableHandle:
        return register_tensor_hook(self, _python_hook(hook))

    def register_post_accumulate_grad_hook(self, hook: Callable) -> RemovableHandle:
        return register_post_accumulate_grad_hook(self, _python_hook(hook, returns_none=True))

    def retain_grad(self) -> None:
        retain_grad(self)


# What Python's argument parser says to a method given no shape at all
# (torch/csrc/utils/python_arg_parser.cpp).
_NO_SHAPE = {
    "reshape": 'reshape() missing 1 required positional arguments: "shape"',
    "view": "view() received an invalid combination of arguments - got (), but expected one of:",
    "expand": 'expand() missing 1 required positional arguments: "size"',
}


def _shape_arg(shape: tuple, method: str | None = None) -> tuple[int, ...]:
    """``reshape(2, 3)`` and ``reshape((2, 3))`` mean the same (torch's IntArrayRef parsing);
    a ``method`` given no shape raises the parser's TypeError."""
    if not shape and method:
        raise TypeError(_NO_SHAPE[method])
    if len(shape) == 1 and isinstance(shape[0], tuple | list):
        return tuple(shape[0])
    return tuple(shape)


def _default_dtype_for(data: Any) -> np.dtype:
    """torch.tensor's inference: bools -> bool, ints -> int64, floats -> float32."""
    flat = np.asarray(data)
    if flat.dtype.kind == "b":
        return np.dtype(np.bool_)
    if flat.dtype.kind in "iu":
        return np.dtype(np.int64)
    return np.dtype(np.float32)


def tensor(data: Any, dtype: DType | None = None, requires_grad: builtins.bool = False) -> Tensor:
    """Task 3.1: torch.tensor: always a copy, a leaf; Python floats -> float32, ints -> int64,
    a NumPy array keeps its own dtype."""
    ### BEGIN SOLUTION
    if isinstance(data, Tensor):
        data = data._array
    if dtype is not None:
        np_dtype = dtype.np
    elif isinstance(data, np.ndarray) and data.dtype in _BY_NP:
        np_dtype = data.dtype
    else:
        np_dtype = _default_dtype_for(data)
    return Tensor(np.array(data, dtype=np_dtype), requires_grad=requires_grad)
    ### END SOLUTION


def _full(size: tuple, value: builtins.float, dtype: DType | None, requires_grad: builtins.bool):
    np_dtype = (dtype or float32).np
    return Tensor(np.full(_shape_arg(size), value, dtype=np_dtype), requires_grad=requires_grad)


def zeros(*size: Any, dtype: DType | None = None, requires_grad: builtins.bool = False) -> Tensor:
    """torch.zeros: a new leaf of the default dtype float32."""
    return _full(size, 0, dtype, requires_grad)


def ones(*size: Any, dtype: DType | None = None, requires_grad: builtins.bool = False) -> Tensor:
    """torch.ones: a new leaf of the default dtype float32."""
    return _full(size, 1, dtype, requires_grad)


def zeros_like(t: Tensor, dtype: DType | None = None) -> Tensor:
    return _full(t.shape, 0, dtype or t.dtype, False)


def ones_like(t: Tensor, dtype: DType | None = None) -> Tensor:
    return _full(t.shape, 1, dtype or t.dtype, False)


def _wrap(x: Any) -> Tensor:
    """A Python number as torch sees it in ``a * 2``: a 0-dim "wrapped number" tensor
    (int64 for ints, float64 for floats) that does not promote the other operand."""
    if isinstance(x, Tensor):
        return x
    if isinstance(x, builtins.bool):
        arr = np.array(x, dtype=np.bool_)
    elif isinstance(x, int):
        arr = np.array(x, dtype=np.int64)
    else:
        arr = np.array(x, dtype=np.float64)
    t = Tensor(arr)
    t._is_wrapped_number = True
    return t


# === Task 3.2: the graph (function.h) and the ops with their backward nodes ======================

Edge = namedtuple("Edge", ["function", "input_nr"])  # torch/csrc/autograd/edge.h
_sequence_nr = itertools.count()  # torch: a thread-local counter, bumped by each new Node
_UINT64_MAX = 2**64 - 1


class RemovableHandle:
    """torch/utils/hooks.py: RemovableHandle. ``remove()`` takes the hook out of its dict."""

    _ids = itertools.count()

    def __init__(self, hooks_dict: dict) -> None:
        self.hooks_dict = hooks_dict
        self.id = next(RemovableHandle._ids)

    def remove(self) -> None:
        self.hooks_dict.pop(self.id, None)


def _add_hook(hooks: dict, fn: Callable) -> RemovableHandle:
    handle = RemovableHandle(hooks)
    hooks[handle.id] = fn
    return handle


def _python_hook(fn: Callable, returns_none: builtins.bool = False) -> Callable:
    """``fn`` called as torch's C++ side calls a Python hook (torch/csrc/autograd/python_hook.cpp:
    _call_hooks): a result that is neither None nor the value itself (the first argument)
    replaces that value, so it must fit it (``_check_hook_result``). A post-accumulate-grad
    hook may replace nothing (PyFunctionTensorPostAccGradHooks: ``returns_none``)."""

    @functools.wraps(fn)
    def call(*args: Any) -> Any:
        result = fn(*args)
        if result is None or result is args[0]:
            return result
        _check_hook_result(args[0], result, getattr(fn, "__name__", "<unknown>"))
        if returns_none:
            raise RuntimeError("Tensor post accumulate grad hooks should return None.")
        return result

    return call


def _check_hook_result(value: Any, result: Any, name: str) -> None:
    """python_hook.cpp check_result: a tuple of gradients (a node hook's) for a tuple, as many,
    each checked; check_single_result: None keeps a gradient, a tensor replaces one (not a
    None) of the same dtype and size (check_variable_result)."""
    if isinstance(value, tuple):
        if not isinstance(result, tuple):
            raise TypeError(f"expected tuple, but hook returned '{type(result).__name__}'")
        if len(result) != len(value):
            raise RuntimeError(
                f"hook '{name}' has returned an incorrect number of values (got {len(result)}, "
                f"but expected {len(value)})"
            )
        for v, r in zip(value, result, strict=True):
            _check_hook_result(v, r, name)
    elif result is not None:
        if value is None:
            raise RuntimeError("can't replace a None gradient with a non-None value")
        if not isinstance(result, Tensor):
            raise TypeError(f"expected Variable, but hook returned '{type(result).__name__}'")
        if result.dtype is not value.dtype:
            raise RuntimeError(
                f"hook '{name}' has changed the type of value (was "
                f"torch.{value.dtype.legacy_name}Tensor got torch.{result.dtype.legacy_name}Tensor)"
            )
        if result.shape != value.shape:
            raise RuntimeError(f"hook '{name}' has changed the size of value")


class Node:
    """A backward function (torch/csrc/autograd/function.h). One Edge per input of the forward
    op (``next_functions``), one input per output of the forward op (``input_metadata``)."""

    def __init__(self, sequence_nr: int | None = None) -> None:
        self._seq = next(_sequence_nr) if sequence_nr is None else sequence_nr
        self._next_edges: list[Edge] = []
        self._input_metadata: list[tuple[Size, DType]] = []  # (shape, dtype) of each output
        self._saved: dict[str, Any] = {}  # name -> SavedVariable or a plain value
        self._unpacked: dict[str, Any] = {}  # while the node runs: its saved tensors, unpacked
        self._pre_hooks: dict[int, Callable] = {}
        self._post_hooks: dict[int, Callable] = {}
        self._tensor_pre_hooks: dict[int, dict[int, Callable]] = {}  # input_nr -> hooks
        self._retains_grad_hooks: dict[int, Callable] = {}  # input_nr -> hook
        self.metadata: dict = {}

    def name(self) -> str:
        return type(self).__name__

    def _sequence_nr(self) -> int:
        return self._seq

    @property
    def next_functions(self) -> tuple[tuple[Node | None, int], ...]:
        return tuple((e.function, e.input_nr) for e in self._next_edges)

    def num_inputs(self) -> int:
        return len(self._input_metadata)

    def should_compute_output(self, i: int) -> builtins.bool:
        """At forward time: does input i's edge go anywhere? (function.h: an input that
        requires grad may still have no edge: a view made under no_grad.) What to save
        depends on it."""
        return self._next_edges[i].function is not None

    def needs(self, i: int) -> builtins.bool:
        """Is output i (the gradient of forward input i) wanted? Its edge must go somewhere,
        and, when the running backward has ``inputs=`` (or is a ``grad()``), to a node that
        will run (function.h: task_should_compute_output)."""
        fn = self._next_edges[i].function
        if fn is None:
            return False
        tasks = _state.graph_tasks
        if tasks and tasks[-1].exec_info:
            info = tasks[-1].exec_info.get(fn)
            return info is not None and info.should_execute()
        return True

    def apply(self, grads: list[Tensor | None]) -> list[Tensor | None]:
        raise NotImplementedError(f"{self.name()} has no backward")

    def tensor_pre_hooks(self) -> list[tuple[int, dict[int, Callable]]]:
        """(input_nr, its hooks) for each tensor that registered hooks here, in the order the
        tensors registered their first one (Node::tensor_pre_hooks is one list)."""
        return list(self._tensor_pre_hooks.items())

    def save(self, name: str, value: Any, is_output: builtins.bool = False) -> None:
        """Task 3.2: keep ``value`` for backward, readable as ``_saved_<name>``. Tensors become
        SavedVariables (saved_variable.h): they remember the version they were saved at."""
        ### BEGIN SOLUTION
        if isinstance(value, Tensor):
            value = SavedVariable(value, is_output)
        self._saved[name] = value
        ### END SOLUTION

    def saved(self, name: str) -> Any:
        if name in self._unpacked:  # already unpacked for this run of the node
            return self._unpacked[name]
        value = self._saved[name]
        return value.unpack() if isinstance(value, SavedVariable) else value

    def __call__(self, grads: list[Tensor | None]) -> list[Tensor | None]:
        """Run the node as the engine does (Node::operator()). torch's generated ``apply``
        first unpacks every tensor the node saved, in the order it saved them, whether or not
        this run needs it, even if no gradient arrived: their checks (freed? changed in
        place?) and unpack hooks come first, and in that order. Then, if some gradient is
        defined, it computes only the outputs this backward needs (``needs``): the others are
        None, as a post-hook sees them."""
        if isinstance(self, GraphRoot | BackwardCFunction | AccumulateGrad):  # hand-written
            return self.apply(grads)
        self._unpacked = {
            name: value.unpack()
            for name, value in self._saved.items()
            if isinstance(value, SavedVariable)
        }
        run = any(g is not None for g in grads) and any(
            self.needs(i) for i in range(len(self._next_edges))
        )
        try:  # no gradient arrived (any_grad_defined), or none is wanted: no formula runs
            outputs = self.apply(grads) if run else []
        finally:
            self._unpacked = {}
        outputs = outputs or [None] * len(self._next_edges)
        return [g if self.needs(i) else None for i, g in enumerate(outputs)]

    def release_variables(self) -> None:
        """Free the saved tensors (Node::release_variables): backward without retain_graph."""
        for value in self._saved.values():
            if isinstance(value, SavedVariable):
                value.reset_data()

    def __getattr__(self, name: str) -> Any:
        saved = self.__dict__.get("_saved", {})
        if name.startswith("_saved_") and name[7:] in saved:
            return self.saved(name[7:])
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def register_hook(self, fn: Callable) -> RemovableHandle:
        """fn(grad_inputs, grad_outputs) after the node ran; may return new grad_inputs."""
        return _add_hook(self._post_hooks, _python_hook(fn))

    def register_prehook(self, fn: Callable) -> RemovableHandle:
        """fn(grad_outputs) before the node runs; may return new grad_outputs."""
        return _add_hook(self._pre_hooks, _python_hook(fn))

    def __repr__(self) -> str:
        return f"<{self.name()} object at {id(self):#x}>"


def _requires_grad(*xs: Any) -> builtins.bool:
    """Should an op record? Grad mode on, outside inference_mode (which excludes the Autograd
    dispatch keys, so even enable_grad inside it records nothing), and an input requires grad."""
    _refuse_inference_inputs(*xs)
    if _state.inference_mode or not is_grad_enabled():
        return False
    return any(isinstance(x, Tensor) and x.requires_grad for x in xs)


def _refuse_inference_inputs(*xs: Any) -> None:
    """Outside inference_mode, what an op does with an inference tensor depends on its kernel:
    an inference tensor has no Autograd dispatch key, so the op records a node only if another
    input brings the key (``a * 2`` records MulBackward0, ``a ** 2`` nothing, ``a.mean()`` of
    one that requires grad raises, ``a.sum(0)`` is at version 1). Not modelled: refused."""
    if not _state.inference_mode and any(isinstance(x, Tensor) and x._is_inference for x in xs):
        raise NotImplementedError(
            "an inference tensor used outside inference_mode: torch's answer depends on the "
            "op's kernel (no Autograd key on it); this engine does not model it. Use "
            "t.clone() inside inference_mode, or do the work inside it"
        )


def _make_inplace_node(cls: type[Node], self: Tensor, *others: Any) -> Node | None:
    """The node of an in-place op. Writing an inference tensor outside inference_mode records
    nothing: the write happens, then bumping its (missing) version counter raises."""
    if self._is_inference and not _state.inference_mode:
        if is_grad_enabled() and any(
            isinstance(x, Tensor) and x.requires_grad for x in (self, *others)
        ):
            _refuse_inference_inputs(self)
        return None
    return _make_node(cls, self, *others)


def gradient_edge(t: Tensor) -> Edge:
    """Task 3.2 (given): where t's gradient goes (torch/csrc/autograd/variable.cpp:
    gradient_edge): its grad_fn at output_nr, or its AccumulateGrad if it is a leaf that
    requires grad BY ITS OWN FLAG (variable.cpp grad_accumulator: a view made under no_grad
    requires grad through its base, yet has no AccumulateGrad: its edge goes nowhere)."""
    fn = t.grad_fn
    if fn is not None:
        return Edge(fn, t.output_nr)
    if t._requires_grad:
        return Edge(grad_accumulator(t), 0)
    return Edge(None, 0)


def collect_next_edges(*inputs: Any) -> list[Edge]:
    """Task 3.2: one edge per tensor input, ``Edge(None, 0)`` where it needs no grad
    (torch/csrc/autograd/function.h: collect_next_edges)."""
    ### BEGIN SOLUTION
    return [gradient_edge(x) if isinstance(x, Tensor) else Edge(None, 0) for x in inputs]
    ### END SOLUTION


def set_history(t: Tensor, node: Node) -> None:
    """Task 3.2: make ``t`` the next output of ``node`` (torch/csrc/autograd/functions/utils.h:
    set_history): grad_fn, output_nr, and the node records the output's shape and dtype."""
    ### BEGIN SOLUTION
    t.grad_fn = node
    t.output_nr = len(node._input_metadata)
    node._input_metadata.append((t.shape, t.dtype))
    ### END SOLUTION


def _make_node(cls: type[Node], *inputs: Any) -> Node | None:
    """The node of an op if grad mode is on and an input requires grad, else None. An op makes
    it BEFORE its kernel checks anything, as torch's autograd wrapper runs before the kernel
    (VariableType): collecting the edges reads each input's grad_fn, so a view whose base was
    written under no_grad fails here first; the kernel's errors (shapes that do not fit, dims
    out of range) come after, and after the node's tensors are saved (packed)."""
    if not _requires_grad(*inputs):
        return None
    node = cls()
    node._next_edges = collect_next_edges(*inputs)
    return node


def _new(array: np.ndarray, dtype: DType | None = None) -> Tensor:
    return Tensor(np.asarray(array, dtype=(dtype.np if dtype else None)))


def _view_of(base: Tensor, view_fn: Callable[[np.ndarray], np.ndarray]) -> Tensor:
    """A view: ``view_fn`` of the base's data, sharing its data and version counter
    (torch/csrc/autograd/VariableTypeUtils.h: as_view). It remembers its ROOT base, how to make
    it again from that root (the view functions of a view of a view chained, as ViewInfo::chain
    does) and the mode it was made in (``creation_meta``: variable.h propagate_creation_meta):
    an in-place write through the view, or on its base, needs all three."""
    out = Tensor(np.asarray(view_fn(base._array)))
    out._version_counter = base._version_counter
    out._is_inference = base._is_inference
    if base._is_inference:  # an inference tensor keeps no autograd metadata, views neither
        return out
    out._base = base if base._base is None else base._base
    prev = base._view_fn
    out._view_fn = view_fn if prev is None else (lambda a: view_fn(prev(a)))
    mode = "DEFAULT" if is_grad_enabled() else "NO_GRAD_MODE"
    mode = "INFERENCE_MODE" if _state.inference_mode else mode
    if mode == "DEFAULT" or base._creation_meta == "INFERENCE_MODE":
        mode = base._creation_meta
    out._creation_meta = mode
    out._attr_version = base._version_counter[0]
    return out


def _nocopy_reshape(array: np.ndarray, shape: tuple[int, ...]) -> np.ndarray | None:
    """``array`` with a new shape WITHOUT copying, or None where its strides do not allow it;
    the new strides are those torch computes (they are visible, size-1 dims included)."""
    shape = _infer_view_size(shape, array.size)
    strides = _compute_stride(array.shape, _element_strides(array), shape)
    if strides is None:
        return None
    byte_strides = [st * array.itemsize for st in strides]
    return np.lib.stride_tricks.as_strided(array, shape, byte_strides)


def _infer_view_size(shape: Sequence[int], numel: int) -> tuple[int, ...]:
    """A view's shape, its -1 filled in; it must hold ``numel`` elements
    (aten/src/ATen/InferSize.h: infer_size)."""
    known = math.prod(n for n in shape if n != -1)
    shape = tuple(numel // known if n == -1 and known else n for n in shape)
    if math.prod(shape) != numel:
        raise RuntimeError(f"shape '{_format_size(shape)}' is invalid for input of size {numel}")
    return shape


def _compute_stride(old: Sequence[int], stride: Sequence[int], new: Sequence[int]):
    """aten/src/ATen/TensorUtils.cpp computeStride: walk the old dims from the last, in chunks
    of dims that are contiguous with each other; the new dims must tile each chunk exactly."""
    if not old:
        return (1,) * len(new)
    if math.prod(old) == 0:
        return tuple(stride) if tuple(old) == tuple(new) else None
    out = [0] * len(new)
    view_d = len(new) - 1
    base, tensor_numel, view_numel = stride[-1], 1, 1
    for d in range(len(old) - 1, -1, -1):
        tensor_numel *= old[d]
        if d == 0 or (old[d - 1] != 1 and stride[d - 1] != tensor_numel * base):
            while view_d >= 0 and (view_numel < tensor_numel or new[view_d] == 1):
                out[view_d] = view_numel * base
                view_numel *= new[view_d]
                view_d -= 1
            if view_numel != tensor_numel:
                return None
            if d > 0:
                base, tensor_numel, view_numel = stride[d - 1], 1, 1
    return tuple(out) if view_d == -1 else None


def _binary(np_op: Callable, a: Tensor, b: Tensor, dtype: DType | None = None) -> Tensor:
    """Compute in the promoted dtype, so float32 stays float32 (TensorIterator's common dtype),
    the result laid out as TensorIterator lays it out (``_elementwise``). The shapes must
    broadcast first (TensorIteratorBase::compute_shape)."""
    _infer_size(a.shape, b.shape)
    dt = dtype or result_type(a, b)
    wide = float64 if np_op in _ROUNDED_ONCE and dt.is_floating_point else dt
    out = np_op(a._array.astype(wide.np, copy=False), b._array.astype(wide.np, copy=False))
    return _new(_elementwise(np.asarray(out).astype(dt.np, copy=False), a, b), dt)


# --- given: the shape checks torch makes before it computes (its error kinds and numbers) ---


def _infer_size(a: Sequence[int], b: Sequence[int]) -> tuple[int, ...]:
    """The shape two shapes broadcast to (aten/src/ATen/ExpandUtils.cpp: infer_size): dims
    matched from the last, each pair equal or one of them 1; the first misfit from the right
    raises, naming both sizes and the dim of the result."""
    n = max(len(a), len(b))
    out = []
    for i in range(n - 1, -1, -1):
        size_a = a[i - n + len(a)] if i - n + len(a) >= 0 else 1
        size_b = b[i - n + len(b)] if i - n + len(b) >= 0 else 1
        if size_a != size_b and 1 not in (size_a, size_b):
            raise RuntimeError(
                f"The size of tensor a ({size_a}) must match the size of tensor b ({size_b}) "
                f"at non-singleton dimension {i}"
            )
        out.append(size_b if size_a == 1 else size_a)
    return tuple(out[::-1])


def _wrap_dim(dim: int, ndim: int) -> int:
    """c10/core/WrapDimMinimal.h maybe_wrap_dim: ``dim`` in [-ndim, ndim) made non-negative (a
    0-dim tensor takes -1 and 0), else torch's IndexError."""
    n = max(ndim, 1)
    if not -n <= dim < n:
        raise IndexError(
            f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], but got {dim})"
        )
    return dim % n


def _expand_sizes(t: Tensor, sizes: Sequence[int]) -> tuple[int, ...]:
    """The sizes ``t.expand(*sizes)`` gives (TensorShape.cpp expand, ExpandUtils.cpp
    inferExpandGeometry): no fewer sizes than dims; from the last, each size is t's, -1 (keep
    t's; not in a new leading dim), or anything where t has a 1. A 0-dim tensor takes any."""
    if len(sizes) < t.dim():
        raise RuntimeError(
            f"expand(torch.{t.dtype.legacy_name}Tensor{{{_format_size(t.shape)}}}, "
            f"size={_format_size(sizes)}): the number of sizes provided ({len(sizes)}) must be "
            f"greater or equal to the number of dimensions in the tensor ({t.dim()})"
        )
    if t.dim() == 0:
        return tuple(sizes)
    lead, out = len(sizes) - t.dim(), []
    for i in range(len(sizes) - 1, -1, -1):
        size, target = (t.shape[i - lead] if i >= lead else 1), sizes[i]
        if target == -1 and i < lead:
            raise RuntimeError(
                "The expanded size of the tensor (-1) isn't allowed in a leading, non-existing "
                f"dimension {i}"
            )
        target = size if target == -1 else target
        if size not in (1, target):
            raise RuntimeError(
                f"The expanded size of the tensor ({target}) must match the existing size "
                f"({size}) at non-singleton dimension {i}.  Target sizes: "
                f"{_format_size(sizes)}.  Tensor sizes: {_format_size(t.shape)}"
            )
        out.append(target)
    return tuple(out[::-1])


# --- given: where a result lives. Strides are visible (is_contiguous, what view() and
# reshape() may do), so a result must be laid out as torch lays it out, not as NumPy does.


def _element_strides(a: np.ndarray) -> tuple[int, ...]:
    return tuple(st // a.itemsize for st in a.strides)


def _non_overlapping_and_dense(shape: Sequence[int], strides: Sequence[int]) -> builtins.bool:
    """c10 is_non_overlapping_and_dense: some order of the dims is a contiguous layout."""
    expected = 1
    for stride, n in sorted((st, n) for n, st in zip(shape, strides, strict=True) if n != 1):
        if stride != expected:
            return False
        expected *= n
    return True


def _c_order(values: np.ndarray) -> np.ndarray:
    return values if values.flags.c_contiguous else values.copy(order="C")


def _laid_out(values: np.ndarray, order: Sequence[int]) -> np.ndarray:
    """``values`` copied into a dense array whose dims, fastest first, are ``order``."""
    strides = [0] * values.ndim
    step = 1
    for d in order:
        strides[d] = step
        step *= values.shape[d]
    return _with_strides(values, strides)


def _with_strides(values: np.ndarray, strides: Sequence[int]) -> np.ndarray:
    """``values`` copied into a new dense array with these element strides (those of a size-1
    dim included: they are visible, and torch keeps them)."""
    buffer = np.empty(max(values.size, 1), dtype=values.dtype)
    byte_strides = [s * values.itemsize for s in strides]
    out = np.lib.stride_tricks.as_strided(buffer, values.shape, byte_strides)
    out[...] = values
    return out


def _elementwise(values: np.ndarray, *inputs: Tensor) -> np.ndarray:
    """The layout TensorIterator gives an elementwise op's result
    (aten/src/ATen/TensorIterator.cpp: compute_fast_setup_type, reorder_dimensions): inputs of
    the result's shape that are all contiguous give a contiguous result, all dense with the
    same strides give those strides; otherwise the dims are sorted by the inputs' strides
    (the first input decides, broadcast dims do not count, ties go to the smaller dim)."""
    shape, nd = values.shape, values.ndim
    arrays = [t._array for t in inputs]
    if nd <= 1:
        return _c_order(values)
    if all(a.shape == shape for a in arrays):
        if all(a.flags.c_contiguous for a in arrays):
            return _c_order(values)
        strides = {_element_strides(a) for a in arrays}
        if len(strides) == 1 and _non_overlapping_and_dense(shape, next(iter(strides))):
            return _with_strides(values, next(iter(strides)))
    # each input's byte strides over the result's dims: 0 where broadcast
    op_strides = []
    for a in arrays:
        lead = nd - a.ndim
        op_strides.append(
            [0] * lead
            + [
                0 if n == 1 and shape[lead + i] != 1 else st
                for i, (n, st) in enumerate(zip(a.shape, a.strides, strict=True))
            ]
        )

    def should_swap(d0: int, d1: int) -> int:
        for st in op_strides:
            s0, s1 = st[d0], st[d1]
            if s0 == 0 or s1 == 0:
                continue
            if s0 != s1:
                return -1 if s0 < s1 else 1
            if shape[d0] > shape[d1]:
                return 1
        return 0

    perm = list(range(nd))[::-1]
    for i in range(1, nd):
        d1 = i
        for d0 in range(i - 1, -1, -1):
            comparison = should_swap(perm[d0], perm[d1])
            if comparison > 0:
                perm[d0], perm[d1] = perm[d1], perm[d0]
                d1 = d0
            elif comparison < 0:
                break
    return _laid_out(values, perm)


def _preserve_format(values: np.ndarray, like: np.ndarray) -> np.ndarray:
    """A copy's layout (empty_like with preserve_format, as clone() and to() use): the
    source's strides if it is dense, else contiguous."""
    strides = _element_strides(like)
    if values.ndim > 1 and _non_overlapping_and_dense(like.shape, strides):
        return _with_strides(values, strides)
    return values.copy(order="C")  # always a copy: ``values`` may be the source itself


def sum_to(grad: Tensor, shape: Sequence[int]) -> Tensor:
    """Task 3.2: reduce a broadcast gradient back to ``shape`` as aten/src/ATen/ExpandUtils.h
    sum_to does (the ops matter under create_graph): to a 0-dim shape, ``sum()``; else ONE
    keepdim sum over the leading dims and each dim where ``shape`` has a 1, then ``view`` the
    leading 1s away. Nothing to do when the shapes already agree."""
    ### BEGIN SOLUTION
    shape = tuple(shape)
    if grad.shape == shape:
        return grad
    if not shape:
        return grad.sum()
    lead = grad.dim() - len(shape)
    dims = tuple(range(lead)) + tuple(
        i for i in range(lead, grad.dim()) if shape[i - lead] == 1 and grad.shape[i] != 1
    )
    if dims:
        grad = grad.sum(dims, keepdim=True)
    return grad.view(shape) if lead else grad
    ### END SOLUTION


# --- add, sub, rsub -------------------------------------------------------------------------------


class AddBackward0(Node):
    def apply(self, grads: list) -> list:
        """Task 3.2: d(a + alpha*b) = (g, alpha*g), each summed to its input's shape."""
        ### BEGIN SOLUTION
        (g,) = grads
        shapes, alpha = self.saved("shapes"), self.saved("alpha")
        return [
            sum_to(g, shapes[0]) if self.needs(0) else None,
            sum_to(g if alpha == 1 else _mul_scalar(g, alpha), shapes[1])
            if self.needs(1)
            else None,
        ]
        ### END SOLUTION


def add(self: Tensor, other: Any) -> Tensor:
    """Task 3.2: ``a + b`` -> AddBackward0. A Python number becomes a wrapped tensor, an input
    with an Edge(None, 0): ``(a + 2).grad_fn.next_functions`` has two entries."""
    ### BEGIN SOLUTION
    a, b = _wrap(self), _wrap(other)
    node = _make_node(AddBackward0, a, b)  # the node first, then the kernel (see _make_node)
    out = _binary(np.add, a, b)
    if node:
        node.save("alpha", 1)
        node.save("shapes", (a.shape, b.shape))
        set_history(out, node)
    return out
    ### END SOLUTION


class SubBackward0(Node):
    def apply(self, grads: list) -> list:
        """Task 3.2: d(a - b) = (g, -g), summed to the inputs' shapes."""
        ### BEGIN SOLUTION
        (g,) = grads
        shapes = self.saved("shapes")
        return [
            sum_to(g, shapes[0]) if self.needs(0) else None,
            sum_to(-g, shapes[1]) if self.needs(1) else None,
        ]
        ### END SOLUTION


def sub(self: Tensor, other: Any) -> Tensor:
    """Task 3.2: ``a - b`` and ``a - 2`` -> SubBackward0."""
    ### BEGIN SOLUTION
    a, b = _wrap(self), _wrap(other)
    node = _make_node(SubBackward0, a, b)  # the node first, then the kernel (see _make_node)
    out = _binary(np.subtract, a, b)
    if node:
        node.save("alpha", 1)
        node.save("shapes", (a.shape, b.shape))
        set_history(out, node)
    return out
    ### END SOLUTION


class RsubBackward1(Node):
    def apply(self, grads: list) -> list:
        """Task 3.2: d(c - a)/da = -g."""
        ### BEGIN SOLUTION
        return [-grads[0]]
        ### END SOLUTION


def rsub(self: Tensor, other: Any) -> Tensor:
    """Task 3.2: ``2 - a`` is torch.rsub(a, 2) -> RsubBackward1 (overload 1 takes a Scalar, so
    the number is no input: ONE next function)."""
    ### BEGIN SOLUTION
    if isinstance(other, Tensor):
        return sub(other, self)
    out = _binary(np.subtract, _wrap(other), self)
    if node := _make_node(RsubBackward1, self):
        node.save("alpha", 1)
        set_history(out, node)
    return out
    ### END SOLUTION


# --- mul, div, reciprocal, neg --------------------------------------------------------------------


class MulBackward0(Node):
    def apply(self, grads: list) -> list:
        """Task 3.2: d(a*b) = (g*b, g*a) (FunctionsManual.cpp: mul_tensor_backward)."""
        ### BEGIN SOLUTION
        (g,) = grads
        shapes = self.saved("shapes")
        # torch's generated apply computes the inputs' gradients in the order of their names:
        # "other" first (it shows in the pack hooks of a create_graph backward)
        gb = sum_to(g * self.saved("self"), shapes[1]) if self.needs(1) else None
        ga = sum_to(g * self.saved("other"), shapes[0]) if self.needs(0) else None
        return [ga, gb]
        ### END SOLUTION


def mul(self: Tensor, other: Any) -> Tensor:
    """Task 3.2: ``a * b`` -> MulBackward0. torch saves ``self`` only if ``other`` needs grad
    and ``other`` only if ``self`` does: ``(a * 2).grad_fn._saved_self`` is None."""
    ### BEGIN SOLUTION
    a, b = _wrap(self), _wrap(other)
    if node := _make_node(MulBackward0, a, b):
        node.save("other", b if node.should_compute_output(0) else None)  # packed first
        node.save("self", a if node.should_compute_output(1) else None)
        node.save("shapes", (a.shape, b.shape))
    # the kernel runs after autograd saved (packed) its inputs, so shapes that do not
    # broadcast raise only then (VariableType, then TensorIterator), as in mm
    out = _binary(np.multiply, a, b)
    if node:
        set_history(out, node)
    return out
    ### END SOLUTION


class DivBackward0(Node):
    def apply(self, grads: list) -> list:
        """Task 3.2: d(a/b) = (g/b, -g*((a/b)/b)) (FunctionsManual.cpp: div_tensor_*_backward)."""
        ### BEGIN SOLUTION
        (g,) = grads
        shapes = self.saved("shapes")
        b, a = self.saved("other"), self.saved("self")  # unpacked once each, in saving order
        gb = sum_to(-g * ((a / b) / b), shapes[1]) if self.needs(1) else None  # "other" first
        ga = sum_to(g / b, shapes[0]) if self.needs(0) else None
        return [ga, gb]
        ### END SOLUTION


def _true_divide_dtype(a: Tensor, b: Tensor) -> DType:
    dt = result_type(a, b)
    return dt if dt.is_floating_point else float32  # int / int is float in torch


def div(self: Tensor, other: Any) -> Tensor:
    """Task 3.2: ``a / b`` -> DivBackward0 (true division: ints give float32)."""
    ### BEGIN SOLUTION
    a, b = _wrap(self), _wrap(other)
    if node := _make_node(DivBackward0, a, b):
        node.save("other", b)  # both gradients divide by b; only b's needs a (derivatives.yaml)
        node.save("self", a if node.should_compute_output(1) else None)
        node.save("shapes", (a.shape, b.shape))
    out = _binary(np.divide, a, b, _true_divide_dtype(a, b))  # the kernel, after the saves
    if node:
        set_history(out, node)
    return out
    ### END SOLUTION


class ReciprocalBackward0(Node):
    def apply(self, grads: list) -> list:
        """Task 3.2: d(1/a) = -g * r * r with r = 1/a (saved result)."""
        ### BEGIN SOLUTION
        r = self.saved("result")
        return [-grads[0] * (r * r)]
        ### END SOLUTION


def reciprocal(self: Tensor) -> Tensor:
    """Task 3.2: 1/a -> ReciprocalBackward0; ``2 / a`` is ``a.reciprocal() * 2`` in torch."""
    ### BEGIN SOLUTION
    dt = self.dtype if self.dtype.is_floating_point else float32
    out = _new(_elementwise(1 / self._array.astype(dt.np), self), dt)
    if node := _make_node(ReciprocalBackward0, self):
        set_history(out, node)
        node.save("result", out, is_output=True)
    return out
    ### END SOLUTION


class NegBackward0(Node):
    def apply(self, grads: list) -> list:
        """Task 3.2: d(-a) = -g."""
        ### BEGIN SOLUTION
        return [-grads[0]]
        ### END SOLUTION


def neg(self: Tensor) -> Tensor:
    """Task 3.2: ``-a`` -> NegBackward0."""
    ### BEGIN SOLUTION
    out = _new(_elementwise(-self._array, self), self.dtype)
    if node := _make_node(NegBackward0, self):
        set_history(out, node)
    return out
    ### END SOLUTION


# --- pow ------------------------------------------------------------------------------------------


class PowBackward0(Node):
    def apply(self, grads: list) -> list:
        """Task 3.2: d(a**c) = g * (c * a**(c-1)), zero if c == 0
        (FunctionsManual.cpp: pow_backward; ``c *`` is a C++ scalar product: _mul_scalar)."""
        ### BEGIN SOLUTION
        (g,) = grads
        c, a = self.saved("exponent"), self.saved("self")
        if c == 0:
            return [zeros_like(a)]
        return [g * _mul_scalar(a ** (c - 1), c)]
        ### END SOLUTION


class PowBackward1(Node):
    def apply(self, grads: list) -> list:
        """Task 3.2: d(a**b) = (g * b * a**(b-1), g * result * log(a)), with torch's masks
        written as ``where`` (FunctionsManual.cpp pow_backward_self, pow_backward_exponent)."""
        ### BEGIN SOLUTION
        (g,) = grads
        b, a, result = self.saved("exponent"), self.saved("self"), self.saved("result")
        zero = zeros(dtype=g.dtype)
        ga = gb = None
        if self.needs(1):  # pow_backward_exponent ("exponent" first): 0 where a == 0, b >= 0
            cond = _new((a._array == 0) & (b._array >= 0))
            gb = g * where(cond, zero, result * a.to(result_type(a, b)).log())
            gb = sum_to(gb, b.shape)
        if self.needs(0):  # pow_backward_self: 0 where b == 0, else g * b * a**(b - 1)
            ga = where(_new(b._array == 0), zero, g * (b * a ** _sub_scalar(b, 1)))
            ga = sum_to(ga, a.shape)
        return [ga, gb]
        ### END SOLUTION


class PowBackward2(Node):
    def apply(self, grads: list) -> list:
        """Task 3.2: d(c**b)/db = g * result * log(c) for a number c."""
        ### BEGIN SOLUTION
        (g,) = grads
        c = self.saved("self")
        _, result = self.saved("exponent"), self.saved("result")  # torch unpacks both, in order
        return [g * (result * math.log(c))]
        ### END SOLUTION


def pow(self: Any, exponent: Any) -> Tensor:
    """Task 3.2: ``a ** 2`` -> PowBackward0 (_saved_self, _saved_exponent the number),
    ``a ** b`` -> PowBackward1 (self, exponent, result), ``2 ** a`` -> PowBackward2."""
    ### BEGIN SOLUTION
    if not isinstance(self, Tensor):  # a number to a tensor power
        dt = result_type(_wrap(self), exponent)
        dt = dt if dt.is_floating_point else float32
        values = np.power(builtins.float(self), exponent._array.astype(np.float64))
        out = _new(_elementwise(values.astype(dt.np), exponent), dt)
        if node := _make_node(PowBackward2, exponent):
            node.save("self", self)
            node.save("exponent", exponent)
            set_history(out, node)
            node.save("result", out, is_output=True)
        return out
    if isinstance(exponent, Tensor):
        if node := _make_node(PowBackward1, self, exponent):
            node.save("exponent", exponent)
            node.save("self", self)
        out = _binary(np.power, self, exponent)  # the kernel, after the saves
        if node:
            set_history(out, node)
            node.save("result", out, is_output=True)
        return out
    out = _binary(np.power, self, _wrap(exponent))
    if node := _make_node(PowBackward0, self):
        node.save("self", self)
        node.save("exponent", exponent)
        set_history(out, node)
    return out
    ### END SOLUTION


# --- unary pointwise ops --------------------------------------------------------------------------


# torch's float32 kernels of these (nearly always) round the exact result; NumPy's float32
# ones are often an ulp off, which an ill-conditioned gradient (1 - tanh(x)**2 near 1) makes
# visible: compute them in float64 and round once.
_ROUNDED_ONCE = (np.exp, np.log, np.tanh, np.sin, np.cos, np.power)


def _float_unary(np_op: Callable, a: Tensor) -> Tensor:
    dt = a.dtype if a.dtype.is_floating_point else float32
    wide = float64 if np_op in _ROUNDED_ONCE else dt
    return _new(_elementwise(np_op(a._array.astype(wide.np)).astype(dt.np), a), dt)


def _unary(np_op: Callable, node_cls: type[Node], a: Tensor, save: str) -> Tensor:
    """An elementwise op whose node saves ``self`` (the input) or ``result`` (the output)."""
    out = _float_unary(np_op, a)
    if node := _make_node(node_cls, a):
        if save == "self":
            node.save("self", a)
        set_history(out, node)
        if save == "result":
            node.save("result", out, is_output=True)
    return out


# --- given: the ops torch's C++ backward formulas call ----------------------------------------
# In C++, ``grad * 2.0`` is mul.Scalar (MulBackward1: one edge, the number kept), not the
# mul.Tensor of Python's ``t * 2`` (MulBackward0); and some backward formulas are ops with
# derivatives of their own. Under create_graph these nodes are what a gradient's graph shows.


class MulBackward1(Node):
    def apply(self, grads: list) -> list:
        return [_mul_scalar(grads[0], self.saved("other"))]


class DivBackward1(Node):
    def apply(self, grads: list) -> list:
        return [_div_scalar(grads[0], self.saved("other"))]


class AddBackward1(Node):
    def apply(self, grads: list) -> list:
        return [grads[0]]


def _scalar_op(np_op: Callable, node_cls: type[Node], t: Tensor, c: Any) -> Tensor:
    out = _binary(np_op, t, _wrap(c))
    if node := _make_node(node_cls, t):
        node.save("other", c)
        set_history(out, node)
    return out


class SubBackward1(Node):
    def apply(self, grads: list) -> list:
        return [grads[0]]


def _sub_scalar(t: Tensor, c: Any) -> Tensor:
    """``t - c`` as C++ writes it (sub.Scalar -> SubBackward1)."""
    return _scalar_op(np.subtract, SubBackward1, t, c)


class WhereBackward0(Node):
    def apply(self, grads: list) -> list:
        """derivatives.yaml where.self: (where(c, g, 0), where(c, 0, g))."""
        (g,) = grads
        cond, zero = self.saved("condition"), zeros(dtype=g.dtype)
        return [
            where(cond, g, zero) if self.needs(0) else None,
            where(cond, zero, g) if self.needs(1) else None,
        ]


def _where_args(*args: Any) -> None:
    """torch.where's argument parser: three tensors (a Python number would be where.ScalarOther
    and friends, which wrap it: refused here)."""
    if any(isinstance(x, int | builtins.float) for x in args):
        raise NotImplementedError(
            "where with a Python number: torch wraps it as a tensor (where.ScalarSelf, "
            "where.ScalarOther); this engine's where takes tensors"
        )
    if not all(isinstance(x, Tensor) for x in args):
        got = ", ".join("Tensor" if isinstance(x, Tensor) else type(x).__name__ for x in args)
        raise TypeError(f"where() received an invalid combination of arguments - got ({got})")


def where(cond: Tensor, a: Tensor, b: Tensor) -> Tensor:
    """at::where(condition, self, other) -> WhereBackward0, saving the condition. The kernel
    runs after the save: the condition must be bool, then the three shapes must broadcast, in
    that order (TensorIteratorBase::compute_shape)."""
    _where_args(cond, a, b)
    if node := _make_node(WhereBackward0, a, b):
        node.save("condition", cond)
    if cond.dtype is not bool:  # (aten/src/ATen/native/TensorCompare.cpp: where)
        raise RuntimeError(
            "where expected condition to be a boolean tensor, but got a tensor with dtype "
            f"{cond.dtype.legacy_name}"
        )
    _infer_size(_infer_size(cond.shape, a.shape), b.shape)
    dt = result_type(a, b)
    values = np.where(cond._array, a._array.astype(dt.np), b._array.astype(dt.np))
    out = _new(_elementwise(values, cond, a, b), dt)
    if node:
        set_history(out, node)
    return out


def _mul_scalar(t: Tensor, c: Any) -> Tensor:
    """``t * c`` as C++ writes it (mul.Scalar -> MulBackward1)."""
    return _scalar_op(np.multiply, MulBackward1, t, c)


def _div_scalar(t: Tensor, c: Any) -> Tensor:
    """``t / c`` as C++ writes it (div.Scalar -> DivBackward1)."""
    return _scalar_op(np.divide, DivBackward1, t, c)


def _add_scalar(t: Tensor, c: Any) -> Tensor:
    """``t + c`` as C++ writes it (add.Scalar -> AddBackward1)."""
    return _scalar_op(np.add, AddBackward1, t, c)


class SigmoidBackwardBackward0(Node):
    def apply(self, grads: list) -> list:
        """derivatives.yaml sigmoid_backward: (sigmoid_backward(g, output),
        g * grad_output * (-2 * output + 1))."""
        (g,) = grads
        grad_output, output = self.saved("grad_output"), self.saved("output")
        return [
            sigmoid_backward(g, output) if self.needs(0) else None,
            g * grad_output * _add_scalar(_mul_scalar(output, -2), 1) if self.needs(1) else None,
        ]


class TanhBackwardBackward0(Node):
    def apply(self, grads: list) -> list:
        """derivatives.yaml tanh_backward: (tanh_backward(g, output),
        g * (-2 * output * grad_output))."""
        (g,) = grads
        grad_output, output = self.saved("grad_output"), self.saved("output")
        return [
            tanh_backward(g, output) if self.needs(0) else None,
            g * (_mul_scalar(output, -2) * grad_output) if self.needs(1) else None,
        ]


def _backward_op(node_cls: type[Node], values: np.ndarray, grad: Tensor, output: Tensor):
    out = _new(_elementwise(values.astype(grad.dtype.np), grad, output), grad.dtype)
    if node := _make_node(node_cls, grad, output):
        node.save("grad_output", grad)
        node.save("output", output)
        set_history(out, node)
    return out


def sigmoid_backward(grad: Tensor, output: Tensor) -> Tensor:
    """``grad * (1 - output) * output``, an op of its own (SigmoidBackwardBackward0)."""
    g, y = grad._array, output._array
    return _backward_op(SigmoidBackwardBackward0, g * (1 - y) * y, grad, output)


def tanh_backward(grad: Tensor, output: Tensor) -> Tensor:
    """``grad * (1 - output * output)``, an op of its own (TanhBackwardBackward0)."""
    g, y = grad._array, output._array
    return _backward_op(TanhBackwardBackward0, g * (1 - y * y), grad, output)


class ExpBackward0(Node):
    def apply(self, grads: list) -> list:
        """Task 3.2: d exp(a) = g * result."""
        ### BEGIN SOLUTION
        return [grads[0] * self.saved("result")]
        ### END SOLUTION


def exp(a: Tensor) -> Tensor:
    """Task 3.2: -> ExpBackward0, saving its RESULT (that is what the derivative needs)."""
    ### BEGIN SOLUTION
    return _unary(np.exp, ExpBackward0, a, "result")
    ### END SOLUTION


class LogBackward0(Node):
    def apply(self, grads: list) -> list:
        """Task 3.2: d log(a) = g / a."""
        ### BEGIN SOLUTION
        return [grads[0] / self.saved("self")]
        ### END SOLUTION


def log(a: Tensor) -> Tensor:
    """Task 3.2: -> LogBackward0, saving self."""
    ### BEGIN SOLUTION
    with np.errstate(divide="ignore", invalid="ignore"):
        return _unary(np.log, LogBackward0, a, "self")
    ### END SOLUTION


class TanhBackward0(Node):
    def apply(self, grads: list) -> list:
        """Task 3.2: d tanh(a) = g * (1 - r*r), computed by the op ``tanh_backward``."""
        ### BEGIN SOLUTION
        return [tanh_backward(grads[0], self.saved("result"))]
        ### END SOLUTION


def tanh(a: Tensor) -> Tensor:
    """Task 3.2: -> TanhBackward0, saving result."""
    ### BEGIN SOLUTION
    return _unary(np.tanh, TanhBackward0, a, "result")
    ### END SOLUTION


class ReluBackward0(Node):
    def apply(self, grads: list) -> list:
        """Task 3.2: g where result > 0, else 0 (FunctionsManual: threshold_backward)."""
        ### BEGIN SOLUTION
        return [threshold_backward(grads[0], self.saved("result"))]
        ### END SOLUTION


class ThresholdBackwardBackward0(Node):
    def apply(self, grads: list) -> list:
        """Task 3.2: relu's backward is itself an op (for create_graph): linear in the
        gradient, flat (zero derivative) in the result it masks with."""
        ### BEGIN SOLUTION
        result = self.saved("self")
        return [
            threshold_backward(grads[0], result) if self.needs(0) else None,
            zeros_like(grads[0]) if self.needs(1) else None,
        ]
        ### END SOLUTION


def threshold_backward(grad: Tensor, result: Tensor) -> Tensor:
    """Task 3.2: 0 where ``result <= 0``, else ``grad`` (selected, not multiplied: a nan
    gradient does not leak through a 0, and a nan result lets the gradient through)
    -> ThresholdBackwardBackward0 when recorded (torch records it under create_graph, saving
    ``result`` as its self: the second derivative of relu is 0)."""
    ### BEGIN SOLUTION
    values = np.where(result._array <= 0, 0, grad._array).astype(grad.dtype.np)
    out = _new(_elementwise(values, grad, result), grad.dtype)
    if node := _make_node(ThresholdBackwardBackward0, grad, result):
        node.save("self", result)
        set_history(out, node)
    return out
    ### END SOLUTION


def relu(a: Tensor) -> Tensor:
    """Task 3.2: -> ReluBackward0, saving result."""
    ### BEGIN SOLUTION
    return _unary(lambda x: np.maximum(x, 0).astype(x.dtype), ReluBackward0, a, "result")
    ### END SOLUTION


class SigmoidBackward0(Node):
    def apply(self, grads: list) -> list:
        """Task 3.2: d sigmoid(a) = g * (1 - r) * r, computed by the op ``sigmoid_backward``."""
        ### BEGIN SOLUTION
        return [sigmoid_backward(grads[0], self.saved("result"))]
        ### END SOLUTION


def _np_sigmoid(x: np.ndarray) -> np.ndarray:
    return (1 / (1 + np.exp(-x))).astype(x.dtype)


def sigmoid(a: Tensor) -> Tensor:
    """Task 3.2: -> SigmoidBackward0, saving result."""
    ### BEGIN SOLUTION
    return _unary(_np_sigmoid, SigmoidBackward0, a, "result")
    ### END SOLUTION


class SinBackward0(Node):
    def apply(self, grads: list) -> list:
        """Task 3.2: d sin(a) = g * cos(a)."""
        ### BEGIN SOLUTION
        return [grads[0] * self.saved("self").cos()]
        ### END SOLUTION


def sin(a: Tensor) -> Tensor:
    """Task 3.2: -> SinBackward0, saving self."""
    ### BEGIN SOLUTION
    return _unary(np.sin, SinBackward0, a, "self")
    ### END SOLUTION


class CosBackward0(Node):
    def apply(self, grads: list) -> list:
        """Task 3.2: d cos(a) = g * -sin(a)."""
        ### BEGIN SOLUTION
        return [grads[0] * -self.saved("self").sin()]
        ### END SOLUTION


def cos(a: Tensor) -> Tensor:
    """Task 3.2: -> CosBackward0, saving self."""
    ### BEGIN SOLUTION
    return _unary(np.cos, CosBackward0, a, "self")
    ### END SOLUTION


# --- matrix products ------------------------------------------------------------------------------


def _matmul(a: np.ndarray, b: np.ndarray, bias: np.ndarray | None = None) -> np.ndarray:
    """A small matmul summed as torch's CPU kernel sums it: one product at a time, in k
    order, each step rounded to the dtype. addmm starts from the bias, except for a
    matrix-vector product (one column, gemv), which adds it to the finished sum. (NumPy's
    BLAS sums in another order; for float32 the last bits differ.)"""
    (m, k), n = a.shape, b.shape[1]
    gemv = bias is not None and n == 1 and m > 1
    if bias is None or gemv:  # from the first product, not from 0 (0 + -0 would be +0)
        out, first = a[:, :1] * b[:1, :], 1
    else:
        out, first = np.broadcast_to(bias, (m, n)).astype(a.dtype), 0
    for i in range(first, k):
        out = out + a[:, i : i + 1] * b[i : i + 1, :]
    return out + bias if gemv else out


def _strides(t: Tensor) -> tuple[int, ...]:
    """Strides in elements (torch's ``stride()``), from NumPy's in bytes."""
    return tuple(st // t._array.itemsize for st in t._array.strides)


def _column_major(shape: Sequence[int], strides: Sequence[int]) -> builtins.bool:
    return strides[0] == 1 and strides[1] == shape[0]


def _check_mm_shapes(mat1: Tensor, mat2: Tensor) -> None:
    """Two matrices whose inner sizes agree (aten/src/ATen/native/LinearAlgebra.cpp:
    ADDMM_META and addmm_impl_cpu_), else torch's RuntimeError naming both shapes."""
    for name, m in (("mat1", mat1), ("mat2", mat2)):
        if m.dim() != 2:
            raise RuntimeError(f"{name} must be a matrix, got {m.dim()}-D tensor")
    (m, k), (k2, n) = mat1.shape, mat2.shape
    if k != k2:
        raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({m}x{k} and {k2}x{n})")


def _mm_mat1_backward(g: Tensor, mat2: Tensor, mat1_strides: tuple) -> Tensor:
    """FunctionsManual.cpp mm_mat1_backward: ``g @ mat2.t()``, or, if mat1 was column-major,
    ``(mat2 @ g.t()).t()`` (the same values, a column-major gradient)."""
    shape = (g.shape[0], mat2.shape[0])
    if _column_major(shape, mat1_strides):
        return mm(mat2, g.t()).t()
    return mm(g, mat2.t())


def _mm_mat2_backward(g: Tensor, mat1: Tensor, mat2_strides: tuple) -> Tensor:
    """FunctionsManual.cpp mm_mat2_backward: ``mat1.t() @ g``, or ``(g.t() @ mat1).t()``."""
    shape = (mat1.shape[1], g.shape[1])
    if _column_major(shape, mat2_strides):
        return mm(g.t(), mat1).t()
    return mm(mat1.t(), g)


class MmBackward0(Node):
    def apply(self, grads: list) -> list:
        """Task 3.2: d(A@B) = (g @ B.t(), A.t() @ g) (FunctionsManual: mm_mat1/mat2_backward,
        which write it transposed for an input that was column-major)."""
        ### BEGIN SOLUTION
        (g,) = grads
        mat2, me = self.saved("mat2"), self.saved("self")
        gb = _mm_mat2_backward(g, me, self.saved("mat2_strides")) if self.needs(1) else None
        ga = _mm_mat1_backward(g, mat2, self.saved("self_strides")) if self.needs(0) else None
        return [ga, gb]
        ### END SOLUTION


def mm(self: Tensor, mat2: Tensor) -> Tensor:
    """Task 3.2: 2-D @ 2-D -> MmBackward0 (``a @ b``, ``matmul`` and ``mm`` all end here),
    saving ``self`` only if mat2 needs grad and ``mat2`` only if self does. The inner sizes
    must agree (``_check_mm_shapes``: mm's meta function), then, no promotion, the two dtypes
    (aten/src/ATen/native/LinearAlgebra.cpp: addmm_impl_cpu_): both checked by the kernel, so
    AFTER autograd made the node and saved (packed) its tensors."""
    ### BEGIN SOLUTION
    if self.dim() != 2 or mat2.dim() != 2:
        raise NotImplementedError("this engine's matmul takes 2-D x 2-D only")
    if node := _make_node(MmBackward0, self, mat2):
        node.save("mat2", mat2 if node.should_compute_output(0) else None)
        node.save("self", self if node.should_compute_output(1) else None)
        node.save("self_sym_sizes", self.shape)
        node.save("mat2_sym_sizes", mat2.shape)
        node.save("self_strides", _strides(self))
        node.save("mat2_strides", _strides(mat2))
    _check_mm_shapes(self, mat2)
    if self.dtype is not mat2.dtype:
        raise RuntimeError(
            "expected m1 and m2 to have the same dtype, but got: "
            f"{_C_NAME[self.dtype]} != {_C_NAME[mat2.dtype]}"
        )
    out = _new(_matmul(self._array, mat2._array), self.dtype)
    if node:
        set_history(out, node)
    return out
    ### END SOLUTION


class AddmmBackward0(Node):
    def apply(self, grads: list) -> list:
        """Task 3.2: d(bias + m1 @ m2) = (sum_to(g), g @ m2.t(), m1.t() @ g)."""
        ### BEGIN SOLUTION
        (g,) = grads
        m1, m2 = self.saved("mat1"), self.saved("mat2")  # unpacked in saving order
        gs = sum_to(g, self.saved("self_sym_sizes")) if self.needs(0) else None
        g1 = _mm_mat1_backward(g, m2, self.saved("mat1_strides")) if self.needs(1) else None
        g2 = _mm_mat2_backward(g, m1, self.saved("mat2_strides")) if self.needs(2) else None
        return [gs, g1, g2]
        ### END SOLUTION


def addmm(bias: Tensor, mat1: Tensor, mat2: Tensor) -> Tensor:
    """Task 3.2: bias + mat1 @ mat2 -> AddmmBackward0: what nn.Linear runs on 2-D input
    (torch/nn/functional.py linear -> aten::addmm(bias, input, weight.t())). No promotion:
    bias, then mat1, must have mat2's dtype; then mat1 and mat2 must fit, and the bias expand
    to the result (the checks of ADDMM_META and addmm_out_cpu, in the kernel: after the node
    saved its tensors)."""
    ### BEGIN SOLUTION
    for i, (name, t) in enumerate((("self", bias), ("mat1", mat1), ("mat2", mat2))):
        if not isinstance(t, Tensor):
            raise TypeError(
                f"addmm(): argument '{name}' (position {i + 1}) must be Tensor, not "
                f"{type(t).__name__}"
            )
    if node := _make_node(AddmmBackward0, bias, mat1, mat2):
        node.save("self_sym_sizes", bias.shape)
        node.save("mat1", mat1 if node.should_compute_output(2) else None)
        node.save("mat2", mat2 if node.should_compute_output(1) else None)
        node.save("alpha", 1)
        node.save("beta", 1)
        node.save("mat1_strides", _strides(mat1))
        node.save("mat2_strides", _strides(mat2))
    for name, t in (("self", bias), ("mat1", mat1)):
        if t.dtype is not mat2.dtype:
            raise RuntimeError(
                f"{name} and mat2 must have the same dtype, but got {t.dtype.legacy_name} and "
                f"{mat2.dtype.legacy_name}"
            )
    _check_mm_shapes(mat1, mat2)
    _expand_sizes(bias, (mat1.shape[0], mat2.shape[1]))  # addmm_out_cpu: expand_size(self)
    out = _new(_matmul(mat1._array, mat2._array, bias._array), mat2.dtype)
    if node:
        set_history(out, node)
    return out
    ### END SOLUTION


# --- reductions -----------------------------------------------------------------------------------


def _dims(dim: int | Sequence[int] | None, ndim: int) -> tuple[int, ...]:
    """The dims a reduction is over, each wrapped and named once
    (aten/src/ATen/WrapDimUtilsMulti.h: dim_list_to_bitset)."""
    if dim is None:
        return tuple(range(ndim))
    out: list[int] = []
    for d in (dim,) if isinstance(dim, int) else dim:
        d = _wrap_dim(d, ndim)
        if d in out:
            raise RuntimeError(f"dim {d} appears multiple times in the list of dims")
        out.append(d)
    return tuple(out)


def _row_sum(values: Sequence[Any], zero: Any) -> Any:
    """aten/src/ATen/native/cpu/SumKernel.cpp row_sum: four accumulators taking every fourth
    element, the leftovers into the first, then the four added in order."""
    acc = [zero] * 4
    whole = len(values) // 4 * 4
    for i in range(whole):
        acc[i % 4] = acc[i % 4] + values[i]
    for i in range(whole, len(values)):
        acc[0] = acc[0] + values[i]
    return acc[0] + acc[1] + acc[2] + acc[3]


def _cascade_sum(flat: np.ndarray) -> Any:
    """SumKernel.cpp's order for one contiguous row (so a float32 sum rounds as torch's):
    rows of 8 or more are summed 8 lanes at a time (vectorized_inner_sum: row_sum of the
    vectors, then the leftovers, then the 8 lanes, in order); shorter rows by row_sum."""
    zero = flat.dtype.type(0)
    if flat.size < 8:
        return _row_sum(list(flat), zero)
    whole = flat.size // 8 * 8
    lanes = _row_sum(list(flat[:whole].reshape(-1, 8)), np.zeros(8, flat.dtype))
    total = zero
    for v in flat[whole:]:
        total = total + v
    for v in lanes:
        total = total + v
    return total


def _reduce_sum(a: np.ndarray, dims: tuple[int, ...], keepdim: builtins.bool, dt: DType):
    """sum over ``dims`` in ``dt``. A float sum of everything is added in torch's order, the
    elements taken in memory order (TensorIterator coalesces a dense tensor into one row)."""
    if dt.is_floating_point and a.ndim and len(dims) == a.ndim and a.size:
        strides = _element_strides(a)
        if _non_overlapping_and_dense(a.shape, strides):
            order = sorted(range(a.ndim), key=lambda d: (-strides[d], -d))
            flat = np.transpose(a, order).reshape(-1)
        else:
            flat = a.reshape(-1)
        total = _cascade_sum(flat.astype(dt.np))
        return np.full((1,) * a.ndim if keepdim else (), total, dtype=dt.np)
    return np.sum(a, axis=dims if a.ndim else None, keepdims=keepdim, dtype=dt.np)


def _sum_backward(g: Tensor, sizes: Size, dims: tuple[int, ...], keepdim: builtins.bool):
    """FunctionsManual.cpp: sum_backward: put the reduced dims back (one unsqueeze each,
    in order: unsqueeze_multiple), then expand."""
    if not keepdim and sizes:
        for d in sorted(dims):
            g = unsqueeze(g, d)
    return g.expand(tuple(sizes))


class SumBackward0(Node):
    def apply(self, grads: list) -> list:
        """Task 3.2: sum of everything: expand g to the input's sizes."""
        ### BEGIN SOLUTION
        return [grads[0].expand(tuple(self.saved("self_sym_sizes")))]
        ### END SOLUTION


class SumBackward1(Node):
    def apply(self, grads: list) -> list:
        """Task 3.2: sum over ``dim``: unsqueeze the reduced dims unless keepdim, then expand."""
        ### BEGIN SOLUTION
        sizes = self.saved("self_sym_sizes")
        return [_sum_backward(grads[0], sizes, self.saved("dim"), self.saved("keepdim"))]
        ### END SOLUTION


def sum(self: Tensor, dim: int | Sequence[int] | None = None, keepdim: builtins.bool = False):
    """Task 3.2: ``a.sum()`` -> SumBackward0, ``a.sum(dim)`` -> SumBackward1
    (_saved_dim a tuple)."""
    ### BEGIN SOLUTION
    node = _make_node(SumBackward0 if dim is None else SumBackward1, self)  # (see _make_node)
    dims = _dims(dim, self.dim())
    dt = self.dtype if self.dtype.is_floating_point else int64
    out = _new(_reduce_sum(self._array, dims, keepdim, dt), dt)
    if node:
        if dim is not None:
            node.save("dim", dims)
            node.save("keepdim", keepdim)
        node.save("self_sym_sizes", self.shape)
        set_history(out, node)
    return out
    ### END SOLUTION


class MeanBackward0(Node):
    def apply(self, grads: list) -> list:
        """Task 3.2: expand g, divide by the element count (a C++ scalar division)."""
        ### BEGIN SOLUTION
        g = grads[0].expand(tuple(self.saved("self_sym_sizes")))
        return [_div_scalar(g, self.saved("self_sym_numel"))]
        ### END SOLUTION


class MeanBackward1(Node):
    def apply(self, grads: list) -> list:
        """Task 3.2: expand g over ``dim``, divide by the number of reduced elements."""
        ### BEGIN SOLUTION
        sizes, dims = self.saved("self_sym_sizes"), self.saved("dim")
        dims = dims if sizes else ()  # a 0-dim input: one element, no dim to count
        count = math.prod(sizes[d] for d in dims)
        return [_div_scalar(_sum_backward(grads[0], sizes, dims, self.saved("keepdim")), count)]
        ### END SOLUTION


def mean(self: Tensor, dim: int | Sequence[int] | None = None, keepdim: builtins.bool = False):
    """Task 3.2: -> MeanBackward0 (all) or MeanBackward1 (over dim)."""
    ### BEGIN SOLUTION
    if not self.dtype.is_floating_point:
        raise RuntimeError(
            "mean(): could not infer output dtype. Input dtype must be either a floating point "
            f"or complex dtype. Got: {self.dtype.legacy_name}"
        )
    node = _make_node(MeanBackward0 if dim is None else MeanBackward1, self)  # (_make_node)
    dims = _dims(dim, self.dim())
    count = math.prod(self.shape[d] for d in dims) if self.dim() else 1  # 0-dim: one element
    total = _reduce_sum(self._array, dims, keepdim, self.dtype)
    out = _new(np.asarray(total / self.dtype.np.type(count)).astype(self.dtype.np), self.dtype)
    if node:
        if dim is not None:
            node.save("dim", dims)
            node.save("keepdim", keepdim)
        node.save("self_sym_numel", self.numel())
        node.save("self_sym_sizes", self.shape)
        set_history(out, node)
    return out
    ### END SOLUTION


# --- views and shape ops --------------------------------------------------------------------------


class ViewBackward0(Node):
    def apply(self, grads: list) -> list:
        """Task 3.2: reshape g back to the input's sizes."""
        ### BEGIN SOLUTION
        return [grads[0].reshape(tuple(self.saved("self_sym_sizes")))]
        ### END SOLUTION


class UnsafeViewBackward0(ViewBackward0):
    pass


class ReshapeAliasBackward0(ViewBackward0):
    pass


def view(self: Tensor, shape: tuple[int, ...]) -> Tensor:
    """Task 3.2: a view with a new shape -> ViewBackward0; only where the strides allow it
    without a copy (``_nocopy_reshape``), else torch's error."""
    ### BEGIN SOLUTION
    node = _make_node(ViewBackward0, self)  # the node first, then the kernel (see _make_node)
    if _nocopy_reshape(self._array, shape) is None:
        raise RuntimeError(
            "view size is not compatible with input tensor's size and stride (at least one "
            "dimension spans across two contiguous subspaces). Use .reshape(...) instead."
        )
    out = _view_of(self, lambda a: _nocopy_reshape(a, shape))
    if node:
        node.save("self_sym_sizes", self.shape)
        set_history(out, node)
    return out
    ### END SOLUTION


def reshape(self: Tensor, shape: tuple[int, ...]) -> Tensor:
    """Task 3.2: as aten/src/ATen/native/TensorShape.cpp reshape: a contiguous input is
    viewed (ViewBackward0); a non-contiguous one whose strides allow it is viewed too, by
    ``_reshape_alias`` (ReshapeAliasBackward0); else a clone followed by ``_unsafe_view``
    (UnsafeViewBackward0 -> CloneBackward0). reshape has no node of its own: it checks the
    element count (at::infer_size) before anything records."""
    ### BEGIN SOLUTION
    _infer_view_size(shape, self.numel())
    if self._array.flags.c_contiguous:
        return view(self, shape)
    if _nocopy_reshape(self._array, shape) is not None:
        out = _view_of(self, lambda a: _nocopy_reshape(a, shape))
        if node := _make_node(ReshapeAliasBackward0, self):
            node.save("self_sym_sizes", self.shape)
            set_history(out, node)
        return out
    copy = clone(self)
    out = _new(copy._array.reshape(shape), self.dtype)
    if node := _make_node(UnsafeViewBackward0, copy):
        node.save("self_sym_sizes", copy.shape)
        set_history(out, node)
    return out
    ### END SOLUTION


class UnsqueezeBackward0(Node):
    def apply(self, grads: list) -> list:
        """Task 3.2: take the inserted dim of size 1 away again (``squeeze(dim)``)."""
        ### BEGIN SOLUTION
        return [squeeze(grads[0], self.saved("dim"))]
        ### END SOLUTION


class SqueezeBackward1(Node):
    def apply(self, grads: list) -> list:
        """Task 3.2: put the dim back if it was removed (unsqueeze_to)."""
        ### BEGIN SOLUTION
        sizes, dim = self.saved("self_sym_sizes"), self.saved("dim")
        return [unsqueeze(grads[0], dim) if sizes[dim] == 1 else grads[0]]
        ### END SOLUTION


def squeeze(self: Tensor, dim: int) -> Tensor:
    """Task 3.2: a view without ``dim`` if its size is 1 -> SqueezeBackward1 (``dim`` must
    exist: ``_wrap_dim``)."""
    ### BEGIN SOLUTION
    node = _make_node(SqueezeBackward1, self)  # the node first, then the kernel (_make_node)
    keep = self.shape[_wrap_dim(dim, self.dim())] != 1
    out = _view_of(self, lambda a: a if keep else np.squeeze(a, dim))
    if node:
        node.save("dim", dim)
        node.save("self_sym_sizes", self.shape)
        set_history(out, node)
    return out
    ### END SOLUTION


def unsqueeze(self: Tensor, dim: int) -> Tensor:
    """Task 3.2: a view with a new dim of size 1 at ``dim`` -> UnsqueezeBackward0 (_saved_dim);
    ``dim`` may be one past the last (``_wrap_dim`` with one dim more)."""
    ### BEGIN SOLUTION
    node = _make_node(UnsqueezeBackward0, self)  # the node first, then the kernel (_make_node)
    _wrap_dim(dim, self.dim() + 1)
    out = _view_of(self, lambda a: np.expand_dims(a, dim))
    if node:
        node.save("dim", dim)
        set_history(out, node)
    return out
    ### END SOLUTION


class TBackward0(Node):
    def apply(self, grads: list) -> list:
        """Task 3.2: transpose g back."""
        ### BEGIN SOLUTION
        return [grads[0].t()]
        ### END SOLUTION


def t(self: Tensor) -> Tensor:
    """Task 3.2: the transpose of a 2-D (or smaller) tensor, a view -> TBackward0; more dims
    raise RuntimeError (aten/src/ATen/native/TensorShape.cpp: check_t)."""
    ### BEGIN SOLUTION
    node = _make_node(TBackward0, self)  # the node first, then the kernel (see _make_node)
    if self.dim() > 2:
        raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is {self.dim()}D")
    out = _view_of(self, lambda a: a.T)
    if node:
        set_history(out, node)
    return out
    ### END SOLUTION


class TransposeBackward0(Node):
    def apply(self, grads: list) -> list:
        """Task 3.2: swap the same two dims of g."""
        ### BEGIN SOLUTION
        return [grads[0].transpose(self.saved("dim0"), self.saved("dim1"))]
        ### END SOLUTION


def transpose(self: Tensor, dim0: int, dim1: int) -> Tensor:
    """Task 3.2: swap two dims, a view -> TransposeBackward0 (_saved_dim0, _saved_dim1, as
    given). Each dim must exist (``_wrap_dim``: TensorShape.cpp transpose, maybe_wrap_dim)."""
    ### BEGIN SOLUTION
    node = _make_node(TransposeBackward0, self)  # the node first, then the kernel (_make_node)
    _wrap_dim(dim0, self.dim())
    _wrap_dim(dim1, self.dim())
    out = _view_of(self, lambda a: np.swapaxes(a, dim0, dim1))
    if node:
        node.save("dim0", dim0)
        node.save("dim1", dim1)
        set_history(out, node)
    return out
    ### END SOLUTION


class ExpandBackward0(Node):
    def apply(self, grads: list) -> list:
        """Task 3.2: sum g back to the input's sizes."""
        ### BEGIN SOLUTION
        return [sum_to(grads[0], self.saved("self_sym_sizes"))]
        ### END SOLUTION


def _expanded(a: np.ndarray, full: tuple[int, ...]) -> np.ndarray:
    """``a`` broadcast to ``full`` as a WRITABLE view (stride 0 where a dim is expanded), as
    torch's expand: writing it is the in-place op's business (the overlap check)."""
    lead = len(full) - a.ndim
    strides = [0] * lead + [
        0 if n == 1 and f != 1 else st
        for n, f, st in zip(a.shape, full[lead:], a.strides, strict=True)
    ]
    return np.lib.stride_tricks.as_strided(a, full, strides)


def expand(self: Tensor, sizes: tuple[int, ...]) -> Tensor:
    """Task 3.2: broadcast to ``sizes`` (-1 keeps a dim), a view -> ExpandBackward0. Sizes
    that do not fit raise torch's RuntimeError (``_expand_sizes``: inferExpandGeometry)."""
    ### BEGIN SOLUTION
    node = _make_node(ExpandBackward0, self)  # the node first, then the kernel (_make_node)
    full = _expand_sizes(self, sizes)
    out = _view_of(self, lambda a: _expanded(a, full))
    if node:
        node.save("self_sym_sizes", self.shape)
        set_history(out, node)
    return out
    ### END SOLUTION


class _EmbedBackward(Node):
    """The backward of select/slice's backward: index g again (for double backward)."""

    def apply(self, grads: list) -> list:
        return [_index(grads[0], self.saved("key"))]


class SelectBackwardBackward0(_EmbedBackward):
    pass


class SliceBackwardBackward0(_EmbedBackward):
    pass


def _index(t: Tensor, key: tuple) -> Tensor:
    """Index with a key ``(slice(None),)*dim + (int or slice,)``; one select or slice."""
    k = key[-1]
    if isinstance(k, int):
        return select(t, len(key) - 1, k)
    return slice_(t, len(key) - 1, k.start, k.stop, k.step)


def _embed(g: Tensor, sizes: Size, key: tuple, cls: type[Node]) -> Tensor:
    """Zeros of ``sizes`` with g placed at ``key`` (select_backward / slice_backward)."""
    arr = np.zeros(sizes, dtype=g.dtype.np)
    arr[key] = g._array
    out = _new(arr, g.dtype)
    if node := _make_node(cls, g):
        node.save("key", key)
        set_history(out, node)
    return out


class SelectBackward0(Node):
    def apply(self, grads: list) -> list:
        """Task 3.2: zeros of the input's sizes with g at ``index`` (select_backward)."""
        ### BEGIN SOLUTION
        key = (slice(None),) * self.saved("dim") + (self.saved("index"),)
        sizes = self.saved("self_sym_sizes")
        return [_embed(grads[0], sizes, key, SelectBackwardBackward0)]
        ### END SOLUTION


def select(self: Tensor, dim: int, index: int) -> Tensor:
    """Task 3.2: ``a[i]`` along ``dim``, a view -> SelectBackward0 (_saved_dim, _saved_index)."""
    ### BEGIN SOLUTION
    key = (slice(None),) * dim + (index, Ellipsis)  # the Ellipsis keeps a 0-dim result a view
    out = _view_of(self, lambda a: a[key])
    if node := _make_node(SelectBackward0, self):
        node.save("dim", dim)
        node.save("index", index)
        node.save("self_sym_sizes", self.shape)
        set_history(out, node)
    return out
    ### END SOLUTION


class SliceBackward0(Node):
    def apply(self, grads: list) -> list:
        """Task 3.2: zeros of the input's sizes with g at the slice (slice_backward)."""
        ### BEGIN SOLUTION
        end = self.saved("end")
        s = slice(self.saved("start"), None if end == _INT64_MAX else end, self.saved("step"))
        key = (slice(None),) * self.saved("dim") + (s,)
        sizes = self.saved("self_sym_sizes")
        return [_embed(grads[0], sizes, key, SliceBackwardBackward0)]
        ### END SOLUTION


def slice_(self: Tensor, dim: int, start: int | None, end: int | None, step: int | None):
    """Task 3.2: ``a[start:end:step]`` along ``dim``, a view -> SliceBackward0. torch saves an
    omitted end as INT64_MAX and an omitted start as 0."""
    ### BEGIN SOLUTION
    start, step = start or 0, step or 1
    end = _INT64_MAX if end is None else end
    s = slice(start, None if end == _INT64_MAX else end, step)
    key = (slice(None),) * dim + (s,)
    out = _view_of(self, lambda a: a[key])
    if node := _make_node(SliceBackward0, self):
        node.save("dim", dim)
        node.save("start", start)
        node.save("end", end)
        node.save("step", step)
        node.save("self_sym_sizes", self.shape)
        set_history(out, node)
    return out
    ### END SOLUTION


class AliasBackward0(Node):
    def apply(self, grads: list) -> list:
        """The identity: an alias is the same elements."""
        return [grads[0]]


def alias(self: Tensor) -> Tensor:
    """A view of all of ``self`` -> AliasBackward0 (what ``t[:]`` returns)."""
    out = _view_of(self, lambda a: a[...])
    if node := _make_node(AliasBackward0, self):
        set_history(out, node)
    return out


def getitem(self: Tensor, key: Any) -> Tensor:
    """Basic indexing as torch/csrc/autograd/python_variable_indexing.cpp applySlicing does it:
    one select per int (the dim goes away), one slice per slice, except a slice that keeps the
    whole dim (start 0, stop at least the length, step 1), which is skipped. If nothing was
    applied, THPVariable_getitem still returns a new tensor: ``at::alias(self)``. A bare slice
    (``t[:]``, not ``t[:, ...]``) takes THPVariable_getitem's fast path: always a slice."""
    if isinstance(key, slice):
        return slice_(self, 0, key.start, key.stop, key.step)
    key = key if isinstance(key, tuple) else (key,)
    out, dim = self, 0
    for k in key:
        if isinstance(k, int):
            out = select(out, dim, k)
        elif isinstance(k, slice):
            start, step = k.start or 0, k.step or 1
            stop = _INT64_MAX if k.stop is None else k.stop
            if not (start == 0 and stop >= out.shape[dim] and step == 1):
                out = slice_(out, dim, k.start, k.stop, k.step)
            dim += 1
        else:
            raise NotImplementedError(f"index {k!r}: ints and slices only")
    return alias(out) if out is self else out


class CloneBackward0(Node):
    def apply(self, grads: list) -> list:
        """Task 3.2: the identity."""
        ### BEGIN SOLUTION
        return [grads[0]]
        ### END SOLUTION


def clone(self: Tensor) -> Tensor:
    """Task 3.2: a copy with its own data and version counter -> CloneBackward0."""
    ### BEGIN SOLUTION
    out = _new(_preserve_format(self._array, self._array), self.dtype)
    if node := _make_node(CloneBackward0, self):
        set_history(out, node)
    return out
    ### END SOLUTION


class ToCopyBackward0(Node):
    def apply(self, grads: list) -> list:
        """Task 3.2: cast g back to the input's dtype."""
        ### BEGIN SOLUTION
        return [grads[0].to(self.saved("self_dtype"))]
        ### END SOLUTION


def to(self: Tensor, dtype: DType) -> Tensor:
    """Task 3.2: a dtype cast -> ToCopyBackward0 (no-op when the dtype is already right)."""
    ### BEGIN SOLUTION
    if dtype is self.dtype:
        return self
    out = _new(_preserve_format(self._array.astype(dtype.np), self._array), dtype)
    if node := _make_node(ToCopyBackward0, self):
        node.save("self_dtype", self.dtype)
        set_history(out, node)
    return out
    ### END SOLUTION


# === Task 3.3: the engine (torch/csrc/autograd/engine.cpp) =======================================


class AccumulateGrad(Node):
    """The node of a leaf (torch/csrc/autograd/functions/accumulate_grad.h). Its sequence_nr is
    UINT64_MAX, its ``variable`` the leaf; one per leaf, cached (grad_accumulator)."""

    def __init__(self, variable: Tensor) -> None:
        super().__init__(sequence_nr=_UINT64_MAX)
        self.variable = variable
        self._input_metadata = [(variable.shape, variable.dtype)]

    def name(self) -> str:
        return "torch::autograd::AccumulateGrad"

    def tensor_pre_hooks(self) -> list[tuple[int, dict[int, Callable]]]:
        return [(0, self.variable._backward_hooks)]  # a leaf's hooks live on the leaf

    def apply(self, grads: list) -> list:
        """Task 3.3: add the gradient into ``variable.grad`` (accumulate_grad.h: accumulateGrad).

        First gradient: stored (a detached copy without grad mode; with create_graph a
        differentiable copy, CopyBackwards), laid out like the leaf: the leaf's strides if it
        is dense, else contiguous (the "gradient layout contract"). Later ones: added IN PLACE
        without grad mode, ``grad = grad + new`` (a new tensor) with it. Then the
        post-accumulate-grad hooks, even when no gradient arrived (None: the leaf's input got
        none).
        """
        ### BEGIN SOLUTION
        new = grads[0]
        var = self.variable
        if new is None:  # nothing to add; the post-accumulate-grad hooks still run
            pass
        elif var.grad_fn is not None:  # an in-place op made the leaf a result since
            raise RuntimeError("leaf variable has been moved into the graph interior")
        elif var.grad is None:
            var.grad = zeros_like(new).copy_(new) if is_grad_enabled() else _new(new._array.copy())
            # laid out like the leaf (its strides if dense, else contiguous): accumulate_grad.h
            # steals a grad that obeys the layout contract, else utils::clone_obey_contract
            var.grad._array = _preserve_format(var.grad._array, var._array)
        elif not is_grad_enabled():
            var.grad._array += new._array.astype(var.grad.dtype.np)
            var.grad._bump_version()
        else:
            var.grad = var.grad + new
        for hook in list(var._post_accumulate_grad_hooks.values()):
            hook(var)
        return []
        ### END SOLUTION


def grad_accumulator(t: Tensor) -> AccumulateGrad:
    """The leaf's AccumulateGrad, created once and cached (variable.cpp: grad_accumulator)."""
    if t._grad_accumulator is None:
        t._grad_accumulator = AccumulateGrad(t)
    return t._grad_accumulator


class GraphRoot(Node):
    """The dummy root (functions/basic_ops.h): its outputs are the initial gradients."""

    def __init__(self, roots: list[Edge], grads: list[Tensor]) -> None:
        super().__init__()
        self._next_edges = roots
        self.outputs = grads

    def name(self) -> str:
        return "torch::autograd::GraphRoot"

    def apply(self, grads: list) -> list:
        return list(self.outputs)


class InputBuffer:
    """The gradients arriving for one node, one slot per node input (input_buffer.cpp)."""

    def __init__(self, size: int) -> None:
        self.buffer: list[Tensor | None] = [None] * size

    def add(self, pos: int, var: Tensor | None) -> None:
        """Task 3.3: store, or ADD to what already arrived for this input
        (InputBuffer::accumulate)."""
        ### BEGIN SOLUTION
        if var is None:
            return
        old = self.buffer[pos]
        self.buffer[pos] = var if old is None else old + var
        ### END SOLUTION


class ExecInfo:
    """GraphTask::ExecInfo: should a node run (needed), and which of its inputs to capture."""

    def __init__(self) -> None:
        self.needed = False
        self.captures: list[tuple[int, int]] = []  # (input_nr, index in the result)

    def should_execute(self) -> builtins.bool:
        return self.needed or builtins.bool(self.captures)


class GraphTask:
    """One backward call's state (engine.h: GraphTask)."""

    def __init__(self, keep_graph: builtins.bool, create_graph: builtins.bool) -> None:
        self.keep_graph = keep_graph
        self.create_graph = create_graph
        self.dependencies: dict[Node, int] = {}
        self.not_ready: dict[Node, InputBuffer] = {}
        self.exec_info: dict[Node, ExecInfo] = {}  # empty: run everything
        self.captured_vars: list[Tensor | None] = []

    def compute_dependencies(self, root: Node) -> None:
        """Task 3.3: count, for each node reachable from root, the edges pointing at it
        (Engine::compute_dependencies: a DFS over next_edges)."""
        ### BEGIN SOLUTION
        seen, stack = {root}, [root]
        while stack:
            node = stack.pop()
            for edge in node._next_edges:
                fn = edge.function
                if fn is None:
                    continue
                self.dependencies[fn] = self.dependencies.get(fn, 0) + 1
                if fn not in seen:
                    seen.add(fn)
                    stack.append(fn)
        ### END SOLUTION

    def init_to_execute(
        self, root: Node, outputs: list[Edge], accumulate_grad: builtins.bool
    ) -> None:
        """Task 3.3: with ``inputs=``, run only the nodes on a path to them
        (GraphTask::init_to_execute). ``grad()`` captures the gradient flowing into each output
        edge; ``backward(inputs=)`` marks their nodes needed so they accumulate."""
        ### BEGIN SOLUTION
        for i, (fn, input_nr) in enumerate(outputs):
            info = self.exec_info.setdefault(fn, ExecInfo())
            if accumulate_grad:
                info.needed = True
            else:
                info.captures.append((input_nr, i))
        self.captured_vars = [None] * len(outputs)
        # iterative post-order DFS: a node is needed if any child should execute (the root too)
        self.exec_info.setdefault(root, ExecInfo())
        seen, stack = {root}, [(root, iter(root._next_edges))]
        while stack:
            node, children = stack[-1]
            for edge in children:
                child = edge.function
                if child is None:
                    continue
                if child not in seen:
                    seen.add(child)
                    stack.append((child, iter(child._next_edges)))
                    break
                if child in self.exec_info and self.exec_info[child].should_execute():
                    self.exec_info.setdefault(node, ExecInfo()).needed = True
            else:
                stack.pop()
                info = self.exec_info.get(node)
                if stack and info is not None and info.should_execute():
                    self.exec_info.setdefault(stack[-1][0], ExecInfo()).needed = True
        ### END SOLUTION


def _is_expandable_to(shape: Sequence[int], desired: Sequence[int]) -> builtins.bool:
    """aten/src/ATen/ExpandUtils.h: is_expandable_to."""
    if len(shape) > len(desired):
        return False
    return all(s in (1, d) for s, d in zip(reversed(shape), reversed(desired), strict=False))


def validate_outputs(edges: list[Edge], grads: list[Tensor | None], name: str) -> list:
    """Task 3.3: each gradient must fit the input it flows to (engine.cpp: validate_outputs):
    a broadcastable shape is summed to it (at::sum_to), the dtype cast to the input's."""
    ### BEGIN SOLUTION
    if len(grads) != len(edges):
        raise RuntimeError(
            f"function {name} returned an incorrect number of gradients "
            f"(expected {len(edges)}, got {len(grads)})"
        )
    out = []
    for i, (edge, g) in enumerate(zip(edges, grads, strict=True)):
        if edge.function is None or g is None:
            out.append(g)
            continue
        shape, dtype = edge.function._input_metadata[edge.input_nr]
        if g.shape != shape:
            if not _is_expandable_to(shape, g.shape):
                raise RuntimeError(
                    f"Function {name} returned an invalid gradient at index {i} - got "
                    f"{_format_size(g.shape)} but expected shape compatible with "
                    f"{_format_size(shape)}"
                )
            g = sum_to(g, shape)
        out.append(g.to(dtype))
    return out
    ### END SOLUTION


def call_tensor_pre_hooks(node: Node, inputs: list) -> list:
    """The tensor hooks, tensor by tensor in the order each registered its first one, then the
    retains_grad hooks (engine.cpp: call_tensor_pre_hooks)."""
    inputs = list(inputs)
    for i, hooks in node.tensor_pre_hooks():
        for hook in list(hooks.values()):
            result = hook(inputs[i])
            if result is not None:
                inputs[i] = result
    for i, retain in sorted(node._retains_grad_hooks.items()):
        retain(inputs[i])
    return inputs


def call_function(task: GraphTask, node: Node, inputs: list) -> list:
    """Task 3.3: hooks around the node, in torch's order (engine.cpp: call_function): tensor
    pre-hooks, node pre-hooks, the node, validate_outputs, node post-hooks."""
    ### BEGIN SOLUTION
    inputs = call_tensor_pre_hooks(node, inputs)
    for hook in list(node._pre_hooks.values()):
        result = hook(tuple(inputs))
        if result is not None:
            inputs = list(result)
    outputs = node(inputs)
    outputs = validate_outputs(node._next_edges, list(outputs), node.name())
    for hook in list(node._post_hooks.values()):
        result = hook(tuple(outputs), tuple(inputs))
        if result is not None:
            outputs = list(result)
    return outputs
    ### END SOLUTION


def evaluate_function(task: GraphTask, node: Node, inputs: list, ready: list) -> None:
    """Task 3.3: run one node, then hand each gradient to the input buffer of the node its edge
    points at; a node whose dependency count reaches 0 goes into the ready queue
    (Engine::evaluate_function). Captures for ``grad()`` are taken here, before the node runs."""
    ### BEGIN SOLUTION
    info = task.exec_info.get(node) if task.exec_info else None
    if info is not None:
        if not info.needed:  # call the tensor hooks here: the node itself will not run
            inputs = call_tensor_pre_hooks(node, inputs)
        for input_nr, index in info.captures:
            task.captured_vars[index] = inputs[input_nr]
        if not info.needed:
            return
    outputs = call_function(task, node, inputs)
    if not task.keep_graph:
        node.release_variables()
    for edge, grad in zip(node._next_edges, outputs, strict=True):
        fn = edge.function
        if fn is None:
            continue
        task.dependencies[fn] -= 1
        is_ready = task.dependencies[fn] == 0
        if fn not in task.not_ready:
            if task.exec_info and (
                fn not in task.exec_info or not task.exec_info[fn].should_execute()
            ):
                continue
            task.not_ready[fn] = InputBuffer(fn.num_inputs())
        task.not_ready[fn].add(edge.input_nr, grad)
        if is_ready:
            push_ready(ready, fn, task.not_ready.pop(fn).buffer)
    ### END SOLUTION


_push_count = itertools.count()


def push_ready(ready: list, node: Node, inputs: list) -> None:
    """The ready queue is a max-heap on sequence_nr (ReadyQueue::CompareNodeTaskTime): the node
    created LAST runs first. Ties (AccumulateGrads, all UINT64_MAX) go first-in first-out."""
    heapq.heappush(ready, (-node._sequence_nr(), next(_push_count), node, inputs))


class _current_graph_task:
    """While a graph task runs, it is the thread's current one (engine.cpp: current_graph_task):
    a reentrant checkpoint asks it whether ``grad()`` or ``inputs=`` is at work."""

    def __init__(self, task: GraphTask) -> None:
        self.task = task

    def __enter__(self) -> None:
        if _state.inference_mode:
            raise NotImplementedError(
                "backward inside inference_mode: torch runs it, and every tensor it makes (the "
                "gradients) is an inference tensor; this engine does not model that"
            )
        _state.graph_tasks.append(self.task)

    def __exit__(self, *exc: object) -> None:
        _state.graph_tasks.pop()


def _is_checkpoint_valid() -> builtins.bool:
    """torch.autograd._is_checkpoint_valid (Engine::is_checkpoint_valid): no graph task runs,
    or the current one runs every node (no ``exec_info``: not grad(), not inputs=)."""
    tasks = _state.graph_tasks
    return not tasks or not tasks[-1].exec_info


def execute(task: GraphTask, root: Node, inputs: list | None = None) -> None:
    """Task 3.3: Engine::execute + thread_main: count dependencies, then, from ``root`` with
    its ``inputs`` (a GraphRoot has none), pop and evaluate nodes until the queue is empty,
    with grad mode = create_graph and ``task`` the current graph task
    (``_current_graph_task``)."""
    ### BEGIN SOLUTION
    task.compute_dependencies(root)
    ready: list = []
    push_ready(ready, root, list(inputs or []))
    with _current_graph_task(task), set_grad_enabled(task.create_graph):
        while ready:
            _, _, node, inputs = heapq.heappop(ready)
            evaluate_function(task, node, inputs, ready)
    ### END SOLUTION


def _tensor_tuple(x: Any) -> tuple:
    if x is None:
        return ()
    return (x,) if isinstance(x, Tensor) else tuple(x)


def _make_grads(outputs: tuple, grads: tuple) -> list:
    """torch/autograd/__init__.py: _make_grads: None -> ones for a scalar that requires grad."""
    new = []
    for out, g in zip(outputs, grads, strict=True):
        if g is not None:
            g = g if isinstance(g, Tensor) else tensor(g, dtype=out.dtype)
            if g.shape != out.shape:
                raise RuntimeError(
                    f"Mismatch in shape: grad_output[{len(new)}] has a shape of {g.shape!r} "
                    f"and output[{len(new)}] has a shape of {out.shape!r}."
                )
            new.append(g)
        elif out.requires_grad:
            if out.numel() != 1:
                raise RuntimeError("grad can be implicitly created only for scalar outputs")
            new.append(ones_like(out))
        else:
            new.append(None)
    return new


def run_backward(
    outputs: tuple,
    grads: list,
    keep_graph: builtins.bool,
    create_graph: builtins.bool,
    inputs: tuple,
    allow_unreachable: builtins.bool,
    accumulate_grad: builtins.bool,
) -> list:
    """Task 3.3: python_engine.cpp THPEngine_run_backward: root edges, a GraphRoot, the output
    edges of ``inputs``, then Engine::execute. Returns the captured gradients (for grad())."""
    ### BEGIN SOLUTION
    roots = []
    for i, out in enumerate(outputs):
        edge = gradient_edge(out)
        if edge.function is None:
            raise RuntimeError(
                f"element {i} of tensors does not require grad and does not have a grad_fn"
            )
        roots.append(edge)
    output_edges = []
    for t in inputs:
        if not isinstance(t, Tensor):
            raise RuntimeError(
                f"all inputs have to be Tensors or GradientEdges, but got {type(t).__name__}"
            )
        if not t.requires_grad:
            raise RuntimeError("One of the differentiated Tensors does not require grad")
        if accumulate_grad and t.grad_fn is not None:
            t.retain_grad()  # backward(inputs=non_leaf) fills its .grad
        output_edges.append(gradient_edge(t))
    task = GraphTask(keep_graph, create_graph)
    root, buffer = GraphRoot(roots, grads), []
    if len(roots) == 1:  # no GraphRoot for a single root: its node starts, with the gradient
        # in its input buffer (Engine::execute: skip_dummy_node), so its tensor hooks always run
        (edge,) = roots
        (grad,) = validate_outputs(roots, list(grads), "backward")
        root, buffer = edge.function, [None] * edge.function.num_inputs()
        buffer[edge.input_nr] = grad
    if output_edges:
        task.init_to_execute(root, output_edges, accumulate_grad)
    execute(task, root, buffer)
    captured = task.captured_vars
    if not accumulate_grad and not allow_unreachable:
        for i, g in enumerate(captured):
            if g is None:
                raise RuntimeError(
                    f"The differentiated Tensor at index {i} appears to not have been used in the "
                    "graph. Set allow_unused=True if this is the desired behavior."
                )
    return captured
    ### END SOLUTION


def backward(
    tensors: Tensor | Sequence[Tensor],
    grad_tensors: Tensor | Sequence[Tensor | None] | None = None,
    retain_graph: builtins.bool | None = None,
    create_graph: builtins.bool = False,
    inputs: Tensor | Sequence[Tensor] | None = None,
) -> None:
    """Task 3.3: torch.autograd.backward: accumulate into the leaves' ``.grad``."""
    ### BEGIN SOLUTION
    outputs = _tensor_tuple(tensors)
    grads = _tensor_tuple(grad_tensors) if grad_tensors is not None else (None,) * len(outputs)
    if inputs is not None and len(_tensor_tuple(inputs)) == 0:
        raise RuntimeError("`inputs` argument to `backward()` cannot be empty.")
    keep = create_graph if retain_graph is None else retain_graph
    run_backward(
        outputs,
        _make_grads(outputs, grads),
        keep,
        create_graph,
        _tensor_tuple(inputs),
        True,
        True,
    )
    ### END SOLUTION


def grad(
    outputs: Tensor | Sequence[Tensor],
    inputs: Tensor | Sequence[Tensor],
    grad_outputs: Tensor | Sequence[Tensor | None] | None = None,
    retain_graph: builtins.bool | None = None,
    create_graph: builtins.bool = False,
    allow_unused: builtins.bool | None = None,
) -> tuple[Tensor | None, ...]:
    """Task 3.3: torch.autograd.grad: the gradients of ``outputs`` w.r.t. ``inputs``, returned,
    ``.grad`` untouched (captured at the inputs' edges, which do not run)."""
    ### BEGIN SOLUTION
    if outputs is None:  # torch/autograd/__init__.py: tuple(outputs)
        raise TypeError("'NoneType' object is not iterable")
    outs = _tensor_tuple(outputs)
    ins = _tensor_tuple(inputs)
    gos = _tensor_tuple(grad_outputs) if grad_outputs is not None else (None,) * len(outs)
    keep = create_graph if retain_graph is None else retain_graph
    captured = run_backward(
        outs, _make_grads(outs, gos), keep, create_graph, ins, builtins.bool(allow_unused), False
    )
    return tuple(captured)
    ### END SOLUTION


# === Task 3.4: saved variables, in-place ops and hooks ===========================================

_ERR_BACKWARD_TWICE = (
    "Trying to backward through the graph a second time (or directly access saved tensors after "
    "they have already been freed). Saved intermediate values of the graph are freed when you "
    "call .backward() or autograd.grad(). Specify retain_graph=True if you need to backward "
    "through the graph a second time or if you need to access saved tensors after calling "
    "backward."
)


def _op_name(node: Node | None) -> str:
    return re.sub(r"Backward\d*$", "", node.name()) if node is not None else ""


class SavedVariable:
    """A tensor kept for backward (torch/csrc/autograd/saved_variable.cpp). It remembers the
    version it was saved at; the saved-tensor hooks active when it was saved pack it."""

    def __init__(self, t: Tensor, is_output: builtins.bool) -> None:
        """Task 3.2: record the version and the producer, then store or PACK the tensor
        (SavedVariable::SavedVariable, with the default hooks of saved_tensors_hooks). An
        inference tensor cannot be saved; a wrapped Python number is stored, never packed."""
        ### BEGIN SOLUTION
        if t._is_inference:
            raise RuntimeError(
                "Inference tensors cannot be saved for backward. Please do not use Tensors "
                "created in inference mode in computation tracked by autograd. To work around "
                "this, you can make a clone to get a normal tensor and use it in autograd, or "
                "use `torch.no_grad()` instead of `torch.inference_mode()`."
            )
        self.saved_version = t._version_counter[0]
        self.version_counter = t._version_counter
        self.is_output = is_output
        self.output_nr = t.output_nr
        self.producer = t.grad_fn if is_output else None  # an output's node, fixed now
        self.shape, self.dtype = t.shape, t.dtype
        stack = _state.saved_tensors_hooks
        self.hooks = stack[-1] if stack and not t._is_wrapped_number else None
        self.data = None if self.hooks else t
        self.packed = None
        if self.hooks:  # what unpack will re-attach to the graph (save_metadata), then pack
            self.is_leaf, self.requires_grad = t.is_leaf, t.requires_grad
            self.grad_fn = None if is_output or t.is_leaf else t.grad_fn
            self.accumulator = grad_accumulator(t) if t.is_leaf and t._requires_grad else None
            with no_grad():  # set_hooks_and_pack_data: the pack hook runs without grad mode
                self.packed = self.hooks[0](t)
        self.released = False
        ### END SOLUTION

    def reset_data(self) -> None:
        self.data, self.packed, self.released = None, None, True

    def unpack(self) -> Tensor:
        """Task 3.2: the tensor back (SavedVariable::unpack), after two checks: not freed by
        a backward without retain_graph, and not modified in place since it was saved
        (its version counter moved: raise ``modified_in_place_error``, written later)."""
        ### BEGIN SOLUTION
        if self.released:
            raise RuntimeError(_ERR_BACKWARD_TWICE)
        if self.hooks is not None:
            return self._unpack_hooked()
        if self.version_counter[0] != self.saved_version:
            raise modified_in_place_error(self)
        return self.data
        ### END SOLUTION

    def _unpack_hooked(self) -> Tensor:
        """With hooks torch cannot follow versions (no check), and what unpack_hook returns
        is given the graph place of the tensor that was saved: its grad_fn and output_nr (the
        node itself for a saved output), or, for a leaf, its requires_grad and AccumulateGrad
        (saved_variable.cpp: SavedVariable::unpack, make_variable)."""
        data = self.hooks[1](self.packed)
        var = Tensor(data._array)
        var._version_counter = self.version_counter
        if self.is_leaf:
            var._requires_grad, var._grad_accumulator = self.requires_grad, self.accumulator
        else:
            var.grad_fn = self.producer if self.is_output else self.grad_fn
            var.output_nr = self.output_nr
        return var


def modified_in_place_error(saved: SavedVariable) -> RuntimeError:
    """Task 3.4: torch's error for a saved tensor changed in place (SavedVariable::unpack in
    torch/csrc/autograd/saved_variable.cpp): its type and size, the node whose output it
    was, the version it is at and the one it was saved at."""
    ### BEGIN SOLUTION
    current = saved.version_counter[0]
    producer = saved.producer if saved.is_output else getattr(saved.data, "grad_fn", None)
    which = f", which is output {saved.output_nr} of {_op_name(producer)}," if producer else ""
    return RuntimeError(
        "one of the variables needed for gradient computation has been modified by an "
        f"inplace operation: [torch.{saved.dtype.legacy_name}Tensor "
        f"{_format_size(saved.shape)}]{which} is at version {current}; expected version "
        f"{saved.saved_version} instead. Hint: enable anomaly detection to find the "
        "operation that failed to compute its gradient, with "
        "torch.autograd.set_detect_anomaly(True, check_nan=False)."
    )
    ### END SOLUTION


def check_inplace(t: Tensor, *others: Any) -> None:
    """Task 3.4: the checks before an in-place op that will be recorded (grad mode on, an
    input requires grad), in torch's order (torch/csrc/autograd/VariableTypeUtils.h:
    check_inplace): a view made under no_grad or inference_mode (or returned by a custom
    Function) may not be written (``handle_view_on_rebase``); nor a view of a leaf that
    requires grad; nor such a leaf itself: it would change a value the graph, and the
    optimizer, think is fixed."""
    if t._is_inference and not _state.inference_mode:
        return  # nothing will be recorded (_make_inplace_node); the version bump raises
    ### BEGIN SOLUTION
    if not _requires_grad(t, *others):
        return
    base = t._base
    if base is not None:
        handle_view_on_rebase(t)
        if t.requires_grad and base._grad_fn is None:
            raise RuntimeError(
                "a view of a leaf Variable that requires grad is being used in an in-place "
                "operation."
            )
    if t._grad_fn is None and t.requires_grad:  # C++ is_leaf(): a stale view's is not remade
        raise RuntimeError(
            "a leaf Variable that requires grad is being used in an in-place operation."
        )
    ### END SOLUTION


_VIEW_REBASE_REASONS = {
    "NO_GRAD_MODE": (
        " Given that this use case is ambiguous and error-prone, it is forbidden. You can clarify"
        " your code by moving both the view and the inplace either both inside the no_grad block"
        " (if you don't want the inplace to be tracked) or both outside (if you want the inplace"
        " to be tracked)."
    ),
    "INFERENCE_MODE": (
        " Given that this use case is ambiguous and error-prone, it is forbidden. You can clarify"
        " your code by moving both the view and the inplace either both inside the"
        " inference_mode block (if you don't want the inplace to be tracked) or both outside (if"
        " you want the inplace to be tracked)."
    ),
    "IN_CUSTOM_FUNCTION": (
        " This view was created inside a custom Function (or because an input was returned"
        " as-is) and the autograd logic to handle view+inplace would override the custom"
        " backward associated with the custom Function, leading to incorrect gradients. This"
        " behavior is forbidden. You can fix this by cloning the output of the custom Function."
    ),
}


def handle_view_on_rebase(view: Tensor, indirect: builtins.bool = False) -> None:
    """Task 3.4: a view that was not made in plain grad mode (its ``_creation_meta``) cannot
    follow an in-place write: through itself (``indirect=False``), or through its base or
    another view of it (``indirect=True``, found when its grad_fn is next read). torch raises,
    naming what happened (variable.cpp: handle_view_on_rebase)."""
    ### BEGIN SOLUTION
    meta = view._creation_meta
    if meta == "DEFAULT":
        return
    fn = view._grad_fn
    what = "its base or another view of its base has been" if indirect else "is being"
    if meta in ("NO_GRAD_MODE", "INFERENCE_MODE") or fn is None:
        prefix = "A view was created in"
        if fn is not None:
            prefix = (
                f"Output {view.output_nr} of {fn.name()} is a view of a view which was created in"
            )
        if meta == "INFERENCE_MODE":
            msg = f"{prefix} inference mode and {what} modified inplace in normal mode."
        else:
            msg = f"{prefix} no_grad mode and {what} modified inplace with grad mode enabled."
    else:
        msg = f"Output {view.output_nr} of {fn.name()} is a view and {what} modified inplace."
    raise RuntimeError(msg + _VIEW_REBASE_REASONS.get(meta, ""))
    ### END SOLUTION


def _view_index(view: Tensor) -> np.ndarray:
    """Where each element of ``view`` sits in its root base, as flat (C-order) positions: the
    view's own function applied to the positions of the base, laid out as the base is laid
    out (so the same reshapes are views). torch keeps sizes, strides and an offset instead
    (at::TensorGeometry); positions say the same for a NumPy engine."""
    base = view._base
    positions = np.empty_like(base._array, dtype=np.int64)
    positions[...] = np.arange(base.numel()).reshape(base.shape)
    return np.asarray(view._view_fn(positions))


def _refuse_double_backward(node: Node, g: Tensor) -> None:
    """In a backward with create_graph (grad mode on inside it), refuse."""
    if is_grad_enabled():
        raise NotImplementedError(
            f"create_graph through {node.name()}: torch's formula is as_strided_scatter / "
            "copy_ into a strided view, and records its own nodes; this engine does not model "
            "a second derivative through an in-place write on a view"
        )


class AsStridedBackward0(Node):
    """The grad_fn a view gets when its base, or another view of it, was written in place: the
    view is then "these elements of the base" (as_strided), whatever ops made it."""

    def apply(self, grads: list) -> list:
        """Task 3.4: zeros of the base's sizes, g added at the view's positions (several view
        elements may share one base element: expand) (FunctionsManual: as_strided_backward)."""
        ### BEGIN SOLUTION
        (g,) = grads
        _refuse_double_backward(self, g)
        sizes, index = self.saved("self_sym_sizes"), self.saved("index")
        out = np.zeros(math.prod(sizes), dtype=g.dtype.np)
        np.add.at(out, index.reshape(-1), g._array.reshape(-1))
        return [_new(out.reshape(sizes), g.dtype)]
        ### END SOLUTION


class CopySlices(Node):
    """The base's grad_fn after an in-place op on one of its views (functions/tensor.h): it
    wraps the op's node ``fn``. Its edges: the base's old gradient edge, then fn's other edges
    (what the op read besides the view)."""

    def __init__(self, base: Tensor, view: Tensor, fn: Node) -> None:
        super().__init__()
        self.fn = fn
        self._input_metadata = [(base.shape, base.dtype)]
        self._next_edges = [gradient_edge(base), *fn._next_edges[1:]]
        self.save("index", _view_index(view))

    def name(self) -> str:
        return "torch::autograd::CopySlices"

    def _mark_fn_input_needed(self) -> None:
        """With ``inputs=`` or ``grad()``, init_to_execute did not look inside this node: if
        the base's gradient is wanted, fn's gradient for the view is too, so fn's first edge
        is marked needed now (CopySlices::apply_impl, add_node_to_current_graph_task_exec_info)."""
        task = _state.graph_tasks[-1] if _state.graph_tasks else None
        fn_next = self.fn._next_edges[0].function
        if task and task.exec_info and fn_next is not None and self.needs(0):
            task.exec_info.setdefault(fn_next, ExecInfo()).needed = True

    def release_variables(self) -> None:
        """torch drops fn itself (CopySlices::release_variables: fn = nullptr): running this
        node again, even if fn saved nothing, is a second backward."""
        self.fn.release_variables()
        self.fn_released = True

    def apply(self, grads: list) -> list:
        """Task 3.4: the base's gradient is g, except at the view's positions, where it is what
        fn gives for the view (fn runs on g's slice); fn's other gradients pass through
        (CopySlices::apply_impl)."""
        ### BEGIN SOLUTION
        (g,) = grads
        if getattr(self, "fn_released", False):
            raise RuntimeError(_ERR_BACKWARD_TWICE)
        _refuse_double_backward(self, g)
        index = self.saved("index")
        result = g._array.copy().reshape(-1)
        grad_slice = _new(result[index], g.dtype)
        self._mark_fn_input_needed()
        res = self.fn([grad_slice])
        out: list[Tensor | None] = [None] * len(self._next_edges)
        for i, r in enumerate(res):
            if r is None or not self.needs(i):
                continue
            if i == 0:  # grad_slice.copy_(res[0]): a copy into the view's elements
                if np.unique(index).size < index.size:  # an expanded view: overlapping
                    raise RuntimeError(
                        "unsupported operation: more than one element of the written-to tensor "
                        "refers to a single memory location. Please clone() the tensor before "
                        "performing the operation."
                    )
                result[index.reshape(-1)] = np.broadcast_to(r._array, index.shape).reshape(-1)
                out[0] = _new(result.reshape(g.shape), g.dtype)
            else:
                out[i] = r
        return out
        ### END SOLUTION


def view_grad_fn(view: Tensor) -> Node | None:
    """Task 3.4: the grad_fn of a view whose base, or another view of it, was written in place
    since the view's grad_fn was set (the Tensor.grad_fn property calls this then): torch
    makes a new AsStridedBackward0 from the view's base, the view is its output 0, and a
    ``retain_grad()`` moves with it (variable.cpp: VariableHooks::grad_fn). A view made under
    no_grad raises here (``handle_view_on_rebase``); one of a base that needs no grad keeps
    None."""
    ### BEGIN SOLUTION
    base = view._base
    if view._grad_fn is None and not base.requires_grad:
        return None
    handle_view_on_rebase(view, indirect=True)
    node = AsStridedBackward0()
    node._next_edges = collect_next_edges(base)
    node._input_metadata = [(view.shape, base.dtype)]
    node.save("self_sym_sizes", base.shape)
    node.save("index", _view_index(view))
    _move_retains_grad(view, node)
    view.grad_fn = node
    view.output_nr = 0
    return node
    ### END SOLUTION


def _move_retains_grad(t: Tensor, new: Node) -> None:
    """Before ``t`` gets ``new`` as its grad_fn (as its output 0): its retains_grad hook moves
    from the old grad_fn to it; its other tensor hooks stay with the old node (they keep firing
    there), and hooks registered from now on go to the new one
    (variable.cpp: update_tensor_hooks_on_new_gradfn)."""
    old = t._grad_fn
    if t._retains_grad and old is not None:
        hook = old._retains_grad_hooks.pop(t.output_nr, None)
        if hook is not None:
            new._retains_grad_hooks[0] = hook


def _rebase_history(t: Tensor, node: Node | None) -> None:
    """After an in-place op: bump the version (an inference tensor outside inference_mode
    raises here, after the write, as VariableVersion::bump does); then, if recorded,
    ``rebase_history``."""
    t._bump_version()
    if node is not None:
        rebase_history(t, node)


def rebase_history(t: Tensor, node: Node) -> None:
    """Task 3.4: the in-place op's node becomes t's grad_fn, t its output 0
    (variable.cpp: rebase_history). On a view, the op changed its base too: the base gets a
    CopySlices wrapping the node (and the base's retain_grad moves to it), and the view's
    grad_fn is read again, so it becomes an AsStridedBackward0 of the base."""
    ### BEGIN SOLUTION
    if t._base is not None:
        base = t._base
        copy_slices = CopySlices(base, t, node)
        _move_retains_grad(base, copy_slices)
        base.grad_fn = copy_slices
        base.output_nr = 0
        t.grad_fn  # noqa: B018 - reading it makes the view's new grad_fn
        return
    _move_retains_grad(t, node)
    t._grad_accumulator = None
    t.grad_fn = None
    set_history(t, node)
    ### END SOLUTION


def _bounds(a: np.ndarray) -> tuple[int, int]:
    """The bytes an array spans, first to one past the last (its memory range)."""
    low = high = a.__array_interface__["data"][0]
    for n, stride in zip(a.shape, a.strides, strict=True):
        if n == 0:
            return low, low
        (low, high) = (
            (low + (n - 1) * stride, high) if stride < 0 else (low, high + (n - 1) * stride)
        )
    return low, high + a.itemsize


def _check_inplace_write(self: Tensor, other: Tensor, cast: builtins.bool = False) -> None:
    """What the kernel of an in-place op checks before it writes (aten/src/ATen/MemoryOverlap.cpp
    and TensorIterator): no two elements of ``self`` share memory (an expanded tensor), the
    input does not partly overlap ``self`` (the same memory with the same strides is fine), the
    input broadcasts to ``self``'s shape, and the result dtype can be stored in ``self`` (not
    float into int; copy_ casts anything)."""
    a, b = self._array, other._array
    same = (_bounds(a)[0], a.shape, a.strides, a.dtype) == (
        _bounds(b)[0],
        b.shape,
        b.strides,
        b.dtype,
    )
    if cast and same:  # copy_impl: the same elements already: nothing to check (or copy)
        return
    if a.size > 1 and any(st == 0 and n > 1 for n, st in zip(a.shape, a.strides, strict=True)):
        raise RuntimeError(
            "unsupported operation: more than one element of the written-to tensor refers to a "
            "single memory location. Please clone() the tensor before performing the operation."
        )
    (lo_a, hi_a), (lo_b, hi_b) = _bounds(a), _bounds(b)
    dense = all(
        _non_overlapping_and_dense(x.shape, _element_strides(x)) and x.size for x in (a, b)
    )  # get_overlap_status: "too hard" to tell otherwise, and then no error
    full = (lo_a, hi_a) == (lo_b, hi_b) and _element_strides(a) == _element_strides(b)
    if dense and not full and lo_a < hi_b and lo_b < hi_a:
        raise RuntimeError(
            "unsupported operation: some elements of the input tensor and the written-to tensor "
            "refer to a single memory location. Please clone() the tensor before performing the "
            "operation."
        )
    shape = _infer_size(self.shape, other.shape)  # compute_shape, then mark_resize_outputs:
    if shape != self.shape:  # self cannot grow to the broadcast shape
        raise RuntimeError(
            f"output with shape {_format_size(self.shape)} doesn't match the broadcast shape "
            f"{_format_size(shape)}"
        )
    common = result_type(self, other)
    if not cast and common.is_floating_point and not self.dtype.is_floating_point:
        raise RuntimeError(
            f"result type {common.legacy_name} can't be cast to the desired output type "
            f"{self.dtype.legacy_name}"
        )


def _write_in_place(np_op: Callable, self: Tensor, other: Tensor, alpha: Any = 1) -> None:
    """``self = op(self, alpha * other)`` in place. If ``other`` reads memory that ``self``
    writes (a view of it, allowed when the overlap check cannot tell), torch's kernel reads
    each element just before it writes the same position, in memory order; NumPy would read
    a copy of ``other`` made first, so that case goes element by element."""
    a, src = self._array, other._array
    common = result_type(self, other).np  # computed in the common dtype, then stored
    scale = np.asarray(alpha, dtype=common)
    if not np.shares_memory(a, src):
        b = src.astype(common)
        a[...] = np_op(a.astype(common), b if alpha == 1 else b * scale)
        return
    view = np.broadcast_to(src, a.shape)  # reads the current values as the loop goes
    in_memory_order = sorted(
        np.ndindex(a.shape),
        key=lambda i: builtins.sum(n * s for n, s in zip(i, a.strides, strict=True)),
    )
    for index in in_memory_order:
        value = view[index].astype(common)
        a[index] = np_op(a[index].astype(common), value if alpha == 1 else value * scale)


def _check_operand(name: str, other: Any) -> None:
    """An in-place op's ``other``: a tensor or a number, else torch's TypeError."""
    if not isinstance(other, Tensor | int | builtins.float):
        raise TypeError(
            f"{name}(): argument 'other' (position 1) must be Tensor, not {type(other).__name__}"
        )


def add_(self: Tensor, other: Any, alpha: builtins.float = 1) -> Tensor:
    """Task 3.4: in-place ``self += alpha * other`` -> AddBackward0 with edges (old self,
    other); alpha is a number the node keeps, not an op of its own."""
    ### BEGIN SOLUTION
    _check_operand("add_", other)
    b = _wrap(other)
    check_inplace(self, b)
    node = _make_inplace_node(AddBackward0, self, b)
    if node:
        node.save("alpha", alpha)
        node.save("shapes", (self.shape, b.shape))
    _check_inplace_write(self, b)
    _write_in_place(np.add, self, b, alpha)
    _rebase_history(self, node)
    return self
    ### END SOLUTION


def mul_(self: Tensor, other: Any) -> Tensor:
    """Task 3.4: in-place mul -> MulBackward0, saving a CLONE of the old self (torch's
    VariableType does the same: the old value is gone after the op)."""
    ### BEGIN SOLUTION
    _check_operand("mul_", other)
    b = _wrap(other)
    check_inplace(self, b)
    node = _make_inplace_node(MulBackward0, self, b)
    if node:
        node.save("other", b if node.should_compute_output(0) else None)
        node.save("self", clone(self) if node.should_compute_output(1) else None)
        node.save("shapes", (self.shape, b.shape))
    _check_inplace_write(self, b)
    _write_in_place(np.multiply, self, b)
    _rebase_history(self, node)
    return self
    ### END SOLUTION


class ZeroBackward0(Node):
    def apply(self, grads: list) -> list:
        """Task 3.4: the old value does not matter: zero gradient (zeros_like, not ``g * 0``:
        an inf or nan in g must not turn into nan)."""
        ### BEGIN SOLUTION
        return [zeros_like(grads[0])]
        ### END SOLUTION


def zero_(self: Tensor) -> Tensor:
    """Task 3.4: in-place fill with 0 -> ZeroBackward0."""
    ### BEGIN SOLUTION
    check_inplace(self)
    node = _make_inplace_node(ZeroBackward0, self)
    self._array[...] = 0
    _rebase_history(self, node)
    return self
    ### END SOLUTION


class SqueezeBackward4(Node):
    def apply(self, grads: list) -> list:
        """Task 3.4: put the removed dim of size 1 back (unsqueeze_to)."""
        ### BEGIN SOLUTION
        return [unsqueeze(grads[0], self.saved("dim"))]
        ### END SOLUTION


def squeeze_(self: Tensor, dim: int) -> Tensor:
    """Task 3.4: remove ``dim`` (of size 1) IN PLACE: an in-place op like the others (checked,
    version bumped, history rebased) that changes the shape, not the values -> SqueezeBackward4
    (torch's overload for ``squeeze_(dim)``)."""
    ### BEGIN SOLUTION
    check_inplace(self)
    node = _make_inplace_node(SqueezeBackward4, self)
    if node:
        node.save("dim", dim)
        node.save("self_sym_sizes", self.shape)
    if self.shape[dim] == 1:
        self._array = np.squeeze(self._array, dim)
    _rebase_history(self, node)
    return self
    ### END SOLUTION


class CopyBackwards(Node):
    def name(self) -> str:
        return "torch::autograd::CopyBackwards"

    def apply(self, grads: list) -> list:
        """Task 3.4: no gradient to the overwritten self; src gets g, summed to its shape."""
        ### BEGIN SOLUTION
        (g,) = grads
        return [
            zeros_like(g) if self.needs(0) else None,
            sum_to(g.to(self.saved("src_dtype")), self.saved("src_sizes"))
            if self.needs(1)
            else None,
        ]
        ### END SOLUTION


def copy_(self: Tensor, src: Any) -> Tensor:
    """Task 3.4: in-place copy (broadcasting src) -> CopyBackwards (functions/tensor.h)."""
    ### BEGIN SOLUTION
    if not isinstance(src, Tensor):
        raise TypeError(
            f"copy_(): argument 'other' (position 1) must be Tensor, not {type(src).__name__}"
        )
    s = src
    check_inplace(self, s)
    node = _make_inplace_node(CopyBackwards, self, s)
    if node:
        node.save("src_sizes", s.shape)
        node.save("src_dtype", s.dtype)
    _check_inplace_write(self, s, cast=True)
    self._array[...] = np.broadcast_to(s._array.astype(self.dtype.np), self.shape)
    _rebase_history(self, node)
    return self
    ### END SOLUTION


def register_tensor_hook(t: Tensor, hook: Callable) -> RemovableHandle:
    """Task 3.4: Tensor.register_hook: hook(grad) runs when t's gradient is computed and may
    return a replacement. A leaf keeps its hooks (its AccumulateGrad reads them); a non-leaf's
    go on its grad_fn, for input ``output_nr`` (torch/_tensor.py: register_hook)."""
    ### BEGIN SOLUTION
    if not t.requires_grad:
        raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
    if t.grad_fn is None:
        return _add_hook(t._backward_hooks, hook)
    return _add_hook(t.grad_fn._tensor_pre_hooks.setdefault(t.output_nr, {}), hook)
    ### END SOLUTION


def register_post_accumulate_grad_hook(t: Tensor, hook: Callable) -> RemovableHandle:
    """Task 3.4: hook(tensor) after AccumulateGrad updated ``t.grad`` (leaves only)."""
    ### BEGIN SOLUTION
    if not t.requires_grad:
        raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
    if t.grad_fn is not None:
        raise RuntimeError("post accumulate grad hooks cannot be registered on non-leaf tensors")
    return _add_hook(t._post_accumulate_grad_hooks, hook)
    ### END SOLUTION


def retain_grad(t: Tensor) -> None:
    """Task 3.4: make a non-leaf keep its ``.grad``: a retains_grad hook on its grad_fn that runs
    after its other tensor hooks (VariableHooks::retain_grad). A no-op on leaves."""
    ### BEGIN SOLUTION
    if not t.requires_grad:
        raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
    if t.is_leaf or t._retains_grad:
        return

    def retain(g: Tensor | None) -> None:
        if g is not None:  # a copy the first time, then a new sum (not in place)
            t.grad = clone(g) if t.grad is None else t.grad + g

    t.grad_fn._retains_grad_hooks[t.output_nr] = retain
    t._retains_grad = True
    ### END SOLUTION


# === Task 3.5: autograd.Function and gradcheck ====================================================


class FunctionCtx:
    """What ``forward(ctx, ...)`` gets (torch/autograd/function.py: FunctionCtx)."""

    def save_for_backward(self, *tensors: Tensor | None) -> None:
        self.to_save = tensors

    def mark_non_differentiable(self, *tensors: Tensor) -> None:
        self.non_differentiable = tensors

    def set_materialize_grads(self, value: builtins.bool) -> None:
        self.materialize_grads = value

    @property
    def saved_tensors(self) -> tuple[Tensor | None, ...]:
        """Task 3.5: unpack the SavedVariables (version-checked, hooks applied)."""
        ### BEGIN SOLUTION
        saved = self.__dict__.get("_saved_variables")
        if saved is None:  # read inside forward, before _save_variables
            return tuple(self.__dict__.get("to_save", ()))
        return tuple(None if s is None else s.unpack() for s in saved)
        ### END SOLUTION


class BackwardCFunction(Node, FunctionCtx):
    """The node of a custom Function: it is also the ctx (torch/autograd/function.py). Its class
    is made per Function: ``MyReLUBackward``."""

    _forward_cls: type[Function]

    def __init__(self) -> None:
        super().__init__()
        self.to_save: tuple = ()
        self.materialize_grads = True
        self.non_differentiable: tuple = ()
        self.needs_input_grad: tuple[builtins.bool, ...] = ()
        self._tensor_positions: list[int] = []
        self._output_info: list[tuple[Size, DType]] = []  # every tensor output's shape, dtype

    def release_variables(self) -> None:
        for s in self.__dict__.get("_saved_variables") or ():
            if s is not None:
                s.reset_data()

    def apply(self, grads: list) -> list:
        """Task 3.5: call the user's backward (zeros for undefined grads unless
        set_materialize_grads(False)); keep the gradients of the TENSOR arguments."""
        ### BEGIN SOLUTION
        if self.materialize_grads:  # zeros shaped like the output (non-differentiable too)
            grads = [
                zeros(*info[0], dtype=info[1]) if g is None else g
                for g, info in zip(grads, self._output_info, strict=True)
            ]
        result = self._forward_cls.backward(self, *grads)
        result = result if isinstance(result, tuple) else (result,)
        n_args = len(self.needs_input_grad)
        # extra gradients are dropped when all are None (python_function.cpp PyNode::apply:
        # "Returning too many results is ok, but only as long as they're all None")
        if len(result) > n_args and all(g is None for g in result[n_args:]):
            result = result[:n_args]
        if len(result) != n_args:
            raise RuntimeError(
                f"function {self.name()} returned an incorrect number of gradients "
                f"(expected {n_args}, got {len(result)})"
            )
        return [result[i] for i in self._tensor_positions]
        ### END SOLUTION


class Function:
    """torch.autograd.Function: subclass with static ``forward(ctx, *args)`` and
    ``backward(ctx, *grads)``; call ``.apply(*args)``."""

    _backward_cls: type[BackwardCFunction]

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        # torch/autograd/function.py FunctionMeta: the node class is "<Name>Backward"
        cls._backward_cls = type(
            f"{cls.__name__}Backward", (BackwardCFunction,), {"_forward_cls": cls}
        )

    @staticmethod
    def forward(ctx: Any, *args: Any) -> Any:
        raise NotImplementedError

    @staticmethod
    def backward(ctx: Any, *grads: Any) -> Any:
        raise NotImplementedError

    @classmethod
    def apply(cls, *args: Any) -> Any:
        """Task 3.5: run forward under no_grad with the node as ctx; if an input requires grad,
        the tensor outputs get the node as grad_fn, then the saved tensors are saved
        (torch/csrc/autograd/python_function.cpp: THPFunction_apply, process_outputs)."""
        ### BEGIN SOLUTION
        ctx = cls._backward_cls()
        # needs_input_grad is each input's requires_grad, whatever the grad mode; a node is
        # recorded only in grad mode (python_function.cpp unpack_input: is_executable)
        ctx.needs_input_grad = tuple(isinstance(a, Tensor) and a.requires_grad for a in args)
        is_executable = any(
            is_grad_enabled() and isinstance(a, Tensor) and a.requires_grad for a in args
        )
        tensor_args = [a for a in args if isinstance(a, Tensor)]
        if is_executable:  # the edges first, before forward runs (unpack_input)
            ctx._tensor_positions = [i for i, a in enumerate(args) if isinstance(a, Tensor)]
            ctx._next_edges = collect_next_edges(*tensor_args)
        with no_grad():
            outputs = cls.forward(ctx, *args)
        is_tuple = isinstance(outputs, tuple)
        outs = list(outputs) if is_tuple else [outputs]
        for i, o in enumerate(outs):
            if isinstance(o, Tensor):
                outs[i] = _process_output(ctx, o, tensor_args, is_executable)
        if is_executable:  # a Function that records no node keeps nothing for backward
            ctx._saved_variables = [
                None if t is None else SavedVariable(t, any(t is o for o in outs))
                for t in ctx.to_save
            ]
        return tuple(outs) if is_tuple else outs[0]
        ### END SOLUTION


def _process_output(ctx: BackwardCFunction, o: Tensor, inputs: list, executable: builtins.bool):
    """One tensor output of a Function (torch/csrc/autograd/custom_function.cpp:
    _process_backward_mode_ad). A differentiable output becomes output ``i`` of the node; an
    input returned as is is replaced by a new alias of it first (the output must be a new
    tensor); a non-differentiable output still takes an input slot of the node (its gradient
    is zeros, or None); an output that is a view is marked IN_CUSTOM_FUNCTION: writing it in
    place later is an error, as torch cannot replay a custom backward."""
    is_input = any(o is a for a in inputs)
    differentiable = (
        executable and not any(o is n for n in ctx.non_differentiable) and o.dtype.is_floating_point
    )
    if executable:
        ctx._output_info.append((o.shape, o.dtype))
        ctx._input_metadata.append((o.shape, o.dtype) if differentiable else None)
    if not differentiable:
        if is_input and not o.requires_grad:
            o = _alias_without_grad(o)
        elif is_input:
            o = o.detach()
        elif o.requires_grad and o._base is None:
            o._requires_grad, o.grad_fn = False, None  # detach_(): in place
    else:
        if is_input:
            o = _alias_without_grad(o)
        o.grad_fn, o.output_nr = ctx, len(ctx._input_metadata) - 1
    if o._base is not None:
        o._creation_meta = "IN_CUSTOM_FUNCTION"
    return o


def _alias_without_grad(t: Tensor) -> Tensor:
    """``t.view_as(t)`` under no_grad: a new tensor object for the same data."""
    with no_grad():
        return _view_of(t, lambda a: a[...])


class GradcheckError(RuntimeError):
    """torch.autograd.gradcheck.GradcheckError."""


def _numerical_jacobian(fn: Callable, inputs: tuple, i: int, eps: builtins.float) -> list:
    """Central differences for input i: one column per element, per output."""
    x = inputs[i]
    cols = []
    for k in range(x.numel()):
        flat = x._array.flat  # works for non-contiguous arrays too
        orig = flat[k]
        flat[k] = orig + eps
        plus = [o._array.copy() for o in _outputs_of(fn, inputs)]
        flat[k] = orig - eps
        minus = [o._array.copy() for o in _outputs_of(fn, inputs)]
        flat[k] = orig
        cols.append([((p - m) / (2 * eps)).reshape(-1) for p, m in zip(plus, minus, strict=True)])
    return [np.stack([c[j] for c in cols], axis=1) for j in range(len(cols[0]))]


def _outputs_of(fn: Callable, inputs: tuple) -> list[Tensor]:
    with no_grad():
        out = fn(*inputs)
    return list(out) if isinstance(out, tuple | list) else [out]


def gradcheck(
    fn: Callable,
    inputs: Tensor | Sequence[Tensor],
    eps: builtins.float = 1e-6,
    atol: builtins.float = 1e-5,
    rtol: builtins.float = 1e-3,
) -> builtins.bool:
    """Task 3.5: compare the analytical Jacobian (one backward per output element) with central
    differences (torch/autograd/gradcheck.py, slow mode); raise GradcheckError on a mismatch."""
    ### BEGIN SOLUTION
    inputs = _tensor_tuple(inputs)
    with enable_grad():
        outputs = fn(*inputs)
    outputs = list(outputs) if isinstance(outputs, tuple | list) else [outputs]
    diff = [j for j, x in enumerate(inputs) if isinstance(x, Tensor) and x.requires_grad]
    for j in diff:
        numerical = _numerical_jacobian(fn, inputs, j, eps)
        for o, out in enumerate(outputs):
            analytical = np.zeros((out.numel(), inputs[j].numel()))
            for r in range(out.numel()):
                go = np.zeros(out.numel(), dtype=out.dtype.np)
                go[r] = 1
                (g,) = grad(out, inputs[j], _new(go.reshape(out.shape)), True, False, True)
                if g is not None:
                    analytical[r] = g._array.reshape(-1)
            if not np.allclose(analytical, numerical[o], rtol=rtol, atol=atol):
                raise GradcheckError(
                    f"Jacobian mismatch for output {o} with respect to input {j},\n"
                    f"numerical:{numerical[o]}\nanalytical:{analytical}\n"
                )
    return True
    ### END SOLUTION


# === Task 3.6: saved-tensor hooks and activation checkpointing ====================================


class saved_tensors_hooks:
    """torch.autograd.graph.saved_tensors_hooks(pack_hook, unpack_hook): while active, every
    tensor an op saves is passed to pack_hook and what it returns is stored; backward (or
    ``_saved_*``) calls unpack_hook on it. The innermost context wins."""

    def __init__(self, pack_hook: Callable, unpack_hook: Callable) -> None:
        self.pack_hook = pack_hook
        self.unpack_hook = unpack_hook

    def __enter__(self) -> saved_tensors_hooks:
        """Task 3.6: push the pair on the thread's stack of default hooks."""
        ### BEGIN SOLUTION
        _state.saved_tensors_hooks.append((self.pack_hook, self.unpack_hook))
        return self
        ### END SOLUTION

    def __exit__(self, *exc: object) -> None:
        """Task 3.6: pop it."""
        ### BEGIN SOLUTION
        _state.saved_tensors_hooks.pop()
        ### END SOLUTION


class _Frame:
    """The state of one non-reentrant checkpoint call (checkpoint.py: _CheckpointFrame)."""

    def __init__(self, function: Callable, args: tuple) -> None:
        self.function = function
        # The inputs, tensors as SavedVariables (packed by the OUTER saved-tensor hooks, checked
        # for in-place changes when unpacked): _CheckpointFrame.save_inputs.
        # (an inference tensor is kept as is: _make_saved_tensor takes one, with no version)
        self.saved_args = [
            SavedVariable(a, False) if isinstance(a, Tensor) and not a._is_inference else a
            for a in args
        ]
        self.n_saved = 0  # the forward packs each tensor it saves as its number
        # One recomputation per backward pass (graph task): its holders, one per number.
        self.recomputed: dict[object, list[list]] = {}


def _recompute(frame: _Frame, task: object) -> None:
    """Task 3.6: rerun the function with grad mode on; the k-th tensor it saves fills the
    k-th holder of this backward pass (checkpoint.py: recompute_fn, _recomputation_hook)."""
    ### BEGIN SOLUTION
    args = [a.unpack() if isinstance(a, SavedVariable) else a for a in frame.saved_args]
    holders = frame.recomputed[task] = [[] for _ in range(frame.n_saved)]
    it = iter(holders)

    def pack(t: Tensor) -> None:
        holder = next(it, None)
        if holder is not None:
            holder.append(t.detach())

    with enable_grad(), saved_tensors_hooks(pack, lambda _: None):
        frame.function(*args)
    ### END SOLUTION


def _checkpoint_without_reentrant(function: Callable, *args: Any) -> Any:
    """Task 3.6: torch/utils/checkpoint.py _checkpoint_without_reentrant_generator. The forward
    runs normally (so y.grad_fn is the real last node), but every tensor it saves is replaced by
    its number; the first unpack in each backward pass (each graph task: a second backward
    with retain_graph recomputes again) reruns the function to get them."""
    ### BEGIN SOLUTION
    frame = _Frame(function, args)

    def pack(t: Tensor) -> int:
        frame.n_saved += 1
        return frame.n_saved - 1

    def unpack(k: int) -> Tensor:
        # outside a backward pass (reading _saved_*), a recomputation of its own
        task = _state.graph_tasks[-1] if _state.graph_tasks else object()
        if task not in frame.recomputed:
            _recompute(frame, task)
        return frame.recomputed[task][k][0]

    with saved_tensors_hooks(pack, unpack):
        return function(*args)
    ### END SOLUTION


class CheckpointFunction(Function):
    """The reentrant checkpoint (use_reentrant=True): one Function node, CheckpointFunctionBackward,
    that reruns the function in its backward and calls backward on the result (reentrantly)."""

    @staticmethod
    def forward(ctx: Any, run_function: Callable, *args: Any) -> Any:
        """Task 3.6: run under no_grad, saving only the inputs."""
        ### BEGIN SOLUTION
        ctx.run_function = run_function
        ctx.save_for_backward(*args)
        return run_function(*args)
        ### END SOLUTION

    @staticmethod
    def backward(ctx: Any, *grads: Any) -> Any:
        """Task 3.6: recompute with grad on detached inputs, backward through it. It cannot
        serve ``grad()`` or ``inputs=`` (the inner backward would fill ``.grad`` instead), and
        there is nothing to do if no recomputed output requires grad: torch raises for both
        (torch/utils/checkpoint.py: CheckpointFunction.backward)."""
        ### BEGIN SOLUTION
        if not _is_checkpoint_valid():
            raise RuntimeError(
                "When use_reentrant=True, torch.utils.checkpoint is incompatible with .grad() "
                "or passing an `inputs` parameter to .backward(). To resolve this error, you can "
                "either set use_reentrant=False, or call .backward() without passing the "
                "`inputs` argument."
            )
        inputs = [x.detach().requires_grad_(x.requires_grad) for x in ctx.saved_tensors]
        with enable_grad():
            outputs = ctx.run_function(*inputs)
        outputs = _tensor_tuple(outputs)
        pairs = [(o, g) for o, g in zip(outputs, grads, strict=True) if o.requires_grad]
        if not pairs:
            raise RuntimeError(
                "none of output has requires_grad=True, this checkpoint() is not necessary"
            )
        backward([o for o, _ in pairs], [g for _, g in pairs])
        return (None, *(x.grad for x in inputs))
        ### END SOLUTION


def checkpoint(function: Callable, *args: Any, use_reentrant: builtins.bool | None = None) -> Any:
    """torch.utils.checkpoint.checkpoint: trade compute for memory. 2.13 warns when
    ``use_reentrant`` is omitted and then uses the reentrant variant."""
    if use_reentrant is None:
        warnings.warn(
            "torch.utils.checkpoint: the use_reentrant parameter should be passed explicitly.",
            stacklevel=2,
        )
        use_reentrant = True
    if use_reentrant:
        return CheckpointFunction.apply(function, *args)
    return _checkpoint_without_reentrant(function, *args)


# === Task 3.7: nn.Module, Parameter, Linear, Sequential (torch/nn/modules/) ======================


class Parameter(Tensor):
    """torch.nn.Parameter: a leaf that requires grad and that Module registers."""

    def __init__(self, data: Tensor | None = None, requires_grad: builtins.bool = True) -> None:
        array = np.zeros(0, np.float32) if data is None else _as_array(data)
        super().__init__(array, requires_grad=requires_grad)

    def __repr__(self) -> str:
        return f"Parameter containing:\n{super().__repr__()}"


def _as_array(x: Any) -> np.ndarray:
    return x._array if isinstance(x, Tensor) else np.asarray(x)


class _IncompatibleKeys(NamedTuple):
    missing_keys: list[str]
    unexpected_keys: list[str]


class Module:
    """torch.nn.Module (torch/nn/modules/module.py)."""

    def __init__(self) -> None:
        object.__setattr__(self, "training", True)
        object.__setattr__(self, "_parameters", OrderedDict())
        object.__setattr__(self, "_modules", OrderedDict())

    def __setattr__(self, name: str, value: Any) -> None:
        """Task 3.7: Parameters go to ``_parameters``, Modules to ``_modules`` (in assignment
        order), anything else to the instance dict (Module.__setattr__)."""
        ### BEGIN SOLUTION
        params, modules = self.__dict__.get("_parameters"), self.__dict__.get("_modules")
        if isinstance(value, Parameter):
            if params is None:
                raise AttributeError("cannot assign parameters before Module.__init__() call")
            self.__dict__.pop(name, None)
            modules.pop(name, None)
            params[name] = value
        elif isinstance(value, Module):
            if modules is None:
                raise AttributeError("cannot assign module before Module.__init__() call")
            self.__dict__.pop(name, None)
            params.pop(name, None)
            modules[name] = value
        elif params is not None and name in params:
            params[name] = value  # None, or a plain Tensor: torch raises; we allow None
        else:
            object.__setattr__(self, name, value)
        ### END SOLUTION

    def __getattr__(self, name: str) -> Any:
        for d in ("_parameters", "_modules"):
            table = self.__dict__.get(d, {})
            if name in table:
                return table[name]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def forward(self, *args: Any) -> Any:
        raise NotImplementedError

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.forward(*args, **kwargs)

    def named_children(self) -> Iterator[tuple[str, Module]]:
        yield from self._modules.items()

    def children(self) -> Iterator[Module]:
        for _, m in self.named_children():
            yield m

    def modules(self) -> Iterator[Module]:
        yield self
        for m in self.children():
            yield from m.modules()

    def named_parameters(self, prefix: str = "", recurse: builtins.bool = True):
        """Task 3.7: own parameters first, then each child's with "child." prefixed; each
        parameter once (Module.named_parameters / _named_members)."""
        ### BEGIN SOLUTION
        seen: set[int] = set()
        for name, p in self._named_parameters_all(prefix, recurse):
            if p is not None and id(p) not in seen:
                seen.add(id(p))
                yield name, p
        ### END SOLUTION

    def _named_parameters_all(self, prefix: str, recurse: builtins.bool):
        for name, p in self._parameters.items():
            yield prefix + name, p
        if recurse:
            for name, m in self._modules.items():
                yield from m._named_parameters_all(prefix + name + ".", True)

    def parameters(self, recurse: builtins.bool = True) -> Iterator[Parameter]:
        for _, p in self.named_parameters(recurse=recurse):
            yield p

    def state_dict(self, prefix: str = "") -> OrderedDict:
        """Task 3.7: name -> detached tensor: own parameters, then the children's recursively
        (Module.state_dict, _save_to_state_dict)."""
        ### BEGIN SOLUTION
        out: OrderedDict = OrderedDict()
        for name, p in self._parameters.items():
            if p is not None:
                out[prefix + name] = p.detach()
        for name, m in self._modules.items():
            out.update(m.state_dict(prefix + name + "."))
        return out
        ### END SOLUTION

    def load_state_dict(self, state_dict: dict, strict: builtins.bool = True) -> _IncompatibleKeys:
        """Task 3.7: copy each value into the parameter of the same name, under no_grad (the
        parameter's version is bumped); report missing and unexpected keys, raise if strict."""
        ### BEGIN SOLUTION
        own = self.state_dict()
        errors, missing = [], [k for k in own if k not in state_dict]
        unexpected = [k for k in state_dict if k not in own]
        for key, param in own.items():
            if key not in state_dict:
                continue
            value = _as_array(state_dict[key])
            if tuple(value.shape) != param.shape:
                errors.append(
                    f"size mismatch for {key}: copying a param with shape "
                    f"{Size(value.shape)!r} from checkpoint, the shape in current model is "
                    f"{param.shape!r}."
                )
                continue
            with no_grad():
                param.copy_(tensor(value, dtype=param.dtype))
        # the message names each key in double quotes (module.py: load_state_dict)
        quoted = lambda keys: [f'"{k}"' for k in keys]  # noqa: E731
        if strict:
            if unexpected:
                errors.insert(
                    0, "Unexpected key(s) in state_dict: " + ", ".join(quoted(unexpected)) + ". "
                )
            if missing:
                errors.insert(
                    0, "Missing key(s) in state_dict: " + ", ".join(quoted(missing)) + ". "
                )
        if errors:
            raise RuntimeError(
                f"Error(s) in loading state_dict for {type(self).__name__}:\n\t"
                + "\n\t".join(errors)
            )
        return _IncompatibleKeys(missing, unexpected)
        ### END SOLUTION

    def train(self, mode: builtins.bool = True) -> Module:
        """Task 3.7: set ``training`` on this module and every descendant."""
        ### BEGIN SOLUTION
        for m in self.modules():
            object.__setattr__(m, "training", mode)
        return self
        ### END SOLUTION

    def eval(self) -> Module:
        return self.train(False)

    def zero_grad(self, set_to_none: builtins.bool = True) -> None:
        """Task 3.7: every parameter's grad to None (torch's default set_to_none=True)."""
        ### BEGIN SOLUTION
        for p in self.parameters():
            if set_to_none:
                p.grad = None
            elif p.grad is not None:  # the same tensor, detached and zeroed in place
                g = p.grad  # (module.py zero_grad: detach_() or requires_grad_(False), zero_())
                g._requires_grad, g.grad_fn = False, None
                with no_grad():
                    zero_(g)
        ### END SOLUTION


class Linear(Module):
    """torch.nn.Linear: y = x @ weight.t() + bias, weight (out, in), bias (out,)."""

    def __init__(self, in_features: int, out_features: int, bias: builtins.bool = True) -> None:
        super().__init__()
        self.in_features, self.out_features = in_features, out_features
        bound = 1 / math.sqrt(in_features) if in_features else 0
        rng = np.random.default_rng()
        w = rng.uniform(-bound, bound, (out_features, in_features)).astype(np.float32)
        self.weight = Parameter(w)
        self.bias = (
            Parameter(rng.uniform(-bound, bound, out_features).astype(np.float32)) if bias else None
        )
        for p in self.parameters():  # torch initialises in place (kaiming_uniform_, uniform_)
            p._bump_version()

    def forward(self, x: Tensor) -> Tensor:
        """Task 3.7: F.linear (aten/src/ATen/native/Linear.cpp linear): addmm(bias, x,
        weight.t()) for 2-D x (AddmmBackward0); a contiguous 1-D x as a row and back
        (_flatten_nd_linear: ViewBackward0 of addmm); otherwise matmul, for 1-D x
        ``x.unsqueeze(0).mm(w.t()).squeeze_(0)`` (SqueezeBackward4, version 1), then the bias
        added IN PLACE (``output.add_(bias)``: AddBackward0)."""
        ### BEGIN SOLUTION
        wt = self.weight.t()
        if self.bias is not None and x.dim() == 2:
            return addmm(self.bias, x, wt)
        if self.bias is not None and x._array.flags.c_contiguous:
            return addmm(self.bias, x.reshape(1, -1), wt).reshape(-1)
        out = squeeze_(mm(unsqueeze(x, 0), wt), 0) if x.dim() == 1 else mm(x, wt)
        return out if self.bias is None else add_(out, self.bias)
        ### END SOLUTION


class ReLU(Module):
    def forward(self, x: Tensor) -> Tensor:
        return relu(x)


class Tanh(Module):
    def forward(self, x: Tensor) -> Tensor:
        return tanh(x)


class Sequential(Module):
    """torch.nn.Sequential: children named "0", "1", ...; forward chains them."""

    def __init__(self, *modules: Module) -> None:
        super().__init__()
        for i, m in enumerate(modules):
            setattr(self, str(i), m)

    def __getitem__(self, i: int) -> Module:
        return list(self._modules.values())[i]

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self) -> Iterator[Module]:
        return iter(self._modules.values())

    def forward(self, x: Any) -> Any:
        for m in self._modules.values():
            x = m(x)
        return x


# === Task 3.8: optimizers (torch/optim/optimizer.py, sgd.py, adam.py) ============================


class Optimizer:
    """torch.optim.Optimizer: ``param_groups`` (list of dicts: "params" plus the options),
    ``state`` (dict keyed by the parameter tensor)."""

    def __init__(self, params: Any, defaults: dict) -> None:
        self.defaults = defaults
        # A defaultdict, as torch's: reading the state of a parameter never stepped gives {}.
        self.state: defaultdict[Tensor, dict] = defaultdict(dict)
        params = list(params)
        groups = params if params and isinstance(params[0], dict) else [{"params": params}]
        self.param_groups: list[dict] = []
        for g in groups:
            group = {"params": list(g["params"]), **defaults}
            group.update({k: v for k, v in g.items() if k != "params"})
            self.param_groups.append(group)

    def zero_grad(self, set_to_none: builtins.bool = True) -> None:
        """Task 3.8: forget every parameter's gradient: None by default since torch 2.0
        (Optimizer.zero_grad in torch/optim/optimizer.py), zeros if asked."""
        ### BEGIN SOLUTION
        for group in self.param_groups:
            for p in group["params"]:
                g = p.grad
                p.grad = None if set_to_none else (None if p.grad is None else zeros_like(p.grad))
                if p.grad is not None:  # torch keeps the old tensor, zeroed in place
                    g._requires_grad, g.grad_fn = False, None  # (optimizer.py zero_grad)
                    with no_grad():
                        p.grad = zero_(g)
        ### END SOLUTION

    def step(self, closure: Callable | None = None) -> Any:
        loss = None
        if closure is not None:
            with enable_grad():
                loss = closure()
        with no_grad():
            for group in self.param_groups:
                for p in group["params"]:
                    if p.grad is not None:
                        self._update(p, p.grad._array, group)
        return loss

    def _update(self, p: Tensor, grad: np.ndarray, group: dict) -> None:
        raise NotImplementedError


def _scalar(x: builtins.float, like: np.ndarray) -> np.generic:
    """A Python number as the CPU kernel uses it: cast to the tensor's dtype first."""
    return like.dtype.type(x)


class SGD(Optimizer):
    """torch.optim.SGD."""

    def __init__(
        self,
        params: Any,
        lr: builtins.float = 1e-3,
        momentum: builtins.float = 0,
        dampening: builtins.float = 0,
        weight_decay: builtins.float = 0,
        nesterov: builtins.bool = False,
    ) -> None:
        super().__init__(
            params,
            dict(
                lr=lr,
                momentum=momentum,
                dampening=dampening,
                weight_decay=weight_decay,
                nesterov=nesterov,
                maximize=False,
            ),
        )

    def _update(self, p: Tensor, grad: np.ndarray, group: dict) -> None:
        """Task 3.8: sgd.py _single_tensor_sgd, op for op in the parameter's dtype:
        ``grad += wd*p``; ``buf = grad.clone()`` the first time, else
        ``buf = buf*momentum + (1-dampening)*grad``; nesterov ``grad + momentum*buf``;
        ``p -= lr * grad``. The buffer is state["momentum_buffer"] (only with momentum)."""
        ### BEGIN SOLUTION
        s = lambda x: _scalar(x, grad)  # noqa: E731
        wd, momentum, dampening = group["weight_decay"], group["momentum"], group["dampening"]
        if wd != 0:
            grad = grad + s(wd) * p._array
        if momentum != 0:
            state = self.state[p]
            buf = state.get("momentum_buffer")
            if buf is None:
                buf = state["momentum_buffer"] = _new(grad.copy())
            else:
                buf._array[...] = buf._array * s(momentum) + s(1 - dampening) * grad
                buf._bump_version()
            grad = grad + s(momentum) * buf._array if group["nesterov"] else buf._array
        p._array += s(-group["lr"]) * grad
        p._bump_version()
        ### END SOLUTION


class Adam(Optimizer):
    """torch.optim.Adam."""

    def __init__(
        self,
        params: Any,
        lr: builtins.float = 1e-3,
        betas: tuple[builtins.float, builtins.float] = (0.9, 0.999),
        eps: builtins.float = 1e-8,
        weight_decay: builtins.float = 0,
        amsgrad: builtins.bool = False,
    ) -> None:
        super().__init__(
            params,
            dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, amsgrad=amsgrad),
        )

    def _update(self, p: Tensor, grad: np.ndarray, group: dict) -> None:
        """Task 3.8: adam.py _single_tensor_adam (not capturable): step += 1;
        ``exp_avg.lerp_(grad, 1-beta1)``; ``exp_avg_sq = exp_avg_sq*beta2 + (1-beta2)*grad*grad``;
        ``denom = sqrt(v)/sqrt(1-beta2**step) + eps``; ``p -= lr/(1-beta1**step) * m/denom``.
        State: "step" (a float32 0-dim tensor), "exp_avg", "exp_avg_sq" (+ "max_exp_avg_sq")."""
        ### BEGIN SOLUTION
        s = lambda x: _scalar(x, grad)  # noqa: E731
        beta1, beta2 = group["betas"]
        state = self.state[p]
        if not state:
            state["step"] = tensor(0.0)
            state["exp_avg"] = zeros_like(p)
            state["exp_avg_sq"] = zeros_like(p)
            if group["amsgrad"]:
                state["max_exp_avg_sq"] = zeros_like(p)
        state["step"]._array += 1
        step = state["step"].item()
        if group["weight_decay"] != 0:
            grad = grad + s(group["weight_decay"]) * p._array
        m, v = state["exp_avg"]._array, state["exp_avg_sq"]._array
        m += s(1 - beta1) * (grad - m)  # lerp with weight < 0.5: self + w * (end - self)
        v *= s(beta2)
        v += s(1 - beta2) * grad * grad
        bias_correction1 = 1 - beta1**step
        bias_correction2_sqrt = (1 - beta2**step) ** 0.5
        step_size = group["lr"] / bias_correction1
        if group["amsgrad"]:
            vmax = state["max_exp_avg_sq"]._array
            np.maximum(vmax, v, out=vmax)
            v = vmax
        denom = np.sqrt(v) / s(bias_correction2_sqrt) + s(group["eps"])
        p._array += s(-step_size) * (m / denom)
        p._bump_version()
        ### END SOLUTION


# === Given: the namespaces that let cases say lib.autograd.grad, lib.nn.Linear, ... ===============


class _AutogradNamespace(types.SimpleNamespace):
    pass


autograd = _AutogradNamespace(
    grad=grad,
    backward=backward,
    Function=Function,
    gradcheck=gradcheck,
    GradcheckError=GradcheckError,
    graph=types.SimpleNamespace(saved_tensors_hooks=saved_tensors_hooks, Node=Node),
)
nn = types.SimpleNamespace(
    Module=Module,
    Parameter=Parameter,
    Linear=Linear,
    ReLU=ReLU,
    Tanh=Tanh,
    Sequential=Sequential,
)
optim = types.SimpleNamespace(Optimizer=Optimizer, SGD=SGD, Adam=Adam)
utils = types.SimpleNamespace(checkpoint=types.SimpleNamespace(checkpoint=checkpoint))
matmul = mm
