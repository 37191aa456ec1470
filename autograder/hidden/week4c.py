"""Week 4c's hidden cases: week 4's hidden cases, run on the C++ allocator (see
autograder/weeks/week4c/__init__.py)."""

from __future__ import annotations

import autograder.hidden.week4  # noqa: F401 - registers week 4's hidden cases
from autograder.cases import load_week
from autograder.weeks.week4c import register_from

register_from([c for c in load_week("week4", include_hidden=True) if c.hidden])
