"""Week 6's blind set: 99 learner bugs (6.1: 10, 6.2: 24, 6.3: 22, 6.4: 16, 6.5: 27) written by a
helper who read only the reference (reference_impl/compile.py at 45a6d51) and the notes on
torch 2.13's Dynamo, never the cases; frozen before it was scored (sha256 719672a1f933a9996d11ea971648816b0992d1257d0dadb5e916b460015a71d3, the
sha256 of this file with that hash written as PENDING). Each one changes the reference's
behaviour on at least one of the helper's own probe programs (no known equivalent mutant).

First score on the public cases: 75 of 99 (75.8%). The helper also found five places where the
reference failed (a list of tensors given to torch.cat, print with keywords, an unused argument
returned from a cached entry, one tensor passed twice recompiling every call, F.gelu); fixing
them and modelling dense transposed tensors under dynamic sizes moved four old texts, which
were re-anchored on the new lines with the same bug (print handed the Vars, no aliasing
guard, the two dynamic-guard returns, dynamic dims ignored). Public cases were then added for
the survivors, each following what torch 2.13's Dynamo does."""

from autograder.mutation import Mutant


def _m(task, name, old, new, why="", file=""):
    return Mutant("week6", task, name, old, new, why, file)


# Lines of the reference that several mutants change, each in its own way.
_RETURN_GM = "        return gm.forward  # the graph itself: Dynamo calls it with the same inputs\n"
_RESET = "    torch._dynamo.reset()\n    recorder = GraphRecorder()\n"
_BREAK_COUNT = (
    '        "graph_break_count": len(recorder.graphs) - 1,  # -1 when nothing was compiled'
)
_KEEP_INPUTS = '            and (keep_inputs or self.known[id(v.value)].op != "placeholder")\n'
_NEW_TRACER = "        self.tracer = Tracer(self.dynamic_ints)\n"
_KEPT = "        kept = [*needed, *_flatten(self.stack)]\n"
_LIVE_LOCALS = "        kept += [v for name, var in self.locals.items() if name in live for v in _flatten(var)]\n"
_BRANCH = "        if isinstance(cond.value, torch.Tensor):\n            self.graph_break("
_GOT = "        got = (type(x), torch._C._dispatch_keys(x), x.dtype, x.device, x.requires_grad)"
_EQUALS = "            checks.append(lambda f: type(get(f)) is kind and get(f) == value)"
_LIST = "            checks.append(lambda f: type(get(f)) is kind and len(get(f)) == n)"
_DYN_RETURN = "            return static and x.permute(order).is_contiguous()"
_DYN_INT_GUARD = "            checks.append(lambda f: type(get(f)) is int)"
_CAPTURE = (
    "        captured = capture(self.fn, *args, dynamic_ints=ints, dynamic_shapes=dynamic_shapes)"
)
_GUARDS = "        check = make_guards(f_locals, dims, ints)"
_DUCK = '        if self.dynamic is True:  # "duck sizing": equal dynamic sizes share one symbol'
_FOUND = "                    found |= {d for d, s in enumerate(value.shape) if s != before[d]}"
_COMPARE = (
    "                if self.dynamic is not False and before is not None"
    " and len(before) == value.dim():\n"
)
_MARKED = "                marked = set(found) if self.dynamic is None else set()\n"
_STICKY = '                found |= set(getattr(value, "_dynamo_dynamic_indices", set()))\n'
_INT_DYN = "                if self.dynamic is True or (self.dynamic is None and before not in (None, value)):"

WEEK6_BLIND = [
    # ------------------------------------------------------------------ Task 6.1
    _m(
        "6.1",
        "recorder returns nothing",
        _RETURN_GM,
        "",
        "thinks a recording backend only has to look at the graph, not hand back a callable",
    ),
    _m(
        "6.1",
        "recorder replays the example inputs",
        _RETURN_GM,
        "        return lambda *inputs: gm.forward(*example_inputs)\n",
        "closes over the example inputs it was handed: every later call the guards accept "
        "returns the first call's result",
    ),
    _m(
        "6.1",
        "recorder keeps only the last graph",
        "        self.graphs.append(gm)\n",
        "        self.graphs = [gm]\n",
        "stores 'the graph' instead of appending: after a break only the resume graph is left",
    ),
    _m(
        "6.1",
        "example inputs flattened into one list",
        "        self.example_inputs.append(list(example_inputs))",
        "        self.example_inputs.extend(example_inputs)",
        "extend instead of append: one flat list of tensors, not one list per graph",
    ),
    _m(
        "6.1",
        "explain never calls the compiled function",
        "    torch.compile(fn, backend=recorder)(*args)",
        "    torch.compile(fn, backend=recorder)",
        "thinks torch.compile compiles on the spot; Dynamo compiles at the first call",
    ),
    _m(
        "6.1",
        "recorder keeps the fx.Graph, not the module",
        "        self.graphs.append(gm)\n",
        "        self.graphs.append(gm.graph)\n",
        "records the graph object itself instead of the GraphModule it was handed",
    ),
    _m(
        "6.1",
        "explain shares one recorder across calls",
        _RESET,
        "    torch._dynamo.reset()\n"
        '    recorder = explain.__dict__.setdefault("recorder", GraphRecorder())\n',
        "makes the recorder once (a module-level backend): the graphs of earlier explains pile up",
    ),
    _m(
        "6.1",
        "break count equals graph count",
        _BREAK_COUNT,
        '        "graph_break_count": len(recorder.graphs),',
        "counts each graph as one break",
    ),
    _m(
        "6.1",
        "break count clamped at zero",
        _BREAK_COUNT,
        '        "graph_break_count": max(len(recorder.graphs) - 1, 0),',
        "a count cannot be negative, thinks the learner; Dynamo's explain says -1 for no graph",
    ),
    _m(
        "6.1",
        "explain returns only the last graph",
        '        "graphs": recorder.graphs,',
        '        "graphs": recorder.graphs[-1:],',
        "thinks the final graph is the whole program",
    ),
    # ------------------------------------------------------------------ Task 6.2
    _m(
        "6.2",
        "placeholder made on every use",
        "            if key not in self.known:\n"
        "                self.known[key] = self.placeholder(name)\n"
        "                self.inputs.append(var.value)\n"
        "            return self.known[key]",
        "            if key not in self.known:\n"
        "                self.inputs.append(var.value)\n"
        "                return self.placeholder(name)\n"
        "            return self.known[key]",
        "makes the placeholder but never remembers it: an input used twice becomes two inputs",
    ),
    _m(
        "6.2",
        "graph inputs not recorded",
        "                self.inputs.append(var.value)\n            return self.known[key]",
        "            return self.known[key]",
        "makes the placeholder but forgets the example input that goes with it",
    ),
    _m(
        "6.2",
        "placeholder not named L_<name>_",
        "                self.known[key] = self.placeholder(name)",
        "                self.known[key] = self.graph.placeholder(name)",
        "calls fx's placeholder directly with the local's name, not Dynamo's L_x_",
    ),
    _m(
        "6.2",
        "kwargs dropped from the node",
        "        node = self.graph.create_node(kind, target, node_args, node_kwargs)",
        "        node = self.graph.create_node(kind, target, node_args)",
        "computes the kwargs but forgets to pass them to create_node",
    ),
    _m(
        "6.2",
        "kwargs dropped from the real call",
        "            value = target(*real_args, **real_kwargs)",
        "            value = target(*real_args)",
        "runs the function with its positional arguments only",
    ),
    _m(
        "6.2",
        "calls not counted",
        "        self.calls += 1\n",
        "",
        "never updates Tracer.calls, so every graph looks empty",
    ),
    _m(
        "6.2",
        "call result not remembered",
        "        if isinstance(value, torch.Tensor):\n"
        "            self.known[id(value)] = node\n"
        "        return Var(value, node)",
        "        return Var(value, node)",
        "returns the node with the Var but never registers it: a computed tensor used again "
        "becomes a new placeholder",
    ),
    _m(
        "6.2",
        "graph outputs include its inputs",
        _KEEP_INPUTS,
        "",
        "outputs every tensor handed on, inputs passed straight through included",
    ),
    _m(
        "6.2",
        "lone returned input not an output",
        _KEEP_INPUTS,
        '            and self.known[id(v.value)].op != "placeholder"\n',
        "never outputs an input, missing Dynamo's fast path for one tensor returned",
    ),
    _m(
        "6.2",
        "graph outputs not deduplicated",
        "        self.graph.output(tuple(dict.fromkeys(produced)))",
        "        self.graph.output(tuple(produced))",
        "a tensor returned twice (or held by two locals) is output twice",
    ),
    _m(
        "6.2",
        "unused placeholders kept",
        "            if node.users:  # a call reads it, or the output hands it on",
        "            if True:  # every tensor loaded is a graph input",
        "a local loaded but never used by a call still becomes a graph input",
    ),
    _m(
        "6.2",
        "unused placeholder's example input kept",
        "        captured.example_inputs.append(kept)",
        "        captured.example_inputs.append(list(self.inputs))",
        "erases the unused placeholders but hands on every example input",
    ),
    _m(
        "6.2",
        "LOAD_FAST bypasses load_local",
        "        self.stack.append(self.load_local(ins.argval))",
        "        self.stack.append(self.locals[ins.argval])",
        "reads the local directly: placeholders get the generic name and ints never become "
        "dynamic inputs",
    ),
    _m(
        "6.2",
        "STORE_FAST peeks instead of popping",
        "        self.locals[ins.argval] = self.stack.pop()",
        "        self.locals[ins.argval] = self.stack[-1]",
        "reads the top of the stack without popping it: the stack keeps stale values",
    ),
    _m(
        "6.2",
        "LOAD_GLOBAL tests the whole arg for NULL",
        "        if ins.arg & 1:  # 3.11: the low bit asks for a NULL below the global",
        "        if ins.arg:  # 3.11: asks for a NULL below the global",
        "reads any non-zero arg as 'push NULL', forgetting the name index is in the high bits",
    ),
    _m(
        "6.2",
        "LOAD_GLOBAL ignores builtins",
        "        if name in self.fn.__globals__:\n"
        "            value = self.fn.__globals__[name]\n"
        "        else:\n"
        "            value = getattr(self.fn.__builtins__, name, None) or __builtins__[name]"
        "  # type: ignore[index]\n",
        "        value = self.fn.__globals__[name]\n",
        "looks names up in the function's globals only: print and len are builtins",
    ),
    _m(
        "6.2",
        "LOAD_GLOBAL reads the compiler's globals",
        "        if name in self.fn.__globals__:\n            value = self.fn.__globals__[name]\n",
        "        if name in globals():\n            value = globals()[name]\n",
        "uses globals() (this module's) instead of the traced function's __globals__",
    ),
    _m(
        "6.2",
        "LOAD_METHOD pushes no NULL",
        "        owner = self.stack.pop()\n        self.stack.append(NULL)\n",
        "        owner = self.stack.pop()\n",
        "pushes only the method, forgetting 3.11's two-slot callable convention",
    ),
    _m(
        "6.2",
        "LOAD_METHOD makes a Method of anything",
        "        if isinstance(owner.value, torch.Tensor):\n"
        "            self.stack.append(Method(owner, ins.argval))",
        "        if True:\n            self.stack.append(Method(owner, ins.argval))",
        "treats F.relu (LOAD_METHOD on a module) as a tensor method: call_method instead of "
        "call_function",
    ),
    _m(
        "6.2",
        "BINARY_OP operands swapped",
        "        right, left = self.stack.pop(), self.stack.pop()\n"
        "        if ins.arg not in BINARY_OPS:",
        "        left, right = self.stack.pop(), self.stack.pop()\n"
        "        if ins.arg not in BINARY_OPS:",
        "pops left first: x - y becomes y - x",
    ),
    _m(
        "6.2",
        "BINARY_OP records Python arithmetic",
        "        self.stack.append(self._apply(BINARY_OPS[ins.arg], [left, right]))",
        "        self.stack.append(\n"
        '            self.tracer.call("call_function", BINARY_OPS[ins.arg], [left, right], {})\n'
        "        )",
        "records every operator, even on ints such as x.shape[0] * 2, instead of folding them",
    ),
    _m(
        "6.2",
        "kwargs taken from the front",
        "        positional = args[: len(args) - len(names)]\n"
        "        kwargs = dict(zip(names, args[len(args) - len(names) :], strict=True))",
        "        positional = args[len(names) :]\n"
        "        kwargs = dict(zip(names, args[: len(names)], strict=True))",
        "binds KW_NAMES to the first arguments instead of the last",
    ),
    _m(
        "6.2",
        "KW_NAMES not cleared",
        "        argc, names = ins.arg, self.kw_names\n        self.kw_names = ()\n",
        "        argc, names = ins.arg, self.kw_names\n",
        "forgets KW_NAMES applies to the next CALL only",
    ),
    _m(
        "6.2",
        "method self passed last",
        "[callee.owner, *positional]",
        "[*positional, callee.owner]",
        "puts the receiver after the arguments: x.sub(y) becomes y.sub(x)",
    ),
    # ------------------------------------------------------------------ Task 6.3
    _m(
        "6.3",
        "print runs inside the graph, no break",
        "        live = self.live_locals(ins)\n"
        + _KEPT
        + _LIVE_LOCALS
        + "        self.tracer.finish(kept, self.captured)\n"
        + _NEW_TRACER
        + "        for var in kept:\n"
        "            var.node = None  # a dynamic int gets a new placeholder in the next graph\n"
        "        self.stack.append(Var(run()))",
        "        self.stack.append(Var(run()))",
        "the interpreter runs things for real anyway, so it just runs the call and keeps tracing",
    ),
    _m(
        "6.3",
        "resume graph never kept",
        _NEW_TRACER,
        _NEW_TRACER
        + "        self.tracer.finish = lambda outputs, captured, keep_inputs=False: None\n",
        "stops capturing at the first break: the rest of the function runs but is never compiled",
    ),
    _m(
        "6.3",
        "no new graph after the break",
        _NEW_TRACER,
        "",
        "closes the graph but keeps writing into it",
    ),
    _m(
        "6.3",
        "resume graph reuses the old graph's nodes",
        _NEW_TRACER,
        "        known = self.tracer.known\n" + _NEW_TRACER + "        self.tracer.known = known\n",
        "carries the known tensors over: the new graph points at the old graph's nodes instead "
        "of taking placeholders",
    ),
    _m(
        "6.3",
        "every local handed on",
        _LIVE_LOCALS,
        "        kept += [v for var in self.locals.values() for v in _flatten(var)]\n",
        "no liveness: outputs every local, even those the rest of the code never reads",
    ),
    _m(
        "6.3",
        "locals not handed on",
        _LIVE_LOCALS,
        "",
        "outputs the stack only: a tensor the code reads later is recomputed from nothing",
    ),
    _m(
        "6.3",
        "branch condition not an output",
        _KEPT,
        "        kept = [*_flatten(self.stack)]\n",
        "the condition was popped, so it is forgotten: the graph never hands back the value the "
        "jump needs",
    ),
    _m(
        "6.3",
        "live locals in name order",
        _LIVE_LOCALS,
        "        kept += [\n"
        "            v for name, var in sorted(self.locals.items()) if name in live"
        " for v in _flatten(var)\n"
        "        ]\n",
        "sorts the live locals by name instead of the order the function stored them",
    ),
    _m(
        "6.3",
        "break result not pushed",
        "        self.stack.append(Var(run()))",
        "        run()",
        "print returns None, so nothing to push (but CALL's POP_TOP and the jump expect it)",
    ),
    _m(
        "6.3",
        "handed-on values keep their old nodes",
        "        for var in kept:\n"
        "            var.node = None  # a dynamic int gets a new placeholder in the next graph\n",
        "",
        "thinks the new tracer is enough: a dynamic int keeps the old graph's placeholder",
    ),
    _m(
        "6.3",
        "stores not tracked by liveness",
        "                    written = written | {step.argval}",
        "                    pass",
        "any later read makes a local live, even one overwritten before it is read",
    ),
    _m(
        "6.3",
        "liveness walks one side of the broken branch",
        '        if ins.opname.startswith("POP_JUMP"):  # both ways the branch can go\n'
        "            walk(self.at[ins.argval], frozenset())\n",
        "",
        "walks on from the jump only: locals read only where the branch jumps to are dropped",
    ),
    _m(
        "6.3",
        "liveness ignores later branches",
        "                    walk(target, written)\n",
        "",
        "follows the fall-through of later conditional jumps only",
    ),
    _m(
        "6.3",
        "liveness walks past return",
        '                elif step.opname == "RETURN_VALUE":\n                    return\n',
        "",
        "scans on to the end of the bytecode: reads after a return (another branch) count",
    ),
    _m(
        "6.3",
        "liveness walks from the function's start",
        "        walk(start + 1, frozenset())",
        "        walk(0, frozenset())",
        "collects the locals the function reads anywhere, not only after the break",
    ),
    _m(
        "6.3",
        "jump taken the wrong way",
        "        return ins.argval if taken == jump_if else None",
        "        return None if taken == jump_if else ins.argval",
        "inverts POP_JUMP_IF_FALSE/TRUE: jumps when the condition says fall through",
    ),
    _m(
        "6.3",
        "tensor branch specialised without a break",
        _BRANCH,
        "        if False:\n            self.graph_break(",
        "has the real value, so takes the branch and keeps one graph (Dynamo cannot)",
    ),
    _m(
        "6.3",
        "every branch breaks the graph",
        _BRANCH,
        "        if True:\n            self.graph_break(",
        "breaks on branches on Python values too, instead of specialising on them",
    ),
    _m(
        "6.3",
        "condition compared without bool()",
        "            taken = bool(cond.value)",
        "            taken = cond.value",
        "compares the raw value with True/False: `if n:` with n=2 does not jump as it should",
    ),
    _m(
        "6.3",
        "empty graph compiled",
        "        if self.calls == 0:\n            return\n",
        "",
        "keeps every graph, even one with no call (a break right at the start)",
    ),
    _m(
        "6.3",
        "empty graph judged by its inputs",
        "        if self.calls == 0:",
        "        if not self.inputs:",
        "drops graphs without inputs (torch.ones(3)) and keeps graphs that only pass inputs on",
    ),
    _m(
        "6.3",
        "print handed the Vars",
        "lambda: fn(*_real(positional), **real_kwargs)",
        "lambda: fn(*positional)",
        "passes the interpreter's Vars to print instead of the real values",
    ),
    # ------------------------------------------------------------------ Task 6.4
    _m(
        "6.4",
        "strides not guarded",
        "        return list(x.shape) == sizes and list(x.stride()) == strides",
        "        return list(x.shape) == sizes",
        "same shape means same tensor: a transposed or sliced input passes",
    ),
    _m(
        "6.4",
        "requires_grad not guarded",
        _GOT,
        _GOT.replace("x.requires_grad", "t.requires_grad"),
        "never compares requires_grad (reads it from the example on both sides)",
    ),
    _m(
        "6.4",
        "dtype not guarded",
        _GOT,
        _GOT.replace("x.dtype", "t.dtype"),
        "never compares the dtype: a float64 input reuses the float32 graph",
    ),
    _m(
        "6.4",
        "dispatch keys not guarded",
        _GOT,
        _GOT.replace("torch._C._dispatch_keys(x)", "torch._C._dispatch_keys(t)"),
        "never compares the dispatch key set (an inference tensor passes)",
    ),
    _m(
        "6.4",
        "tensor type not guarded",
        _GOT,
        _GOT.replace("(type(x),", "(type(t),"),
        "isinstance is enough: an nn.Parameter passes a plain-Tensor guard and vice versa",
    ),
    _m(
        "6.4",
        "tensor rank not guarded",
        "        if got != expected or x.dim() != len(sizes):",
        "        if got != expected:",
        "the size comparison will catch a rank change (it does not once a dim is dynamic)",
    ),
    _m(
        "6.4",
        "constant guard compares value only",
        _EQUALS,
        "            checks.append(lambda f: get(f) == value)",
        "EQUALS_MATCH as ==: True == 1 and 2.0 == 2 pass an int guard",
    ),
    _m(
        "6.4",
        "constant guard uses isinstance",
        _EQUALS,
        "            checks.append(lambda f: isinstance(get(f), kind) and get(f) == value)",
        "isinstance(True, int) is True: a bool passes the guard of the int 1",
    ),
    _m(
        "6.4",
        "list length not guarded",
        _LIST,
        "            checks.append(lambda f: type(get(f)) is kind)",
        "TYPE_MATCH only: a longer list passes (its extra items never checked)",
    ),
    _m(
        "6.4",
        "list type not guarded",
        _LIST,
        "            checks.append(lambda f: len(get(f)) == n)",
        "LENGTH_CHECK only: a tuple passes the guard of a list",
    ),
    _m(
        "6.4",
        "list items not guarded",
        "            for i, item in enumerate(value):\n"
        '                guard_value(lambda f, i=i: get(f)[i], item, f"{name}[{i}]", False)',
        "            pass  # the items are checked when the graph uses them",
        "guards the container, not what is in it",
    ),
    _m(
        "6.4",
        "None not guarded",
        "            checks.append(lambda f: get(f) is None)",
        "            pass  # nothing to check on None",
        "None has no shape or value to guard, so anything passes in its place",
    ),
    _m(
        "6.4",
        "no aliasing guard",
        "return all((a is b) == same[i][j]",
        "return True or all((a is b) == same[i][j]",
        "forgets NO_TENSOR_ALIASING: f(a, a) reuses the graph traced for two tensors",
    ),
    _m(
        "6.4",
        "aliasing guard on top-level tensors only",
        "    aliases = _tensor_paths(example)",
        "    aliases = [getters[n] for n, v in example.items() if isinstance(v, torch.Tensor)]",
        "checks the tensor arguments against each other but not tensors inside lists",
    ),
    _m(
        "6.4",
        "grad mode not guarded",
        "        if torch.is_grad_enabled() != grad_mode:\n            return False\n",
        "",
        "guards the inputs only, not the global state",
    ),
    _m(
        "6.4",
        "grad mode assumed on",
        "    grad_mode = torch.is_grad_enabled()",
        "    grad_mode = True",
        "guards that grad is enabled instead of what it was at compile time",
    ),
    # ------------------------------------------------------------------ Task 6.5
    _m(
        "6.5",
        "entries tried oldest first",
        "        self.entries.insert(0, CacheEntry(check, run, ints))",
        "        self.entries.append(CacheEntry(check, run, ints))",
        "appends: the first (static) entry wins over the newer dynamic one",
    ),
    _m(
        "6.5",
        "only the newest entry tried",
        "        for entry in self.entries:",
        "        for entry in self.entries[:1]:",
        "checks the last compile only: going back to an earlier shape recompiles",
    ),
    _m(
        "6.5",
        "size read baked in under dynamic shapes",
        "        dynamic_shapes = any(dims.values())",
        "        dynamic_shapes = False",
        "captures x.shape[0] as the number it saw even when the entry serves other sizes",
    ),
    _m(
        "6.5",
        "recompile limit off by one",
        "        if len(self.entries) >= self.recompile_limit:",
        "        if len(self.entries) > self.recompile_limit:",
        "allows recompile_limit recompiles on top of the first compile",
    ),
    _m(
        "6.5",
        "recompile limit raises",
        "            return self.fn(*args)  # Dynamo gives up on this frame: plain Python from now on",
        '            raise RuntimeError(f"hit config.recompile_limit ({self.recompile_limit})")',
        "treats the limit as an error (fail_on_recompile) instead of falling back to eager",
    ),
    _m(
        "6.5",
        "guards ignore dynamic dims",
        _GUARDS,
        "        check = make_guards(f_locals, None, ints)",
        "computes the dynamic dims for capture but still installs static shape guards",
    ),
    _m(
        "6.5",
        "guards ignore dynamic ints",
        _GUARDS,
        "        check = make_guards(f_locals, dims)",
        "a dynamic int is still guarded by value: every new value recompiles",
    ),
    _m(
        "6.5",
        "capture ignores dynamic ints",
        _CAPTURE,
        _CAPTURE.replace("dynamic_ints=ints, ", ""),
        "guards the int by type only but bakes its first value into the graph",
    ),
    _m(
        "6.5",
        "no duck sizing",
        _DUCK,
        _DUCK.replace("if self.dynamic is True:", "if False:"),
        "every dynamic size gets a symbol of its own under dynamic=True: a (3, 3) compile "
        "serves (3, 2)",
    ),
    _m(
        "6.5",
        "duck sizing ties found dims too",
        "            ducks = {k: v - self.dims.get(k, set()) for k, v in dims.items()}",
        "            ducks = dims",
        "ties every equal dynamic size, also dims found dynamic by a change or marked dynamic",
    ),
    _m(
        "6.5",
        "dynamic=False treated as automatic",
        _COMPARE + _FOUND + "\n" + _STICKY + _MARKED,
        _COMPARE.replace("self.dynamic is not False and ", "")
        + _FOUND
        + "\n"
        + _STICKY
        + _MARKED.replace("if self.dynamic is None", "if not self.dynamic"),
        "writes `not self.dynamic` for automatic mode: False is falsy too, so dynamic=False "
        "still makes changed dims dynamic",
    ),
    _m(
        "6.5",
        "dynamic dims forgotten between recompiles",
        _FOUND,
        _FOUND.replace("found |=", "found ="),
        "rebinds the local instead of updating self.dims: only the dims that changed this time "
        "are dynamic",
    ),
    _m(
        "6.5",
        "sizes recorded before comparing",
        "                before = self.sizes.get(name)",
        "                self.sizes[name] = tuple(value.shape)\n"
        "                before = self.sizes.get(name)",
        "updates the remembered sizes first, so nothing ever differs: automatic dynamic never "
        "marks",
    ),
    _m(
        "6.5",
        "every dim dynamic at any recompile",
        _FOUND,
        "                    found |= set(range(value.dim()))",
        "marks the whole tensor dynamic at a recompile, even dims (or tensors) that did not change",
    ),
    _m(
        "6.5",
        "automatic dynamic ignores rank",
        _COMPARE,
        _COMPARE.replace(" and len(before) == value.dim()", ""),
        "compares sizes dim by dim without checking the tensor kept its rank",
    ),
    _m(
        "6.5",
        "mark_dynamic ignored",
        _STICKY
        + _MARKED
        + '                marked |= set(getattr(value, "_dynamo_dynamic_indices", set()))\n',
        _MARKED,
        "forgets torch._dynamo.mark_dynamic's _dynamo_dynamic_indices",
    ),
    _m(
        "6.5",
        "mark_dynamic not sticky",
        _STICKY,
        "",
        "honours mark_dynamic only on calls whose tensor still carries the mark",
    ),
    _m(
        "6.5",
        "sizes 0 and 1 made dynamic",
        "                dims[name] = frozenset(d for d in marked if value.shape[d] >= 2)",
        "                dims[name] = frozenset(marked)",
        "forgets that a size of 0 or 1 always compiles static",
    ),
    _m(
        "6.5",
        "dynamic=True leaves ints static",
        _INT_DYN,
        "                if self.dynamic is None and before not in (None, value):",
        "makes tensors dynamic under dynamic=True but forgets int arguments",
    ),
    _m(
        "6.5",
        "int dynamic from the first call",
        _INT_DYN,
        "                if self.dynamic is True or (self.dynamic is None and before != value):",
        "None != value on the first compile: every int is dynamic from the start",
    ),
    _m(
        "6.5",
        "ints 0 and 1 kept static",
        "                    self.dynamic_ints.add(name)",
        "                    if value not in (0, 1):  # 0 and 1 are specialised, as sizes are\n"
        "                        self.dynamic_ints.add(name)",
        "carries the size rule over to int arguments (Dynamo does not specialise them)",
    ),
    _m(
        "6.5",
        "dynamic size 1 allowed",
        "            if any(x.shape[d] < 2 for d in dynamic_dims):  # 0 and 1 are specialised",
        "            if any(x.shape[d] < 1 for d in dynamic_dims):  # 0 is specialised",
        "forgets Dynamo specialises size 1 as well as 0",
    ),
    _m(
        "6.5",
        "dynamic guard frees every size",
        _DYN_RETURN,
        "            return x.permute(order).is_contiguous()",
        "once a tensor has a dynamic dim, stops comparing its static dims",
    ),
    _m(
        "6.5",
        "dynamic guard skips contiguity",
        _DYN_RETURN,
        "            return static",
        "compares sizes but not strides once a dim is dynamic: a transposed input passes",
    ),
    _m(
        "6.5",
        "dynamic dims ignored by the guard",
        "        if dynamic_dims:  # strides are formulas of the sizes: dense, in the same order",
        "        if False:  # strides are formulas of the sizes: dense, in the same order",
        "tensor_match takes dynamic_dims but compares every size anyway",
    ),
    _m(
        "6.5",
        "dynamic int guard accepts bool",
        _DYN_INT_GUARD,
        "            checks.append(lambda f: isinstance(get(f), int))",
        "isinstance(True, int): a bool runs the graph traced for an int",
    ),
    _m(
        "6.5",
        "dynamic int not guarded",
        _DYN_INT_GUARD,
        "            pass  # dynamic: any value goes",
        "dynamic means no guard at all: a float or a tensor reaches the int placeholder",
    ),
]

ACCEPTED_SURVIVORS: dict[str, str] = {
    "entries tried oldest first": (
        "which accepting entry runs changes neither a result nor a compile count: a compile "
        "happens only when no entry accepts, whatever the order"
    ),
    "handed-on values keep their old nodes": (
        "a dynamic int crosses a break only in capture(dynamic_ints=...) with a break, which "
        "LabCompiler never asks for (it refuses functions with breaks) and which Dynamo cannot "
        "be asked for without making every size dynamic too"
    ),
    "size read baked in under dynamic shapes": (
        "the reference refuses to read a size while sizes are dynamic (NotImplementedError, "
        "naming Dynamo's SymInt); a public case must pass on the reference, so none can expect "
        "the value torch gives there"
    ),
}
