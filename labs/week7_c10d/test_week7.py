"""`pytest labs/week7_c10d`: one test per week-7 case, each compared with gloo, torch's CPU backend.

Edit c10d.py in this folder, then run `pytest labs/week7_c10d` from the course folder
(add `-k ring` for the cases whose name contains "ring"), or `torchlab check week7` for the
table with each case's tasks (`torchlab check week7 -k 7.3` for the cases of Task 7.3).
"""

import pytest

from autograder.pytest_plugin import case_names


@pytest.mark.parametrize("case", case_names("week7"))
def test_week7(case, torchlab_week):
    torchlab_week("week7").check(case)
