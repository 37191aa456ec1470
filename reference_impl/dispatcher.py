"""Week 2: a dispatcher of your own, built the way PyTorch's c10 dispatcher is built.

Every call of an operator (``torch.ops.aten.add``, ``torch.ops.mylib.f``) goes through the
dispatcher (aten/src/ATen/core/dispatch/Dispatcher.h). It

1. collects the *dispatch key set* of the call: the keys of every tensor argument, plus the
   thread-local *include* set, minus the thread-local *exclude* set
   (c10/core/impl/LocalDispatchKeySet.h, DispatchKeyExtractor.h: computeDispatchKeySet);
2. drops the keys whose entry is a fallthrough, then picks the key of highest priority left
   (DispatchKeySet::highestPriorityTypeId);
3. runs the kernel the operator's *dispatch table* holds for that key (a cache, filled entry
   by entry as kernels are registered: OperatorEntry.cpp: computeDispatchTableEntryWithDebug).
   A kernel may *redispatch*: call the same operator again with the keys at and above its own
   removed, so the next key runs (Autograd -> ADInplaceOrView -> CPU).

A key set is a bitset of *functionality* bits (Dense, Autograd, Autocast..., ordered by
priority) and *backend* bits (CPU, CUDA, PrivateUse1, Meta): c10/core/DispatchKeySet.h.
"Runtime" keys such as ``AutogradCPU`` are one functionality bit plus one backend bit.

This module must never import torch. Its names mirror torch's, and the namespaces ``_C``,
``library`` and ``ops`` at the bottom let the same code run against it and against torch:
``_C.DispatchKeySet``, ``library.Library``, ``ops.ns.op``.

The exercises ("Task 2.x" in a docstring; each may span several functions):
  2.1 the keys and their priority: functionality_keys, backend_components,
      isPerBackendFunctionalityKey, isAliasDispatchKey, toFunctionalityKey,
      toBackendComponent, priority_order
  2.2 key sets: DispatchKeySet (__init__, |, &, -, add, remove, has, __iter__,
      highestPriorityTypeId, __repr__), tensor_key_set, default_included_set,
      default_excluded_set, _ExcludeDispatchKeyGuard, _IncludeDispatchKeyGuard,
      inference_mode_sets
  2.3 the operator table: getRuntimeDispatchKeySet, isIncludedInAlias,
      computeDispatchTableEntryWithDebug, Library.define / impl / fallback
  2.4 calling through it: computeDispatchKeySet, _without_fallthroughs, redispatch, call
"""

from __future__ import annotations

import enum
import threading
import types
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

# === Given: the keys (c10/core/DispatchKey.h), with torch's numbers =============================


class DispatchKey(enum.Enum):
    """The dispatch keys of this lab: a subset of torch's 145, with torch's names and numbers.

    The numbers are NOT the priority: torch numbers the functionality keys first and the
    runtime per-backend keys (CPU, AutogradCPU, ...) after them. Priority is Task 2.1.
    """

    Undefined = 0
    Dense = 1  # functionality key: "a backend's own kernel"; CPU = Dense + the CPU backend bit
    BackendSelect = 11
    Python = 13
    Functionalize = 15
    ADInplaceOrView = 19
    AutogradFunctionality = 21  # functionality key: AutogradCPU = this + the CPU backend bit
    AutocastCPU = 24
    AutocastCUDA = 32
    AutocastPrivateUse1 = 33
    PythonTLSSnapshot = 41
    CPU = 49
    CUDA = 50
    PrivateUse1 = 61
    Meta = 64
    AutogradCPU = 134
    AutogradCUDA = 135
    AutogradPrivateUse1 = 146
    AutogradMeta = 149
    # alias keys: never in a key set; a kernel registered to one fills several table entries
    Autograd = 150
    CompositeImplicitAutograd = 151
    CompositeExplicitAutograd = 154

    def __repr__(self) -> str:
        return f"<DispatchKey.{self.name}: {self.value}>"


K = DispatchKey
BACKEND_KEYS = (K.CPU, K.CUDA, K.PrivateUse1, K.Meta)  # the Dense runtime keys
AUTOGRAD_KEYS = (K.AutogradCPU, K.AutogradCUDA, K.AutogradPrivateUse1, K.AutogradMeta)
DEVICE_KEY = {"cpu": K.CPU, "cuda": K.CUDA, "privateuseone": K.PrivateUse1, "meta": K.Meta}


# === Task 2.1: the keys and their priority ======================================================


def functionality_keys() -> list[DispatchKey]:
    """Task 2.1: this lab's functionality keys, LOWEST priority first.

    c10/core/DispatchKey.h lists them in this order: Dense (the backend kernels) lowest, then
    BackendSelect, Python, Functionalize, ADInplaceOrView, AutogradFunctionality, the Autocast
    keys (CPU, CUDA, PrivateUse1) and PythonTLSSnapshot highest. The dispatcher runs the
    highest one first: autograd before ADInplaceOrView before the backend.
    """
    ### BEGIN SOLUTION
    return [
        K.Dense,
        K.BackendSelect,
        K.Python,
        K.Functionalize,
        K.ADInplaceOrView,
        K.AutogradFunctionality,
        K.AutocastCPU,
        K.AutocastCUDA,
        K.AutocastPrivateUse1,
        K.PythonTLSSnapshot,
    ]
    ### END SOLUTION


def backend_components() -> list[DispatchKey]:
    """Task 2.1: the backends, lowest priority first, named by their Dense key.

    c10/core/BackendComponent (DispatchKey.h): CPUBit, CUDABit, ..., PrivateUse1Bit, ...,
    MetaBit. Between two backends of one functionality the later bit wins.
    """
    ### BEGIN SOLUTION
    return [K.CPU, K.CUDA, K.PrivateUse1, K.Meta]
    ### END SOLUTION


def isPerBackendFunctionalityKey(k: DispatchKey) -> bool:
    """Task 2.1: is ``k`` a functionality with one runtime key per backend (Dense, Autograd)?

    c10/core/DispatchKey.h: isPerBackendFunctionalityKey.
    """
    ### BEGIN SOLUTION
    return k in (K.Dense, K.AutogradFunctionality)
    ### END SOLUTION


def isAliasDispatchKey(k: DispatchKey) -> bool:
    """Task 2.1: is ``k`` an alias (Autograd, CompositeImplicitAutograd, ...)?

    c10/core/DispatchKey.h: isAliasDispatchKey. Aliases are numbered after every runtime key.
    """
    ### BEGIN SOLUTION
    return k in (K.Autograd, K.CompositeImplicitAutograd, K.CompositeExplicitAutograd)
    ### END SOLUTION


def toFunctionalityKey(k: DispatchKey) -> DispatchKey:
    """Task 2.1: the functionality bit of a key: CPU -> Dense, AutogradMeta ->
    AutogradFunctionality, any other key -> itself (c10/core/DispatchKey.h)."""
    ### BEGIN SOLUTION
    if k in BACKEND_KEYS:
        return K.Dense
    if k in AUTOGRAD_KEYS:
        return K.AutogradFunctionality
    return k
    ### END SOLUTION


def toBackendComponent(k: DispatchKey) -> DispatchKey | None:
    """Task 2.1: the backend bit of a runtime key, named by its Dense key: AutogradCPU -> CPU,
    Meta -> Meta; None for a key with no backend (c10/core/DispatchKey.h)."""
    ### BEGIN SOLUTION
    if k in BACKEND_KEYS:
        return k
    if k in AUTOGRAD_KEYS:
        return BACKEND_KEYS[AUTOGRAD_KEYS.index(k)]
    return None
    ### END SOLUTION


def toRuntimePerBackendFunctionalityKey(
    functionality: DispatchKey, backend: DispatchKey
) -> DispatchKey:
    """Given: the runtime key of one functionality on one backend (Dense + CPU -> CPU)."""
    i = BACKEND_KEYS.index(backend)
    return BACKEND_KEYS[i] if functionality == K.Dense else AUTOGRAD_KEYS[i]


def priority_order(keys: list[DispatchKey]) -> list[DispatchKey]:
    """Task 2.1: ``keys`` (runtime keys) sorted lowest priority first, the order in which
    torch prints a key set: by functionality first, then by backend."""
    ### BEGIN SOLUTION
    funcs, backends = functionality_keys(), backend_components()

    def rank(k: DispatchKey) -> tuple[int, int]:
        b = toBackendComponent(k)
        return funcs.index(toFunctionalityKey(k)), -1 if b is None else backends.index(b)

    return sorted(keys, key=rank)
    ### END SOLUTION


# === Task 2.2: key sets, the thread-local sets and the key set of a tensor =======================


class DispatchKeySet:
    """A set of dispatch keys as torch keeps it: functionality bits plus backend bits.

    c10/core/DispatchKeySet.h. ``DispatchKeySet(DispatchKey.AutogradCPU)`` holds the
    AutogradFunctionality bit and the CPU bit. Adding CPU then adds only the Dense bit. Adding
    AutogradMeta adds the Meta bit, which every per-backend functionality shares, as in torch:
    ``DispatchKeySet(CPU) | DispatchKeySet(AutogradMeta)`` prints
    ``DispatchKeySet(CPU, Meta, AutogradCPU, AutogradMeta)``.
    """

    def __init__(self, k: DispatchKey | None = None) -> None:
        """Task 2.2: the set of one key. An alias key or Undefined gives the empty set."""
        ### BEGIN SOLUTION
        self.functionality: frozenset[DispatchKey] = frozenset()
        self.backends: frozenset[DispatchKey] = frozenset()
        if k is None or k == K.Undefined or isAliasDispatchKey(k):
            return
        self.functionality = frozenset({toFunctionalityKey(k)})
        backend = toBackendComponent(k)
        self.backends = frozenset() if backend is None else frozenset({backend})
        ### END SOLUTION

    @classmethod
    def _of(cls, functionality: frozenset, backends: frozenset) -> DispatchKeySet:
        ks = object.__new__(cls)
        ks.functionality, ks.backends = frozenset(functionality), frozenset(backends)
        return ks

    def __or__(self, other: DispatchKeySet) -> DispatchKeySet:
        """Task 2.2: union: the bits of both."""
        ### BEGIN SOLUTION
        return DispatchKeySet._of(
            self.functionality | other.functionality, self.backends | other.backends
        )
        ### END SOLUTION

    def __and__(self, other: DispatchKeySet) -> DispatchKeySet:
        """Task 2.2: intersection: the bits in both."""
        ### BEGIN SOLUTION
        return DispatchKeySet._of(
            self.functionality & other.functionality, self.backends & other.backends
        )
        ### END SOLUTION

    def __sub__(self, other: DispatchKeySet) -> DispatchKeySet:
        """Task 2.2: difference. Only FUNCTIONALITY bits are removed; the backend bits stay
        (DispatchKeySet.h: operator-): excluding AutogradCPU excludes autograd on every
        backend, and a set that loses AutogradCPU keeps its CPU bit for CPU."""
        ### BEGIN SOLUTION
        return DispatchKeySet._of(self.functionality - other.functionality, self.backends)
        ### END SOLUTION

    def add(self, k: DispatchKey) -> DispatchKeySet:
        """Task 2.2: a new set with ``k`` added (sets are values; this one is unchanged)."""
        ### BEGIN SOLUTION
        return self | DispatchKeySet(k)
        ### END SOLUTION

    def remove(self, k: DispatchKey) -> DispatchKeySet:
        """Task 2.2: a new set without ``k``'s functionality bit (its backend bit stays)."""
        ### BEGIN SOLUTION
        return self - DispatchKeySet(k)
        ### END SOLUTION

    def has(self, k: DispatchKey) -> bool:
        """Task 2.2: are all of ``k``'s bits in the set? (DispatchKeySet.h: has -> has_all)."""
        ### BEGIN SOLUTION
        one = DispatchKeySet(k)
        return one.functionality <= self.functionality and one.backends <= self.backends
        ### END SOLUTION

    def __iter__(self) -> Iterator[DispatchKey]:
        """Task 2.2: the runtime keys, lowest priority first: each functionality in order and,
        for a per-backend one, one key per backend bit (DispatchKeySet::iterator). A
        per-backend functionality with no backend bit yields nothing."""
        ### BEGIN SOLUTION
        for f in functionality_keys():
            if f not in self.functionality:
                continue
            if not isPerBackendFunctionalityKey(f):
                yield f
                continue
            for b in backend_components():
                if b in self.backends:
                    yield toRuntimePerBackendFunctionalityKey(f, b)
        ### END SOLUTION

    def highestPriorityTypeId(self) -> DispatchKey:
        """Task 2.2: the key the dispatcher runs: the highest functionality, on the highest
        backend bit when it is per-backend; Undefined for an empty set."""
        ### BEGIN SOLUTION
        keys = list(self)
        top = max(self.functionality, key=functionality_keys().index, default=None)
        if top is not None and isPerBackendFunctionalityKey(top) and not self.backends:
            # e.g. DispatchKeySet(CPU) & DispatchKeySet(Meta): torch answers with an internal
            # key (StartOfDenseBackends) that no kernel is ever registered to; this lab has none.
            raise NotImplementedError(
                f"a key set with {top.name} but no backend bit: torch returns its internal "
                f"StartOf...Backends key here, which this lab does not model"
            )
        return keys[-1] if keys else K.Undefined
        ### END SOLUTION

    def __repr__(self) -> str:
        """Task 2.2: ``DispatchKeySet(CPU, ADInplaceOrView, AutogradCPU, AutocastCPU)``."""
        ### BEGIN SOLUTION
        return f"DispatchKeySet({', '.join(k.name for k in self)})"
        ### END SOLUTION

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, DispatchKeySet):
            return NotImplemented
        return (self.functionality, self.backends) == (other.functionality, other.backends)

    def __hash__(self) -> int:
        return hash((self.functionality, self.backends))

    def empty(self) -> bool:
        return not self.functionality


def _keyset(*keys: DispatchKey) -> DispatchKeySet:
    out = DispatchKeySet()
    for k in keys:
        out = out | DispatchKeySet(k)
    return out


def autograd_dispatch_keyset() -> DispatchKeySet:
    """Given: the Autograd functionality bit with no backend bit (DispatchKeySet.h:
    autograd_dispatch_keyset). Subtracting it removes autograd on every backend."""
    return DispatchKeySet._of(frozenset({K.AutogradFunctionality}), frozenset())


def tensor_key_set(device: str, inference: bool = False) -> DispatchKeySet:
    """Task 2.2: the key set of a fresh tensor on ``device`` ("cpu", "cuda", "meta",
    "privateuseone").

    c10/core/TensorImpl.cpp: the TensorImpl constructor. The backend key, then
    getAutogradRelatedKeySetFromBackend (ADInplaceOrView and the backend's Autograd key) unless
    the tensor is made inside inference mode, and the backend's Autocast key (there is none for
    Meta; getAutocastRelatedKeySetFromBackend). ``requires_grad`` changes nothing.
    """
    ### BEGIN SOLUTION
    backend = DEVICE_KEY[device]
    ks = DispatchKeySet(backend)
    if not inference:
        ks = ks | _keyset(K.ADInplaceOrView, AUTOGRAD_KEYS[BACKEND_KEYS.index(backend)])
    autocast = {K.CPU: K.AutocastCPU, K.CUDA: K.AutocastCUDA, K.PrivateUse1: K.AutocastPrivateUse1}
    if backend in autocast:
        ks = ks.add(autocast[backend])
    return ks
    ### END SOLUTION


class _LocalDispatchKeySet(threading.local):
    """Given: this thread's include and exclude sets (c10/core/impl/LocalDispatchKeySet.h)."""

    def __init__(self) -> None:
        self.included = default_included_set()
        self.excluded = default_excluded_set()
        self.inference = False
        self.grad_enabled = True


def default_included_set() -> DispatchKeySet:
    """Task 2.2: the include set a thread starts with (LocalDispatchKeySet.h:
    default_included_set): BackendSelect and ADInplaceOrView."""
    ### BEGIN SOLUTION
    return _keyset(K.BackendSelect, K.ADInplaceOrView)
    ### END SOLUTION


def default_excluded_set() -> DispatchKeySet:
    """Task 2.2: the exclude set a thread starts with: every Autocast key (autocast is off
    until ``torch.autocast`` turns it on)."""
    ### BEGIN SOLUTION
    return _keyset(K.AutocastCPU, K.AutocastCUDA, K.AutocastPrivateUse1)
    ### END SOLUTION


_tls: _LocalDispatchKeySet | None = None


def _local() -> _LocalDispatchKeySet:
    global _tls
    if _tls is None:
        _tls = _LocalDispatchKeySet()
    return _tls


def _dispatch_tls_local_include_set() -> DispatchKeySet:
    """Given: torch._C._dispatch_tls_local_include_set."""
    return _local().included


def _dispatch_tls_local_exclude_set() -> DispatchKeySet:
    """Given: torch._C._dispatch_tls_local_exclude_set."""
    return _local().excluded


def _dispatch_tls_is_dispatch_key_excluded(k: DispatchKey) -> bool:
    """Given: torch._C._dispatch_tls_is_dispatch_key_excluded (``has`` on the exclude set)."""
    return _local().excluded.has(k)


def _dispatch_tls_is_dispatch_key_included(k: DispatchKey) -> bool:
    """Given: torch._C._dispatch_tls_is_dispatch_key_included."""
    return _local().included.has(k)


@contextmanager
def _set_tls(included: DispatchKeySet, excluded: DispatchKeySet) -> Iterator[None]:
    """Given: set both thread-local sets for a ``with`` block, and restore them after."""
    tls = _local()
    saved = tls.included, tls.excluded
    tls.included, tls.excluded = included, excluded
    try:
        yield
    finally:
        tls.included, tls.excluded = saved


class _ExcludeDispatchKeyGuard:
    """Task 2.2: ``with _ExcludeDispatchKeyGuard(ks):`` adds ``ks`` to the exclude set
    (c10/core/impl/LocalDispatchKeySet.h: ExcludeDispatchKeyGuard)."""

    def __init__(self, ks: DispatchKeySet) -> None:
        self.ks = ks

    def __enter__(self) -> _ExcludeDispatchKeyGuard:
        ### BEGIN SOLUTION
        tls = _local()
        self._cm = _set_tls(tls.included, tls.excluded | self.ks)
        self._cm.__enter__()
        return self
        ### END SOLUTION

    def __exit__(self, *exc: object) -> None:
        self._cm.__exit__(*exc)


class _IncludeDispatchKeyGuard:
    """Task 2.2: ``with _IncludeDispatchKeyGuard(k):`` adds key ``k`` to the include set
    (LocalDispatchKeySet.h: IncludeDispatchKeyGuard)."""

    def __init__(self, k: DispatchKey) -> None:
        self.k = k

    def __enter__(self) -> _IncludeDispatchKeyGuard:
        ### BEGIN SOLUTION
        tls = _local()
        self._cm = _set_tls(tls.included.add(self.k), tls.excluded)
        self._cm.__enter__()
        return self
        ### END SOLUTION

    def __exit__(self, *exc: object) -> None:
        self._cm.__exit__(*exc)


def inference_mode_sets(mode: bool) -> tuple[DispatchKeySet, DispatchKeySet]:
    """Task 2.2: the (include, exclude) sets inside ``inference_mode(mode)``, from this
    thread's current ones (c10/core/InferenceMode.h: InferenceMode's constructor).

    ``mode=True`` drops ADInplaceOrView from the include set and excludes the Autograd
    functionality (autograd_dispatch_keyset); ``mode=False`` does the opposite.
    """
    tls = _local()
    ### BEGIN SOLUTION
    if mode:
        return tls.included.remove(K.ADInplaceOrView), tls.excluded | autograd_dispatch_keyset()
    return tls.included.add(K.ADInplaceOrView), tls.excluded - autograd_dispatch_keyset()
    ### END SOLUTION


@contextmanager
def inference_mode(mode: bool = True) -> Iterator[None]:
    """Given: ``with inference_mode():`` sets the TLS sets of ``inference_mode_sets`` for the
    block. Tensors made inside get no autograd keys (``tensor_key_set(device, True)``).

    It also sets grad mode to ``not mode`` (c10/core/InferenceMode.h: the constructor sets the
    AutogradState to grad_mode=!enabled): inference mode is a stricter no_grad, and
    ``inference_mode(False)`` turns gradients back on even inside ``no_grad``. Leaving the block
    restores both, as the destructor does.
    """
    tls = _local()
    saved = tls.inference, tls.grad_enabled
    included, excluded = inference_mode_sets(mode)
    tls.inference, tls.grad_enabled = mode, not mode
    try:
        with _set_tls(included, excluded):
            yield
    finally:
        tls.inference, tls.grad_enabled = saved


def is_inference_mode_enabled() -> bool:
    """Given: torch.is_inference_mode_enabled."""
    return _local().inference


@contextmanager
def no_grad() -> Iterator[None]:
    """Given: ``no_grad`` turns off gradient RECORDING only; the key sets do not change (the
    autograd kernels still run and check GradMode inside: torch/csrc/autograd/grad_mode.h)."""
    tls = _local()
    saved = tls.grad_enabled
    tls.grad_enabled = False
    try:
        yield
    finally:
        tls.grad_enabled = saved


def is_grad_enabled() -> bool:
    """Given: torch.is_grad_enabled."""
    return _local().grad_enabled


# === Given: a tensor that is only a key set ======================================================


class Tensor:
    """A stand-in for a tensor: a device, requires_grad and a key set; no data.

    The dispatcher looks at nothing else (c10/core/TensorImpl.h keeps ``key_set_``).
    """

    def __init__(self, device: str, key_set: DispatchKeySet, requires_grad: bool = False) -> None:
        self.device = device
        self.key_set = key_set
        self.requires_grad = requires_grad

    def __repr__(self) -> str:
        return f"Tensor(device={self.device!r}, {self.key_set!r})"


def empty(*size: Any, device: str = "cpu", requires_grad: bool = False) -> Tensor:
    """Given: a fresh tensor (``size`` is ignored: this tensor has no data)."""
    device = str(device)
    if device not in DEVICE_KEY:
        raise RuntimeError(f"Expected one of cpu, cuda, meta, privateuseone device type: {device}")
    return Tensor(device, tensor_key_set(device, is_inference_mode_enabled()), requires_grad)


def _dispatch_keys(t: Tensor) -> DispatchKeySet:
    """Given: torch._C._dispatch_keys: the key set the tensor carries."""
    return t.key_set


# === Task 2.3: the operator table ================================================================


class KernelFunction:
    """Given: one registered kernel (aten/src/ATen/core/boxing/KernelFunction.h).

    ``fallthrough``: the dispatcher skips this key and looks at the next one.
    ``with_keyset``: the kernel takes the call's key set as its first argument (to redispatch).
    """

    def __init__(
        self, fn: Callable | None, debug: str, with_keyset: bool = False, fallthrough: bool = False
    ) -> None:
        self.fn, self.debug = fn, debug
        self.with_keyset, self.fallthrough = with_keyset, fallthrough

    def call(self, ks: DispatchKeySet, *args: Any) -> Any:
        return self.fn(ks, *args) if self.with_keyset else self.fn(*args)


def fallthrough_kernel(*args: Any) -> Any:
    """Given: torch.library.fallthrough_kernel: register it to make a key a fallthrough."""
    raise NotImplementedError("fallthrough_kernel() should never be called.")


def getRuntimeDispatchKeySet(alias: DispatchKey) -> DispatchKeySet:
    """Task 2.3: the runtime keys an alias stands for (c10/core/DispatchKeySet.cpp:
    getRuntimeDispatchKeySet).

    Autograd: every AutogradX key. CompositeExplicitAutograd: every backend key.
    CompositeImplicitAutograd: both of those. A non-alias key stands for itself.
    """
    ### BEGIN SOLUTION
    autograd = _keyset(*AUTOGRAD_KEYS)
    backends = _keyset(*BACKEND_KEYS)
    if alias == K.Autograd:
        return autograd
    if alias == K.CompositeExplicitAutograd:
        return backends
    if alias == K.CompositeImplicitAutograd:
        return autograd | backends
    return DispatchKeySet(alias)
    ### END SOLUTION


def isIncludedInAlias(k: DispatchKey, alias: DispatchKey) -> bool:
    """Task 2.3: does a kernel on ``alias`` serve runtime key ``k``? (DispatchKeySet.cpp)."""
    ### BEGIN SOLUTION
    return k != K.Undefined and getRuntimeDispatchKeySet(alias).has(k)
    ### END SOLUTION


def getBackendKeySetFromAutograd(k: DispatchKey) -> DispatchKeySet:
    """Given: the backend keys under an autograd key (AutogradCPU -> CPU); empty for others."""
    if k in AUTOGRAD_KEYS:
        return DispatchKeySet(BACKEND_KEYS[AUTOGRAD_KEYS.index(k)])
    return DispatchKeySet()


class OperatorEntry:
    """One operator: its schema, its kernels by key, and the table computed from them
    (aten/src/ATen/core/dispatch/OperatorEntry.h).

    The table is a cache: dispatch reads ``dispatchTable``, and an entry is recomputed only
    when a registration touches it (``updateDispatchTable_``), exactly as torch does. The dump
    (``_dispatch_dump_table``) computes every entry afresh, so the two can disagree.
    """

    def __init__(self, name: str, schema: str, debug: str) -> None:
        self.name, self.schema, self.debug = name, schema, debug
        self.kernels: dict[DispatchKey, KernelFunction] = {}  # the newest kernel of each key
        # Every kernel registered on each key, oldest first (OperatorEntry.h: kernels_). A key
        # registered twice keeps both: the newest runs, and when its library is destroyed
        # the one before it runs again (deregisterKernel_).
        self.registrations: dict[DispatchKey, list[KernelFunction]] = {}
        self.dispatchTable: dict[DispatchKey, tuple[KernelFunction | None, str]] = {}
        # torch's NestedTensor keys, which the lab leaves out, take the math kernel too (unless
        # there is a CompositeExplicitAutograd one), and only a CompositeImplicitAutograd
        # registration refreshes them: the first entries to go stale (checkInvariants).
        self.nestedTensorEntry: KernelFunction | None = None
        self.updateDispatchTableFull_()

    def hasKernelForDispatchKey(self, k: DispatchKey) -> bool:
        return k in self.kernels

    def hasKernelForAnyDispatchKey(self, ks: DispatchKeySet) -> bool:
        return any(ks.has(k) for k in self.kernels if not isAliasDispatchKey(k))

    def lookup(self, k: DispatchKey) -> tuple[KernelFunction | None, str]:
        """Given: the entry dispatch uses for runtime key ``k`` (or Undefined): the one
        computed when a registration last touched it (OperatorEntry.h: lookup)."""
        return self.dispatchTable[k]

    def updateDispatchTableEntry_(self, k: DispatchKey) -> None:
        self.dispatchTable[k] = computeDispatchTableEntryWithDebug(DISPATCHER, self, k)

    def updateDispatchTable_(self, k: DispatchKey) -> None:
        """Given: after a kernel is registered on (or removed from) ``k``, recompute the entries
        it touches, and only those (OperatorEntry.cpp: updateDispatchTable_): ``k``'s runtime
        keys; Undefined for a composite; and, for a backend key, its autograd key (Note
        [Refresh Runtime Autograd entries in dispatchTable_]).

        Not refreshed: the autograd keys when CompositeExplicitAutograd changes, although their
        CompositeImplicitAutograd entry depends on it (step 3 of
        computeDispatchTableEntryWithDebug). So CompositeImplicitAutograd then
        CompositeExplicitAutograd leaves every autograd key running the math kernel.
        """
        for r in getRuntimeDispatchKeySet(k) if isAliasDispatchKey(k) else [k]:
            self.updateDispatchTableEntry_(r)
        if k in (K.CompositeImplicitAutograd, K.CompositeExplicitAutograd):
            self.updateDispatchTableEntry_(K.Undefined)
        if k in BACKEND_KEYS:
            self.updateDispatchTableEntry_(AUTOGRAD_KEYS[BACKEND_KEYS.index(k)])
        if k == K.CompositeImplicitAutograd:
            self.nestedTensorEntry = _nested_tensor_entry(self)

    def updateDispatchTableFull_(self) -> None:
        """Given: compute every entry (a new operator: OperatorEntry.cpp)."""
        for k in (K.Undefined, *BACKEND_KEYS, *AUTOGRAD_KEYS, *_NON_BACKEND_RUNTIME_KEYS):
            self.updateDispatchTableEntry_(k)
        self.nestedTensorEntry = _nested_tensor_entry(self)

    def registerKernel(self, k: DispatchKey, kernel: KernelFunction) -> None:
        """Given: ``kernel`` is now ``k``'s newest kernel (the one that runs): keep it in the
        registrations, so ``_destroy`` can bring back the one before, and refresh the table
        entries it touches (OperatorEntry.cpp: registerKernel)."""
        self.kernels[k] = kernel
        self.registrations.setdefault(k, []).append(kernel)
        self.updateDispatchTable_(k)

    def deregisterKernel(self, k: DispatchKey, kernel: KernelFunction) -> None:
        """Given: drop one registration of ``k``; the newest one left (if any) runs again."""
        stack = self.registrations.get(k, [])
        if kernel in stack:
            stack.remove(kernel)
        if stack:
            self.kernels[k] = stack[-1]
        else:
            self.kernels.pop(k, None)
            self.registrations.pop(k, None)
        self.updateDispatchTable_(k)

    def checkInvariants(self) -> bool:
        """Given: does every cached entry run the same function a fresh computation would?
        (OperatorEntry.cpp: checkInvariants, which torch runs before reporting a missing
        kernel, and which stops on an internal assert when the cache has gone stale.)"""
        for k in (*BACKEND_KEYS, *AUTOGRAD_KEYS, *_NON_BACKEND_RUNTIME_KEYS):
            fresh = computeDispatchTableEntryWithDebug(DISPATCHER, self, k)[0]
            if not _same_function(fresh, self.dispatchTable[k][0]):
                return False
        return _same_function(_nested_tensor_entry(self), self.nestedTensorEntry)


def _nested_tensor_entry(op: OperatorEntry) -> KernelFunction | None:
    """Given: what torch computes for its NestedTensor keys (step 3 with no backend kernel):
    the math kernel unless a CompositeExplicitAutograd kernel exists, else nothing."""
    if K.CompositeExplicitAutograd in op.kernels:
        return None
    return op.kernels.get(K.CompositeImplicitAutograd)


def _same_function(a: KernelFunction | None, b: KernelFunction | None) -> bool:
    """Given: KernelFunction::_equalsBoxedAndUnboxed compares function POINTERS: every Python
    kernel is one PythonKernelHolder function, every fallthrough is fallthrough_kernel."""
    if a is None or b is None:
        return a is b
    if a.fallthrough or b.fallthrough:
        return a.fallthrough == b.fallthrough
    if a.debug == b.debug == "registered":
        return True
    return a.fn is b.fn


def computeDispatchTableEntryWithDebug(
    dispatcher: Dispatcher, op: OperatorEntry, k: DispatchKey
) -> tuple[KernelFunction | None, str]:
    """Task 2.3: what runs for runtime key ``k``, and the kind of entry it is.

    aten/src/ATen/core/dispatch/OperatorEntry.cpp: computeDispatchTableEntryWithDebug, in order:
    1. a kernel registered directly on ``k``: "kernel";
    2. a CompositeExplicitAutograd kernel, if ``k`` is a backend key: "default backend kernel";
    3. a CompositeImplicitAutograd kernel, if ``k`` is a backend or autograd key, unless ``k``
       is an autograd key whose backend has a direct kernel, or a CompositeExplicitAutograd
       kernel exists (then autograd falls to step 4/5): "math kernel";
    4. an Autograd kernel, if ``k`` is an autograd key: "autograd kernel";
    5. the dispatcher's backend fallback for ``k``: "backend fallback";
    6. nothing: (None, "missing").

    ``k`` may also be Undefined: the key of a call with no key left (no tensor argument, or
    every key a fallthrough). Steps 2 and 3 serve it too (Note [Undefined in dispatchTable_]):
    a composite kernel needs no tensor to run, so ``f(int n)`` with only a
    CompositeExplicitAutograd or CompositeImplicitAutograd kernel runs that kernel.
    """
    ### BEGIN SOLUTION
    if k in op.kernels:
        return op.kernels[k], "kernel"
    cea = op.kernels.get(K.CompositeExplicitAutograd)
    if cea is not None and (k == K.Undefined or isIncludedInAlias(k, K.CompositeExplicitAutograd)):
        return cea, "default backend kernel"
    cia = op.kernels.get(K.CompositeImplicitAutograd)
    if cia is not None and (k == K.Undefined or isIncludedInAlias(k, K.CompositeImplicitAutograd)):
        has_backend_kernel = op.hasKernelForAnyDispatchKey(
            getBackendKeySetFromAutograd(k)
        ) or op.hasKernelForDispatchKey(K.CompositeExplicitAutograd)
        if not has_backend_kernel:
            return cia, "math kernel"
    autograd = op.kernels.get(K.Autograd)
    if autograd is not None and isIncludedInAlias(k, K.Autograd):
        return autograd, "autograd kernel"
    if k in dispatcher.backend_fallbacks:
        return dispatcher.backend_fallbacks[k], "backend fallback"
    return None, "missing"
    ### END SOLUTION


class Dispatcher:
    """Given: the one registry of operators and backend fallbacks
    (aten/src/ATen/core/dispatch/Dispatcher.h)."""

    def __init__(self) -> None:
        self.operators: dict[str, OperatorEntry] = {}
        self.backend_fallbacks: dict[DispatchKey, KernelFunction] = {}

    def findSchemaOrThrow(self, name: str) -> OperatorEntry:
        if name not in self.operators:
            raise RuntimeError(f"Could not find schema for {name}")
        return self.operators[name]

    def registerFallback(self, k: DispatchKey, kernel: KernelFunction) -> None:
        if k in self.backend_fallbacks:
            raise RuntimeError(
                f"Tried to register multiple backend fallbacks for the same dispatch key {k.name}"
            )
        self.backend_fallbacks[k] = kernel
        self._updateFallback(k)

    def deregisterFallback(self, k: DispatchKey) -> None:
        self.backend_fallbacks.pop(k, None)
        self._updateFallback(k)

    def _updateFallback(self, k: DispatchKey) -> None:
        """Refresh every operator's entries for ``k`` (OperatorEntry.cpp: updateFallback calls
        updateDispatchTable_, so a fallback on a backend key refreshes its autograd key too)."""
        for op in self.operators.values():
            op.updateDispatchTable_(k)


DISPATCHER = Dispatcher()


def _parse_key(key: str | DispatchKey) -> DispatchKey:
    if isinstance(key, DispatchKey):
        return key
    if key == "":
        return K.CompositeImplicitAutograd
    try:
        return K[key]
    except KeyError:
        raise ValueError(f"could not parse dispatch key: {key}") from None


def _check_no_meta_over_composite(name: str, dispatch_key: str | DispatchKey) -> None:
    """Given: torch/library.py refuses a Meta kernel for an operator that has a
    CompositeImplicitAutograd kernel (let it decompose; give the base ops meta kernels)."""
    op = DISPATCHER.operators.get(name)
    if dispatch_key in ("Meta", K.Meta) and op and K.CompositeImplicitAutograd in op.kernels:
        raise RuntimeError(
            f"We should not register a meta kernel directly to the operator '{name}', because "
            "it has a CompositeImplicitAutograd kernel in core."
        )


def _check_fallback(ns: str, dispatch_key: str | DispatchKey) -> None:
    """Given: what torch/library.py checks before ``fallback``, and what the lab leaves out."""
    if ns != "_":
        raise RuntimeError(
            "Fallback can only be registered using library fragment on the global namespace "
            f'"_" but it is {ns}'
        )
    if dispatch_key == "":
        raise AssertionError("dispatch_key must not be empty for fallback")
    if isAliasDispatchKey(_parse_key(dispatch_key)):
        raise NotImplementedError(
            f"a fallback on the alias {dispatch_key}: torch registers it on every runtime key "
            "the alias stands for, its many backends included, and stops at the first that "
            "already has one (Library.cpp: _fallback). The lab does not model that."
        )


class Library:
    """``torch.library.Library(ns, kind)``: registrations in namespace ``ns``.

    kind "DEF" may define operators; "IMPL" and "FRAGMENT" add kernels (torch/library.py).
    Registrations last until ``_destroy()``.
    """

    def __init__(self, ns: str, kind: str) -> None:
        if kind not in ("DEF", "IMPL", "FRAGMENT"):
            raise ValueError(f"Unsupported kind: {kind}")
        self.ns, self.kind = ns, kind
        self._defs: list[str] = []
        self._impls: list[tuple[str, DispatchKey, KernelFunction]] = []
        self._fallbacks: list[DispatchKey] = []

    def _qualified(self, name: str) -> str:
        return name if "::" in name else f"{self.ns}::{name}"

    def define(self, schema: str) -> str:
        """Task 2.3: add an operator ``ns::name`` with this schema ("f(Tensor x) -> Tensor").

        Return the operator's name as the schema spells it: "f", or "ns::f" for a schema that
        names its namespace (torch/csrc/utils/python_dispatch.cpp: the ``define`` binding
        returns ``torch::schema(schema).name()``)."""
        if self.kind == "IMPL":
            raise ValueError("define(): not allowed on an IMPL library")
        ### BEGIN SOLUTION
        name = self._qualified(schema.split("(", 1)[0].strip())
        if name in DISPATCHER.operators:
            raise RuntimeError(f"Tried to register an operator ({name}) with the same name twice")
        DISPATCHER.operators[name] = OperatorEntry(name, f"{self.ns}::{schema}", "registered")
        self._defs.append(name)
        if "::" in schema.split("(", 1)[0]:
            return name  # spelled with its namespace: torch hands it back as spelled
        return name.split("::", 1)[1]
        ### END SOLUTION

    def impl(
        self,
        op_name: str,
        fn: Callable,
        dispatch_key: str | DispatchKey = "",
        *,
        with_keyset: bool = False,
    ) -> None:
        """Task 2.3: register ``fn`` as the kernel of ``op_name`` for ``dispatch_key`` (a key or
        an alias; "" means CompositeImplicitAutograd). ``fallthrough_kernel`` makes the key a
        fallthrough.

        Hand the kernel to the operator's ``registerKernel`` (given): it becomes the key's
        newest kernel and the table entries the key touches are computed again (the table is
        a cache). Remember (operator name, key, kernel) so that ``_destroy`` can undo it."""
        _check_no_meta_over_composite(self._qualified(op_name), dispatch_key)
        ### BEGIN SOLUTION
        key = _parse_key(dispatch_key)
        op = DISPATCHER.findSchemaOrThrow(self._qualified(op_name))
        fallthrough = fn is fallthrough_kernel
        kernel = KernelFunction(None if fallthrough else fn, "registered", with_keyset, fallthrough)
        op.registerKernel(key, kernel)
        self._impls.append((op.name, key, kernel))
        ### END SOLUTION

    def fallback(
        self, fn: Callable, dispatch_key: str | DispatchKey = "", *, with_keyset: bool = False
    ) -> None:
        """Task 2.3: register ``fn`` as the backend fallback of ``dispatch_key`` for EVERY
        operator (Dispatcher.cpp: registerFallback). A boxed kernel: it is called as
        ``fn(op, *args)`` (``fn(keyset, op, *args)`` with ``with_keyset``): the operator and
        its whole argument stack, whatever the operator's signature."""
        _check_fallback(self.ns, dispatch_key)
        ### BEGIN SOLUTION
        key = _parse_key(dispatch_key)
        fallthrough = fn is fallthrough_kernel
        DISPATCHER.registerFallback(
            key, KernelFunction(None if fallthrough else fn, "registered", with_keyset, fallthrough)
        )
        self._fallbacks.append(key)
        ### END SOLUTION

    def _destroy(self) -> None:
        """Given: undo every registration this library made, one at a time (each refreshes the
        table entries it touches). Every one is undone even if a refresh raises (a task not
        written yet), so nothing is left behind for the next caller; then the error is raised."""
        undo: list[Callable[[], None]] = []
        for name, key, kernel in self._impls:
            if name in DISPATCHER.operators:
                entry = DISPATCHER.operators[name]
                undo.append(lambda e=entry, k=key, f=kernel: e.deregisterKernel(k, f))
        undo += [lambda n=name: DISPATCHER.operators.pop(n, None) for name in self._defs]
        undo += [lambda k=key: DISPATCHER.deregisterFallback(k) for key in self._fallbacks]
        self._defs, self._impls, self._fallbacks = [], [], []
        failed: Exception | None = None
        for step in undo:
            try:
                step()
            except Exception as exc:  # noqa: BLE001 - re-raised once everything is undone
                failed = failed or exc
        if failed is not None:
            raise failed


# === Given: the backend fallbacks torch registers at start-up ====================================


def _register_torch_fallbacks() -> None:
    """What torch's own C++ registers (see ``_dispatch_dump_table`` of any operator):
    fallthroughs for BackendSelect, ADInplaceOrView and the Autocast keys, the autograd
    fallback (VariableFallbackKernel.cpp), the meta fallback, and the Python, Functionalize and
    PythonTLSSnapshot fallbacks."""

    def passthrough(below: Callable[[DispatchKeySet], DispatchKeySet]) -> Callable:
        def kernel(ks: DispatchKeySet, op: OperatorHandle, *args: Any) -> Any:
            return op.redispatch(below(ks), *args)

        return kernel

    def meta_fallback(op: OperatorHandle, *args: Any) -> Any:
        raise NotImplementedError(
            f"{op.name}: attempted to run this operator with Meta tensors, but there was no "
            "fake impl or Meta kernel registered."
        )

    def python_fallback(ks: DispatchKeySet, op: OperatorHandle, *args: Any) -> Any:
        # PythonFallbackKernel.cpp: pythonFallback hands the call to the PyInterpreter of its
        # first tensor argument; a plain tensor has no __torch_dispatch__ of its own, so the
        # call goes on below Python: a redispatch to the keys under it (BackendSelect, Dense),
        # with Python out of the include set and every key above Python excluded meanwhile
        # (measured on torch 2.13: a call made from there skips autograd).
        if not _tensor_args(args):
            raise NotImplementedError(
                f"{op.name}: the Python fallback found no argument with a PyInterpreter (no "
                "tensor argument); torch 2.13 stops on an internal assert "
                "(PythonFallbackKernel.cpp: pythonFallback). The lab does not model that."
            )
        funcs = functionality_keys()
        above = DispatchKeySet._of(frozenset(funcs[funcs.index(K.Python) + 1 :]), frozenset())
        tls = _local()
        with _set_tls(tls.included.remove(K.Python), tls.excluded | above):
            return op.redispatch(ks & _AfterKeyset(K.Python), *args)

    def functionalize_fallback(op: OperatorHandle, *args: Any) -> Any:
        # FunctionalizeFallbackKernel.cpp: functionalizeFallback unwraps functional tensors
        # (the lab has none) and CALLS the operator again with Functionalize excluded: a new
        # call, key set recomputed from the tensors, so the kernels above it run again.
        if not _tensor_args(args):
            raise NotImplementedError(
                f"{op.name}: with no tensor argument torch's Functionalize fallback wraps the "
                "result in a FunctionalTensorWrapper; the lab has no functional tensors."
            )
        with _ExcludeDispatchKeyGuard(DispatchKeySet(K.Functionalize)):
            return call(op, *args)

    def add(key: DispatchKey, fn: Callable | None, with_keyset: bool = False) -> None:
        kernel = KernelFunction(fn, "torch", with_keyset, fallthrough=fn is None)
        DISPATCHER.backend_fallbacks[key] = kernel

    for key in (K.BackendSelect, K.ADInplaceOrView, K.AutocastCPU, K.AutocastCUDA):
        add(key, None)
    autograd_fallback = passthrough(lambda ks: ks & _after_autograd_keyset)
    for key in AUTOGRAD_KEYS:  # one function on every backend, as in torch
        add(key, autograd_fallback, with_keyset=True)
    add(K.Python, python_fallback, with_keyset=True)
    add(K.Functionalize, functionalize_fallback)
    snapshot_fallback = passthrough(lambda ks: ks.remove(K.PythonTLSSnapshot))
    add(K.PythonTLSSnapshot, snapshot_fallback, with_keyset=True)
    add(K.Meta, meta_fallback)


def _dispatch_dump_table(name: str) -> str:
    """Given: torch._C._dispatch_dump_table: one line per runtime key that has an entry,
    ``Key: [fallthrough ]registered at <where> [kind]``."""
    op = DISPATCHER.findSchemaOrThrow(name)
    lines = []
    keys = priority_order([*BACKEND_KEYS, *_NON_BACKEND_RUNTIME_KEYS, *AUTOGRAD_KEYS])
    for k in [K.Undefined, *keys]:
        # computed afresh, as torch's dumpComputedTable does: not the cache dispatch reads
        kernel, kind = computeDispatchTableEntryWithDebug(DISPATCHER, op, k)
        if kernel is None:
            continue
        through = "fallthrough " if kernel.fallthrough else ""
        lines.append(f"{k.name}: {through}registered at {kernel.debug} [{kind}]")
    return "\n".join(lines) + "\n"


_NON_BACKEND_RUNTIME_KEYS = (
    K.BackendSelect,
    K.Python,
    K.Functionalize,
    K.ADInplaceOrView,
    K.AutocastCPU,
    K.AutocastCUDA,
    K.AutocastPrivateUse1,
    K.PythonTLSSnapshot,
)


def _dispatch_is_alias_key(k: DispatchKey) -> bool:
    """Given: torch._C._dispatch_is_alias_key."""
    return isAliasDispatchKey(k)


def _dispatch_is_included_in_alias(k: DispatchKey, alias: DispatchKey) -> bool:
    """Given: torch._C._dispatch_is_included_in_alias."""
    return isIncludedInAlias(k, alias)


# === Task 2.4: calling through the dispatcher ====================================================


class OperatorHandle:
    """What ``ops.ns.f.default`` is: a way to call one operator (torch's OpOverload)."""

    def __init__(self, name: str) -> None:
        self.name = name

    @property
    def entry(self) -> OperatorEntry:
        return DISPATCHER.findSchemaOrThrow(self.name)

    def __call__(self, *args: Any) -> Any:
        return call(self, *args)

    def redispatch(self, ks: DispatchKeySet, *args: Any) -> Any:
        return redispatch(self, ks, *args)

    def __repr__(self) -> str:
        return f"{self.name.replace('::', '.')}.default"


def _tensor_args(args: tuple) -> list[Tensor]:
    out = []
    for a in args:
        if isinstance(a, Tensor):
            out.append(a)
        elif isinstance(a, list | tuple):
            out.extend(_tensor_args(tuple(a)))
    return out


def computeDispatchKeySet(args: tuple) -> DispatchKeySet:
    """Task 2.4: the key set of a call: the union of the tensor arguments' key sets, plus the
    thread-local include set, minus the thread-local exclude set
    (aten/src/ATen/core/dispatch/DispatchKeyExtractor.h: computeDispatchKeySet)."""
    ### BEGIN SOLUTION
    ks = DispatchKeySet()
    for t in _tensor_args(args):
        ks = ks | t.key_set
    tls = _local()
    return (ks | tls.included) - tls.excluded
    ### END SOLUTION


def _highest_backend(ks: DispatchKeySet) -> DispatchKey | None:
    """Given: the highest backend bit of ``ks``, named by its Dense key; None if it has none
    (DispatchKeySet.h: highestBackendKey)."""
    held = [b for b in backend_components() if b in ks.backends]
    return held[-1] if held else None


def _without_fallthroughs(op: OperatorHandle, ks: DispatchKeySet) -> DispatchKeySet:
    """Task 2.4: ``ks`` less every key whose table entry is a fallthrough, for the backend the
    call runs on. Those keys are skipped without a call.

    DispatchKeyExtractor.h: getDispatchKeySetBoxed masks the call's set with
    nonFallthroughKeysPerBackend_[i], i the set's highest backend bit: removing a key removes
    its functionality bit for every backend, so which backend's entry decides matters. A
    fallthrough on AutogradCPU skips autograd in a call that runs on CPU; a call with a cpu and
    a meta tensor runs on Meta, and AutogradMeta's entry decides.
    """
    ### BEGIN SOLUTION
    backend = _highest_backend(ks)
    for k in list(ks):
        if toBackendComponent(k) not in (None, backend):
            continue  # another backend's entry: not part of this call's mask
        kernel, _ = op.entry.lookup(k)
        if kernel is not None and kernel.fallthrough:
            ks = ks.remove(k)
    return ks
    ### END SOLUTION


def _report_error(op: OperatorHandle, ks: DispatchKeySet) -> NotImplementedError:
    if not op.entry.checkInvariants():  # OperatorEntry.cpp: reportError checks them first
        return NotImplementedError(
            f"{op.name}: before reporting a missing kernel torch checks its cached dispatch "
            "table against a fresh computation (OperatorEntry.cpp: checkInvariants); this "
            "table has gone stale (a CompositeExplicitAutograd kernel came or went after the "
            "CompositeImplicitAutograd one), so torch 2.13 stops on an internal assert. The "
            "lab does not model that."
        )
    k = ks.highestPriorityTypeId()
    if k == K.Undefined:
        return NotImplementedError(
            "There were no tensor arguments to this function (e.g., you passed an empty list of "
            f"Tensors), but no fallback function is registered for schema {op.name}."
        )
    return NotImplementedError(
        f"Could not run '{op.name}' with arguments from the '{k.name}' backend."
    )


def _fallthrough_reached(op: OperatorHandle, k: DispatchKey) -> NotImplementedError:
    """Given: the lab's refusal where torch runs fallthrough_kernel itself."""
    return NotImplementedError(
        f"{op.name}: dispatch reached the fallthrough entry of {k.name}. Only a call skips "
        "fallthroughs (it masks them out of its key set); redispatch looks its key set up as "
        "given, and torch 2.13 then runs fallthrough_kernel, which stops on an internal assert "
        "(aten/src/ATen/core/boxing/KernelFunction.cpp). The lab does not model that."
    )


def redispatch(op: OperatorHandle, ks: DispatchKeySet, *args: Any) -> Any:
    """Task 2.4: run the kernel for the highest key of ``ks``, passing ``ks`` to a
    ``with_keyset`` kernel and the operator to a fallback. A missing entry raises
    NotImplementedError naming the operator and the key.

    Dispatcher.h: redispatch looks ``ks`` up AS GIVEN: nothing is masked, and the kernel is
    handed ``ks`` unchanged, fallthrough keys and all. (If the highest key's entry is a
    fallthrough, torch stops on an internal assert: refuse with ``_fallthrough_reached``.)
    """
    ### BEGIN SOLUTION
    k = ks.highestPriorityTypeId()
    kernel, kind = op.entry.lookup(k)
    if kernel is None:
        raise _report_error(op, ks)
    if kernel.fallthrough:
        raise _fallthrough_reached(op, k)
    if kind == "backend fallback":  # a boxed fallback also gets the operator it serves
        return kernel.fn(ks, op, *args) if kernel.with_keyset else kernel.fn(op, *args)
    return kernel.call(ks, *args)
    ### END SOLUTION


def call(op: OperatorHandle, *args: Any) -> Any:
    """Task 2.4: an unboxed call: compute the call's key set, mask the fallthroughs out of it,
    then dispatch on what is left (Dispatcher.h: Dispatcher::call gets its set from
    DispatchKeyExtractor::getDispatchKeySetUnboxed, which does both)."""
    ### BEGIN SOLUTION
    ks = computeDispatchKeySet(args)
    return redispatch(op, _without_fallthroughs(op, ks), *args)
    ### END SOLUTION


# === Given: the namespaces that make this module look like torch =================================


class _AfterKeyset(DispatchKeySet):
    """``torch._C._after_autograd_keyset`` and ``_after_ADInplaceOrView_keyset``: every key
    below a given functionality, on every backend. Computed when first used."""

    def __init__(self, below: DispatchKey) -> None:  # no super().__init__: nothing to store
        self._below = below

    def _resolve(self) -> DispatchKeySet:
        funcs = functionality_keys()
        lower = funcs[: funcs.index(self._below)]
        return DispatchKeySet._of(frozenset(lower), frozenset(backend_components()))

    def __and__(self, other: DispatchKeySet) -> DispatchKeySet:
        return self._resolve() & other

    def __rand__(self, other: DispatchKeySet) -> DispatchKeySet:
        return other & self._resolve()

    def __repr__(self) -> str:
        return repr(self._resolve())


_after_autograd_keyset = _AfterKeyset(K.AutogradFunctionality)
_after_ADInplaceOrView_keyset = _AfterKeyset(K.ADInplaceOrView)


class _OpNamespace:
    def __init__(self, ns: str) -> None:
        self._ns = ns

    def __getattr__(self, name: str) -> _OpPacket:
        if name.startswith("__"):
            raise AttributeError(name)
        return _OpPacket(f"{self._ns}::{name}")


class _OpPacket:
    """``ops.ns.f``: callable, with ``.default`` the one overload."""

    def __init__(self, name: str) -> None:
        self.default = OperatorHandle(name)

    def __call__(self, *args: Any) -> Any:
        return self.default(*args)


class _Ops:
    def __getattr__(self, ns: str) -> _OpNamespace:
        if ns.startswith("__"):
            raise AttributeError(ns)
        return _OpNamespace(ns)


ops = _Ops()
library = types.SimpleNamespace(Library=Library, fallthrough_kernel=fallthrough_kernel)
_C = types.SimpleNamespace(
    DispatchKey=DispatchKey,
    DispatchKeySet=DispatchKeySet,
    _dispatch_keys=_dispatch_keys,
    _dispatch_tls_local_include_set=_dispatch_tls_local_include_set,
    _dispatch_tls_local_exclude_set=_dispatch_tls_local_exclude_set,
    _dispatch_tls_is_dispatch_key_excluded=_dispatch_tls_is_dispatch_key_excluded,
    _dispatch_tls_is_dispatch_key_included=_dispatch_tls_is_dispatch_key_included,
    _ExcludeDispatchKeyGuard=_ExcludeDispatchKeyGuard,
    _IncludeDispatchKeyGuard=_IncludeDispatchKeyGuard,
    _dispatch_dump_table=_dispatch_dump_table,
    _dispatch_is_alias_key=_dispatch_is_alias_key,
    _dispatch_is_included_in_alias=_dispatch_is_included_in_alias,
    _after_autograd_keyset=_after_autograd_keyset,
    _after_ADInplaceOrView_keyset=_after_ADInplaceOrView_keyset,
)
_register_torch_fallbacks()
