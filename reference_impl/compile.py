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
        ### BEGIN SOLUTION
        self.graphs.append(gm)
        self.example_inputs.append(list(example_inputs))
        return gm.forward  # the graph itself: Dynamo calls it with the same inputs
        ### END SOLUTION


def explain(fn: Callable, *args: Any) -> dict[str, Any]:
    """Task 6.1: ``torch._dynamo.explain(fn)(*args)``, built only on a ``GraphRecorder``.

    Compile ``fn`` with your recorder as the backend (``torch.compile(fn, backend=...)``),
    call it once with ``args``, and return ``{"graph_count", "graph_break_count",
    "graphs"}``: how many graphs the backend received, how many breaks that means
    (``eval_frame.py``, ``explain``: one fewer than the graphs), and the graphs themselves.
    Call ``torch._dynamo.reset()`` first: Dynamo caches compiled code on ``fn.__code__``, and
    a cached function would hand your recorder nothing.
    """
    ### BEGIN SOLUTION
    torch._dynamo.reset()
    recorder = GraphRecorder()
    try:
        torch.compile(fn, backend=recorder)(*args)
    finally:
        torch._dynamo.reset()  # torch's explain leaves no cache entry behind either
    return {
        "graph_count": len(recorder.graphs),
        "graph_break_count": len(recorder.graphs) - 1,  # -1 when nothing was compiled
        "graphs": recorder.graphs,
    }
    ### END SOLUTION


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
            ### BEGIN SOLUTION
            key = id(var.value)
            if key not in self.known:
                self.known[key] = self.placeholder(name)
                self.inputs.append(var.value)
            return self.known[key]
            ### END SOLUTION
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
        ### BEGIN SOLUTION
        node_args = tuple(self._arg(a) for a in args)
        node_kwargs = {k: self._arg(v) for k, v in kwargs.items()}
        real_args = [_real(a) for a in args]  # a list argument holds Vars: unwrap them all
        real_kwargs = {k: _real(v) for k, v in kwargs.items()}
        if kind == "call_method":
            value = getattr(real_args[0], target)(*real_args[1:], **real_kwargs)
        else:
            value = target(*real_args, **real_kwargs)
        node = self.graph.create_node(kind, target, node_args, node_kwargs)
        self.calls += 1
        if isinstance(value, torch.Tensor):
            self.known[id(value)] = node
        return Var(value, node)
        ### END SOLUTION

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
        ### BEGIN SOLUTION
        if self.calls == 0:
            return
        if keep_inputs:  # an input handed straight on needs its placeholder
            for v in outputs:
                self.node_for(v)
        produced = [
            self.known[id(v.value)]
            for v in outputs
            if isinstance(v.value, torch.Tensor)
            and id(v.value) in self.known
            and (keep_inputs or self.known[id(v.value)].op != "placeholder")
        ]
        self.graph.output(tuple(dict.fromkeys(produced)))
        # An input no call reads is dropped (``remove_unused_graphargs``): loading a local
        # made its placeholder, but a value only passed through needs no graph input.
        kept = []
        placeholders = [n for n in self.graph.nodes if n.op == "placeholder"]
        for node, example in zip(placeholders, self.inputs, strict=True):
            if node.users:  # a call reads it, or the output hands it on
                kept.append(example)
            else:
                self.graph.erase_node(node)
        captured.graphs.append(torch.fx.GraphModule(torch.nn.Module(), self.graph))
        captured.example_inputs.append(kept)
        ### END SOLUTION


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
        ### BEGIN SOLUTION
        self.stack.append(self.load_local(ins.argval))
        ### END SOLUTION

    def STORE_FAST(self, ins: dis.Instruction) -> None:
        """Task 6.2: pop into a local."""
        ### BEGIN SOLUTION
        self.locals[ins.argval] = self.stack.pop()
        ### END SOLUTION

    def LOAD_GLOBAL(self, ins: dis.Instruction) -> None:
        """Task 6.2: a global or builtin (``torch``, ``print``); in 3.11 the argument's low
        bit asks for a NULL below it."""
        ### BEGIN SOLUTION
        if ins.arg & 1:  # 3.11: the low bit asks for a NULL below the global
            self.stack.append(NULL)
        name = ins.argval
        if name in self.fn.__globals__:
            value = self.fn.__globals__[name]
        else:
            value = getattr(self.fn.__builtins__, name, None) or __builtins__[name]  # type: ignore[index]
        self.stack.append(Var(value))
        ### END SOLUTION

    def LOAD_ATTR(self, ins: dis.Instruction) -> None:
        """Task 6.2: an attribute read for real (``torch.nn``, ``x.shape``)."""
        ### BEGIN SOLUTION
        owner = self.stack.pop()
        value = getattr(owner.value, ins.argval)
        if isinstance(owner.value, torch.Tensor) and isinstance(value, torch.Tensor):
            raise NotImplementedError(
                f"the tensor attribute .{ins.argval}: Dynamo records it (a getattr node); "
                "this mini-Dynamo reads only plain attributes such as .shape"
            )
        self.stack.append(Var(value))  # .shape, .dtype, a module's function: plain values
        ### END SOLUTION

    def LOAD_METHOD(self, ins: dis.Instruction) -> None:
        """Task 6.2: push NULL and the callable: on a tensor, a ``Method`` (recorded as
        ``call_method`` when called)."""
        ### BEGIN SOLUTION
        owner = self.stack.pop()
        self.stack.append(NULL)
        if isinstance(owner.value, torch.Tensor):
            self.stack.append(Method(owner, ins.argval))
        else:
            self.stack.append(Var(getattr(owner.value, ins.argval)))
        ### END SOLUTION

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
        ### BEGIN SOLUTION
        right, left = self.stack.pop(), self.stack.pop()
        if ins.arg not in BINARY_OPS:
            raise NotImplementedError(f"BINARY_OP {ins.argrepr}: not in this mini-Dynamo")
        self.stack.append(self._apply(BINARY_OPS[ins.arg], [left, right]))
        ### END SOLUTION

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
        ### BEGIN SOLUTION
        argc, names = ins.arg, self.kw_names
        self.kw_names = ()
        args = self.stack[len(self.stack) - argc :] if argc else []
        del self.stack[len(self.stack) - argc :]
        second, first = self.stack.pop(), self.stack.pop()
        callee, args = (second, args) if first is NULL else (first, [second, *args])
        positional = args[: len(args) - len(names)]
        kwargs = dict(zip(names, args[len(args) - len(names) :], strict=True))
        if isinstance(callee, Method):
            var = self.tracer.call("call_method", callee.name, [callee.owner, *positional], kwargs)
            self.stack.append(var)
            return
        fn = callee.value
        if fn in BREAKING_CALLS:
            real_kwargs = {k: _real(v) for k, v in kwargs.items()}
            self.graph_break(ins, lambda: fn(*_real(positional), **real_kwargs))
            return
        if fn is len:
            self.stack.append(Var(len(_real(positional[0]))))  # a constant: shapes are static
            return
        if isinstance(fn, types.FunctionType) and not _is_torch_function(fn):
            raise NotImplementedError(
                f"a call of the Python function {fn.__name__}: Dynamo inlines it "
                "(InliningInstructionTranslator); this mini-Dynamo does not"
            )
        if not _is_torch_function(fn):
            raise NotImplementedError(
                f"a call of {fn!r}: this mini-Dynamo records torch's functions and breaks at print"
            )
        self.stack.append(self._apply(fn, positional, kwargs))
        ### END SOLUTION

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
        ### BEGIN SOLUTION
        live = self.live_locals(ins)
        kept = [*needed, *_flatten(self.stack)]
        kept += [v for name, var in self.locals.items() if name in live for v in _flatten(var)]
        self.tracer.finish(kept, self.captured)
        self.tracer = Tracer(self.dynamic_ints)
        for var in kept:
            var.node = None  # a dynamic int gets a new placeholder in the next graph
        self.stack.append(Var(run()))
        ### END SOLUTION

    def live_locals(self, ins: dis.Instruction) -> set[str]:
        """Task 6.3: the locals that some path from after ``ins`` reads before it writes them
        (Dynamo's ``livevars_analysis`` in ``bytecode_analysis.py``). Jumps here only go
        forward, so every path ends."""
        ### BEGIN SOLUTION
        live: set[str] = set()

        def walk(i: int, written: frozenset[str]) -> None:
            while i < len(self.instructions):
                step = self.instructions[i]
                if step.opname == "LOAD_FAST" and step.argval not in written:
                    live.add(step.argval)
                elif step.opname == "STORE_FAST":
                    written = written | {step.argval}
                elif step.opname == "RETURN_VALUE":
                    return
                if step.opname.startswith(("POP_JUMP", "JUMP")):
                    target = self.at[step.argval]
                    if step.opname.startswith("JUMP"):
                        i = target
                        continue
                    walk(target, written)
                i += 1

        start = self.at[ins.offset]
        if ins.opname.startswith("POP_JUMP"):  # both ways the branch can go
            walk(self.at[ins.argval], frozenset())
        walk(start + 1, frozenset())
        return live
        ### END SOLUTION

    def jump(self, ins: dis.Instruction, jump_if: bool) -> int | None:
        """Task 6.3: a conditional jump. On a Python value, follow it (Dynamo specialises on
        it); on a tensor, break the graph (``generic_jump``): its value is data, known only
        by running the graph so far."""
        ### BEGIN SOLUTION
        cond = self.stack.pop()
        if isinstance(cond.value, torch.Tensor):
            self.graph_break(ins, lambda: bool(cond.value), needed=(cond,))
            taken = self.stack.pop().value
        else:
            taken = bool(cond.value)
        return ins.argval if taken == jump_if else None
        ### END SOLUTION

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
    ### BEGIN SOLUTION
    expected = (
        type(t),
        torch._C._dispatch_keys(t),
        t.dtype,
        t.device,
        t.requires_grad,
    )
    sizes, strides = list(t.shape), list(t.stride())
    # With dynamic sizes, strides become formulas of the sizes: a dense tensor's strides are
    # the running products of its sizes in the order of its layout (outermost first).
    order = sorted(range(t.dim()), key=lambda d: -strides[d])
    if dynamic_dims and not t.permute(order).is_contiguous():
        raise NotImplementedError(
            "dynamic sizes of a tensor with gaps or overlaps: Dynamo gives its strides "
            "symbols of their own; this lab guards dense tensors only"
        )

    def check(x: Any) -> bool:
        if not isinstance(x, torch.Tensor):
            return False
        got = (type(x), torch._C._dispatch_keys(x), x.dtype, x.device, x.requires_grad)
        if got != expected or x.dim() != len(sizes):
            return False
        if dynamic_dims:  # strides are formulas of the sizes: dense, in the same order
            if any(x.shape[d] < 2 for d in dynamic_dims):  # 0 and 1 are specialised
                return False
            static = all(x.shape[d] == sizes[d] for d in range(len(sizes)) if d not in dynamic_dims)
            return static and x.permute(order).is_contiguous()
        return list(x.shape) == sizes and list(x.stride()) == strides

    return check
    ### END SOLUTION


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
    ### BEGIN SOLUTION
    checks: list[Callable[[dict[str, Any]], bool]] = []
    tensors: list[str] = []

    def guard_value(get: Callable[[dict], Any], value: Any, name: str, top: bool) -> None:
        if isinstance(value, torch.Tensor):
            match = tensor_match(value, dynamic.get(name, frozenset()) if top else frozenset())
            checks.append(lambda f: match(get(f)))
            tensors.append(name)
        elif isinstance(value, (list, tuple)):
            kind, n = type(value), len(value)
            checks.append(lambda f: type(get(f)) is kind and len(get(f)) == n)
            for i, item in enumerate(value):
                guard_value(lambda f, i=i: get(f)[i], item, f"{name}[{i}]", False)
        elif value is None:
            checks.append(lambda f: get(f) is None)
        elif top and name in dynamic_ints and type(value) is int:
            checks.append(lambda f: type(get(f)) is int)
        else:
            kind = type(value)
            checks.append(lambda f: type(get(f)) is kind and get(f) == value)

    getters: dict[str, Callable[[dict], Any]] = {}
    for name, value in example.items():
        getters[name] = lambda f, name=name: f[name]
        guard_value(getters[name], value, name, True)
    aliases = _tensor_paths(example)
    tensors_seen = [get(example) for get in aliases]
    same = [[a is b for b in tensors_seen] for a in tensors_seen]  # which ones are one tensor
    grad_mode = torch.is_grad_enabled()

    def check(f_locals: dict[str, Any]) -> bool:
        if torch.is_grad_enabled() != grad_mode:
            return False
        try:
            if not all(c(f_locals) for c in checks):
                return False
        except (KeyError, IndexError, TypeError):
            return False
        found = [get(f_locals) for get in aliases]
        return all((a is b) == same[i][j] for i, a in enumerate(found) for j, b in enumerate(found))

    return check
    ### END SOLUTION


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
        ### BEGIN SOLUTION
        f_locals = dict(zip(self.names, args, strict=True))
        for entry in self.entries:  # most recently used first
            if entry.check(f_locals):
                self.entries.remove(entry)  # the hit moves to the front, as in
                self.entries.insert(0, entry)  # Dynamo's extra_state.cpp (move_to_front)
                return entry.compiled(f_locals)
        if len(self.entries) >= self.recompile_limit:
            return self.fn(*args)  # Dynamo gives up on this frame: plain Python from now on
        dims, ints = self.dynamic_parts(f_locals)
        dynamic_shapes = any(dims.values())
        captured = capture(self.fn, *args, dynamic_ints=ints, dynamic_shapes=dynamic_shapes)
        if len(captured.graphs) > 1:
            raise NotImplementedError(
                f"{self.fn.__name__} breaks into {len(captured.graphs)} graphs: "
                "LabCompiler compiles straight-line functions only"
            )
        run = self.fn
        if captured.graphs:
            gm, example = captured.graphs[0], captured.example_inputs[0]
            run = _runner(gm, self.backend(gm, example), example, f_locals, captured.result)
        else:
            run = lambda f: self.fn(*f.values())  # noqa: E731 - nothing to compile
        check = make_guards(f_locals, dims, ints)
        if self.dynamic is True:  # "duck sizing": equal dynamic sizes share one symbol
            ducks = {k: v - self.dims.get(k, set()) for k, v in dims.items()}
            check = _duck(check, f_locals, ducks)
        self.entries.insert(0, CacheEntry(check, run, ints))
        return captured.result
        ### END SOLUTION

    def dynamic_parts(
        self, f_locals: dict[str, Any]
    ) -> tuple[dict[str, frozenset[int]], frozenset[str]]:
        """Task 6.5: at a compile, which dims of each tensor argument and which int
        arguments to make dynamic; remembers this compile's sizes and values."""
        ### BEGIN SOLUTION
        dims: dict[str, frozenset[int]] = {}
        for name, value in f_locals.items():
            if isinstance(value, torch.Tensor):
                # Dims found dynamic stay so (the frame's state in ``pgo.py``): those whose
                # size changed since the last compile, and those marked dynamic.
                found = self.dims.setdefault(name, set())
                before = self.sizes.get(name)
                if self.dynamic is not False and before is not None and len(before) == value.dim():
                    found |= {d for d, s in enumerate(value.shape) if s != before[d]}
                found |= set(getattr(value, "_dynamo_dynamic_indices", set()))
                marked = set(found) if self.dynamic is None else set()
                marked |= set(getattr(value, "_dynamo_dynamic_indices", set()))
                if self.dynamic is True:
                    marked |= set(range(value.dim()))
                # A size of 0 or 1 is always compiled static (Dynamo specialises on it).
                dims[name] = frozenset(d for d in marked if value.shape[d] >= 2)
                self.sizes[name] = tuple(value.shape)
            elif type(value) is int:
                before = self.values.get(name)
                if self.dynamic is True or (self.dynamic is None and before not in (None, value)):
                    self.dynamic_ints.add(name)
                self.values[name] = value
        ints = frozenset(self.dynamic_ints) if self.dynamic is not False else frozenset()
        return dims, ints
        ### END SOLUTION


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
