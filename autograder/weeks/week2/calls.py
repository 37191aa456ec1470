"""Week 2 cases. Task 2.4: calling an operator through the dispatcher.

Each kernel of the case's operator records its key and the key set it was handed, then (for
Autograd and ADInplaceOrView) redispatches below itself, as torch's generated kernels do:
``op.redispatch(ks & _after_autograd_keyset, x)``. The observation is the chain of kernels one
call ran, compared with the chain real torch runs for the same registrations.
"""

from __future__ import annotations

from autograder import case
from autograder.weeks.week2.common import W, guard, key, keyset, library, names, parse_table

T = ("2.1", "2.2", "2.3", "2.4")
LEAVES = ("CPU", "Meta", "CompositeImplicitAutograd", "CompositeExplicitAutograd", "Python")


def _chain_op(lib, m, ns, kernels, log, schema="f(Tensor x) -> Tensor"):
    """Define ``ns::f`` (``schema``) with one recording kernel per entry of ``kernels``
    ("fallthrough:KEY" registers ``fallthrough_kernel`` on KEY)."""
    m.define(schema)

    def op():
        return getattr(lib.ops, ns).f.default

    def record(k, below):
        def kernel(ks, *args):
            log.append([k, names(ks)])
            if below is None:
                return args[0]
            return op().redispatch(ks & below, *args)

        return kernel

    for k in kernels:
        if k.startswith("fallthrough:"):
            m.impl("f", lib.library.fallthrough_kernel, k.split(":", 1)[1])
        elif k == "Autograd" or k.startswith("Autograd"):
            m.impl("f", record(k, lib._C._after_autograd_keyset), k, with_keyset=True)
        elif k == "ADInplaceOrView":
            m.impl("f", record(k, lib._C._after_ADInplaceOrView_keyset), k, with_keyset=True)
        else:
            m.impl("f", record(k, None), k, with_keyset=True)
    return op


def chains(lib, ns, kernels, scenes, schema="f(Tensor x) -> Tensor"):
    """Register the kernels, then run each scene ``scene(f, lib) -> tensor args`` and record
    the chain of kernels the call ran (or the error)."""

    def run():
        out = {}
        with library(lib, ns) as m:
            log = []
            op = _chain_op(lib, m, ns, kernels, log, schema)
            for name, scene in scenes.items():
                log.clear()
                try:
                    scene(op())
                except Exception as exc:  # noqa: BLE001 - the error is the observation
                    from autograder.observe import raised

                    out[name] = raised(exc)
                    continue
                out[name] = list(log)
        return out

    return guard(run)


FULL = ["Autograd", "ADInplaceOrView", "CPU", "Meta"]


def _first(lib):
    """Every case's first observation: the keys of a fresh cpu tensor."""
    return guard(lambda: repr(lib._C._dispatch_keys(lib.empty(2))))


@case(W, points=2, tasks=T)
def call_chain_on_cpu(lib):
    """A cpu tensor runs Autograd, then ADInplaceOrView, then CPU, each handed the keys at
    and below it; requires_grad and no_grad change nothing in dispatch."""

    def in_no_grad(f):
        with lib.no_grad():
            return f(lib.empty(2, requires_grad=True))

    scenes = {
        "cpu": lambda f: f(lib.empty(2)),
        "cpu, requires_grad": lambda f: f(lib.empty(2, requires_grad=True)),
        "cpu, no_grad": in_no_grad,
    }
    return {"keys": _first(lib), "chains": chains(lib, "lab2_call_cpu", FULL, scenes)}


@case(W, points=2, tasks=T)
def call_chain_on_meta(lib):
    """A meta tensor runs Autograd, ADInplaceOrView, then the Meta kernel."""
    scenes = {"meta": lambda f: f(lib.empty(2, device="meta"))}
    return {"keys": _first(lib), "chains": chains(lib, "lab2_call_meta", FULL, scenes)}


@case(W, points=2, tasks=T)
def call_chain_in_inference_mode(lib):
    """Inside inference_mode no Autograd kernel runs: the exclude set removes it. A tensor
    made inside has only its backend key left; one made outside still carries
    ADInplaceOrView, so that kernel runs before the backend's. ``inference_mode(False)``
    inside it takes autograd out of the exclude set again (c10/core/InferenceMode.h), so the
    whole chain runs."""

    def inside(f):
        with lib.inference_mode():
            return f(lib.empty(2))

    def outside_tensor(f):
        x = lib.empty(2)
        with lib.inference_mode():
            return f(x)

    def turned_back_on(f):
        x = lib.empty(2)
        with lib.inference_mode(), lib.inference_mode(False):
            return f(x)

    scenes = {
        "made inside": inside,
        "made outside": outside_tensor,
        "made outside, called in inference_mode(False) inside inference_mode()": turned_back_on,
    }
    return {"keys": _first(lib), "chains": chains(lib, "lab2_call_inf", FULL, scenes)}


@case(W, points=2, tasks=T)
def call_chain_with_guards(lib):
    """``_ExcludeDispatchKeyGuard(AutogradCPU)`` skips autograd (on every backend: only the
    functionality bit is excluded); excluding ADInplaceOrView skips that kernel."""

    def excluding(*ks, device="cpu"):
        def scene(f):
            with lib._C._ExcludeDispatchKeyGuard(keyset(lib, *ks)):
                return f(lib.empty(2, device=device))

        return scene

    scenes = {
        "exclude AutogradCPU": excluding("AutogradCPU"),
        "exclude AutogradCPU, meta tensor": excluding("AutogradCPU", device="meta"),
        "exclude ADInplaceOrView": excluding("ADInplaceOrView"),
        "exclude AutogradCPU | ADInplaceOrView": excluding("AutogradCPU", "ADInplaceOrView"),
    }
    return {"keys": _first(lib), "chains": chains(lib, "lab2_call_guard", FULL, scenes)}


@case(W, points=2, tasks=T)
def call_redispatch_below_current_key(lib):
    """``op.redispatch(ks, x)`` dispatches on ``ks`` alone, not on the tensor's keys."""
    scenes = {
        "redispatch(CPU)": lambda f: f.redispatch(keyset(lib, "CPU"), lib.empty(2)),
        "redispatch(ADInplaceOrView | CPU)": lambda f: f.redispatch(
            keyset(lib, "ADInplaceOrView", "CPU"), lib.empty(2)
        ),
        "redispatch(Meta) with a cpu tensor": lambda f: f.redispatch(
            keyset(lib, "Meta"), lib.empty(2)
        ),
        "redispatch(AutogradMeta | Meta)": lambda f: f.redispatch(
            keyset(lib, "AutogradMeta", "Meta"), lib.empty(2)
        ),
    }
    return {"keys": _first(lib), "chains": chains(lib, "lab2_call_redisp", FULL, scenes)}


@case(W, points=2, tasks=T)
def call_composite_and_fallbacks(lib):
    """With only a CompositeImplicitAutograd kernel it runs at the autograd key; with only a
    CPU kernel torch's autograd fallback passes the call down to it."""
    cia = {"cpu": lambda f: f(lib.empty(2)), "meta": lambda f: f(lib.empty(2, device="meta"))}
    cpu = {"cpu": lambda f: f(lib.empty(2))}
    return {
        "keys": _first(lib),
        "CompositeImplicitAutograd only": chains(
            lib, "lab2_call_cia", ["CompositeImplicitAutograd"], cia
        ),
        "CompositeExplicitAutograd only": chains(
            lib, "lab2_call_cea", ["CompositeExplicitAutograd"], cia
        ),
        "CPU only": chains(lib, "lab2_call_cpuonly", ["CPU"], cpu),
    }


@case(W, points=2, tasks=T)
def call_fallthrough_skips_key(lib):
    """A fallthrough entry is skipped: its key is masked out before the highest key is taken,
    so the next kernel does not even see it in its key set."""
    scenes = {"cpu": lambda f: f(lib.empty(2))}
    return {
        "keys": _first(lib),
        "fallthrough on AutogradCPU": chains(
            lib,
            "lab2_call_ft1",
            ["fallthrough:AutogradCPU", "ADInplaceOrView", "CPU"],
            scenes,
        ),
        "fallthrough on Autograd": chains(
            lib, "lab2_call_ft2", ["fallthrough:Autograd", "ADInplaceOrView", "CPU"], scenes
        ),
    }


@case(W, points=2, tasks=T)
def call_missing_kernel_raises(lib):
    """No kernel for the call's key: NotImplementedError naming the operator and the key (the
    Meta key has torch's meta fallback, which raises its own NotImplementedError)."""
    scenes = {
        "cpu tensor, Meta kernel only": lambda f: f(lib.empty(2)),
        "meta tensor, Meta kernel only": lambda f: f(lib.empty(2, device="meta")),
    }
    cpu_only = {"meta tensor, CPU kernel only": lambda f: f(lib.empty(2, device="meta"))}
    return {
        "keys": _first(lib),
        "Meta only": chains(lib, "lab2_call_miss1", ["Meta"], scenes),
        "CPU only": chains(lib, "lab2_call_miss2", ["CPU"], cpu_only),
    }


@case(W, points=3, tasks=T)
def call_factory_through_backend_select(lib):
    """A factory has no tensor argument: its key set is only the TLS include set, so
    BackendSelect runs; its kernel picks the backend from the device argument and
    redispatches there. Without a BackendSelect kernel (a fallthrough) nothing is left."""
    ns = "lab2_call_factory"

    def run():
        log, out = [], {}
        with library(lib, ns) as m:
            m.define("e(int n, str device) -> Tensor")
            m.define("g(int n) -> Tensor")

            def backend_select(ks, n, device):
                log.append(["BackendSelect", names(ks)])
                target = {"cpu": "CPU", "meta": "Meta"}[device]
                return getattr(lib.ops, ns).e.default.redispatch(keyset(lib, target), n, device)

            def backend(k):
                def kernel(ks, n, device):
                    log.append([k, names(ks)])
                    return lib.empty(n, device=device)

                return kernel

            m.impl("e", backend_select, "BackendSelect", with_keyset=True)
            m.impl("e", backend("CPU"), "CPU", with_keyset=True)
            m.impl("e", backend("Meta"), "Meta", with_keyset=True)
            m.impl("g", lambda n: lib.empty(n), "CPU")
            for device in ("cpu", "meta"):
                log.clear()
                t = getattr(lib.ops, ns).e(2, device)
                out[f"e(2, {device!r})"] = {
                    "ran": list(log),
                    "result keys": names(lib._C._dispatch_keys(t)),
                }
            out["g(2): no BackendSelect kernel"] = guard(lambda: getattr(lib.ops, ns).g(2))
        return out

    return {"keys": _first(lib), "factory": guard(run)}


@case(W, points=3, tasks=T)
def call_boxed_fallback(lib):
    """A backend fallback is a boxed kernel: one function for every operator, handed the
    operator and its argument stack (``fn(keyset, op, *args)``). It serves an operator with
    no CPU kernel of its own, never one that has one, and goes with ``_destroy``."""
    ns = "lab2_call_boxed"

    def run():
        log, out = [], {}
        x = lib.empty(2)
        with library(lib, ns) as m:
            m.define("f(Tensor x, int n) -> Tensor")
            m.define("g(Tensor x, int n) -> Tensor")

            def autograd(ks, x, n):
                log.append(["Autograd", names(ks)])
                below = ks & lib._C._after_autograd_keyset
                return getattr(lib.ops, ns).f.default.redispatch(below, x, n)

            def own_cpu(ks, x, n):
                log.append(["g's own CPU kernel", names(ks)])
                return x

            m.impl("f", autograd, "Autograd", with_keyset=True)
            m.impl("g", own_cpu, "CPU", with_keyset=True)

            def boxed(ks, op, *stack):
                log.append(["fallback", str(op), names(ks), [type(a).__name__ for a in stack]])
                return stack[0]

            with library(lib, "_", "IMPL") as fallbacks:
                fallbacks.fallback(boxed, "CPU", with_keyset=True)
                for name in ("f", "g"):
                    log.clear()
                    getattr(getattr(lib.ops, ns), name)(x, 3)
                    out[f"{name}(x, 3)"] = list(log)
            out["f(x, 3) after _destroy"] = guard(lambda: getattr(lib.ops, ns).f(x, 3))
        return out

    return {"keys": _first(lib), "boxed": guard(run)}


@case(W, points=2, tasks=T)
def call_composite_without_tensor_arguments(lib):
    """A call with no tensor argument has no key left (BackendSelect and ADInplaceOrView are
    fallthroughs), so it dispatches on Undefined. That entry is the CompositeExplicitAutograd
    or CompositeImplicitAutograd kernel (OperatorEntry.cpp: Note [Undefined in
    dispatchTable_]): a composite needs no tensor to run. A backend kernel alone cannot serve
    it."""
    ns = "lab2_call_undefined"

    def one(key):
        def run():
            log = []
            with library(lib, ns) as m:
                m.define("h(int n) -> Tensor")

                def kernel(ks, n):
                    log.append([key, names(ks)])
                    return lib.empty(n)

                m.impl("h", kernel, key, with_keyset=True)
                t = getattr(lib.ops, ns).h(2)
                return {"ran": log, "result keys": names(lib._C._dispatch_keys(t))}

        return guard(run)

    keys = ("CompositeExplicitAutograd", "CompositeImplicitAutograd", "CPU")
    return {"keys": _first(lib), **{f"h(2), {k} kernel only": one(k) for k in keys}}


@case(W, points=2, tasks=T)
def call_redispatch_keeps_fallthrough_keys(lib):
    """A call masks the keys whose entry is a fallthrough out of its key set before it
    dispatches; ``redispatch`` does not (Dispatcher.h: it looks the set up as given). So the
    AutogradCPU kernel reached by a redispatch sees torch's fallthroughs BackendSelect and
    ADInplaceOrView in its key set, and the same kernel reached by a call does not."""
    everything = ("AutogradCPU", "ADInplaceOrView", "BackendSelect", "CPU")
    scenes = {
        "f(x)": lambda f: f(lib.empty(2)),
        "f.redispatch(AutogradCPU | ADInplaceOrView | BackendSelect | CPU, x)": lambda f: (
            f.redispatch(keyset(lib, *everything), lib.empty(2))
        ),
    }

    def run():
        log, out = [], {}
        with library(lib, "lab2_call_unmasked") as m:
            op = _chain_op(lib, m, "lab2_call_unmasked", [], log)

            def autograd(ks, x):
                log.append(["AutogradCPU", names(ks)])
                return x

            m.impl("f", autograd, "AutogradCPU", with_keyset=True)
            for name, scene in scenes.items():
                log.clear()
                scene(op())
                out[name] = list(log)
        return out

    return {"keys": _first(lib), "chains": guard(run)}


@case(W, points=2, tasks=T)
def call_fallthrough_mask_follows_the_backend(lib):
    """A fallthrough on AutogradCPU skips autograd in a call that runs on CPU. A call with a
    cpu and a meta tensor runs on Meta, its highest backend bit, and the mask is Meta's
    (DispatchKeyExtractor.h: nonFallthroughKeysPerBackend_): AutogradMeta has a kernel, so
    autograd stays in the set, AutogradCPU with it."""
    kernels = ["fallthrough:AutogradCPU", "AutogradMeta", "CPU", "Meta"]
    cpu, meta = (lambda: lib.empty(2)), (lambda: lib.empty(2, device="meta"))
    scenes = {
        "f(cpu, cpu)": lambda f: f(cpu(), cpu()),
        "f(meta, meta)": lambda f: f(meta(), meta()),
        "f(cpu, meta)": lambda f: f(cpu(), meta()),
    }
    schema = "f(Tensor x, Tensor y) -> Tensor"
    return {
        "keys": _first(lib),
        "chains": chains(lib, "lab2_call_perbackend", kernels, scenes, schema),
    }


@case(W, points=2, tasks=T)
def call_functionalize_fallback_calls_again(lib):
    """torch's Functionalize fallback does not pass the call down: it CALLS the operator again
    with Functionalize excluded (FunctionalizeFallbackKernel.cpp: functionalizeFallback). The
    key set is computed afresh from the tensor, so autograd runs a second time."""

    def including_functionalize(f):
        with lib._C._IncludeDispatchKeyGuard(key(lib, "Functionalize")):
            return f(lib.empty(2))

    scenes = {"f(x), Functionalize included": including_functionalize}
    return {"keys": _first(lib), "chains": chains(lib, "lab2_call_func", FULL, scenes)}


@case(W, points=2, tasks=T)
def call_python_fallback_goes_below_python(lib):
    """With plain tensors torch's Python fallback redispatches to the keys below Python, with
    Python out of the include set and every key above Python excluded while it runs
    (PythonFallbackKernel.cpp): the CPU kernel sees those thread-local sets."""
    ns = "lab2_call_python"

    def tls():
        return {
            "include": names(lib._C._dispatch_tls_local_include_set()),
            "exclude": names(lib._C._dispatch_tls_local_exclude_set()),
        }

    def run():
        log = []
        with library(lib, ns) as m:
            op = _chain_op(lib, m, ns, ["Autograd", "ADInplaceOrView"], log)

            def cpu(ks, x):
                log.append(["CPU", names(ks), tls()])
                return x

            m.impl("f", cpu, "CPU", with_keyset=True)
            x = lib.empty(2)  # made outside: torch.empty itself would meet the Python key
            with lib._C._IncludeDispatchKeyGuard(key(lib, "Python")):
                op()(x)
                inside = tls()
        return {"ran": log, "TLS after the call": inside}

    return {"keys": _first(lib), "Python included": guard(run)}


@case(W, points=2, tasks=T)
def call_destroy_brings_back_the_older_kernel(lib):
    """Registering a second kernel on a key overrides the first, which is kept: when the
    library of the newer one is destroyed, the older one runs again (OperatorEntry: kernels_
    holds every registration of a key, newest first)."""
    ns = "lab2_call_override"

    def run():
        log, out = [], {}
        with library(lib, ns) as m:
            m.define("f(Tensor x) -> Tensor")

            def kernel(name):
                def fn(x):
                    log.append(name)
                    return x

                return fn

            def called():
                log.clear()
                getattr(lib.ops, ns).f(lib.empty(2))
                return list(log)

            m.impl("f", kernel("main's CPU kernel"), "CPU")
            out["main"] = called()
            fragment = lib.library.Library(ns, "FRAGMENT")
            fragment.impl("f", kernel("the fragment's CPU kernel"), "CPU")
            out["fragment registered"] = called()
            fragment._destroy()
            out["fragment destroyed"] = called()
        return out

    return {"keys": _first(lib), "override": guard(run)}


@case(W, points=3, tasks=T)
def call_table_entries_refresh_only_when_touched(lib):
    """Dispatch reads a table computed when kernels are registered, and a registration
    recomputes only the entries it touches (OperatorEntry.cpp: updateDispatchTable_). A
    CompositeExplicitAutograd kernel refreshes the backend keys, not the autograd keys: after
    a CompositeImplicitAutograd kernel, the autograd keys keep running the math kernel,
    although the dump (computed afresh) says "backend fallback". In the other order they do
    not. A CPU fallback refreshes CPU and AutogradCPU, and only those."""

    def scenario(ns, keys, fallback):
        def run():
            log, out = [], {}
            with library(lib, ns) as m:
                m.define("f(Tensor x) -> Tensor")
                for k in keys:

                    def fn(ks, x, k=k):
                        log.append([k, names(ks)])
                        return x

                    m.impl("f", fn, k, with_keyset=True)
                with library(lib, "_", "IMPL") as fallbacks:
                    if fallback:
                        fallbacks.fallback(lambda op, *args: args[0], "CPU")
                    for device in ("cpu", "meta"):
                        log.clear()
                        getattr(lib.ops, ns).f(lib.empty(2, device=device))
                        out[f"f({device} tensor) ran"] = list(log)
                    dump = parse_table(lib._C._dispatch_dump_table(f"{ns}::f"))
                out["dump says"] = {k: dump[k] for k in ("AutogradCPU", "AutogradMeta")}
            return out

        return guard(run)

    cia, cea = "CompositeImplicitAutograd", "CompositeExplicitAutograd"
    return {
        "keys": _first(lib),
        "implicit, then explicit": scenario("lab2_call_stale1", [cia, cea], False),
        "explicit, then implicit": scenario("lab2_call_stale2", [cea, cia], False),
        "implicit, explicit, then a CPU fallback": scenario("lab2_call_stale3", [cia, cea], True),
    }


@case(W, points=2, tasks=T)
def call_tensor_list_arguments(lib):
    """The tensors inside a ``Tensor[]`` argument count like any other tensor argument
    (aten/src/ATen/core/dispatch/DispatchKeyExtractor.h: MultiDispatchKeySet adds the key set of
    each tensor of an ``at::ArrayRef<Tensor>``): a list holding a cpu and a meta tensor runs on
    Meta. An empty list gives no tensor at all."""
    cpu, meta = (lambda: lib.empty(2)), (lambda: lib.empty(2, device="meta"))
    scenes = {
        "f([cpu])": lambda f: f([cpu()]),
        "f([meta])": lambda f: f([meta()]),
        "f([cpu, meta])": lambda f: f([cpu(), meta()]),
        "f([meta, cpu, cpu])": lambda f: f([meta(), cpu(), cpu()]),
        "f([])": lambda f: f([]),
    }
    schema = "f(Tensor[] xs) -> Tensor[]"
    return {"keys": _first(lib), "chains": chains(lib, "lab2_call_list", FULL, scenes, schema)}


@case(W, points=2, tasks=T)
def call_skips_a_fallthrough_fallback(lib):
    """A fallthrough registered as a backend fallback (``fallback(fallthrough_kernel, key)``)
    is masked out of a call's key set like any fallthrough entry, for every operator with no
    kernel of its own on that key (DispatchKeyExtractor.h: nonFallthroughKeysPerBackend_ is
    refreshed by Dispatcher::registerFallback, aten/src/ATen/core/dispatch/Dispatcher.cpp):
    the kernels above CPU no longer see CPU in their key set. The ADInplaceOrView kernel
    returns without going further down."""
    ns = "lab2_call_ftfb"

    def run():
        log, out = [], {}
        x = lib.empty(2)
        with library(lib, ns) as m:
            m.define("f(Tensor x) -> Tensor")

            def autograd(ks, x):
                log.append(["Autograd", names(ks)])
                return getattr(lib.ops, ns).f.default.redispatch(
                    ks & lib._C._after_autograd_keyset, x
                )

            def inplace(ks, x):
                log.append(["ADInplaceOrView", names(ks)])
                return x

            m.impl("f", autograd, "Autograd", with_keyset=True)
            m.impl("f", inplace, "ADInplaceOrView", with_keyset=True)

            def called():
                log.clear()
                getattr(lib.ops, ns).f(x)
                return list(log)

            out["no CPU fallback"] = called()
            with library(lib, "_", "IMPL") as g:
                g.fallback(lib.library.fallthrough_kernel, "CPU")
                out["fallthrough fallback on CPU"] = called()
            out["after _destroy"] = called()
        return out

    return {"keys": _first(lib), "chains": guard(run)}
