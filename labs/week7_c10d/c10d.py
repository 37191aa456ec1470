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
        raise NotImplementedError("LabProcessGroup.__init__ (Task 7.4)")

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
        raise NotImplementedError("MiniDDP.__init__ (Task 7.6)")

    def _initialize_buckets(self, bucket_indices: list[list[int]]) -> None:
        """Task 7.6: the buckets from lists of parameter indices (``initialize_buckets``):
        each bucket's parameters, its flat buffer, and where each parameter sits in it."""
        raise NotImplementedError("MiniDDP._initialize_buckets (Task 7.6)")

    def register_comm_hook(self, state: Any, hook: Any) -> None:
        """Task 7.6: ``hook(state, bucket)`` replaces the all-reduce of each bucket from now on;
        it returns a ``torch.futures.Future`` whose value is the bucket's result."""
        raise NotImplementedError("MiniDDP.register_comm_hook (Task 7.6)")

    def forward(self, *args: Any, **kwargs: Any) -> Any:
        """Task 7.6: when autograd records, rebuild the buckets once (below); the buffers
        take rank 0's values, unless the previous forward ran without autograd
        (``require_forward_param_sync`` in distributed.py: evaluation leaves each rank's
        own); run the module; when autograd records, get ready for a backward
        (``prepare_for_backward``)."""
        raise NotImplementedError("MiniDDP.forward (Task 7.6)")

    def _prepare_for_backward(self) -> None:
        raise NotImplementedError("MiniDDP._prepare_for_backward (Task 7.6)")

    def _autograd_hook(self, index: int, param: torch.Tensor, *unused: Any) -> None:
        """Task 7.6: parameter ``index``'s gradient has been accumulated (``autograd_hook``
        and ``mark_variable_ready``)."""
        raise NotImplementedError("MiniDDP._autograd_hook (Task 7.6)")

    def _mark_bucket_ready(self) -> None:
        """Task 7.6: launch every full bucket from the next one in index order, so that all
        ranks launch the same buckets in the same order."""
        raise NotImplementedError("MiniDDP._mark_bucket_ready (Task 7.6)")

    def _finalize_backward(self) -> None:
        """Task 7.6: wait for every bucket's result and copy it into ``.grad``."""
        raise NotImplementedError("MiniDDP._finalize_backward (Task 7.6)")

    # ---- buckets rebuilt in the order gradients arrive -------------------------------------

    def _rebuild_buckets(self) -> None:
        """Task 7.6: once, at the forward after the first backward, repack the buckets in
        the order the gradients became ready (``Reducer::rebuild_buckets``):
        ``compute_bucket_assignment_by_size`` on the parameters in that order, with their
        indices as ``tensor_indices``
        and limits ``[first cap, cap]``. Never with ``find_unused_parameters`` (the graph
        may change between iterations). The ranks must agree on the layout: rank 0's is
        broadcast (``sync_bucket_indices``)."""
        raise NotImplementedError("MiniDDP._rebuild_buckets (Task 7.6)")

    def _sync_bucket_indices(self, buckets: list[list[int]]) -> list[list[int]]:
        """Task 7.6: rank 0's bucket layout, on every rank: the sizes, then the indices."""
        raise NotImplementedError("MiniDDP._sync_bucket_indices (Task 7.6)")


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
    raise NotImplementedError("allreduce_hook (Task 7.7)")


def fp16_compress_hook(process_group: Any, bucket):  # no annotations: see above
    """Task 7.7: send half the bytes: cast the buffer to ``float16``, divide by the group's
    size, all-reduce that, and when it completes copy it back into the original buffer and
    return the buffer (``default_hooks.py``, ``fp16_compress_hook``). Gradients lose
    precision (float16 keeps 11 bits of mantissa) and may overflow past 65504."""
    raise NotImplementedError("fp16_compress_hook (Task 7.7)")


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
        raise NotImplementedError("FSDPUnit.__init__ (Task 7.8)")

    def _shard(self, owner: torch.nn.Module, name: str, param: torch.Tensor) -> dict[str, Any]:
        """Task 7.8: keep this rank's rows of ``param`` as the module's parameter (a new
        ``nn.Parameter``), and an unsharded parameter of the full shape, storage freed."""
        raise NotImplementedError("FSDPUnit._shard (Task 7.8)")

    def _padded_numel(self, entry: dict[str, Any]) -> int:
        return entry["chunk"] * math.prod(entry["shape"][1:])

    # -- the collectives -------------------------------------------------------------------

    def unshard(self) -> None:
        """Task 7.8: all-gather the unit's shards into the unsharded parameters (nothing to
        do if they are there already) and let the module hold them."""
        raise NotImplementedError("FSDPUnit.unshard (Task 7.8)")

    def reshard(self) -> None:
        """Task 7.8: the module holds its shards again; free the unsharded storage."""
        raise NotImplementedError("FSDPUnit.reshard (Task 7.8)")

    def reduce_gradients(self) -> None:
        """Task 7.8: reduce-scatter the unsharded gradients (mean over ranks) into the
        shards' ``.grad``."""
        raise NotImplementedError("FSDPUnit.reduce_gradients (Task 7.8)")

    # -- the hooks -------------------------------------------------------------------------

    def _lazy_init(self) -> None:
        """Task 7.8: the first unit to run forward is the root: it claims every unit in its
        module (they are not roots) and keeps its own parameters gathered after forward."""
        raise NotImplementedError("FSDPUnit._lazy_init (Task 7.8)")

    def pre_forward(self, module: Any, args: tuple, kwargs: dict) -> Any:
        """Task 7.8: gather, and mark the inputs so that ``post_backward`` runs once the
        module's backward is done."""
        raise NotImplementedError("FSDPUnit.pre_forward (Task 7.8)")

    def post_forward(self, module: Any, args: Any, output: Any) -> Any:
        """Task 7.8: free the gathered parameters (not the root's) and hook the outputs, so
        that ``pre_backward`` runs before the module's backward."""
        raise NotImplementedError("FSDPUnit.post_forward (Task 7.8)")

    def pre_backward(self, grad: torch.Tensor) -> torch.Tensor:
        """Task 7.8: gather again before the module's backward needs its parameters; make
        sure the root's final callback will run when backward ends."""
        raise NotImplementedError("FSDPUnit.pre_backward (Task 7.8)")

    def post_backward(self) -> None:
        """Task 7.8: the module's backward is done: reduce its gradients, free again."""
        raise NotImplementedError("FSDPUnit.post_backward (Task 7.8)")

    def final_callback(self) -> None:
        """Task 7.8: the root's, when backward ends: a unit whose inputs needed no gradient
        (the first layer's) never saw its ``post_backward``: run it now, in module order."""
        raise NotImplementedError("FSDPUnit.final_callback (Task 7.8)")


def fully_shard(module: torch.nn.Module) -> torch.nn.Module:
    """Task 7.8: shard ``module``'s parameters (those no inner ``fully_shard`` took) over the
    default group, as ``torch.distributed.fsdp.fully_shard`` does; returns the module."""
    raise NotImplementedError("fully_shard (Task 7.8)")
