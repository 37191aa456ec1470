# Generated from reference_impl/compile.py by `torchlab release`: this is the file you edit.
# Replace each `raise NotImplementedError(...)` with your code; the docstring above it
# says what PyTorch does and where. Check your work with `torchlab check`.
# ruff: noqa: F401, F841
"""Week 6: torch.compile for a new chip. Part 1: TorchDynamo, from bytecode to FX graphs.

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
import operator
import types
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import torch
import torch.fx

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
