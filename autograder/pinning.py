"""Pinned truth: for a week whose truth cannot be computed by running torch here.

Week 4's allocator is CUDA's, and this project has no GPU. Its expected observations are
computed once, in the instructor's copy, by running each case against the reference, and kept
in ``autograder/truth/<week>_pinned.json``. Pinning is guarded: a week's ``PIN_CHECKS``
(in its case package) compare the reference's observations with figures that come from torch
itself (the assertions of PyTorch's own allocator tests, the constants of its installed
headers, recordings from a real GPU), and nothing is pinned while one disagrees; what a check
leaves out, and why, is printed (``PIN_SKIPPED``). ``tests/test_pinned_truth.py`` re-pins
in memory and fails when the file is stale.

    python -m autograder.pinning week4
"""

from __future__ import annotations

import importlib
import importlib.util
import json
import sys
import warnings
from pathlib import Path
from typing import Any

from autograder.cases import draw_examples, load_week, run_case
from autograder.weeks import Week, get_week

AUTOGRADER_DIR = Path(__file__).resolve().parent
REPO_ROOT = AUTOGRADER_DIR.parent


def pinned_path(week: str) -> Path:
    return AUTOGRADER_DIR / "truth" / f"{week}_pinned.json"


def reference_module(w: Week) -> Any:
    """The week's reference engine, imported from ``reference_impl/`` (instructor's copy)."""
    path = REPO_ROOT / "reference_impl" / f"{w.module}.py"
    if not path.exists():
        raise RuntimeError(f"pinning needs the reference engine ({path}): the instructor's copy")
    return import_file(path, f"_pin_reference_{w.module}")


def import_file(path: Path, name: str) -> Any:
    """A fresh module imported from ``path`` under ``name`` (an engine is loaded this way, so
    that two copies of one week's module can live side by side)."""
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def compute(w: Week) -> dict[str, Any]:
    """Every case's observation from the reference, after the week's checks against torch."""
    week = w.name
    ref = reference_module(w)
    cases = load_week(week, include_hidden=True)
    out: dict[str, Any] = {}
    for c in cases:
        examples = draw_examples(c) if c.is_property else None
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            expected = run_case(c, ref, examples)
        out[c.id] = json.loads(json.dumps({"examples": examples, "expected": expected}))
    checks = importlib.import_module(f"autograder.weeks.{week}").PIN_CHECKS
    problems = [p for check in checks for p in check(out)]
    if problems:
        raise RuntimeError(
            "the reference disagrees with torch's own figures; nothing pinned:\n  "
            + "\n  ".join(problems)
        )
    return {"week": week, "pinned_by": "python -m autograder.pinning " + week, "cases": out}


def load(week: str) -> dict[str, Any]:
    path = pinned_path(week)
    try:
        return json.loads(path.read_text())["cases"]
    except (OSError, ValueError, KeyError) as exc:
        raise RuntimeError(
            f"{week}'s expected answers are pinned data, and {path} cannot be read ({exc}); "
            f"the instructor regenerates it with `python -m autograder.pinning {week}`"
        ) from None


def main(argv: list[str]) -> int:
    w = get_week(argv[0] if argv else "week4")  # the front door: a name from the command line
    week = w.name
    data = compute(w)
    pinned_path(week).write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")
    print(f"pinned {len(data['cases'])} cases of {week} in {pinned_path(week)}")
    left_out = getattr(importlib.import_module(f"autograder.weeks.{week}"), "PIN_SKIPPED", list)
    for line in left_out():
        print(f"  not compared: {line}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
