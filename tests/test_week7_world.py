"""Week 7's worlds of rank threads hold against a learner's mistakes and tricks: a rank that
starts a thread of its own is refused by the guard, a rank that loops or waits forever ends
its case (not the run), and a backend that hands its work to gloo is told apart."""

from __future__ import annotations

from pathlib import Path

import pytest

from autograder.runner import run_week
from autograder.weeks import WEEKS

REFERENCE = Path(__file__).resolve().parent.parent / "reference_impl" / "c10d.py"
W7 = WEEKS["week7"]


def _submission(tmp_path: Path, old: str, new: str) -> str:
    source = REFERENCE.read_text()
    assert source.count(old) == 1, old
    folder = tmp_path / "week7_c10d"
    folder.mkdir()
    (folder / "c10d.py").write_text(source.replace(old, new))
    return str(folder / "c10d.py")


BROADCAST = "    size, v = comm.world_size, (comm.rank - src) % comm.world_size\n"


def test_a_rank_may_not_start_threads(tmp_path: Path) -> None:
    impl = _submission(
        tmp_path,
        BROADCAST,
        "    import threading\n    threading.Thread(target=print).start()\n" + BROADCAST,
    )
    report = run_week(W7, impl, ["task_7_3_broadcast_binomial_tree", "task_7_3_all_gather_ring"])
    first, second = report.results
    assert first.status != "pass" and "may not start threads" in " ".join(first.refused)
    assert second.status == "pass", second.message  # the next case runs on the same ranks


def test_a_rank_that_loops_ends_its_case_not_the_run(tmp_path: Path) -> None:
    impl = _submission(
        tmp_path,
        BROADCAST,
        "    while comm.rank == 1:\n        pass\n" + BROADCAST,
    )
    report = run_week(W7, impl, ["task_7_3_broadcast_binomial_tree", "task_7_3_all_gather_ring"])
    first, second = report.results
    assert first.status in ("fail", "timeout", "error"), first.status
    assert second.status == "pass", second.message


def test_a_rank_that_waits_for_a_message_nobody_sends_is_named(tmp_path: Path) -> None:
    impl = _submission(
        tmp_path,
        "        self.port.send(dst, tensor.detach().clone())\n",
        "        if self.rank != 0:\n            self.port.send(dst, tensor.detach().clone())\n",
    )
    report = run_week(W7, impl, ["task_7_2_send_and_recv"])
    (result,) = report.results
    assert result.status != "pass"
    assert "waited" in result.message and "never came" in result.message, result.message


def test_a_backend_that_hands_its_work_to_gloo_is_not_labccl(tmp_path: Path) -> None:
    impl = _submission(
        tmp_path,
        '    if not hasattr(dist.Backend, "LABCCL"):',
        '    return "gloo"\n    if not hasattr(dist.Backend, "LABCCL"):',
    )
    report = run_week(W7, impl, ["task_7_4_the_public_api_on_labccl"])
    (result,) = report.results
    if result.status == "error" and "gloo" in result.message.lower():
        pytest.skip(f"gloo cannot run in this sandbox at all: {result.message}")
    assert result.status == "fail", result.message
    assert "over the interconnect" in result.message, result.message
