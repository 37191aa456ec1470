"""Week 4 in C++: the same caching allocator, with its policy written in ``cpp_allocator.cpp``.

This module is the Python face of the C++ one, with week 4's API, so that week 4's cases and
traces run on it unchanged: ``CachingAllocator(Device(capacity), config)``, ``malloc`` /
``free`` / ``empty_cache`` / ``set_memory_fraction``, ``memory_stats()``,
``memory_snapshot()``, ``round_size``, ``get_allocation_size``, ``is_small`` and ``replay``.
The C++ is built with ``torch.utils.cpp_extension`` (cached by its source's hash) and exposed
through pybind11 (``PYBIND11_MODULE`` at the end of the .cpp).

What stays in Python: the settings string. ``AllocatorConfig`` parses it as week 4's does
(``PYTORCH_CUDA_ALLOC_CONF``), and its fields are copied into the C++ ``Config`` struct.
Expandable segments and first fit (week 4's Task 4.5) are not in the C++ lab.
"""

from __future__ import annotations

import importlib.machinery
import importlib.util
import os
from collections.abc import Iterable, Sequence
from pathlib import Path
from types import ModuleType
from typing import Any

kSmallSize = 1024 * 1024


def _load() -> ModuleType:
    """The compiled extension: the library the grader built for this run, else the C++ beside
    this file, built now (or found in the cache)."""
    path = os.environ.get("TORCHLAB_NATIVE_LIBRARY")
    if not path:
        from autograder.native import build_beside

        path = str(build_beside(Path(__file__), "week4c"))
    import torch  # noqa: F401 - the extension links against libtorch: load it first

    loader = importlib.machinery.ExtensionFileLoader("torchlab_cpp_allocator", path)
    spec = importlib.util.spec_from_loader("torchlab_cpp_allocator", loader)
    assert spec is not None
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module


_cpp = _load()
Device = _cpp.Device
OutOfMemoryError = _cpp.OutOfMemoryError
format_size = _cpp.format_size
get_allocation_size = _cpp.get_allocation_size
roundup_power2_next_division = _cpp.roundup_power2_next_division


def is_small(size: int) -> bool:
    return size <= kSmallSize


def _to_cpp(config: Any) -> Any:
    """The C++ Config holding a parsed AllocatorConfig's fields."""
    if getattr(config, "expandable_segments", False) or getattr(config, "first_fit", False):
        raise NotImplementedError(
            "expandable segments and first fit are week 4's Python chip questions, "
            "not part of the C++ allocator"
        )
    out = _cpp.Config()
    out.max_split_size = config.max_split_size
    out.max_non_split_rounding = config.max_non_split_rounding
    out.roundup_power2_divisions = list(config.roundup_power2_divisions)
    out.garbage_collection_threshold = config.garbage_collection_threshold
    out.min_block_size = config.min_block_size
    return out


def round_size(size: int, config: Any = None) -> int:
    return _cpp.round_size(size, _to_cpp(config) if config is not None else _cpp.Config())


class CachingAllocator:
    """week 4's CachingAllocator API over the C++ one."""

    def __init__(self, device: Any, config: Any = None, min_block_size: int | None = None) -> None:
        if min_block_size is not None:  # a 32-byte chip (week 4's Task 4.5)
            config.min_block_size = min_block_size
        self._config = config
        self._cpp = _cpp.CachingAllocator(
            device, _to_cpp(config) if config is not None else _cpp.Config()
        )

    @property
    def config(self) -> Any:
        return self._config

    @config.setter
    def config(self, config: Any) -> None:  # torch.cuda.memory._set_allocator_settings
        self._config = config
        self._cpp.config = _to_cpp(config)

    @property
    def device(self) -> Any:
        return self._cpp.device

    def malloc(self, size: int, stream: int = 0) -> Any:
        return self._cpp.malloc(size, stream)

    def free(self, block: Any) -> None:
        self._cpp.free(block)

    def empty_cache(self) -> None:
        self._cpp.empty_cache()

    def set_memory_fraction(self, fraction: float) -> None:
        self._cpp.set_memory_fraction(fraction)

    def memory_stats(self) -> dict[str, int]:
        return self._cpp.memory_stats()

    def reset_peak_memory_stats(self) -> None:
        self._cpp.reset_peak_memory_stats()

    def reset_accumulated_memory_stats(self) -> None:
        self._cpp.reset_accumulated_memory_stats()

    def memory_snapshot(self) -> list[dict[str, Any]]:
        return self._cpp.memory_snapshot()


def encode(events: Sequence[Sequence[Any]]) -> Any:
    """A trace encoded once for C++ replay (``replay`` does it when given a list)."""
    return _cpp.encode(list(events))


def replay(allocator: CachingAllocator, events: Iterable[Sequence[Any]] | Any) -> dict[str, float]:
    """week 4's replay, the loop in C++: the same figures for the same trace."""
    trace = events if isinstance(events, _cpp.Trace) else encode(list(events))
    return allocator._cpp.replay(trace)
