"""Week 2 cases. Task 2.4: calling an operator through the dispatcher.

Each kernel of the case's operator records its key and the key set it was handed, then (for
Autograd and ADInplaceOrView) redispatches below itself, as torch's generated kernels do:
``op.redispatch(ks & _after_autograd_keyset, x)``. The observation is the chain of kernels one
call ran, compared with the chain real torch runs for the same registrations.
"""

from __future__ import annotations

from autograder import case
from autograder.weeks.week2.common import W, guard, keyset, library, names

T = ("2.1", "2.2", "2.3", "2.4")
LEAVES = ("CPU", "Meta", "CompositeImplicitAutograd", "CompositeExplicitAutograd", "Python")


def _chain_op(lib, m, ns, kernels, log):
    """Define ``ns::f(Tensor x) -> Tensor`` with one recording kernel per entry of ``kernels``
    ("fallthrough:KEY" registers ``fallthrough_kernel`` on KEY)."""
    m.define("f(Tensor x) -> Tensor")

    def op():
        return getattr(lib.ops, ns).f.default

    def record(k, below):
        def kernel(ks, x):
            log.append([k, names(ks)])
            if below is None:
                return x
            return op().redispatch(ks & below, x)

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


def chains(lib, ns, kernels, scenes):
    """Register the kernels, then run each scene ``scene(f, lib) -> tensor args`` and record
    the chain of kernels the call ran (or the error)."""

    def run():
        out = {}
        with library(lib, ns) as m:
            log = []
            op = _chain_op(lib, m, ns, kernels, log)
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
    ADInplaceOrView, so that kernel runs before the backend's."""

    def inside(f):
        with lib.inference_mode():
            return f(lib.empty(2))

    def outside_tensor(f):
        x = lib.empty(2)
        with lib.inference_mode():
            return f(x)

    scenes = {"made inside": inside, "made outside": outside_tensor}
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
