# Generated from reference_impl/cpp_ops.py by `torchlab release`: this is the file you edit.
# Replace each `raise NotImplementedError(...)` with your code; the docstring above it
# says what PyTorch does and where. Check your work with `torchlab check`.
# ruff: noqa: F401, F841
"""Week 2, part C: the operator of part B registered from C++, as aten's own are.

Your code is in ``cpp_ops.cpp`` beside this file: ``TORCH_LIBRARY`` defines
``torchlab_cpp::linear(Tensor x, Tensor w, Tensor? b=None) -> Tensor``, and
``TORCH_LIBRARY_IMPL`` gives it a CPU kernel (Task 2.9), an Autograd kernel written as a
``torch::autograd::Function`` (Task 2.10) and a Meta kernel (Task 2.11); a boxed fallback at the
spare key AutocastHPU logs every op and its arguments' shapes (Task 2.12). This module only
loads the library and calls into it: everything to write is C++.

Compared with torch: ``aten::linear`` (values, gradients, gradcheck, meta and fake tensors,
``torch.compile``), the same op registered from Python with ``torch.library.Library`` (which
keys have a kernel, in ``torch._C._dispatch_dump``), and torch's profiler (each op that
enters the dispatcher and the shapes of its inputs).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import torch


def library_path() -> str:
    """The compiled ``cpp_ops.cpp``. The grader builds it before your code runs and says where
    (``TORCHLAB_NATIVE_LIBRARY``); elsewhere torchlab builds it now, with
    ``torch.utils.cpp_extension`` and ninja, and keeps the build for the same source."""
    from autograder.native import library_path as built_library

    return built_library(Path(__file__), "week2c")


def load_library() -> None:
    """Load the C++ once: its TORCH_LIBRARY blocks register the op and its kernels as it loads
    (static initializers). A process keeps a library it has loaded: after editing the C++,
    restart the kernel (or the process)."""
    if not hasattr(torch.ops.torchlab_cpp, "call_log"):
        torch.ops.load_library(library_path())


def linear(x: torch.Tensor, w: torch.Tensor, b: torch.Tensor | None = None) -> torch.Tensor:
    """``torchlab_cpp::linear``: the op your kernels make (the dispatcher picks one per call)."""
    load_library()
    return torch.ops.torchlab_cpp.linear(x, w, b)


def registered_keys() -> list[str]:
    """The dispatch keys ``torchlab_cpp::linear`` has a kernel registered for, as
    ``torch._C._dispatch_dump`` lists them ("CPU", "Meta", "Autograd[alias]")."""
    load_library()
    dump = torch._C._dispatch_dump("torchlab_cpp::linear")
    return re.findall(r"^(?!debug:)(\w+(?:\[alias\])?): registered at", dump, flags=re.M)


def record_calls(fn: Callable[[], Any]) -> list[str]:
    """Run ``fn()`` with the spare key AutocastHPU switched on for this thread, and return what
    your fallback (Task 2.12) logged: one line per op that entered the dispatcher. Like every
    autocast key, AutocastHPU starts in the thread-local exclude set
    (c10/core/impl/LocalDispatchKeySet.h): it is taken out of it and included, then put back."""
    load_library()
    key = torch._C.DispatchKey.AutocastHPU
    torch.ops.torchlab_cpp.clear_call_log()
    was_excluded = torch._C._dispatch_tls_is_dispatch_key_excluded(key)
    torch._C._dispatch_tls_set_dispatch_key_excluded(key, False)
    try:
        with torch._C._IncludeDispatchKeyGuard(key):
            fn()
    finally:
        torch._C._dispatch_tls_set_dispatch_key_excluded(key, was_excluded)
    return list(torch.ops.torchlab_cpp.call_log())
