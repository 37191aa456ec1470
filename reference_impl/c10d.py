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
- Task 7.6: ``MiniDDP``: DDP's reducer, each bucket's all-reduce launched while backward
  still computes earlier layers' gradients, and the buckets rebuilt once in the order the
  gradients arrived (torch 2.13's policy).
- Task 7.7: communication hooks: ``allreduce_hook`` and ``fp16_compress_hook`` for real DDP
  and for yours.
- Task 7.8: ``fully_shard`` by hand: each rank keeps a shard of every parameter, gathered
  before a module runs and freed after, gradients reduce-scattered (FSDP2's design).

Ranks are threads of one process here, each with its own *port* on the interconnect
(``current_port()`` below says what a port does). A real chip's ranks are processes, one per device,
and its ports are links (NVLink, a torus, Ethernet); the algorithms and the backend are the
same.

Where PyTorch does this (torch 2.13): ``torch/distributed/distributed_c10d.py`` (the public
API, ``Backend.register_backend``, ``init_process_group``),
``torch/csrc/distributed/c10d/ProcessGroup.hpp`` and ``Backend.hpp`` (what a backend
implements), ``ProcessGroupGloo.cpp`` (a CPU backend: one gloo algorithm per collective),
``HashStore.cpp`` (the in-process store), ``Work.hpp`` (what an async call returns),
``reducer.cpp`` (``compute_bucket_assignment_by_size``, and the ``Reducer`` DDP runs:
``autograd_hook``, ``mark_bucket_ready``, ``finalize_backward``, ``rebuild_buckets``),
``torch/nn/parallel/distributed.py`` (``DistributedDataParallel``, its bucket caps),
``torch/distributed/algorithms/ddp_comm_hooks/default_hooks.py`` (communication hooks),
``torch/distributed/fsdp/_fully_shard/`` (FSDP2: ``_fsdp_state.py``, ``_fsdp_param_group.py``,
``_fsdp_param.py``, ``_fsdp_collectives.py``).
"""

from __future__ import annotations

import functools
import math
import sys
import threading
import time
from datetime import timedelta
from typing import Any

import torch
import torch.distributed as dist
from torch.utils._pytree import tree_flatten, tree_unflatten

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
        ### BEGIN SOLUTION
        self._data: dict[str, bytes] = {}
        self._changed = threading.Condition()  # every write wakes the waiters
        self.timeout = timeout
        ### END SOLUTION

    def set_timeout(self, timeout: timedelta) -> None:
        """Task 7.1: the timeout ``get`` and ``wait`` use from now on."""
        ### BEGIN SOLUTION
        self.timeout = timeout
        ### END SOLUTION

    def set(self, key: str, value: str | bytes) -> None:
        """Task 7.1: store ``value`` under ``key`` and wake whoever waits for it."""
        ### BEGIN SOLUTION
        with self._changed:
            self._data[key] = value.encode() if isinstance(value, str) else bytes(value)
            self._changed.notify_all()
        ### END SOLUTION

    def get(self, key: str) -> bytes:
        """Task 7.1: the value of ``key``, waiting for it as ``wait`` does."""
        ### BEGIN SOLUTION
        self.wait([key])
        with self._changed:
            return self._data[key]
        ### END SOLUTION

    def add(self, key: str, amount: int) -> int:
        """Task 7.1: add ``amount`` to the number under ``key`` (0 if missing); return it."""
        ### BEGIN SOLUTION
        with self._changed:
            held = self._data.get(key, b"0")
            if not held.strip().lstrip(b"-").isdigit():  # HashStore.cpp parses it (stoll)
                raise ValueError(f"add: the value under {key!r} is not a number")
            total = int(held) + amount
            self._data[key] = str(total).encode()
            self._changed.notify_all()
            return total
        ### END SOLUTION

    def compare_set(self, key: str, expected: str | bytes, desired: str | bytes) -> bytes:
        """Task 7.1: set ``desired`` only where ``key`` holds ``expected``; return what the
        key holds afterwards (HashStore.cpp, ``compareSet``)."""
        ### BEGIN SOLUTION
        expected_b = expected.encode() if isinstance(expected, str) else bytes(expected)
        desired_b = desired.encode() if isinstance(desired, str) else bytes(desired)
        with self._changed:
            current = self._data.get(key)
            if (current is None and expected_b == b"") or current == expected_b:
                self._data[key] = desired_b
                self._changed.notify_all()
                return desired_b
            # a missing key with a non-empty expectation: HashStore answers with `expected`
            return expected_b if current is None else current
        ### END SOLUTION

    def check(self, keys: list[str]) -> bool:
        """Task 7.1: whether every key in ``keys`` exists, without waiting."""
        ### BEGIN SOLUTION
        with self._changed:
            return all(k in self._data for k in keys)
        ### END SOLUTION

    def wait(self, keys: list[str], timeout: timedelta | None = None) -> None:
        """Task 7.1: block until every key exists; ``dist.DistStoreError("Wait timeout")``
        once ``timeout`` (default: the store's) has passed."""
        ### BEGIN SOLUTION
        limit = (timeout or self.timeout).total_seconds()
        deadline = time.monotonic() + limit
        with self._changed:
            while not all(k in self._data for k in keys):
                left = deadline - time.monotonic()
                if left <= 0:
                    raise dist.DistStoreError("Wait timeout")
                self._changed.wait(left)
        ### END SOLUTION

    def delete_key(self, key: str) -> bool:
        """Task 7.1: remove ``key``; whether it was there."""
        ### BEGIN SOLUTION
        with self._changed:
            return self._data.pop(key, None) is not None
        ### END SOLUTION

    def num_keys(self) -> int:
        """Task 7.1: how many keys the store holds."""
        ### BEGIN SOLUTION
        with self._changed:
            return len(self._data)
        ### END SOLUTION


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
        ### BEGIN SOLUTION
        self.tensors = tensors
        self._finish = finish
        self._future: torch.futures.Future = torch.futures.Future()
        if tensors is not None:  # a Work with a result ran to its end before it was made
            self._future.set_result(tensors)
        ### END SOLUTION

    def wait(self, timeout: timedelta | None = None) -> bool:
        ### BEGIN SOLUTION
        if self._finish is not None:
            finish, self._finish = self._finish, None
            finish()
        return True
        ### END SOLUTION

    def is_completed(self) -> bool:
        ### BEGIN SOLUTION
        return self._finish is None
        ### END SOLUTION

    def result(self) -> list[torch.Tensor]:
        ### BEGIN SOLUTION
        if self.tensors is None:
            raise RuntimeError("result() not implemented.")
        return self.tensors
        ### END SOLUTION

    def get_future(self) -> torch.futures.Future:
        ### BEGIN SOLUTION
        if self.tensors is None:
            raise RuntimeError("Work::getFuture not implemented.")
        return self._future
        ### END SOLUTION


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
        ### BEGIN SOLUTION
        self.port.send(dst, tensor.detach().clone())
        return LabWork(None)
        ### END SOLUTION

    def irecv(self, tensor: torch.Tensor, src: int) -> LabWork:
        ### BEGIN SOLUTION
        def finish() -> None:
            message = self.port.recv(src)
            size = message.numel() * message.element_size()
            if size != tensor.numel() * tensor.element_size():
                raise RuntimeError(
                    f"received {size} bytes from rank {src} into a buffer of "
                    f"{tensor.numel() * tensor.element_size()} bytes"
                )
            # the bytes as they came, into the buffer's layout (a view of its own dtype)
            tensor.copy_(
                message.reshape(-1).view(torch.uint8).view(tensor.dtype).view(tensor.shape)
            )

        return LabWork(None, finish)
        ### END SOLUTION

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
    ### BEGIN SOLUTION
    op = op_type(op)
    if op in (ReduceOp.BAND, ReduceOp.BOR, ReduceOp.BXOR) and a.is_floating_point():
        # ProcessGroupGloo.cpp checks before it reduces (torch's own bitwise_and_ on a float
        # would raise NotImplementedError instead)
        raise RuntimeError(f"Cannot use ReduceOp.{op.name} with non-integral dtype")
    if op in (ReduceOp.SUM, ReduceOp.AVG):
        a.add_(b)
    elif op == ReduceOp.PRODUCT:
        a.mul_(b)
    elif op == ReduceOp.MAX:
        torch.maximum(a, b, out=a)
    elif op == ReduceOp.MIN:
        torch.minimum(a, b, out=a)
    elif op == ReduceOp.BAND:
        a.bitwise_and_(b)
    elif op == ReduceOp.BOR:
        a.bitwise_or_(b)
    elif op == ReduceOp.BXOR:
        a.bitwise_xor_(b)
    else:  # PREMUL_SUM: NCCL's sum of pre-scaled inputs; gloo refuses it, and so do you
        raise RuntimeError(f"Cannot use ReduceOp.{op.name} with labccl")
    ### END SOLUTION


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
    ### BEGIN SOLUTION
    size, v = comm.world_size, (comm.rank - src) % comm.world_size
    mask = 1
    while mask < size:
        if v & mask:
            comm.recv(tensor, (v - mask + src) % size)
            break
        mask <<= 1
    mask >>= 1
    while mask > 0:
        if v + mask < size:
            comm.send(tensor, (v + mask + src) % size)
        mask >>= 1
    ### END SOLUTION


def reduce(comm: Comm, tensor: torch.Tensor, dst: int, op: Any = ReduceOp.SUM) -> None:
    """Task 7.3: ``dist.reduce``: ``dst``'s ``tensor`` becomes the reduction of every rank's,
    over a binomial tree (``MPIR_Reduce_intra_binomial``), the broadcast run backwards. With
    ``v = (rank - dst) % W``, for each power of two ``m`` from 1 up: a rank with bit ``m``
    clear receives from ``v + m`` (if it exists) and combines; a rank with bit ``m`` set
    sends what it has to ``v - m`` and stops. Every rank but ``dst`` keeps its ``tensor``
    unchanged (torch leaves it unspecified: do not use it as scratch)."""
    ### BEGIN SOLUTION
    size, v = comm.world_size, (comm.rank - dst) % comm.world_size
    acc = tensor.detach().clone()
    incoming = torch.empty_like(acc)
    mask = 1
    while mask < size:
        if v & mask:
            comm.send(acc, (v - mask + dst) % size)
            return
        if v + mask < size:
            comm.recv(incoming, (v + mask + dst) % size)
            combine(acc, incoming, op)
        mask <<= 1
    _average(acc, op, size)
    tensor.copy_(acc)
    ### END SOLUTION


def all_gather(comm: Comm, output: list[torch.Tensor], tensor: torch.Tensor) -> None:
    """Task 7.3: ``dist.all_gather``: ``output[r]`` becomes rank ``r``'s ``tensor`` on every
    rank, over a *ring*: at step ``s`` (``0 .. W-2``) each rank sends block
    ``(rank - s) % W`` to its right neighbour and receives block ``(rank - s - 1) % W`` from
    its left. ``W - 1`` messages per rank."""
    ### BEGIN SOLUTION
    size, rank = comm.world_size, comm.rank
    output[rank].copy_(tensor)
    right, left = (rank + 1) % size, (rank - 1) % size
    for step in range(size - 1):
        comm.send(output[(rank - step) % size], right)
        comm.recv(output[(rank - step - 1) % size], left)
    ### END SOLUTION


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
    ### BEGIN SOLUTION
    chunks = [t.detach().clone() for t in inputs]
    _ring_reduce_scatter(comm, chunks, op)
    _average(chunks[comm.rank], op, comm.world_size)
    output.copy_(chunks[comm.rank])
    ### END SOLUTION


def all_reduce(comm: Comm, tensor: torch.Tensor, op: Any = ReduceOp.SUM) -> None:
    """Task 7.3: ``dist.all_reduce`` as a *ring all-reduce* (Patarasuk and Yuan; NCCL's
    ring): split the flattened tensor into ``W`` chunks (``torch.tensor_split``), run the
    reduce-scatter ring on them (rank ``r`` then holds reduced chunk ``r``), then the
    all-gather ring on the chunks (step ``s``: send chunk ``(rank - s) % W``, receive chunk
    ``(rank - s - 1) % W``). ``2 (W - 1)`` messages of about ``N / W`` elements per rank: the
    bandwidth-optimal all-reduce."""
    ### BEGIN SOLUTION
    size, rank = comm.world_size, comm.rank
    flat = tensor.detach().reshape(-1).clone()
    chunks = list(torch.tensor_split(flat, size))  # views: reducing a chunk reduces `flat`
    _ring_reduce_scatter(comm, chunks, op)
    right, left = (rank + 1) % size, (rank - 1) % size
    for step in range(size - 1):
        comm.send(chunks[(rank - step) % size], right)
        comm.recv(chunks[(rank - step - 1) % size], left)
    _average(flat, op, size)
    tensor.copy_(flat.view(tensor.shape))
    ### END SOLUTION


def barrier(comm: Comm) -> None:
    """Task 7.3: ``dist.barrier``: no rank returns before every rank has called it. gloo
    runs a dissemination barrier (``gloo/barrier.cc``: ``ceil(log2 W)`` rounds of empty
    messages); an ``all_reduce`` of one element is a barrier too, since no rank's result is
    ready before every rank has sent its part: use that."""
    ### BEGIN SOLUTION
    all_reduce(comm, torch.zeros(1), ReduceOp.SUM)
    ### END SOLUTION


# ---- Task 7.4: labccl, a c10d backend ---------------------------------------------------------


def _check_contiguous(tensor: torch.Tensor) -> None:
    """gloo's point-to-point refuses a non-contiguous tensor (``checkSingleTensor`` in
    ``ProcessGroupGloo.cpp``), though its collectives take one: so does labccl (given)."""
    if not tensor.is_contiguous():
        raise RuntimeError("input tensor has to be contiguous")


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
        ### BEGIN SOLUTION
        port = current_port()
        if port.world_size != world_size or port.rank != rank:
            raise NotImplementedError(
                f"labccl runs on the whole world only (rank {port.rank} of {port.world_size});"
                " a subgroup needs its own communicator (NCCL's ncclCommSplit)"
            )
        self.store, self.comm = store, Comm(port)
        ### END SOLUTION

    def getBackendName(self) -> str:  # noqa: N802 - c10d's name
        return "labccl"

    # Given: the group's name and description. ``init_process_group`` sets them; FSDP2's
    # DeviceMesh reads the name. c10d's ProcessGroup keeps them on its C++ backends, which a
    # Python group has none of ("ProcessGroup name not set"), so it keeps its own.
    def setGroupName(self, name: str) -> None:  # noqa: N802 - c10d's name
        self._group_name = name

    def getGroupName(self) -> str:  # noqa: N802 - c10d's name
        return self._group_name

    def setGroupDesc(self, desc: str) -> None:  # noqa: N802 - c10d's name
        self._group_desc = desc

    def getGroupDesc(self) -> str:  # noqa: N802 - c10d's name
        return self._group_desc

    def allreduce(self, tensors: list[torch.Tensor], opts: Any = None) -> LabWork:
        ### BEGIN SOLUTION
        op = opts.reduceOp if opts is not None else ReduceOp.SUM
        for t in tensors:
            all_reduce(self.comm, t, op)
        return LabWork(tensors)
        ### END SOLUTION

    def broadcast(self, tensors: list[torch.Tensor], opts: Any = None) -> LabWork:
        ### BEGIN SOLUTION
        root = opts.rootRank if opts is not None else 0
        for t in tensors:
            broadcast(self.comm, t, root)
        return LabWork(tensors)
        ### END SOLUTION

    def reduce(self, tensors: list[torch.Tensor], opts: Any = None) -> LabWork:
        ### BEGIN SOLUTION
        for t in tensors:
            reduce(self.comm, t, opts.rootRank, opts.reduceOp)
        return LabWork(tensors)
        ### END SOLUTION

    def allgather(
        self, output_tensors: list[list[torch.Tensor]], input_tensors: list[torch.Tensor], opts=None
    ) -> LabWork:
        ### BEGIN SOLUTION
        for outs, t in zip(output_tensors, input_tensors, strict=True):
            all_gather(self.comm, outs, t)
        return LabWork([t for outs in output_tensors for t in outs])
        ### END SOLUTION

    def all_gather_single(self, output: torch.Tensor, tensor: torch.Tensor, opts=None) -> LabWork:
        ### BEGIN SOLUTION
        blocks = list(output.chunk(self.comm.world_size))
        all_gather(self.comm, blocks, tensor)
        return LabWork(blocks)  # gloo's Work holds the blocks: views of `output`
        ### END SOLUTION

    def reduce_scatter(
        self, output_tensors: list[torch.Tensor], input_tensors: list[list[torch.Tensor]], opts=None
    ) -> LabWork:
        ### BEGIN SOLUTION
        op = opts.reduceOp if opts is not None else ReduceOp.SUM
        for out, ins in zip(output_tensors, input_tensors, strict=True):
            reduce_scatter(self.comm, out, ins, op)
        return LabWork(None)  # gloo's reduce-scatter Work has no result nor future
        ### END SOLUTION

    def reduce_scatter_single(
        self, output: torch.Tensor, tensor: torch.Tensor, opts: Any = None
    ) -> LabWork:
        ### BEGIN SOLUTION
        op = opts.reduceOp if opts is not None else ReduceOp.SUM
        reduce_scatter(self.comm, output, list(tensor.chunk(self.comm.world_size)), op)
        return LabWork(None)
        ### END SOLUTION

    def barrier(self, opts: Any = None) -> LabWork:
        ### BEGIN SOLUTION
        barrier(self.comm)
        return LabWork([])
        ### END SOLUTION

    def send(self, tensors: list[torch.Tensor], dst: int, tag: int = 0) -> LabWork:
        ### BEGIN SOLUTION
        _check_contiguous(tensors[0])
        return self.comm.isend(tensors[0], dst)
        ### END SOLUTION

    def recv(self, tensors: list[torch.Tensor], src: int, tag: int = 0) -> LabWork:
        ### BEGIN SOLUTION
        _check_contiguous(tensors[0])
        return self.comm.irecv(tensors[0], src)
        ### END SOLUTION


def create_labccl(store: Any, rank: int, world_size: int, timeout: timedelta) -> Any:
    """Task 7.4: the backend's *creator*, the function ``init_process_group("labccl", ...)``
    calls with the store (wrapped in a ``PrefixStore``), this rank, the world size and the
    timeout (``distributed_c10d.py``, ``_new_process_group_helper``)."""
    ### BEGIN SOLUTION
    return LabProcessGroup(store, rank, world_size)
    ### END SOLUTION


def register_labccl() -> str:
    """Task 7.4: register ``create_labccl`` as the backend ``"labccl"`` for CPU tensors
    (``dist.Backend.register_backend(name, creator, devices=["cpu"])``, which also sets
    ``dist.Backend.LABCCL``) and return the name to pass to ``init_process_group``. Every
    rank calls this; register once per process (torch 2.13 lets a second registration
    replace the creator, but nothing needs replacing)."""
    ### BEGIN SOLUTION
    if not hasattr(dist.Backend, "LABCCL"):
        dist.Backend.register_backend("labccl", create_labccl, devices=["cpu"])
    return "labccl"
    ### END SOLUTION


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
    ### BEGIN SOLUTION
    if not tensors:
        raise RuntimeError("compute_bucket_assignment_by_size needs at least one tensor")
    sparse = expect_sparse_gradient or []
    result: list[tuple[list[int], int]] = []
    open_buckets: dict[tuple, dict[str, Any]] = {}  # per (dtype, device), in first-seen order
    for i, tensor in enumerate(tensors):
        index = tensor_indices[i] if tensor_indices else i
        if sparse and sparse[index]:
            result.append(([index], 0))
            continue
        key = (tensor.dtype, tensor.device)
        bucket = open_buckets.setdefault(key, {"indices": [], "size": 0, "limit_at": 0})
        bucket["indices"].append(index)
        bucket["size"] += tensor.numel() * tensor.element_size()
        limit = bucket_size_limits[bucket["limit_at"]]
        if bucket["size"] >= limit:
            result.append((bucket["indices"], limit))
            next_at = min(bucket["limit_at"] + 1, len(bucket_size_limits) - 1)
            open_buckets[key] = {"indices": [], "size": 0, "limit_at": next_at}
    leftovers = [(b["indices"], bucket_size_limits[b["limit_at"]]) for b in open_buckets.values()]
    leftovers = [b for b in leftovers if b[0]]
    if tensor_indices and len(leftovers) > 1:
        raise NotImplementedError(
            "open buckets of several dtypes with tensor_indices: torch closes them in the "
            "order of its hash map (std::unordered_map), which this lab does not model"
        )
    result += leftovers
    if not tensor_indices:
        result.sort(key=lambda b: min(b[0]))
    return [b[0] for b in result], [b[1] for b in result]
    ### END SOLUTION


# ---- Task 7.6: a reducer that overlaps communication with backward ---------------------------


class GradBucket:
    """One bucket of gradients as a communication hook sees it (given): torch's
    ``dist.GradBucket`` (``torch/csrc/distributed/c10d/comm.hpp``). ``buffer()`` is the flat
    tensor the bucket's gradients were copied into, ``gradients()`` its views shaped as the
    parameters, ``parameters()`` the parameters in bucket order, ``index()`` the bucket's
    place in launch order and ``is_last()`` whether it is the last one of the iteration."""

    def __init__(self, index: int, buffer: torch.Tensor, params: list, is_last: bool) -> None:
        self._index, self._buffer, self._params, self._is_last = index, buffer, params, is_last

    def index(self) -> int:
        return self._index

    def buffer(self) -> torch.Tensor:
        return self._buffer

    def set_buffer(self, buffer: torch.Tensor) -> None:
        self._buffer = buffer

    def gradients(self) -> list[torch.Tensor]:
        return _views(self._buffer, self._params)

    def parameters(self) -> list[torch.Tensor]:
        return list(self._params)

    def is_last(self) -> bool:
        return self._is_last


def _views(flat: torch.Tensor, params: list) -> list[torch.Tensor]:
    """``flat`` cut into consecutive pieces shaped as ``params`` (given)."""
    pieces = flat.split([p.numel() for p in params])
    return [piece.view(p.shape) for piece, p in zip(pieces, params, strict=True)]


def _mib(cap_mb: float) -> int:
    return int(cap_mb * 1024 * 1024)


class MiniDDP(torch.nn.Module):
    """Task 7.6: ``DistributedDataParallel``'s reducer in Python
    (``torch/nn/parallel/distributed.py`` builds it; ``torch/csrc/distributed/c10d/reducer.cpp``
    runs it).

    At construction every parameter and buffer takes rank 0's values (``broadcast``), and
    the parameters are packed into buckets with Task 7.5's function: forward order, limits
    ``[sys.maxsize]`` (one bucket, the first iteration's layout in torch 2.13) unless
    ``find_unused_parameters`` asks for buckets by size from the start (``[first cap, cap]``),
    then the list of buckets reversed, because gradients arrive roughly last layer first.

    During backward, a hook on each parameter's ``AccumulateGrad`` node (the reducer's
    ``autograd_hook``) copies the gradient into its bucket's flat buffer; when
    a bucket holds all its gradients it is *launched*: its all-reduce starts while backward
    goes on computing earlier layers' gradients (the overlap). Buckets launch in index order:
    a full bucket waits for the ones before it (``mark_bucket_ready``). A callback queued on
    the autograd engine runs when backward ends (``finalize_backward``): it waits for every
    bucket's result and copies it into the parameters' ``.grad``.

    Without a communication hook the gradient is multiplied by ``1 / world_size`` as it is
    copied and the bucket all-reduced with SUM (``_AllReduceBySumCommHook``); with one
    (``register_comm_hook``) it is copied as it is and the hook's future gives the result.
    """

    def __init__(
        self,
        module: torch.nn.Module,
        process_group: Any = None,
        bucket_cap_mb: float | None = None,
        find_unused_parameters: bool = False,
    ) -> None:
        super().__init__()
        self.module = module
        ### BEGIN SOLUTION
        self.process_group = process_group or dist.distributed_c10d._get_default_group()
        self.params = [p for p in module.parameters() if p.requires_grad]
        self.find_unused_parameters = find_unused_parameters
        # distributed.py, _BucketCapacityConfig: 25 MiB by default, and then a first bucket of
        # 1 MiB (dist._DEFAULT_FIRST_BUCKET_BYTES); a cap given by the user is used for both.
        self.bucket_bytes_cap = _mib(25 if bucket_cap_mb is None else bucket_cap_mb)
        self.first_bucket_bytes_cap = (
            dist._DEFAULT_FIRST_BUCKET_BYTES if bucket_cap_mb is None else self.bucket_bytes_cap
        )
        self.comm_hook: Any = None
        self.comm_hook_state: Any = None
        for t in [*module.parameters(), *module.buffers()]:  # _sync_module_states
            dist.broadcast(t.detach(), 0, group=self.process_group)
        limits = [sys.maxsize]  # torch 2.13: one bucket until the ready order is known
        if find_unused_parameters:
            limits = [self.first_bucket_bytes_cap, self.bucket_bytes_cap]
        buckets, _ = compute_bucket_assignment_by_size(self.params, limits)
        self._initialize_buckets(list(reversed(buckets)))
        self.ready_order: list[int] = []  # reducer.cpp's rebuilt_param_indices_
        self.has_rebuilt_bucket = False
        self.expect_backward = False
        self.require_forward_param_sync = True
        # The reducer hooks each parameter's AccumulateGrad node (reducer.cpp, add_post_hook):
        # its hook runs after the gradient is accumulated and after any hook on the tensor,
        # whenever that was registered. A node nobody holds is made anew without the hook,
        # so keep them (DDP's grad_accumulators_).
        self.grad_accumulators = []
        for index, param in enumerate(self.params):
            accumulator = param.view_as(param).grad_fn.next_functions[0][0]
            accumulator.register_hook(functools.partial(self._autograd_hook, index, param))
            self.grad_accumulators.append(accumulator)
        ### END SOLUTION

    def _initialize_buckets(self, bucket_indices: list[list[int]]) -> None:
        """Task 7.6: the buckets from lists of parameter indices (``initialize_buckets``):
        each bucket's parameters, its flat buffer, and where each parameter sits in it."""
        ### BEGIN SOLUTION
        self.buckets = []
        self.locator: dict[int, tuple[int, int]] = {}  # parameter -> (bucket, position)
        for b, indices in enumerate(bucket_indices):
            params = [self.params[i] for i in indices]
            numel = sum(p.numel() for p in params)
            buffer = torch.zeros(numel, dtype=params[0].dtype, device=params[0].device)
            self.buckets.append({"indices": indices, "params": params, "buffer": buffer})
            for position, i in enumerate(indices):
                self.locator[i] = (b, position)
        ### END SOLUTION

    def register_comm_hook(self, state: Any, hook: Any) -> None:
        """Task 7.6: ``hook(state, bucket)`` replaces the all-reduce of each bucket from now on;
        it returns a ``torch.futures.Future`` whose value is the bucket's result."""
        ### BEGIN SOLUTION
        self.comm_hook_state, self.comm_hook = state, hook
        ### END SOLUTION

    def forward(self, *args: Any, **kwargs: Any) -> Any:
        """Task 7.6: when autograd records, rebuild the buckets once (below); the buffers
        take rank 0's values, unless the previous forward ran without autograd
        (``require_forward_param_sync`` in distributed.py: evaluation leaves each rank's
        own); run the module; when autograd records, get ready for a backward
        (``prepare_for_backward``)."""
        ### BEGIN SOLUTION
        if torch.is_grad_enabled():
            self._rebuild_buckets()
        if self.require_forward_param_sync:  # broadcast_buffers=True: _sync_buffers
            for buffer in self.module.buffers():
                dist.broadcast(buffer, 0, group=self.process_group)
        output = self.module(*args, **kwargs)
        self.require_forward_param_sync = torch.is_grad_enabled()
        if torch.is_grad_enabled():
            self._prepare_for_backward()
        return output
        ### END SOLUTION

    def _prepare_for_backward(self) -> None:
        ### BEGIN SOLUTION
        self.pending = [len(bucket["params"]) for bucket in self.buckets]
        self.futures: list[Any] = []
        self.next_bucket = 0
        self.callback_queued = False
        self.expect_backward = True
        ### END SOLUTION

    def _autograd_hook(self, index: int, param: torch.Tensor, *unused: Any) -> None:
        """Task 7.6: parameter ``index``'s gradient has been accumulated (``autograd_hook``
        and ``mark_variable_ready``)."""
        ### BEGIN SOLUTION
        if not self.expect_backward:
            return  # a backward that no forward of ours prepared: nothing to reduce
        if not self.callback_queued:  # finalize_backward runs when the engine is done
            torch.autograd.Variable._execution_engine.queue_callback(self._finalize_backward)
            self.callback_queued = True
        if not self.has_rebuilt_bucket and not self.find_unused_parameters:
            self.ready_order.append(index)  # the order the next layout follows
        b, position = self.locator[index]
        bucket = self.buckets[b]
        view = _views(bucket["buffer"], bucket["params"])[position]
        if self.comm_hook is None:  # divide while copying: one pass over the gradient
            torch.mul(param.grad, 1.0 / self.process_group.size(), out=view)
        else:
            view.copy_(param.grad)
        self.pending[b] -= 1
        if self.pending[b] == 0:
            self._mark_bucket_ready()
        ### END SOLUTION

    def _mark_bucket_ready(self) -> None:
        """Task 7.6: launch every full bucket from the next one in index order, so that all
        ranks launch the same buckets in the same order."""
        ### BEGIN SOLUTION
        while self.next_bucket < len(self.buckets) and self.pending[self.next_bucket] == 0:
            b = self.next_bucket
            bucket = self.buckets[b]
            grad_bucket = GradBucket(
                b, bucket["buffer"], bucket["params"], b == len(self.buckets) - 1
            )
            if self.comm_hook is None:
                work = dist.all_reduce(bucket["buffer"], group=self.process_group, async_op=True)
                future = work.get_future()
            else:
                future = self.comm_hook(self.comm_hook_state, grad_bucket)
            self.futures.append(future)
            self.next_bucket += 1
        ### END SOLUTION

    def _finalize_backward(self) -> None:
        """Task 7.6: wait for every bucket's result and copy it into ``.grad``."""
        ### BEGIN SOLUTION
        self.expect_backward = False
        if self.next_bucket < len(self.buckets):
            missing = [
                name
                for name, p in self.module.named_parameters()
                if any(p is q for b in self.buckets[self.next_bucket :] for q in b["params"])
                and p.grad is None
            ]
            raise NotImplementedError(
                f"parameters got no gradient in this backward ({', '.join(missing) or '?'}): "
                "DDP finds them by walking the autograd graph from the outputs "
                "(find_unused_parameters=True) and marks them ready; MiniDDP does not"
            )
        for bucket, future in zip(self.buckets, self.futures, strict=True):
            result = future.wait()
            if isinstance(result, list):  # an all-reduce's future holds a list of tensors
                result = result[0]
            params = bucket["params"]
            for param, reduced in zip(params, _views(result, params), strict=True):
                param.grad.copy_(reduced)
        ### END SOLUTION

    # ---- buckets rebuilt in the order gradients arrive -------------------------------------

    def _rebuild_buckets(self) -> None:
        """Task 7.6: once, at the forward after the first backward, repack the buckets in
        the order the gradients became ready (``Reducer::rebuild_buckets``):
        ``compute_bucket_assignment_by_size`` on the parameters in that order, with their
        indices as ``tensor_indices``
        and limits ``[first cap, cap]``. Never with ``find_unused_parameters`` (the graph
        may change between iterations). The ranks must agree on the layout: rank 0's is
        broadcast (``sync_bucket_indices``)."""
        ### BEGIN SOLUTION
        if self.has_rebuilt_bucket or self.find_unused_parameters or not self.ready_order:
            return
        order = self.ready_order
        limits = [self.first_bucket_bytes_cap, self.bucket_bytes_cap]
        tensors = [self.params[i] for i in order]
        buckets, _ = compute_bucket_assignment_by_size(tensors, limits, [], order)
        self._initialize_buckets(self._sync_bucket_indices(buckets))
        self.has_rebuilt_bucket = True
        ### END SOLUTION

    def _sync_bucket_indices(self, buckets: list[list[int]]) -> list[list[int]]:
        """Task 7.6: rank 0's bucket layout, on every rank: the sizes, then the indices."""
        ### BEGIN SOLUTION
        sizes = torch.tensor([len(b) for b in buckets] + [0] * (len(self.params) - len(buckets)))
        flat = torch.tensor([i for b in buckets for i in b])
        dist.broadcast(sizes, 0, group=self.process_group)
        dist.broadcast(flat, 0, group=self.process_group)
        layout, start = [], 0
        for size in sizes.tolist():
            if size:
                layout.append(flat[start : start + size].tolist())
                start += size
        return layout
        ### END SOLUTION


# ---- Task 7.7: communication hooks ------------------------------------------------------------


# The hooks' ``bucket`` and result carry no annotations on purpose: real DDP's
# ``register_comm_hook`` (``_check_comm_hook`` in distributed.py) refuses a hook whose
# annotations are not exactly ``dist.GradBucket`` and ``torch.futures.Future[torch.Tensor]``,
# and in this module (``from __future__ import annotations``) they would be strings.


def allreduce_hook(process_group: Any, bucket):  # no annotations: see above
    """Task 7.7: the hook that does what DDP does without one: divide the bucket's buffer by
    the group's size, all-reduce it asynchronously, and return a future of the tensor
    (``torch/distributed/algorithms/ddp_comm_hooks/default_hooks.py``, ``allreduce_hook``).
    ``process_group`` None means the default group."""
    ### BEGIN SOLUTION
    group = process_group or dist.distributed_c10d._get_default_group()
    tensor = bucket.buffer().div_(group.size())
    work = dist.all_reduce(tensor, group=group, async_op=True)
    return work.get_future().then(lambda fut: fut.value()[0])
    ### END SOLUTION


def fp16_compress_hook(process_group: Any, bucket):  # no annotations: see above
    """Task 7.7: send half the bytes: cast the buffer to ``float16``, divide by the group's
    size, all-reduce that, and when it completes copy it back into the original buffer and
    return the buffer (``default_hooks.py``, ``fp16_compress_hook``). Gradients lose
    precision (float16 keeps 11 bits of mantissa) and may overflow past 65504."""
    ### BEGIN SOLUTION
    group = process_group or dist.distributed_c10d._get_default_group()
    buffer = bucket.buffer()
    compressed = buffer.to(torch.float16).div_(group.size())

    def decompress(fut: torch.futures.Future) -> torch.Tensor:
        return buffer.copy_(fut.value()[0])

    work = dist.all_reduce(compressed, group=group, async_op=True)
    return work.get_future().then(decompress)
    ### END SOLUTION


# ---- Task 7.8: fully sharded data parallel, by hand ------------------------------------------


class _RegisterPostBackward(torch.autograd.Function):
    """Given: passes the module's inputs through unchanged; its backward runs once autograd
    has the gradients of those inputs, that is once the module's own backward is done, and
    calls ``unit.post_backward()`` (FSDP2's ``RegisterPostBackwardFunction``)."""

    @staticmethod
    def forward(ctx: Any, unit: Any, *inputs: torch.Tensor) -> Any:
        ctx.unit = unit
        return inputs

    @staticmethod
    def backward(ctx: Any, *grads: torch.Tensor) -> Any:
        ctx.unit.post_backward()
        return (None, *grads)


class FSDPUnit:
    """Task 7.8: what ``fully_shard(module)`` attaches to a module: the parameters it manages,
    sharded along dim 0, and the hooks that gather them when they are needed (FSDP2:
    ``torch/distributed/fsdp/_fully_shard/``: ``_fsdp_state.py``'s ``FSDPState`` holds the
    hooks, ``_fsdp_param_group.py``'s ``FSDPParamGroup`` the collectives,
    ``_fsdp_param.py``'s ``FSDPParam`` one parameter's shard, ``_fsdp_collectives.py`` the
    flat layouts).

    Each rank keeps rows ``[r * c, (r + 1) * c)`` of each parameter, ``c = ceil(rows / W)``:
    ``torch.chunk``'s pieces, so the last ranks may hold fewer rows or none. Collectives
    see each shard padded to ``c`` rows, so every rank sends the same number of elements:

    - before forward (and again before backward, if it was freed after forward), one
      ``all_gather_single`` of the unit's padded shards, flattened and concatenated in
      parameter order; each parameter is rebuilt from the W blocks and the module runs on
      these *unsharded* parameters;
    - after forward, unless this unit is the *root* (the first unit to run forward, which
      claims every unit inside its module), the unsharded parameters' storage is freed and
      the module holds its shards again;
    - once the module's backward is done, one ``reduce_scatter_single`` with
      ``ReduceOp.AVG`` of the unsharded gradients, laid out so that block ``r`` holds every
      parameter's rows for rank ``r`` (padded): each rank gets the mean gradient of its own
      rows, which becomes (or adds to) its shard's ``.grad``.

    Each rank shards its own copy of the weights, as FSDP2 does (nothing is broadcast).
    Parameters that get no gradient (frozen, even after ``fully_shard``, or unused) keep
    ``.grad`` None and are left out of the reduce-scatter, as in FSDP2.

    What FSDP2 does besides, which this lab leaves out: it prefetches the next unit's
    all-gather during backward (so its all-gathers and reduce-scatters interleave in
    another order, and after a forward under ``no_grad`` its stale prefetch order sends one
    all-gather more), keeps each shard in padded storage and gradients as views of its
    reduce-scatter output, overlaps on separate streams, and offers mixed precision.
    """

    def __init__(self, module: torch.nn.Module, group: Any) -> None:
        self.module, self.group = module, group
        ### BEGIN SOLUTION
        self.world_size, self.rank = group.size(), group.rank()
        inside = set(module.modules())
        found: list[tuple[torch.nn.Module, str, torch.Tensor]] = []
        for owner in module.modules():
            for name, param in owner._parameters.items():
                unit = getattr(param, "_lab_unit", None)
                if param is None or (unit is not None and unit.module in inside):
                    continue  # a nested unit manages it already
                if unit is not None:  # an outer unit took it: FSDP2 fails here too
                    raise TypeError(
                        "fully_shard on a module whose parameters an outer fully_shard has "
                        "already sharded: shard the inner modules first (FSDP2: 'Invariant "
                        "encountered')"
                    )
                if any(param is other for _, _, other in found):
                    raise NotImplementedError(
                        "a parameter shared by two modules (tied weights): FSDP2 shards it "
                        "once and gives each module the same unsharded parameter "
                        "(FSDPParam's shared modules); this lab does not"
                    )
                found.append((owner, name, param))
        # FSDP2 asks one dtype of the parameters that train (several: see _lazy_init)
        self.dtypes = {param.dtype for _, _, param in found if param.requires_grad}
        if len(self.dtypes) == 1 and self.dtypes != {torch.float32}:
            raise NotImplementedError(
                f"{found[0][2].dtype} parameters: FSDP2 reduce-scatters them with SUM and "
                "divides before and after (_get_gradient_divide_factors in "
                "_fsdp_collectives.py); this lab reduces float32 with AVG only"
            )
        if len(self.dtypes) <= 1 and len({param.dtype for _, _, param in found}) > 1:
            raise NotImplementedError(
                "a frozen parameter of another dtype: FSDP2 gathers each dtype into a buffer "
                "of its own; this lab gathers one dtype"
            )
        self.entries = [self._shard(*f) for f in found]  # one per parameter: FSDPParam
        self.is_root: bool | None = None
        self.root: FSDPUnit = self  # set by the root's _lazy_init
        self.units: list[FSDPUnit] = []  # the root's: every unit in its module, in order
        self.unsharded = False
        self.state = "idle"
        self.callback_queued = False
        module._lab_fsdp_unit = self  # type: ignore[assignment]
        module.register_forward_pre_hook(self.pre_forward, with_kwargs=True)
        module.register_forward_hook(self.post_forward)
        ### END SOLUTION

    def _shard(self, owner: torch.nn.Module, name: str, param: torch.Tensor) -> dict[str, Any]:
        """Task 7.8: keep this rank's rows of ``param`` as the module's parameter (a new
        ``nn.Parameter``), and an unsharded parameter of the full shape, storage freed."""
        ### BEGIN SOLUTION
        rows = param.shape[0]
        chunk = -(-rows // self.world_size)
        start = min(rows, self.rank * chunk)
        local = param.detach()[start : min(rows, start + chunk)].clone()
        sharded = torch.nn.Parameter(local, requires_grad=param.requires_grad)
        sharded._lab_unit = self  # type: ignore[attr-defined]
        unsharded = torch.nn.Parameter(torch.empty_like(param), requires_grad=param.requires_grad)
        unsharded.untyped_storage().resize_(0)
        owner._parameters[name] = sharded
        return {"owner": owner, "name": name, "sharded": sharded, "unsharded": unsharded,
                "chunk": chunk, "shape": tuple(param.shape)}  # fmt: skip
        ### END SOLUTION

    def _padded_numel(self, entry: dict[str, Any]) -> int:
        return entry["chunk"] * math.prod(entry["shape"][1:])

    # -- the collectives -------------------------------------------------------------------

    def unshard(self) -> None:
        """Task 7.8: all-gather the unit's shards into the unsharded parameters (nothing to
        do if they are there already) and let the module hold them."""
        ### BEGIN SOLUTION
        if not self.unsharded and self.entries:  # a unit with no parameters sends nothing
            pieces = []
            for e in self.entries:
                padded = e["sharded"].new_zeros((e["chunk"], *e["shape"][1:]))
                padded[: e["sharded"].shape[0]] = e["sharded"].detach()
                pieces.append(padded.flatten())
            local = torch.cat(pieces)
            gathered = local.new_empty(self.world_size * local.numel())
            dist.all_gather_single(gathered, local, group=self.group)
            blocks = gathered.view(self.world_size, -1)
            offset = 0
            for e in self.entries:
                n = self._padded_numel(e)
                full = blocks[:, offset : offset + n].reshape(-1, *e["shape"][1:])
                offset += n
                unsharded = e["unsharded"]
                # a shard frozen (or unfrozen) after fully_shard: FSDP2 looks at every gather
                unsharded.requires_grad_(e["sharded"].requires_grad)
                unsharded.untyped_storage().resize_(unsharded.numel() * unsharded.element_size())
                # autograd saved this tensor in forward: refilling it is not an in-place
                # change it should see (FSDP2 does the same)
                with torch.no_grad(), torch.autograd._unsafe_preserve_version_counter(unsharded):
                    unsharded.copy_(full[: e["shape"][0]])
            self.unsharded = True
        for e in self.entries:
            e["owner"]._parameters[e["name"]] = e["unsharded"]
        ### END SOLUTION

    def reshard(self) -> None:
        """Task 7.8: the module holds its shards again; free the unsharded storage."""
        ### BEGIN SOLUTION
        for e in self.entries:
            e["owner"]._parameters[e["name"]] = e["sharded"]
            e["unsharded"].untyped_storage().resize_(0)
        self.unsharded = False
        ### END SOLUTION

    def reduce_gradients(self) -> None:
        """Task 7.8: reduce-scatter the unsharded gradients (mean over ranks) into the
        shards' ``.grad``."""
        ### BEGIN SOLUTION
        # only parameters that got a gradient (a frozen or unused one keeps .grad None)
        reduced = [e for e in self.entries if e["unsharded"].grad is not None]
        if not reduced:
            return
        per_rank = []
        for e in reduced:
            g = e["unsharded"].grad
            padded = g.new_zeros((e["chunk"] * self.world_size, *e["shape"][1:]))
            padded[: e["shape"][0]] = g
            per_rank.append(padded.view(self.world_size, -1))
        flat = torch.cat(per_rank, dim=1)  # row r: every parameter's rows for rank r
        mine = flat.new_empty(flat.shape[1])
        dist.reduce_scatter_single(mine, flat.flatten(), op=ReduceOp.AVG, group=self.group)
        offset = 0
        for e in reduced:
            n = self._padded_numel(e)
            sharded = e["sharded"]
            piece = mine[offset : offset + n].view(e["chunk"], *e["shape"][1:])
            piece = piece[: sharded.shape[0]].clone()
            offset += n
            sharded.grad = piece if sharded.grad is None else sharded.grad + piece
            e["unsharded"].grad = None
        ### END SOLUTION

    # -- the hooks -------------------------------------------------------------------------

    def _lazy_init(self) -> None:
        """Task 7.8: the first unit to run forward is the root: it claims every unit in its
        module (they are not roots) and keeps its own parameters gathered after forward."""
        ### BEGIN SOLUTION
        self.is_root = True
        for name, sub in self.module.named_modules():
            unit = getattr(sub, "_lab_fsdp_unit", None)
            if unit is None:
                continue
            if unit is not self and unit.is_root is not None:  # FSDP2's own error
                raise RuntimeError(
                    f"FSDP state has already been lazily initialized for {name}: "
                    "requires running forward through the root module first"
                )
            if len(unit.dtypes) > 1:  # FSDP2's own check (_fsdp_param_group.py), as late
                raise AssertionError(
                    f"FSDP expects uniform original parameter dtype but got {unit.dtypes}"
                )
            unit.is_root, unit.root = unit is self, self
            self.units.append(unit)
        ### END SOLUTION

    def pre_forward(self, module: Any, args: tuple, kwargs: dict) -> Any:
        """Task 7.8: gather, and mark the inputs so that ``post_backward`` runs once the
        module's backward is done."""
        ### BEGIN SOLUTION
        if self.is_root is None:
            self._lazy_init()
        self.state = "forward"
        self.unshard()
        if torch.is_grad_enabled():  # every tensor that needs a gradient, kwargs included
            leaves, spec = tree_flatten((args, kwargs))
            marked = [i for i, a in enumerate(leaves) if torch.is_tensor(a) and a.requires_grad]
            if marked:
                outs = _RegisterPostBackward.apply(self, *[leaves[i] for i in marked])
                for i, out in zip(marked, outs, strict=True):
                    leaves[i] = out
                args, kwargs = tree_unflatten(leaves, spec)
        return args, kwargs
        ### END SOLUTION

    def post_forward(self, module: Any, args: Any, output: Any) -> Any:
        """Task 7.8: free the gathered parameters (not the root's) and hook the outputs, so
        that ``pre_backward`` runs before the module's backward."""
        ### BEGIN SOLUTION
        if not self.is_root:
            self.reshard()
        for t in tree_flatten(output)[0]:  # tuples, lists and dicts, nested
            if torch.is_tensor(t) and t.requires_grad:
                t.register_hook(self.pre_backward)
        self.state = "idle"
        return output
        ### END SOLUTION

    def pre_backward(self, grad: torch.Tensor) -> torch.Tensor:
        """Task 7.8: gather again before the module's backward needs its parameters; make
        sure the root's final callback will run when backward ends."""
        ### BEGIN SOLUTION
        root = self.root
        if not root.callback_queued:
            torch.autograd.Variable._execution_engine.queue_callback(root.final_callback)
            root.callback_queued = True
        if self.state != "pre_backward":
            self.state = "pre_backward"
            self.unshard()
        return grad
        ### END SOLUTION

    def post_backward(self) -> None:
        """Task 7.8: the module's backward is done: reduce its gradients, free again."""
        ### BEGIN SOLUTION
        if self.state == "post_backward":
            return
        self.state = "post_backward"
        self.reduce_gradients()
        self.reshard()
        ### END SOLUTION

    def final_callback(self) -> None:
        """Task 7.8: the root's, when backward ends: a unit whose inputs needed no gradient
        (the first layer's) never saw its ``post_backward``: run it now, in module order."""
        ### BEGIN SOLUTION
        for unit in self.units:
            if unit.state != "post_backward":
                unit.post_backward()
            unit.state = "idle"
        self.callback_queued = False
        ### END SOLUTION


def fully_shard(module: torch.nn.Module) -> torch.nn.Module:
    """Task 7.8: shard ``module``'s parameters (those no inner ``fully_shard`` took) over the
    default group, as ``torch.distributed.fsdp.fully_shard`` does; returns the module."""
    ### BEGIN SOLUTION
    FSDPUnit(module, dist.distributed_c10d._get_default_group())
    return module
    ### END SOLUTION
