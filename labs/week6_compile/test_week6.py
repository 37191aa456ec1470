"""`pytest labs/week6_compile`: one test per week-6 case, each compared with real Dynamo.

Edit compile.py in this folder, then run `pytest labs/week6_compile` from the course folder
(add `-k guard` for the cases whose name contains "guard"), or `torchlab check week6` for the
table with each case's tasks (`torchlab check week6 -k 6.4` for the cases of Task 6.4).
"""

import pytest

from autograder.pytest_plugin import case_names


@pytest.mark.parametrize("case", case_names("week6"))
def test_week6(case, torchlab_week):
    torchlab_week("week6").check(case)
