# Generated from reference_impl/cpp_allocator.py by `torchlab release`: this is the file you edit.
# Replace each `raise NotImplementedError(...)` with your code; the docstring above it
# says what PyTorch does and where. Check your work with `torchlab check`.
# ruff: noqa: F401, F841
"""Week 4 in C++: the same caching allocator, with its policy written in ``cpp_allocator.cpp``.

You edit ``cpp_allocator.cpp``; this module (given) is its Python face, with week 4's API, so
that week 4's cases and traces run on it unchanged: ``CachingAllocator(Device(capacity),
config)``, ``malloc`` / ``free`` / ``empty_cache`` / ``set_memory_fraction``,
``memory_stats()``, ``memory_snapshot()``, ``round_size``, ``get_allocation_size`` and
``replay``. The C++ is built with ``torch.utils.cpp_extension`` (cached by its source's hash)
and is a pybind11 module (``PYBIND11_MODULE`` at the end of the .cpp).

What stays in Python: the settings string. ``AllocatorConfig.parse`` here reads well-formed
settings only (checking them is week 4's Task 4.1); its fields are copied into the C++
``Config``. Expandable segments and first fit (week 4's Task 4.5) are not in the C++ lab.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from autograder.native import load_extension

MiB = 1024 * 1024
kSmallSize = 1 * MiB
SIZE_MAX = 2**64 - 1  # max_split_size when unset


# The compiled extension: the library the grader built for this run, else the C++ beside
# this file, built now (or found in the cache).
_cpp = load_extension(Path(__file__), "week4c", "torchlab_cpp_allocator")
Device = _cpp.Device
OutOfMemoryError = _cpp.OutOfMemoryError
format_size = _cpp.format_size
get_allocation_size = _cpp.get_allocation_size
roundup_power2_next_division = _cpp.roundup_power2_next_division


def is_small(size: int) -> bool:
    return size <= kSmallSize


class AllocatorConfig:
    """The settings of ``PYTORCH_CUDA_ALLOC_CONF``, as week 4's AllocatorConfig holds them."""

    def __init__(self) -> None:
        self.max_split_size = SIZE_MAX
        self.max_non_split_rounding = 20 * MiB
        self.roundup_power2_divisions = [0] * 16  # one per [2**k, 2**(k+1)) from 1 MiB
        self.garbage_collection_threshold = 0.0
        self.expandable_segments = False
        self.release_lock_on_cudamalloc = False
        self.min_block_size = 512
        self.first_fit = False

    @classmethod
    def parse(cls, text: str) -> AllocatorConfig:
        """A config with ``text`` applied: ``key:value`` pairs, commas between them, and
        ``roundup_power2_divisions`` as one number or ``[MB:d,...,>:d]``. No checking."""
        config = cls()
        for key, value in _pairs(text.replace(" ", "")):
            if key in ("max_split_size_mb", "max_non_split_rounding_mb"):
                mb = int(value) * MiB
                if key == "max_split_size_mb":
                    config.max_split_size = mb
                else:
                    config.max_non_split_rounding = mb
            elif key == "garbage_collection_threshold":
                config.garbage_collection_threshold = float(value)
            elif key in ("expandable_segments", "release_lock_on_cudamalloc"):
                setattr(config, key, value == "True")
            elif key == "roundup_power2_divisions":
                config.roundup_power2_divisions = _divisions(value)
            else:
                raise ValueError(f"Unrecognized key '{key}' in Accelerator allocator config.")
        return config


def _pairs(text: str) -> list[tuple[str, str]]:
    """ "a:1,b:[64:8,>:1]" -> [("a", "1"), ("b", "[64:8,>:1]")]: commas inside [] stay."""
    out, depth, start = [], 0, 0
    for i, ch in enumerate(text + ","):
        depth += (ch == "[") - (ch == "]")
        if ch == "," and depth == 0:
            if item := text[start:i]:
                key, _, value = item.partition(":")
                out.append((key, value))
            start = i + 1
    return out


def _divisions(value: str) -> list[int]:
    """One number for every interval, or ``[MB:d,...]``: each entry sets the interval that
    starts at MB megabytes, the first also the ones below it, ``>`` the ones after the last
    one named."""
    if not value.startswith("["):
        return [int(value)] * 16
    divs, first, last = [0] * 16, True, 0
    for entry in value.strip("[]").split(","):
        start, _, d = entry.partition(":")
        if start == ">":
            divs[last + 1 :] = [int(d)] * (15 - last)
            continue
        index = min(int(start).bit_length() - 1, 15)
        if first:
            divs[:index], first = [int(d)] * index, False
        divs[index], last = int(d), index
    return divs


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

    def lend_to_device(self) -> int:
        """The address of a ``c10::DeviceAllocator`` over this allocator (the adapter at the
        end of cpp_allocator.cpp), for week 5's ``torch.ops.labdev.use_device_allocator``.
        The device must have host memory: ``Device(capacity, host_memory=True)``."""
        return _cpp.lend_to_device(self._cpp)


def lent_trace() -> list[tuple[Any, ...]]:
    """What the device asked of the lent allocator, as week 4's trace events:
    ``("malloc", ptr, nbytes)`` and ``("free", ptr)``."""
    return _cpp.lent_trace()


def encode(events: Sequence[Sequence[Any]]) -> Any:
    """A trace encoded once for C++ replay (``replay`` does it when given a list)."""
    return _cpp.encode(list(events))


def replay(allocator: CachingAllocator, events: Iterable[Sequence[Any]] | Any) -> dict[str, float]:
    """week 4's replay, the loop in C++: the same figures for the same trace."""
    trace = events if isinstance(events, _cpp.Trace) else encode(list(events))
    return allocator._cpp.replay(trace)
