"""`pytest labs/week2_dispatcher`: one test per week-2 case, each compared with real torch.

Edit dispatcher.py in this folder, then run `pytest labs/week2_dispatcher` from the course folder
(add `-k keyset` for the cases whose name contains "keyset"), or `torchlab check week2` for the
table with each case's tasks (`torchlab check week2 -k 2.2` for the cases of Task 2.2).
"""

import pytest

from autograder.pytest_plugin import case_names


@pytest.mark.parametrize("case", case_names("week2"))
def test_week2(case, torchlab_week):
    torchlab_week("week2").check(case)
