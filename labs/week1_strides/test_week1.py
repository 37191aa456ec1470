"""`pytest labs/week1_strides`: one test per week-1 case, each compared with real torch.

Edit strides.py in this folder, then run `pytest labs/week1_strides` from the course folder
(add `-k view` for the cases whose name contains "view"), or `torchlab check week1` for the
table with each case's tasks (`torchlab check week1 -k 1.4` for the cases of Task 1.4).
"""

import pytest

from autograder.pytest_plugin import case_names


@pytest.mark.parametrize("case", case_names("week1"))
def test_week1(case, torchlab_week):
    torchlab_week("week1").check(case)
