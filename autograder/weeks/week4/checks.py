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


def _cuda(out: dict[str, Any]) -> list[str]:
    """Real CUDA figures recorded on a GPU (week4_data/cuda/, see recordings.py): every
    ported scenario and trace replayed over the GPU's own driver addresses, and every
    recorded training program's pinned answer, equal the GPU's."""
    from autograder import pinning
    from autograder.weeks.week4 import recordings

    ref = pinning.reference_module(WEEKS[W])
    return [p for name in recordings.names() for p in check_recording(name, out, ref)]


def check_recording(name: str, out: dict[str, Any], ref: Any) -> list[str]:
    """Where the reference (``ref``, and the pinned answers ``out``) differs from one GPU
    recording; nothing for one the lab does not model (``recordings.SKIPPED``)."""
    from autograder.weeks.week4 import recordings

    if name in recordings.SKIPPED:
        return []
    doc = recordings.load(name)
    if name == "round_size_divisions":
        seen = out.get(f"{W}::task_4_1_divisions_after_the_last_range", {}).get("expected")
        return [
            f"{name}: round_size({size}) with {settings!r}: the GPU gave {gpu}, the reference "
            f"{(seen or {}).get(settings, {}).get(size)}"
            for settings, sizes in doc["rounded"].items()
            for size, gpu in sizes.items()
            if (seen or {}).get(settings, {}).get(size) != gpu
        ]
    if not name.startswith("model_"):
        return recordings.compare_steps(ref, doc)
    program = name[len("model_") :]
    try:
        inputs = json.dumps(recordings.program_inputs(doc))
    except ValueError as exc:
        return [str(exc)]
    problems = []
    if program_file(program).read_text() != inputs:
        problems.append(f"{name}: the case's inputs are not the recording's (re-derive)")
    seen = out.get(program_case_id(program), {}).get("expected")
    if not isinstance(seen, dict) or "stats" not in seen:
        return [*problems, f"{name}: no case replays it, or the reference raised {seen}"]
    return problems + recordings.compare_program(doc, seen)


def program_file(program: str) -> Path:
    """Where a recorded program's inputs live: beside the cases, or with the hidden ones."""
    from autograder.weeks.week4.gpu import PROGRAMS, PUBLIC

    hidden = Path(__file__).resolve().parents[2] / "hidden" / "week4_programs"
    return (PROGRAMS if program in PUBLIC else hidden) / f"{program}.json"


def program_case_id(program: str) -> str:
    """The case that replays a recorded program: public, or hidden (gpu.PUBLIC)."""
    from autograder.weeks.week4.gpu import PUBLIC

    return f"{W}::{'' if program in PUBLIC else 'hidden_'}h100_{program}"


def PIN_SKIPPED() -> list[str]:  # noqa: N802 - read by autograder/pinning.py
    """What the GPU check leaves out, and why: printed when pinning."""
    from autograder.weeks.week4 import recordings

    return [f"{name}: {why}" for name, why in recordings.SKIPPED.items()]


# Settings strings torch 2.13's own parser (AcceleratorAllocatorConfig, which this CPU build
# has) accepts or refuses: the reference must raise the same kind of error on each. Keys only
# a CUDA build checks (an unknown key: ValueError on an H100) are not parsed here.
SETTINGS_PROBES = [
    "max_split_size_mb:128,garbage_collection_threshold:0.6",
    "roundup_power2_divisions:[256:4,>:8]",
    "garbage_collection_threshold:0.0",
    "garbage_collection_threshold:1.5",
    "garbage_collection_threshold:abc",
    "max_split_size_mb:19",
    "max_split_size_mb:abc",
    "max_non_split_rounding_mb:10",
    "roundup_power2_divisions:3",
    "roundup_power2_divisions:[256:3]",
    "roundup_power2_divisions:[255:4]",
    "roundup_power2_divisions:[256:4,>:3]",
    "roundup_power2_divisions:[256:4",
    "expandable_segments:Maybe",
    "max_split_size_mb",
]


def _settings(out: dict[str, Any]) -> list[str]:
    """The reference refuses a settings string exactly where torch's parser does, with the
    same kind of error (ValueError for a bad value, RuntimeError for a string cut short)."""
    import torch

    from autograder import pinning
    from autograder.weeks.week4.sizes import BAD_VALUES

    ref = pinning.reference_module(WEEKS[W])
    problems = []
    try:
        for text in SETTINGS_PROBES + BAD_VALUES:  # and every string a case refuses or accepts
            kinds = []
            for parse in (torch._C._accelerator_setAllocatorSettings, ref.AllocatorConfig.parse):
                try:
                    parse(text)
                    kinds.append("accepted")
                except Exception as exc:  # noqa: BLE001 - the kind is what is compared
                    kinds.append(type(exc).__name__)
            if kinds[0] != kinds[1]:
                problems.append(f"settings {text!r}: torch {kinds[0]}, the reference {kinds[1]}")
    finally:
        torch._C._accelerator_setAllocatorSettings("")
    return problems


PIN_CHECKS: list[Callable[[dict[str, Any]], list[str]]] = [
    _ported,
    _constants,
    _invariants,
    _settings,
    _cuda,
]


def write_inputs() -> None:
    """The cases' inputs, derived from the truth with the answers left out."""
    from autograder.weeks.week4 import recordings

    (DATA / "ported_steps.json").write_text(json.dumps(derive_ported_steps(), indent=1) + "\n")
    for name in recordings.names():
        if name.startswith("model_"):
            path = program_file(name[len("model_") :])
            path.parent.mkdir(exist_ok=True)
            path.write_text(json.dumps(recordings.program_inputs(recordings.load(name))))


if __name__ == "__main__":
    write_inputs()
