"""`pytest cpp_labs/week2c_cpp_ops`: one test per week-2c case, each compared with torch.

Edit cpp_ops.cpp in this folder, then run `pytest cpp_labs/week2c_cpp_ops` from the course folder
(add `-k fallback` for the cases whose name contains "fallback"), or `torchlab check week2c`
for the table with each case's tasks (`torchlab check week2c -k 2.10` for the cases of Task
2.10). The C++ is built once per change of cpp_ops.cpp and kept.
"""

import pytest

from autograder.pytest_plugin import case_names


@pytest.mark.parametrize("case", case_names("week2c"))
def test_week2c(case, torchlab_week):
    torchlab_week("week2c").check(case)
