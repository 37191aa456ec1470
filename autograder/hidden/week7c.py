"""Week 7c's hidden cases: week 7's hidden cases of Tasks 7.2-7.4, run on the C++ library
(see autograder/weeks/week7c/__init__.py)."""

from __future__ import annotations

import autograder.hidden.week7  # noqa: F401 - registers week 7's hidden cases
from autograder.cases import load_week
from autograder.weeks.week7c import register_from

register_from([c for c in load_week("week7", include_hidden=True) if c.hidden])
