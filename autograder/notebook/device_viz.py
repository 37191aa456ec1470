"""Week 5's notebook helpers: a new device seen from Python, whichever state it is in.

The notebook runs small programs on ``labdev`` while the learner is still writing it, so every
helper here turns an unfinished device into one line that says what to write next, never a
traceback:

- ``attempt(fn)``: ``fn()``'s result, or a hint ("write Task 5.4 first") when the device is
  not set up yet or a task it needs raises ``NotImplementedError`` (from Python or C++);
- ``keys_side_by_side(cpu, dev)``: the dispatch keys of a CPU tensor beside a device tensor's,
  row by row (``torch._C._dispatch_keys``);
- ``stats_table(rows)``: the device's memory counters after each step of a small program;
- ``shape_table(lib)``: the learner's meta shape functions (Task 5.9) beside the shapes
  torch's meta device gives for the same calls.

Each returns an HTML object (Jupyter shows it) and never raises.
"""

from __future__ import annotations

import html
import itertools
import re
from collections.abc import Callable, Sequence
from typing import Any

from autograder.notebook.viz import HTML

_TASK = re.compile(r"Task (\d+\.\d+)")
_NOT_SET_UP = (
    "device type at start of device string",  # torch.device("labdev") before the rename
    "has no attribute 'labdev'",  # torch.labdev, Tensor.is_labdev, torch.ops.labdev...
    "no attribute 'is_labdev'",
    "torch.ops.labdev",
)
_COUNTER = itertools.count()


def hint(exc: BaseException) -> str:
    """One line saying what an unfinished device needs before ``exc`` goes away."""
    text = str(exc).strip()
    first = text.splitlines()[0] if text else type(exc).__name__
    first = first.removeprefix("not implemented yet: ")
    task = _TASK.search(text)
    if task:
        then = "first, then re-run this cell."
        return f"not implemented yet: {first}. Write Task {task.group(1)} {then}"
    if any(marker in text for marker in _NOT_SET_UP):
        return (
            "the device is not set up yet: write Task 5.1 (setup and the module functions) "
            "first, run its cell, then re-run this cell."
        )
    return f"{type(exc).__name__}: {first[:300]}"


def _hint_html(exc: BaseException) -> HTML:
    color = "#9a6700" if isinstance(exc, NotImplementedError) or _TASK.search(str(exc)) else ""
    color = color or ("#9a6700" if "not set up" in hint(exc) else "#cf222e")
    return HTML(f"<div class='torchlab-hint' style='color:{color}'>{html.escape(hint(exc))}</div>")


def attempt(fn: Callable[[], Any]) -> Any:
    """``fn()``, or a one-line hint when the device (or a task it needs) is not written yet."""
    try:
        return fn()
    except Exception as exc:  # noqa: BLE001 - a demo cell never stops on an unfinished device
        return _hint_html(exc)


def fresh_qualname(name: str, ns: str = "torchlab_nb") -> str:
    """A custom op's name no cell has used yet in this kernel (re-running a cell defines the
    op again, and torch refuses a name twice)."""
    return f"{ns}{next(_COUNTER)}::{name}"


def _table(cls: str, head: Sequence[str], rows: Sequence[Sequence[str]], note: str = "") -> HTML:
    th = "".join(
        f"<th style='text-align:left;padding:2px 10px'>{html.escape(h)}</th>" for h in head
    )
    body = "".join(
        "<tr>" + "".join(f"<td style='padding:2px 10px'>{cell}</td>" for cell in row) + "</tr>"
        for row in rows
    )
    extra = f"<p style='color:#6b7280'>{html.escape(note)}</p>" if note else ""
    return HTML(f"<div class='{cls}'><table><tr>{th}</tr>{body}</table>{extra}</div>")


def _code(text: Any) -> str:
    return f"<code>{html.escape(str(text))}</code>"


# ---- dispatch keys -----------------------------------------------------------------------------


def dispatch_keys(t: Any) -> list[str]:
    """The keys of ``t``'s key set, highest priority first, from torch's printed key set."""
    import torch

    text = repr(torch._C._dispatch_keys(t))
    inner = text[text.index("(") + 1 : text.rindex(")")]
    return [k.strip() for k in inner.split(",") if k.strip()]


def _functionality(key: str) -> str:
    for backend in ("PrivateUse1", "CPU"):
        if key.endswith(backend):
            return key[: -len(backend)] or "backend"
    return key


def keys_side_by_side(cpu: Callable[[], Any], dev: Callable[[], Any]) -> HTML:
    """The dispatch keys of ``cpu()`` beside those of ``dev()``, one functionality per row:
    per-backend keys (CPU, AutogradCPU, AutocastCPU) line up with the device's."""
    try:
        left = dispatch_keys(cpu())
    except Exception as exc:  # noqa: BLE001
        return _hint_html(exc)
    try:
        right = dispatch_keys(dev())
    except Exception as exc:  # noqa: BLE001
        right = []
        missing = hint(exc)
    else:
        missing = ""
    by_kind = {_functionality(k): k for k in right}
    rows = []
    for key in left:
        other = by_kind.pop(_functionality(key), "")
        same = key == other
        mark = "same key" if same else ("backend's own key" if other else "")
        rows.append([_code(key), _code(other) if other else "", mark])
    rows += [["", _code(k), ""] for k in by_kind.values()]
    note = missing or (
        "The functionality is the same (dense, autograd, autocast, ADInplaceOrView); only the "
        "backend part of each per-backend key differs."
    )
    return _table("torchlab-keys", ["CPU tensor", "labdev tensor", ""], rows, note)


# ---- memory ------------------------------------------------------------------------------------

STAT_NAMES = (
    "allocated_bytes.all.current",
    "allocated_bytes.all.peak",
    "allocation.all.current",
    "allocation.all.allocated",
)


def stats_table(rows: Sequence[tuple[str, dict[str, int]]]) -> HTML:
    """One line per step of a program: what it did, then the device's counters after it."""
    try:
        body = [
            [html.escape(step)] + [html.escape(str(stats.get(k, "?"))) for k in STAT_NAMES]
            for step, stats in rows
        ]
        return _table("torchlab-memory", ["after", *STAT_NAMES], body)
    except Exception as exc:  # noqa: BLE001
        return _hint_html(exc)


# ---- meta shapes -------------------------------------------------------------------------------


def _meta(*shapes: Sequence[int]) -> list[Any]:
    import torch

    return [torch.empty(list(s), device="meta") for s in shapes]


def meta_examples() -> list[tuple[str, Callable[[Any], Any], Callable[[], Any]]]:
    """(the call, the learner's shape function applied to ``lib``, torch on the meta device)."""
    import torch
    import torch.nn.functional as F

    def shape(t: Any) -> list[int]:
        return list(t.shape)

    return [
        (
            "broadcast [8, 1, 6, 1] with [7, 1, 5]",
            lambda lib: lib.broadcast_shapes([8, 1, 6, 1], [7, 1, 5]),
            lambda: shape(torch.add(*_meta([8, 1, 6, 1], [7, 1, 5]))),
        ),
        (
            "matmul [10, 3, 4] @ [4, 5]",
            lambda lib: lib.matmul_shape([10, 3, 4], [4, 5]),
            lambda: shape(torch.matmul(*_meta([10, 3, 4], [4, 5]))),
        ),
        (
            "matmul [3] @ [2, 3, 4]",
            lambda lib: lib.matmul_shape([3], [2, 3, 4]),
            lambda: shape(torch.matmul(*_meta([3], [2, 3, 4]))),
        ),
        (
            "matmul [2, 3] @ [4, 5]",
            lambda lib: lib.matmul_shape([2, 3], [4, 5]),
            lambda: shape(torch.matmul(*_meta([2, 3], [4, 5]))),
        ),
        (
            "[2, 3, 4].sum(dim=(0, -1), keepdim=True)",
            lambda lib: lib.sum_shape([2, 3, 4], (0, -1), True),
            lambda: shape(_meta([2, 3, 4])[0].sum(dim=(0, -1), keepdim=True)),
        ),
        (
            "[2, 3, 4].sum(1)",
            lambda lib: lib.sum_shape([2, 3, 4], 1, False),
            lambda: shape(_meta([2, 3, 4])[0].sum(1)),
        ),
        (
            "conv2d [1, 3, 32, 32] * [8, 3, 5, 5], stride 2, padding 1",
            lambda lib: lib.conv2d_shape([1, 3, 32, 32], [8, 3, 5, 5], 2, 1),
            lambda: shape(F.conv2d(*_meta([1, 3, 32, 32], [8, 3, 5, 5]), stride=2, padding=1)),
        ),
        (
            "conv2d [2, 4, 9, 9] * [6, 2, 3, 3], dilation 2, groups 2",
            lambda lib: lib.conv2d_shape([2, 4, 9, 9], [6, 2, 3, 3], 1, 0, 2, 2),
            lambda: shape(F.conv2d(*_meta([2, 4, 9, 9], [6, 2, 3, 3]), dilation=2, groups=2)),
        ),
        (
            "[4, 6].view(3, -1)",
            lambda lib: lib.view_shape([4, 6], [3, -1]),
            lambda: shape(_meta([4, 6])[0].view(3, -1)),
        ),
        (
            "[4, 6].view(5, -1)",
            lambda lib: lib.view_shape([4, 6], [5, -1]),
            lambda: shape(_meta([4, 6])[0].view(5, -1)),
        ),
    ]


def _outcome(fn: Callable[[], Any]) -> tuple[str, str]:
    """(what to show, how to compare it): a shape, or the kind of error raised."""
    try:
        value = fn()
        return _code([int(s) for s in value]), f"shape {[int(s) for s in value]}"
    except NotImplementedError as exc:
        return f"<span style='color:#9a6700'>{html.escape(hint(exc))}</span>", "missing"
    except Exception as exc:  # noqa: BLE001 - an error is an answer too
        return f"raises {_code(type(exc).__name__)}", f"raises {type(exc).__name__}"


def shape_table(lib: Any) -> HTML:
    """The learner's shape functions (Task 5.9) beside torch's meta device, call by call."""
    try:
        rows = []
        for label, yours, theirs in meta_examples():
            mine_html, mine_key = _outcome(lambda yours=yours: yours(lib))
            torch_html, torch_key = _outcome(theirs)
            if mine_key == "missing":
                verdict = ""
            elif mine_key == torch_key:
                verdict = "<span style='color:#1a7f37'>&#10003; same</span>"
            else:
                verdict = "<span style='color:#cf222e'>&#10007; different</span>"
            rows.append([html.escape(label), mine_html, torch_html, verdict])
        return _table("torchlab-shapes", ["call", "yours", "torch (meta device)", ""], rows)
    except Exception as exc:  # noqa: BLE001
        return _hint_html(exc)
