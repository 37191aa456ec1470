"""Week 2 cases. Task 2.2: key sets, the key set of a tensor, the thread-local sets."""

from __future__ import annotations

from autograder import case, property_case
from autograder.weeks.week2.common import (
    ALIAS_KEYS,
    RUNTIME_KEYS,
    W,
    guard,
    highest,
    key,
    keyset,
    names,
)


def _repr(fn):
    return guard(lambda: repr(fn()))


@case(W, points=1, tasks=("2.1", "2.2"))
def keyset_of_one_key(lib):
    """``DispatchKeySet(k)`` prints ``DispatchKeySet(k)``; an alias or Undefined gives the
    empty set."""
    out = {n: _repr(lambda n=n: lib._C.DispatchKeySet(key(lib, n))) for n in RUNTIME_KEYS}
    for n in ("Autograd", "CompositeImplicitAutograd", "Undefined"):
        out[n] = _repr(lambda n=n: lib._C.DispatchKeySet(key(lib, n)))
    return out


@case(W, points=2, tasks=("2.1", "2.2"))
def keyset_add_prints_in_priority_order(lib):
    """Whatever order keys are added in, a set prints lowest priority first."""
    return {
        "CPU + ADInplaceOrView + AutogradCPU + AutocastCPU": _repr(
            lambda: keyset(lib, "AutocastCPU", "AutogradCPU", "CPU", "ADInplaceOrView")
        ),
        "add chain": _repr(
            lambda: (
                lib._C.DispatchKeySet(key(lib, "PythonTLSSnapshot"))
                .add(key(lib, "BackendSelect"))
                .add(key(lib, "Python"))
                .add(key(lib, "Functionalize"))
            )
        ),
        "add twice": _repr(lambda: lib._C.DispatchKeySet(key(lib, "Meta")).add(key(lib, "Meta"))),
    }


@case(W, points=2, tasks=("2.1", "2.2"))
def keyset_union_shares_backend_bits(lib):
    """A set is functionality bits x backend bits: CPU | AutogradMeta also holds Meta and
    AutogradCPU, exactly as torch prints it."""
    return {
        "CPU | AutogradMeta": _repr(lambda: keyset(lib, "CPU", "AutogradMeta")),
        "CPU.add(AutogradCUDA)": _repr(
            lambda: lib._C.DispatchKeySet(key(lib, "CPU")).add(key(lib, "AutogradCUDA"))
        ),
        "CPU | CUDA": _repr(lambda: keyset(lib, "CPU", "CUDA")),
        "AutogradCPU | AutocastCUDA": _repr(lambda: keyset(lib, "AutogradCPU", "AutocastCUDA")),
        "Meta | PrivateUse1 | AutogradCPU": _repr(
            lambda: keyset(lib, "Meta", "PrivateUse1", "AutogradCPU")
        ),
    }


@case(W, points=2, tasks=("2.1", "2.2"))
def keyset_remove_strips_functionality(lib):
    """``remove`` drops a key's functionality bit and keeps its backend bit."""
    full = lambda: keyset(lib, "CPU", "ADInplaceOrView", "AutogradCPU", "AutocastCPU")  # noqa: E731
    steps = ["AutocastCPU", "AutogradCPU", "ADInplaceOrView", "CPU"]

    def strip():
        ks, out = full(), []
        for n in steps:
            ks = ks.remove(key(lib, n))
            out.append(repr(ks))
        return out

    return {
        "full": _repr(full),
        "stripping one at a time": guard(strip),
        "(CPU | CUDA).remove(CPU)": _repr(
            lambda: keyset(lib, "CPU", "CUDA").remove(key(lib, "CPU"))
        ),
        "AutogradCPU.remove(AutogradCUDA)": _repr(
            lambda: lib._C.DispatchKeySet(key(lib, "AutogradCPU")).remove(key(lib, "AutogradCUDA"))
        ),
        "remove a key not there": _repr(
            lambda: keyset(lib, "CPU", "Python").remove(key(lib, "BackendSelect"))
        ),
    }


@case(W, points=2, tasks=("2.1", "2.2"))
def keyset_has(lib):
    """``has(k)``: all of k's bits are in the set, so (CPU | AutogradMeta) has AutogradCPU."""
    sets = {
        "cpu tensor keys": lambda: keyset(lib, "CPU", "ADInplaceOrView", "AutogradCPU"),
        "CPU | AutogradMeta": lambda: keyset(lib, "CPU", "AutogradMeta"),
        "Python | Meta": lambda: keyset(lib, "Python", "Meta"),
    }
    queries = [
        "CPU",
        "Meta",
        "AutogradCPU",
        "AutogradMeta",
        "AutogradCUDA",
        "Python",
        "ADInplaceOrView",
    ]
    return {
        name: guard(lambda make=make: {q: make().has(key(lib, q)) for q in queries})
        for name, make in sets.items()
    }


@case(W, points=2, tasks=("2.1", "2.2"))
def keyset_highest_priority(lib):
    """``highestPriorityTypeId``: the key the dispatcher runs first."""
    sets = {
        "cpu tensor keys": ("CPU", "ADInplaceOrView", "AutogradCPU", "AutocastCPU"),
        "cpu tensor keys, autocast excluded": ("CPU", "ADInplaceOrView", "AutogradCPU"),
        "meta tensor keys": ("Meta", "ADInplaceOrView", "AutogradMeta"),
        "CPU | Meta": ("CPU", "Meta"),
        "CPU | AutogradMeta": ("CPU", "AutogradMeta"),
        "BackendSelect | CPU": ("BackendSelect", "CPU"),
        "Python | PythonTLSSnapshot | AutogradCUDA": (
            "Python",
            "PythonTLSSnapshot",
            "AutogradCUDA",
        ),
    }
    return {
        name: guard(lambda ks=ks: keyset(lib, *ks).highestPriorityTypeId().name)
        for name, ks in sets.items()
    }


@case(W, points=2, tasks=("2.1", "2.2"))
def keyset_and_and_minus(lib):
    """``&`` keeps common bits; ``-`` removes functionality bits only (backend bits stay)."""
    tensor = lambda: keyset(lib, "CPU", "ADInplaceOrView", "AutogradCPU", "AutocastCPU")  # noqa: E731
    return {
        "tensor & (CPU | AutogradCPU)": _repr(lambda: tensor() & keyset(lib, "CPU", "AutogradCPU")),
        "tensor & Meta": _repr(lambda: tensor() & keyset(lib, "Meta")),
        "tensor - AutogradMeta": _repr(lambda: tensor() - keyset(lib, "AutogradMeta")),
        "tensor - AutocastCPU": _repr(lambda: tensor() - keyset(lib, "AutocastCPU")),
        "(CPU | Meta) - CPU": _repr(lambda: keyset(lib, "CPU", "Meta") - keyset(lib, "CPU")),
        "(CPU | Python) & (Meta | Python)": _repr(
            lambda: keyset(lib, "CPU", "Python") & keyset(lib, "Meta", "Python")
        ),
    }


@case(W, points=2, tasks=("2.1", "2.2"))
def tensor_keys_by_device(lib):
    """A fresh tensor's keys: its backend, ADInplaceOrView, its Autograd key and its Autocast
    key (none for Meta). ``requires_grad`` changes nothing."""
    return {
        "cpu": _repr(lambda: lib._C._dispatch_keys(lib.empty(2))),
        "cpu, requires_grad": _repr(
            lambda: lib._C._dispatch_keys(lib.empty(2, requires_grad=True))
        ),
        "meta": _repr(lambda: lib._C._dispatch_keys(lib.empty(2, device="meta"))),
        "meta, requires_grad": _repr(
            lambda: lib._C._dispatch_keys(lib.empty(2, device="meta", requires_grad=True))
        ),
        "tensor_key_set('cpu')": _repr(lambda: lib.tensor_key_set("cpu")),
        "tensor_key_set('meta')": _repr(lambda: lib.tensor_key_set("meta")),
    }


@case(W, points=2, tasks=("2.1", "2.2"))
def tensor_keys_in_inference_mode(lib):
    """Made inside ``inference_mode``: no ADInplaceOrView, no Autograd key. A tensor made
    outside keeps its keys inside."""

    def inside():
        outside = lib.empty(2)
        with lib.inference_mode():
            made = lib.empty(2)
            meta = lib.empty(2, device="meta")
            return {
                "cpu made inside": repr(lib._C._dispatch_keys(made)),
                "meta made inside": repr(lib._C._dispatch_keys(meta)),
                "cpu made outside": repr(lib._C._dispatch_keys(outside)),
            }

    return {
        "cpu": _repr(lambda: lib._C._dispatch_keys(lib.empty(2))),
        "inside": guard(inside),
        "tensor_key_set('cpu', inference=True)": _repr(lambda: lib.tensor_key_set("cpu", True)),
        "tensor_key_set('meta', inference=True)": _repr(lambda: lib.tensor_key_set("meta", True)),
    }


def _tls(lib):
    return {
        "include": names(lib._C._dispatch_tls_local_include_set()),
        "exclude": names(lib._C._dispatch_tls_local_exclude_set()),
    }


@case(W, points=2, tasks=("2.1", "2.2"))
def tls_sets_by_default_and_in_no_grad(lib):
    """A thread starts including BackendSelect and ADInplaceOrView and excluding Autocast;
    ``no_grad`` changes nothing in dispatch."""

    def in_no_grad():
        with lib.no_grad():
            return _tls(lib)

    return {"default": guard(lambda: _tls(lib)), "no_grad": guard(in_no_grad)}


@case(W, points=2, tasks=("2.1", "2.2"))
def tls_sets_in_inference_mode(lib):
    """``inference_mode`` drops ADInplaceOrView from the include set and excludes the Autograd
    functionality; leaving it restores both, also when nested."""

    def scene():
        out = {}
        with lib.inference_mode():
            out["inside"] = _tls(lib)
            x = lib.empty(2)
            out["AutogradCPU excluded? (only the functionality bit is)"] = (
                lib._C._dispatch_tls_is_dispatch_key_excluded(key(lib, "AutogradCPU"))
            )
            out["cpu tensor keys - exclude set"] = names(
                lib._C._dispatch_keys(x) - lib._C._dispatch_tls_local_exclude_set()
            )
            with lib.inference_mode():
                out["nested"] = _tls(lib)
            out["after nested"] = _tls(lib)
        out["after"] = _tls(lib)
        return out

    return {"default": guard(lambda: _tls(lib)), "scene": guard(scene)}


@case(W, points=2, tasks=("2.1", "2.2"))
def tls_exclude_and_include_guards(lib):
    """``_ExcludeDispatchKeyGuard(ks)`` adds ``ks`` to the exclude set and
    ``_IncludeDispatchKeyGuard(k)`` adds ``k`` to the include set, until the block ends."""

    def scene():
        out = {}
        with lib._C._ExcludeDispatchKeyGuard(keyset(lib, "AutogradCPU")):
            out["exclude AutogradCPU"] = _tls(lib)
            out["AutogradCPU excluded?"] = lib._C._dispatch_tls_is_dispatch_key_excluded(
                key(lib, "AutogradCPU")
            )
            out["AutogradMeta excluded?"] = lib._C._dispatch_tls_is_dispatch_key_excluded(
                key(lib, "AutogradMeta")
            )
            with lib._C._IncludeDispatchKeyGuard(key(lib, "Python")):
                out["and include Python"] = _tls(lib)
                out["Python included?"] = lib._C._dispatch_tls_is_dispatch_key_included(
                    key(lib, "Python")
                )
            out["after include"] = _tls(lib)
        out["after exclude"] = _tls(lib)
        with lib._C._ExcludeDispatchKeyGuard(keyset(lib, "ADInplaceOrView", "Functionalize")):
            out["exclude ADInplaceOrView | Functionalize"] = _tls(lib)
        return out

    return {"default": guard(lambda: _tls(lib)), "scene": guard(scene)}


@case(W, points=2, tasks=("2.1", "2.2"))
def call_keyset_from_tensor_and_tls(lib):
    """The key set of a call: (tensor keys | include) - exclude, computed by hand with the
    set operations (DispatchKeyExtractor.h: computeDispatchKeySet)."""

    def call_keys(t):
        inc = lib._C._dispatch_tls_local_include_set()
        exc = lib._C._dispatch_tls_local_exclude_set()
        return repr((lib._C._dispatch_keys(t) | inc) - exc)

    def scene():
        x = lib.empty(2)
        m = lib.empty(2, device="meta")
        out = {"cpu": call_keys(x), "meta": call_keys(m)}
        with lib.inference_mode():
            out["cpu in inference_mode"] = call_keys(x)
        with lib._C._ExcludeDispatchKeyGuard(keyset(lib, "AutogradMeta")):
            out["cpu excluding AutogradMeta"] = call_keys(x)
        return out

    return {"cpu tensor": _repr(lambda: lib._C._dispatch_keys(lib.empty(2))), "calls": guard(scene)}


def _keyset_programs():
    from hypothesis import strategies as st

    step = st.tuples(
        st.sampled_from(["add", "remove", "|", "&", "-"]), st.sampled_from(RUNTIME_KEYS)
    )
    return st.tuples(st.sampled_from(RUNTIME_KEYS), st.lists(step, min_size=1, max_size=6))


def _program_label(example):
    start, steps = example
    return f"{start} " + " ".join(f"{op} {k}" for op, k in steps)


@property_case(W, _keyset_programs, n=30, points=3, tasks=("2.1", "2.2"), label=_program_label)
def random_keyset_programs(lib, example):
    """Random chains of add / remove / | / & / - from one key; each step's repr, and the
    highest key at the end."""
    start, steps = example

    def run():
        ks = lib._C.DispatchKeySet(key(lib, start))
        out = []
        for op, k in steps:
            if op == "add":
                ks = ks.add(key(lib, k))
            elif op == "remove":
                ks = ks.remove(key(lib, k))
            elif op == "|":
                ks = ks | lib._C.DispatchKeySet(key(lib, k))
            elif op == "&":
                ks = ks & lib._C.DispatchKeySet(key(lib, k))
            else:
                ks = ks - lib._C.DispatchKeySet(key(lib, k))
            out.append(repr(ks))
        out.append(highest(ks))
        return out

    return guard(run)


@case(W, points=2, tasks=("2.1", "2.2"))
def tls_inference_mode_turns_grad_off(lib):
    """``inference_mode()`` is a stricter ``no_grad``: inside, ``is_grad_enabled()`` is False
    (c10/core/InferenceMode.h sets grad mode to ``not mode``); ``inference_mode(False)`` turns
    it back on, even inside ``no_grad``; leaving either block restores it."""

    def grad():
        return [bool(lib.is_grad_enabled()), bool(lib.is_inference_mode_enabled())]

    def scene():
        out = {"outside": grad()}
        with lib.inference_mode():
            out["inference_mode()"] = grad()
            with lib.inference_mode(False):
                out["inference_mode(False) inside it"] = grad()
            out["back in inference_mode()"] = grad()
        with lib.no_grad():
            out["no_grad()"] = grad()
            with lib.inference_mode(False):
                out["inference_mode(False) inside no_grad()"] = grad()
            out["back in no_grad()"] = grad()
        out["after"] = grad()
        return out

    return {"default": guard(lambda: _tls(lib)), "[is_grad_enabled, inference]": guard(scene)}


@case(W, points=2, tasks=("2.1", "2.2"))
def keyset_of_undefined_or_alias_is_empty(lib):
    """``DispatchKeySet(Undefined)`` and ``DispatchKeySet(alias)`` hold no bit at all
    (c10/core/DispatchKeySet.h: the ``DispatchKeySet(DispatchKey)`` constructor leaves every
    bit off for Undefined and for a key past the runtime keys). So the set's highest key is
    Undefined, a union with it changes nothing, and every set ``has`` it (``has`` is
    ``has_all``, and a set holds all of no bits)."""
    cpu = lambda: lib._C.DispatchKeySet(key(lib, "CPU"))  # noqa: E731
    tensor = lambda: keyset(lib, "CPU", "ADInplaceOrView", "AutogradCPU")  # noqa: E731

    def facts(n):
        ks = lambda: lib._C.DispatchKeySet(key(lib, n))  # noqa: E731
        return {
            "highestPriorityTypeId": guard(lambda: ks().highestPriorityTypeId().name),
            "CPU | it == CPU": guard(lambda: bool((cpu() | ks()) == cpu())),
            "it == Python - Python": guard(
                lambda: bool(ks() == keyset(lib, "Python") - keyset(lib, "Python"))
            ),
            "DispatchKeySet(CPU).has(it)": guard(lambda: bool(cpu().has(key(lib, n)))),
            "cpu tensor keys.has(it)": guard(lambda: bool(tensor().has(key(lib, n)))),
            "repr(cpu tensor keys | it)": _repr(lambda: tensor() | ks()),
        }

    return {"first": _repr(cpu), **{n: facts(n) for n in ("Undefined", *ALIAS_KEYS)}}


@case(W, points=2, tasks=("2.1", "2.2"))
def tls_inference_mode_false_inside_inference_mode(lib):
    """``inference_mode(False)`` is not "leave inference mode alone": its constructor sets the
    thread-local sets from the current ones, adding ADInplaceOrView to the include set and
    taking the Autograd functionality out of the exclude set (c10/core/InferenceMode.h:
    InferenceMode(bool enabled)). So inside ``inference_mode()`` it turns autograd back on,
    and a tensor made there gets its autograd keys again."""

    def state():
        return {
            **_tls(lib),
            "AutogradFunctionality excluded?": bool(
                lib._C._dispatch_tls_is_dispatch_key_excluded(key(lib, "AutogradFunctionality"))
            ),
            "ADInplaceOrView included?": bool(
                lib._C._dispatch_tls_is_dispatch_key_included(key(lib, "ADInplaceOrView"))
            ),
            "keys of a tensor made here": names(lib._C._dispatch_keys(lib.empty(2))),
        }

    def scene():
        out = {"outside": state()}
        with lib.inference_mode():
            out["inference_mode()"] = state()
            with lib.inference_mode(False):
                out["inference_mode(False) inside it"] = state()
            out["back in inference_mode()"] = state()
        with lib.inference_mode(False):
            out["inference_mode(False) alone"] = state()
        out["after"] = state()
        return out

    return {"default": guard(lambda: _tls(lib)), "scene": guard(scene)}
