# Generated from reference_impl/c10d.py by `torchlab release`: this is the file you edit.
# Replace each `raise NotImplementedError(...)` with your code; the docstring above it
# says what PyTorch does and where. Check your work with `torchlab check`.
# ruff: noqa: F401, F841
"""Week 7: torch.distributed for a new chip: your collective library behind c10d.

A chip vendor ships, beside its device (week 5) and its compiler backend (week 6), a
*collective communication library*: NCCL for NVIDIA, RCCL for AMD, oneCCL for Intel, HCCL for
Ascend. ``torch.distributed`` never moves a byte itself: every ``dist.all_reduce`` goes
through a *process group* to a *backend* (``ProcessGroupNCCL``, ``ProcessGroupGloo``...),
which calls the library. You build that library and that backend, over an interconnect the
course gives you, and compare each piece with gloo (torch's CPU backend) running the same
program:

- Task 7.1: ``LabStore``: the key-value store ranks meet through, as ``dist.HashStore``.
- Task 7.2: ``LabWork`` and ``Comm``: point-to-point send and receive, sync and async.
- Task 7.3: collectives by algorithm: a binomial tree for ``broadcast`` and ``reduce``, a
  ring for ``all_gather`` and ``reduce_scatter``, ``all_reduce`` as the two rings together,
  ``barrier``; every ``ReduceOp`` torch's gloo backend offers.
- Task 7.4: ``LabProcessGroup``: the library as a c10d backend, ``"labccl"``, registered with
  ``dist.Backend.register_backend`` and used through the public ``dist.*`` API, so that real
  ``DistributedDataParallel`` trains on it.
- Task 7.5: ``compute_bucket_assignment_by_size``: how DDP packs gradients into buckets.

Ranks are threads of one process here, each with its own *port* on the interconnect
(``current_port()`` below says what a port does). A real chip's ranks are processes, one per device,
and its ports are links (NVLink, a torus, Ethernet); the algorithms and the backend are the
same.

Where PyTorch does this (torch 2.13): ``torch/distributed/distributed_c10d.py`` (the public
API, ``Backend.register_backend``, ``init_process_group``),
``torch/csrc/distributed/c10d/ProcessGroup.hpp`` and ``Backend.hpp`` (what a backend
implements), ``ProcessGroupGloo.cpp`` (a CPU backend: one gloo algorithm per collective),
``HashStore.cpp`` (the in-process store), ``Work.hpp`` (what an async call returns),
``reducer.cpp`` (``compute_bucket_assignment_by_size``).
"""

from __future__ import annotations

import threading
import time
from datetime import timedelta
from typing import Any

import torch
import torch.distributed as dist

ReduceOp = dist.ReduceOp

# ---- given ----------------------------------------------------------------------------------


def current_port() -> Any:
    """The interconnect port of the rank this thread runs (given). The course starts one
    thread per rank and hands each its port: ``port.rank``, ``port.world_size``,
    ``port.send(dst, tensor)`` (never blocks: the port keeps a copy), ``port.recv(src)`` (the
    next tensor ``src`` sent here, waiting for it) and ``port.poll(src)`` (whether one is
    waiting)."""
    return threading.current_thread().port  # type: ignore[attr-defined]


def op_type(op: Any) -> Any:
    """A reduce op as ``ReduceOp.SUM``, ``ReduceOp.MAX``... (given). ``dist.all_reduce``
    hands a backend a ``ReduceOp`` object (``opts.reduceOp``), and it compares equal to
    ``ReduceOp.SUM`` only from the left: its ``.op`` is the plain ``ReduceOp.RedOpType``."""
    return op.op if type(op) is dist.ReduceOp else op


# ---- Task 7.1: the store ----------------------------------------------------------------------


class LabStore:
    """Task 7.1: a key-value store shared by the ranks of one process, as ``dist.HashStore``
    (``torch/csrc/distributed/c10d/HashStore.cpp``). Ranks meet through a store before any
    collective can run: ``init_process_group`` hands one to the backend.

    Values are bytes (a ``str`` is stored as its UTF-8 bytes). ``get`` and ``wait`` block
    until the keys exist, and raise ``dist.DistStoreError("Wait timeout")`` after the
    store's timeout (``set_timeout``) or the one ``wait`` is given. ``add`` keeps a number as
    its decimal text, so ``get`` after ``add("c", 5)`` gives ``b"5"``. ``compare_set`` sets
    ``desired`` if the key holds ``expected`` (or is missing and ``expected`` is empty) and
    returns the value the key holds afterwards. Several threads call it at once.
    """

    def __init__(self, timeout: timedelta = timedelta(seconds=300)) -> None:
        raise NotImplementedError("LabStore.__init__ (Task 7.1)")

    def set_timeout(self, timeout: timedelta) -> None:
        """Task 7.1: the timeout ``get`` and ``wait`` use from now on."""
        raise NotImplementedError("LabStore.set_timeout (Task 7.1)")

    def set(self, key: str, value: str | bytes) -> None:
        """Task 7.1: store ``value`` under ``key`` and wake whoever waits for it."""
        raise NotImplementedError("LabStore.set (Task 7.1)")

    def get(self, key: str) -> bytes:
        """Task 7.1: the value of ``key``, waiting for it as ``wait`` does."""
        raise NotImplementedError("LabStore.get (Task 7.1)")

    def add(self, key: str, amount: int) -> int:
        """Task 7.1: add ``amount`` to the number under ``key`` (0 if missing); return it."""
        raise NotImplementedError("LabStore.add (Task 7.1)")

    def compare_set(self, key: str, expected: str | bytes, desired: str | bytes) -> bytes:
        """Task 7.1: set ``desired`` only where ``key`` holds ``expected``; return what the
        key holds afterwards (HashStore.cpp, ``compareSet``)."""
        raise NotImplementedError("LabStore.compare_set (Task 7.1)")

    def check(self, keys: list[str]) -> bool:
        """Task 7.1: whether every key in ``keys`` exists, without waiting."""
        raise NotImplementedError("LabStore.check (Task 7.1)")

    def wait(self, keys: list[str], timeout: timedelta | None = None) -> None:
        """Task 7.1: block until every key exists; ``dist.DistStoreError("Wait timeout")``
        once ``timeout`` (default: the store's) has passed."""
        raise NotImplementedError("LabStore.wait (Task 7.1)")

    def delete_key(self, key: str) -> bool:
        """Task 7.1: remove ``key``; whether it was there."""
        raise NotImplementedError("LabStore.delete_key (Task 7.1)")

    def num_keys(self) -> int:
        """Task 7.1: how many keys the store holds."""
        raise NotImplementedError("LabStore.num_keys (Task 7.1)")


# ---- Task 7.2: point-to-point and Work --------------------------------------------------------


class LabWork(dist._Work):
    """Task 7.2: what an async call returns, as c10d's ``Work`` (``Work.hpp``).

    ``wait()`` finishes the operation (for a receive: takes the message off the port and
    copies it into the buffer) and returns ``True``; ``is_completed()`` says whether it has
    finished (a receive finishes in ``wait``, as gloo's ``RecvWork`` does, even when the
    message has already arrived); ``result()`` is the list of tensors the operation wrote;
    ``get_future()`` a ``torch.futures.Future`` that holds that list once the operation has
    completed (DDP's reducer reads bucket results through it). ``finish`` is a callable that
    completes the operation (a receive's); ``None`` means it is complete already. Here only
    a receive is ever pending, and it has no result: a Work with a result is complete.

    ``tensors=None``: a Work with no result. c10d's ``Work`` base class raises
    ``RuntimeError("result() not implemented.")`` and ``"Work::getFuture not implemented."``,
    and gloo's send, receive and reduce-scatter Works keep those (``ProcessGroupGloo.cpp``):
    so do yours, so that a program behaves the same on both backends.
    """

    def __init__(self, tensors: list[torch.Tensor] | None, finish: Any = None) -> None:
        super().__init__()
        raise NotImplementedError("LabWork.__init__ (Task 7.2)")

    def wait(self, timeout: timedelta | None = None) -> bool:
        raise NotImplementedError("LabWork.wait (Task 7.2)")

    def is_completed(self) -> bool:
        raise NotImplementedError("LabWork.is_completed (Task 7.2)")

    def result(self) -> list[torch.Tensor]:
        raise NotImplementedError("LabWork.result (Task 7.2)")

    def get_future(self) -> torch.futures.Future:
        raise NotImplementedError("LabWork.get_future (Task 7.2)")


class Comm:
    """Task 7.2: one rank's communicator over its port (NCCL's ``ncclComm_t``): the rank,
    the world size and point-to-point messages. The collectives of Task 7.3 are functions of
    a ``Comm``.

    ``isend(tensor, dst)`` puts a copy of ``tensor`` on the wire and returns a completed
    ``LabWork`` (the interconnect buffers messages, as gloo's send does once the data is
    copied out). ``irecv(tensor, src)`` returns a ``LabWork`` that, when waited on, receives
    the next message from ``src`` into ``tensor``. The wire carries bytes, not tensors: a
    message of the buffer's size in bytes lands as those bytes, whatever its dtype (gloo's
    ``recv`` does the same); one of another size raises ``RuntimeError`` naming both sizes
    in bytes (gloo aborts the process). Neither Work has a result or a future (see
    ``LabWork``). ``send`` and ``recv`` are the same, waited on. Messages between two ranks
    arrive in the order they were sent.
    """

    def __init__(self, port: Any) -> None:
        self.port = port
        self.rank: int = port.rank
        self.world_size: int = port.world_size

    def isend(self, tensor: torch.Tensor, dst: int) -> LabWork:
        raise NotImplementedError("Comm.isend (Task 7.2)")

    def irecv(self, tensor: torch.Tensor, src: int) -> LabWork:
        raise NotImplementedError("Comm.irecv (Task 7.2)")

    def send(self, tensor: torch.Tensor, dst: int) -> None:
        self.isend(tensor, dst).wait()

    def recv(self, tensor: torch.Tensor, src: int) -> None:
        self.irecv(tensor, src).wait()


# ---- Task 7.3: collectives by algorithm -------------------------------------------------------


def combine(a: torch.Tensor, b: torch.Tensor, op: Any) -> None:
    """Task 7.3: ``a = a op b`` in place, for a ``ReduceOp`` (gloo's reduce functions,
    ``toFunction`` in ``ProcessGroupGlooDetail.hpp``):
    SUM and AVG add (AVG divides once, at the end), PRODUCT multiplies, MAX and MIN keep the
    larger and smaller, BAND, BOR and BXOR are bitwise (integer tensors only: torch raises a
    RuntimeError for a float one). Any other op (``PREMUL_SUM``) raises ``RuntimeError``, as
    gloo does."""
    raise NotImplementedError("combine (Task 7.3)")


def _average(tensor: torch.Tensor, op: Any, world_size: int) -> None:
    """AVG is SUM divided by the world size in place, as gloo does: an integer tensor
    cannot hold the quotient, and raises as torch's ``div_`` does."""
    if op_type(op) == ReduceOp.AVG:
        tensor.div_(world_size)


def broadcast(comm: Comm, tensor: torch.Tensor, src: int) -> None:
    """Task 7.3: ``dist.broadcast``: every rank's ``tensor`` becomes ``src``'s, over a
    *binomial tree* (MPICH's ``MPIR_Bcast_intra_binomial``). Number ranks relative to the
    root, ``v = (rank - src) % W``. A rank first receives from ``v`` minus its lowest set
    bit (the root receives nothing), then sends to ``v + m`` for each smaller power of two
    ``m``, largest first, where ``v + m < W``. ``W - 1`` messages in ``ceil(log2 W)`` rounds.
    """
    raise NotImplementedError("broadcast (Task 7.3)")


def reduce(comm: Comm, tensor: torch.Tensor, dst: int, op: Any = ReduceOp.SUM) -> None:
    """Task 7.3: ``dist.reduce``: ``dst``'s ``tensor`` becomes the reduction of every rank's,
    over a binomial tree (``MPIR_Reduce_intra_binomial``), the broadcast run backwards. With
    ``v = (rank - dst) % W``, for each power of two ``m`` from 1 up: a rank with bit ``m``
    clear receives from ``v + m`` (if it exists) and combines; a rank with bit ``m`` set
    sends what it has to ``v - m`` and stops. Every rank but ``dst`` keeps its ``tensor``
    unchanged (torch leaves it unspecified: do not use it as scratch)."""
    raise NotImplementedError("reduce (Task 7.3)")


def all_gather(comm: Comm, output: list[torch.Tensor], tensor: torch.Tensor) -> None:
    """Task 7.3: ``dist.all_gather``: ``output[r]`` becomes rank ``r``'s ``tensor`` on every
    rank, over a *ring*: at step ``s`` (``0 .. W-2``) each rank sends block
    ``(rank - s) % W`` to its right neighbour and receives block ``(rank - s - 1) % W`` from
    its left. ``W - 1`` messages per rank."""
    raise NotImplementedError("all_gather (Task 7.3)")


def _ring_reduce_scatter(comm: Comm, chunks: list[torch.Tensor], op: Any) -> None:
    """The reduce-scatter ring on ``chunks`` (one per rank, reduced in place): at step ``s``
    each rank sends chunk ``(rank - s - 1) % W`` right, receives chunk ``(rank - s - 2) % W``
    from the left and combines it into its own; after ``W - 1`` steps chunk ``rank`` holds
    the reduction of every rank's."""
    size, rank = comm.world_size, comm.rank
    right, left = (rank + 1) % size, (rank - 1) % size
    for step in range(size - 1):
        comm.send(chunks[(rank - step - 1) % size], right)
        target = chunks[(rank - step - 2) % size]
        incoming = torch.empty_like(target)
        comm.recv(incoming, left)
        combine(target, incoming, op)


def reduce_scatter(
    comm: Comm, output: torch.Tensor, inputs: list[torch.Tensor], op: Any = ReduceOp.SUM
) -> None:
    """Task 7.3: ``dist.reduce_scatter``: rank ``r``'s ``output`` becomes the reduction over
    ranks of their ``inputs[r]``, over a ring: at step ``s`` each rank sends its running
    block ``(rank - s - 1) % W`` right and combines block ``(rank - s - 2) % W`` from the
    left into its own. ``W - 1`` messages per rank. ``inputs`` stay unchanged."""
    raise NotImplementedError("reduce_scatter (Task 7.3)")


def all_reduce(comm: Comm, tensor: torch.Tensor, op: Any = ReduceOp.SUM) -> None:
    """Task 7.3: ``dist.all_reduce`` as a *ring all-reduce* (Patarasuk and Yuan; NCCL's
    ring): split the flattened tensor into ``W`` chunks (``torch.tensor_split``), run the
    reduce-scatter ring on them (rank ``r`` then holds reduced chunk ``r``), then the
    all-gather ring on the chunks (step ``s``: send chunk ``(rank - s) % W``, receive chunk
    ``(rank - s - 1) % W``). ``2 (W - 1)`` messages of about ``N / W`` elements per rank: the
    bandwidth-optimal all-reduce."""
    raise NotImplementedError("all_reduce (Task 7.3)")


def barrier(comm: Comm) -> None:
    """Task 7.3: ``dist.barrier``: no rank returns before every rank has called it. gloo
    runs a dissemination barrier (``gloo/barrier.cc``: ``ceil(log2 W)`` rounds of empty
    messages); an ``all_reduce`` of one element is a barrier too, since no rank's result is
    ready before every rank has sent its part: use that."""
    raise NotImplementedError("barrier (Task 7.3)")


# ---- Task 7.4: labccl, a c10d backend ---------------------------------------------------------


class LabProcessGroup(dist.ProcessGroup):
    """Task 7.4: the library as a c10d process group (a Python subclass of
    ``dist.ProcessGroup``: the ``PyProcessGroup`` trampoline in
    ``torch/csrc/distributed/c10d/PyProcessGroup.hpp`` calls these methods).

    ``dist.all_reduce(t, op)`` calls ``allreduce([t], opts)`` with ``opts.reduceOp``;
    ``dist.broadcast(t, src)`` calls ``broadcast([t], opts)`` with ``opts.rootRank``;
    ``dist.all_gather(outs, t)`` calls ``allgather([outs], [t], opts)``;
    ``dist.reduce_scatter(out, ins, op)`` calls ``reduce_scatter([out], [ins], opts)``;
    ``dist.reduce(t, dst, op)`` calls ``reduce([t], opts)`` (``opts.rootRank``);
    ``dist.all_gather_single(out, t)`` (and the older ``all_gather_into_tensor``) calls
    ``all_gather_single(out, t, opts)``; ``dist.reduce_scatter_single(out, t, op)`` (and
    ``reduce_scatter_tensor``) calls ``reduce_scatter_single(out, t, opts)``: the flat
    forms, where the big tensor holds every rank's block along dim 0 (FSDP2 uses only
    these); ``dist.barrier()`` calls ``barrier(opts)``; ``dist.send`` and ``dist.recv``
    call ``send([t], dst, tag)`` and ``recv([t], src, tag)``.

    Each returns a ``LabWork`` holding the tensors it wrote (``all_gather_single``: the
    blocks of ``out``, as gloo's), except where gloo's Work has no result (``send``,
    ``recv``, ``reduce_scatter`` and ``reduce_scatter_single``). Your collectives run to the
    end before returning; a real backend queues them on a stream or a worker thread and
    returns at once, and ``async_op=True`` callers wait on the Work.
    """

    def __init__(self, store: Any, rank: int, world_size: int) -> None:
        super().__init__(rank, world_size)
        raise NotImplementedError("LabProcessGroup.__init__ (Task 7.4)")

    def getBackendName(self) -> str:  # noqa: N802 - c10d's name
        return "labccl"

    def allreduce(self, tensors: list[torch.Tensor], opts: Any = None) -> LabWork:
        raise NotImplementedError("LabProcessGroup.allreduce (Task 7.4)")

    def broadcast(self, tensors: list[torch.Tensor], opts: Any = None) -> LabWork:
        raise NotImplementedError("LabProcessGroup.broadcast (Task 7.4)")

    def reduce(self, tensors: list[torch.Tensor], opts: Any = None) -> LabWork:
        raise NotImplementedError("LabProcessGroup.reduce (Task 7.4)")

    def allgather(
        self, output_tensors: list[list[torch.Tensor]], input_tensors: list[torch.Tensor], opts=None
    ) -> LabWork:
        raise NotImplementedError("LabProcessGroup.allgather (Task 7.4)")

    def all_gather_single(self, output: torch.Tensor, tensor: torch.Tensor, opts=None) -> LabWork:
        raise NotImplementedError("LabProcessGroup.all_gather_single (Task 7.4)")

    def reduce_scatter(
        self, output_tensors: list[torch.Tensor], input_tensors: list[list[torch.Tensor]], opts=None
    ) -> LabWork:
        raise NotImplementedError("LabProcessGroup.reduce_scatter (Task 7.4)")

    def reduce_scatter_single(
        self, output: torch.Tensor, tensor: torch.Tensor, opts: Any = None
    ) -> LabWork:
        raise NotImplementedError("LabProcessGroup.reduce_scatter_single (Task 7.4)")

    def barrier(self, opts: Any = None) -> LabWork:
        raise NotImplementedError("LabProcessGroup.barrier (Task 7.4)")

    def send(self, tensors: list[torch.Tensor], dst: int, tag: int = 0) -> LabWork:
        raise NotImplementedError("LabProcessGroup.send (Task 7.4)")

    def recv(self, tensors: list[torch.Tensor], src: int, tag: int = 0) -> LabWork:
        raise NotImplementedError("LabProcessGroup.recv (Task 7.4)")


def create_labccl(store: Any, rank: int, world_size: int, timeout: timedelta) -> Any:
    """Task 7.4: the backend's *creator*, the function ``init_process_group("labccl", ...)``
    calls with the store (wrapped in a ``PrefixStore``), this rank, the world size and the
    timeout (``distributed_c10d.py``, ``_new_process_group_helper``)."""
    raise NotImplementedError("create_labccl (Task 7.4)")


def register_labccl() -> str:
    """Task 7.4: register ``create_labccl`` as the backend ``"labccl"`` for CPU tensors
    (``dist.Backend.register_backend(name, creator, devices=["cpu"])``, which also sets
    ``dist.Backend.LABCCL``) and return the name to pass to ``init_process_group``. Every
    rank calls this; register once per process (torch 2.13 lets a second registration
    replace the creator, but nothing needs replacing)."""
    raise NotImplementedError("register_labccl (Task 7.4)")


# ---- Task 7.5: DDP's gradient buckets ---------------------------------------------------------


def compute_bucket_assignment_by_size(
    tensors: list[torch.Tensor],
    bucket_size_limits: list[int],
    expect_sparse_gradient: list[bool] | None = None,
    tensor_indices: list[int] | None = None,
) -> tuple[list[list[int]], list[int]]:
    """Task 7.5: how DDP packs parameters into gradient buckets
    (``reducer.cpp``, ``compute_bucket_assignment_by_size``;
    ``dist._compute_bucket_assignment_by_size``). Returns the buckets (lists of tensor
    indices) and each bucket's size limit.

    Walk the tensors in order; tensor ``i``'s index is ``tensor_indices[i]`` if given, else
    ``i``. One that expects a sparse gradient gets a bucket of its own with limit 0. The others
    go into an open bucket per dtype (and device): add the tensor's bytes; when the bucket
    holds at least its limit, close it, and that dtype's next bucket takes the next limit
    of ``bucket_size_limits`` (the last one repeats). Open buckets close at the end. Without
    ``tensor_indices``, sort the buckets by their smallest index; with them (the order the
    gradients became ready) keep the order they closed in.
    """
    raise NotImplementedError("compute_bucket_assignment_by_size (Task 7.5)")
