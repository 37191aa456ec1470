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
    fresh = pinning.compute(week)["cases"]  # raises if a PIN_CHECK fails
    pinned = pinning.load(week)
    stale = sorted(k for k in fresh.keys() | pinned.keys() if fresh.get(k) != pinned.get(k))
    assert not stale, f"re-pin with `python -m autograder.pinning {week}`; differs: {stale}"


@pytest.mark.parametrize("week", PINNED)
def test_a_pin_check_refuses_a_wrong_figure(week, monkeypatch):
    """The checks are not a formality: a reference whose ported figure is off is refused."""
    real = pinning.reference_module(week)
    monkeypatch.setattr(pinning, "reference_module", lambda w: _off_by_512(real))
    with pytest.raises(RuntimeError, match="disagrees with torch's own figures"):
        pinning.compute(week)


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
