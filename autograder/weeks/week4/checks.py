"""What must hold before week 4's answers are pinned (see autograder/pinning.py): the
reference reproduces every figure PyTorch's own tests assert, the constants of torch's
installed headers, and the invariants of every random program. Run at pin time, in the
instructor's copy; the worker never calls these."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from autograder.weeks import WEEKS
from autograder.weeks.week4.common import DATA, W, ported_mismatches

TRUTH = Path(__file__).resolve().parents[2] / "truth" / "week4_data" / "ported_tests.json"


def derive_ported_steps() -> dict[str, Any]:
    """The ported tests without the figures they assert: what the cases may read."""
    scenarios = json.loads(TRUTH.read_text())["scenarios"]
    return {
        "derived_from": "autograder/truth/week4_data/ported_tests.json (figures left out)",
        "scenarios": [
            {
                "test": t["test"],
                "config": t["config"],
                "steps": t["steps"],
                "expect": [_question(e) for e in t["expect"]],
            }
            for t in scenarios
        ],
    }


def _question(e: dict[str, Any]) -> dict[str, Any]:
    """An expectation without its answer: what to look at, not the figure torch's test wants."""
    if "snapshot_block" in e:
        block = e["snapshot_block"]
        fields = sorted(k for k in block if k != "id")
        return {
            "after_step": e["after_step"],
            "snapshot_block": {"id": block["id"], "fields": fields},
        }
    q = {k: v for k, v in e.items() if k != "equals"}
    for key in ("pool_segments", "pool_blocks"):  # MemPools: not modelled, answers dropped too
        if key in q:
            q[key] = {k: v for k, v in q[key].items() if k != "equals"}
    return q


def _ported(out: dict[str, Any]) -> list[str]:
    from autograder.weeks.week4.ported import PORTED

    truth = {t["test"]: t for t in json.loads(TRUTH.read_text())["scenarios"]}
    problems = []
    for case_name, test in PORTED.items():
        seen = out[f"{W}::{case_name}"]["expected"]
        if not isinstance(seen, list):
            problems.append(f"{case_name}: the reference raised {seen}")
            continue
        problems += [f"{case_name}: {p}" for p in ported_mismatches(truth[test], seen)]
    return problems


def header_constants() -> dict[str, int]:
    """kMinBlockSize and friends as torch's installed c10/core/AllocatorConfig.h defines them."""
    import torch

    header = Path(torch.__file__).parent / "include" / "c10" / "core" / "AllocatorConfig.h"
    text = header.read_text()
    found = {}
    for name, expr in re.findall(r"constexpr size_t (k\w+) =\s*([^;]+);", text):
        expr = expr.split("//")[0].strip()
        found[name] = int(eval(expr, {"__builtins__": {}}))  # noqa: S307 - "2 * 1048576" and the like
    return found


def _constants(out: dict[str, Any]) -> list[str]:
    from autograder import pinning

    ref = pinning.reference_module(WEEKS[W])
    return [
        f"{name}: torch's header says {value}, the reference {getattr(ref, name, None)}"
        for name, value in header_constants().items()
        if getattr(ref, name, None) != value
    ]


def _invariants(out: dict[str, Any]) -> list[str]:
    problems = []
    for item in out[f"{W}::random_programs_keep_the_invariants"]["expected"]:
        result = item["result"]
        broken = [k for k, v in result.get("invariants", {}).items() if v is not True]
        if "invariants" not in result or broken:
            problems.append(f"{item['example']}: {broken or result}")
    return problems


def stats_after_each_step(lib: Any, scenario: dict[str, Any]) -> list[dict[str, int] | None]:
    """A ported scenario's steps on ``lib``'s allocator: the statistics after each step
    (None after a step that raised), as scripts/record_cuda_fixtures.py records them."""
    from autograder.weeks.week4.common import DEFAULT_CAPACITY, _step, make

    alloc = make(lib, scenario["config"].get("device_total_bytes", DEFAULT_CAPACITY))
    live: dict[str, Any] = {}
    out: list[dict[str, int] | None] = []
    for step in scenario["steps"]:
        try:
            _step(lib, alloc, live, step)
            out.append({k: int(v) for k, v in alloc.memory_stats().items()})
        except RuntimeError:
            out.append(None)
    return out


def compare_recording(ref: Any, recording: dict[str, Any]) -> list[str]:
    """Where the reference differs from statistics recorded on a real GPU for one ported
    scenario (absolute values, less the recording's baseline)."""
    scenario = next(
        (t for t in json.loads(TRUTH.read_text())["scenarios"] if t["test"] == recording["name"]),
        None,
    )
    if scenario is None or "steps" not in recording:  # a trace, or skipped on that GPU
        return []
    ours = stats_after_each_step(ref, scenario)
    base = recording.get("baseline", {})
    problems = []
    for rec, mine in zip(recording["steps"], ours, strict=False):
        if (rec.get("error") is None) != (mine is not None):
            problems.append(f"{recording['name']} step {rec['step']}: raised on one side only")
            continue
        for key, value in (rec.get("stats") or {}).items():
            got = None if mine is None else mine.get(key)
            if mine is not None and got is not None and got != value - base.get(key, 0):
                problems.append(
                    f"{recording['name']} step {rec['step']}: {key} GPU {value}, ours {got}"
                )
    return problems


def _cuda(out: dict[str, Any]) -> list[str]:
    """Real CUDA figures, where a course with a GPU has recorded them (week4_data/cuda/)."""
    from autograder import pinning

    files = sorted((TRUTH.parent / "cuda").glob("*.json"))
    if not files:
        return []
    ref = pinning.reference_module(WEEKS[W])
    return [p for f in files for p in compare_recording(ref, json.loads(f.read_text()))]


PIN_CHECKS: list[Callable[[dict[str, Any]], list[str]]] = [_ported, _constants, _invariants, _cuda]

if __name__ == "__main__":
    (DATA / "ported_steps.json").write_text(json.dumps(derive_ported_steps(), indent=1) + "\n")
