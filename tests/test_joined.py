"""Week 5 joined up with week 4c: labdev's tensors live in the C++ caching allocator.

Each check runs in a child process (a process keeps the labdev library it loads) and compares
with a trusted answer: the losses with the same MLP trained on the CPU by torch, the
allocator's statistics (read through torch's own ``torch.accelerator.memory_stats()``) with
week 4's Python allocator replaying the same malloc and free events, the OOM message with
week 4's for the same request."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parent.parent
STEPS = 5


def _run(mode: str) -> dict[str, Any]:
    proc = subprocess.run(
        [sys.executable, __file__, mode],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=REPO,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


@pytest.fixture(scope="module")
def joined() -> dict[str, Any]:
    return _run("reference")


def test_training_on_the_lent_allocator_matches_the_cpu(joined) -> None:
    import torch

    rows = joined["rows"]
    assert len(rows) == STEPS
    torch.testing.assert_close(
        torch.tensor([r["loss"] for r in rows]), torch.tensor([r["cpu_loss"] for r in rows])
    )


def test_no_growth_after_the_first_step(joined) -> None:
    """Step 1 reserves the segments; later steps take every block from the cache."""
    stats = [r["stats"] for r in joined["rows"]]
    first = stats[0]
    assert first["num_device_alloc"] > 0 and first["reserved_bytes.all.current"] > 0
    for later in stats[1:]:
        for key in ("reserved_bytes.all.current", "num_device_alloc", "segment.all.current"):
            assert later[key] == first[key], key
    made = [s["allocation.all.allocated"] for s in stats]
    per_step = {b - a for a, b in zip(made, made[1:], strict=False)}
    assert len(per_step) == 1 and per_step.pop() > 0  # the same allocations every step
    assert first["segment.large_pool.current"] >= 1  # the 2 MiB weight: both pools are used


def test_statistics_equal_week4s_allocator_on_the_same_events(joined) -> None:
    live, replayed = joined["live"], joined["replayed"]
    assert live["allocation.all.allocated"] > 0
    assert set(live) <= set(replayed)
    assert {k: live[k] for k in live} == {k: replayed[k] for k in live}


def test_everything_goes_back(joined) -> None:
    after = joined["after_empty_cache"]
    assert after["allocated_bytes.all.current"] == 0
    assert after["reserved_bytes.all.current"] == 0
    assert after["device_bytes_in_use"] == 0
    assert after["device_mallocs"] == after["device_frees"] > 0


def test_out_of_memory_is_torchs_with_week4s_message(joined) -> None:
    assert joined["oom"]["type"] == "OutOfMemoryError"
    assert joined["oom"]["message"].startswith(joined["oom"]["week4"])


def test_lending_refusals_say_why(joined) -> None:
    assert "host memory" in joined["simulated"]
    assert "still holds tensors' memory" in joined["busy"]


def test_plain_allocator_answers_torch_accelerator(joined) -> None:
    """Without a lent allocator, torch.accelerator reads Task 5.2's counters."""
    accelerator, own = joined["plain"]
    assert accelerator == own > 0
    assert joined["back_to_plain"] == 1


def test_an_unwritten_allocator_says_not_implemented() -> None:
    out = _run("skeleton")
    assert out["type"] == "NotImplementedError"
    assert out["message"] == "CachingAllocator::malloc (Task 4.7)"  # week 4c's skeleton says


# === The child ================================================================================


def _child(mode: str) -> dict[str, Any]:
    sys.path.insert(0, str(REPO / "reference_impl"))
    import allocator as week4  # week 4's Python allocator: the trusted policy
    import privateuse1
    import torch

    from autograder.notebook import joined

    privateuse1.setup()
    if mode == "skeleton":
        cpp = joined.load_lab_module(REPO / "cpp_labs" / "week4c_cpp_allocator", "cpp_allocator")
        privateuse1.use_caching_allocator(cpp.CachingAllocator(cpp.Device(1 << 30, 512, True)))
        try:
            torch.empty(10, device="labdev")
        except Exception as exc:  # noqa: BLE001 - its kind is the answer
            return {"type": type(exc).__name__, "message": str(exc)}
        return {"type": "none", "message": ""}

    out: dict[str, Any] = {}
    t = torch.empty(1000, device="labdev")
    out["plain"] = [torch.accelerator.memory_allocated(), privateuse1.memory_allocated()]
    del t

    cpp = joined.load_lab_module(REPO / "reference_impl", "cpp_allocator")
    try:
        privateuse1.use_caching_allocator(cpp.CachingAllocator(cpp.Device(1 << 30)))
        out["simulated"] = "accepted"
    except ValueError as exc:
        out["simulated"] = str(exc)

    lent = cpp.CachingAllocator(cpp.Device(joined.CAPACITY, 512, True))
    privateuse1.use_caching_allocator(lent)
    out["rows"] = joined.mlp_steps(steps=STEPS)
    out["live"] = dict(torch.accelerator.memory_stats())
    out["replayed"] = joined.replay_stats(week4, cpp.lent_trace())
    torch.accelerator.empty_cache()
    after = dict(torch.accelerator.memory_stats())
    after["device_bytes_in_use"] = lent.device.bytes_in_use
    after["device_mallocs"], after["device_frees"] = lent.device.n_malloc, lent.device.n_free
    out["after_empty_cache"] = after

    held = torch.ones(10, device="labdev")
    try:
        privateuse1.use_caching_allocator(cpp.CachingAllocator(cpp.Device(1 << 30, 512, True)))
        out["busy"] = "accepted"
    except RuntimeError as exc:
        out["busy"] = str(exc)
    del held

    small = cpp.CachingAllocator(cpp.Device(4 << 20, 512, True))
    privateuse1.use_caching_allocator(small)
    try:
        torch.empty(5 << 18, device="labdev")  # 5 MiB of float32: a 20 MiB segment
        out["oom"] = {"type": "none", "message": "", "week4": ""}
    except Exception as exc:  # noqa: BLE001 - its kind is the answer
        out["oom"] = {"type": type(exc).__name__, "message": str(exc)}
    try:
        week4.CachingAllocator(week4.Device(4 << 20)).malloc(5 << 20)
    except week4.OutOfMemoryError as exc:
        out["oom"]["week4"] = str(exc)

    privateuse1.use_caching_allocator(None)
    before = privateuse1.memory_stats()["allocation.all.current"]
    back = torch.empty(100, device="labdev")
    out["back_to_plain"] = privateuse1.memory_stats()["allocation.all.current"] - before
    del back
    return out


if __name__ == "__main__":
    print(json.dumps(_child(sys.argv[1])))
