"""Week 7c's truth is week 7's: gloo through ``dist.*`` on the same program, answered in a
child process of the grader (see ``autograder/truth/week7.py``)."""

from autograder.truth.week7 import ORACLE_APART, TORCH_EXTRAS

__all__ = ["ORACLE_APART", "TORCH_EXTRAS"]
