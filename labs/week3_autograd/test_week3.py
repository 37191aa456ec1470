"""`pytest labs/week3_autograd`: one test per week-3 case, each compared with real torch.

Edit autograd.py in this folder, then run `pytest labs/week3_autograd` from the course folder
(add `-k hook` for the cases whose name contains "hook"), or `torchlab check week3` for the
table with each case's tasks (`torchlab check week3 -k 3.4` for the cases of Task 3.4).
"""

import pytest

from autograder.pytest_plugin import case_names


@pytest.mark.parametrize("case", case_names("week3"))
def test_week3(case, torchlab_week):
    torchlab_week("week3").check(case)
