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

This module must never import torch. Its names mirror torch's, and the namespaces ``autograd``,
``nn``, ``optim`` and ``utils`` at the bottom let the same code run against it and torch.

The exercises ("Task 3.x" in a docstring; each may span several functions):
  3.1 tensors and leaves: tensor, zeros, ones, Tensor.requires_grad, Tensor.detach,
      is_grad_enabled, set_grad_enabled, no_grad, enable_grad
  3.2 ops and their backward nodes: collect_next_edges, set_history, Node.save,
      SavedVariable (store or pack, unpack with its version check), sum_to, add, sub, rsub,
      mul, div, neg, pow, exp, log, tanh, relu, sigmoid, sin, cos, mm, addmm, sum, mean, view,
      reshape, t, transpose, expand, select, slice, clone, to (each op with the ``apply`` of
      its backward node)
  3.3 the engine: GraphTask.compute_dependencies, GraphTask.init_to_execute, InputBuffer.add,
      validate_outputs, call_function, evaluate_function, execute, AccumulateGrad.apply,
      run_backward, backward, grad
  3.4 what makes it torch: modified_in_place_error (the version check's message),
      check_inplace, add_, mul_, zero_, copy_, Tensor.register_hook, Tensor.retain_grad,
      Node.register_hook / register_prehook, Tensor.register_post_accumulate_grad_hook
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


def _not_differentiable_dtype_error() -> RuntimeError:
    return RuntimeError("only Tensors of floating point dtype can require gradients")


class Tensor:
    """A NumPy array plus the autograd metadata torch keeps (torch/csrc/autograd/variable.h:
    AutogradMeta): requires_grad, grad, grad_fn and output_nr, the version counter, hooks."""

    def __init__(self, array: np.ndarray, requires_grad: builtins.bool = False) -> None:
        self._array = array
        self.grad: Tensor | None = None
        self.grad_fn: Node | None = None
        self.output_nr = 0  # which output of grad_fn this tensor is
        self._requires_grad = False  # only meaningful on leaves
        self._version_counter = [0]  # shared by views and detach(), like torch's VariableVersion
        self._base: Tensor | None = None  # set on differentiable views
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
    def is_leaf(self) -> builtins.bool:
        return self.grad_fn is None

    @property
    def _version(self) -> int:
        return self._version_counter[0]

    def _bump_version(self) -> None:
        self._version_counter[0] += 1

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
        """Task 3.1: a leaf's own flag; a non-leaf requires grad because it has a grad_fn."""
        ### BEGIN SOLUTION
        return self._requires_grad or self.grad_fn is not None
        ### END SOLUTION

    @requires_grad.setter
    def requires_grad(self, value: builtins.bool) -> None:
        """Task 3.1: only leaves may change the flag (torch/csrc/autograd/python_variable.cpp:
        THPVariable_set_requires_grad), and only floating point tensors can require grad."""
        ### BEGIN SOLUTION
        if not self.is_leaf:
            raise RuntimeError(
                "you can only change requires_grad flags of leaf variables. If you want to use "
                "a computed variable in a subgraph that doesn't require differentiation use "
                "var_no_grad = var.detach()."
            )
        if value and not self.dtype.is_floating_point:
            raise _not_differentiable_dtype_error()
        self._requires_grad = builtins.bool(value)
        ### END SOLUTION

    def requires_grad_(self, requires_grad: builtins.bool = True) -> Tensor:
        self.requires_grad = requires_grad
        return self

    def detach(self) -> Tensor:
        """Task 3.1: a new leaf sharing the data AND the version counter, with no history
        (torch: Tensor.detach is a view that is not differentiable)."""
        ### BEGIN SOLUTION
        out = Tensor(self._array)
        out._version_counter = self._version_counter
        return out
        ### END SOLUTION

    # --- ops: thin methods over the functions of Task 3.2 and 3.4 -------------------------------
    def __add__(self, other: Any) -> Tensor:
        return add(self, other)

    def __radd__(self, other: Any) -> Tensor:
        return add(self, other)

    def __sub__(self, other: Any) -> Tensor:
        return sub(self, other)

    def __rsub__(self, other: Any) -> Tensor:
        return rsub(self, other)

    def __mul__(self, other: Any) -> Tensor:
        return mul(self, other)

    def __rmul__(self, other: Any) -> Tensor:
        return mul(self, other)

    def __truediv__(self, other: Any) -> Tensor:
        return div(self, other)

    def __rtruediv__(self, other: Any) -> Tensor:
        return mul(reciprocal(self), other)  # torch/_tensor.py: __rtruediv__

    def __neg__(self) -> Tensor:
        return neg(self)

    def __pow__(self, exponent: Any) -> Tensor:
        return pow(self, exponent)

    def __rpow__(self, base: Any) -> Tensor:
        return pow(base, self)

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
        return reshape(self, _shape_arg(shape))

    def view(self, *shape: Any) -> Tensor:
        return view(self, _shape_arg(shape))

    def t(self) -> Tensor:
        return t(self)

    def transpose(self, dim0: int, dim1: int) -> Tensor:
        return transpose(self, dim0, dim1)

    def expand(self, *sizes: Any) -> Tensor:
        return expand(self, _shape_arg(sizes))

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
        return add_(self, other if alpha == 1 else mul(_wrap(other), alpha))

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
        return register_tensor_hook(self, hook)

    def register_post_accumulate_grad_hook(self, hook: Callable) -> RemovableHandle:
        return register_post_accumulate_grad_hook(self, hook)

    def retain_grad(self) -> None:
        retain_grad(self)


def _shape_arg(shape: tuple) -> tuple[int, ...]:
    """``reshape(2, 3)`` and ``reshape((2, 3))`` mean the same (torch's IntArrayRef parsing)."""
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


class Node:
    """A backward function (torch/csrc/autograd/function.h). One Edge per input of the forward
    op (``next_functions``), one input per output of the forward op (``input_metadata``)."""

    def __init__(self, sequence_nr: int | None = None) -> None:
        self._seq = next(_sequence_nr) if sequence_nr is None else sequence_nr
        self._next_edges: list[Edge] = []
        self._input_metadata: list[tuple[Size, DType]] = []  # (shape, dtype) of each output
        self._saved: dict[str, Any] = {}  # name -> SavedVariable or a plain value
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

    def needs(self, i: int) -> builtins.bool:
        """Is output i (the gradient of forward input i) wanted? (task_should_compute_output)"""
        return self._next_edges[i].function is not None

    def apply(self, grads: list[Tensor | None]) -> list[Tensor | None]:
        raise NotImplementedError(f"{self.name()} has no backward")

    def tensor_pre_hooks(self, input_nr: int) -> list[Callable]:
        return list(self._tensor_pre_hooks.get(input_nr, {}).values())

    def save(self, name: str, value: Any, is_output: builtins.bool = False) -> None:
        """Task 3.2: keep ``value`` for backward, readable as ``_saved_<name>``. Tensors become
        SavedVariables (saved_variable.h): they remember the version they were saved at."""
        ### BEGIN SOLUTION
        if isinstance(value, Tensor):
            value = SavedVariable(value, is_output)
        self._saved[name] = value
        ### END SOLUTION

    def saved(self, name: str) -> Any:
        value = self._saved[name]
        return value.unpack() if isinstance(value, SavedVariable) else value

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
        return _add_hook(self._post_hooks, fn)

    def register_prehook(self, fn: Callable) -> RemovableHandle:
        """fn(grad_outputs) before the node runs; may return new grad_outputs."""
        return _add_hook(self._pre_hooks, fn)

    def __repr__(self) -> str:
        return f"<{self.name()} object at {id(self):#x}>"


def _requires_grad(*xs: Any) -> builtins.bool:
    return is_grad_enabled() and any(isinstance(x, Tensor) and x.requires_grad for x in xs)


def gradient_edge(t: Tensor) -> Edge:
    """Task 3.2 (given): where t's gradient goes (torch/csrc/autograd/variable.cpp:
    gradient_edge): its grad_fn at output_nr, or its AccumulateGrad if it is a leaf."""
    if t.grad_fn is not None:
        return Edge(t.grad_fn, t.output_nr)
    if t.requires_grad:
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
    """The node of an op if grad mode is on and an input requires grad, else None."""
    if not _requires_grad(*inputs):
        return None
    node = cls()
    node._next_edges = collect_next_edges(*inputs)
    return node


def _new(array: np.ndarray, dtype: DType | None = None) -> Tensor:
    return Tensor(np.asarray(array, dtype=(dtype.np if dtype else None)))


def _view_of(base: Tensor, array: np.ndarray) -> Tensor:
    """A view: shares the base's data and version counter (torch: as_view)."""
    out = Tensor(np.asarray(array))
    out._version_counter = base._version_counter
    out._base = base if base._base is None else base._base
    return out


def _binary(np_op: Callable, a: Tensor, b: Tensor, dtype: DType | None = None) -> Tensor:
    """Compute in the promoted dtype, so float32 stays float32 (TensorIterator's common dtype)."""
    dt = dtype or result_type(a, b)
    out = np_op(a._array.astype(dt.np, copy=False), b._array.astype(dt.np, copy=False))
    return _new(out, dt)


def sum_to(grad: Tensor, shape: Sequence[int]) -> Tensor:
    """Task 3.2: reduce a broadcast gradient back to ``shape`` (aten/src/ATen/ExpandUtils.h:
    sum_to): sum the leading dims away, then keepdim-sum each dim where ``shape`` has a 1."""
    ### BEGIN SOLUTION
    shape = tuple(shape)
    if grad.shape == shape:
        return grad
    lead = grad.dim() - len(shape)
    if lead:
        grad = grad.sum(tuple(range(lead)))
    dims = tuple(i for i, s in enumerate(shape) if s == 1 and grad.shape[i] != 1)
    if dims:
        grad = grad.sum(dims, keepdim=True)
    return grad
    ### END SOLUTION


# --- add, sub, rsub -------------------------------------------------------------------------------


class AddBackward0(Node):
    def apply(self, grads: list) -> list:
        """Task 3.2: d(a + alpha*b) = (g, alpha*g), each summed to its input's shape."""
        ### BEGIN SOLUTION
        (g,) = grads
        shapes = self.saved("shapes")
        return [
            sum_to(g, shapes[0]) if self.needs(0) else None,
            sum_to(g, shapes[1]) if self.needs(1) else None,
        ]
        ### END SOLUTION


def add(self: Tensor, other: Any) -> Tensor:
    """Task 3.2: ``a + b`` -> AddBackward0. A Python number becomes a wrapped tensor, an input
    with an Edge(None, 0): ``(a + 2).grad_fn.next_functions`` has two entries."""
    ### BEGIN SOLUTION
    a, b = _wrap(self), _wrap(other)
    out = _binary(np.add, a, b)
    if node := _make_node(AddBackward0, a, b):
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
    out = _binary(np.subtract, a, b)
    if node := _make_node(SubBackward0, a, b):
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
        ga = sum_to(g * self.saved("other"), shapes[0]) if self.needs(0) else None
        gb = sum_to(g * self.saved("self"), shapes[1]) if self.needs(1) else None
        return [ga, gb]
        ### END SOLUTION


def mul(self: Tensor, other: Any) -> Tensor:
    """Task 3.2: ``a * b`` -> MulBackward0. torch saves ``self`` only if ``other`` needs grad
    and ``other`` only if ``self`` does: ``(a * 2).grad_fn._saved_self`` is None."""
    ### BEGIN SOLUTION
    a, b = _wrap(self), _wrap(other)
    out = _binary(np.multiply, a, b)
    if node := _make_node(MulBackward0, a, b):
        node.save("self", a if b.requires_grad else None)
        node.save("other", b if a.requires_grad else None)
        node.save("shapes", (a.shape, b.shape))
        set_history(out, node)
    return out
    ### END SOLUTION


class DivBackward0(Node):
    def apply(self, grads: list) -> list:
        """Task 3.2: d(a/b) = (g/b, -g*((a/b)/b)) (FunctionsManual.cpp: div_tensor_*_backward)."""
        ### BEGIN SOLUTION
        (g,) = grads
        shapes = self.saved("shapes")
        ga = sum_to(g / self.saved("other"), shapes[0]) if self.needs(0) else None
        gb = None
        if self.needs(1):
            a, b = self.saved("self"), self.saved("other")
            gb = sum_to(-g * ((a / b) / b), shapes[1])
        return [ga, gb]
        ### END SOLUTION


def _true_divide_dtype(a: Tensor, b: Tensor) -> DType:
    dt = result_type(a, b)
    return dt if dt.is_floating_point else float32  # int / int is float in torch


def div(self: Tensor, other: Any) -> Tensor:
    """Task 3.2: ``a / b`` -> DivBackward0 (true division: ints give float32)."""
    ### BEGIN SOLUTION
    a, b = _wrap(self), _wrap(other)
    out = _binary(np.divide, a, b, _true_divide_dtype(a, b))
    if node := _make_node(DivBackward0, a, b):
        node.save("self", a if b.requires_grad else None)
        node.save("other", b)  # both gradients divide by b; only b's needs a (derivatives.yaml)
        node.save("shapes", (a.shape, b.shape))
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
    out = _new(1 / self._array.astype(dt.np), dt)
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
    out = _new(-self._array, self.dtype)
    if node := _make_node(NegBackward0, self):
        set_history(out, node)
    return out
    ### END SOLUTION


# --- pow ------------------------------------------------------------------------------------------


class PowBackward0(Node):
    def apply(self, grads: list) -> list:
        """Task 3.2: d(a**c) = g * (c * a**(c-1)), zero if c == 0
        (FunctionsManual.cpp: pow_backward)."""
        ### BEGIN SOLUTION
        (g,) = grads
        c, a = self.saved("exponent"), self.saved("self")
        if c == 0:
            return [g * 0]
        return [g * (c * a ** (c - 1))]
        ### END SOLUTION


class PowBackward1(Node):
    def apply(self, grads: list) -> list:
        """Task 3.2: d(a**b) = (g * b * a**(b-1), g * result * log(a))
        (pow_backward_self, pow_backward_exponent; torch masks log(0) where b >= 0)."""
        ### BEGIN SOLUTION
        (g,) = grads
        a, b = self.saved("self"), self.saved("exponent")
        ga = sum_to(g * (b * a ** (b - 1)), a.shape) if self.needs(0) else None
        gb = None
        if self.needs(1):
            # torch: where(a == 0 & b >= 0, 0, result * log(a)); log(a + mask) avoids log(0)
            mask = _new((a._array == 0) & (b._array >= 0), a.dtype)
            log_a = log(a + mask) * (1 - mask)
            gb = sum_to(g * (self.saved("result") * log_a), b.shape)
        return [ga, gb]
        ### END SOLUTION


class PowBackward2(Node):
    def apply(self, grads: list) -> list:
        """Task 3.2: d(c**b)/db = g * result * log(c) for a number c."""
        ### BEGIN SOLUTION
        (g,) = grads
        c = self.saved("self")
        return [g * (self.saved("result") * math.log(c))]
        ### END SOLUTION


def pow(self: Any, exponent: Any) -> Tensor:
    """Task 3.2: ``a ** 2`` -> PowBackward0 (_saved_self, _saved_exponent the number),
    ``a ** b`` -> PowBackward1 (self, exponent, result), ``2 ** a`` -> PowBackward2."""
    ### BEGIN SOLUTION
    if not isinstance(self, Tensor):  # a number to a tensor power
        dt = result_type(_wrap(self), exponent)
        dt = dt if dt.is_floating_point else float32
        out = _new(np.power(dt.np.type(self), exponent._array.astype(dt.np)), dt)
        if node := _make_node(PowBackward2, exponent):
            node.save("self", self)
            node.save("exponent", exponent)
            set_history(out, node)
            node.save("result", out, is_output=True)
        return out
    if isinstance(exponent, Tensor):
        out = _binary(np.power, self, exponent)
        if node := _make_node(PowBackward1, self, exponent):
            node.save("self", self)
            node.save("exponent", exponent)
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


def _float_unary(np_op: Callable, a: Tensor) -> Tensor:
    dt = a.dtype if a.dtype.is_floating_point else float32
    return _new(np_op(a._array.astype(dt.np)), dt)


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
        """Task 3.2: d tanh(a) = g * (1 - r*r) (FunctionsManual: tanh_backward)."""
        ### BEGIN SOLUTION
        r = self.saved("result")
        return [grads[0] * (1 - r * r)]
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
        mask = self.saved("mask")
        return [
            grads[0] * mask if self.needs(0) else None,
            zeros_like(mask) if self.needs(1) else None,
        ]
        ### END SOLUTION


def threshold_backward(grad: Tensor, result: Tensor) -> Tensor:
    """Task 3.2: ``grad`` where ``result > 0``, else 0 -> ThresholdBackwardBackward0 when
    recorded (torch records it under create_graph: the second derivative of relu is 0)."""
    ### BEGIN SOLUTION
    mask = _new(result._array > 0, grad.dtype)
    out = _new(grad._array * mask._array)
    if node := _make_node(ThresholdBackwardBackward0, grad, result):
        node.save("mask", mask)
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
        """Task 3.2: d sigmoid(a) = g * (1 - r) * r (sigmoid_backward)."""
        ### BEGIN SOLUTION
        r = self.saved("result")
        return [grads[0] * (1 - r) * r]
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


class MmBackward0(Node):
    def apply(self, grads: list) -> list:
        """Task 3.2: d(A@B) = (g @ B.t(), A.t() @ g) (FunctionsManual: mm_mat1/mat2_backward)."""
        ### BEGIN SOLUTION
        (g,) = grads
        ga = mm(g, self.saved("mat2").t()) if self.needs(0) else None
        gb = mm(self.saved("self").t(), g) if self.needs(1) else None
        return [ga, gb]
        ### END SOLUTION


def mm(self: Tensor, mat2: Tensor) -> Tensor:
    """Task 3.2: 2-D @ 2-D -> MmBackward0 (``a @ b``, ``matmul`` and ``mm`` all end here),
    saving ``self`` only if mat2 needs grad and ``mat2`` only if self does."""
    ### BEGIN SOLUTION
    if self.dim() != 2 or mat2.dim() != 2:
        raise NotImplementedError("this engine's matmul takes 2-D x 2-D only")
    out = _binary(np.matmul, self, mat2)
    if node := _make_node(MmBackward0, self, mat2):
        node.save("self", self if mat2.requires_grad else None)
        node.save("mat2", mat2 if self.requires_grad else None)
        node.save("self_sym_sizes", self.shape)
        node.save("mat2_sym_sizes", mat2.shape)
        set_history(out, node)
    return out
    ### END SOLUTION


class AddmmBackward0(Node):
    def apply(self, grads: list) -> list:
        """Task 3.2: d(bias + m1 @ m2) = (sum_to(g), g @ m2.t(), m1.t() @ g)."""
        ### BEGIN SOLUTION
        (g,) = grads
        gs = sum_to(g, self.saved("self_sym_sizes")) if self.needs(0) else None
        g1 = mm(g, self.saved("mat2").t()) if self.needs(1) else None
        g2 = mm(self.saved("mat1").t(), g) if self.needs(2) else None
        return [gs, g1, g2]
        ### END SOLUTION


def addmm(bias: Tensor, mat1: Tensor, mat2: Tensor) -> Tensor:
    """Task 3.2: bias + mat1 @ mat2 -> AddmmBackward0: what nn.Linear runs on 2-D input
    (torch/nn/functional.py linear -> aten::addmm(bias, input, weight.t()))."""
    ### BEGIN SOLUTION
    prod = _binary(np.matmul, mat1, mat2)
    out = _binary(np.add, bias, prod)
    if node := _make_node(AddmmBackward0, bias, mat1, mat2):
        node.save("self_sym_sizes", bias.shape)
        node.save("mat1", mat1 if mat2.requires_grad else None)
        node.save("mat2", mat2 if mat1.requires_grad else None)
        node.save("alpha", 1)
        node.save("beta", 1)
        set_history(out, node)
    return out
    ### END SOLUTION


# --- reductions -----------------------------------------------------------------------------------


def _dims(dim: int | Sequence[int] | None, ndim: int) -> tuple[int, ...]:
    if dim is None:
        return tuple(range(ndim))
    dims = (dim,) if isinstance(dim, int) else tuple(dim)
    return tuple(d % ndim if ndim else 0 for d in dims)


def _sum_backward(g: Tensor, sizes: Size, dims: tuple[int, ...], keepdim: builtins.bool):
    """FunctionsManual.cpp: sum_backward: put the reduced dims back (as 1s), then expand."""
    if not keepdim and sizes:
        kept = [1 if i in dims else s for i, s in enumerate(sizes)]
        g = g.reshape(tuple(kept))
    return g.expand(tuple(sizes))


class SumBackward0(Node):
    def apply(self, grads: list) -> list:
        """Task 3.2: sum of everything: expand g to the input's sizes."""
        ### BEGIN SOLUTION
        sizes = self.saved("self_sym_sizes")
        return [_sum_backward(grads[0], sizes, tuple(range(len(sizes))), False)]
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
    dims = _dims(dim, self.dim())
    dt = self.dtype if self.dtype.is_floating_point else int64
    out = _new(np.sum(self._array, axis=dims, keepdims=keepdim, dtype=dt.np), dt)
    if node := _make_node(SumBackward0 if dim is None else SumBackward1, self):
        if dim is not None:
            node.save("dim", dims)
            node.save("keepdim", keepdim)
        node.save("self_sym_sizes", self.shape)
        set_history(out, node)
    return out
    ### END SOLUTION


class MeanBackward0(Node):
    def apply(self, grads: list) -> list:
        """Task 3.2: expand g, divide by the element count (mean_backward)."""
        ### BEGIN SOLUTION
        sizes = self.saved("self_sym_sizes")
        g = _sum_backward(grads[0], sizes, tuple(range(len(sizes))), False)
        return [g / self.saved("self_sym_numel")]
        ### END SOLUTION


class MeanBackward1(Node):
    def apply(self, grads: list) -> list:
        """Task 3.2: expand g over ``dim``, divide by the number of reduced elements."""
        ### BEGIN SOLUTION
        sizes, dims = self.saved("self_sym_sizes"), self.saved("dim")
        count = math.prod(sizes[d] for d in dims)
        return [_sum_backward(grads[0], sizes, dims, self.saved("keepdim")) / count]
        ### END SOLUTION


def mean(self: Tensor, dim: int | Sequence[int] | None = None, keepdim: builtins.bool = False):
    """Task 3.2: -> MeanBackward0 (all) or MeanBackward1 (over dim)."""
    ### BEGIN SOLUTION
    dims = _dims(dim, self.dim())
    out = _new(np.mean(self._array, axis=dims, keepdims=keepdim, dtype=self.dtype.np), self.dtype)
    if node := _make_node(MeanBackward0 if dim is None else MeanBackward1, self):
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


def view(self: Tensor, shape: tuple[int, ...]) -> Tensor:
    """Task 3.2: a view with a new shape (contiguous input only) -> ViewBackward0."""
    ### BEGIN SOLUTION
    if not self._array.flags.c_contiguous:
        raise RuntimeError(
            "view size is not compatible with input tensor's size and stride (at least one "
            "dimension spans across two contiguous subspaces). Use .reshape(...) instead."
        )
    out = _view_of(self, self._array.reshape(shape))
    if node := _make_node(ViewBackward0, self):
        node.save("self_sym_sizes", self.shape)
        set_history(out, node)
    return out
    ### END SOLUTION


def reshape(self: Tensor, shape: tuple[int, ...]) -> Tensor:
    """Task 3.2: a view when the input is contiguous (ViewBackward0), else a clone followed by
    ``_unsafe_view`` (UnsafeViewBackward0 -> CloneBackward0), as
    aten/src/ATen/native/TensorShape.cpp reshape does."""
    ### BEGIN SOLUTION
    if self._array.flags.c_contiguous:
        return view(self, shape)
    copy = clone(self)
    out = _new(copy._array.reshape(shape), self.dtype)
    if node := _make_node(UnsafeViewBackward0, copy):
        node.save("self_sym_sizes", copy.shape)
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
    """Task 3.2: the transpose of a 2-D (or smaller) tensor, a view -> TBackward0."""
    ### BEGIN SOLUTION
    out = _view_of(self, self._array.T)
    if node := _make_node(TBackward0, self):
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
    """Task 3.2: swap two dims, a view -> TransposeBackward0 (_saved_dim0, _saved_dim1)."""
    ### BEGIN SOLUTION
    out = _view_of(self, np.swapaxes(self._array, dim0, dim1))
    if node := _make_node(TransposeBackward0, self):
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


def expand(self: Tensor, sizes: tuple[int, ...]) -> Tensor:
    """Task 3.2: broadcast to ``sizes`` (-1 keeps a dim), a view -> ExpandBackward0."""
    ### BEGIN SOLUTION
    lead = len(sizes) - self.dim()
    full = tuple(self.shape[i - lead] if s == -1 else s for i, s in enumerate(sizes))
    out = _view_of(self, np.broadcast_to(self._array, full))
    if node := _make_node(ExpandBackward0, self):
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
    out = _view_of(self, self._array[key])
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
    out = _view_of(self, self._array[(slice(None),) * dim + (s,)])
    if node := _make_node(SliceBackward0, self):
        node.save("dim", dim)
        node.save("start", start)
        node.save("end", end)
        node.save("step", step)
        node.save("self_sym_sizes", self.shape)
        set_history(out, node)
    return out
    ### END SOLUTION


def getitem(self: Tensor, key: Any) -> Tensor:
    """Basic indexing as torch/csrc/autograd/python_variable_indexing.cpp applySlicing does it:
    one select per int (the dim goes away), one slice per non-full slice; ``:`` is skipped."""
    key = key if isinstance(key, tuple) else (key,)
    out, dim = self, 0
    for k in key:
        if isinstance(k, int):
            out = select(out, dim, k)
        elif isinstance(k, slice):
            if k != slice(None):
                out = slice_(out, dim, k.start, k.stop, k.step)
            dim += 1
        else:
            raise NotImplementedError(f"index {k!r}: ints and slices only")
    return out


class CloneBackward0(Node):
    def apply(self, grads: list) -> list:
        """Task 3.2: the identity."""
        ### BEGIN SOLUTION
        return [grads[0]]
        ### END SOLUTION


def clone(self: Tensor) -> Tensor:
    """Task 3.2: a copy with its own data and version counter -> CloneBackward0."""
    ### BEGIN SOLUTION
    out = _new(self._array.copy(), self.dtype)
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
    out = _new(self._array.astype(dtype.np), dtype)
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

    def tensor_pre_hooks(self, input_nr: int) -> list[Callable]:
        return list(self.variable._backward_hooks.values())  # a leaf's hooks live on the leaf

    def apply(self, grads: list) -> list:
        """Task 3.3: add the gradient into ``variable.grad`` (accumulate_grad.h: accumulateGrad).

        First gradient: stored (a detached copy without grad mode; with create_graph a
        differentiable copy, CopyBackwards). Later ones: added IN PLACE without grad mode,
        ``grad = grad + new`` (a new tensor) with it. Then the post-accumulate-grad hooks.
        """
        ### BEGIN SOLUTION
        new = grads[0]
        if new is None:
            return []
        var = self.variable
        if var.grad is None:
            var.grad = zeros_like(new).copy_(new) if is_grad_enabled() else _new(new._array.copy())
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
        # iterative post-order DFS: a node is needed if any child should execute
        self.exec_info.setdefault(root, ExecInfo()).needed = True
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
    """Tensor hooks of each input, then its retains_grad hook
    (engine.cpp: call_tensor_pre_hooks)."""
    inputs = list(inputs)
    for i in range(len(inputs)):
        for hook in node.tensor_pre_hooks(i):
            result = hook(inputs[i])
            if result is not None:
                inputs[i] = result
        if i in node._retains_grad_hooks:
            node._retains_grad_hooks[i](inputs[i])
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
    if any(g is not None for g in inputs) or isinstance(node, GraphRoot | BackwardCFunction):
        outputs = node.apply(inputs)
    else:  # no gradient arrived: every output is undefined (generated code: any_grad_defined)
        outputs = [None] * len(node._next_edges)
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


def execute(task: GraphTask, root: Node) -> None:
    """Task 3.3: Engine::execute + thread_main: count dependencies, then pop and evaluate nodes
    until the queue is empty, with grad mode = create_graph."""
    ### BEGIN SOLUTION
    task.compute_dependencies(root)
    ready: list = []
    push_ready(ready, root, [])
    with set_grad_enabled(task.create_graph):
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
    for i, t in enumerate(inputs):
        if not t.requires_grad:
            raise RuntimeError("One of the differentiated Tensors does not require grad")
        if accumulate_grad and t.grad_fn is not None:
            t.retain_grad()  # backward(inputs=non_leaf) fills its .grad
        output_edges.append(gradient_edge(t))
        del i
    task = GraphTask(keep_graph, create_graph)
    root = GraphRoot(roots, grads)
    if output_edges:
        task.init_to_execute(root, output_edges, accumulate_grad)
    execute(task, root)
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
        (SavedVariable::SavedVariable, with the default hooks of saved_tensors_hooks)."""
        ### BEGIN SOLUTION
        self.saved_version = t._version
        self.version_counter = t._version_counter
        self.is_output = is_output
        self.output_nr = t.output_nr
        self.producer = t.grad_fn if is_output else None  # an output's node, fixed now
        self.shape, self.dtype = t.shape, t.dtype
        self.hooks = _state.saved_tensors_hooks[-1] if _state.saved_tensors_hooks else None
        self.data = None if self.hooks else t
        self.packed = self.hooks[0](t) if self.hooks else None
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
        if self.version_counter[0] != self.saved_version:
            raise modified_in_place_error(self)
        if self.hooks is not None:
            return self.hooks[1](self.packed)
        return self.data
        ### END SOLUTION


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


def check_inplace(t: Tensor) -> None:
    """Task 3.4: an in-place op on a leaf that requires grad is an error under grad mode
    (torch/csrc/autograd/VariableTypeUtils.h: check_inplace): it would change a value the
    graph, and the optimizer, think is fixed."""
    ### BEGIN SOLUTION
    if not is_grad_enabled():
        return
    if t.is_leaf and t.requires_grad:
        raise RuntimeError(
            "a leaf Variable that requires grad is being used in an in-place operation."
        )
    base = t._base
    if base is not None and base.is_leaf and base.requires_grad:
        raise RuntimeError(
            "a view of a leaf Variable that requires grad is being used in an in-place operation."
        )
    ### END SOLUTION


def _rebase_history(t: Tensor, node: Node | None) -> None:
    """After an in-place op: bump the version; the tensor is now output 0 of the new node."""
    t._bump_version()
    if node is not None:
        if t._base is not None:
            raise NotImplementedError("in-place on a view that requires grad (torch: CopySlices)")
        t._grad_accumulator = None
        t.grad_fn = None
        set_history(t, node)


def add_(self: Tensor, other: Any) -> Tensor:
    """Task 3.4: in-place add -> AddBackward0 with edges (old self, other)."""
    ### BEGIN SOLUTION
    check_inplace(self)
    b = _wrap(other)
    node = _make_node(AddBackward0, self, b)
    if node:
        node.save("alpha", 1)
        node.save("shapes", (self.shape, b.shape))
    np.add(self._array, b._array.astype(self.dtype.np), out=self._array)
    _rebase_history(self, node)
    return self
    ### END SOLUTION


def mul_(self: Tensor, other: Any) -> Tensor:
    """Task 3.4: in-place mul -> MulBackward0, saving a CLONE of the old self (torch's
    VariableType does the same: the old value is gone after the op)."""
    ### BEGIN SOLUTION
    check_inplace(self)
    b = _wrap(other)
    node = _make_node(MulBackward0, self, b)
    if node:
        node.save("self", clone(self) if b.requires_grad else None)
        node.save("other", b if self.requires_grad else None)
        node.save("shapes", (self.shape, b.shape))
    np.multiply(self._array, b._array.astype(self.dtype.np), out=self._array)
    _rebase_history(self, node)
    return self
    ### END SOLUTION


class ZeroBackward0(Node):
    def apply(self, grads: list) -> list:
        """Task 3.4: the old value does not matter: zero gradient."""
        ### BEGIN SOLUTION
        return [grads[0] * 0]
        ### END SOLUTION


def zero_(self: Tensor) -> Tensor:
    """Task 3.4: in-place fill with 0 -> ZeroBackward0."""
    ### BEGIN SOLUTION
    check_inplace(self)
    node = _make_node(ZeroBackward0, self)
    self._array[...] = 0
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
            g * 0 if self.needs(0) else None,
            sum_to(g, self.saved("src_sizes")).to(self.saved("src_dtype"))
            if self.needs(1)
            else None,
        ]
        ### END SOLUTION


def copy_(self: Tensor, src: Any) -> Tensor:
    """Task 3.4: in-place copy (broadcasting src) -> CopyBackwards (functions/tensor.h)."""
    ### BEGIN SOLUTION
    check_inplace(self)
    s = src if isinstance(src, Tensor) else tensor(np.asarray(src))
    node = _make_node(CopyBackwards, self, s)
    if node:
        node.save("src_sizes", s.shape)
        node.save("src_dtype", s.dtype)
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

    def release_variables(self) -> None:
        for s in self.__dict__.get("_saved_variables") or ():
            if s is not None:
                s.reset_data()

    def apply(self, grads: list) -> list:
        """Task 3.5: call the user's backward (zeros for undefined grads unless
        set_materialize_grads(False)); keep the gradients of the TENSOR arguments."""
        ### BEGIN SOLUTION
        if self.materialize_grads:
            grads = [
                zeros(*meta[0], dtype=meta[1]) if g is None else g
                for g, meta in zip(grads, self._input_metadata, strict=True)
            ]
        result = self._forward_cls.backward(self, *grads)
        result = result if isinstance(result, tuple) else (result,)
        n_args = len(self.needs_input_grad)
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
        ctx.needs_input_grad = tuple(
            is_grad_enabled() and isinstance(a, Tensor) and a.requires_grad for a in args
        )
        is_executable = any(ctx.needs_input_grad)
        with no_grad():
            outputs = cls.forward(ctx, *args)
        is_tuple = isinstance(outputs, tuple)
        outs = list(outputs) if is_tuple else [outputs]
        if is_executable:
            tensor_args = [a for a in args if isinstance(a, Tensor)]
            ctx._tensor_positions = [i for i, a in enumerate(args) if isinstance(a, Tensor)]
            ctx._next_edges = collect_next_edges(*tensor_args)
            for i, o in enumerate(outs):
                if not isinstance(o, Tensor):
                    continue
                if any(o is a for a in tensor_args):
                    o = outs[i] = o.detach()  # an input returned as is: a new alias
                if any(o is n for n in ctx.non_differentiable):
                    continue
                set_history(o, ctx)
        ctx._saved_variables = [
            None if t is None else SavedVariable(t, any(t is o for o in outs)) for t in ctx.to_save
        ]
        return tuple(outs) if is_tuple else outs[0]
        ### END SOLUTION


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


class _NoopSaveInputs(Function):
    """torch/utils/checkpoint.py: saves the checkpoint's inputs (under the OUTER hooks)."""

    @staticmethod
    def forward(ctx: Any, dummy: Tensor, *args: Any) -> Tensor:
        ctx.save_for_backward(*[a for a in args if isinstance(a, Tensor)])
        return zeros(0)

    @staticmethod
    def backward(ctx: Any, *grads: Any) -> Any:
        raise AssertionError("Did not expect to backward on this graph")


class _Frame:
    """The state of one non-reentrant checkpoint call (checkpoint.py: _CheckpointFrame)."""

    def __init__(self, function: Callable, input_saver: Node, args: tuple) -> None:
        self.function = function
        self.args = args  # the non-tensor ones are used as is
        self.input_saver = input_saver
        self.holders: list[list] = []  # forward packs one holder per saved tensor
        self.recomputed = False


def _recompute(frame: _Frame) -> None:
    """Task 3.6: rerun the function with grad mode on; the k-th tensor it saves fills the
    k-th holder packed in the forward (checkpoint.py: recompute_fn, _recomputation_hook)."""
    ### BEGIN SOLUTION
    saved = iter(frame.input_saver.saved_tensors)  # unpacked: version-checked
    args = [next(saved) if isinstance(a, Tensor) else a for a in frame.args]
    it = iter(frame.holders)

    def pack(t: Tensor) -> None:
        holder = next(it, None)
        if holder is not None:
            holder.append(t.detach())

    with enable_grad(), saved_tensors_hooks(pack, lambda _: None):
        frame.function(*args)
    frame.recomputed = True
    ### END SOLUTION


def _checkpoint_without_reentrant(function: Callable, *args: Any) -> Any:
    """Task 3.6: torch/utils/checkpoint.py _checkpoint_without_reentrant_generator. The forward
    runs normally (so y.grad_fn is the real last node), but every tensor it saves is replaced by
    an empty holder; the first unpack in backward recomputes the function to fill them."""
    ### BEGIN SOLUTION
    dummy = zeros(0, requires_grad=True)  # so the input saver records a node
    saver = _NoopSaveInputs.apply(dummy, *args).grad_fn
    frame = _Frame(function, saver, args)

    def pack(t: Tensor) -> list:
        holder: list = []
        frame.holders.append(holder)
        return holder

    def unpack(holder: list) -> Tensor:
        if not frame.recomputed:
            _recompute(frame)
        return holder[0]

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
        """Task 3.6: recompute with grad on detached inputs, backward through it."""
        ### BEGIN SOLUTION
        inputs = [x.detach().requires_grad_(x.requires_grad) for x in ctx.saved_tensors]
        with enable_grad():
            outputs = ctx.run_function(*inputs)
        outputs = _tensor_tuple(outputs)
        pairs = [(o, g) for o, g in zip(outputs, grads, strict=True) if o.requires_grad]
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
        if strict:
            if unexpected:
                errors.insert(
                    0, "Unexpected key(s) in state_dict: " + ", ".join(map(repr, unexpected)) + ". "
                )
            if missing:
                errors.insert(
                    0, "Missing key(s) in state_dict: " + ", ".join(map(repr, missing)) + ". "
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
            elif p.grad is not None:
                p.grad = zeros_like(p.grad)
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
        """Task 3.7: F.linear: addmm(bias, x, weight.t()) for 2-D x (AddmmBackward0), a 1-D x
        as a row and back (ViewBackward0), mm without a bias (MmBackward0)."""
        ### BEGIN SOLUTION
        x2 = x.reshape(1, -1) if x.dim() == 1 else x
        wt = self.weight.t()
        out = mm(x2, wt) if self.bias is None else addmm(self.bias, x2, wt)
        return out.reshape(-1) if x.dim() == 1 else out
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
                p.grad = None if set_to_none else (None if p.grad is None else zeros_like(p.grad))
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
