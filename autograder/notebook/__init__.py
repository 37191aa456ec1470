"""The notebook front end: ``check(...)`` renders the pass/fail table inline, ``progress(...)``
the list of tasks done, ``side_by_side(...)`` your tensor drawn beside torch's (week 1), and
``compare``, ``table_side_by_side`` and ``chain_side_by_side`` a key set, an operator's
computed dispatch table and the kernels one call runs, in torch and in your engine (week 2).
None of them ever raises: an unfinished engine is shown, not stopped on.

The checks run the engine in a fresh child process each time, so edits to the lab file are
picked up without restarting the kernel (``mine()`` also imports it fresh). The
TORCHLAB_IMPL environment variable, a path, makes them check another engine file.
"""

from __future__ import annotations

import html
import os
from collections.abc import Callable
from typing import Any

from autograder.check_server import run_week_warm
from autograder.notebook.viz import (
    HTML,
    TableEntry,
    draw_dispatch_table,
    draw_kernel_chain,
    parse_dispatch_table,
    show_storage,
)
from autograder.report import Report
from autograder.weeks import get_week
from autograder.workers import Limits


def check(
    week: str = "week1", *select: str, impl: str | None = None, timeout: float = 5.0
) -> Report:
    """Check ``week`` (optionally only cases matching ``select``: names or tasks like "1.4")."""
    impl = impl or os.environ.get("TORCHLAB_IMPL", "lab")
    try:
        limits = Limits(case_seconds=timeout, announce_builds=True)
        return run_week_warm(get_week(week), impl, list(select) or None, limits=limits)
    except Exception as exc:  # noqa: BLE001 - a notebook cell must never stop on a check
        return Report(f"{week}", impl, problems=[f"the check could not run: {exc}"])


def mine(week: str = "week1", impl: str | None = None) -> Any:
    """Your engine module, imported fresh from its file (so edits show up at once)."""
    from autograder.labs import resolve_impl
    from autograder.worker import load_engine

    w = get_week(week)
    path = resolve_impl(w, impl or os.environ.get("TORCHLAB_IMPL", "lab"))
    return load_engine(str(path), f"torchlab_mine_{w.module}")


def show(fn: Callable[[], Any]) -> Any:
    """Run ``fn`` and return its result; an error is shown as a line instead of stopping the
    notebook (your engine may not be finished yet)."""
    try:
        return fn()
    except NotImplementedError as exc:
        return HTML(
            f"<span style='color:#9a6700'>not implemented yet: {html.escape(str(exc))}</span>"
        )
    except Exception as exc:  # noqa: BLE001 - shown, not raised
        text = html.escape(f"{type(exc).__name__}: {exc}")
        return HTML(f"<span style='color:#cf222e'>{text}</span>")


# ---- progress: which tasks are done -----------------------------------------------------------

TASK_TITLES: dict[str, dict[str, str]] = {
    "week1": {
        "1.1": "contiguous_strides: the strides of a fresh tensor",
        "1.2": "element offsets and the storage size",
        "1.3": "is_contiguous and dense layouts",
        "1.4": "view and its chunk rule",
        "1.5": "permute, transpose, t",
        "1.6": "narrow, select, slicing and indexing",
        "1.7": "unsqueeze, squeeze, flatten",
        "1.8": "expand and broadcasting",
        "1.9": "unfold and as_strided",
        "1.10": "contiguous, reshape, clone",
        "1.11": "+ - * with broadcasting and type promotion",
        "1.12": "in-place writes through views",
        "1.13": "empty_aligned: rows on 32-byte boundaries",
    },
    "week2": {
        "2.1": "the dispatch keys in torch's priority order",
        "2.2": "key sets, a tensor's keys, the thread-local include/exclude sets",
        "2.3": "the operator table: aliases, fallbacks, fallthroughs",
        "2.4": "calling through the dispatcher: key set, redispatch, the chain of kernels",
    },
    "week2b": {
        "2.5": "a custom op: custom_op, register_fake, register_autograd",
        "2.6": "one kernel per key with Library.impl",
        "2.7": "a TorchDispatchMode that records the aten ops",
        "2.8": "the chain of kernels one call runs, from torch's introspection",
    },
    "week3": {
        "3.1": "tensors and leaves: requires_grad, is_leaf, detach, grad mode",
        "3.2": "the ops and their backward nodes, broadcasting reduced",
        "3.3": "the engine: dependencies, the ready queue, backward and grad",
        "3.4": "version counter, create_graph, hooks in torch's order",
        "3.5": "autograd.Function and gradcheck",
        "3.6": "checkpoint and saved-tensor hooks",
        "3.7": "Module, Parameter, Linear, state_dict",
        "3.8": "SGD and Adam, a training run",
    },
    "week4": {
        "4.1": "sizes and pools: round_size, segment sizes, the settings string",
        "4.2": "blocks: best fit, splitting, merging, streams, oversize blocks",
        "4.3": "the miss path: freeing the cache, retries, out of memory, empty_cache",
        "4.4": "statistics named as torch.cuda.memory_stats names them",
        "4.5": "the chip questions: alignment, first fit, expandable segments, traces",
    },
    "week4c": {
        "4.6": "sizes in C++: round_size, the power-of-two divisions, segment sizes",
        "4.7": "blocks in C++: a std::set pool, best fit, split, merge, malloc and free",
        "4.8": "the miss path in C++: release, retry, OutOfMemoryError, garbage collection",
        "4.9": "statistics in C++: memory_stats as a sorted std::map, peaks and resets",
    },
    "week2c": {
        "2.9": "the op from C++: TORCH_LIBRARY, and its CPU kernel",
        "2.10": "the Autograd kernel: a torch::autograd::Function's backward",
        "2.11": "the Meta kernel: shapes for meta, fake tensors and torch.compile",
        "2.12": "a boxed fallback at a spare key that logs every call",
    },
    "week5": {
        "5.1": "the device in Python: rename, torch.labdev, generated methods",
        "5.2": "the allocator: 32-byte aligned blocks, counted (labdev.cpp)",
        "5.3": "the device guard (labdev.cpp)",
        "5.4": "creating tensors: empty and empty_strided (labdev.cpp)",
        "5.5": "copies between the CPU and the device (labdev.cpp)",
        "5.6": "views that share storage: as_strided and view (labdev.cpp)",
        "5.7": "kernels: fill_, add, mul, sum, mm, relu (labdev.cpp)",
        "5.8": "the boxed CPU fallback, and a model trained on the device (labdev.cpp)",
        "5.9": "meta shape functions: broadcast, matmul, sum, conv2d, view",
        "5.10": "meta kernels for custom ops: register_fake and C++",
    },
    "week6": {
        "6.1": "the backend contract: a recording backend and explain",
        "6.2": "capture: Python 3.11 bytecode to an FX graph",
        "6.3": "graph breaks: print, branches on tensors, resuming",
        "6.4": "guards: TENSOR_MATCH, EQUALS_MATCH, lists, aliasing, grad mode",
        "6.5": "the cache: recompiles, the limit, automatic dynamic shapes",
        "6.6": "ATen tracing: a dispatch mode under FakeTensorMode",
        "6.7": "functionalization: no mutation, views replayed",
        "6.8": "decompositions: big ops written with small ones",
        "6.9": "the partition: the joint graph cut into forward and backward",
        "6.10": "a loop IR and fusion: kernels and extern calls",
        "6.11": "code generation: Python kernels and a wrapper",
        "6.12": 'backend="labdev": the whole stack training a model',
    },
    "week7": {
        "7.1": "the store: LabStore, as dist.HashStore",
        "7.2": "point-to-point: isend, irecv and their Work",
        "7.3": "collectives by algorithm: binomial trees and rings, every ReduceOp",
        "7.4": 'the backend "labccl": dist.* and real DDP on your library',
        "7.5": "DDP's gradient buckets: compute_bucket_assignment_by_size",
        "7.6": "MiniDDP: DDP's reducer, overlap and the rebuilt buckets",
        "7.7": "Communication hooks: allreduce_hook and fp16_compress_hook",
        "7.8": "fully_shard by hand: shards, all-gathers and reduce-scatters as FSDP2",
    },
    "week7c": {
        "7.9": "Work and point-to-point in C++: a c10d::Work with its future, isend, irecv",
        "7.10": "collectives in C++: binomial trees and rings, every ReduceOp gloo offers",
        "7.11": "the backend in C++: a c10d::Backend under dist.*, real DDP and FSDP2",
    },
}


def progress(week: str = "week1", impl: str | None = None, timeout: float = 5.0) -> HTML:
    """Shows every task of ``week`` as a line: done (&#10003;) when all of the task's own cases
    pass, with how many pass. Runs the week's public cases; re-run the cell to refresh."""
    try:
        report = check(week, impl=impl, timeout=timeout)
        return HTML(render_progress(week, report))
    except Exception as exc:  # noqa: BLE001 - a notebook cell must never stop on progress
        text = html.escape(f"{type(exc).__name__}: {exc}")
        return HTML(f"<div class='torchlab-progress'>the progress could not be shown: {text}</div>")


def render_progress(week: str, report: Report) -> str:
    """The HTML list ``progress`` shows, from a report of the week's cases."""
    from autograder.cases import task_key

    titles = TASK_TITLES.get(week, {})
    tally = report.task_progress()
    waiting: dict[str, int] = {}  # own cases that only wait for code to be written
    for r in report.results:
        if r.own_task and not r.hidden and r.status == "not implemented":
            waiting[r.own_task] = waiting.get(r.own_task, 0) + 1
    tasks = sorted(set(titles) | set(tally), key=task_key)
    done = sum(1 for t in tasks if t in tally and tally[t][0] == tally[t][1] > 0)
    items = []
    for task in tasks:
        passed, total = tally.get(task, (0, 0))
        ok = total > 0 and passed == total
        mark, color = ("&#10003;", "#1a7f37") if ok else ("&#10007;", "#cf222e")
        if not total:
            count = "no cases yet"
        else:
            count = f"{passed}/{total} {'case' if total == 1 else 'cases'} passed"
            if waiting.get(task):
                count += f" ({waiting[task]} not implemented yet)"
        title = html.escape(titles.get(task, ""))
        items.append(
            f"<li class='{'torchlab-done' if ok else 'torchlab-todo'}' style='list-style:none'>"
            f"<span style='color:{color};font-weight:bold'>{mark}</span> "
            f"<b>Task {html.escape(task)}</b> {title}: {html.escape(count)}</li>"
        )
    problems = "".join(f"<p style='color:#cf222e'>{html.escape(p)}</p>" for p in report.problems)
    head = f"{html.escape(report.title)}: {done} of {len(tasks)} tasks done"
    return (
        f"<div class='torchlab-progress'><h4>{head}</h4>{problems}"
        f"<ul style='padding-left:0'>{''.join(items)}</ul>"
        f"<p style='color:#6b7280'>{html.escape(report.summary())}. "
        "Re-run this cell to refresh.</p></div>"
    )


# ---- side by side: your tensor beside torch's ---------------------------------------------------


def side_by_side(
    expr: Callable[[Any], Any],
    name: str = "",
    *,
    torch_expr: Callable[[Any], Any] | None = None,
    values: bool = True,
    week: str = "week1",
    impl: str | None = None,
) -> HTML:
    """Draws the storage of ``expr(torch)`` beside that of ``expr(your module)`` and says in
    words where the two differ: shape, stride, storage offset, dtype, storage size,
    contiguity, values. An error on either side is shown as a line (``not implemented yet:
    ...`` while a task is unwritten).

    ``torch_expr`` replaces ``expr`` on torch's side (for an op torch does not have, such as
    ``empty_aligned``); ``values=False`` skips the values (an ``empty`` tensor's are garbage).
    """
    import torch

    name = name or "the expression"
    ours = _attempt(lambda: (torch_expr or expr)(torch))
    try:
        module: Any = mine(week, impl)
        path = getattr(module, "__file__", None)
        theirs = _attempt(lambda: expr(module), path)
    except Exception as exc:  # noqa: BLE001 - a broken lab file is shown, not raised
        from autograder.worker import describe_exception

        theirs = _Outcome(error=f"your file could not be imported: {describe_exception(exc)}")
    try:
        verdict, lines = _verdict(ours, theirs, values)
    except Exception as exc:  # noqa: BLE001
        verdict, lines = "differ", [f"the two results could not be compared: {exc}"]
    colors = {"same": "#1a7f37", "not-implemented": "#9a6700"}
    items = "".join(f"<li>{html.escape(line)}</li>" for line in lines)
    return HTML(
        "<div class='torchlab-side-by-side'>"
        f"<div style='font-family:monospace;font-weight:bold'>{html.escape(name)}</div>"
        "<div style='display:flex;gap:32px;flex-wrap:wrap;align-items:flex-start'>"
        f"<div><div><b>torch</b></div>{_panel(ours, 'torch')}</div>"
        f"<div><div><b>yours</b></div>{_panel(theirs, 'yours')}</div></div>"
        f"<div class='torchlab-verdict' data-verdict='{verdict}' "
        f"style='color:{colors.get(verdict, '#cf222e')}'><ul>{items}</ul></div></div>"
    )


class _Outcome:
    """What one side gave: a tensor, or an error line (``missing``: not implemented)."""

    def __init__(
        self, value: Any = None, error: str = "", kind: str = "", missing: bool = False
    ) -> None:
        self.value, self.error, self.kind, self.missing = value, error, kind, missing


def _attempt(fn: Callable[[], Any], path: str | None = None) -> _Outcome:
    from autograder.worker import describe_exception

    try:
        return _Outcome(fn())
    except NotImplementedError as exc:
        return _Outcome(
            error=f"not implemented yet: {exc}", kind="NotImplementedError", missing=True
        )
    except Exception as exc:  # noqa: BLE001 - shown, not raised
        return _Outcome(error=describe_exception(exc, path), kind=type(exc).__name__)


def _panel(side: _Outcome, label: str) -> str:
    if side.error:
        color = "#9a6700" if side.missing else "#cf222e"
        return f"<div style='color:{color}'>{html.escape(side.error)}</div>"
    try:
        return show_storage(side.value, label).text
    except Exception as exc:  # noqa: BLE001
        text = f"this result cannot be drawn ({type(exc).__name__}: {exc}): {side.value!r}"
        return f"<div style='color:#cf222e'>{html.escape(text[:500])}</div>"


def _read(fn: Callable[[], Any]) -> tuple[Any, str]:
    """A property of a result, or why it could not be read."""
    try:
        return fn(), ""
    except NotImplementedError as exc:
        return None, f"not implemented yet: {exc}"
    except Exception as exc:  # noqa: BLE001
        return None, f"{type(exc).__name__}: {exc}"


def _properties(t: Any, values: bool) -> dict[str, Callable[[], Any]]:
    props: dict[str, Callable[[], Any]] = {
        "shape": lambda: tuple(int(s) for s in t.shape),
        "stride": lambda: tuple(int(s) for s in t.stride()),
        "storage offset": lambda: int(t.storage_offset()),
        "dtype": lambda: str(t.dtype).removeprefix("torch."),
        "storage size (elements)": lambda: (
            int(t.untyped_storage().nbytes()) // int(t.element_size())
        ),
        "contiguous": lambda: bool(t.is_contiguous()),
    }
    if values:
        props["values"] = lambda: t.tolist()
    return props


def _verdict(ours: _Outcome, theirs: _Outcome, values: bool) -> tuple[str, list[str]]:
    """("same" | "differ" | "not-implemented", the lines that say so in words)."""
    if ours.error:
        if theirs.error and theirs.kind == ours.kind:
            return "same", [f"Both raise {ours.kind}, as they should: {ours.error}"]
        if theirs.missing:
            return "not-implemented", [
                f"torch raises here ({ours.error}); yours says {theirs.error}"
            ]
        got = f"yours raises {theirs.error}" if theirs.error else "yours returns a tensor"
        return "differ", [f"Different: torch raises {ours.error}, but {got}."]
    if theirs.missing:
        return "not-implemented", [
            f"Nothing to compare yet: yours says {theirs.error}. Write it, then re-run this cell."
        ]
    if theirs.error:
        return "differ", [f"Different: torch gives a tensor, but yours raises {theirs.error}"]
    want, got = _properties(ours.value, values), _properties(theirs.value, values)
    differ, waiting, same = [], [], []
    for prop, read in want.items():
        expected, _ = _read(read)
        actual, problem = _read(got[prop])
        if problem:
            waiting.append(f"{prop}: not compared yet, yours says {problem}")
        elif actual != expected:
            differ.append(f"Different {prop}: torch {expected!r}, yours {actual!r}")
        else:
            same.append(prop)
    if differ:
        return "differ", differ + ([f"Same {', '.join(same)}."] if same else []) + waiting
    lines = [f"Same {', '.join(same)}."] + waiting
    return ("not-implemented" if waiting else "same"), lines


# ---- week 2: the same dispatcher question asked of torch and of your engine ---------------------
#
# Your week-2 engine mirrors torch's names (``_C``, ``library``, ``ops``, ``empty``,
# ``inference_mode``, ``no_grad``), so each helper below takes ``lib`` (torch, or your module)
# and runs the same code on both.

DEMO_NS = "torchlab_demo"  # the namespace of the throwaway operators these helpers define

# The runtime keys of the week-2 engine, highest priority first (the order a call tries them).
WEEK2_KEYS = (
    "PythonTLSSnapshot",
    "AutocastCUDA",
    "AutocastCPU",
    "AutogradMeta",
    "AutogradPrivateUse1",
    "AutogradCUDA",
    "AutogradCPU",
    "ADInplaceOrView",
    "Functionalize",
    "Python",
    "BackendSelect",
    "Meta",
    "PrivateUse1",
    "CUDA",
    "CPU",
)


def kernel_chain(
    lib: Any,
    make: Callable[[Any], Any],
    keys: tuple[str, ...] = ("CPU", "Meta", "Autograd", "ADInplaceOrView"),
    context: Callable[[Any], Any] | None = None,
) -> list[str]:
    """The kernels one call runs, in order: defines ``torchlab_demo::f(Tensor x) -> Tensor``
    with a logging kernel on each of ``keys`` (the Autograd and ADInplaceOrView ones
    redispatch below themselves, as torch's do), calls it on ``make(lib)`` (inside
    ``context(lib)`` if given) and returns the keys whose kernels ran. Raises what the
    library raises; the registrations are undone either way."""
    log: list[str] = []
    masks = {
        "Autograd": lib._C._after_autograd_keyset,
        "ADInplaceOrView": lib._C._after_ADInplaceOrView_keyset,
    }
    library = lib.library.Library(DEMO_NS, "FRAGMENT")
    try:
        library.define("f(Tensor x) -> Tensor")
        op = getattr(lib.ops, DEMO_NS).f
        for key in keys:

            def kernel(ks: Any, x: Any, key: str = key) -> Any:
                log.append(key)
                if key in masks:
                    return op.default.redispatch(ks & masks[key], x)
                return x

            library.impl("f", kernel, key, with_keyset=True)
        if context is None:
            op(make(lib))
        else:
            with context(lib):
                op(make(lib))
    finally:
        library._destroy()
    return log


def demo_table(
    lib: Any, registrations: tuple[str, ...] = ("CPU", "Autograd")
) -> dict[str, TableEntry]:
    """The computed dispatch table of ``torchlab_demo::g(Tensor x) -> Tensor`` with a kernel
    registered on each key of ``registrations`` (runtime or alias keys; "fallthrough:KEY"
    registers ``fallthrough_kernel`` there), parsed from ``lib._C._dispatch_dump_table``."""
    library = lib.library.Library(DEMO_NS, "FRAGMENT")
    try:
        library.define("g(Tensor x) -> Tensor")
        for key in registrations:
            if key.startswith("fallthrough:"):
                library.impl("g", lib.library.fallthrough_kernel, key.split(":", 1)[1])
            else:
                library.impl("g", _identity, key)
        return parse_dispatch_table(lib._C._dispatch_dump_table(f"{DEMO_NS}::g"))
    finally:
        library._destroy()


def _identity(x: Any) -> Any:
    return x


def _both(fn: Callable[[Any], Any], week: str, impl: str | None) -> tuple[_Outcome, _Outcome]:
    """``fn(torch)`` and ``fn(your module)``, each as a value or an error line."""
    import torch

    ours = _attempt(lambda: fn(torch))
    try:
        module: Any = mine(week, impl)
    except Exception as exc:  # noqa: BLE001 - a broken or missing lab file is shown
        from autograder.worker import describe_exception

        return ours, _Outcome(error=f"your engine could not be loaded: {describe_exception(exc)}")
    return ours, _attempt(lambda: fn(module), getattr(module, "__file__", None))


def _verdict_line(ours: _Outcome, theirs: _Outcome, same: bool) -> tuple[str, str]:
    if ours.error:
        return "differ", f"torch raised: {ours.error}"
    if theirs.missing:
        return "not-implemented", f"Nothing to compare yet: yours says {theirs.error}"
    if theirs.error:
        return "differ", f"Different: yours raises {theirs.error}" if theirs.kind else theirs.error
    return ("same", "Same as torch.") if same else ("differ", "Different from torch (see above).")


_VERDICT_COLORS = {"same": "#1a7f37", "not-implemented": "#9a6700"}


def _two_panels(cls: str, name: str, left: str, right: str, verdict: str, line: str) -> HTML:
    return HTML(
        f"<div class='{cls}'>"
        f"<div style='font-family:monospace;font-weight:bold'>{html.escape(name)}</div>"
        "<div style='display:flex;gap:32px;flex-wrap:wrap;align-items:flex-start'>"
        f"<div><div><b>torch</b></div>{left}</div><div><div><b>yours</b></div>{right}</div></div>"
        f"<div class='torchlab-verdict' data-verdict='{verdict}' "
        f"style='color:{_VERDICT_COLORS.get(verdict, '#cf222e')}'>{html.escape(line)}</div></div>"
    )


def _error_panel(side: _Outcome) -> str:
    color = "#9a6700" if side.missing else "#cf222e"
    return f"<div style='color:{color}'>{html.escape(side.error)}</div>"


def compare(
    expr: Callable[[Any], Any], name: str = "", *, week: str = "week2", impl: str | None = None
) -> HTML:
    """Shows ``repr(expr(torch))`` beside ``repr(expr(your module))`` and whether they are the
    same text: for key sets, keys and the thread-local sets, whose printed forms match
    torch's. Never raises."""
    try:
        ours, theirs = _both(lambda lib: repr(expr(lib)), week, impl)

        def panel(side: _Outcome) -> str:
            if side.error:
                return _error_panel(side)
            return f"<pre style='margin:0'>{html.escape(str(side.value))}</pre>"

        verdict, line = _verdict_line(ours, theirs, ours.value == theirs.value)
        return _two_panels(
            "torchlab-compare", name or "the expression", panel(ours), panel(theirs), verdict, line
        )
    except Exception as exc:  # noqa: BLE001 - a notebook cell never stops on a drawing
        return HTML(f"<div class='torchlab-compare'>{html.escape(repr(exc))}</div>")


def chain_side_by_side(
    make: Callable[[Any], Any],
    name: str = "",
    *,
    keys: tuple[str, ...] = ("CPU", "Meta", "Autograd", "ADInplaceOrView"),
    context: Callable[[Any], Any] | None = None,
    week: str = "week2",
    impl: str | None = None,
) -> HTML:
    """Draws the chain of kernels one call runs (:func:`kernel_chain`) in torch and in your
    engine, side by side, and says whether they agree. Never raises."""
    try:
        ours, theirs = _both(lambda lib: kernel_chain(lib, make, keys, context), week, impl)

        def panel(side: _Outcome) -> str:
            if side.error:
                return _error_panel(side)
            return draw_kernel_chain(side.value, f"{DEMO_NS}::f").text

        verdict, line = _verdict_line(ours, theirs, ours.value == theirs.value)
        if verdict == "differ" and not theirs.error:
            line = f"Different: torch runs {ours.value}, yours runs {theirs.value}."
        return _two_panels(
            "torchlab-chains", name or "one call", panel(ours), panel(theirs), verdict, line
        )
    except Exception as exc:  # noqa: BLE001
        return HTML(f"<div class='torchlab-chains'>{html.escape(repr(exc))}</div>")


def table_side_by_side(
    registrations: tuple[str, ...] = ("CPU", "Autograd"),
    name: str = "",
    *,
    keys: tuple[str, ...] = WEEK2_KEYS,
    week: str = "week2",
    impl: str | None = None,
) -> HTML:
    """Draws the computed table of an operator with kernels on ``registrations``
    (:func:`demo_table`) in torch and in your engine, for ``keys``, and names the keys whose
    kind differs. The kernel column differs by nature (torch names a file, yours says
    "registered" or "torch"), so only the kinds and fallthroughs are compared. Never raises."""
    try:
        ours, theirs = _both(lambda lib: demo_table(lib, registrations), week, impl)
        title = f"{DEMO_NS}::g with kernels on {', '.join(registrations) or 'nothing'}"

        def panel(side: _Outcome) -> str:
            if side.error:
                return _error_panel(side)
            return draw_dispatch_table(side.value, keys=keys, title=title).text

        def kinds(table: dict[str, TableEntry]) -> dict[str, tuple[str, bool]]:
            return {
                k: (table[k].kind, table[k].fallthrough) if k in table else ("missing", False)
                for k in keys
            }

        same = False
        line = ""
        if not ours.error and not theirs.error:
            want, got = kinds(ours.value), kinds(theirs.value)
            wrong = [k for k in keys if want[k] != got[k]]
            same = not wrong
            line = "; ".join(
                f"{k}: torch {_kind_text(*want[k])}, yours {_kind_text(*got[k])}" for k in wrong
            )
        verdict, default = _verdict_line(ours, theirs, same)
        if verdict == "differ" and line:
            default = f"Different: {line}."
        return _two_panels(
            "torchlab-tables", name or title, panel(ours), panel(theirs), verdict, default
        )
    except Exception as exc:  # noqa: BLE001
        return HTML(f"<div class='torchlab-tables'>{html.escape(repr(exc))}</div>")


def _kind_text(kind: str, fallthrough: bool) -> str:
    return f"fallthrough {kind}" if fallthrough else kind
