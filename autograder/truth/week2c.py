"""Week 2c's side of torch: ``aten::linear``, the same op registered from Python with
``torch.library.Library`` (its keys in ``_dispatch_dump``), and torch's profiler for the calls
a program makes (``record_shapes``: the shapes of each op's inputs, [] for anything else).

Hidden from every worker (see ``autograder/truth/__init__.py``).
"""

from __future__ import annotations

import itertools
import os
import re
from collections.abc import Callable
from typing import Any

from torch.library import Library

_COUNTER = itertools.count()
_LIBRARIES: list[Library] = []  # a Library unregisters its kernels when collected


def _linear(torch: Any, x: Any, w: Any, b: Any = None) -> Any:
    return torch.nn.functional.linear(x, w, b)


def _registered_keys(torch: Any) -> list[str]:
    """The same op defined from Python one level down (``torch.library.Library``, DEF then one
    ``impl`` per key: CPU, Meta, Autograd), as ``torch._C._dispatch_dump`` lists its keys."""
    ns = f"torchlab_truth_{next(_COUNTER)}"
    lib = Library(ns, "DEF")
    _LIBRARIES.append(lib)
    lib.define("linear(Tensor x, Tensor w, Tensor? b=None) -> Tensor")
    for key in ("CPU", "Meta", "Autograd"):
        lib.impl("linear", lambda x, w, b=None: torch.nn.functional.linear(x, w, b), key)
    dump = torch._C._dispatch_dump(f"{ns}::linear")
    return re.findall(r"^(?!debug:)(\w+(?:\[alias\])?): registered at", dump, flags=re.M)


def _record_calls(torch: Any, fn: Callable[[], Any]) -> list[str]:
    """Every op that enters ``Dispatcher::call`` is a RecordFunction event of the profiler
    (aten/src/ATen/core/dispatch/Dispatcher.h), in the order the calls start, with its inputs'
    shapes."""
    from torch.profiler import profile

    saved = os.dup(2)  # kineto prints its start and stop lines on the C stderr
    try:
        with open(os.devnull, "wb") as null:
            os.dup2(null.fileno(), 2)
            with profile(record_shapes=True) as prof:
                fn()
    finally:
        os.dup2(saved, 2)
        os.close(saved)
    events = sorted(prof.events(), key=lambda e: (e.time_range.start, -e.time_range.end))
    return [
        " ".join([e.name, *(str(list(s)) for s in e.input_shapes)])
        for e in events
        if e.name.startswith("aten::")
    ]


TORCH_EXTRAS = {
    "linear": _linear,
    "registered_keys": _registered_keys,
    "record_calls": _record_calls,
    "load_library": lambda torch: None,
}
