"""Week 2b mutants: realistic learner bugs in reference_impl/real_dispatch.py, by task.

Each replaces one short, distinctive piece of the reference (found exactly once). Among them
the issue's: redispatch not going below the current key (the trace repeats or stops), and
inference_mode's exclusion ignored (the thread-local exclude set left out).
``python -m autograder.mutation week2b`` prints the table.
"""

from __future__ import annotations

from autograder.mutation import Mutant


def _m(task: str, name: str, old: str, new: str, why: str = "") -> Mutant:
    return Mutant("week2b", task, name, old, new, why)


WEEK2B_MUTANTS: list[Mutant] = [
    # --- Task 2.5: custom_op, register_fake, register_autograd ---------------------------------
    _m(
        "2.5",
        "fake impl forgets the batch dimensions",
        "x.new_empty((*x.shape[:-1], w.shape[0]))",
        "x.new_empty((x.shape[0], w.shape[0]))",
        "a fake impl written for 2-d inputs only",
    ),
    _m(
        "2.5",
        "weight gradient transposed",
        "grad_w = rows.t() @ x.reshape(-1, x.shape[-1])",
        "grad_w = x.reshape(-1, x.shape[-1]).t() @ rows",
        "the shapes of x.T @ grad look right until w is not square",
    ),
    _m(
        "2.5",
        "bias gradient always given",
        "rows.sum(0) if ctx.has_bias else None",
        "rows.sum(0)",
        "forgetting that b may be None",
    ),
    _m(
        "2.5",
        "bias added twice",
        "return out if b is None else out + b",
        "return out if b is None else out + 2 * b",
        "",
    ),
    _m(
        "2.5",
        "no fake impl",
        "    @linear.register_fake\n",
        "    @(lambda f: f)\n",
        "the op runs eagerly, so the fake impl looks optional",
    ),
    # --- Task 2.6: Library.impl per key -----------------------------------------------------------
    _m(
        "2.6",
        "meta kernel ignores type promotion",
        "dtype=torch.result_type(a, b)",
        "dtype=a.dtype",
        "",
    ),
    _m(
        "2.6",
        "meta kernel puts the result on the CPU",
        'device="meta")',
        'device="cpu")',
        "an empty tensor anywhere looks like a shape",
    ),
    _m(
        "2.6",
        "backward swaps the two gradients",
        "return grad * b, grad * a",
        "return grad * a, grad * b",
        "",
    ),
    # --- Task 2.7: TorchDispatchMode -----------------------------------------------------------
    _m(
        "2.7",
        "records the packet, not the overload",
        "self.ops.append(str(func))",
        "self.ops.append(str(func.overloadpacket))",
        "aten.add instead of aten.add.Tensor",
    ),
    _m(
        "2.7",
        "records each op twice",
        "        self.ops.append(str(func))\n",
        "        self.ops.append(str(func))\n"
        "        if func.is_view:\n"
        "            self.ops.append(str(func))\n",
        "",
    ),
    _m(
        "2.7",
        "record drops the backward's detach",
        "    return mode.ops\n",
        "    return [op for op in mode.ops if 'detach' not in op]\n",
        "detach looks like noise",
    ),
    _m(
        "2.7",
        "fallback leaves the key switched on",
        "        torch._C._dispatch_tls_set_dispatch_key_excluded(dk, was_excluded)\n",
        "",
        "the try/finally that restores the thread-local set forgotten",
    ),
    _m(
        "2.7",
        "fallback logs the overload",
        "seen.append(op._schema.name)",
        "seen.append(str(op))",
        "aten.add.Tensor where the profiler says aten::add",
    ),
    _m(
        "2.7",
        "fallback logs only what the program calls",
        "        seen.append(op._schema.name)\n",
        "        if len(seen) < 1 or seen[-1] != op._schema.name:\n"
        "            seen.append(op._schema.name)\n",
        "collapsing repeats: the composite's resolve_conj twice becomes once",
    ),
    # --- Task 2.8: the trace -------------------------------------------------------------------
    _m(
        "2.8",
        "inference_mode not honoured (exclude set ignored)",
        "    return ks - torch._C._dispatch_tls_local_exclude_set()\n",
        "    return ks\n",
        "forgetting the thread-local exclude set",
    ),
    _m(
        "2.8",
        "thread-local include set ignored",
        "    ks = torch._C._dispatch_tls_local_include_set()\n",
        "    ks = torch._C.DispatchKeySet(0)\n",
        "",
    ),
    _m(
        "2.8",
        "the chain ends at the autograd kernel",
        '        if kind == "autograd kernel":\n',
        "        if False:\n",
        "forgetting that VariableType redispatches to the backend",
    ),
    _m(
        "2.8",
        "ADInplaceOrView kernel ends the chain",
        '        elif key == "ADInplaceOrView":\n',
        "        elif False:\n",
        "",
    ),
    _m(
        "2.8",
        "fallthrough entries listed as kernels",
        '            kind = "fallthrough"\n',
        "            pass\n",
        "",
    ),
    _m(
        "2.8",
        "file keeps the build folder",
        'for top in ("aten", "torch", "c10")',
        'for top in ("pytorch", "aten", "torch", "c10")',
        "",
    ),
]

# Mutants no comparison with torch can tell apart from the reference.
ACCEPTED_SURVIVORS: dict[str, str] = {}
