"""Helpers shared by the week-2 cases (plain Python: they run with torch and with the engine).

A case reaches the dispatcher through torch's own names: ``lib._C.DispatchKey``,
``lib._C.DispatchKeySet``, ``lib._C._dispatch_keys``, ``lib.library.Library``,
``lib.ops.<ns>.<op>``, ``lib.inference_mode()``. With ``lib`` = torch they are torch's; with the
engine they are the learner's. Observations are key NAMES (strings), so a torch enum and an
engine enum compare equal when they name the same key.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

from autograder.observe import guard

W = "week2"

# The runtime keys of this week, and the aliases. Everything else torch has is left out of
# every comparison (torch's TLS sets hold Autocast keys for a dozen other backends).
BACKEND_KEYS = ["CPU", "CUDA", "PrivateUse1", "Meta"]
AUTOGRAD_KEYS = ["AutogradCPU", "AutogradCUDA", "AutogradPrivateUse1", "AutogradMeta"]
OTHER_KEYS = [
    "BackendSelect",
    "Python",
    "Functionalize",
    "ADInplaceOrView",
    "AutocastCPU",
    "AutocastCUDA",
    "AutocastPrivateUse1",
    "PythonTLSSnapshot",
]
RUNTIME_KEYS = BACKEND_KEYS + AUTOGRAD_KEYS + OTHER_KEYS
ALIAS_KEYS = ["Autograd", "CompositeImplicitAutograd", "CompositeExplicitAutograd"]


def key(lib: Any, name: str) -> Any:
    """The DispatchKey called ``name``."""
    return getattr(lib._C.DispatchKey, name)


def keyset(lib: Any, *names: str) -> Any:
    """``DispatchKeySet(k0) | DispatchKeySet(k1) | ...``"""
    ks = lib._C.DispatchKeySet(key(lib, names[0]))
    for n in names[1:]:
        ks = ks | lib._C.DispatchKeySet(key(lib, n))
    return ks


def names(ks: Any) -> list[str]:
    """The week's keys in a key set, in the order its repr prints them (torch's order)."""
    text = repr(ks)
    inner = text[text.index("(") + 1 : text.rindex(")")]
    return [n for n in (p.strip() for p in inner.split(",")) if n in RUNTIME_KEYS]


def highest(ks: Any) -> str | None:
    """The name of a set's highest key; None for a set that prints empty. (A set left with
    backend bits and no functionality bit gives torch's internal ``StartOfDenseBackends``:
    an accident of the bit layout, not a rule to learn.)"""
    return ks.highestPriorityTypeId().name if names(ks) else None


def parse_table(text: str) -> dict[str, str]:
    """``_dispatch_dump_table`` as ``{key: kind}`` for the week's keys: "kernel", "math kernel",
    "default backend kernel", "autograd kernel", "backend fallback", each prefixed with
    "fallthrough " for a fallthrough entry. A key with no line is "missing"."""
    table = dict.fromkeys(RUNTIME_KEYS, "missing")
    for line in text.splitlines():
        name, _, rest = line.partition(":")
        if name.strip() not in table or "[" not in rest:
            continue
        kind = rest[rest.rindex("[") + 1 : rest.rindex("]")].strip()
        through = "fallthrough " if rest.strip().startswith("fallthrough") else ""
        table[name.strip()] = through + kind
    return table


@contextlib.contextmanager
def library(lib: Any, ns: str, kind: str = "DEF") -> Iterator[Any]:
    """A ``Library`` whose registrations are undone at the end, so a namespace can be used
    again (torch's registrations are global to the process)."""
    m = lib.library.Library(ns, kind)
    try:
        yield m
    finally:
        m._destroy()


def table(lib: Any, ns: str, registrations: list[tuple[str, str]]) -> Any:
    """Define ``ns::f(Tensor x) -> Tensor``, register a kernel per (key, how) and dump the
    computed table. ``how`` is "fn" (a kernel) or "fallthrough"."""

    def run() -> dict[str, str]:
        with library(lib, ns) as m:
            m.define("f(Tensor x) -> Tensor")
            for k, how in registrations:
                fn = lib.library.fallthrough_kernel if how == "fallthrough" else _identity
                m.impl("f", fn, k)
            return parse_table(lib._C._dispatch_dump_table(f"{ns}::f"))

    return guard(run)


def _identity(x: Any) -> Any:
    return x


# The trusted torch constructions of the lab's own helpers are in autograder/truth/week2.py.
