"""Week 7 in C++: labccl as a ``c10d::Backend``, with its library written in ``cpp_c10d.cpp``.

You edit ``cpp_c10d.cpp``; this module (given) is its Python face, with week 7's API for
Tasks 7.2-7.4, so that week 7's cases of those tasks run on it unchanged: ``Comm(port)`` with
``isend``/``irecv``/``send``/``recv`` (Task 7.9 in C++), ``broadcast``, ``reduce``,
``all_gather``, ``reduce_scatter``, ``all_reduce`` and ``barrier`` of a ``Comm`` (Task
7.10), and ``create_labccl``, the creator of the C++ backend that ``register_labccl``
registers as ``"labccl"`` (Task 7.11). The C++ is built with ``torch.utils.cpp_extension``
(cached by its source's hash) and is a pybind11 module (``PYBIND11_MODULE`` at the end of the
.cpp).

What stays in Python: week 7's store (Task 7.1: ``init_process_group`` hands the backend a
store, and labccl needs none), its buckets, reducer, hooks and ``fully_shard`` (Tasks
7.5-7.8: they run on any backend, this one included).

Where PyTorch does this: the tutorial "Customize Process Group Backends Using Cpp Extensions"
(a ``c10d::Backend`` in an extension, its creator registered with
``dist.Backend.register_backend``), and ``_new_process_group_helper`` in
``torch/distributed/distributed_c10d.py``, which calls the creator and hangs the backend it
returns on a ``ProcessGroup`` (``pg._register_backend``).
"""

from __future__ import annotations

from pathlib import Path

import torch.distributed as dist

from autograder.native import load_extension

# The compiled extension: the library the grader built for this run, else the C++ beside
# this file, built now (or found in the cache).
_cpp = load_extension(Path(__file__), "week7c", "torchlab_cpp_c10d")
Comm = _cpp.Comm
broadcast = _cpp.broadcast
reduce = _cpp.reduce
all_gather = _cpp.all_gather
reduce_scatter = _cpp.reduce_scatter
all_reduce = _cpp.all_reduce
barrier = _cpp.barrier
create_labccl = _cpp.create_labccl


def register_labccl() -> str:
    """``create_labccl`` (C++) registered as the backend ``"labccl"`` for CPU tensors, once per
    process (again where another creator holds the name: week 7's Python labccl, run in the
    same process); the name to pass to ``init_process_group``. c10d then calls the creator
    for each group and registers the ``c10d::Backend`` it returns on a ``ProcessGroup``."""
    plugin = dist.Backend._plugins.get("LABCCL")
    if plugin is None or plugin.creator_fn is not create_labccl:
        dist.Backend.register_backend("labccl", create_labccl, devices=["cpu"])
    return "labccl"
