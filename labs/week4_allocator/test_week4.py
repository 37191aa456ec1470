"""`pytest labs/week4_allocator`: one test per week-4 case, each compared with its truth.

Edit allocator.py in this folder, then run `pytest labs/week4_allocator` from the course folder
(add `-k split` for the cases whose name contains "split"), or `torchlab check week4` for the
table with each case's tasks (`torchlab check week4 -k 4.2` for the cases of Task 4.2).
"""

import pytest

from autograder.pytest_plugin import case_names


@pytest.mark.parametrize("case", case_names("week4"))
def test_week4(case, torchlab_week):
    torchlab_week("week4").check(case)
