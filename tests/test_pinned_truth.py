"""Pinned truth stays true: for each week whose answers are pinned (``Week.truth``), pinning
again from the reference gives the file in the repository, which can only happen when the
reference reproduces the figures of torch's own tests and headers (the week's PIN_CHECKS);
and the inputs the cases read carry none of those figures."""

import json

import pytest

from autograder import pinning
from autograder.weeks import WEEKS

PINNED = [name for name, w in WEEKS.items() if w.truth == "pinned"]


@pytest.mark.parametrize("week", PINNED)
def test_the_pinned_answers_are_current(week):
    fresh = pinning.compute(WEEKS[week])["cases"]  # raises if a PIN_CHECK fails
    pinned = pinning.load(week)
    stale = sorted(k for k in fresh.keys() | pinned.keys() if fresh.get(k) != pinned.get(k))
    assert not stale, f"re-pin with `python -m autograder.pinning {week}`; differs: {stale}"


@pytest.mark.parametrize("week", PINNED)
def test_a_pin_check_refuses_a_wrong_figure(week, monkeypatch):
    """The checks are not a formality: a reference whose ported figure is off is refused."""
    real = pinning.reference_module(WEEKS[week])
    monkeypatch.setattr(pinning, "reference_module", lambda w: _off_by_512(real))
    with pytest.raises(RuntimeError, match="disagrees with torch's own figures"):
        pinning.compute(WEEKS[week])


def _off_by_512(module):
    class Wrong(module.CachingAllocator):
        def memory_stats(self):
            stats = dict(super().memory_stats())
            stats["allocated_bytes.all.current"] += 512
            return stats

    module.CachingAllocator = Wrong
    return module


def test_week4_inputs_hold_no_answers():
    from autograder.weeks.week4.checks import derive_ported_steps
    from autograder.weeks.week4.common import DATA

    shipped = json.loads((DATA / "ported_steps.json").read_text())
    assert shipped == derive_ported_steps(), "run `python -m autograder.weeks.week4.checks`"
    assert '"equals"' not in (DATA / "ported_steps.json").read_text()


def test_week4_snapshots_are_read_by_torchs_own_tool():
    """The reference's ``memory_snapshot()`` is torch's format: ``torch.cuda._memory_viz``
    (what PyTorch's memory visualizer runs) summarises it, and its totals are the
    allocator's own statistics."""
    from torch.cuda import _memory_viz

    ref = pinning.reference_module(WEEKS["week4"])
    alloc = ref.CachingAllocator(ref.Device(80 << 30), ref.AllocatorConfig.parse(""))
    blocks = [alloc.malloc(n) for n in (1000, 3 << 20, 300_000, 25 << 20)]
    alloc.free(blocks[1])
    snapshot = alloc.memory_snapshot()
    text = _memory_viz.segsum({"segments": snapshot, "device_traces": [[]]})
    stats = alloc.memory_stats()
    assert f"segments: {len(snapshot)}\n" in text
    reserved = _memory_viz.Bytes(stats["reserved_bytes.all.current"])
    # segsum counts what was asked for as allocated; the rounding is its "internal" free
    allocated = _memory_viz.Bytes(stats["requested_bytes.all.current"])
    assert f"total_reserved: {reserved!r}\n" in text, text
    assert f"total_allocated: {allocated!r}\n" in text, text


def test_week4_compares_with_recordings_from_a_gpu():
    """The day a course records real CUDA figures (scripts/record_cuda_fixtures.py), pinning
    compares the reference with them: shown here on a recording in that script's format,
    first as the reference itself would give it, then with one figure changed."""
    from autograder.weeks.week4 import checks

    ref = pinning.reference_module(WEEKS["week4"])
    name = "TestCuda.test_memory_stats"
    scenario = next(
        t for t in json.loads(checks.TRUTH.read_text())["scenarios"] if t["test"] == name
    )
    ours = checks.stats_after_each_step(ref, scenario)
    keys = ["allocated_bytes.all.current", "reserved_bytes.all.current"]
    steps = [
        {"step": k, "error": None, "stats": {key: s[key] for key in keys}}
        for k, s in enumerate(ours)
    ]
    recording = {"name": name, "baseline": {}, "steps": steps}
    assert checks.compare_recording(ref, recording) == []
    steps[2]["stats"]["allocated_bytes.all.current"] += 512
    ours_then = ours[2][keys[0]]
    assert checks.compare_recording(ref, recording) == [
        f"{name} step 2: {keys[0]} GPU {ours_then + 512}, ours {ours_then}"
    ]
