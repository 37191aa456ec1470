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
    from autograder.weeks.week4 import checks, recordings
    from autograder.weeks.week4.checks import derive_ported_steps
    from autograder.weeks.week4.common import DATA

    shipped = json.loads((DATA / "ported_steps.json").read_text())
    assert shipped == derive_ported_steps(), "run `python -m autograder.weeks.week4.checks`"
    assert '"equals"' not in (DATA / "ported_steps.json").read_text()
    for name in recordings.names():  # a program's inputs: sizes and the driver, no blocks
        if name.startswith("model_"):
            doc = recordings.load(name)
            inputs = json.loads(checks.program_file(name[len("model_") :]).read_text())
            assert inputs == recordings.program_inputs(doc)
            blocks = {e[1] for e in doc["events"] if e[0] == "alloc"}
            blocks -= set(inputs["driver_addresses"])  # a segment's first block is its address
            assert not blocks & {n for e in inputs["events"] for n in e if isinstance(n, int)}


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


def test_week4_pin_checks_every_gpu_recording():
    """The H100's files are compared, not just present: every recording is replayed or left
    out with a reason, and the pinned answers agree with all that are compared."""
    from autograder.weeks.week4 import checks, recordings

    names = recordings.names()
    assert len(names) >= 21 and any(n.startswith("model_") for n in names)
    assert set(recordings.SKIPPED) <= set(names)
    assert all(len(why) > 20 for why in recordings.SKIPPED.values())
    assert checks._cuda(pinning.load("week4")) == []
    assert [line.split(":")[0] for line in checks.PIN_SKIPPED()] == list(recordings.SKIPPED)


def _figures(doc, path=()):
    """Every integer in a recording that is a figure the GPU gave (not a step's index)."""
    if isinstance(doc, dict):
        for k, v in doc.items():
            if k not in ("step", "stream"):
                yield from _figures(v, (*path, k))
    elif isinstance(doc, list):
        for i, v in enumerate(doc):
            yield from _figures(v, (*path, i))
    elif isinstance(doc, int) and not isinstance(doc, bool):
        yield path


def _sample(n_per_file=6):
    """A spread of figures from every compared recording: baselines, statistics, segment and
    block fields, program block and segment addresses, final statistics."""
    import random

    from autograder.weeks.week4 import recordings

    rng = random.Random(4)
    out = []
    for name in recordings.names():
        if name in recordings.SKIPPED:
            continue
        figures = list(_figures(recordings.load(name)))
        out += [(name, path) for path in rng.sample(figures, min(n_per_file, len(figures)))]
    return out


@pytest.fixture(scope="module")
def week4_reference():
    return pinning.reference_module(WEEKS["week4"]), pinning.load("week4")


@pytest.mark.parametrize("name,path", _sample(), ids=lambda x: x if isinstance(x, str) else "")
def test_week4_gpu_check_refuses_a_figure_changed_by_one(name, path, week4_reference, monkeypatch):
    """Any figure of a recording, one more than the GPU said, and its check objects."""
    from autograder.weeks.week4 import checks, recordings

    ref, pinned = week4_reference
    assert checks.check_recording(name, pinned, ref) == []
    monkeypatch.setattr(recordings, "load", _changed(recordings.load, name, path))
    assert checks.check_recording(name, pinned, ref)


def test_week4_pin_refuses_a_changed_gpu_figure(monkeypatch):
    """The same, through the pin itself: nothing is pinned."""
    from autograder.weeks.week4 import recordings

    path = ("steps", 5, "stats", "allocated_bytes.all.current")
    name = "TestCuda__test_memory_stats"
    monkeypatch.setattr(recordings, "load", _changed(recordings.load, name, path))
    with pytest.raises(RuntimeError, match="disagrees with torch's own figures"):
        pinning.compute(WEEKS["week4"])


def _changed(load, name, path):
    """``load``, with the figure at ``path`` of recording ``name`` one more."""

    def changed(n):
        doc = load(n)
        if n == name:
            *parents, last = path
            node = doc
            for key in parents:
                node = node[key]
            node[last] += 1
        return doc

    return changed
