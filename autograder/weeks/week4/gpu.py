"""Real training programs, recorded on an H100, replayed on your allocator.

Each program (a transformer with AdamW, resnet18 with SGD, a large MLP whose batch size
changes) ran on a real H100 under ``torch.cuda.memory._record_memory_history``, which logs
every malloc and free the caching allocator served and every segment it asked the driver for.
Its inputs (``data/programs/``) are the sizes asked for, when each block was freed, and the
addresses the GPU's driver gave each new segment; the case builds your allocator over
``Device(capacity, addresses=...)``, a driver that hands out those same addresses in the same
order, so best fit has the same ties to break as it had on the GPU. Truth: the H100's own
figures (``autograder/truth/week4_data/cuda/``): no answer is pinned unless every block lands
at the GPU's address and every statistic and final segment equals the GPU's.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

from autograder.cases import case
from autograder.weeks.week4.common import DATA, DEFAULT_CAPACITY, W, attempt

PROGRAMS = DATA / "programs"
PUBLIC = ("transformer_adamw", "resnet18_sgd")


@cache
def program(path: Path) -> dict[str, Any]:
    """A recorded program's inputs: ``events`` (``["malloc", id, bytes, stream]``, ``["free",
    id]``) and ``driver_addresses`` (each new segment's address on the GPU, in order)."""
    return json.loads(path.read_text())


def replay_program(lib: Any, prog: dict[str, Any]) -> dict[str, Any]:
    """The program on ``lib``'s allocator over the recorded driver: where each block went (in
    hex, in the order they were asked for), every statistic at the end, the final segments."""
    device = lib.Device(DEFAULT_CAPACITY, addresses=prog["driver_addresses"])
    alloc = lib.CachingAllocator(device, lib.AllocatorConfig.parse(""))
    live: dict[int, Any] = {}
    placed = []
    for event in prog["events"]:
        if event[0] == "malloc":
            block = alloc.malloc(event[2], event[3])
            live[event[1]] = block
            placed.append(hex(int(block.ptr)))
        else:
            alloc.free(live.pop(event[1]))
    return {
        "block addresses": placed,
        "stats": {k: int(v) for k, v in alloc.memory_stats().items()},
        "segments": [
            {
                "address": hex(int(seg["address"])),
                "total_size": int(seg["total_size"]),
                "segment_type": seg["segment_type"],
                "blocks": [[int(b["size"]), b["state"]] for b in seg["blocks"]],
            }
            for seg in sorted(alloc.memory_snapshot(), key=lambda s: int(s["address"]))
        ],
    }


def program_case(name: str, folder: Path, hidden: bool = False) -> None:
    """Register the case that replays ``folder/<name>.json``."""

    def fn(lib: Any) -> Any:
        return attempt(lambda: replay_program(lib, program(folder / f"{name}.json")))

    fn.__doc__ = (
        f"``{name}``, recorded on an H100, replayed over the GPU's own driver addresses: "
        "every block at the GPU's address, every statistic and final segment the GPU's."
    )
    fn.__name__ = fn.__qualname__ = f"{'hidden_' if hidden else ''}h100_{name}"
    case(W, points=2, tasks=("4.1", "4.2", "4.4"), hidden=hidden)(fn)


for _name in PUBLIC:
    program_case(_name, PROGRAMS)
