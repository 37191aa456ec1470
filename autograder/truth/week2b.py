"""Week 2b's side of torch: the same questions answered by torch's built-in ops and tools.

- ``make_linear``: ``aten::linear`` itself; ``make_mul``: ``aten::mul.Tensor`` itself.
- ``record_aten_ops`` / ``RecordingMode``: torch's own ``LoggingTensorMode``
  (``torch/testing/_internal/logging_tensor.py``), which logs each op it sees.
- ``trace_call`` and its helpers: torch's introspection (``_dispatch_keys``, the thread-local
  sets, ``_dispatch_dump_table``, ``_after_autograd_keyset``), written on their own (not
  copied from any solution). Cases that register kernels which log themselves pin it to
  what really runs.

Hidden from every worker (see ``autograder/truth/__init__.py``): a module that may use torch
would otherwise import these answers.
"""

from __future__ import annotations

import re
from typing import Any

_REGISTERED = re.compile(r"registered at (?P<path>.*?)(?::\d+)?(?: :: .*)?$")


def _make_linear(torch: Any, qualname: str) -> Any:
    return torch.ops.aten.linear.default


def _make_mul(torch: Any, ns: str) -> Any:
    return torch.ops.aten.mul.Tensor


class _LoggedOps:
    """A context manager like ``RecordingMode``: ``.ops`` holds the ops torch's own logging
    mode saw, as "aten.add.Tensor"."""

    def __init__(self, torch: Any) -> None:
        from torch.testing._internal.logging_tensor import LoggingTensorMode, capture_logs

        self._capture, self._mode = capture_logs(is_mode=True), LoggingTensorMode()
        self.ops: list[str] = []

    def __enter__(self) -> _LoggedOps:
        self._logs = self._capture.__enter__()
        self._mode.__enter__()
        return self

    def __exit__(self, *exc: Any) -> None:
        self._mode.__exit__(*exc)
        self._capture.__exit__(*exc)
        # "$2: f32[3] = torch._ops.aten.mul.Tensor($0, $1)"
        self.ops = [re.search(r"torch\._ops\.([\w.]+)\(", line).group(1) for line in self._logs]


def _record_aten_ops(torch: Any, fn: Any) -> list[str]:
    with _LoggedOps(torch) as logged:
        fn()
    return logged.ops


def _record_with_fallback(torch: Any, fn: Any, key: str = "AutocastHPU") -> list[str]:
    """The profiler's view of the same run: every op that enters the dispatcher through
    ``Dispatcher::call`` is a RecordFunction event (``aten/src/ATen/core/dispatch/
    Dispatcher.h``, ``callWithDispatchKeySlowPath``), in the order the calls start."""
    import os

    from torch.profiler import profile

    saved = os.dup(2)  # kineto prints its start and stop lines on the C stderr
    try:
        with open(os.devnull, "wb") as null:
            os.dup2(null.fileno(), 2)
            with profile() as prof:
                fn()
    finally:
        os.dup2(saved, 2)
        os.close(saved)
    events = sorted(prof.events(), key=lambda e: (e.time_range.start, -e.time_range.end))
    return [e.name for e in events if e.name.startswith("aten::")]


def _kernel_file(torch: Any, text: str) -> str:
    m = _REGISTERED.search(text.strip())
    path = m.group("path") if m else text.strip()
    top = re.search(r"/((?:aten|torch|c10)/.*)$", path)  # the source tree's top folders
    return top.group(1) if top else path.rsplit("/", 1)[-1]


def _computed_table(torch: Any, qualname: str) -> dict[str, tuple[str, str]]:
    out = {}
    for line in torch._C._dispatch_dump_table(qualname).splitlines():
        m = re.match(r"(\w+): (fallthrough )?(registered at .*) \[(.*)\]$", line)
        if m:
            kind = "fallthrough" if m.group(2) else m.group(4)
            out[m.group(1)] = (kind, _kernel_file(torch, m.group(3)))
    return out


def _dispatch_key_set(torch: Any, *args: Any) -> Any:
    tensors = [torch._C._dispatch_keys(a) for a in args if isinstance(a, torch.Tensor)]
    ks = torch._C._dispatch_tls_local_include_set()
    for t in tensors:
        ks = ks | t
    return ks - torch._C._dispatch_tls_local_exclude_set()


def _trace_call(torch: Any, qualname: str, *args: Any) -> list[dict[str, str]]:
    table = _computed_table(torch, qualname)
    ks = _dispatch_key_set(torch, *args)
    below = {  # after these kernels the call goes on, below them
        "autograd kernel": torch._C._after_autograd_keyset,
    }
    chain = []
    for _ in range(64):
        top = ks.highestPriorityTypeId()
        kind, file = table.get(top.name, ("missing", ""))
        if kind == "missing":
            raise NotImplementedError(
                f"Could not run '{qualname}' with arguments from the '{top.name}' backend"
            )
        if kind == "fallthrough":
            ks = ks.remove(top)
            continue
        chain.append({"key": top.name, "kernel": kind, "file": file})
        if kind in below:
            ks = ks & below[kind]
        elif top.name == "ADInplaceOrView":
            ks = ks & torch._C._after_ADInplaceOrView_keyset
        else:
            break
    return chain


TORCH_EXTRAS = {
    "make_linear": _make_linear,
    "make_mul": _make_mul,
    "RecordingMode": _LoggedOps,
    "record_aten_ops": _record_aten_ops,
    "record_with_fallback": _record_with_fallback,
    "kernel_file": _kernel_file,
    "computed_table": _computed_table,
    "dispatch_key_set": _dispatch_key_set,
    "trace_call": _trace_call,
}
