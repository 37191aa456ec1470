"""`pytest cpp_labs/week7c_cpp_c10d`: one test per week-7c case, each compared with gloo running
the same program (torch's CPU backend, through the public `dist.*` API).

Edit cpp_c10d.cpp in this folder, then run `pytest cpp_labs/week7c_cpp_c10d` from the course
folder (add `-k ring` for the cases whose name contains "ring"), or `torchlab check week7c`
for the table with each case's tasks (`torchlab check week7c -k 7.10` for the cases of Task
7.10). The C++ is built once per change of cpp_c10d.cpp and kept.
"""

import pytest

from autograder.pytest_plugin import case_names


@pytest.mark.parametrize("case", case_names("week7c"))
def test_week7c(case, torchlab_week):
    torchlab_week("week7c").check(case)
