"""Week 2 cases. Task 2.3: the operator table, its alias keys and its fallbacks.

Each case registers a fresh operator ``<ns>::f(Tensor x) -> Tensor`` in a namespace of its
own, dumps the table the dispatcher computed (``_dispatch_dump_table``) and compares, for the
week's keys, what kind of entry each key got. The registrations are undone at the end.
"""

from __future__ import annotations

from autograder import case, property_case
from autograder.observe import error_kind
from autograder.weeks.week2.common import (
    ALIAS_KEYS,
    RUNTIME_KEYS,
    W,
    guard,
    key,
    library,
    parse_table,
    table,
)

T = ("2.1", "2.2", "2.3")


@case(W, points=2, tasks=T)
def alias_key_expansion(lib):
    """Which runtime keys each alias serves (DispatchKeySet.cpp: getRuntimeDispatchKeySet):
    Autograd -> every AutogradX, CompositeExplicitAutograd -> every backend key,
    CompositeImplicitAutograd -> both."""
    return {
        alias: guard(
            lambda alias=alias: [
                n
                for n in RUNTIME_KEYS
                if lib._C._dispatch_is_included_in_alias(key(lib, n), key(lib, alias))
            ]
        )
        for alias in ALIAS_KEYS
    }


@case(W, points=2, tasks=("2.1", "2.3"))
def table_backend_kernel_only(lib):
    """Only a CPU kernel: CPU is "kernel"; the other keys get torch's backend fallbacks
    (the autograd fallback, the meta fallback, the fallthroughs) or nothing."""
    return {"CPU": table(lib, "lab2_tab_cpu", [("CPU", "fn")])}


@case(W, points=2, tasks=T)
def table_composite_implicit_only(lib):
    """A CompositeImplicitAutograd kernel serves every backend and every autograd key."""
    return {
        "CompositeImplicitAutograd": table(
            lib, "lab2_tab_cia", [("CompositeImplicitAutograd", "fn")]
        ),
        'impl with key ""': table(lib, "lab2_tab_cia_default", [("", "fn")]),
    }


@case(W, points=2, tasks=T)
def table_composite_explicit_only(lib):
    """A CompositeExplicitAutograd kernel is every backend's "default backend kernel";
    autograd keys keep the autograd fallback."""
    return {
        "CompositeExplicitAutograd": table(
            lib, "lab2_tab_cea", [("CompositeExplicitAutograd", "fn")]
        )
    }


@case(W, points=2, tasks=T)
def table_autograd_alias(lib):
    """An Autograd kernel fills every AutogradX key; backends still need their own."""
    return {
        "Autograd + CPU": table(lib, "lab2_tab_ag", [("Autograd", "fn"), ("CPU", "fn")]),
        "AutogradCPU directly + Autograd": table(
            lib, "lab2_tab_ag2", [("Autograd", "fn"), ("AutogradCPU", "fn")]
        ),
    }


@case(W, points=3, tasks=T)
def table_direct_kernel_beats_composite(lib):
    """A direct backend kernel beats a composite; and once a backend has its own kernel, its
    autograd key no longer takes the CompositeImplicitAutograd kernel (it would hide the
    backend kernel from autograd)."""
    return {
        "CPU + CompositeImplicitAutograd": table(
            lib, "lab2_tab_mix1", [("CPU", "fn"), ("CompositeImplicitAutograd", "fn")]
        ),
        "Meta + CompositeExplicitAutograd": table(
            lib, "lab2_tab_mix2", [("Meta", "fn"), ("CompositeExplicitAutograd", "fn")]
        ),
        "CompositeExplicitAutograd + CompositeImplicitAutograd": table(
            lib,
            "lab2_tab_mix3",
            [("CompositeExplicitAutograd", "fn"), ("CompositeImplicitAutograd", "fn")],
        ),
    }


@case(W, points=2, tasks=T)
def table_everything_registered(lib):
    """Kernels on CPU, Meta, Autograd and both composites: each key's winner. (torch.library
    refuses a Meta kernel once a CompositeImplicitAutograd one exists: Meta comes first.)"""
    regs = [
        ("Meta", "fn"),
        ("CompositeImplicitAutograd", "fn"),
        ("CompositeExplicitAutograd", "fn"),
        ("Autograd", "fn"),
        ("CPU", "fn"),
    ]
    refused = [("CompositeImplicitAutograd", "fn"), ("Meta", "fn")]
    return {
        "all": table(lib, "lab2_tab_all", regs),
        "Meta after CompositeImplicitAutograd": table(lib, "lab2_tab_all2", refused),
    }


@case(W, points=2, tasks=T)
def table_fallthrough_kernels(lib):
    """``fallthrough_kernel`` registered on a key makes that key's entry a fallthrough: the
    dispatcher skips it and looks at the next key."""
    return {
        "fallthrough on AutogradCPU": table(
            lib, "lab2_tab_ft1", [("CPU", "fn"), ("AutogradCPU", "fallthrough")]
        ),
        "fallthrough on Autograd": table(
            lib, "lab2_tab_ft2", [("CPU", "fn"), ("Autograd", "fallthrough")]
        ),
        "fallthrough on Python": table(lib, "lab2_tab_ft3", [("Python", "fallthrough")]),
    }


@case(W, points=2, tasks=("2.1", "2.3"))
def table_kernels_on_non_backend_keys(lib):
    """Kernels on ADInplaceOrView, BackendSelect and AutocastCPU replace torch's fallthrough
    fallbacks for this operator only."""
    regs = [("ADInplaceOrView", "fn"), ("BackendSelect", "fn"), ("AutocastCPU", "fn")]
    return {"non-backend kernels": table(lib, "lab2_tab_nb", regs)}


@case(W, points=2, tasks=("2.1", "2.3"))
def table_backend_fallback(lib):
    """``Library(ns, "IMPL").fallback(fn, key)`` fills ``key`` for every operator that has no
    kernel of its own there ("backend fallback"); undone by ``_destroy``."""

    def run():
        with library(lib, "lab2_tab_fb") as m:
            m.define("f(Tensor x) -> Tensor")
            m.impl("f", lambda x: x, "CPU")
            before = parse_table(lib._C._dispatch_dump_table("lab2_tab_fb::f"))
            with library(lib, "_", "IMPL") as g:
                g.fallback(lambda *args: None, "AutocastPrivateUse1")
                during = parse_table(lib._C._dispatch_dump_table("lab2_tab_fb::f"))
            after = parse_table(lib._C._dispatch_dump_table("lab2_tab_fb::f"))
            m.impl("f", lambda x: x, "AutocastPrivateUse1")
            own = parse_table(lib._C._dispatch_dump_table("lab2_tab_fb::f"))
        return {
            "before": before["AutocastPrivateUse1"],
            "with the fallback": during["AutocastPrivateUse1"],
            "after _destroy": after["AutocastPrivateUse1"],
            "own kernel": own["AutocastPrivateUse1"],
        }

    return {"cpu only": table(lib, "lab2_tab_fb0", [("CPU", "fn")]), "fallback": guard(run)}


@case(W, points=1, tasks=("2.1", "2.3"))
def define_twice_is_an_error(lib):
    """An operator is defined once; a second ``define`` of the same name raises."""

    def run():
        with library(lib, "lab2_def_twice") as m:
            m.define("f(Tensor x) -> Tensor")
            with library(lib, "lab2_def_twice", "FRAGMENT") as m2:
                m2.define("f(Tensor x) -> Tensor")
        return "defined twice"

    def kind_only():
        try:
            return run()
        except Exception as exc:  # noqa: BLE001 - torch's message names its own source line
            return {"raised": error_kind(exc)}

    return {"cpu only": table(lib, "lab2_def_once", [("CPU", "fn")]), "twice": kind_only()}


@case(W, points=2, tasks=T)
def included_in_alias_of_a_runtime_key(lib):
    """``_dispatch_is_included_in_alias(k, a)`` is ``k != Undefined and
    getRuntimeDispatchKeySet(a).has(k)`` (c10/core/DispatchKeySet.cpp: isIncludedInAlias), and
    ``getRuntimeDispatchKeySet`` of a key that is not an alias is the set of that key alone:
    a runtime key "stands for" itself and nothing else. Undefined is in no alias, although
    every set ``has`` it."""
    included = lib._C._dispatch_is_included_in_alias
    return {
        "first": guard(lambda: bool(included(key(lib, "CPU"), key(lib, "CPU")))),
        **{
            a: guard(lambda a=a: [n for n in RUNTIME_KEYS if included(key(lib, n), key(lib, a))])
            for a in RUNTIME_KEYS
        },
        "Undefined in": guard(
            lambda: {
                a: bool(included(key(lib, "Undefined"), key(lib, a)))
                for a in (*ALIAS_KEYS, "CPU", "AutogradCPU", "Python")
            }
        ),
    }


@case(W, points=1, tasks=("2.3",))
def define_returns_the_operator_name(lib):
    """``Library.define(schema)`` returns the operator's name as the schema spells it: "f",
    without the library's namespace (torch/library.py: define returns what the C++ binding
    gives back, ``torch::schema(schema).name()``: torch/csrc/utils/python_dispatch.cpp)."""

    def run():
        with library(lib, "lab2_def_name") as m:
            return [m.define("f(Tensor x) -> Tensor"), m.define("g(int n, Tensor[] xs) -> Tensor")]

    return {"define f, g": guard(run)}


@case(W, points=2, tasks=T)
def table_fallthrough_fallback(lib):
    """``fallback(fallthrough_kernel, key)`` registers a fallthrough as the backend fallback:
    the key's entry reads "fallthrough ... [backend fallback]" for every operator that has no
    kernel of its own there, as torch's own BackendSelect and ADInplaceOrView fallbacks do
    (aten/src/ATen/core/library.cpp: Library::_fallback keeps the CppFunction, and
    torch/csrc/utils/python_dispatch.cpp makes ``fallthrough_kernel`` a
    ``CppFunction::makeFallthrough()``). ``_destroy`` undoes it."""
    keys = ("CPU", "AutogradCPU", "AutocastPrivateUse1")

    def run():
        out = {}
        with library(lib, "lab2_tab_ftfb") as m:
            m.define("f(Tensor x) -> Tensor")
            m.impl("f", lambda x: x, "Autograd")

            def dump():
                rows = parse_table(lib._C._dispatch_dump_table("lab2_tab_ftfb::f"))
                return {k: rows[k] for k in keys}

            out["before"] = dump()
            with library(lib, "_", "IMPL") as g:
                g.fallback(lib.library.fallthrough_kernel, "CPU")
                g.fallback(lib.library.fallthrough_kernel, "AutocastPrivateUse1")
                out["with the fallthrough fallbacks"] = dump()
            out["after _destroy"] = dump()
        return out

    return {"Autograd only": table(lib, "lab2_tab_ftfb0", [("Autograd", "fn")]), "run": guard(run)}


_CHOICES = [
    "CPU",
    "Meta",
    "CUDA",
    "AutogradCPU",
    "ADInplaceOrView",
    "Autograd",
    "CompositeImplicitAutograd",
    "CompositeExplicitAutograd",
]


def _registrations():
    from hypothesis import strategies as st

    reg = st.tuples(st.sampled_from(_CHOICES), st.sampled_from(["fn", "fn", "fallthrough"]))
    return st.lists(reg, min_size=1, max_size=4, unique_by=lambda r: r[0])


def _reg_label(regs):
    return ", ".join(f"{k}{'(fallthrough)' if how == 'fallthrough' else ''}" for k, how in regs)


@property_case(W, _registrations, n=25, points=3, tasks=T, label=_reg_label)
def random_registrations(lib, regs):
    """Random sets of registrations; the computed table for every key of the week."""
    return table(lib, "lab2_tab_random", [tuple(r) for r in regs])
