"""Helpers shared by the week-4 cases: scenarios run on an allocator, and what they observe.

Week 4's truth cannot come from running torch: its allocator is CUDA's, and this course has no
GPU. Each case says where its truth comes from (see ``autograder/truth/week4_data/README.md``):
PyTorch's own allocator tests (``ported_tests.json``: the figures those tests assert), the rules
of ``c10/cuda/CUDACachingAllocator.cpp`` (the function each case pins is named in its
docstring), invariants any correct allocator keeps, and real allocation traces of torch
programs. The expected observations are pinned in ``autograder/truth/week4_pinned.json`` by
``python -m autograder.pinning week4``, which refuses to pin unless every ported figure is
reproduced.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

from autograder.observe import raised

W = "week4"
MiB = 1024 * 1024
GiB = 1024 * MiB
# The cases' inputs: the steps of the ported tests (their asserted figures left out: those are
# answers, and stay in autograder/truth, which workers cannot read) and the recorded traces.
DATA = Path(__file__).resolve().parent / "data"
DEFAULT_CAPACITY = 80 * GiB  # a device like an 80 GB H100, where a scenario sets none


@cache
def _ported() -> dict[str, dict[str, Any]]:
    steps = json.loads((DATA / "ported_steps.json").read_text())["scenarios"]
    return {t["test"]: t for t in steps}


def ported(test: str) -> dict[str, Any]:
    """One of PyTorch's allocator tests as steps, and what its assertions look at."""
    return _ported()[test]


@cache
def trace(name: str) -> list[list[Any]]:
    """A recorded trace's events: ``["malloc", id, bytes]`` and ``["free", id]``."""
    return json.loads((DATA / "traces" / f"{name}.json").read_text())["events"]


def make(lib: Any, capacity: int = DEFAULT_CAPACITY, settings: str = "", **kw: Any) -> Any:
    """A fresh allocator over a fresh simulated device."""
    config = lib.AllocatorConfig.parse(settings)
    return lib.CachingAllocator(lib.Device(capacity, **kw), config)


def stats(alloc: Any, *keys: str) -> dict[str, int]:
    s = alloc.memory_stats()
    return {k: int(s[k]) for k in keys}


def segments(alloc: Any) -> list[dict[str, Any]]:
    """The snapshot made relative: each segment's size, type and stream, and its blocks as
    ``(offset in the segment, size, state)``: addresses are the device's business."""
    out = []
    for seg in alloc.memory_snapshot():
        base = int(seg["address"])
        out.append(
            {
                "total_size": int(seg["total_size"]),
                "segment_type": seg["segment_type"],
                "stream": int(seg["stream"]),
                "blocks": [
                    [int(b["address"]) - base, int(b["size"]), b["state"]] for b in seg["blocks"]
                ],
            }
        )
    return sorted(out, key=lambda s: (s["segment_type"], s["total_size"], str(s["blocks"])))


def attempt(fn: Any) -> Any:
    """``fn()``, or the error it raised (kind and numbers)."""
    try:
        return fn()
    except Exception as exc:  # noqa: BLE001 - every error is data here
        return raised(exc)


def run_steps(lib: Any, scenario: dict[str, Any]) -> list[Any]:
    """Run a ported scenario's steps; after each, what its expectations ask about, in order:
    a stat's value, whether the step raised (and whether the message says what torch's
    test checks for), or that it did not."""
    cfg = scenario["config"]
    alloc = make(lib, cfg.get("device_total_bytes", DEFAULT_CAPACITY))
    live: dict[str, Any] = {}
    expect = scenario["expect"]
    seen: list[Any] = []
    for k, step in enumerate(scenario["steps"]):
        error = None
        try:
            _step(lib, alloc, live, step)
        except NotImplementedError:
            raise  # an exercise not written yet: the case is "not implemented", not a failure
        except Exception as exc:  # noqa: BLE001 - the expectations say whether it should
            error = exc
        asked = [e for e in expect if e["after_step"] == k]
        for e in asked:
            seen.append(_observe(alloc, e, error, k, live))
        if error is not None and not any("raises" in e for e in asked):
            seen.append({"at": f"after step {k}", "unexpected error": type(error).__name__})
    return seen


def _step(lib: Any, alloc: Any, live: dict[str, Any], step: dict[str, Any]) -> None:
    op = step["op"]
    if op == "malloc":
        live[step["id"]] = alloc.malloc(step["bytes"], step.get("stream", 0))
    elif op == "free":
        alloc.free(live.pop(step["id"]))
    elif op == "empty_cache":
        alloc.empty_cache()
    elif op == "reset_peak":
        alloc.reset_peak_memory_stats()
    elif op == "set_config":  # torch.cuda.memory._set_allocator_settings
        alloc.config = lib.AllocatorConfig.parse(step["settings"])
    elif op == "set_memory_fraction":
        alloc.set_memory_fraction(step["fraction"])
    else:
        raise ValueError(f"a ported step this lab does not model: {op}")


def _observe(
    alloc: Any, e: dict[str, Any], error: BaseException | None, k: int, live: dict[str, Any]
) -> Any:
    where = f"after step {k}"
    if "snapshot_block" in e:
        ask = e["snapshot_block"]
        return {
            "at": where,
            "block": attempt(lambda: _block_facts(alloc, live[ask["id"]], ask["fields"])),
        }
    if "stat" in e:
        return {
            "at": where,
            "stat": e["stat"],
            "value": attempt(lambda: int(alloc.memory_stats()[e["stat"]])),
        }
    if "raises" in e:
        if error is None:
            return {"at": where, "raised": False}
        said = e.get("message_contains")
        return {
            "at": where,
            "raised": True,
            "error": type(error).__name__,  # OutOfMemoryError, or RuntimeError for > 1 EB
            "says what torch's test looks for": said is None or said in str(error),
        }
    if "no_error" in e:
        return {"at": where, "raised": error is not None}
    return {"at": where, "not modelled": sorted(k2 for k2 in e if k2 != "after_step")}


def _block_facts(alloc: Any, block: Any, fields: list[str]) -> dict[str, int]:
    """What the snapshot says of a live block: its sizes and where it sits in its segment."""
    for seg in alloc.memory_snapshot():
        for b in seg["blocks"]:
            if int(b["address"]) == int(block.ptr):
                facts = {
                    "requested_size": int(b["requested_size"]),
                    "size": int(b["size"]),
                    "segment_offset": int(b["address"]) - int(seg["address"]),
                    "segment_total_size": int(seg["total_size"]),
                }
                return {f: facts[f] for f in fields}
    raise LookupError("the block is not in the snapshot")


def ported_mismatches(scenario: dict[str, Any], seen: list[Any]) -> list[str]:
    """Where an observation of ``run_steps`` differs from the figure the PyTorch test asserts
    (used when pinning: nothing is pinned while a ported figure is not reproduced)."""
    bad = []
    for e, got in zip(scenario["expect"], seen, strict=True):
        if "stat" in e and got["value"] != e["equals"]:
            where = f"{e['stat']} after step {e['after_step']}"
            bad.append(f"{where}: the test says {e['equals']}, got {got['value']}")
        if "raises" in e and not (
            got.get("raised")
            and got["error"] in (e["raises"], "OutOfMemoryError")  # torch's OOM is a RuntimeError
            and got["says what torch's test looks for"]
        ):
            bad.append(f"step {e['after_step']} should raise {e['raises']}: got {got}")
        if "snapshot_block" in e:
            want = {k: v for k, v in e["snapshot_block"].items() if k != "id"}
            if got["block"] != want:
                bad.append(f"block {e['snapshot_block']['id']}: the test says {want}, got {got}")
        if "no_error" in e and got["raised"]:
            bad.append(f"step {e['after_step']} should not raise")
    return bad
