"""Week 2's blind set: 67 learner bugs written by a helper who read only the reference
(reference_impl/dispatcher.py) and the chapter, never the cases; frozen before it was scored
(sha256 629ba056...). First score: 59 of 67 caught by the public cases; the cases added for
the 8 survivors (each citing the torch source it follows) catch all 67."""

from autograder.mutation import Mutant


def _m(task, name, old, new, why="", file=""):
    return Mutant("week2", task, name, old, new, why, file)


WEEK2_BLIND = [
    # ------------------------------------------------------------------ Task 2.1
    _m(
        "2.1",
        "ADInplaceOrView above autograd",
        "        K.ADInplaceOrView,\n        K.AutogradFunctionality,\n        K.AutocastCPU,",
        "        K.AutogradFunctionality,\n        K.ADInplaceOrView,\n        K.AutocastCPU,",
        "thinks the view/inplace bookkeeping wraps autograd, so it must run first",
    ),
    _m(
        "2.1",
        "autograd above autocast",
        "        K.AutogradFunctionality,\n        K.AutocastCPU,\n        K.AutocastCUDA,\n"
        "        K.AutocastPrivateUse1,\n        K.PythonTLSSnapshot,",
        "        K.AutocastCPU,\n        K.AutocastCUDA,\n        K.AutocastPrivateUse1,\n"
        "        K.AutogradFunctionality,\n        K.PythonTLSSnapshot,",
        "believes autograd is always the first kernel to run",
    ),
    _m(
        "2.1",
        "Python below BackendSelect swapped",
        "        K.BackendSelect,\n        K.Python,\n",
        "        K.Python,\n        K.BackendSelect,\n",
        "orders by intuition (BackendSelect picks the backend, so it must be just above Dense)",
    ),
    _m(
        "2.1",
        "Functionalize below Python",
        "        K.Python,\n        K.Functionalize,\n",
        "        K.Functionalize,\n        K.Python,\n",
        "swaps two neighbouring keys when copying the enum",
    ),
    _m(
        "2.1",
        "PythonTLSSnapshot below autocast",
        "        K.AutogradFunctionality,\n        K.AutocastCPU,\n        K.AutocastCUDA,\n"
        "        K.AutocastPrivateUse1,\n        K.PythonTLSSnapshot,\n    ]",
        "        K.AutogradFunctionality,\n        K.PythonTLSSnapshot,\n        K.AutocastCPU,\n"
        "        K.AutocastCUDA,\n        K.AutocastPrivateUse1,\n    ]",
        "sorts the functionality keys by their enum numbers (41 > 24 but 41 > 33, and mixes up the tail)",
    ),
    _m(
        "2.1",
        "PrivateUse1 highest backend",
        "    return [K.CPU, K.CUDA, K.PrivateUse1, K.Meta]",
        "    return [K.CPU, K.CUDA, K.Meta, K.PrivateUse1]",
        "thinks the custom backend bit comes last, Meta being a 'fake' backend",
    ),
    _m(
        "2.1",
        "only Dense is per-backend",
        "    return k in (K.Dense, K.AutogradFunctionality)",
        "    return k == K.Dense",
        "forgets that autograd is also one key per backend",
    ),
    _m(
        "2.1",
        "CompositeExplicitAutograd not an alias",
        "    return k in (K.Autograd, K.CompositeImplicitAutograd, K.CompositeExplicitAutograd)",
        "    return k in (K.Autograd, K.CompositeImplicitAutograd)",
        "forgets one of the composite aliases",
    ),
    _m(
        "2.1",
        "Meta has no Dense functionality",
        "    if k in BACKEND_KEYS:\n        return K.Dense\n",
        "    if k in BACKEND_KEYS[:-1]:\n        return K.Dense\n",
        "treats Meta as not a real (Dense) backend",
    ),
    _m(
        "2.1",
        "autograd keys have no backend component",
        "    if k in AUTOGRAD_KEYS:\n        return BACKEND_KEYS[AUTOGRAD_KEYS.index(k)]\n    return None",
        "    return None",
        "thinks only the Dense keys carry a backend bit",
    ),
    _m(
        "2.1",
        "priority_order backend first",
        "        return funcs.index(toFunctionalityKey(k)), -1 if b is None else backends.index(b)",
        "        return -1 if b is None else backends.index(b), funcs.index(toFunctionalityKey(k))",
        "groups the keys by backend (all CPU keys, then all CUDA keys...)",
    ),
    _m(
        "2.1",
        "priority_order highest first",
        "    return sorted(keys, key=rank)",
        "    return sorted(keys, key=rank, reverse=True)",
        "sorts in dispatch order (highest first) instead of print order",
    ),
    # ------------------------------------------------------------------ Task 2.2
    _m(
        "2.2",
        "Undefined key gives a non-empty set",
        "        if k is None or k == K.Undefined or isAliasDispatchKey(k):",
        "        if k is None or isAliasDispatchKey(k):",
        "forgets Undefined is a key too, not only None",
    ),
    _m(
        "2.2",
        "alias key gives a non-empty set",
        "        if k is None or k == K.Undefined or isAliasDispatchKey(k):",
        "        if k is None or k == K.Undefined:",
        "stores an alias key as an ordinary functionality bit",
    ),
    _m(
        "2.2",
        "intersection keeps own backends",
        "            self.functionality & other.functionality, self.backends & other.backends",
        "            self.functionality & other.functionality, self.backends",
        "thinks backend bits only matter for union and masking is about functionalities",
    ),
    _m(
        "2.2",
        "union drops other backends",
        "            self.functionality | other.functionality, self.backends | other.backends",
        "            self.functionality | other.functionality, self.backends or other.backends",
        "uses `or` on frozensets, which picks one operand instead of the union",
    ),
    _m(
        "2.2",
        "difference removes backend bits",
        "        return DispatchKeySet._of(self.functionality - other.functionality, self.backends)",
        "        return DispatchKeySet._of(\n            self.functionality - other.functionality, self.backends - other.backends\n        )",
        "the natural set difference on both halves",
    ),
    _m(
        "2.2",
        "add mutates in place",
        "        return self | DispatchKeySet(k)\n",
        "        new = self | DispatchKeySet(k)\n        self.functionality, self.backends = new.functionality, new.backends\n        return self\n",
        "treats the set as a container like Python's set.add",
    ),
    _m(
        "2.2",
        "remove drops backend bit",
        "        return self - DispatchKeySet(k)\n",
        "        one = DispatchKeySet(k)\n        return DispatchKeySet._of(\n            self.functionality - one.functionality, self.backends - one.backends\n        )\n",
        "removes every bit of the key",
    ),
    _m(
        "2.2",
        "has checks functionality only",
        "        return one.functionality <= self.functionality and one.backends <= self.backends",
        "        return one.functionality <= self.functionality",
        "forgets that a runtime key also needs its backend bit",
    ),
    _m(
        "2.2",
        "has any bit",
        "        return one.functionality <= self.functionality and one.backends <= self.backends",
        "        return one.functionality <= self.functionality or one.backends <= self.backends",
        "has_any instead of has_all",
    ),
    _m(
        "2.2",
        "iter yields bare per-backend functionality",
        "            for b in backend_components():\n                if b in self.backends:\n"
        "                    yield toRuntimePerBackendFunctionalityKey(f, b)",
        "            if not self.backends:\n                yield f\n"
        "            for b in backend_components():\n                if b in self.backends:\n"
        "                    yield toRuntimePerBackendFunctionalityKey(f, b)",
        "prints the functionality itself when no backend bit is set",
    ),
    _m(
        "2.2",
        "iter backends highest first",
        "            for b in backend_components():\n                if b in self.backends:",
        "            for b in reversed(backend_components()):\n                if b in self.backends:",
        "walks the backend bits from the top like highestBackendKey",
    ),
    _m(
        "2.2",
        "highest key by enum number",
        "        return keys[-1] if keys else K.Undefined",
        "        return max(keys, key=lambda key: key.value) if keys else K.Undefined",
        "the pre-2022 write-up: priority read off the enum numbers",
    ),
    _m(
        "2.2",
        "highest key of empty set is None",
        "        return keys[-1] if keys else K.Undefined",
        "        return keys[-1] if keys else None",
        "returns None for 'no key' instead of Undefined",
    ),
    _m(
        "2.2",
        "repr highest first",
        "        return f\"DispatchKeySet({', '.join(k.name for k in self)})\"",
        "        return f\"DispatchKeySet({', '.join(k.name for k in reversed(list(self)))})\"",
        "prints in dispatch order",
    ),
    _m(
        "2.2",
        "inference tensor loses autocast key",
        "    if backend in autocast:\n        ks = ks.add(autocast[backend])",
        "    if backend in autocast and not inference:\n        ks = ks.add(autocast[backend])",
        "thinks inference mode strips every key but the backend",
    ),
    _m(
        "2.2",
        "inference tensor keeps ADInplaceOrView",
        "        ks = ks | _keyset(K.ADInplaceOrView, AUTOGRAD_KEYS[BACKEND_KEYS.index(backend)])",
        "        ks = ks.add(AUTOGRAD_KEYS[BACKEND_KEYS.index(backend)])\n    ks = ks.add(K.ADInplaceOrView)",
        "thinks inference mode only drops the autograd key",
    ),
    _m(
        "2.2",
        "default include set lacks BackendSelect",
        "    return _keyset(K.BackendSelect, K.ADInplaceOrView)",
        "    return _keyset(K.ADInplaceOrView)",
        "thinks BackendSelect is only added for factory calls",
    ),
    _m(
        "2.2",
        "default exclude set lacks AutocastPrivateUse1",
        "    return _keyset(K.AutocastCPU, K.AutocastCUDA, K.AutocastPrivateUse1)",
        "    return _keyset(K.AutocastCPU, K.AutocastCUDA)",
        "forgets the custom backend has an autocast key too",
    ),
    _m(
        "2.2",
        "exclude guard replaces the exclude set",
        "        self._cm = _set_tls(tls.included, tls.excluded | self.ks)",
        "        self._cm = _set_tls(tls.included, self.ks)",
        "sets the exclude set to the guard's keys instead of adding them",
    ),
    _m(
        "2.2",
        "include guard replaces the include set",
        "        self._cm = _set_tls(tls.included.add(self.k), tls.excluded)",
        "        self._cm = _set_tls(DispatchKeySet(self.k), tls.excluded)",
        "sets the include set to the one key",
    ),
    _m(
        "2.2",
        "exclude guard leaks after exit",
        "        tls = _local()\n        self._cm = _set_tls(tls.included, tls.excluded | self.ks)",
        "        tls = _local()\n        tls.excluded = tls.excluded | self.ks\n"
        "        self._cm = _set_tls(tls.included, tls.excluded)",
        "modifies the TLS before saving it, so exit restores the modified set",
    ),
    _m(
        "2.2",
        "inference_mode(False) changes nothing",
        "    return tls.included.add(K.ADInplaceOrView), tls.excluded - autograd_dispatch_keyset()",
        "    return tls.included, tls.excluded",
        "thinks inference_mode(False) is simply 'not in inference mode'",
    ),
    _m(
        "2.2",
        "inference mode excludes runtime autograd keys",
        "        return tls.included.remove(K.ADInplaceOrView), tls.excluded | autograd_dispatch_keyset()",
        "        return tls.included.remove(K.ADInplaceOrView), tls.excluded | _keyset(*AUTOGRAD_KEYS)",
        "excludes AutogradCPU, AutogradCUDA... instead of the bare functionality bit",
    ),
    _m(
        "2.2",
        "inference mode excludes ADInplaceOrView",
        "        return tls.included.remove(K.ADInplaceOrView), tls.excluded | autograd_dispatch_keyset()",
        "        return tls.included, tls.excluded | autograd_dispatch_keyset() | DispatchKeySet(K.ADInplaceOrView)",
        "excludes ADInplaceOrView rather than dropping it from the include set",
    ),
    # ------------------------------------------------------------------ Task 2.3
    _m(
        "2.3",
        "CompositeImplicit misses autograd keys",
        "        return autograd | backends\n",
        "        return backends\n",
        "thinks 'implicit autograd' means it serves backends only",
    ),
    _m(
        "2.3",
        "CompositeExplicit covers autograd keys",
        "    if alias == K.CompositeExplicitAutograd:\n        return backends\n",
        "    if alias == K.CompositeExplicitAutograd:\n        return autograd | backends\n",
        "confuses the two composite aliases",
    ),
    _m(
        "2.3",
        "non-alias key stands for nothing",
        "    return DispatchKeySet(alias)\n    ### END SOLUTION",
        "    return DispatchKeySet()\n    ### END SOLUTION",
        "thinks only aliases have runtime keys",
    ),
    _m(
        "2.3",
        "Undefined included in every alias",
        "    return k != K.Undefined and getRuntimeDispatchKeySet(alias).has(k)",
        "    return getRuntimeDispatchKeySet(alias).has(k)",
        "forgets has(Undefined) is trivially true on any set",
    ),
    _m(
        "2.3",
        "Autograd kernel before math kernel",
        "    cia = op.kernels.get(K.CompositeImplicitAutograd)\n"
        "    if cia is not None and (k == K.Undefined or isIncludedInAlias(k, K.CompositeImplicitAutograd)):",
        "    autograd0 = op.kernels.get(K.Autograd)\n"
        "    if autograd0 is not None and isIncludedInAlias(k, K.Autograd):\n"
        '        return autograd0, "autograd kernel"\n'
        "    cia = op.kernels.get(K.CompositeImplicitAutograd)\n"
        "    if cia is not None and (k == K.Undefined or isIncludedInAlias(k, K.CompositeImplicitAutograd)):",
        "thinks an explicit Autograd kernel must beat a decomposition",
    ),
    _m(
        "2.3",
        "math kernel ignores CompositeExplicit",
        "        ) or op.hasKernelForDispatchKey(K.CompositeExplicitAutograd)",
        "        )",
        "only checks the backend's own kernel before using the math kernel for autograd",
    ),
    _m(
        "2.3",
        "math kernel checks the autograd key itself",
        "            getBackendKeySetFromAutograd(k)\n",
        "            DispatchKeySet(k)\n",
        "checks for a kernel on the key instead of on its backend",
    ),
    _m(
        "2.3",
        "CompositeExplicit does not serve Undefined",
        "    if cea is not None and (k == K.Undefined or isIncludedInAlias(k, K.CompositeExplicitAutograd)):",
        "    if cea is not None and isIncludedInAlias(k, K.CompositeExplicitAutograd):",
        "forgets Note [Undefined in dispatchTable_]",
    ),
    _m(
        "2.3",
        "CompositeImplicit does not serve Undefined",
        "    if cia is not None and (k == K.Undefined or isIncludedInAlias(k, K.CompositeImplicitAutograd)):",
        "    if cia is not None and isIncludedInAlias(k, K.CompositeImplicitAutograd):",
        "forgets a no-tensor call can run the math kernel",
    ),
    _m(
        "2.3",
        "backend fallback before Autograd kernel",
        "    autograd = op.kernels.get(K.Autograd)\n    if autograd is not None and isIncludedInAlias(k, K.Autograd):\n"
        '        return autograd, "autograd kernel"\n    if k in dispatcher.backend_fallbacks:\n'
        '        return dispatcher.backend_fallbacks[k], "backend fallback"\n',
        '    if k in dispatcher.backend_fallbacks:\n        return dispatcher.backend_fallbacks[k], "backend fallback"\n'
        "    autograd = op.kernels.get(K.Autograd)\n    if autograd is not None and isIncludedInAlias(k, K.Autograd):\n"
        '        return autograd, "autograd kernel"\n',
        "thinks a fallback registered for the key beats an alias registration",
    ),
    _m(
        "2.3",
        "define twice does not raise",
        '        if name in DISPATCHER.operators:\n            raise RuntimeError(f"Tried to register an operator ({name}) with the same name twice")\n',
        "",
        "overwrites silently like a dict",
    ),
    _m(
        "2.3",
        "define twice raises ValueError",
        '            raise RuntimeError(f"Tried to register an operator ({name}) with the same name twice")',
        '            raise ValueError(f"Tried to register an operator ({name}) with the same name twice")',
        "picks ValueError for a bad argument",
    ),
    _m(
        "2.3",
        "define returns qualified name",
        '        return name.split("::", 1)[1]',
        "        return name",
        "returns the name it stored",
    ),
    _m(
        "2.3",
        "impl ignores fallthrough_kernel",
        "        fallthrough = fn is fallthrough_kernel\n        kernel = KernelFunction(",
        "        fallthrough = False\n        kernel = KernelFunction(",
        "only handles fallthrough in fallback()",
    ),
    _m(
        "2.3",
        "impl not remembered for destroy",
        "        self._impls.append((op.name, key, kernel))\n",
        "",
        "forgets to record the registration, so it outlives the library",
    ),
    _m(
        "2.3",
        "fallback ignores fallthrough_kernel",
        "        fallthrough = fn is fallthrough_kernel\n        DISPATCHER.registerFallback(",
        "        fallthrough = False\n        DISPATCHER.registerFallback(",
        "registers fallthrough_kernel as an ordinary function",
    ),
    _m(
        "2.3",
        "fallback not remembered for destroy",
        "        self._fallbacks.append(key)\n",
        "",
        "forgets the fallback must be undone too",
    ),
    # ------------------------------------------------------------------ Task 2.4
    _m(
        "2.4",
        "exclude applied before include",
        "    return (ks | tls.included) - tls.excluded",
        "    return (ks - tls.excluded) | tls.included",
        "applies the two thread-local sets in the wrong order",
    ),
    _m(
        "2.4",
        "include set forgotten",
        "    return (ks | tls.included) - tls.excluded",
        "    return ks - tls.excluded",
        "only remembers the exclude set",
    ),
    _m(
        "2.4",
        "only first tensor's keys",
        "    for t in _tensor_args(args):\n        ks = ks | t.key_set",
        "    for t in _tensor_args(args)[:1]:\n        ks = ks | t.key_set",
        "dispatches on self only, like a method call",
    ),
    _m(
        "2.4",
        "tensor lists ignored",
        "    for t in _tensor_args(args):\n        ks = ks | t.key_set",
        "    for t in [a for a in args if isinstance(a, Tensor)]:\n        ks = ks | t.key_set",
        "looks only at top-level tensor arguments, not Tensor[]",
    ),
    _m(
        "2.4",
        "fallthrough mask from every backend",
        "        if toBackendComponent(k) not in (None, backend):\n            continue  # another backend's entry: not part of this call's mask\n",
        "",
        "masks a key if its entry on any backend is a fallthrough",
    ),
    _m(
        "2.4",
        "fallthrough mask from lowest backend",
        "    backend = _highest_backend(ks)\n",
        "    backend = next((b for b in backend_components() if b in ks.backends), None)\n",
        "uses the first backend bit found",
    ),
    _m(
        "2.4",
        "fallthrough check skips per-backend keys",
        "        if toBackendComponent(k) not in (None, backend):\n",
        "        if toBackendComponent(k) is not None:\n",
        "thinks only non-backend keys (BackendSelect, ADInplaceOrView...) can be fallthroughs",
    ),
    _m(
        "2.4",
        "fallthroughs stripped only from the top",
        "    for k in list(ks):\n        if toBackendComponent(k) not in (None, backend):\n"
        "            continue  # another backend's entry: not part of this call's mask\n"
        "        kernel, _ = op.entry.lookup(k)\n        if kernel is not None and kernel.fallthrough:\n"
        "            ks = ks.remove(k)\n",
        "    for k in reversed(list(ks)):\n        if toBackendComponent(k) not in (None, backend):\n"
        "            continue  # another backend's entry: not part of this call's mask\n"
        "        kernel, _ = op.entry.lookup(k)\n        if kernel is not None and kernel.fallthrough:\n"
        "            ks = ks.remove(k)\n        else:\n            break\n",
        "skips fallthroughs until the first real kernel, leaving lower fallthrough keys in the set",
    ),
    _m(
        "2.4",
        "kernel handed set without its own key",
        "    return kernel.call(ks, *args)\n    ### END SOLUTION",
        "    return kernel.call(ks.remove(k), *args)\n    ### END SOLUTION",
        "removes the running key before handing the set over, to spare the kernel the masking",
    ),
    _m(
        "2.4",
        "missing kernel raises RuntimeError",
        "        raise _report_error(op, ks)\n",
        "        raise RuntimeError(str(_report_error(op, ks)))\n",
        "uses RuntimeError like most torch errors",
    ),
    _m(
        "2.4",
        "fallback always handed the key set",
        "        return kernel.fn(ks, op, *args) if kernel.with_keyset else kernel.fn(op, *args)",
        "        return kernel.fn(ks, op, *args)",
        "assumes a boxed fallback always takes the key set",
    ),
    _m(
        "2.4",
        "fallback decided by key, not entry kind",
        '    if kind == "backend fallback":',
        "    if k in DISPATCHER.backend_fallbacks:",
        "checks whether the key has a fallback instead of whether the entry is one",
    ),
    _m(
        "2.4",
        "call does not mask fallthroughs",
        "    return redispatch(op, _without_fallthroughs(op, ks), *args)",
        "    return redispatch(op, ks, *args)",
        "expects redispatch to skip fallthroughs itself",
    ),
    _m(
        "2.4",
        "no-tensor call goes straight to Undefined",
        "    ks = computeDispatchKeySet(args)\n    return redispatch(",
        "    ks = computeDispatchKeySet(args) if _tensor_args(args) else DispatchKeySet()\n    return redispatch(",
        "thinks a call without tensors has no keys at all (forgets the include set / BackendSelect)",
    ),
]
