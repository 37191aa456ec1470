"""`pytest labs/week2b_real_dispatch`: one test per week-2b case, each compared with real torch.

Edit real_dispatch.py in this folder, then run `pytest labs/week2b_real_dispatch` from the
course folder (add `-k trace` for the cases whose name contains "trace"), or
`torchlab check week2b` for the table with each case's tasks (`torchlab check week2b -k 2.7`
for the cases of Task 2.7).
"""

import pytest

from autograder.pytest_plugin import case_names


@pytest.mark.parametrize("case", case_names("week2b"))
def test_week2b(case, torchlab_week):
    torchlab_week("week2b").check(case)
