"""`pytest cpp_labs/week5_privateuse1`: one test per week-5 case, each compared with the CPU.

Edit privateuse1.py and labdev.cpp in this folder, then run `pytest cpp_labs/week5_privateuse1` from
the course folder (add `-k fallback` for the cases whose name contains "fallback"), or
`torchlab check week5` for the table with each case's tasks (`torchlab check week5 -k 5.2` for
the cases of Task 5.2). The C++ is built once per change of labdev.cpp and kept.
"""

import pytest

from autograder.pytest_plugin import case_names


@pytest.mark.parametrize("case", case_names("week5"))
def test_week5(case, torchlab_week):
    torchlab_week("week5").check(case)
