"""Week 2 cases. Task 2.1: the dispatch keys and their priority."""

from __future__ import annotations

from autograder import case, property_case
from autograder.weeks.week2.common import (
    ALIAS_KEYS,
    AUTOGRAD_KEYS,
    BACKEND_KEYS,
    OTHER_KEYS,
    RUNTIME_KEYS,
    W,
    guard,
    key,
)


def _order(lib, *names):
    return guard(lambda: [k.name for k in lib.priority_order([key(lib, n) for n in names])])


@case(W, points=2, tasks=("2.1",))
def priority_of_backends(lib):
    """Between backends of one functionality the later bit wins: CPU < CUDA < PrivateUse1 <
    Meta (the BackendComponent order, not the DispatchKey numbers)."""
    return {
        "CPU, CUDA, PrivateUse1, Meta": _order(lib, "Meta", "CPU", "PrivateUse1", "CUDA"),
        "CPU, Meta": _order(lib, "Meta", "CPU"),
        "CUDA, PrivateUse1": _order(lib, "PrivateUse1", "CUDA"),
    }


@case(W, points=2, tasks=("2.1",))
def priority_of_functionality_keys(lib):
    """The keys with no backend, lowest first: BackendSelect ... PythonTLSSnapshot."""
    return {
        "all of them": _order(lib, *reversed(OTHER_KEYS)),
        "ADInplaceOrView, BackendSelect": _order(lib, "ADInplaceOrView", "BackendSelect"),
        "Autocast keys": _order(lib, "AutocastPrivateUse1", "AutocastCPU", "AutocastCUDA"),
        "PythonTLSSnapshot, Python": _order(lib, "PythonTLSSnapshot", "Python"),
    }


@case(W, points=2, tasks=("2.1",))
def priority_autograd_above_backend(lib):
    """Autograd runs before ADInplaceOrView, which runs before the backend kernel."""
    return {
        "CPU family": _order(lib, "AutogradCPU", "CPU", "ADInplaceOrView", "AutocastCPU"),
        "Meta family": _order(lib, "AutogradMeta", "ADInplaceOrView", "Meta"),
        "autograd keys": _order(lib, *reversed(AUTOGRAD_KEYS)),
        "Functionalize vs AutogradCPU": _order(lib, "AutogradCPU", "Functionalize"),
    }


@case(W, points=2, tasks=("2.1",))
def priority_across_backends(lib):
    """Functionality first, backend second: AutogradCPU beats Meta although the Meta bit is
    higher than the CPU bit; among two Autograd keys the backend decides."""
    return {
        "Meta vs AutogradCPU": _order(lib, "AutogradCPU", "Meta"),
        "CUDA vs AutogradCPU": _order(lib, "AutogradCPU", "CUDA"),
        "AutogradMeta vs AutocastCPU": _order(lib, "AutocastCPU", "AutogradMeta"),
        "PrivateUse1 vs AutogradCUDA vs BackendSelect": _order(
            lib, "AutogradCUDA", "BackendSelect", "PrivateUse1"
        ),
    }


@case(W, points=1, tasks=("2.1",))
def alias_keys_are_aliases(lib):
    """Aliases (Autograd, CompositeImplicitAutograd, CompositeExplicitAutograd) are never in a
    key set; every runtime key is not an alias."""
    first = guard(lambda: [k.name for k in lib.priority_order([key(lib, "CPU")])])
    return {
        "priority_order([CPU])": first,
        **{
            n: guard(lambda n=n: lib._C._dispatch_is_alias_key(key(lib, n)))
            for n in ALIAS_KEYS + RUNTIME_KEYS
        },
    }


def _key_lists():
    from hypothesis import strategies as st

    return st.lists(st.sampled_from(RUNTIME_KEYS), min_size=2, max_size=6, unique=True)


@property_case(W, _key_lists, n=25, points=2, tasks=("2.1",), label=", ".join)
def random_priority_order(lib, keys):
    """Random lists of runtime keys, sorted by priority."""
    return _order(lib, *keys)


__all__ = ["BACKEND_KEYS"]
