"""Record real CUDA caching-allocator figures for the week-4 truth (needs a GPU).

Replays, through the real CUDA caching allocator, every scenario of
``autograder/truth/week4_data/ported_tests.json`` and every trace in
``autograder/weeks/week4/data/traces/*.json``. Each malloc is
``torch.empty(bytes, dtype=torch.uint8, device="cuda")`` (a request of exactly ``bytes``); a free
drops the tensor. Before each scenario: ``gc.collect()``, ``torch.cuda.synchronize()``,
``torch.cuda.empty_cache()``, default allocator settings, ``reset_peak_memory_stats()`` and
``reset_accumulated_memory_stats()``. After each step it records the selected
``torch.cuda.memory_stats()`` keys and a compact ``torch.cuda.memory_snapshot()`` (segments with
their blocks, addresses made relative to the segment), and writes one JSON file per scenario
into the ``cuda`` folder beside ``ported_tests.json``, with the GPU name, torch version, CUDA
version and allocator settings. Expectations in ported_tests.json are checked and reported
(not enforced).

Without CUDA it prints a message and exits 0. Run: ``python scripts/record_cuda_fixtures.py``
(``--only NAME`` to restrict, ``--snapshot-every K`` to thin snapshots of long traces;
``--thin FILE --every K`` shrinks an existing recording without a GPU). Each file also holds
``driver``: the segments the allocator asked the driver for, with the addresses it got
(``torch.cuda.memory._record_memory_history``), which week 4's ``Device(capacity,
addresses=...)`` replays. Real training programs: ``scripts/record_cuda_programs.py``.

Notes
    * Stats are absolute values; ``baseline`` (stats after the reset, before step 0) is stored
      too, since a CUDA context may hold allocations made by torch itself (normally none).
    * Scenarios with ``config.device_total_bytes``/``allowed_bytes`` emulate the simulated limit
      with ``set_per_process_memory_fraction`` (fraction = limit / real total memory); if the
      simulated limit exceeds the real device, the scenario is recorded as skipped.
    * ``set_config`` steps call ``torch.cuda.memory._set_allocator_settings``; steps with
      ``pool`` allocate inside ``torch.cuda.use_mem_pool`` of a ``torch.cuda.MemPool``.
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import json
import os
import sys
from pathlib import Path
from typing import Any

import torch

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "autograder" / "truth" / "week4_data"
TRACES = ROOT / "autograder" / "weeks" / "week4" / "data" / "traces"
OUT_DIR = DATA / "cuda"

STAT_KEYS = [
    f"{kind}.{pool}.{metric}"
    for kind in (
        "allocated_bytes",
        "reserved_bytes",
        "active_bytes",
        "requested_bytes",
        "inactive_split_bytes",
        "allocation",
        "segment",
        "active",
        "inactive_split",
    )
    for pool in ("all", "small_pool", "large_pool")
    for metric in ("current", "peak", "allocated", "freed")
] + [
    "num_alloc_retries",
    "num_ooms",
    "num_sync_all_streams",
    "num_device_alloc",
    "num_device_free",
    "oversize_allocations.current",
    "oversize_segments.current",
    "max_split_size",
]


def select_stats() -> dict[str, int]:
    """Selected keys of torch.cuda.memory_stats() (missing keys are left out)."""
    stats = torch.cuda.memory_stats()
    return {k: int(stats[k]) for k in STAT_KEYS if k in stats}


def compact_snapshot(pools: dict[str, Any] | None = None) -> list[dict[str, Any]]:
    """memory_snapshot() reduced to sizes, states and segment-relative offsets."""
    pool_names = {}
    for name, pool in (pools or {}).items():
        pool_names[tuple(pool.id)] = name
    segments = []
    for seg in sorted(torch.cuda.memory_snapshot(), key=lambda s: s["address"]):
        offset = 0
        blocks = []
        for b in seg["blocks"]:
            blocks.append(
                {
                    "offset": offset,
                    "size": b["size"],
                    "requested_size": b.get("requested_size", 0),
                    "state": b["state"],
                }
            )
            offset += b["size"]
        pool_id = tuple(seg.get("segment_pool_id", (0, 0)))
        segments.append(
            {
                "address": seg["address"],
                "total_size": seg["total_size"],
                "allocated_size": seg["allocated_size"],
                "active_size": seg["active_size"],
                "requested_size": seg.get("requested_size", 0),
                "segment_type": seg["segment_type"],
                "stream": seg["stream"],
                "is_expandable": seg.get("is_expandable", False),
                "pool": pool_names.get(pool_id, "default" if pool_id == (0, 0) else str(pool_id)),
                "blocks": blocks,
            }
        )
    return segments


DRIVER_ACTIONS = ("segment_alloc", "segment_free", "segment_map", "segment_unmap")


def driver_events() -> list[list[Any]]:
    """What the allocator asked of the driver while history was recorded, in order:
    ``[action, address, size, stream]`` (segment_alloc / segment_free; segment_map and
    segment_unmap for expandable segments)."""
    traces = torch.cuda.memory._snapshot()["device_traces"]
    events = traces[torch.cuda.current_device()] if traces else []
    return [
        [e["action"], e["addr"], e["size"], e["stream"]]
        for e in events
        if e["action"] in DRIVER_ACTIONS
    ]


def reset_allocator() -> None:
    """Bring the allocator to a clean state with default settings."""
    gc.collect()
    torch.cuda.synchronize()
    # An empty settings string resets keys to their defaults (test_allocator_settings relies
    # on a settings call resetting roundup_power2_divisions); expandable segments off explicitly.
    torch.cuda.memory._set_allocator_settings("")
    torch.cuda.memory._set_allocator_settings("expandable_segments:False")
    torch.empty(1, device="cuda")  # the first CUDA tensor starts the allocator and its stats
    torch.cuda.set_per_process_memory_fraction(1.0)
    torch.cuda.empty_cache()
    torch.cuda.reset_peak_memory_stats()
    torch.cuda.reset_accumulated_memory_stats()


def run_steps(
    name: str,
    config: dict[str, Any],
    steps: list[dict[str, Any]],
    snapshot_every: int = 1,
) -> dict[str, Any]:
    """Replay one scenario; return the recorded document."""
    reset_allocator()
    _, total = torch.cuda.mem_get_info()
    pools: dict[str, Any] = {}
    for pname in config.get("pools", []):
        opts = config.get("pool_options", {}).get(pname, {})
        pools[pname] = torch.cuda.MemPool(**opts)
    sim_total = config.get("device_total_bytes")
    if "allowed_bytes" in config:
        limit = config["allowed_bytes"] + torch.cuda.memory_reserved()
        if limit > total:
            return {"name": name, "skipped": "allowed_bytes exceeds this GPU"}
        torch.cuda.set_per_process_memory_fraction(limit / total)
    live: dict[str, torch.Tensor] = {}
    records: list[dict[str, Any]] = []
    doc: dict[str, Any] = {"name": name, "config": config, "baseline": select_stats()}
    # The driver's side: each segment the allocator asked for, and where the driver put it
    # (week 4's Device(capacity, addresses=...) replays them in this order).
    history = torch.cuda.memory._record_memory_history
    history(context=None, max_entries=1_000_000, clear_history=True)
    for k, step in enumerate(steps):
        op = step["op"]
        rec: dict[str, Any] = {"step": k, "op": op}
        try:
            if op == "malloc":
                ctx = (
                    torch.cuda.use_mem_pool(pools[step["pool"]])
                    if "pool" in step
                    else contextlib.nullcontext()
                )
                with ctx:
                    live[step["id"]] = torch.empty(step["bytes"], dtype=torch.uint8, device="cuda")
            elif op == "free":
                del live[step["id"]]
            elif op == "empty_cache":
                torch.cuda.empty_cache()
            elif op == "reset_peak":
                torch.cuda.reset_peak_memory_stats()
            elif op == "set_config":
                torch.cuda.memory._set_allocator_settings(step["settings"])
            elif op == "set_memory_fraction":
                if sim_total is None:
                    raise ValueError("set_memory_fraction needs config.device_total_bytes")
                limit = step["fraction"] * sim_total
                if limit > total:
                    torch.cuda.memory._record_memory_history(enabled=None)
                    return {"name": name, "skipped": "simulated limit exceeds this GPU"}
                torch.cuda.set_per_process_memory_fraction(limit / total)
            else:
                raise ValueError(f"unknown op {op!r}")
            rec["error"] = None
        except torch.OutOfMemoryError as exc:
            rec["error"] = {"type": "OutOfMemoryError", "message": str(exc).splitlines()[0]}
        except RuntimeError as exc:
            rec["error"] = {"type": "RuntimeError", "message": str(exc).splitlines()[0]}
        rec["stats"] = select_stats()
        if k % snapshot_every == 0 or k == len(steps) - 1:
            rec["snapshot"] = compact_snapshot(pools)
        records.append(rec)
    doc["steps"] = records
    doc["driver"] = driver_events()
    torch.cuda.memory._record_memory_history(enabled=None)
    live.clear()
    pools.clear()
    reset_allocator()
    return doc


def check_expectations(doc: dict[str, Any], expect: list[dict[str, Any]]) -> list[str]:
    """Compare recorded figures with ported_tests.json expectations; return mismatches."""
    problems = []
    steps = doc.get("steps", [])
    for e in expect:
        rec = steps[e["after_step"]]
        if "stat" in e:
            got = rec["stats"].get(e["stat"])
            if got != e["equals"]:
                problems.append(f"step {e['after_step']}: {e['stat']}={got} != {e['equals']}")
        elif "raises" in e:
            if rec["error"] is None:
                problems.append(f"step {e['after_step']}: expected {e['raises']}, no error")
        elif e.get("no_error") and rec["error"] is not None:
            problems.append(f"step {e['after_step']}: unexpected {rec['error']}")
    return problems


def trace_to_steps(trace: dict[str, Any]) -> list[dict[str, Any]]:
    """Convert a recorded trace's events into malloc/free steps on stream 0."""
    steps = []
    for ev in trace["events"]:
        if ev[0] == "malloc":
            steps.append({"op": "malloc", "id": str(ev[1]), "bytes": ev[2], "stream": 0})
        else:
            steps.append({"op": "free", "id": str(ev[1])})
    return steps


# round_size under the list form of roundup_power2_divisions: which interval ">" starts at
# (the course's reference once had it one interval early). Inputs shared with week 4's case
# task_4_1_divisions_after_the_last_range (autograder/weeks/week4/sizes.py).
DIVISION_SETTINGS = [
    "roundup_power2_divisions:[256:4,>:8]",
    "roundup_power2_divisions:[64:8,256:2,>:1]",
    "roundup_power2_divisions:[128:2,512:4]",
    "roundup_power2_divisions:4",
]
DIVISION_SIZES = [m * 2**20 + extra for m, extra in ((100, 1), (200, 1), (260, 0), (300, 1))]
DIVISION_SIZES += [600 * 2**20 + 1, 1100 * 2**20 + 1]


def record_round_sizes() -> dict[str, Any]:
    """What the allocator rounds each of DIVISION_SIZES to under each of DIVISION_SETTINGS:
    the growth of allocated_bytes when one tensor of that many bytes is made."""
    reset_allocator()
    rounded: dict[str, dict[str, int]] = {}
    for settings in DIVISION_SETTINGS:
        torch.cuda.memory._set_allocator_settings(settings)
        rounded[settings] = {}
        for n in DIVISION_SIZES:
            torch.cuda.empty_cache()
            before = torch.cuda.memory_stats()["allocated_bytes.all.current"]
            t = torch.empty(n, dtype=torch.uint8, device="cuda")
            rounded[settings][str(n)] = (
                torch.cuda.memory_stats()["allocated_bytes.all.current"] - before
            )
            del t
    reset_allocator()
    return {"name": "round_size_divisions", "rounded": rounded}


def thin(doc: dict[str, Any], every: int) -> dict[str, Any]:
    """A recording with the records of every ``every``-th step, the last and any that raised
    (a long scenario's file shrinks ``every`` times; what is kept is unchanged)."""
    steps = doc["steps"]
    kept = [
        rec
        for k, rec in enumerate(steps)
        if k % every == 0 or k == len(steps) - 1 or rec.get("error") is not None
    ]
    return doc | {
        "steps": kept,
        "thinned": f"the record of every {every}th step, the last and errors",
    }


def main(argv: list[str] | None = None) -> int:
    """Record every scenario and trace; exit 0 without CUDA."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", action="append", default=None, help="scenario/trace name")
    parser.add_argument("--snapshot-every", type=int, default=25, help="for runs > 200 steps")
    parser.add_argument("--out", type=Path, default=OUT_DIR)
    parser.add_argument("--thin", type=Path, help="rewrite a recorded file into --out, thinned")
    parser.add_argument("--every", type=int, default=25, help="with --thin: keep every Kth step")
    args = parser.parse_args(argv)
    if args.thin:  # no GPU needed: re-derives a smaller file from a recorded one
        doc = thin(json.loads(args.thin.read_text()), args.every)
        (args.out / args.thin.name).write_text(json.dumps(doc, separators=(",", ":")) + "\n")
        print(f"{args.out / args.thin.name}: {len(doc['steps'])} step records kept")
        return 0
    if not torch.cuda.is_available():
        print("record_cuda_fixtures: CUDA is not available on this machine; nothing recorded.")
        return 0
    if torch.cuda.get_allocator_backend() != "native":
        print("record_cuda_fixtures: allocator backend is not 'native' (PYTORCH_ALLOC_CONF?).")
        return 1
    args.out.mkdir(parents=True, exist_ok=True)
    header = {
        "gpu": torch.cuda.get_device_name(0),
        "torch": torch.__version__,
        "cuda": torch.version.cuda,
        "env_PYTORCH_ALLOC_CONF": os.environ.get("PYTORCH_ALLOC_CONF"),
        "env_PYTORCH_CUDA_ALLOC_CONF": os.environ.get("PYTORCH_CUDA_ALLOC_CONF"),
        "recorded_by": "scripts/record_cuda_fixtures.py",
    }
    jobs: list[tuple[str, dict[str, Any], list[dict[str, Any]], list[dict[str, Any]]]] = []
    ported = json.loads((DATA / "ported_tests.json").read_text())
    for t in ported["scenarios"]:  # the ported PyTorch tests, as step lists
        jobs.append((t["test"], t["config"], t["steps"], t["expect"]))
    for path in sorted(TRACES.glob("*.json")):
        trace = json.loads(path.read_text())
        jobs.append((f"trace_{path.stem}", {}, trace_to_steps(trace), []))
    failures = 0
    for name, config, steps, expect in jobs:
        if args.only and name not in args.only:
            continue
        every = args.snapshot_every if len(steps) > 200 else 1
        doc = run_steps(name, config, steps, every)
        doc.update(header)
        doc["allocator_settings_note"] = (
            "defaults reset before the scenario; set_config steps change them as listed"
        )
        doc["expectation_mismatches"] = check_expectations(doc, expect)
        failures += bool(doc["expectation_mismatches"])
        out = args.out / f"{name.replace('.', '__')}.json"
        out.write_text(json.dumps(doc, indent=None, separators=(",", ":")) + "\n")
        status = doc.get("skipped") or (doc["expectation_mismatches"] or "ok")
        print(f"{out}: {status}")
    if not args.only or "round_size_divisions" in args.only:
        doc = record_round_sizes() | header
        (args.out / "round_size_divisions.json").write_text(json.dumps(doc, indent=1) + "\n")
        print(f"{args.out / 'round_size_divisions.json'}: recorded")
    print(f"done; {failures} scenario(s) differ from ported_tests.json expectations")
    return 0


if __name__ == "__main__":
    sys.exit(main())
