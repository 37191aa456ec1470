"""Week 7 beyond one machine: a port carried over torch's c10d store (given: you do not edit it).

In the checks, every rank is a thread of one process and its port is a queue in memory
(``autograder/weeks/week7/world.py``: ``Link`` and ``Port``). Under ``torchrun`` every rank
is a process, maybe on another host, and they share one thing before any backend exists: the
store torchrun's rendezvous gives them (a ``TCPStore`` at ``MASTER_ADDR:MASTER_PORT``; see
``torch/distributed/rendezvous.py``, ``_env_rendezvous_handler``, and
``torch/distributed/run.py``). ``StorePort`` is a port over that store, with the interface of
``world.py``'s ``Port``, so that your ``labccl`` runs on processes unchanged:
``scripts/torchrun_labccl.py`` puts one on the main thread, where ``current_port()`` reads it.

A message from rank ``s`` to rank ``d`` is the ``k``-th that ``s`` sent to ``d``; it travels as
the store key ``{prefix}/{s}->{d}/{k}``, holding the tensor's dtype name, its shape and its raw
bytes (``encode``: no pickle, so a peer can send nothing but a tensor). ``recv`` waits for the
next key with a timeout, reads it and deletes it. The store is a server in one process
(``TCPStore.hpp``: rank 0's host, or torchrun's agent on the first node), so every byte goes
there and back: fine for a few small tensors, slow for gradients (the chapter's "Beyond one
machine: torchrun" compares it with a real interconnect).
"""

from __future__ import annotations

import os
import re
import threading
from datetime import timedelta
from typing import Any

import torch
import torch.distributed as dist

RECV_SECONDS = 60.0  # processes on other hosts: much slower than the threads' 2 s
_HEADER = re.compile(rb"labccl1 ([a-z0-9_]+) \[([0-9, ]*)\]\n")


def encode(tensor: torch.Tensor) -> bytes:
    """A tensor as bytes: a header line ``labccl1 <dtype> [<shape>]``, then its elements in
    row-major order as this machine stores them (every platform torch builds for is
    little-endian). A copy: the sender may change its tensor afterwards."""
    if not isinstance(tensor, torch.Tensor):
        raise TypeError(f"port.send takes a tensor, not {type(tensor).__name__}")
    t = tensor.detach().resolve_conj().resolve_neg().to("cpu").contiguous()
    dtype = str(t.dtype).removeprefix("torch.")
    shape = ", ".join(str(n) for n in t.shape)
    raw = t.reshape(-1).view(torch.uint8).numpy().tobytes()
    return f"labccl1 {dtype} [{shape}]\n".encode() + raw


def decode(data: bytes) -> torch.Tensor:
    """The tensor ``encode`` wrote (a new tensor that owns its memory)."""
    m = _HEADER.match(data)
    dtype = getattr(torch, m.group(1).decode(), None) if m else None
    if m is None or not isinstance(dtype, torch.dtype):
        raise ValueError(f"not a tensor message from a StorePort: {bytes(data[:40])!r}")
    shape = [int(n) for n in m.group(2).split(b",") if n.strip()]
    raw = data[m.end() :]
    numel = 1
    for n in shape:
        numel *= n
    itemsize = torch.empty((), dtype=dtype).element_size()
    if len(raw) != numel * itemsize:
        raise ValueError(
            f"a {m.group(1).decode()} message of shape {shape} should hold "
            f"{numel * itemsize} bytes, not {len(raw)}"
        )
    if not raw:
        return torch.empty(shape, dtype=dtype)
    return torch.frombuffer(bytearray(raw), dtype=torch.uint8).view(dtype).reshape(shape)


class StorePort:
    """One rank's end of an interconnect carried by a c10d store: ``world.py``'s ``Port``
    across processes and hosts.

    ``send(dst, tensor)`` writes a copy of ``tensor`` under the next key for ``dst`` and
    returns (it never waits for the receiver). ``recv(src)`` waits for the next key from
    ``src`` (``TimeoutError`` after ``timeout`` seconds), reads it, deletes it and returns the
    tensor. ``poll(src)`` says whether that key exists. Messages between two ranks arrive in
    the order they were sent. ``messages`` and ``elements`` count what this rank sent (the
    threads' ``Link`` counts every rank; a process sees only its own).
    """

    def __init__(
        self,
        store: Any,
        rank: int,
        world_size: int,
        *,
        prefix: str = "labccl",
        timeout: float = RECV_SECONDS,
    ) -> None:
        self._store = store
        self.rank = rank
        self.world_size = world_size
        self.prefix = prefix
        self.timeout = timeout
        self.messages = 0
        self.elements = 0
        self._sent = [0] * world_size  # the next sequence number to each rank
        self._received = [0] * world_size  # the next sequence number from each rank
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        return f"StorePort(rank={self.rank}, world_size={self.world_size}, prefix={self.prefix!r})"

    def _check_peer(self, peer: int, role: str) -> None:
        if not isinstance(peer, int) or not 0 <= peer < self.world_size or peer == self.rank:
            raise ValueError(
                f"rank {self.rank} cannot {role} rank {peer!r}: the world has ranks "
                f"0 to {self.world_size - 1}, and a rank does not message itself"
            )

    def key(self, src: int, dst: int, k: int) -> str:
        """The store key of the ``k``-th message (from 0) that ``src`` sends to ``dst``."""
        return f"{self.prefix}/{src}->{dst}/{k}"

    def send(self, dst: int, tensor: torch.Tensor) -> None:
        self._check_peer(dst, "send to")
        data = encode(tensor)
        with self._lock:
            k = self._sent[dst]
            self._sent[dst] += 1
            self.messages += 1
            self.elements += tensor.numel()
        self._store.set(self.key(self.rank, dst, k), data)

    def poll(self, src: int) -> bool:
        self._check_peer(src, "receive from")
        return bool(self._store.check([self.key(src, self.rank, self._received[src])]))

    def recv(self, src: int) -> torch.Tensor:
        self._check_peer(src, "receive from")
        k = self._received[src]  # taken only once it has come: a timeout leaves it next
        key = self.key(src, self.rank, k)
        try:
            self._store.wait([key], timedelta(seconds=self.timeout))
        except dist.DistError as exc:
            if "timeout" not in str(exc).lower():
                raise
            raise TimeoutError(
                f"rank {self.rank} waited {self.timeout:g} s for message {k} from rank {src} "
                f"(store key {key!r}) that never came: do both ranks make the same calls in "
                f"the same order? If rank {src} stopped, its own output says why."
            ) from None
        data = self._store.get(key)
        self._store.delete_key(key)
        self._received[src] = k + 1
        return decode(data)


def install(port: Any) -> None:
    """Give the current thread its port, where the lab's ``current_port()`` reads it
    (``threading.current_thread().port``), as the course's rank threads carry theirs."""
    threading.current_thread().port = port  # type: ignore[attr-defined]


def port_from_env(timeout: float = RECV_SECONDS) -> tuple[StorePort, Any]:
    """This process's port and store, from the environment ``torchrun`` sets (``RANK``,
    ``WORLD_SIZE``, ``MASTER_ADDR``, ``MASTER_PORT``): ``dist.rendezvous("env://")`` is what
    ``init_process_group`` itself calls (``torch/distributed/rendezvous.py``); it connects to
    the ``TCPStore`` of torchrun's agent, or starts one in rank 0 outside torchrun. Pass the
    same store to ``init_process_group(store=...)``. A restarted attempt
    (``TORCHELASTIC_RESTART_COUNT``) keys its messages apart from an earlier one's leftovers."""
    store, rank, world_size = next(
        dist.rendezvous("env://", timeout=timedelta(seconds=max(timeout, 30.0)))
    )
    attempt = os.environ.get("TORCHELASTIC_RESTART_COUNT", "0")
    port = StorePort(store, rank, world_size, prefix=f"labccl/{attempt}", timeout=timeout)
    return port, store
