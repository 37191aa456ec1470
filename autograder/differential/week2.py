"""Week 2's differential programs: random programs over everything the dispatcher lab models.

A program (plain data) defines a few operators in a namespace of its own, registers kernels on
runtime and alias keys (some of them fallthroughs), may open a second library and destroy it,
registers backend fallbacks, makes cpu and meta tensors, and runs steps inside nested
``inference_mode`` / ``no_grad`` / ``_ExcludeDispatchKeyGuard`` / ``_IncludeDispatchKeyGuard``
blocks: calls, explicit redispatches, dumps of the computed table, key-set algebra and the
thread-local sets. Every kernel records its key and the key set it was handed, then returns or
redispatches (below autograd, below ADInplaceOrView, without its own key, without some key,
or on a fixed set), so the observation of a call is the chain of kernels it ran and its result
or error.

The same ``execute`` runs on torch (``autograder.oracle.torch_lib("week2")``) and on the
engine (the module itself: ``_C``, ``library``, ``ops``, ``empty``, ``inference_mode`` ...).
Every torch ``Library`` a program opens is destroyed at its end, so programs never see each
other's registrations. An error is recorded like ``autograder.observe.raised`` (its type; a
call's error also says what it is about, e.g. which key has no kernel). Where torch stops on
an internal assert (``EXCLUDED``), the engine must refuse at the same step, naming it: both
are recorded as ``{"excluded": why}`` and the program goes on.
"""

from __future__ import annotations

import random
import re
import warnings
from typing import Any

from autograder.observe import error_kind
from autograder.weeks.week2.common import (
    ALIAS_KEYS,
    AUTOGRAD_KEYS,
    BACKEND_KEYS,
    OTHER_KEYS,
    RUNTIME_KEYS,
    names,
    parse_table,
)

# What torch 2.13 itself gets wrong, crashes on or asserts on: never compared. Where a program
# reaches one of these, torch raises an INTERNAL ASSERT (a RuntimeError) and the engine refuses
# with a NotImplementedError that names it; ``execute`` records both as the same "excluded"
# observation, so the run goes on and the engine must stop exactly where torch stops.
EXCLUDED = {
    "redispatch onto a fallthrough entry": (
        "Dispatcher::redispatch (and redispatchBoxed) looks up the highest key of the set it "
        "is given without masking fallthroughs, so a set whose highest key has a fallthrough "
        "entry runs fallthrough_kernel, which stops on TORCH_INTERNAL_ASSERT "
        "(aten/src/ATen/core/boxing/KernelFunction.cpp). The same when a call with no key "
        "left lands on a fallthrough Undefined entry (a CompositeImplicitAutograd fallthrough)."
    ),
    "Python fallback with no tensor argument": (
        "PythonFallbackKernel.cpp: pythonFallback looks for an argument with a PyInterpreter "
        "(a tensor); with none it stops on TORCH_INTERNAL_ASSERT."
    ),
    "a missing kernel reported from a stale dispatch table": (
        "OperatorEntry.cpp: updateDispatchTable_ does not refresh the autograd keys when a "
        "CompositeExplicitAutograd kernel comes or goes, so after CompositeImplicitAutograd "
        "their cached entries still hold the math kernel (the engine models that cache). "
        "reportError runs checkInvariants first, which compares the cache with a fresh "
        "computation and stops on TORCH_INTERNAL_ASSERT; the engine refuses there."
    ),
    "Functionalize fallback with no tensor argument": (
        "FunctionalizeFallbackKernel.cpp: functionalizeFallback wraps the outputs of a call "
        "with no tensor argument in a FunctionalTensorWrapper; the lab has no functional "
        "tensors. Programs never call an operator with no tensor argument while Functionalize "
        "can reach its fallback."
    ),
    "fallback registered on an alias key or on ''": (
        "Library.cpp: _fallback registers the kernel on every runtime key of the alias, "
        "torch's many backends included, stopping half-way at the first key that already "
        "has one; torch/library.py refuses ''. Not drawn."
    ),
    "making a tensor inside a TLS guard": (
        "torch.empty dispatches (through BackendSelect), so a guard that includes Python or "
        "Functionalize, or excludes BackendSelect, changes or breaks it; the lab's empty() "
        "is given and does not dispatch. Tensors are made outside guards."
    ),
    "highestPriorityTypeId of a per-backend functionality with no backend bit": (
        "DispatchKeySet(CPU) & DispatchKeySet(Meta) keeps the Dense bit and no backend bit; "
        "torch answers its internal placeholder StartOfDenseBackends. Not asked; dispatch "
        "keysets are built with | and derived with & of full-backend masks, so never have one."
    ),
}

DEVICES = ("cpu", "meta")
SCHEMAS = {
    "f": "f(Tensor x) -> Tensor",
    "g": "g(Tensor x, Tensor y) -> Tensor",
    "h": "h(int n) -> Tensor",
}
TENSOR_ARGS = {"f": 1, "g": 2, "h": 0}
REG_KEYS = RUNTIME_KEYS + ALIAS_KEYS + [""]
FALLBACK_KEYS = ["CPU", "CUDA", "PrivateUse1", "AutocastPrivateUse1"]  # torch has none there
MASKS = ("after_autograd", "after_adiv", "remove_top", "minus", "explicit")
# The keys torch's own chains are made of, drawn more often than the rest.
CHAIN_KEYS = [
    "Autograd",
    "AutogradCPU",
    "AutogradMeta",
    "ADInplaceOrView",
    "CPU",
    "Meta",
    "CompositeImplicitAutograd",
    "CompositeExplicitAutograd",
    "BackendSelect",
]
FALLTHROUGH_FALLBACKS = ("BackendSelect", "ADInplaceOrView", "AutocastCPU", "AutocastCUDA")
BELOW = {"ADInplaceOrView": "after_adiv"} | dict.fromkeys(
    ["Autograd", *AUTOGRAD_KEYS], "after_autograd"
)
MAX_LOG = 10  # a kernel stops redispatching once this many kernels ran in one call


# === generating ==================================================================================


class _Gen:
    """The state a generator needs to stay inside what is compared: which tensors exist, which
    keys each operator has a registration on, what the open guards include."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.ops = ["f"] + [op for op in ("g", "h") if rng.random() < 0.4]
        self.tensors: list[dict] = []  # {"device", "inference"}
        self.registered: dict[str, set[str]] = {op: set() for op in self.ops}
        self.fragment_regs: list[tuple[str, str]] = []  # (op, key) of the open FRAGMENT
        self.included: list[str] = []  # keys of the open include guards
        self.inference = False
        self.guarded = 0  # open include / exclude guards

    # -- kernels -----------------------------------------------------------------------------

    def keys(self, lo: int = 1, hi: int = 3, functionalize: bool = True) -> list[str]:
        """Keys for an explicit key set: mostly a backend key and a few above it, seldom one
        whose entry is torch's fallthrough (a redispatch onto it is EXCLUDED)."""
        r = self.rng
        pool = [k for k in RUNTIME_KEYS if functionalize or k != "Functionalize"]
        if r.random() < 0.8:
            pool = [k for k in pool if k not in FALLTHROUGH_FALLBACKS]
        if r.random() < 0.3:
            return r.sample(pool, r.randint(lo, hi))
        above = [k for k in pool if k not in BACKEND_KEYS]
        return [r.choice(BACKEND_KEYS), *r.sample(above, r.randint(lo, hi) - 1)]

    def action(self, key: str, with_keyset: bool, op: str | None) -> dict:
        """What a kernel does after recording. A kernel of an operator with no tensor argument
        (or a fallback, which serves every operator) never redispatches to Functionalize
        (EXCLUDED: the fallback would wrap its result)."""
        r = self.rng
        if r.random() < 0.25:
            return {"kind": "return"}
        mask = r.choice(MASKS) if with_keyset else "explicit"
        if with_keyset and key in BELOW and r.random() < 0.6:
            mask = BELOW[key]  # what torch's own kernels do
        out: dict[str, Any] = {"kind": "redispatch", "mask": mask}
        if mask == "minus":
            out["key"] = r.choice(RUNTIME_KEYS)
        if mask == "explicit":
            no_tensors = op == "h" or (op is None and "h" in self.ops)
            out["keys"] = self.keys(1, 3, functionalize=not no_tensors)
        return out

    def kernel(self, key: str, op: str | None) -> dict:
        r = self.rng
        if r.random() < 0.15:
            return {"fallthrough": True}
        with_keyset = r.random() < 0.85
        return {
            "fallthrough": False,
            "keyset": with_keyset,
            "then": self.action(key, with_keyset, op),
            "tls": r.random() < 0.3,  # it also records the TLS sets and grad mode it runs in
        }

    # -- steps -------------------------------------------------------------------------------

    def impl(self, lib: str) -> dict:
        r = self.rng
        op = r.choice(self.ops)
        key = r.choice(CHAIN_KEYS if r.random() < 0.5 else REG_KEYS)
        step = {"do": "impl", "lib": lib, "op": op, "key": key, "kernel": self.kernel(key, op)}
        if lib == "main":
            self.registered[op].add(key)
        else:
            self.fragment_regs.append((op, key))
        return step

    def tensor(self) -> dict:
        device = self.rng.choice(DEVICES)
        self.tensors.append({"device": device, "inference": self.inference})
        return {"do": "tensor", "device": device, "grad": self.rng.random() < 0.3}

    def has_registration(self, op: str, key: str) -> bool:
        return key in self.registered[op] or (op, key) in self.fragment_regs

    def callable_ops(self, extra: list[str]) -> list[str]:
        """The operators a call may name here: one with no tensor argument stays away from the
        Functionalize fallback (EXCLUDED: it would wrap the result)."""
        reach = set(self.included) | set(extra)
        out = []
        for op in self.ops:
            if (
                TENSOR_ARGS[op] == 0
                and "Functionalize" in reach
                and not self.has_registration(op, "Functionalize")
            ):
                continue
            out.append(op)
        return out

    def args(self, op: str) -> list[int]:
        return [self.rng.randrange(len(self.tensors)) for _ in range(TENSOR_ARGS[op])]

    def call(self) -> dict | None:
        ops = self.callable_ops([])
        if not ops:
            return None
        op = self.rng.choice(ops)
        return {"do": "call", "op": op, "args": self.args(op)}

    def redispatch(self) -> dict | None:
        keys = self.keys(1, 4)
        ops = self.callable_ops(keys)
        if not ops:
            return None
        op = self.rng.choice(ops)
        return {"do": "redispatch", "op": op, "keys": keys, "args": self.args(op)}

    def keyset(self) -> dict:
        r = self.rng
        start = r.choice(RUNTIME_KEYS + ["Autograd", "Undefined"] * (r.random() < 0.1))
        bits = _bits(start)
        chain = []
        for _ in range(r.randint(1, 5)):
            op = r.choice(["add", "remove", "|", "&", "-"])
            if self.tensors and op in ("|", "&", "-") and r.random() < 0.25:
                t = r.randrange(len(self.tensors))
                other = _tensor_bits(**self.tensors[t])
                chain.append([op, {"tensor": t}])
            else:
                k = r.choice(RUNTIME_KEYS + ALIAS_KEYS * (r.random() < 0.1))
                other = _bits(k)
                chain.append([op, k])
            bits = _apply(op, bits, other)
        queries = r.sample(RUNTIME_KEYS, 3)
        return {
            "do": "keyset",
            "start": start,
            "chain": chain,
            "has": queries,
            "highest": not _backendless(bits),
        }

    def block(self, depth: int) -> dict:
        r = self.rng
        kind = r.choice(["inference", "inference", "no_grad", "exclude", "include"])
        ctx: dict[str, Any] = {"kind": kind}
        saved = (list(self.included), self.inference, self.guarded)
        if kind == "inference":
            ctx["mode"] = r.random() < 0.8
            self.inference = ctx["mode"]
        elif kind == "exclude":
            ctx["keys"] = self.keys(1, 2)
            self.guarded += 1
        elif kind == "include":
            ctx["key"] = r.choice(RUNTIME_KEYS)
            self.included.append(ctx["key"])
            self.guarded += 1
        body = self.steps(r.randint(1, 4), depth + 1)
        self.included, self.inference, self.guarded = saved
        return {"do": "with", "ctx": ctx, "body": body}

    def step(self, depth: int) -> dict | None:
        r = self.rng
        choices = ["call"] * 6 + ["redispatch"] * 2 + ["keyset", "tls", "table", "lookup"]
        if depth < 2:
            choices += ["with"] * 3
        if not self.guarded:
            choices += ["tensor"] * 2  # torch.empty dispatches too: not inside a guard
        kind = r.choice(choices)
        if kind == "call":
            return self.call()
        if kind == "redispatch":
            return self.redispatch()
        if kind == "keyset":
            return self.keyset()
        if kind == "tls":
            return {"do": "tls", "ask": r.sample(RUNTIME_KEYS, 2)}
        if kind == "table":
            return {"do": "table", "op": r.choice(self.ops)}
        if kind == "lookup":
            return {
                "do": "lookup",
                "alias": [r.choice(RUNTIME_KEYS + ALIAS_KEYS), r.choice(ALIAS_KEYS)],
                "order": r.sample(RUNTIME_KEYS, r.randint(2, 5)),
                # tensor_key_set makes a torch tensor: not inside a guard (EXCLUDED)
                "device": None if self.guarded else r.choice(DEVICES),
                "inference": r.random() < 0.5,
            }
        if kind == "tensor":
            return self.tensor()
        return self.block(depth)

    def steps(self, n: int, depth: int) -> list[dict]:
        out = []
        for _ in range(n):
            s = self.step(depth)
            if s is not None:
                out.append(s)
        return out


def _bits(k: str) -> tuple[frozenset, frozenset]:
    """(functionality bits, backend bits) of DispatchKeySet(k): only what the generator needs
    to know to stay away from a backendless per-backend functionality (EXCLUDED)."""
    if k in BACKEND_KEYS:
        return frozenset({"Dense"}), frozenset({k})
    if k in AUTOGRAD_KEYS:
        return frozenset({"Autograd"}), frozenset({BACKEND_KEYS[AUTOGRAD_KEYS.index(k)]})
    if k in OTHER_KEYS:
        return frozenset({k}), frozenset()
    return frozenset(), frozenset()  # an alias or Undefined: the empty set


def _tensor_bits(device: str, inference: bool) -> tuple[frozenset, frozenset]:
    b = {"cpu": "CPU", "meta": "Meta"}[device]
    f = {"Dense"} | (set() if inference else {"ADInplaceOrView", "Autograd"})
    if device == "cpu":
        f.add("AutocastCPU")
    return frozenset(f), frozenset({b})


def _apply(op: str, a: tuple, b: tuple) -> tuple:
    if op in ("add", "|"):
        return a[0] | b[0], a[1] | b[1]
    if op == "&":
        return a[0] & b[0], a[1] & b[1]
    return a[0] - b[0], a[1]  # remove, -: functionality bits only


def _backendless(bits: tuple) -> bool:
    return bool(bits[0] & {"Dense", "Autograd"}) and not bits[1]


def generate(rng: random.Random) -> dict:
    """One random program (see the module docstring)."""
    g = _Gen(rng)
    ns = f"dw2_{rng.getrandbits(40):010x}"
    steps: list[dict] = [g.tensor()]
    for _ in range(rng.randint(2, 7)):
        steps.append(g.impl("main"))
    if rng.random() < 0.3:
        key = rng.choice(FALLBACK_KEYS + ["Meta", "AutogradCPU", "ADInplaceOrView"])
        steps.append({"do": "fallback", "lib": "main", "key": key, "kernel": g.kernel(key, None)})
    steps += g.steps(rng.randint(2, 6), 0)
    if rng.random() < 0.3:  # a FRAGMENT library whose kernels go with its _destroy
        steps.append({"do": "open"})
        for _ in range(rng.randint(1, 3)):
            steps.append(g.impl("fragment"))
        if rng.random() < 0.3:  # a fallback of the fragment's own, gone with it
            key = rng.choice(FALLBACK_KEYS)
            fb = {"do": "fallback", "lib": "fragment", "key": key, "kernel": g.kernel(key, None)}
            steps.append(fb)
        steps += g.steps(rng.randint(1, 3), 0)
        steps.append({"do": "destroy"})
        g.fragment_regs = []
        steps += g.steps(rng.randint(1, 3), 0)
    if rng.random() < 0.1:
        steps.append({"do": "define again", "op": rng.choice(g.ops)})
    return {"ns": ns, "ops": g.ops, "steps": steps}


# === running =====================================================================================


def _key(lib: Any, name: str) -> Any:
    return getattr(lib._C.DispatchKey, name)


def _set(lib: Any, keys: list[str]) -> Any:
    ks = lib._C.DispatchKeySet(_key(lib, keys[0]))
    for k in keys[1:]:
        ks = ks | lib._C.DispatchKeySet(_key(lib, k))
    return ks


def _excluded(exc: BaseException) -> dict | None:
    """Where torch stops on an internal assert (and the engine must refuse, naming it): the
    same observation on both sides, so the rest of the program is still compared."""
    msg = str(exc)
    if "fallthrough_kernel" in msg:
        return {"excluded": "redispatch onto a fallthrough entry"}
    if "checkInvariants" in msg or "Canonical state" in msg:
        return {"excluded": "a missing kernel reported from a stale dispatch table"}
    if "PyInterpreter" in msg:
        return {"excluded": "Python fallback with no tensor argument"}
    return None


def _raised(exc: BaseException) -> dict:
    """An error, as ``autograder.observe.raised`` records it but without the numbers in the
    message: torch's name the namespace's hex digits and its own source lines."""
    message = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
    return _excluded(exc) or {"kind": "raised", "type": error_kind(exc), "message": message[:300]}


def _about(exc: BaseException) -> str:
    """What an error of a call is about (the key a kernel is missing for ...): compared too,
    never the wording."""
    msg = str(exc)
    m = re.search(r"Could not run '[^']*' with arguments from the '(\w+)' backend", msg)
    if m:
        return f"no kernel for {m.group(1)}"
    if "no tensor arguments" in msg:
        return "no tensor arguments"
    if "Meta tensors" in msg:
        return "meta fallback: no Meta kernel"
    return "other"


class _Run:
    """One program running against ``lib``."""

    def __init__(self, lib: Any, program: dict) -> None:
        self.lib, self.ns = lib, program["ns"]
        self.tensors: list[Any] = []
        self.log: list[list] = []
        self.libs: dict[str, Any] = {}

    def op(self, name: str) -> Any:
        return getattr(getattr(self.lib.ops, self.ns), name).default

    # -- kernels -----------------------------------------------------------------------------

    def mask(self, then: dict, ks: Any) -> Any:
        lib, how = self.lib, then["mask"]
        if how == "after_autograd":
            return ks & lib._C._after_autograd_keyset
        if how == "after_adiv":
            return ks & lib._C._after_ADInplaceOrView_keyset
        if how == "remove_top":
            return ks.remove(ks.highestPriorityTypeId())
        if how == "minus":
            return ks - lib._C.DispatchKeySet(_key(lib, then["key"]))
        return _set(lib, then["keys"])

    def finish(self, then: dict, op: Any, ks: Any, args: tuple) -> Any:
        if then["kind"] == "redispatch" and len(self.log) < MAX_LOG:
            return op.redispatch(self.mask(then, ks), *args)
        tensors = [a for a in args if not isinstance(a, int)]
        return tensors[0] if tensors else self.tensors[0]

    def record(self, spec: dict, *entry: Any) -> None:
        if spec.get("tls"):
            entry = (*entry, self.tls())
        self.log.append(list(entry))

    def tls(self) -> dict:
        lib = self.lib
        return {
            "include": names(lib._C._dispatch_tls_local_include_set()),
            "exclude": names(lib._C._dispatch_tls_local_exclude_set()),
            "grad enabled": bool(lib.is_grad_enabled()),
        }

    def kernel(self, label: str, opname: str, spec: dict) -> Any:
        then = spec["then"]

        def with_keyset(ks: Any, *args: Any) -> Any:
            self.record(spec, label, names(ks))
            return self.finish(then, self.op(opname), ks, args)

        def without(*args: Any) -> Any:
            self.record(spec, label, None)
            return self.finish(then, self.op(opname), None, args)

        return with_keyset if spec["keyset"] else without

    def fallback_kernel(self, label: str, spec: dict) -> Any:
        then = spec["then"]

        def with_keyset(ks: Any, op: Any, *args: Any) -> Any:
            self.record(spec, label, names(ks), str(op))
            return self.finish(then, op, ks, args)

        def without(op: Any, *args: Any) -> Any:
            self.record(spec, label, None, str(op))
            return self.finish(then, op, None, args)

        return with_keyset if spec["keyset"] else without

    # -- steps -------------------------------------------------------------------------------

    def result(self, fn: Any) -> dict:
        """A call's outcome (which tensor it returned, or its error) first, so an engine that
        refuses is counted as refusing; then the kernels it ran, in order."""
        self.log = []
        try:
            out = fn()
        except Exception as exc:  # noqa: BLE001 - the error is the observation
            outcome = _raised(exc)
            about = {"about": _about(exc)} if outcome.get("kind") == "raised" else {}
            return {"outcome": outcome, **about, "ran": self.log}
        which = next((i for i, t in enumerate(self.tensors) if t is out), "another tensor")
        return {"outcome": {"result": which}, "ran": self.log}

    def arguments(self, step: dict) -> tuple:
        if step["op"] == "h":
            return (2,)
        return tuple(self.tensors[i] for i in step["args"])

    def run_step(self, step: dict) -> Any:
        lib, do = self.lib, step["do"]
        if do == "tensor":
            t = lib.empty(2, device=step["device"], requires_grad=step["grad"])
            self.tensors.append(t)
            return names(lib._C._dispatch_keys(t))
        if do == "impl":
            spec = step["kernel"]
            label = f"{step['op']}@{step['key'] or '(default)'}"
            fn = (
                lib.library.fallthrough_kernel
                if spec["fallthrough"]
                else self.kernel(label, step["op"], spec)
            )
            keyset = bool(spec.get("keyset"))
            self.libs[step["lib"]].impl(step["op"], fn, step["key"], with_keyset=keyset)
            return "ok"
        if do == "fallback":
            spec, name = step["kernel"], f"{step['lib']} fallbacks"
            if name not in self.libs:
                self.libs[name] = lib.library.Library("_", "IMPL")
            fn = (
                lib.library.fallthrough_kernel
                if spec["fallthrough"]
                else self.fallback_kernel(f"fallback@{step['key']}", spec)
            )
            keyset = bool(spec.get("keyset"))
            self.libs[name].fallback(fn, step["key"], with_keyset=keyset)
            return "ok"
        if do == "open":
            self.libs["fragment"] = lib.library.Library(self.ns, "FRAGMENT")
            return "ok"
        if do == "destroy":
            self.libs.pop("fragment")._destroy()
            if "fragment fallbacks" in self.libs:
                self.libs.pop("fragment fallbacks")._destroy()
            return "ok"
        if do == "define again":
            self.libs["main"].define(SCHEMAS[step["op"]])
            return "defined twice"
        if do == "call":
            return self.result(lambda: self.op(step["op"])(*self.arguments(step)))
        if do == "redispatch":
            return self.result(
                lambda: self.op(step["op"]).redispatch(
                    _set(lib, step["keys"]), *self.arguments(step)
                )
            )
        if do == "table":
            dump = parse_table(lib._C._dispatch_dump_table(f"{self.ns}::{step['op']}"))
            return {k: v for k, v in dump.items() if v != "missing"}
        if do == "tls":
            return self.tls() | {
                "inference mode": bool(lib.is_inference_mode_enabled()),
                "excluded?": {
                    k: bool(lib._C._dispatch_tls_is_dispatch_key_excluded(_key(lib, k)))
                    for k in step["ask"]
                },
                "included?": {
                    k: bool(lib._C._dispatch_tls_is_dispatch_key_included(_key(lib, k)))
                    for k in step["ask"]
                },
            }
        if do == "keyset":
            return self.keyset(step)
        if do == "lookup":
            k, alias = (_key(lib, n) for n in step["alias"])
            return {
                "is alias": [bool(lib._C._dispatch_is_alias_key(k)) for k in (k, alias)],
                "included in alias": bool(lib._C._dispatch_is_included_in_alias(k, alias)),
                "priority order": [
                    k.name for k in lib.priority_order([_key(lib, n) for n in step["order"]])
                ],
            } | (
                {}
                if step["device"] is None
                else {"tensor_key_set": repr(lib.tensor_key_set(step["device"], step["inference"]))}
            )
        if do == "with":
            with self.context(step["ctx"]):
                return self.run_steps(step["body"])
        raise ValueError(f"unknown step {do}")

    def keyset(self, step: dict) -> dict:
        lib = self.lib
        ks = lib._C.DispatchKeySet(_key(lib, step["start"]))
        reprs = []
        for op, k in step["chain"]:
            if isinstance(k, dict):
                other = lib._C._dispatch_keys(self.tensors[k["tensor"]])
            else:
                other = lib._C.DispatchKeySet(_key(lib, k))
            if op == "add":
                ks = ks.add(_key(lib, k))
            elif op == "remove":
                ks = ks.remove(_key(lib, k))
            elif op == "|":
                ks = ks | other
            elif op == "&":
                ks = ks & other
            else:
                ks = ks - other
            reprs.append(repr(ks))  # only the week's keys: torch prints the same text
        out: dict[str, Any] = {
            "steps": reprs,
            "has": {k: bool(ks.has(_key(lib, k))) for k in step["has"]},
        }
        if step["highest"]:
            out["highest"] = ks.highestPriorityTypeId().name
        return out

    def context(self, ctx: dict) -> Any:
        lib, kind = self.lib, ctx["kind"]
        if kind == "inference":
            return lib.inference_mode(ctx["mode"])
        if kind == "no_grad":
            return lib.no_grad()
        if kind == "exclude":
            return lib._C._ExcludeDispatchKeyGuard(_set(lib, ctx["keys"]))
        return lib._C._IncludeDispatchKeyGuard(_key(lib, ctx["key"]))

    def run_steps(self, steps: list[dict]) -> list:
        out = []
        for step in steps:
            try:
                out.append(self.run_step(step))
            except Exception as exc:  # noqa: BLE001 - the error is the observation
                out.append(_raised(exc))
        return out


def execute(lib: Any, program: dict) -> dict:
    """Run ``program`` with ``lib``; every step's observation, in order. Every library it
    opened is destroyed at the end (torch's registrations are global to the process)."""
    run = _Run(lib, program)
    obs: dict[str, Any] = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # torch warns when a kernel is overridden
        try:
            run.libs["main"] = lib.library.Library(program["ns"], "DEF")
            for op in program["ops"]:
                run.libs["main"].define(SCHEMAS[op])
            obs["define"] = "ok"
        except Exception as exc:  # noqa: BLE001 - an engine that cannot define yet
            obs["define"] = _raised(exc)
        if obs["define"] == "ok":
            obs["steps"] = run.run_steps(program["steps"])
        obs["destroy"] = "ok"
        for name in ("fragment", "fragment fallbacks", "main fallbacks", "main"):
            if name in run.libs:
                try:
                    run.libs.pop(name)._destroy()
                except Exception as exc:  # noqa: BLE001 - recorded, and the rest destroyed
                    obs["destroy"] = _raised(exc)
    return obs


# === describing ==================================================================================


def _describe_kernel(spec: dict) -> str:
    if spec["fallthrough"]:
        return "fallthrough_kernel"
    then = spec["then"]
    ks = "ks, " if spec["keyset"] else ""
    if then["kind"] == "return":
        return f"lambda {ks}*args: (record, return the first tensor)"
    mask = {
        "after_autograd": "ks & _after_autograd_keyset",
        "after_adiv": "ks & _after_ADInplaceOrView_keyset",
        "remove_top": "ks.remove(ks.highestPriorityTypeId())",
        "minus": f"ks - DispatchKeySet({then.get('key')})",
        "explicit": f"DispatchKeySet({' | '.join(then.get('keys', []))})",
    }[then["mask"]]
    return f"lambda {ks}*args: (record, op.redispatch({mask}, *args))"


def _describe_step(step: dict, indent: str, tensors: list[int]) -> list[str]:
    """``tensors`` counts the tensors made so far, to name them t0, t1, ..."""
    do = step["do"]
    if do == "tensor":
        tensors.append(len(tensors))
        t = f"t{tensors[-1]}"
        return [f"{indent}{t} = empty(2, device={step['device']!r}, requires_grad={step['grad']})"]
    if do == "impl":
        ks = ", with_keyset=True" if step["kernel"].get("keyset") else ""
        kernel = _describe_kernel(step["kernel"])
        return [f"{indent}{step['lib']}.impl({step['op']!r}, {kernel}, {step['key']!r}{ks})"]
    if do == "fallback":
        ks = ", with_keyset=True" if step["kernel"].get("keyset") else ""
        kernel = _describe_kernel(step["kernel"])
        return [f"{indent}Library('_', 'IMPL').fallback({kernel}, {step['key']!r}{ks})"]
    if do == "open":
        return [f"{indent}fragment = Library(ns, 'FRAGMENT')"]
    if do == "destroy":
        return [f"{indent}fragment._destroy()"]
    if do == "define again":
        return [f"{indent}main.define({SCHEMAS[step['op']]!r})"]
    if do in ("call", "redispatch"):
        args = "2" if step["op"] == "h" else ", ".join(f"t{i}" for i in step["args"])
        if do == "call":
            return [f"{indent}ops.ns.{step['op']}({args})"]
        ks = " | ".join(step["keys"])
        return [f"{indent}ops.ns.{step['op']}.default.redispatch(DispatchKeySet({ks}), {args})"]
    if do == "table":
        return [f"{indent}_dispatch_dump_table('ns::{step['op']}')"]
    if do == "tls":
        return [f"{indent}(the TLS sets, is_grad_enabled(), is_inference_mode_enabled())"]
    if do == "lookup":
        k, alias = step["alias"]
        return [
            f"{indent}_dispatch_is_included_in_alias({k}, {alias}); "
            f"priority_order({step['order']}); tensor_key_set({step['device']!r}, "
            f"{step['inference']})"
        ]
    if do == "keyset":
        chain = "".join(
            f"; ks = ks.{op}({_operand(k, True)})"
            if op in ("add", "remove")
            else f"; ks = ks {op} {_operand(k, False)}"
            for op, k in step["chain"]
        )
        return [f"{indent}ks = DispatchKeySet({step['start']}){chain}"]
    ctx = step["ctx"]
    head = {
        "inference": f"inference_mode({ctx.get('mode')})",
        "no_grad": "no_grad()",
        "exclude": f"_ExcludeDispatchKeyGuard({' | '.join(ctx.get('keys', []))})",
        "include": f"_IncludeDispatchKeyGuard({ctx.get('key')})",
    }[ctx["kind"]]
    lines = [f"{indent}with {head}:"]
    for s in step["body"]:
        lines += _describe_step(s, indent + "    ", tensors)
    return lines


def _operand(k: Any, method: bool) -> str:
    if isinstance(k, dict):
        return f"_dispatch_keys(t{k['tensor']})"
    return k if method else f"DispatchKeySet({k})"


def describe(program: dict) -> str:
    """The program as a few lines of Python."""
    lines = [f"main = Library({program['ns']!r}, 'DEF')"]
    lines += [f"main.define({SCHEMAS[op]!r})" for op in program["ops"]]
    tensors: list[int] = []
    for step in program["steps"]:
        lines += _describe_step(step, "", tensors)
    return "\n".join(lines)


# === a broken engine, for the test that shows the harness is not blind ===========================


def BREAK(module: Any) -> None:  # noqa: N802 - the name the test looks for
    """Swap two functionality keys' priority: ADInplaceOrView above AutogradFunctionality."""
    order = module.functionality_keys()
    i, j = order.index(module.K.ADInplaceOrView), order.index(module.K.AutogradFunctionality)
    order[i], order[j] = order[j], order[i]
    module.functionality_keys = lambda: list(order)
