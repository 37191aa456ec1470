"""Week 4c's C++ allocator at the seams the cases do not look at: pybind11's translation of
C++ exceptions into Python's. (Its policy is checked by week 4's own cases, registered for
week 4c: tests/test_reference_and_skeleton.py, tests/test_mutants.py.)"""

from __future__ import annotations

import pytest

from autograder import pinning
from autograder.weeks import WEEKS


@pytest.fixture(scope="module")
def lib():
    return pinning.reference_module(WEEKS["week4c"])  # reference_impl/cpp_allocator.py, built


def test_out_of_memory_is_torchs_runtime_error(lib) -> None:
    """torch's OutOfMemoryError is a RuntimeError; it names the segment asked of the driver."""
    alloc = lib.CachingAllocator(lib.Device(4 << 20), lib.AllocatorConfig.parse(""))
    with pytest.raises(lib.OutOfMemoryError, match="Tried to allocate 20.00 MiB") as exc:
        alloc.malloc(5 << 20)
    assert isinstance(exc.value, RuntimeError)


def test_double_free_names_the_pointer(lib) -> None:
    alloc = lib.CachingAllocator(lib.Device(4 << 20), lib.AllocatorConfig.parse(""))
    block = alloc.malloc(1000)
    alloc.free(block)
    with pytest.raises(RuntimeError, match=f"invalid device pointer: {block.ptr:#x}"):
        alloc.free(block)


def test_python_only_features_say_so(lib) -> None:
    """Expandable segments stay week 4's Python: asking the C++ for them is a clear error."""
    with pytest.raises(NotImplementedError, match="expandable segments"):
        lib.CachingAllocator(
            lib.Device(1 << 30), lib.AllocatorConfig.parse("expandable_segments:True")
        )
