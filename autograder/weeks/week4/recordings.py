"""Week 4's truth recorded on a real GPU, replayed on the reference before anything is pinned.

``autograder/truth/week4_data/cuda/`` holds what ``scripts/record_cuda_fixtures.py`` recorded on
an H100 (see the README there): for each ported PyTorch test and each trace, the statistics
after every step and snapshots of the segments; for three real training programs, the
allocator's own event history (``torch.cuda.memory._record_memory_history``), its final
statistics and segments. Each file is replayed on the reference over a ``Device`` that hands out
the GPU's own segment addresses in the order the GPU gave them (``driver_addresses``), so that
best fit breaks its ties as it did on the GPU, and every figure is compared:

- a counter (every key but ``max_split_size``) less the recording's baseline (the statistics
  before the scenario, where an earlier scenario in the same process may have left some);
- a setting (``max_split_size``) as it is;
- every recorded segment: its address, sizes, type and its blocks (offset, size, state);
- for a program: every block's address, and the final statistics and segments.

What the lab does not model is skipped, each with its reason (``SKIPPED``); the pin check
prints that list. Pin time only: workers never import this module (it reads the answers).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

CUDA = Path(__file__).resolve().parents[2] / "truth" / "week4_data" / "cuda"
PORTED = CUDA.parent / "ported_tests.json"
TRACES = Path(__file__).resolve().parent / "data" / "traces"
SETTINGS = ("max_split_size",)  # a setting, not a counter: compared as it is
CAPACITY = 80 * 1024**3  # the H100 80GB the files were recorded on

# Recorded scenarios, or parts of them, this lab does not model: name -> why.
SKIPPED: dict[str, str] = {
    "TestCudaMallocAsync__test_garbage_collect_expandable": (
        "expandable segments as torch grows and collects them (Task 4.5's is one simplified "
        "segment per pool and stream); not one of week 4's ported cases"
    ),
    "TestCudaMallocAsync__test_max_split_expandable": (
        "expandable segments as torch grows and releases them on an out-of-memory retry "
        "(Task 4.5's is simplified); not one of week 4's ported cases"
    ),
    "TestMemPool__test_mempool_no_split": "torch.cuda.MemPool private pools are not modelled",
    "TestMemPool__test_mempool_with_allocator": (
        "torch.cuda.MemPool with a pluggable allocator is not modelled"
    ),
    "TestMemPool__test_nested_mempool": "torch.cuda.MemPool private pools are not modelled",
}
# Scenarios whose statistics are compared but whose segment layout is not, and why.
LAYOUT_SKIPPED: dict[str, str] = {
    "TestCudaMallocAsync__test_garbage_collect_expandable": (
        "expandable segments as torch grows and collects them (Task 4.5's is one simplified "
        "segment per pool and stream); not one of week 4's ported cases"
    ),
    "TestCudaMallocAsync__test_max_split_expandable": (
        "expandable segments as torch grows and releases them on an out-of-memory retry "
        "(Task 4.5's is simplified); not one of week 4's ported cases"
    ),
}


def load(name: str) -> dict[str, Any]:
    return json.loads((CUDA / f"{name}.json").read_text())


def names() -> list[str]:
    return sorted(p.stem for p in CUDA.glob("*.json"))


def counters(stats: dict[str, int], baseline: dict[str, int]) -> dict[str, int]:
    """What a scenario itself did: counters less the baseline, settings as they are."""
    return {k: v if k in SETTINGS else v - baseline.get(k, 0) for k, v in stats.items()}


# --- where the GPU's driver put each segment -------------------------------------------------


def driver_addresses(doc: dict[str, Any]) -> list[int]:
    """The addresses the GPU's driver gave each new segment, in order.

    A program's history lists its ``segment_alloc`` events. A ported scenario or trace has
    snapshots instead: a step after which ``num_device_alloc`` grew by n made n segments, the
    ones in its snapshot that the previous snapshot did not hold (a freed range handed out again
    shows as an address whose segment changed size). Where snapshots were thinned, the segments
    new since the last snapshot are taken in address order, highest first (the H100 mostly
    gave later segments lower addresses); a wrong guess shows as a mismatch, never silently.
    """
    if "events" in doc:
        return [e[1] for e in doc["events"] if e[0] == "segment_alloc"]
    if "driver" in doc:  # recorded by the recorder's newer versions
        return [e[1] for e in doc["driver"] if e[0] == "segment_alloc"]
    out: list[int] = []
    before: dict[int, int] = {}
    made = 0
    last = doc["baseline"].get("num_device_alloc", 0)
    for rec in doc["steps"]:
        now = rec["stats"].get("num_device_alloc", last)
        made, last = made + max(now - last, 0), now
        if "snapshot" not in rec or not made:
            if "snapshot" in rec:
                before = {s["address"]: s["total_size"] for s in rec["snapshot"]}
            continue
        current = {s["address"]: s["total_size"] for s in rec["snapshot"]}
        grown = {s["address"] for s in rec["snapshot"] if s.get("is_expandable")} & set(before)
        new = [a for a, size in current.items() if before.get(a) != size and a not in grown]
        out += sorted(new, reverse=True)[:made]
        made, before = 0, current
    return out


# --- replaying a ported scenario or a trace ---------------------------------------------------


def scenario_steps(name: str) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The config and steps a recording replayed: a ported test's, or a trace's events."""
    if name.startswith("trace_"):
        events = json.loads((TRACES / f"{name[len('trace_') :]}.json").read_text())["events"]
        steps = [
            {"op": "malloc", "id": str(e[1]), "bytes": e[2]}
            if e[0] == "malloc"
            else {"op": "free", "id": str(e[1])}
            for e in events
        ]
        return {}, steps
    test = next(t for t in json.loads(PORTED.read_text())["scenarios"] if t["test"] == name)
    return test["config"], test["steps"]


def compact(snapshot: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The reference's memory_snapshot() in the recorder's compact form."""
    out = []
    for seg in snapshot:
        base = int(seg["address"])
        out.append(
            {
                "address": base,
                "total_size": int(seg["total_size"]),
                "allocated_size": int(seg["allocated_size"]),
                "active_size": int(seg["active_size"]),
                "requested_size": int(seg["requested_size"]),
                "segment_type": seg["segment_type"],
                "stream": int(seg["stream"]),
                "is_expandable": bool(seg["is_expandable"]),
                "blocks": [
                    {
                        "offset": int(b["address"]) - base,
                        "size": int(b["size"]),
                        "requested_size": int(b["requested_size"]),
                        "state": b["state"],
                    }
                    for b in seg["blocks"]
                ],
            }
        )
    return sorted(out, key=lambda s: s["address"])


def recorded_layout(snapshot: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A recorded snapshot with the fields ``compact`` keeps (default pool only)."""
    keep = ("address", "total_size", "allocated_size", "active_size", "requested_size")
    out = []
    for seg in snapshot:
        if seg.get("pool", "default") != "default":
            continue
        out.append(
            {k: seg[k] for k in keep}
            | {
                "segment_type": seg["segment_type"],
                "stream": seg["stream"],
                "is_expandable": seg.get("is_expandable", False),
                "blocks": [
                    {k: b[k] for k in ("offset", "size", "requested_size", "state")}
                    for b in seg["blocks"]
                ],
            }
        )
    return sorted(out, key=lambda s: s["address"])


def replay_steps(ref: Any, name: str, addresses: list[int]) -> list[dict[str, Any]]:
    """A ported scenario or trace on the reference, over a driver that hands out ``addresses``:
    after each step, whether it raised, the statistics and the compact snapshot."""
    from autograder.weeks.week4.common import DEFAULT_CAPACITY, _step

    config, steps = scenario_steps(name)
    device = ref.Device(config.get("device_total_bytes", DEFAULT_CAPACITY), addresses=addresses)
    alloc = ref.CachingAllocator(device, ref.AllocatorConfig())
    live: dict[str, Any] = {}
    out = []
    for step in steps:
        error = None
        try:
            _step(ref, alloc, live, step)
        except RuntimeError as exc:
            error = type(exc).__name__
        out.append(
            {
                "error": error,
                "stats": {k: int(v) for k, v in alloc.memory_stats().items()},
                "snapshot": compact(alloc.memory_snapshot()),
            }
        )
    return out


def compare_steps(ref: Any, doc: dict[str, Any]) -> list[str]:
    """Where the reference differs from one recorded ported scenario or trace."""
    name = doc["name"]
    try:
        ours = replay_steps(ref, name, driver_addresses(doc))
    except ValueError as exc:  # the recorded driver's addresses cannot be replayed
        return [f"{name}: {exc}"]
    base = doc.get("baseline", {})
    problems = []
    if doc["steps"][-1]["step"] != len(ours) - 1:
        return [f"{name}: the recording's steps are not the scenario's"]
    for rec in doc["steps"]:  # every step, or every Kth where the file was thinned
        mine = ours[rec["step"]]
        where = f"{name} step {rec['step']}"
        if (rec.get("error") is None) != (mine["error"] is None):
            gpu = rec["error"]["type"] if rec.get("error") else "no error"
            problems.append(f"{where}: the GPU gave {gpu}, the reference {mine['error']}")
        for key, value in counters(rec.get("stats") or {}, base).items():
            if mine["stats"].get(key) != value:
                problems.append(f"{where}: {key} GPU {value}, reference {mine['stats'].get(key)}")
        if "snapshot" in rec and name not in LAYOUT_SKIPPED:
            gpu, got = recorded_layout(rec["snapshot"]), mine["snapshot"]
            if gpu != got:
                problems.append(f"{where}: segments differ: GPU {gpu}, reference {got}")
    return problems


# --- replaying a real training program -----------------------------------------------------


def program_inputs(doc: dict[str, Any]) -> dict[str, Any]:
    """What a case may read of a recorded program: the sizes it asked for, when it freed what,
    and the driver's segment addresses. The block addresses (the answers) are left out."""
    ids: dict[int, int] = {}  # a live block's address -> its id
    events: list[list[Any]] = []
    made = 0
    for action, addr, size, stream in doc["events"]:
        if action == "alloc":
            ids[addr], made = made, made + 1
            events.append(["malloc", ids[addr], size, stream])
        elif action == "free_completed":
            if addr not in ids:
                raise ValueError(f"{doc['name']}: a free of {addr:#x}, which is not allocated")
            events.append(["free", ids.pop(addr)])
    return {
        "name": doc["name"],
        "derived_from": f"autograder/truth/week4_data/cuda/model_{doc['name']}.json"
        " (block addresses and statistics left out)",
        "gpu": doc["gpu"],
        "torch": doc["torch"],
        "driver_addresses": driver_addresses(doc),
        "events": events,
    }


def history_problems(doc: dict[str, Any]) -> list[str]:
    """Where a program's history does not hang together, so that no recorded figure goes
    unread: on one stream with no other work queued, torch logs ``free_requested`` and then
    ``free_completed`` for the same block (address, requested size, stream), a block freed is
    one that was allocated with that size and stream, and a ``segment_alloc`` comes just before
    the allocation it was made for (same address and stream). Segment sizes are compared with
    the final segments."""
    name, events = doc["name"], doc["events"]
    live: dict[int, list[Any]] = {}
    problems = []
    for i, (action, addr, size, stream) in enumerate(events):
        after = events[i + 1] if i + 1 < len(events) else [None, None, None, None]
        if action == "alloc":
            live[addr] = [size, stream]
        elif action == "free_requested" and (
            after != ["free_completed", addr, size, stream] or live.get(addr) != [size, stream]
        ):
            problems.append(f"{name}: event {i} frees what was not allocated so")
        elif action == "free_completed":
            if live.pop(addr, None) != [size, stream]:
                problems.append(f"{name}: event {i} frees what was not allocated so")
        elif action == "segment_alloc" and after[0:2] + after[3:] != ["alloc", addr, stream]:
            problems.append(f"{name}: event {i} makes a segment no allocation uses")
    return problems


def compare_program(doc: dict[str, Any], seen: dict[str, Any]) -> list[str]:
    """Where a program's pinned observation (``seen``, from the reference) differs from the GPU:
    every block's address, the final statistics, the final segments."""
    name = doc["name"]
    gpu_addresses = [hex(e[1]) for e in doc["events"] if e[0] == "alloc"]
    problems = history_problems(doc)
    made = {hex(e[1]): e[2] for e in doc["events"] if e[0] == "segment_alloc"}
    if made != {seg["address"]: seg["total_size"] for seg in seen.get("segments", [])}:
        problems.append(f"{name}: the segments made are not the ones the GPU's driver made")
    if seen.get("block addresses") != gpu_addresses:
        mine = seen.get("block addresses") or []
        k = next(
            (i for i, (a, b) in enumerate(zip(gpu_addresses, mine, strict=False)) if a != b),
            min(len(gpu_addresses), len(mine)),
        )
        problems.append(f"{name}: block {k} is not where the GPU put it")
    for key, value in counters(doc["stats"], doc.get("baseline", {})).items():
        if seen["stats"].get(key) != value:
            problems.append(f"{name}: {key} GPU {value}, reference {seen['stats'].get(key)}")
    gpu_segments = [
        {
            "address": hex(s["address"]),
            "total_size": s["total_size"],
            "segment_type": s["segment_type"],
            "blocks": [[size, state] for size, state in s["blocks"]],
        }
        for s in sorted(doc["segments"], key=lambda s: s["address"])
    ]
    if seen["segments"] != gpu_segments:
        problems.append(f"{name}: the final segments differ from the GPU's")
    return problems
