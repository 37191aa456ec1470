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
]

ACCEPTED_SURVIVORS: dict[str, str] = {}
