"""`pytest cpp_labs/week4c_cpp_allocator`: one test per week-4c case, each compared with week 4's
pinned answers (the figures of PyTorch's own allocator tests and the rules of
CUDACachingAllocator.cpp).

Edit cpp_allocator.cpp in this folder, then run `pytest cpp_labs/week4c_cpp_allocator` from the
course folder (add `-k oom` for the cases whose name contains "oom"), or `torchlab check
week4c` for the table with each case's tasks (`torchlab check week4c -k 4.7` for the cases of
Task 4.7). The C++ is built once per change of cpp_allocator.cpp and kept.
"""

import pytest

from autograder.pytest_plugin import case_names


@pytest.mark.parametrize("case", case_names("week4c"))
def test_week4c(case, torchlab_week):
    torchlab_week("week4c").check(case)
