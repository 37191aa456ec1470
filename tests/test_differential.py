"""Each reference agrees with torch on random programs over everything it models
(``autograder/differential``), and the harness is not blind: a reference with one rule
broken is caught."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest

from autograder import differential
from autograder.weeks import WEEKS

# Programs per week in the test suite (under a minute each); instructors run 20,000.
N = 300
# Weeks whose engine loads a C++ device into the process: torch's autograd engine sizes its
# per-device queues at the first backward of a process (engine.cpp, start_device_threads), so
# a device loaded after another week's programs ran backward cannot run one. These run in a
# process of their own, through the instructor's command. So does week 7: FSDP2 on gloo leaves
# gloo's threads and sockets alive in the process that ran it (about 8 threads and 22
# descriptors a world), and a pytest worker that had run its programs saw its later sandboxes
# killed.
OWN_PROCESS = {"week5", "week7"}


def _run_alone(week: str, *flags: str) -> tuple[int, int, str]:
    """``python -m autograder.differential WEEK --n N``: (programs that differ, refused, output)."""
    out = subprocess.run(
        [sys.executable, "-m", "autograder.differential", week, "--n", str(N), *flags],
        capture_output=True,
        text=True,
        timeout=900,
    ).stdout
    summary = re.search(r"(\d+) of \d+ programs differ, (\d+) refused", out)
    assert summary, out[-2000:]
    return int(summary[1]), int(summary[2]), out


@pytest.mark.parametrize("week", differential.WEEKS_WITH_GENERATORS)
def test_the_reference_agrees_with_torch_on_random_programs(week):
    """Never a different answer; a refusal (NotImplementedError) only now and then, since the
    generators draw from what the reference models."""
    if week in OWN_PROCESS:
        wrong_n, refused, out = _run_alone(week)
        assert wrong_n == 0, out[-3000:]
        assert refused <= N // 20, out[-3000:]
        return
    found = differential.run(WEEKS[week], N, seed=0)
    wrong = [d for d in found if not d.refused]
    assert not wrong, f"{len(wrong)} of {N} programs differ; the first:\n{wrong[0]}"
    assert len(found) <= N // 20, f"{len(found)} of {N} programs refused; the first:\n{found[0]}"


@pytest.mark.parametrize("week", differential.WEEKS_WITH_GENERATORS)
def test_a_broken_reference_is_caught(week):
    """The week's generator module names how to break its reference (``BREAK``: a function
    that takes the freshly loaded reference module and changes one rule)."""
    if week in OWN_PROCESS:
        assert _run_alone(week, "--broken")[0] > 0
        return
    gen = differential.generator(WEEKS[week])
    engine = differential.load_engine(WEEKS[week])
    undo = gen.BREAK(engine)  # may return how to undo it (a kernel registered in torch)
    try:
        found = differential.run(WEEKS[week], N, seed=0, engine=engine)
    finally:
        if callable(undo):
            undo()
    assert [d for d in found if not d.refused]


@pytest.mark.parametrize("week", differential.WEEKS_WITH_GENERATORS)
def test_programs_are_reproducible_from_seed_and_index(week):
    first = differential.program(WEEKS[week], 7, 3)
    assert differential.program(WEEKS[week], 7, 3) == first
