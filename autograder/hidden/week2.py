"""Week 2 hidden cases: variations on the public ones, run only when grading.

Each checks a rule a public case also checks, on inputs the public cases do not use: every
pair of keys, longer key-set programs, nested inference modes, and random registrations
called through the dispatcher.
"""

from __future__ import annotations

from autograder import case, property_case
from autograder.weeks.week2.calls import chains
from autograder.weeks.week2.common import RUNTIME_KEYS, W, guard, highest, key, names

T = ("2.1", "2.2", "2.3", "2.4")


@case(W, points=2, tasks=("2.1",), hidden=True)
def hidden_priority_of_every_pair(lib):
    """Every pair of runtime keys, sorted by priority."""
    pairs = [(a, b) for i, a in enumerate(RUNTIME_KEYS) for b in RUNTIME_KEYS[i + 1 :]]
    return {
        f"{a}, {b}": guard(
            lambda a=a, b=b: [k.name for k in lib.priority_order([key(lib, b), key(lib, a)])]
        )
        for a, b in pairs
    }


@case(W, points=2, tasks=("2.1", "2.2"), hidden=True)
def hidden_nested_inference_modes(lib):
    """``inference_mode(False)`` inside ``inference_mode()`` brings autograd back, for the TLS
    sets and for the tensors made there."""

    def tls():
        return [
            names(lib._C._dispatch_tls_local_include_set()),
            names(lib._C._dispatch_tls_local_exclude_set()),
        ]

    def scene():
        out = {}
        with lib.inference_mode():
            out["inside"] = tls()
            with lib.inference_mode(False):
                out["inside inference_mode(False)"] = tls()
                out["meta made there"] = repr(lib._C._dispatch_keys(lib.empty(2, device="meta")))
            out["back inside"] = tls()
            out["meta made inside"] = repr(lib._C._dispatch_keys(lib.empty(2, device="meta")))
        return out

    return {"cpu": guard(lambda: repr(lib._C._dispatch_keys(lib.empty(2)))), "scene": guard(scene)}


def _step(lib, ks, op, k):
    """One step of a key-set program."""
    if op == "add":
        return ks.add(key(lib, k))
    if op == "remove":
        return ks.remove(key(lib, k))
    one = lib._C.DispatchKeySet(key(lib, k))
    return {"|": ks | one, "&": ks & one, "-": ks - one}[op] if op in "|&-" else ks


def _long_programs():
    from hypothesis import strategies as st

    step = st.tuples(
        st.sampled_from(["add", "remove", "|", "&", "-"]), st.sampled_from(RUNTIME_KEYS)
    )
    return st.tuples(
        st.lists(st.sampled_from(RUNTIME_KEYS), min_size=1, max_size=4),
        st.lists(step, min_size=4, max_size=10),
    )


@property_case(
    W,
    _long_programs,
    n=25,
    points=3,
    tasks=("2.1", "2.2"),
    hidden=True,
    label=lambda ex: f"{'|'.join(ex[0])} " + " ".join(f"{o} {k}" for o, k in ex[1]),
)
def hidden_random_keyset_programs(lib, example):
    """Longer chains from a union of keys: the final set, its has() for every key and its
    highest key."""
    start, steps = example

    def run():
        ks = lib._C.DispatchKeySet(key(lib, start[0]))
        for n in start[1:]:
            ks = ks | lib._C.DispatchKeySet(key(lib, n))
        for op, k in steps:
            ks = _step(lib, ks, op, k)
        return {
            "repr": repr(ks),
            "has": [n for n in RUNTIME_KEYS if ks.has(key(lib, n))],
            "highest": highest(ks),
        }

    return guard(run)


_KERNELS = [
    "Autograd",
    "AutogradCPU",
    "ADInplaceOrView",
    "CPU",
    "Meta",
    "CompositeExplicitAutograd",
    "CompositeImplicitAutograd",
    "fallthrough:AutogradCPU",
    "fallthrough:Autograd",
    "fallthrough:ADInplaceOrView",
]


def _kernel_sets():
    from hypothesis import strategies as st

    return st.lists(
        st.sampled_from(_KERNELS), min_size=1, max_size=4, unique_by=lambda k: k.split(":")[-1]
    )


@property_case(
    W, _kernel_sets, n=25, points=3, tasks=T, hidden=True, label=lambda ks: ", ".join(ks)
)
def hidden_random_registrations_called(lib, kernels):
    """Random recording kernels; the chain a cpu call, a meta call and an inference-mode call
    run (or the error each raises).

    Registered in a fixed order (CompositeExplicitAutograd before CompositeImplicitAutograd):
    torch 2.13 does not refresh the autograd entries when a CompositeExplicitAutograd kernel
    comes after a CompositeImplicitAutograd one (OperatorEntry.cpp: updateDispatchTable_ only
    refreshes AutogradX for a backend key), so its calls then disagree with its own
    ``_dispatch_dump_table``: an accident, not a rule to learn.
    """
    kernels = sorted(kernels, key=_KERNELS.index)

    def in_inference(f):
        with lib.inference_mode():
            return f(lib.empty(2))

    scenes = {
        "cpu": lambda f: f(lib.empty(2)),
        "meta": lambda f: f(lib.empty(2, device="meta")),
        "cpu in inference_mode": in_inference,
    }
    return chains(lib, "lab2_hidden_random", kernels, scenes)


@case(W, points=3, tasks=T, hidden=True)
def hidden_random_programs_from_the_differential_generator(lib):
    """Twenty programs from the generator the reference is held to (autograder/differential/
    week2.py), with seeds the differential run does not use: key sets, guards, registrations,
    fallthroughs, fallbacks and redispatch, all together."""
    import random

    from autograder.differential import week2 as gen

    return [gen.execute(lib, gen.generate(random.Random(f"hidden:{i}"))) for i in range(20)]
