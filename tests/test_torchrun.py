"""Week 7 beyond one machine: the learner's labccl under torchrun, on processes.

The port over a c10d store (``labs/week7_c10d/multihost.py``) behaves as the threads' port
(``autograder/weeks/week7/world.py``), checked in this process on a ``HashStore``; then
``scripts/torchrun_labccl.py`` runs under ``torch.distributed.run --standalone`` as two local
processes (outside any sandbox: the grader's workers may start none), over TCPStore and gloo
on the loopback interface: every check passes on the course's own c10d.py, with the ring's
message count; and the learner's unfinished skeleton is named, task and all (a world of one
in this process: the same code path, without two more interpreters' start-up).
"""

from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest
import torch
import torch.distributed as dist

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "scripts" / "torchrun_labccl.py"
CHECKS = [
    "all_reduce SUM",
    "all_reduce AVG",
    "broadcast from rank 1",
    "all_gather",
    "reduce_scatter SUM",
    "DDP, 3 steps of SGD",
]


def _load(path: Path, name: str):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


multihost = _load(ROOT / "labs" / "week7_c10d" / "multihost.py", "labccl_multihost_test")


@pytest.mark.parametrize(
    "tensor",
    [
        torch.arange(6.0).view(2, 3).t(),  # not contiguous
        torch.tensor(3),  # no dimensions
        torch.empty(0, 4),  # no elements
        torch.tensor([1.5, -2.0], dtype=torch.bfloat16),  # no numpy dtype
        torch.tensor([True, False]),
        torch.tensor([1 + 2j, 3 - 1j], dtype=torch.complex64).conj(),  # a lazy conjugate
        torch.arange(5, dtype=torch.int64),
    ],
    ids=["transposed", "scalar", "empty", "bfloat16", "bool", "conj", "int64"],
)
def test_a_message_keeps_dtype_shape_and_values(tensor: torch.Tensor) -> None:
    back = multihost.decode(multihost.encode(tensor))
    assert back.dtype == tensor.dtype and back.shape == tensor.shape
    assert torch.equal(back, tensor.resolve_conj())


def test_a_message_is_a_tensor_or_refused() -> None:
    with pytest.raises(ValueError, match="not a tensor message"):
        multihost.decode(b"\x80\x04\x95 a pickle")
    with pytest.raises(ValueError, match="should hold 8 bytes, not 4"):
        multihost.decode(b"labccl1 float32 [2]\n\0\0\0\0")
    with pytest.raises(TypeError, match="takes a tensor"):
        multihost.encode([1.0, 2.0])


def test_the_store_port_behaves_as_the_threads_port() -> None:
    """The same steps as the chapter's example of world.py's Port, over a store."""
    store = dist.HashStore()
    zero = multihost.StorePort(store, 0, 2, timeout=0.2)
    one = multihost.StorePort(store, 1, 2, timeout=0.2)
    assert (zero.rank, one.rank, one.world_size) == (0, 1, 2)
    sent = torch.arange(3)
    zero.send(1, sent)
    sent.add_(10)  # the port kept a copy
    zero.send(1, torch.ones(2))
    assert one.poll(0) and not zero.poll(1)
    assert torch.equal(one.recv(0), torch.arange(3))
    assert torch.equal(one.recv(0), torch.ones(2))
    assert not one.poll(0)
    assert (zero.messages, zero.elements, one.messages) == (2, 5, 0)
    assert store.num_keys() == 0  # read messages are deleted
    with pytest.raises(ValueError, match="a rank does not message itself"):
        zero.send(0, torch.ones(1))
    with pytest.raises(TimeoutError, match="message 2 from rank 0 .* never came"):
        one.recv(0)
    zero.send(1, torch.full((2,), 7))  # a late message is still the next one
    assert torch.equal(one.recv(0), torch.full((2,), 7))


def test_the_script_says_to_use_torchrun(monkeypatch, capsys) -> None:
    for name in ("RANK", "MASTER_ADDR"):
        monkeypatch.delenv(name, raising=False)
    script = _load(SCRIPT, "torchrun_labccl_test")
    assert script.main([]) == 2
    assert "run this under torchrun" in capsys.readouterr().err


def _torchrun(*args: str) -> tuple[subprocess.CompletedProcess, float]:
    env = {k: v for k, v in os.environ.items() if k not in ("RANK", "WORLD_SIZE", "MASTER_ADDR")}
    if Path("/sys/class/net/lo").exists():
        env["GLOO_SOCKET_IFNAME"] = "lo"  # both ranks are here: never another interface
    command = [sys.executable, "-m", "torch.distributed.run", "--standalone"]
    command += ["--nproc_per_node", "2", str(SCRIPT), "--timeout", "20", *args]
    start = time.perf_counter()
    run = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    return run, time.perf_counter() - start


def test_labccl_runs_under_torchrun_on_two_processes() -> None:
    run, took = _torchrun("--impl", "reference")
    out = run.stdout
    assert run.returncode == 0, out + run.stderr[-3000:]
    passed = re.findall(r"^PASS  (.+?): same as gloo on every rank$", out, re.MULTILINE)
    assert passed == CHECKS, out
    assert "FAIL" not in out
    assert f"{len(CHECKS)} of {len(CHECKS)} checks passed" in out
    # a ring all-reduce at W=2 sends 2(W-1) = 2 messages of N/W = 6 elements per rank
    after_sum = out.split("PASS  all_reduce SUM", 1)[1].splitlines()[1]
    assert "messages per rank [2, 2]" in after_sum and "elements [12, 12]" in after_sum, out
    assert took < 60, f"two processes took {took:.1f} s"


def test_an_unfinished_lab_is_named_with_its_task(monkeypatch, capsys) -> None:
    """The course's own labs/ copy is the skeleton: register_labccl is Task 7.4's. A world of
    one, in this process (torchrun's variables set by hand): the same path, without the
    seconds two more interpreters take."""
    import socket
    import threading

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        free = s.getsockname()[1]
    env = {"RANK": "0", "WORLD_SIZE": "1", "MASTER_ADDR": "127.0.0.1", "MASTER_PORT": str(free)}
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    script = _load(SCRIPT, "torchrun_labccl_test")
    try:
        assert script.main(["--timeout", "5"]) == 1
    finally:
        vars(threading.current_thread()).pop("port", None)  # the port the script installed
    said = capsys.readouterr().err
    assert "[rank 0] not implemented yet: register_labccl (Task 7.4)" in said, said
    assert "torchlab check week7 -k 7.4" in said and "Tasks 7.2, 7.3 and 7.4" in said
