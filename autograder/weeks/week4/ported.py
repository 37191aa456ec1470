"""PyTorch's own allocator tests, ported: the steps of each test run on your allocator, and
the figures the test asserts compared (``autograder/truth/week4_data/PORTED_TESTS.md`` says
which tests were ported, which were not and why). Truth: what those tests assert."""

from __future__ import annotations

from typing import Any

from autograder.cases import case
from autograder.weeks.week4.common import W, attempt, ported, run_steps


def _port(name: str) -> Any:
    def fn(lib: Any) -> Any:
        return attempt(lambda: run_steps(lib, ported(name)))

    fn.__doc__ = f"``{name}`` from PyTorch's test/test_cuda.py, its steps on your allocator."
    return fn


PORTED = {
    "ported_test_memory_allocation": "TestCuda.test_memory_allocation",
    "ported_test_memory_stats": "TestCuda.test_memory_stats",
    "ported_test_out_of_memory": "TestCuda.test_out_of_memory",
    "ported_test_set_per_process_memory_fraction": "TestCuda.test_set_per_process_memory_fraction",
    "ported_test_allocator_settings": "TestCudaMallocAsync.test_allocator_settings",
    "ported_test_raw_alloc": "TestCudaMallocAsync.test_cachingAllocator_raw_alloc",
    "ported_test_raises_oom_default": (
        "TestCudaMallocAsync.test_raises_oom_max_split_size_mb_setting_False"
    ),
    "ported_test_raises_oom_max_split_size": (
        "TestCudaMallocAsync.test_raises_oom_max_split_size_mb_setting_True"
    ),
    "ported_test_memory_snapshot": "TestCudaMallocAsync.test_memory_snapshot",
    "ported_test_multigpu_memory_stats": "TestCudaMultiGPU.test_memory_stats",
}

# The tasks each port needs, as measured (autograder/authoring.py): a test that only checks
# an error needs no statistics.
NEEDS = {
    "ported_test_memory_allocation": ("4.1", "4.2", "4.4"),
    "ported_test_memory_stats": ("4.1", "4.2", "4.3", "4.4"),
    "ported_test_out_of_memory": ("4.1", "4.2", "4.3", "4.4"),
    "ported_test_set_per_process_memory_fraction": ("4.1", "4.2", "4.3", "4.4"),
    "ported_test_allocator_settings": ("4.1", "4.2", "4.3", "4.4"),
    "ported_test_raw_alloc": ("4.1", "4.2", "4.3", "4.4"),
    "ported_test_raises_oom_default": ("4.1", "4.2", "4.3"),
    "ported_test_raises_oom_max_split_size": ("4.1", "4.2", "4.3"),
    "ported_test_memory_snapshot": ("4.1", "4.2", "4.3", "4.4"),
    "ported_test_multigpu_memory_stats": ("4.1", "4.2", "4.3", "4.4"),
}

for _case_name, _test in PORTED.items():
    _fn = _port(_test)
    _fn.__name__ = _fn.__qualname__ = _case_name
    case(W, points=2, tasks=NEEDS[_case_name])(_fn)
