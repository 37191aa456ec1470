# Generated from reference_impl/compile.py by `torchlab release`: this is the file you edit.
# Replace each `raise NotImplementedError(...)` with your code; the docstring above it
# says what PyTorch does and where. Check your work with `torchlab check`.
# ruff: noqa: F401, F841
"""Week 6: torch.compile for a new chip, from Python bytecode to fused kernels.

``torch.compile(fn)`` does not run ``fn``'s Python the normal way. TorchDynamo hooks the
frame (PEP 523), reads its bytecode one instruction at a time with *symbolic* values, and
writes every tensor operation into a ``torch.fx.Graph``. Where it cannot follow the Python
(a ``print``, a branch on a tensor's value) it ends the graph there ("a graph break"), runs
that piece normally, and starts a new graph after it. It hands each graph to a *backend*,
guards the result with checks on the inputs, and caches it on the code object. You build
each of those pieces and compare them with real Dynamo running the same program:

- Task 6.1: the backend contract (``GraphRecorder``) and an ``explain`` built on it,
  compared with ``torch._dynamo.explain``.
- Task 6.2: ``capture``: a symbolic interpreter of Python 3.11 bytecode for straight-line
  tensor code, compared with the graphs Dynamo hands a backend.
- Task 6.3: graph breaks in ``capture``: unsupported calls and branches on tensors, and
  resuming after them.
- Task 6.4: ``make_guards``: Dynamo's static guards on the inputs and the global state,
  compared with the guard tree Dynamo itself evaluates.
- Task 6.5: ``LabCompiler``: the cache of compiled entries, recompiles, the recompile limit
  and automatic dynamic shapes, compared with ``torch.compile``'s compile count.

Part 2 goes below Dynamo, where a backend works (AOTAutograd, then Inductor):

- Task 6.6: ``aten_trace``: ATen tracing with a dispatch mode under ``FakeTensorMode``,
  compared with ``make_fx``.
- Task 6.7: ``functionalize``: no mutation left, compared with AOTAutograd's forward graph.
- Task 6.8: ``decompositions``: a table of small-op versions of big ops, compared with
  torch's own decompositions.
- Task 6.9: ``partition``: the joint forward-backward graph cut in two, compared with
  ``default_partition``.
- Task 6.10: ``Lowering``: a loop-level IR and fusion, compared with the kernels Inductor
  writes for the same graph.
- Task 6.11: ``codegen`` and ``compile_graph``: Python code for the kernels, compared with
  eager results.
- Task 6.12: ``labdev_backend``: all of it as a ``torch.compile`` backend that trains.

Where PyTorch does this (torch 2.13): ``torch/_dynamo/eval_frame.py`` (the frame hook,
``explain``), ``torch/_dynamo/convert_frame.py`` (one frame's compile, the recompile limit),
``torch/_dynamo/symbolic_convert.py`` (``InstructionTranslator``: one method per opcode,
``break_graph_if_unsupported``, ``generic_jump``), ``torch/_dynamo/output_graph.py``
(``compile_and_call_fx_graph``: a graph with no calls is never compiled),
``torch/_dynamo/guards.py`` (``GuardBuilder``: ``TENSOR_MATCH``, ``EQUALS_MATCH``...),
``torch/_dynamo/backends/registry.py`` (``register_backend``).

Your mini-Dynamo runs the program for real while it records: every value carries its real
result beside its graph node. Dynamo carries fake tensors instead (same shapes, no data),
which is why it can compile without running anything twice.
"""

from __future__ import annotations

import dis
import math
import operator
import re
import types
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import torch
import torch.fx
from torch._subclasses.fake_tensor import FakeTensorMode
from torch.utils._python_dispatch import TorchDispatchMode

# ---- given ----------------------------------------------------------------------------------


@dataclass
class Captured:
    """What capturing ``fn(*args)`` gives: each graph with the example inputs it was made
    for (what a backend receives), and what ``fn`` returned."""

    graphs: list[torch.fx.GraphModule] = field(default_factory=list)
    example_inputs: list[list[Any]] = field(default_factory=list)
    result: Any = None


# ---- Task 6.1: the backend contract ----------------------------------------------------------


class GraphRecorder:
    """Task 6.1: a ``torch.compile`` backend that records what Dynamo hands it.

    A backend is any callable ``backend(gm, example_inputs) -> callable``
    (``torch/_dynamo/output_graph.py``, ``_call_user_compiler``): ``gm`` is a
    ``torch.fx.GraphModule`` of torch-level calls, ``example_inputs`` the real tensors of the
    call being compiled. What it returns is run in place of the graph, now and on every later
    call the guards accept. Record both, in order, in ``self.graphs`` and
    ``self.example_inputs``, and return something that runs the graph unchanged.
    """

    def __init__(self) -> None:
        self.graphs: list[torch.fx.GraphModule] = []
        self.example_inputs: list[list[Any]] = []

    def __call__(self, gm: torch.fx.GraphModule, example_inputs: list[Any]) -> Callable:
        raise NotImplementedError("GraphRecorder.__call__ (Task 6.1)")


def explain(fn: Callable, *args: Any) -> dict[str, Any]:
    """Task 6.1: ``torch._dynamo.explain(fn)(*args)``, built only on a ``GraphRecorder``.

    Compile ``fn`` with your recorder as the backend (``torch.compile(fn, backend=...)``),
    call it once with ``args``, and return ``{"graph_count", "graph_break_count",
    "graphs"}``: how many graphs the backend received, how many breaks that means
    (``eval_frame.py``, ``explain``: one fewer than the graphs), and the graphs themselves.
    Call ``torch._dynamo.reset()`` first: Dynamo caches compiled code on ``fn.__code__``, and
    a cached function would hand your recorder nothing.
    """
    raise NotImplementedError("explain (Task 6.1)")


# ---- Tasks 6.2 and 6.3: a symbolic interpreter of bytecode ------------------------------------


class GraphBreak(Exception):
    """Raised inside the interpreter where Dynamo would break the graph."""


@dataclass
class Var:
    """A value on the interpreter's stack or in a local: its real value, and (for a tensor
    the current graph computed or took as input) the graph node that stands for it."""

    value: Any
    node: torch.fx.Node | None = None


@dataclass
class Method:
    """``x.name`` loaded by ``LOAD_METHOD`` on a tensor: called, it becomes ``call_method``."""

    owner: Var
    name: str


NULL = object()  # what LOAD_GLOBAL/LOAD_METHOD push below a callable that has no ``self``

# Python's binary operators by BINARY_OP's argument (``dis._nb_ops``) and COMPARE_OP's.
BINARY_OPS = {
    0: operator.add,
    1: operator.and_,
    2: operator.floordiv,
    4: operator.matmul,
    5: operator.mul,
    6: operator.mod,
    7: operator.or_,
    8: operator.pow,
    10: operator.sub,
    11: operator.truediv,
    12: operator.xor,
}
COMPARE_OPS = {
    "<": operator.lt,
    "<=": operator.le,
    "==": operator.eq,
    "!=": operator.ne,
    ">": operator.gt,
    ">=": operator.ge,
}
# Callables that end the graph: Dynamo cannot put them in a graph (``print`` writes to the
# terminal: it must run, once, at its place in the program).
BREAKING_CALLS = (print,)


class Tracer:
    """One graph being written: its nodes, and which real tensors it already has nodes for.

    A tensor that comes from outside the graph (an argument, or a value an earlier graph
    computed) becomes a placeholder the first time an instruction uses it, as Dynamo's
    ``VariableBuilder`` does: so placeholders are in order of first use."""

    def __init__(self, dynamic_ints: frozenset[str] = frozenset()) -> None:
        self.graph = torch.fx.Graph()
        self.inputs: list[Any] = []
        self.known: dict[int, torch.fx.Node] = {}  # id(real tensor) -> its node here
        self.calls = 0
        self.dynamic_ints = dynamic_ints

    def node_for(self, var: Var, name: str = "input") -> torch.fx.Node | None:
        """Task 6.2: the node standing for ``var`` in this graph (a new placeholder if it
        came from outside), or None for a plain Python value."""
        if isinstance(var.value, torch.Tensor):
            raise NotImplementedError("Tracer.node_for (Task 6.2)")
        return var.node  # a dynamic int has a placeholder of its own (see LabCompiler)

    def placeholder(self, name: str) -> torch.fx.Node:
        """A new graph input named like Dynamo's (``L_x_``), made unique in this graph."""
        taken = {n.target for n in self.graph.nodes if n.op == "placeholder"}
        target, k = f"L_{name}_", 0
        while target in taken:
            k += 1
            target = f"L_{name}_{k}_"
        return self.graph.placeholder(target)

    def call(self, kind: str, target: Any, args: list[Var], kwargs: dict[str, Var]) -> Var:
        """Task 6.2: run one tensor operation for real and record it: ``kind`` is
        ``call_function`` (``target`` a function) or ``call_method`` (a method name)."""
        raise NotImplementedError("Tracer.call (Task 6.2)")

    def _arg(self, var: Var) -> Any:
        node = self.node_for(var)
        if node is not None:
            return node
        if isinstance(var.value, (list, tuple)):
            return type(var.value)(
                self._arg(v if isinstance(v, Var) else Var(v)) for v in var.value
            )
        return var.value

    def finish(self, outputs: list[Var], captured: Captured, keep_inputs: bool = False) -> None:
        """Task 6.2: close the graph with ``outputs`` (the tensors it computed that the
        program still needs) and keep it, unless it has no call at all: Dynamo never
        compiles a graph with no calls (``output_graph.py``, ``compile_and_call_fx_graph``).
        Placeholders no call uses are dropped, with their example inputs; ``keep_inputs``:
        an output may be an input itself."""
        raise NotImplementedError("Tracer.finish (Task 6.2)")


def _flatten(value: Any) -> Iterator[Var]:
    """The Vars inside a value (a Var, or a tuple or list of them)."""
    if isinstance(value, Var):
        if isinstance(value.value, (list, tuple)):
            for item in value.value:
                yield from _flatten(item)
        else:
            yield value
    elif isinstance(value, (list, tuple)):
        for item in value:
            yield from _flatten(item)


def _real(value: Any) -> Any:
    """The real value behind a Var (containers unwrapped all the way down)."""
    if isinstance(value, Var):
        value = value.value
    if isinstance(value, (list, tuple)):
        return type(value)(_real(v) for v in value)
    return value


def _is_torch_function(fn: Any) -> bool:
    """Functions Dynamo puts in the graph as ``call_function``: torch's own and the
    operator module's. (Dynamo knows many more; this lab keeps to these.)"""
    module = getattr(fn, "__module__", None) or ""
    return (
        module == "torch"
        or module.startswith(("torch.nn.functional", "torch._C._nn"))  # F.gelu lives in C
        or getattr(torch, getattr(fn, "__name__", ""), None) is fn
        or getattr(operator, getattr(fn, "__name__", ""), None) is fn
    )


class Interpreter:
    """Run one function's bytecode with ``Var`` values, writing tensor
    operations into the current ``Tracer`` (``symbolic_convert.py``,
    ``InstructionTranslator``: one method per opcode, named after it)."""

    def __init__(self, fn: Callable, args: tuple, dynamic_ints: frozenset[str]) -> None:
        code = fn.__code__
        if code.co_flags & (inspect_flags := 0x04 | 0x08):  # *args, **kwargs
            raise NotImplementedError(
                f"{fn.__name__} takes *args or **kwargs (flags {code.co_flags & inspect_flags}):"
                " this mini-Dynamo binds positional arguments only"
            )
        if code.co_freevars:
            raise NotImplementedError(
                f"{fn.__name__} is a closure over {code.co_freevars}: Dynamo reads closure "
                "cells (LOAD_DEREF); this mini-Dynamo does not"
            )
        self.fn, self.code = fn, code
        self.instructions = list(dis.get_instructions(code))
        self.at = {ins.offset: i for i, ins in enumerate(self.instructions)}
        self.stack: list[Any] = []
        self.locals: dict[str, Var] = {}
        for name, value in zip(code.co_varnames, args, strict=False):
            var = Var(value)
            if name in dynamic_ints and type(value) is int:
                var.node = None  # made a placeholder by the tracer on first use
            self.locals[name] = var
        self.dynamic_ints = dynamic_ints
        self.captured = Captured()
        self.tracer = Tracer(dynamic_ints)
        self.kw_names: tuple[str, ...] = ()
        self.dynamic_shapes = False  # see capture

    # -- the loop --

    def run(self) -> Captured:
        """Execute every instruction from the first; return the graphs and the result."""
        pc = 0
        while True:
            ins = self.instructions[pc]
            if ins.opname == "RETURN_VALUE":
                value = self.stack.pop()
                # One tensor returned is always a graph output, even an input passed through
                # (``compile_subgraph``'s fast path); a tuple hands on only what the graph made.
                alone = isinstance(value, Var) and isinstance(value.value, torch.Tensor)
                self.tracer.finish(list(_flatten(value)), self.captured, keep_inputs=alone)
                self.captured.result = _real(value)
                return self.captured
            if self.dynamic_shapes:
                self._refuse_dynamic_size(ins)
            handler = getattr(self, ins.opname, None)
            if handler is None:
                raise NotImplementedError(
                    f"opcode {ins.opname} at offset {ins.offset} of {self.fn.__name__}: "
                    "Dynamo handles it (symbolic_convert.py); this mini-Dynamo does not"
                )
            jump = handler(ins)
            pc = self.at[jump] if jump is not None else pc + 1

    def _refuse_dynamic_size(self, ins: dis.Instruction) -> None:
        """With dynamic sizes, Dynamo reads ``x.shape[0]`` as a symbol (a ``SymInt`` graph
        input, ``sym_size`` nodes); this interpreter would bake in the number it saw and
        give a wrong answer for the next size. It refuses instead."""
        top = self.stack[-1] if self.stack else None
        reads = (
            ins.opname == "LOAD_ATTR"
            and ins.argval == "shape"
            or ins.opname == "LOAD_METHOD"
            and ins.argval in ("size", "numel")
        ) and isinstance(getattr(top, "value", None), torch.Tensor)
        if ins.opname == "CALL" and ins.arg == 1 and len(self.stack) >= 2:
            callee = self.stack[-2]
            reads = getattr(callee, "value", None) is len and isinstance(top.value, torch.Tensor)
        if reads:
            raise NotImplementedError(
                f"{self.fn.__name__} reads a tensor's size while sizes are dynamic: Dynamo "
                "makes it a symbol (SymInt); this mini-Dynamo would bake in the number it saw"
            )

    def load_local(self, name: str) -> Var:
        var = self.locals[name]
        if name in self.dynamic_ints and type(var.value) is int and var.node is None:
            var.node = self.tracer.placeholder(name)
            self.tracer.inputs.append(var.value)
        if isinstance(var.value, torch.Tensor):
            self.tracer.node_for(var, name)  # a placeholder named after the local
        return var

    # -- opcodes with nothing to record --

    def RESUME(self, ins: dis.Instruction) -> None:
        pass

    def NOP(self, ins: dis.Instruction) -> None:
        pass

    def PRECALL(self, ins: dis.Instruction) -> None:
        pass

    def PUSH_NULL(self, ins: dis.Instruction) -> None:
        self.stack.append(NULL)

    def POP_TOP(self, ins: dis.Instruction) -> None:
        self.stack.pop()

    def COPY(self, ins: dis.Instruction) -> None:
        self.stack.append(self.stack[-ins.arg])

    def SWAP(self, ins: dis.Instruction) -> None:
        self.stack[-1], self.stack[-ins.arg] = self.stack[-ins.arg], self.stack[-1]

    def LOAD_CONST(self, ins: dis.Instruction) -> None:
        self.stack.append(Var(ins.argval))

    def LOAD_FAST(self, ins: dis.Instruction) -> None:
        """Task 6.2: push the local's Var (a tensor gets its placeholder on first use)."""
        raise NotImplementedError("Interpreter.LOAD_FAST (Task 6.2)")

    def STORE_FAST(self, ins: dis.Instruction) -> None:
        """Task 6.2: pop into a local."""
        raise NotImplementedError("Interpreter.STORE_FAST (Task 6.2)")

    def LOAD_GLOBAL(self, ins: dis.Instruction) -> None:
        """Task 6.2: a global or builtin (``torch``, ``print``); in 3.11 the argument's low
        bit asks for a NULL below it."""
        raise NotImplementedError("Interpreter.LOAD_GLOBAL (Task 6.2)")

    def LOAD_ATTR(self, ins: dis.Instruction) -> None:
        """Task 6.2: an attribute read for real (``torch.nn``, ``x.shape``)."""
        raise NotImplementedError("Interpreter.LOAD_ATTR (Task 6.2)")

    def LOAD_METHOD(self, ins: dis.Instruction) -> None:
        """Task 6.2: push NULL and the callable: on a tensor, a ``Method`` (recorded as
        ``call_method`` when called)."""
        raise NotImplementedError("Interpreter.LOAD_METHOD (Task 6.2)")

    def KW_NAMES(self, ins: dis.Instruction) -> None:
        self.kw_names = self.code.co_consts[ins.arg]

    def BUILD_TUPLE(self, ins: dis.Instruction) -> None:
        items = self.stack[len(self.stack) - ins.arg :] if ins.arg else []
        del self.stack[len(self.stack) - ins.arg :]
        self.stack.append(Var(tuple(items)))

    def BUILD_LIST(self, ins: dis.Instruction) -> None:
        items = self.stack[len(self.stack) - ins.arg :] if ins.arg else []
        del self.stack[len(self.stack) - ins.arg :]
        self.stack.append(Var(list(items)))

    # -- opcodes that compute --

    def _apply(self, fn: Callable, args: list[Var], kwargs: dict[str, Var] | None = None) -> Var:
        """``fn(*args)``: recorded if a tensor is involved, else computed (a constant)."""
        kwargs = kwargs or {}
        vars_ = list(_flatten(args)) + list(_flatten(list(kwargs.values())))
        if any(isinstance(v.value, torch.Tensor) or v.node is not None for v in vars_):
            return self.tracer.call("call_function", fn, args, kwargs)
        return Var(fn(*_real(args), **{k: _real(v) for k, v in kwargs.items()}))

    def BINARY_OP(self, ins: dis.Instruction) -> None:
        """Task 6.2: ``a + b`` and the other operators: ``operator.add``... on a tensor."""
        raise NotImplementedError("Interpreter.BINARY_OP (Task 6.2)")

    def COMPARE_OP(self, ins: dis.Instruction) -> None:
        right, left = self.stack.pop(), self.stack.pop()
        self.stack.append(self._apply(COMPARE_OPS[ins.argval], [left, right]))

    def UNARY_NEGATIVE(self, ins: dis.Instruction) -> None:
        self.stack.append(self._apply(operator.neg, [self.stack.pop()]))

    def BINARY_SUBSCR(self, ins: dis.Instruction) -> None:
        index, owner = self.stack.pop(), self.stack.pop()
        if isinstance(owner.value, (list, tuple)):  # a Python container: take the item
            item = owner.value[_real(index)]
            self.stack.append(item if isinstance(item, Var) else Var(item))
        else:
            self.stack.append(self._apply(operator.getitem, [owner, index]))

    def CALL(self, ins: dis.Instruction) -> None:
        """Task 6.2: pop the arguments (the last ``KW_NAMES`` are keywords), then the
        callable and the NULL or ``self`` below it; record a method or a torch function,
        break at ``print``."""
        raise NotImplementedError("Interpreter.CALL (Task 6.2)")

    # -- Task 6.3: graph breaks --

    def graph_break(
        self, ins: dis.Instruction, run: Callable[[], Any], needed: tuple[Var, ...] = ()
    ) -> None:
        """Task 6.3: end the graph before ``ins``, run it for real, start a new graph.

        Dynamo (``symbolic_convert.py``, ``break_graph_if_unsupported`` and
        ``compile_subgraph``) compiles the graph so far, emits bytecode that runs the
        unsupported instruction normally, then calls a *resume function* for the rest of the
        code, which is traced again from scratch: its tensors enter the new graph as
        placeholders. The graph's outputs are what the rest still needs: ``needed`` (a
        branch's condition), the values on the stack, then the live locals
        (``live_locals``), in the order the function first stored them.
        """
        raise NotImplementedError("Interpreter.graph_break (Task 6.3)")

    def live_locals(self, ins: dis.Instruction) -> set[str]:
        """Task 6.3: the locals that some path from after ``ins`` reads before it writes them
        (Dynamo's ``livevars_analysis`` in ``bytecode_analysis.py``). Jumps here only go
        forward, so every path ends."""
        raise NotImplementedError("Interpreter.live_locals (Task 6.3)")

    def jump(self, ins: dis.Instruction, jump_if: bool) -> int | None:
        """Task 6.3: a conditional jump. On a Python value, follow it (Dynamo specialises on
        it); on a tensor, break the graph (``generic_jump``): its value is data, known only
        by running the graph so far."""
        raise NotImplementedError("Interpreter.jump (Task 6.3)")

    def POP_JUMP_FORWARD_IF_FALSE(self, ins: dis.Instruction) -> int | None:
        return self.jump(ins, False)

    def POP_JUMP_FORWARD_IF_TRUE(self, ins: dis.Instruction) -> int | None:
        return self.jump(ins, True)

    def JUMP_FORWARD(self, ins: dis.Instruction) -> int:
        return ins.argval


def capture(
    fn: Callable,
    *args: Any,
    dynamic_ints: frozenset[str] = frozenset(),
    dynamic_shapes: bool = False,
) -> Captured:
    """Tasks 6.2 and 6.3: capture ``fn(*args)`` into FX graphs, as Dynamo does.

    Straight-line code (6.2) gives one graph: a placeholder for each tensor the code uses,
    in order of first use, then one node per torch call, tensor method or operator on a
    tensor, in program order; Python values (ints, ``x.shape``) are constants. With a
    ``print`` or a branch on a tensor (6.3) it gives one graph per piece. ``dynamic_ints``
    names int arguments kept as graph inputs instead of constants; ``dynamic_shapes`` says
    some sizes are dynamic, so reading a size refuses (both from LabCompiler)."""
    interpreter = Interpreter(fn, args, frozenset(dynamic_ints))
    interpreter.dynamic_shapes = dynamic_shapes
    return interpreter.run()


# ---- Task 6.4: guards -------------------------------------------------------------------------


def tensor_match(t: torch.Tensor, dynamic_dims: frozenset[int] = frozenset()) -> Callable:
    """Task 6.4: Dynamo's ``TENSOR_MATCH`` for an example tensor (``guards.py``,
    ``GuardBuilder.TENSOR_MATCH``; the C++ ``TensorCheck`` in ``guards.cpp``): a later
    tensor passes if it has the same Python type, dispatch key set, dtype, device,
    requires_grad, sizes and strides. A size in ``dynamic_dims`` is not compared, except
    that it must stay at least 2 (Dynamo specialises sizes 0 and 1). Return a predicate."""
    raise NotImplementedError("tensor_match (Task 6.4)")


def make_guards(
    example: dict[str, Any],
    dynamic: dict[str, frozenset[int]] | None = None,
    dynamic_ints: frozenset[str] = frozenset(),
) -> Callable[[dict[str, Any]], bool]:
    """Task 6.4: the guards Dynamo installs for a frame compiled with the arguments
    ``example`` ({name: value}), as one ``check(f_locals) -> bool``.

    Static rules (``guards.py``): a tensor gets ``TENSOR_MATCH``; an int, float, bool or str
    ``EQUALS_MATCH`` (its type and value: Dynamo specialises on it, it is a constant in the
    graph); a list or tuple ``TYPE_MATCH`` and ``LENGTH_CHECK``, then its items' guards;
    ``None`` ``NONE_MATCH``. Two tensor arguments that are distinct objects must stay distinct
    (``NO_TENSOR_ALIASING``), and one tensor passed twice must stay one
    (``DUPLICATE_INPUT``). And the global state the graph was traced under must hold:
    grad mode (``GLOBAL_STATE``). ``dynamic`` ({name: dims}) and ``dynamic_ints`` come from
    the compile cache below: those sizes are not compared; those ints are checked by type
    only."""
    dynamic = dynamic or {}
    raise NotImplementedError("make_guards (Task 6.4)")


def _tensor_paths(example: dict[str, Any]) -> list[Callable[[dict], Any]]:
    """Getters for every tensor in ``example``, nested ones included (for NO_TENSOR_ALIASING)."""
    paths: list[Callable[[dict], Any]] = []

    def walk(get: Callable[[dict], Any], value: Any) -> None:
        if isinstance(value, torch.Tensor):
            paths.append(get)
        elif isinstance(value, (list, tuple)):
            for i, item in enumerate(value):
                walk(lambda f, i=i, get=get: get(f)[i], item)

    for name, value in example.items():
        walk(lambda f, name=name: f[name], value)
    return paths


# ---- Task 6.5: the cache, recompiles and automatic dynamic shapes ----------------------------


@dataclass
class CacheEntry:
    """One compiled version of a function: its guards and what the backend returned."""

    check: Callable[[dict[str, Any]], bool]
    compiled: Callable
    dynamic_ints: frozenset[str]


class LabCompiler:
    """Task 6.5: ``torch.compile(fn, backend=backend, dynamic=dynamic)`` for straight-line
    ``fn`` (no breaks), on your ``capture`` and ``make_guards``.

    Each call binds the arguments by name and tries the cache entries, most recently used
    first (``convert_frame.py``; the entries hang off the code object). The first whose
    guards accept runs its compiled graph and moves to the front. None accepts: compile
    (``capture``, hand the graph to ``backend``, install the guards) as a new entry, unless
    ``recompile_limit`` entries exist: then run ``fn`` eagerly, as Dynamo does after warning "hit
    config.recompile_limit".

    Shapes (``dynamic``): ``False`` keeps every size static; ``True`` makes every dim of
    every tensor, and every int argument, dynamic from the first compile; ``None`` (the
    default) is *automatic dynamic* (``pgo.py``, ``automatic_dynamic``): at a recompile, a
    dim whose size differs from the last compile's is dynamic from then on, and so is an int
    argument whose value differs. A dim marked with ``torch._dynamo.mark_dynamic(x, d)``
    (it sets ``x._dynamo_dynamic_indices``) is dynamic from the start. ``reset()`` forgets
    everything, as ``torch._dynamo.reset()``.
    """

    def __init__(
        self,
        fn: Callable,
        backend: Callable,
        dynamic: bool | None = None,
        recompile_limit: int = 8,
    ) -> None:
        self.fn, self.backend, self.dynamic = fn, backend, dynamic
        self.recompile_limit = recompile_limit
        self.names = fn.__code__.co_varnames[: fn.__code__.co_argcount]
        self.reset()

    def reset(self) -> None:
        self.entries: list[CacheEntry] = []
        self.sizes: dict[str, tuple[int, ...]] = {}  # each tensor's sizes at the last compile
        self.dims: dict[str, set[int]] = {}  # dims found dynamic so far
        self.values: dict[str, int] = {}  # each int's value at the last compile
        self.dynamic_ints: set[str] = set()

    def __call__(self, *args: Any) -> Any:
        raise NotImplementedError("LabCompiler.__call__ (Task 6.5)")

    def dynamic_parts(
        self, f_locals: dict[str, Any]
    ) -> tuple[dict[str, frozenset[int]], frozenset[str]]:
        """Task 6.5: at a compile, which dims of each tensor argument and which int
        arguments to make dynamic; remembers this compile's sizes and values."""
        raise NotImplementedError("LabCompiler.dynamic_parts (Task 6.5)")


def _duck(
    check: Callable[[dict[str, Any]], bool],
    f_locals: dict[str, Any],
    dims: dict[str, frozenset[int]],
) -> Callable[[dict[str, Any]], bool]:
    """With ``dynamic=True`` Dynamo gives dynamic sizes that are equal at the compile one
    symbol (``DimDynamic.DUCK`` in ``symbolic_shapes.py``), so they must stay equal: a
    ``(3, 3)`` compile does not serve ``(3, 2)``. A dim found dynamic by a change of size,
    or marked dynamic, has a symbol of its own (``DimDynamic.DYNAMIC``): ``dims`` leaves
    those out."""
    for value in f_locals.values():
        if isinstance(value, torch.Tensor) and _marked_not_contiguous(value):
            raise NotImplementedError(
                "a tensor marked dynamic (mark_dynamic) laid out non-contiguously under "
                "dynamic=True: Dynamo's symbols for its strides are not modelled in this lab"
            )
    groups: dict[int, list[tuple[str, int]]] = {}
    for name, found in dims.items():
        for d in sorted(found):
            groups.setdefault(f_locals[name].shape[d], []).append((name, d))
    tied = [g for g in groups.values() if len(g) > 1]

    def ducked(f: dict[str, Any]) -> bool:
        if not check(f):
            return False
        return all(len({f[name].shape[d] for name, d in g}) == 1 for g in tied)

    return ducked


def _marked_not_contiguous(t: torch.Tensor) -> bool:
    return bool(getattr(t, "_dynamo_dynamic_indices", None)) and not t.is_contiguous()


def _runner(
    gm: torch.fx.GraphModule,
    compiled: Callable,
    example: list[Any],
    f_locals: dict[str, Any],
    result: Any,
) -> Callable[[dict[str, Any]], Any]:
    """What a cache entry runs: fetch the graph's inputs from a call's arguments (by where
    each example input came from), call the compiled graph, and rebuild ``fn``'s result from
    its outputs. Dynamo writes this as new bytecode for the frame (``output_graph.py``)."""
    where: list[Callable[[dict[str, Any]], Any]] = []
    placeholders = [n for n in gm.graph.nodes if n.op == "placeholder"]
    for node, value in zip(placeholders, example, strict=True):
        if isinstance(value, torch.Tensor):
            where.append(_find(value, f_locals))
        else:  # a dynamic int: its placeholder is named after the argument, L_<name>_
            name = str(node.target)[2:-1]
            where.append(lambda f, name=name: f[name])
    arguments = {id(v) for v in _tensors(list(f_locals.values()))}
    produced = list(dict.fromkeys(id(v) for v in _tensors(result) if id(v) not in arguments))
    given = {id(v): _find(v, f_locals) for v in _tensors(result) if id(v) in arguments}

    def rebuild(value: Any, outs: tuple, f: dict[str, Any]) -> Any:
        if isinstance(value, torch.Tensor) and id(value) in given:
            return given[id(value)](f)
        if isinstance(value, torch.Tensor):
            return outs[produced.index(id(value))]
        if isinstance(value, (list, tuple)):
            return type(value)(rebuild(v, outs, f) for v in value)
        return value

    def run(f: dict[str, Any]) -> Any:
        outs = compiled(*[get(f) for get in where])
        return rebuild(result, tuple(outs), f)

    return run


def _tensors(value: Any) -> Iterator[torch.Tensor]:
    if isinstance(value, torch.Tensor):
        yield value
    elif isinstance(value, (list, tuple)):
        for v in value:
            yield from _tensors(v)


def _find(tensor: torch.Tensor, f_locals: dict[str, Any]) -> Callable[[dict[str, Any]], Any]:
    """A getter for where ``tensor`` sits in the arguments (an argument, or a list item)."""
    for name, value in f_locals.items():
        if value is tensor:
            return lambda f, name=name: f[name]
        if isinstance(value, (list, tuple)):
            for i, item in enumerate(value):
                if item is tensor:
                    return lambda f, name=name, i=i: f[name][i]
    raise NotImplementedError("a graph input that is not an argument: LabCompiler needs one graph")


# =============================================================================================
# Part 2: AOTAutograd and a small Inductor, from ATen graphs to fused kernels
# =============================================================================================
#
# Dynamo's graphs (part 1) hold torch-level calls. A real backend lowers them further:
# AOTAutograd (``torch/_functorch/aot_autograd.py``) traces each graph down to ATen ops with
# fake tensors, removes mutation (functionalization), decomposes big ops into small ones,
# traces the backward into the same "joint" graph and cuts it into a forward and a backward
# graph; Inductor (``torch/_inductor``) then lowers each ATen graph to loops, fuses them into
# kernels and writes code. Tasks 6.6 to 6.12 build each step and compare it with torch's.

ATEN = torch.ops.aten


# ---- Task 6.6: ATen tracing under FakeTensorMode ---------------------------------------------


class AtenTracer(TorchDispatchMode):
    """Task 6.6: a ``TorchDispatchMode`` that writes every ATen call it sees into ``graph``.

    A dispatch mode sees each call *after* autograd and the composite ops have run, at the
    level of ``torch.ops.aten.*`` overloads: that is why ``make_fx``
    (``torch/fx/experimental/proxy_tensor.py``, ``ProxyTorchDispatchMode``) is built on one.
    ``__torch_dispatch__(func, types, args, kwargs)`` runs ``func`` (the mode is off inside,
    so the call goes on to the next mode down, ``FakeTensorMode``, which computes the
    result's shape, dtype and strides without data), then adds a ``call_function`` node for
    it. Keep, for every tensor the program holds, the node that made it (``self.node_of``).
    """

    def __init__(self, graph: torch.fx.Graph) -> None:
        super().__init__()
        self.graph = graph
        self.node_of: dict[int, torch.fx.Node] = {}
        self.alive: list[torch.Tensor] = []  # keeps each tensor (and so its id) alive

    def bind(self, value: Any, node: torch.fx.Node) -> None:
        """Remember ``node`` as the maker of ``value`` (a tuple's items get ``getitem`` nodes,
        as ``make_fx`` writes them)."""
        raise NotImplementedError("AtenTracer.bind (Task 6.6)")

    def node(self, value: Any) -> Any:
        """The graph argument standing for ``value``: its node for a tensor the graph made or
        was given, ``value`` itself for anything else (ints, dtypes, lists of them)."""
        raise NotImplementedError("AtenTracer.node (Task 6.6)")

    def __torch_dispatch__(self, func: Any, _types: Any, args: Any = (), kwargs: Any = None) -> Any:
        raise NotImplementedError("AtenTracer.__torch_dispatch__ (Task 6.6)")


def aten_trace(fn: Callable, *args: torch.Tensor) -> torch.fx.GraphModule:
    """Task 6.6: ``make_fx(fn, tracing_mode="fake")(*args)``: ``fn``'s ATen graph.

    Make a ``FakeTensorMode``; turn each example input into a fake tensor
    (``mode.from_tensor``) and a placeholder; run ``fn`` on the fakes with the fake mode and
    your ``AtenTracer`` both on (the tracer innermost, so it sees each call first); then
    write the output node from what ``fn`` returned. Nothing runs on real data, so a
    branch on a value (``if x.sum() > 0``) cannot be traced: the fake mode raises, as it
    does in ``make_fx`` (Dynamo would have broken the graph there).
    """
    raise NotImplementedError("aten_trace (Task 6.6)")


# ---- Task 6.7: functionalization -------------------------------------------------------------


_VIEWS = {
    ATEN.view.default,
    ATEN._unsafe_view.default,
    ATEN.t.default,
    ATEN.transpose.int,
    ATEN.permute.default,
    ATEN.unsqueeze.default,
    ATEN.squeeze.dim,
    ATEN.alias.default,
    ATEN.detach.default,
}


def is_inplace(target: Any) -> bool:
    """Whether an ATen overload writes into its first argument: ``add_``, ``mul_``,
    ``copy_`` (its schema marks ``self`` as ``Tensor(a!)``)."""
    schema = getattr(target, "_schema", None)
    if schema is None or not schema.arguments:
        return False
    first = schema.arguments[0]
    return first.alias_info is not None and first.alias_info.is_write and not first.kwarg_only


def _is_view(target: Any) -> bool:
    """Whether an ATen overload returns a view of its first argument (its schema marks the
    result ``Tensor(a)``, read-only): ``select``, ``slice``, ``expand``... (given)."""
    schema = getattr(target, "_schema", None)
    if schema is None or not schema.returns or not schema.arguments:
        return False
    out = schema.returns[0].alias_info
    return out is not None and not out.is_write


def out_of_place(target: Any) -> Any:
    """``aten.add_.Tensor`` -> ``aten.add.Tensor``: the functional twin of an in-place op
    (``torch/_subclasses/functional_tensor.py`` dispatches each in-place op to it)."""
    name = target._schema.name.split("::")[1]  # e.g. "add_"
    return getattr(getattr(ATEN, name[:-1]), target._overloadname)


def _inverse_view(graph: torch.fx.Graph, node: Any, view: torch.fx.Node, base_shape: Any) -> Any:
    """The base's new value from a new value of ``view`` (one view step of it)."""
    target, args = view.target, view.args
    if target in (ATEN.view.default, ATEN._unsafe_view.default):
        return graph.call_function(ATEN.view.default, (node, list(base_shape)))
    if target in (ATEN.t.default, ATEN.transpose.int):
        return graph.call_function(target, (node, *args[1:]))
    if target is ATEN.permute.default:
        dims = list(args[1])
        inverse = [dims.index(d) for d in range(len(dims))]
        return graph.call_function(ATEN.permute.default, (node, inverse))
    if target is ATEN.unsqueeze.default:
        return graph.call_function(ATEN.squeeze.dim, (node, args[1]))
    if target is ATEN.squeeze.dim:
        return graph.call_function(ATEN.unsqueeze.default, (node, args[1]))
    return node  # alias, detach: the same elements


def functionalize(gm: torch.fx.GraphModule) -> torch.fx.GraphModule:
    """Task 6.7: the same program with no mutation, as AOTAutograd's forward graph.

    Walk ``gm``'s ATen graph (from ``aten_trace``) into a new graph:

    - an in-place op (``is_inplace``) becomes its out-of-place twin, and its result becomes
      the *current value* of the tensor it wrote into;
    - a view (``_VIEWS``) remembers its base and the view step: when a view is written
      into, the base's new value is that step undone (``_inverse_view``); a view read after
      its base changed is made again from the base's current value (views are *replayed*);
    - every read uses the current value;
    - an input that was written into (directly or through a view) is returned too: the new
      values of mutated inputs come first, in input order, then the program's outputs, and
      the caller copies them back (AOTAutograd's runtime wrapper does; see
      ``torch/_functorch/_aot_autograd/functional_utils.py``);
    - with no mutation left, a node no output needs is dead: remove it, as AOTAutograd's
      graph does (``Graph.eliminate_dead_code``).

    PyTorch: ``torch/_subclasses/functional_tensor.py`` (``FunctionalTensorMode``) and
    ``aten/src/ATen/FunctionalTensorWrapper.cpp`` (views replayed from the base's updates).
    """
    raise NotImplementedError("functionalize (Task 6.7)")


# ---- Task 6.8: decompositions ----------------------------------------------------------------

_SQRT1_2 = 0.70710678118654752440
_2_SQRTPI = 1.12837916709551257390
_SQRT2 = 1.41421356237309504880


def _gelu(x: torch.Tensor, approximate: str = "none") -> torch.Tensor:
    """gelu(x) = x * Phi(x). ``torch/_refs/nn/functional/__init__.py`` (``gelu``)."""
    raise NotImplementedError("_gelu")


def _gelu_backward(grad: torch.Tensor, x: torch.Tensor, approximate: str = "none") -> torch.Tensor:
    """d gelu / dx times ``grad`` (``approximate="none"`` only: the tanh form is refused).
    ``torch/_decomp/decompositions.py`` (``gelu_backward``)."""
    raise NotImplementedError("_gelu_backward")


def _silu(x: torch.Tensor) -> torch.Tensor:
    """silu(x) = x * sigmoid(x). ``torch/_decomp/decompositions.py`` (``silu``)."""
    raise NotImplementedError("_silu")


def _softmax(x: torch.Tensor, dim: int, half_to_float: bool) -> torch.Tensor:
    """exp(x - max) / sum(exp(x - max)), the max subtracted so exp cannot overflow.
    ``torch/_decomp/decompositions.py`` (``_softmax``)."""
    raise NotImplementedError("_softmax")


def _log_softmax(x: torch.Tensor, dim: int, half_to_float: bool) -> torch.Tensor:
    """(x - max) - log(sum(exp(x - max))). ``torch/_decomp/decompositions.py``
    (``_log_softmax``)."""
    raise NotImplementedError("_log_softmax")


def _addmm(
    bias: torch.Tensor, a: torch.Tensor, b: torch.Tensor, *, beta: Any = 1, alpha: Any = 1
) -> torch.Tensor:
    """alpha * (a @ b) + beta * bias, with ``mm`` first so the result is contiguous like
    addmm's. ``torch/_decomp/decompositions.py`` (``addmm``)."""
    raise NotImplementedError("_addmm")


def _t(x: torch.Tensor) -> torch.Tensor:
    """``t`` is ``transpose(0, 1)``; a 0-d or 1-d tensor is ``transpose(0, 0)``, a new view
    of the same elements (never ``x`` itself: a view op must return a new tensor).
    ``torch/_refs/__init__.py`` (``t``)."""
    raise NotImplementedError("_t")


def _softmax_backward_data(
    grad: torch.Tensor, out: torch.Tensor, dim: int, input_dtype: torch.dtype
) -> torch.Tensor:
    """softmax's backward from its output y: g*y - y * sum(g*y). ``torch/_decomp/
    decompositions.py`` (``_softmax_backward_data``)."""
    raise NotImplementedError("_softmax_backward_data")


def _log_softmax_backward_data(
    grad: torch.Tensor, out: torch.Tensor, dim: int, input_dtype: torch.dtype
) -> torch.Tensor:
    """log_softmax's backward from its output: g - exp(out) * sum(g). ``torch/_decomp/
    decompositions.py`` (``_log_softmax_backward_data``)."""
    raise NotImplementedError("_log_softmax_backward_data")


def decompositions() -> dict[Any, Callable]:
    """Task 6.8: a decomposition table, ``{aten overload: function}``, for ``make_fx``.

    ``make_fx(fn, decomposition_table=table)`` calls ``table[op](*args, **kwargs)`` in place
    of each op in the table, tracing what that function calls instead. A decomposition
    writes a big op with smaller ones a compiler already knows (``gelu`` with ``erf``),
    so a backend lowers a few hundred core ops rather than two thousand. PyTorch's own:
    ``torch/_decomp/decompositions.py``, picked with ``torch._decomp.get_decompositions``;
    Inductor's table is ``torch/_inductor/decomposition.py`` (``select_decomp_table``).

    Yours must trace to the same ATen ops, in the same order, as torch's for the same op
    (the cases compare them): ``gelu``, ``gelu_backward``, ``silu``, ``_softmax``,
    ``_log_softmax`` and their backwards, ``addmm``, ``t``.
    """
    raise NotImplementedError("decompositions (Task 6.8)")


# ---- Task 6.9: the joint graph and its partition ---------------------------------------------


def _tag(node: torch.fx.Node) -> str | None:
    return node.meta.get("partitioner_tag")


def partition(
    joint: torch.fx.GraphModule, joint_inputs: Any, *, num_fwd_outputs: int, **_: Any
) -> tuple[torch.fx.GraphModule, torch.fx.GraphModule]:
    """Task 6.9: cut AOTAutograd's joint graph into a forward and a backward graph, as
    ``default_partition`` does (``torch/_functorch/partitioners.py``).

    The joint graph takes ``primals_*`` (the inputs) and ``tangents_*`` (the gradients of the
    outputs) and returns the forward's ``num_fwd_outputs`` outputs, then a gradient (or
    ``None``) for each primal. AOTAutograd tags every node it traced while running the
    forward with ``node.meta["partitioner_tag"] == "is_forward"``.

    - The forward nodes: in graph order, every node that is not a tangent, up to the last
      node tagged ``is_forward`` (the placement the program had, not just what the outputs
      need).
    - The saved values: forward nodes (placeholders and calls) that a backward node reads,
      in graph order; a node whose every user is a ``getitem`` is not saved itself (its
      items are).
    - The forward graph: primals in, its outputs then the saved values out.
    - The backward graph: the saved values then the tangents in (a saved value the backward
      does not read is left out of both), the gradients out.
    Copy only the nodes each graph needs (``_extract_graph_with_inputs_outputs``).
    """
    raise NotImplementedError("partition (Task 6.9)")


def _is_tangent(node: torch.fx.Node) -> bool:
    return node.op == "placeholder" and node.name.startswith("tangents")


def _extract(
    source: torch.fx.Graph, inputs: list[torch.fx.Node], outputs: list[Any]
) -> torch.fx.GraphModule:
    """A new graph with ``inputs`` as its placeholders, ``outputs`` as its outputs, and a copy
    of every node between them that an output needs (given)."""
    graph = torch.fx.Graph()
    env: dict[torch.fx.Node, torch.fx.Node] = {}
    for n in inputs:
        env[n] = graph.placeholder(n.name)
        env[n].meta = dict(n.meta)
    needed: set[torch.fx.Node] = set()
    stack = [o for o in outputs if isinstance(o, torch.fx.Node)]
    while stack:
        n = stack.pop()
        if n in needed or n in env:
            continue
        if n.op == "placeholder":
            raise ValueError(f"{n.name} is needed but is not an input of this graph")
        needed.add(n)
        stack.extend(n.all_input_nodes)
    for n in source.nodes:
        if n in needed:
            env[n] = graph.node_copy(n, lambda a: env[a])
    graph.output(tuple(env[o] if isinstance(o, torch.fx.Node) else o for o in outputs))
    return torch.fx.GraphModule(torch.nn.Module(), graph)


# ---- Task 6.10: a loop-level IR and fusion ---------------------------------------------------
#
# Inductor (``torch/_inductor/ir.py``) lowers each ATen node to a *buffer described by a
# function*: ``Pointwise(ranges, inner_fn)`` where ``inner_fn(index)`` returns the value of
# one element, written with calls on a *virtualized* handler ``ops`` (``ops.load``,
# ``ops.add``, ``ops.exp``...; ``torch/_inductor/virtualized.py``). Nothing is computed when
# lowering: a consumer's ``inner_fn`` simply calls its producer's, so a chain of pointwise
# ops becomes one expression ("inlining": the fusion of pointwise chains). A buffer is
# *realized* (given memory and a loop of its own) only where it must be: graph outputs,
# reductions, the inputs and outputs of extern calls such as ``mm``. The handler decides what
# the ops mean: the code generator (6.11) installs one that writes Python.
#
# Indices here are Python expressions (strings) over loop variables ``i0, i1, ...``; the
# generated code evaluates them on whole ``torch.arange`` vectors at once, like one Triton
# block covering the buffer.

Index = list[str]


class _Ops:
    """The virtualized ``ops``: forwards every call to the handler installed now."""

    handler: Any = None

    def __getattr__(self, name: str) -> Callable:
        return getattr(_Ops.handler, name)


ops = _Ops()


@dataclass
class Buffer:
    """A realized buffer: ``name`` in the generated code, its ``shape`` and ``dtype``."""

    name: str
    shape: tuple[int, ...]
    dtype: torch.dtype = torch.float32


@dataclass
class Loop:
    """One loop nest that computes a realized buffer: for each ``index`` over ``ranges``,
    ``inner(index)`` is the element's value. A reduction loops over ``ranges`` followed by
    ``reduction_ranges`` and combines the values over the latter with ``reduction_type``
    (``"sum"``, ``"amax"``, ``"amin"``)."""

    buffer: Buffer
    ranges: tuple[int, ...]
    inner: Callable[[Index], str]
    reduction_ranges: tuple[int, ...] = ()
    reduction_type: str | None = None


@dataclass
class Extern:
    """A call to a library kernel (``extern_kernels.mm`` in Inductor): ``op`` on realized
    buffers ``args``, writing ``buffer``."""

    buffer: Buffer
    op: str
    args: list[Any]


@dataclass
class Kernel:
    """A fused kernel: loop nests that run one after another in one function."""

    name: str
    loops: list[Loop]


@dataclass
class Lowered:
    """What ``lower`` gives: the graph's inputs, its steps (kernels and extern calls) in the
    order they run, and its outputs (buffer names, or input names)."""

    inputs: list[Buffer]
    steps: list[Kernel | Extern]
    outputs: list[str]


@dataclass
class Value:
    """What a graph node lowers to (Inductor's ``TensorBox``): its ``shape``, a ``loader``
    giving one element's value at an index, the ``level`` it sits at (how many extern calls
    come before it: loops at one level fuse into one kernel), and where it is stored when
    it is: ``layout`` = (buffer or input name, sizes, strides, offset)."""

    shape: tuple[int, ...]
    loader: Callable[[Index], str]
    level: int = 0
    layout: tuple[str, tuple[int, ...], tuple[int, ...], int] | None = None
    dtype: torch.dtype = torch.float32


def _contiguous_strides(shape: tuple[int, ...]) -> tuple[int, ...]:
    strides, step = [], 1
    for size in reversed(shape):
        strides.append(step)
        step *= size
    return tuple(reversed(strides))


def _offset(index: Index, strides: tuple[int, ...], offset: int = 0) -> str:
    terms = [
        i if s == 1 else f"{i}*{s}" for i, s in zip(index, strides, strict=True) if s and i != "0"
    ]
    if offset:
        terms.append(str(offset))
    return " + ".join(terms) or "0"


def _stored(name: str, shape: tuple[int, ...], strides: tuple[int, ...], offset: int,
            dtype: torch.dtype, level: int) -> Value:  # fmt: skip
    """A value that sits in memory: each element is a load at its strided offset."""
    return Value(
        shape,
        lambda index: ops.load(name, _offset(index, strides, offset)),
        level,
        (name, shape, strides, offset),
        dtype,
    )


# ATen pointwise ops and the ``ops`` call each becomes.
POINTWISE: dict[Any, str] = {
    ATEN.add.Tensor: "add", ATEN.sub.Tensor: "sub", ATEN.mul.Tensor: "mul",
    ATEN.div.Tensor: "truediv", ATEN.neg.default: "neg", ATEN.relu.default: "relu",
    ATEN.exp.default: "exp", ATEN.log.default: "log", ATEN.sin.default: "sin",
    ATEN.cos.default: "cos", ATEN.tanh.default: "tanh", ATEN.sigmoid.default: "sigmoid",
    ATEN.erf.default: "erf", ATEN.sqrt.default: "sqrt", ATEN.rsqrt.default: "rsqrt",
    ATEN.abs.default: "abs", ATEN.reciprocal.default: "reciprocal",
    ATEN.maximum.default: "maximum", ATEN.minimum.default: "minimum",
    ATEN.pow.Tensor_Scalar: "pow", ATEN.clone.default: "identity",
    ATEN.threshold_backward.default: "threshold_backward",
    ATEN.tanh_backward.default: "tanh_backward", ATEN.sigmoid_backward.default: "sigmoid_backward",
}  # fmt: skip
REDUCTIONS = {
    ATEN.sum.dim_IntList: "sum", ATEN.sum.default: "sum", ATEN.amax.default: "amax",
    ATEN.amin.default: "amin", ATEN.mean.dim: "mean", ATEN.mean.default: "mean",
}  # fmt: skip
EXTERNS = {ATEN.mm.default: "mm", ATEN.addmm.default: "addmm", ATEN.bmm.default: "bmm"}


class Lowering:
    """Task 6.10: lower an ATen graph to loops and extern calls, and fuse the loops.

    ``run(gm)`` walks the graph once, turning each node into a ``Value``
    (``GraphLowering.run_node`` in ``torch/_inductor/graph.py``):

    - an input is a stored value with the example's sizes and strides;
    - a pointwise op (``POINTWISE``) is a new loader that calls the loaders of its arguments
      (broadcast to its shape) and combines them with ``ops``: nothing is stored;
    - a view (``view``, ``permute``, ``transpose``, ``expand``, ``unsqueeze``, ``squeeze``,
      ``detach``) is a loader that maps its index to its argument's index (``reindex``),
      and keeps the argument's memory when it has some (new strides, same buffer);
    - a reduction (``REDUCTIONS``) is realized: a loop that combines its argument's loader
      over the reduced dims (``mean`` is a ``sum`` then a pointwise division);
    - ``mm``, ``addmm`` and ``bmm`` are extern calls (``EXTERNS``): their arguments must be
      in memory (``realize``), and their result is one level later than their latest
      argument;
    - each output is realized, unless it is already in memory.

    Then the loops are fused: all loops of one level, in the order they were made, become
    one kernel (Inductor's C++ backend puts every loop between two extern calls into one
    function: ``cpp_fused_*``), and the steps are the kernels and extern calls ordered by
    level.
    """

    def __init__(self) -> None:
        self.loops: list[tuple[int, Loop]] = []
        self.externs: list[tuple[int, Extern]] = []
        self.count = 0

    def new_buffer(self, shape: tuple[int, ...], dtype: torch.dtype) -> Buffer:
        buffer = Buffer(f"buf{self.count}", tuple(shape), dtype)
        self.count += 1
        return buffer

    def realize(self, value: Value) -> Value:
        """``value`` in memory: itself if it is, else a new buffer and the loop filling it.
        The caller puts the stored value in place of the old one for every *later* reader
        (as Inductor's ``TensorBox.realize``); readers made before keep computing it
        inline, so none reads a buffer that a later loop fills."""
        raise NotImplementedError("Lowering.realize (Task 6.10)")

    def stored(self, buffer: Buffer, level: int) -> Value:
        return _stored(
            buffer.name, buffer.shape, _contiguous_strides(buffer.shape), 0, buffer.dtype, level
        )

    def pointwise(self, target: Any, args: tuple, kwargs: dict, dtype: torch.dtype) -> Value:
        raise NotImplementedError("Lowering.pointwise (Task 6.10)")

    def view(self, target: Any, x: Value, args: tuple) -> Value:
        raise NotImplementedError("Lowering.view (Task 6.10)")

    def reduction(self, target: Any, x: Value, args: tuple, dtype: torch.dtype) -> Value:
        raise NotImplementedError("Lowering.reduction (Task 6.10)")

    def extern(self, target: Any, args: tuple, kwargs: dict, out: Any) -> Value:
        raise NotImplementedError("Lowering.extern (Task 6.10)")

    def run(self, gm: torch.fx.GraphModule) -> Lowered:
        raise NotImplementedError("Lowering.run (Task 6.10)")

    def fuse(self) -> list[Kernel | Extern]:
        """The steps: level by level, the extern calls of the level, then one kernel of all
        the level's loops. A loop's level is that of the latest buffer it reads (it runs as
        soon as it can), so a loop no extern call waits for still joins the first kernel it
        can: Inductor's scheduler fuses it there too (``Scheduler.fuse_nodes``)."""
        raise NotImplementedError("Lowering.fuse (Task 6.10)")


def _kernels_if_late(loops: list[tuple[int, Loop]], externs: list[tuple[int, Extern]]) -> int:
    """How many kernels there would be if every loop ran as *late* as its readers allow
    (given: it tells ``fuse`` where the count depends on the placement)."""
    last = max([lv for lv, _ in loops] + [lv for lv, _ in externs], default=0)
    latest: dict[str, int] = {}
    for level, extern in externs:
        for arg in extern.args:
            latest[arg[0]] = min(latest.get(arg[0], last), level - 1)
    levels = set()
    for _, loop in reversed(loops):  # readers come after what they read
        level = latest.get(loop.buffer.name, last)
        levels.add(level)
        for name in _reads(loop):
            latest[name] = min(latest.get(name, last), level)
    return len(levels)


class _Reads:
    """An ``ops`` handler that only notes which buffers a loop loads (given)."""

    def __init__(self) -> None:
        self.names: set[str] = set()

    def load(self, name: str, index: str) -> str:
        self.names.add(name)
        return "v"

    def __getattr__(self, name: str) -> Callable[..., str]:
        return lambda *args: "v"


def _reads(loop: Loop) -> set[str]:
    reads, before = _Reads(), _Ops.handler
    _Ops.handler = reads
    try:
        loop.inner([f"i{d}" for d in range(len(loop.ranges) + len(loop.reduction_ranges))])
    finally:
        _Ops.handler = before
    return reads.names


def _live(graph: torch.fx.Graph) -> set[torch.fx.Node]:
    """The nodes some output needs (given)."""
    live: set[torch.fx.Node] = set()
    stack = [graph.output_node()]
    while stack:
        node = stack.pop()
        if node not in live:
            live.add(node)
            stack.extend(node.all_input_nodes)
    return live


def lower(gm: torch.fx.GraphModule) -> Lowered:
    """Task 6.10: ``gm`` (an ATen graph whose placeholders carry ``meta["val"]``) lowered."""
    return Lowering().run(gm)


def _broadcast(x: Value, shape: tuple[int, ...]) -> Callable[[Index], str]:
    """``x``'s loader read at an index of the broadcast ``shape`` (dims lined up on the
    right; a dim of size 1 reads element 0)."""
    lead = len(shape) - len(x.shape)

    def loader(index: Index) -> str:
        mine = index[lead:]
        return x.loader(["0" if s == 1 else i for i, s in zip(mine, x.shape, strict=True)])

    return loader


def _reindex(target: Any, shape: tuple[int, ...], args: tuple) -> tuple[tuple[int, ...], Callable]:
    """A view's shape, and the map from its index to its argument's index."""
    raise NotImplementedError("_reindex")


_VIEW_LOWERINGS = {
    ATEN.view.default, ATEN._unsafe_view.default, ATEN.permute.default, ATEN.transpose.int,
    ATEN.t.default, ATEN.expand.default, ATEN.unsqueeze.default, ATEN.squeeze.dim,
    ATEN.detach.default, ATEN.alias.default,
}  # fmt: skip


def _view_layout(target: Any, x: Value, shape: tuple[int, ...], args: tuple) -> Any:
    """The view's memory when ``x`` has memory and the view needs no copy (new sizes and
    strides on the same buffer), else None (the view stays a loader)."""
    if x.layout is None:
        return None
    name, sizes, strides, offset = x.layout
    probe = torch.empty_strided(sizes, strides, device="meta")
    if target in (ATEN.detach.default, ATEN.alias.default):
        viewed = probe
    elif target in (ATEN.view.default, ATEN._unsafe_view.default):
        try:
            viewed = probe.view(shape)
        except RuntimeError:
            return None
    else:
        viewed = getattr(torch.ops.aten, target._schema.name.split("::")[1])(probe, *args)
    return (name, tuple(viewed.shape), tuple(viewed.stride()), offset)


# ---- Task 6.11: code generation --------------------------------------------------------------

_FORMATS = {
    "add": "({0} + {1})", "sub": "({0} - {1})", "mul": "({0} * {1})", "truediv": "({0} / {1})",
    "neg": "(-{0})", "relu": "torch.relu({0})", "exp": "torch.exp({0})",
    "log": "torch.log({0})", "sin": "torch.sin({0})", "cos": "torch.cos({0})",
    "tanh": "torch.tanh({0})", "sigmoid": "torch.sigmoid({0})", "erf": "torch.erf({0})",
    "sqrt": "torch.sqrt({0})", "rsqrt": "torch.rsqrt({0})", "abs": "torch.abs({0})",
    "reciprocal": "torch.reciprocal({0})", "maximum": "torch.maximum({0}, {1})",
    "minimum": "torch.minimum({0}, {1})", "pow": "torch.pow({0}, {1})", "identity": "{0}",
    "threshold_backward": "torch.where({1} <= {2}, 0.0, {0})",
    "tanh_backward": "({0} * (1 - {1} * {1}))",
    "sigmoid_backward": "({0} * ((1 - {1}) * {1}))",
}  # fmt: skip


class PythonOps:
    """Task 6.11: the ``ops`` handler of the code generator for one loop nest over ``dims``
    (its ranges, then its reduction ranges). Each call writes one line ``tmpN =
    <expression>`` into ``self.lines`` and returns ``tmpN``; the same expression asked twice
    gets the same name (common subexpressions computed once, as Inductor's ``CSE`` in
    ``torch/_inductor/codegen/common.py``). Every ``tmpN`` holds the value at every index of
    the loop at once, shaped to broadcast (dim ``d`` is loop variable ``i<d>``)."""

    def __init__(self, dims: tuple[int, ...]) -> None:
        self.lines: list[str] = []
        self.names: dict[str, str] = {}
        self.loaded: list[str] = []  # the buffers and inputs read, in order
        self.dims = dims  # what i0, i1... run over: a load's sizes
        self.gathers = False  # whether a load has needed the loop variables as tensors

    def emit(self, expression: str) -> str:
        raise NotImplementedError("PythonOps.emit (Task 6.11)")

    def load(self, name: str, index: str) -> str:
        """``name`` at offset ``index``, for every index of the loop at once (Inductor's C++
        kernel loads one element per iteration: ``in_ptr0[x1 + 64*x0]``). An offset affine
        in the loop variables (every load of a stored value) is a strided view of the
        memory, no copy (``_block``); any other (a reshape's ``//`` and ``%``) is a gather
        from the flat storage, with the loop variables as index tensors
        (``_index_vectors``): a copy, made again on every call."""
        self.loaded.append(name)
        block = _block(index, self.dims)
        if block is not None:
            return self.emit(f"torch.as_strided({name}, {block[0]}, {block[1]}, {block[2]})")
        if not self.gathers:  # once per loop nest, where its first gather needs them
            self.lines += _index_vectors(self.dims)
            self.gathers = True
        return self.emit(f"{self.emit(_flat(name))}[{index}]")

    def constant(self, value: Any) -> str:
        if isinstance(value, float) and not math.isfinite(value):
            return f"float({str(value)!r})"  # repr gives inf and nan: not Python names
        return repr(value)

    def __getattr__(self, name: str) -> Callable[..., str]:
        if name not in _FORMATS:
            raise AttributeError(name)
        return lambda *args: self.emit(_FORMATS[name].format(*args))


def _loop_source(loop: Loop) -> tuple[list[str], list[str]]:
    """One loop nest as vectorized Python: the body's lines (the loop's ``inner`` at loop
    variables ``i0``, ``i1``..., under a ``PythonOps`` for the loop's dims), then the store.
    A pointwise value is copied into its buffer (``copy_`` broadcasts it to the loop's
    shape); a reduction broadcasts the value to the loop's full dims (it need not depend on
    every loop variable) and combines it over the trailing reduction dims, written straight
    into the buffer (``out=``, the buffer viewed in the shape of the kept ranges). Also gives
    the names it reads and writes."""
    raise NotImplementedError("_loop_source")


def codegen(lowered: Lowered) -> str:
    """Task 6.11: Python source for a lowered graph, as Inductor's wrapper module
    (``torch/_inductor/codegen/wrapper.py``, ``PythonWrapperCodegen``):

    - one function per kernel, ``def kernel_0(<the buffers it reads and writes>)``, whose
      loops write their buffers with no buffer in between (a pointwise chain lives in
      temporaries ``tmpN``);
    - ``call(args)``: unpack the inputs, allocate each buffer (``torch.empty``) just before
      the step that writes it, run the steps in order (an extern call writes into its
      buffer with ``out=``), return the outputs.

    Loads read each buffer at the offsets the loop IR computed from sizes and strides
    (``PythonOps.load``).
    """
    raise NotImplementedError("codegen (Task 6.11)")


_TERM = re.compile(r"i(\d+)(?:\*(\d+))?|(\d+)")  # a term of an offset: i1, i0*64 or 64
Block = tuple[tuple[int, ...], tuple[int, ...], int]  # sizes, strides, storage offset


def _block(index: str, dims: tuple[int, ...]) -> Block | None:
    """The loads at offset ``index`` for every index of a loop over ``dims``, as the sizes,
    strides and storage offset of one strided view, when ``index`` is affine in the loop
    variables (a sum of ``i<d>*<stride>`` and a number, as ``_offset`` writes it); None for
    any other offset. A loop variable the offset does not use gets size 1 (stride 0): the
    load broadcasts along it.

    Inductor's Triton backend makes the same match, on sympy expressions: an affine index
    becomes a block pointer, ``tl.make_block_ptr(ptr, shape, strides, ...)``, one load of a
    whole block (``match_affine_block`` in ``TritonKernel.indexing``,
    ``torch/_inductor/codegen/triton.py``, under ``config.triton.use_block_ptr``, off by
    default); any other index stays one address per element."""
    strides, offset = [0] * len(dims), 0
    for term in index.split(" + "):
        match = _TERM.fullmatch(term)
        if match is None:
            return None  # a term such as ((i0*8 + i1) // 6 % 8)*6: not a stride
        var, stride, number = match.groups()
        if var is None:
            offset += int(number)
        else:
            strides[int(var)] += int(stride or 1)
    sizes = tuple(size if stride else 1 for size, stride in zip(dims, strides, strict=True))
    return sizes, tuple(strides), offset


def _index_vectors(dims: tuple[int, ...]) -> list[str]:
    """Lines making the loop variables tensors, for a gather's index: ``i<d>`` is
    ``torch.arange`` shaped to broadcast (``i0`` down the first dim, ``i1`` along the
    second...), so an offset written with them is a tensor of every offset of the loop."""
    lines = []
    for d, size in enumerate(dims):
        shape = [1] * len(dims)
        shape[d] = -1
        lines.append(f"i{d} = torch.arange({size}).view({tuple(shape)})")
    return lines


def _flat(name: str) -> str:
    """Every element of ``name``'s storage in one dim, so a gather is one index (the offset
    from sizes and strides), as a pointer in C."""
    size = f"{name}.untyped_storage().nbytes() // {name}.element_size()"
    return f"{name}.as_strided(({size},), (1,), 0)"


def _strided(
    layout: tuple[str, tuple[int, ...], tuple[int, ...], int], allocated: dict[str, Any]
) -> str:
    """A view of a buffer or an input as the wrapper passes or returns it (Inductor's
    ``reinterpret_tensor``); a whole buffer in the shape it was allocated as itself.
    ``allocated``: each buffer's name and the shape ``call`` allocates it with."""
    name, sizes, strides, offset = layout
    whole = name in allocated and tuple(allocated[name]) == tuple(sizes)
    if whole and not offset and strides == _contiguous_strides(sizes):
        return name  # (a contiguous view of another shape, say a .view(48), is not the buffer)
    return f"torch.as_strided({name}, {sizes}, {strides}, {offset})"


def compile_graph(gm: torch.fx.GraphModule, example_inputs: Any = None) -> Callable:
    """Task 6.11: your lowering and code generation as one compiler for AOTAutograd: lower
    ``gm``, generate its code, run the code (``exec``) and return its ``call``, taking a list
    of arguments (a *boxed* call: ``_boxed_call = True``, as ``make_boxed_func`` marks it)."""
    raise NotImplementedError("compile_graph (Task 6.11)")


# ---- Task 6.12: backend="labdev" -------------------------------------------------------------


def labdev_backend(gm: torch.fx.GraphModule, example_inputs: list[Any]) -> Callable:
    """Task 6.12: a ``torch.compile`` backend made of everything above, as Inductor's
    ``compile_fx`` is made (``torch/_inductor/compile_fx.py``): AOTAutograd
    (``torch._dynamo.backends.common.aot_autograd``) traces Dynamo's graph to ATen with your
    decomposition table (6.8), functionalizes it, builds the joint graph and calls your
    ``partition`` (6.9); each of the forward and backward graphs then goes through your
    ``compile_graph`` (6.10, 6.11)."""
    raise NotImplementedError("labdev_backend (Task 6.12)")


def register_labdev() -> None:
    """Task 6.12: make ``torch.compile(model, backend="labdev")`` find ``labdev_backend``
    (``torch._dynamo.register_backend``; ``torch._dynamo.list_backends()`` lists it). A
    second call changes nothing."""
    raise NotImplementedError("register_labdev (Task 6.12)")
