"""`pytest labs/week1_strides`: one test per week-1 case, each compared with real torch.

Edit strides.py in this folder; add `--impl reference` to run the reference engine instead.
"""

import pytest

from autograder.pytest_plugin import case_names


@pytest.mark.parametrize("case", case_names("week1"))
def test_week1(case, torchlab_week):
    torchlab_week("week1").check(case)
