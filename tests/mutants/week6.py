"""Week 6 mutants: realistic learner bugs in reference_impl/compile.py, by task.

Each replaces one short, distinctive piece of the reference (found exactly once). Among them
the issue's: a guard that ignores strides, a break that does not resume (the rest of the
function is never traced), and a recompile limit off by one. The blind set
(tests/mutants/blind/week6.py) is the honest measure; these were written beside the cases.
``python -m autograder.mutation week6`` prints the table.
"""

from __future__ import annotations

from autograder.mutation import Mutant


def _m(task: str, name: str, old: str, new: str, why: str = "") -> Mutant:
    return Mutant("week6", task, name, old, new, why)


WEEK6_MUTANTS: list[Mutant] = [
    # --- Task 6.1: the backend contract and explain -------------------------------------------
    _m(
        "6.1",
        "recorder keeps only the last graph",
        "        self.graphs.append(gm)\n",
        "        self.graphs[:] = [gm]\n",
        "thinks a backend is called once per function",
    ),
    _m(
        "6.1",
        "explain counts breaks as graphs",
        '"graph_break_count": len(recorder.graphs) - 1,',
        '"graph_break_count": len(recorder.graphs),',
        "one break per graph, forgetting the first graph has none before it",
    ),
    _m(
        "6.1",
        "explain without reset",
        "    torch._dynamo.reset()\n    recorder = GraphRecorder()\n    try:\n"
        "        torch.compile(fn, backend=recorder)(*args)\n    finally:\n"
        "        torch._dynamo.reset()  # torch's explain leaves no cache entry behind either\n",
        "    recorder = GraphRecorder()\n    torch.compile(fn, backend=recorder)(*args)\n",
        "a cached function hands the recorder nothing on a second explain",
    ),
    # --- Task 6.2: capture ---------------------------------------------------------------------
    _m(
        "6.2",
        "a new placeholder on every use",
        "            if key not in self.known:\n",
        "            if True:\n",
        "no memo of which tensors the graph already has",
    ),
    _m(
        "6.2",
        "keyword arguments dropped",
        "node = self.graph.create_node(kind, target, node_args, node_kwargs)",
        "node = self.graph.create_node(kind, target, node_args, {})",
        "records positional arguments only",
    ),
    _m(
        "6.2",
        "operands swapped",
        "right, left = self.stack.pop(), self.stack.pop()\n        if ins.arg not in BINARY_OPS:",
        "left, right = self.stack.pop(), self.stack.pop()\n        if ins.arg not in BINARY_OPS:",
        "pops the left operand first",
    ),
    _m(
        "6.2",
        "empty graphs compiled",
        "        if self.calls == 0:\n            return\n        if keep_inputs:",
        "        if keep_inputs:",
        "hands the backend a graph with no call",
    ),
    # --- Task 6.3: graph breaks ----------------------------------------------------------------
    _m(
        "6.3",
        "a break that does not resume",
        "        self.tracer = Tracer(self.dynamic_ints)\n        for var in kept:",
        "        for var in kept:",
        "keeps writing into the graph it just closed: the rest never becomes a graph",
    ),
    _m(
        "6.3",
        "every local handed on at a break",
        "if name in live for v in _flatten(var)]",
        "for v in _flatten(var)]",
        "no liveness: dead locals become graph outputs",
    ),
    _m(
        "6.3",
        "branch taken the wrong way",
        "return ins.argval if taken == jump_if else None",
        "return ins.argval if taken != jump_if else None",
        "reads POP_JUMP_FORWARD_IF_FALSE as jump-if-true",
    ),
    _m(
        "6.3",
        "condition not handed on",
        "self.graph_break(ins, lambda: bool(cond.value), needed=(cond,))",
        "self.graph_break(ins, lambda: bool(cond.value))",
        "the graph's outputs leave out the value the jump needs",
    ),
    # --- Task 6.4: guards ----------------------------------------------------------------------
    _m(
        "6.4",
        "guard ignores strides",
        "return list(x.shape) == sizes and list(x.stride()) == strides",
        "return list(x.shape) == sizes",
        "sizes seem enough: a transpose of the same size slips through",
    ),
    _m(
        "6.4",
        "guard ignores requires_grad",
        "x.dtype, x.device, x.requires_grad)",
        "x.dtype, x.device, t.requires_grad)",
        "forgets that autograd changes the graph Dynamo would make",
    ),
    _m(
        "6.4",
        "no aliasing guard",
        "return all((a is b) == same[i][j]",
        "return True or all((a is b) == same[i][j]",
        "distinct arguments are assumed to stay distinct",
    ),
    _m(
        "6.4",
        "ints guarded by value only",
        "checks.append(lambda f: type(get(f)) is kind and get(f) == value)",
        "checks.append(lambda f: get(f) == value)",
        "True == 1 and 2.0 == 2 pass",
    ),
    # --- Task 6.5: the cache -------------------------------------------------------------------
    _m(
        "6.5",
        "recompile limit off by one",
        "if len(self.entries) >= self.recompile_limit:",
        "if len(self.entries) > self.recompile_limit:",
        "allows one entry too many",
    ),
    _m(
        "6.5",
        "automatic dynamic never marks a dim",
        "found |= {d for d, s in enumerate(value.shape) if s != before[d]}",
        "found |= set()",
        "every new size compiles again, up to the limit",
    ),
    _m(
        "6.5",
        "reset keeps the entries",
        "    def reset(self) -> None:\n        self.entries: list[CacheEntry] = []",
        "    def reset(self) -> None:\n"
        "        self.entries: list[CacheEntry] = getattr(self, 'entries', [])",
        "forgets the cache hangs off the compiler",
    ),
    # --- Task 6.6: ATen tracing -----------------------------------------------------------------
    _m(
        "6.6",
        "tracer records prim ops",
        '        if func.namespace == "prim":  # prim.device and friends read metadata: not'
        " recorded\n            return out\n",
        "",
        "records metadata queries as graph nodes (make_fx does not)",
    ),
    _m(
        "6.6",
        "tuple items not bound",
        "self.bind(item, self.graph.call_function(operator.getitem, (node, i)))",
        "pass",
        "forgets the getitem nodes of a multi-output op",
    ),
    # --- Task 6.7: functionalization ------------------------------------------------------------
    _m(
        "6.7",
        "mutated inputs not returned",
        "            news = tuple(current[p] for p in placeholders if p in written)",
        "            news = ()",
        "removes the mutation but loses the input's new value",
    ),
    _m(
        "6.7",
        "stale views never replayed",
        "        if when < written.get(base, -1):  # the base changed since: replay the view on it",
        "        if False:",
        "a view read after its base changed keeps the old values",
    ),
    # --- Task 6.8: decompositions ---------------------------------------------------------------
    _m(
        "6.8",
        "gelu without the half",
        "    return x * 0.5 * (1 + torch.erf(x * _SQRT1_2))",
        "    return x * (1 + torch.erf(x * _SQRT1_2))",
        "drops the 0.5 of x * Phi(x)",
    ),
    _m(
        "6.8",
        "softmax without the max",
        "    e = torch.exp(x - torch.amax(x, dim, keepdim=True))",
        "    e = torch.exp(x)",
        "same values on small inputs, other ops than torch's (and overflow on large ones)",
    ),
    # --- Task 6.9: the partition ----------------------------------------------------------------
    _m(
        "6.9",
        "unused saved values kept",
        "    saved = [n for n in saved if n.name in used]\n",
        "",
        "saves values the backward never reads",
    ),
    _m(
        "6.9",
        "tangents counted as forward",
        '    forward = [n for n in nodes[: last + 1] if n.op != "output" and not _is_tangent(n)]',
        '    forward = [n for n in nodes[: last + 1] if n.op != "output"]',
        "puts the tangents among the forward nodes",
    ),
    # --- Task 6.10: the loop IR and fusion ------------------------------------------------------
    _m(
        "6.10",
        "extern at the level of its arguments",
        "        level = max(a.level for a in stored) + 1",
        "        level = max(a.level for a in stored)",
        "fuses the loops after mm with the loops before it",
    ),
    _m(
        "6.10",
        "dead nodes lowered",
        '            if node not in live and node.op != "placeholder":',
        "            if False:",
        "lowers what no output needs (Inductor removes it)",
    ),
    # --- Task 6.11: code generation -------------------------------------------------------------
    _m(
        "6.11",
        "reduction over the kept dims",
        "        reduced = tuple(range(len(loop.ranges), len(dims)))",
        "        reduced = tuple(range(len(loop.ranges)))",
        "reduces over the kept dims instead of the reduction dims",
    ),
    _m(
        "6.11",
        "no flat view of a buffer",
        '        return self.emit(f"{self.emit(_flat(name))}[{index}]")',
        '        return self.emit(f"{name}_flat[{index}]")',
        "gathers from <name>_flat without making it",
    ),
    # --- Task 6.12: backend="labdev" ------------------------------------------------------------
    _m(
        "6.12",
        "labdev runs the graph as it is",
        "    return backend(gm, example_inputs)\n",
        "    return gm.forward\n",
        "a backend that passes every value check by compiling nothing",
    ),
    _m(
        "6.12",
        "registered under another name",
        '        register_backend(labdev_backend, name="labdev")',
        '        register_backend(labdev_backend, name="lab_dev")',
        'torch.compile(backend="labdev") cannot find it',
    ),
]

ACCEPTED_SURVIVORS: dict[str, str] = {}
