"""Week 2 mutants: realistic learner bugs in reference_impl/dispatcher.py, grouped by task.

Each mutant replaces one short, distinctive piece of the reference (found exactly once) by
what a learner might have written instead. ``tests/test_mutants.py`` checks that the public
cases catch them; ``python -m autograder.mutation week2`` prints the table.
"""

from __future__ import annotations

from autograder.mutation import Mutant


def _m(task: str, name: str, old: str, new: str, why: str = "") -> Mutant:
    return Mutant("week2", task, name, old, new, why)


WEEK2_MUTANTS: list[Mutant] = [
    # --- Task 2.1: the keys and their priority --------------------------------------------------
    _m(
        "2.1",
        "ADInplaceOrView and Autograd swapped in priority",
        "        K.ADInplaceOrView,\n        K.AutogradFunctionality,\n",
        "        K.AutogradFunctionality,\n        K.ADInplaceOrView,\n",
        "ADInplaceOrView 'wraps' autograd, so it must run first",
    ),
    _m(
        "2.1",
        "Python above Functionalize swapped",
        "        K.Python,\n        K.Functionalize,\n",
        "        K.Functionalize,\n        K.Python,\n",
        "the order of the mode keys looks arbitrary",
    ),
    _m(
        "2.1",
        "Autocast keys below Autograd",
        "        K.AutogradFunctionality,\n        K.AutocastCPU,\n",
        "        K.AutocastCPU,\n        K.AutogradFunctionality,\n",
        "autocast changes dtypes, like a backend detail",
    ),
    _m(
        "2.1",
        "backends ordered by DispatchKey number (Meta after PrivateUse1 is right, CUDA before CPU)",
        "return [K.CPU, K.CUDA, K.PrivateUse1, K.Meta]",
        "return [K.CUDA, K.CPU, K.PrivateUse1, K.Meta]",
        "the accelerator should win over CPU",
    ),
    _m(
        "2.1",
        "priority sorts by backend before functionality",
        "return funcs.index(toFunctionalityKey(k)), -1 if b is None else backends.index(b)",
        "return -1 if b is None else backends.index(b), funcs.index(toFunctionalityKey(k))",
        "compares the tuple in the wrong order",
    ),
    _m(
        "2.1",
        "an autograd key maps to the wrong backend",
        "        return BACKEND_KEYS[AUTOGRAD_KEYS.index(k)]\n    return None",
        "        return K.CPU\n    return None",
        "every autograd key is thought of as CPU's",
    ),
    _m(
        "2.1",
        "Autograd is not an alias",
        "return k in (K.Autograd, K.CompositeImplicitAutograd, K.CompositeExplicitAutograd)",
        "return k in (K.CompositeImplicitAutograd, K.CompositeExplicitAutograd)",
        "only the Composite keys look like aliases",
    ),
    # --- Task 2.2: key sets and the thread-local sets --------------------------------------------
    _m(
        "2.2",
        "minus removes backend bits too",
        "return DispatchKeySet._of(self.functionality - other.functionality, self.backends)",
        "return DispatchKeySet._of(\n"
        "            self.functionality - other.functionality, self.backends - other.backends\n"
        "        )",
        "set difference on both halves",
    ),
    _m(
        "2.2",
        "has checks only the functionality bit",
        "return one.functionality <= self.functionality and one.backends <= self.backends",
        "return one.functionality <= self.functionality",
        "forgets the backend half of a runtime key",
    ),
    _m(
        "2.2",
        "highest key is the lowest",
        "return keys[-1] if keys else K.Undefined",
        "return keys[0] if keys else K.Undefined",
        "the set is sorted ascending; took the wrong end",
    ),
    _m(
        "2.2",
        "repr prints the keys in alphabetical order",
        "return f\"DispatchKeySet({', '.join(k.name for k in self)})\"",
        "return f\"DispatchKeySet({', '.join(k.name for k in sorted(self, key=str))})\"",
        "sorts the names to make the output stable",
    ),
    _m(
        "2.2",
        "inference_mode does not exclude autograd",
        "tls.excluded | autograd_dispatch_keyset()\n",
        "tls.excluded\n",
        "only the new tensors lose their autograd keys",
    ),
    _m(
        "2.2",
        "inference tensors keep ADInplaceOrView and Autograd",
        "    if not inference:\n        ks = ks |",
        "    if True:\n        ks = ks |",
        "the TLS handles inference mode, so the tensor need not",
    ),
    _m(
        "2.2",
        "meta tensors get an autocast key",
        "    if backend in autocast:\n        ks = ks.add(autocast[backend])",
        "    ks = ks.add(autocast.get(backend, K.AutocastCPU))",
        "every tensor gets an Autocast key",
    ),
    _m(
        "2.2",
        "ADInplaceOrView not in the default include set",
        "return _keyset(K.BackendSelect, K.ADInplaceOrView)",
        "return _keyset(K.BackendSelect)",
        "ADInplaceOrView comes from the tensor anyway",
    ),
    _m(
        "2.2",
        "exclude guard replaces the exclude set",
        "self._cm = _set_tls(tls.included, tls.excluded | self.ks)",
        "self._cm = _set_tls(tls.included, self.ks)",
        "sets instead of adding",
    ),
    # --- Task 2.3: the operator table ------------------------------------------------------------
    _m(
        "2.3",
        "CompositeImplicitAutograd alias not resolved for autograd keys",
        "        return autograd | backends\n",
        "        return backends\n",
        "composite kernels are thought of as backend kernels only",
    ),
    _m(
        "2.3",
        "Autograd alias not resolved",
        "    if alias == K.Autograd:\n        return autograd\n",
        "",
        "an Autograd kernel is looked up only under its own key",
    ),
    _m(
        "2.3",
        "math kernel even where the backend has its own kernel",
        '        if not has_backend_kernel:\n            return cia, "math kernel"',
        '        return cia, "math kernel"',
        "forgets that autograd must see the backend kernel",
    ),
    _m(
        "2.3",
        "a composite beats a direct backend kernel",
        '    if k in op.kernels:\n        return op.kernels[k], "kernel"\n    cea',
        "    cea = op.kernels.get(K.CompositeExplicitAutograd)\n"
        "    if cea is not None and isIncludedInAlias(k, K.CompositeExplicitAutograd):\n"
        '        return cea, "default backend kernel"\n'
        '    if k in op.kernels:\n        return op.kernels[k], "kernel"\n    cea',
        "checks the alias first, so the composite shadows the backend's own kernel",
    ),
    _m(
        "2.3",
        "Autograd alias checked before CompositeImplicitAutograd",
        "    cia = op.kernels.get(K.CompositeImplicitAutograd)\n    if cia is not None",
        "    autograd0 = op.kernels.get(K.Autograd)\n"
        "    if autograd0 is not None and isIncludedInAlias(k, K.Autograd):\n"
        '        return autograd0, "autograd kernel"\n'
        "    cia = op.kernels.get(K.CompositeImplicitAutograd)\n    if cia is not None",
        "the more specific alias first",
    ),
    _m(
        "2.3",
        "backend fallback ignored",
        "    if k in dispatcher.backend_fallbacks:\n",
        "    if False:\n",
        "only the operator's own kernels count",
    ),
    _m(
        "2.3",
        "fallthrough_kernel registered as an ordinary kernel",
        "        fallthrough = fn is fallthrough_kernel\n        kernel = KernelFunction(",
        "        fallthrough = False\n        kernel = KernelFunction(",
        "a kernel is a kernel",
    ),
    _m(
        "2.3",
        "CompositeExplicitAutograd also serves autograd keys",
        "    if alias == K.CompositeExplicitAutograd:\n        return backends\n",
        "    if alias == K.CompositeExplicitAutograd:\n        return backends | autograd\n",
        "composite means 'everything'",
    ),
    # --- Task 2.4: calling through the dispatcher ------------------------------------------------
    _m(
        "2.4",
        "the exclude set is not subtracted",
        "    return (ks | tls.included) - tls.excluded\n",
        "    return ks | tls.included\n",
        "forgets the thread-local exclude set",
    ),
    _m(
        "2.4",
        "BackendSelect skipped: the include set is not added",
        "    return (ks | tls.included) - tls.excluded\n",
        "    return ks - tls.excluded\n",
        "only tensors have keys",
    ),
    _m(
        "2.4",
        "fallthrough keys not masked",
        "        if kernel is not None and kernel.fallthrough:\n            ks = ks.remove(k)",
        "        if kernel is not None and kernel.fallthrough and False:\n"
        "            ks = ks.remove(k)",
        "forgets fallthroughs",
    ),
    _m(
        "2.4",
        "redispatch does not exclude the current key",
        "    k = ks.highestPriorityTypeId()\n    kernel, kind = op.entry.lookup(k)",
        "    ks = computeDispatchKeySet(args) | ks\n"
        "    k = ks.highestPriorityTypeId()\n    kernel, kind = op.entry.lookup(k)",
        "redispatch recomputes the keys from the tensors",
    ),
    _m(
        "2.4",
        "a boxed fallback gets the operator before the key set",
        "return kernel.fn(ks, op, *args) if kernel.with_keyset else kernel.fn(op, *args)",
        "return kernel.fn(op, ks, *args) if kernel.with_keyset else kernel.fn(op, *args)",
        "the operator seems the more important argument",
    ),
    _m(
        "2.4",
        "a missing kernel returns None",
        "    if kernel is None:\n        raise _report_error(op, ks)",
        "    if kernel is None:\n        return None",
        "silently does nothing",
    ),
]

ACCEPTED_SURVIVORS: dict[str, str] = {}
