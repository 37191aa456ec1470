"""Task 7.4: the library as the c10d backend ``labccl``, used through ``dist.*`` and by real
``DistributedDataParallel``, against gloo running the same program."""

from __future__ import annotations

import threading
from typing import Any

import torch
import torch.distributed as dist

from autograder.cases import case
from autograder.observe import guard, raised
from autograder.weeks.week7.common import (
    ReduceOp,
    W,
    World,
    carried,
    error_of,
    floats,
    ints,
    mlp,
    plain,
    run_world,
    train,
)


def _init(lib: Any, w: World) -> str:
    name = lib.register_labccl()
    dist.init_process_group(name, store=w.store, rank=w.rank, world_size=w.world_size)
    return name


@case(W, points=3, tasks=("7.2", "7.3", "7.4"))
def task_7_4_the_public_api_on_labccl(lib: Any) -> Any:
    """``init_process_group`` with your backend's name, then ``dist.*`` in a world of 3:
    rank and size, ``all_reduce`` (SUM and MAX), ``broadcast``, ``all_gather``, ``reduce_scatter``,
    ``reduce`` (the root's result, MAX), ``all_gather_single`` and ``reduce_scatter_single``
    (2-d blocks, stacked along dim 0; MAX),
    ``barrier``, and ``send``/``recv`` around the ring; the messages go over the course's
    interconnect (a backend that hands the work to gloo is not yours)."""

    def rank_main(w: World) -> Any:
        name = _init(lib, w)
        r, size = w.rank, w.world_size
        out: dict[str, Any] = {
            "backend is the name registered": dist.get_backend() == name,
            "rank, size": [dist.get_rank(), dist.get_world_size()],
        }
        t = ints(r, 4)
        dist.all_reduce(t, ReduceOp.SUM)
        out["all_reduce"] = plain(t)
        t = ints(r, 4, salt=11)
        dist.all_reduce(t, ReduceOp.MAX)
        out["all_reduce MAX"] = plain(t)
        t = ints(r, 3, salt=1)
        dist.broadcast(t, src=2)
        out["broadcast"] = plain(t)
        gathered = [torch.zeros(2) for _ in range(size)]
        dist.all_gather(gathered, ints(r, 2, salt=2))
        out["all_gather"] = [plain(x) for x in gathered]
        o = torch.zeros(2)
        dist.reduce_scatter(o, [ints(r, 2, salt=3 + i) for i in range(size)], ReduceOp.MAX)
        out["reduce_scatter"] = plain(o)
        t = ints(r, 3, salt=7)
        dist.reduce(t, dst=1, op=ReduceOp.MAX)
        out["reduce"] = plain(t) if r == 1 else None
        flat = torch.zeros(size * 2, 3)
        dist.all_gather_single(flat, ints(r, 2, 3, salt=8))
        out["all_gather_single"] = plain(flat)
        o = torch.zeros(2, 2)
        dist.reduce_scatter_single(o, ints(r, size * 2, 2, salt=9), ReduceOp.MAX)
        out["reduce_scatter_single"] = plain(o)
        dist.barrier()
        got = torch.zeros(3)
        if r % 2 == 0:
            dist.send(ints(r, 3, salt=10), (r + 1) % size)
            dist.recv(got, (r - 1) % size)
        else:
            dist.recv(got, (r - 1) % size)
            dist.send(ints(r, 3, salt=10), (r + 1) % size)
        out["send/recv"] = plain(got)
        dist.barrier()  # every rank's messages are sent before the interconnect is read
        out["over the interconnect"] = carried(lib, w.link)
        return out

    return guard(lambda: run_world(3, rank_main))


@case(W, points=2, tasks=("7.2", "7.3", "7.4"))
def task_7_4_async_op_returns_work(lib: Any) -> Any:
    """``async_op=True`` returns your Work: ``wait()`` is True, ``is_completed()`` is True
    after it, and ``get_future().value()`` is the list of output tensors, for ``all_reduce``
    and ``all_gather`` (DDP's reducer reads its buckets' results this way);
    ``all_gather_single``'s result is the output's blocks, and a reduce-scatter's Work has no
    result, as gloo's."""

    def rank_main(w: World) -> Any:
        _init(lib, w)
        t = ints(w.rank, 3)
        work = dist.all_reduce(t, async_op=True)
        waited = bool(work.wait())
        outs = [torch.zeros(2) for _ in range(w.world_size)]
        gathered = dist.all_gather(outs, ints(w.rank, 2, salt=1), async_op=True)
        gathered.wait()
        flat = torch.zeros(2 * w.world_size)
        single = dist.all_gather_single(flat, ints(w.rank, 2, salt=2), async_op=True)
        single.wait()
        scattered = dist.reduce_scatter_single(torch.zeros(1), ints(w.rank, 2), async_op=True)
        scattered.wait()
        return {
            "all_gather_single's result": [plain(x) for x in single.result()],
            "reduce_scatter_single's result": error_of(scattered.result),
            "wait": waited,
            "completed": bool(work.is_completed()),
            "future": [plain(x) for x in work.get_future().value()],
            "tensor": plain(t),
            "all_gather's future": [plain(x) for x in gathered.get_future().value()],
        }

    return guard(lambda: run_world(2, rank_main))


def _what_work_holds(work: Any, outputs: list[torch.Tensor], values: bool = True) -> dict[str, Any]:
    """A Work, waited: ``wait()``'s answer, then what ``result()`` and ``get_future()``
    give: the error each raises, or the tensors' values and whether they are the call's own
    output tensors (their memory). ``values=False``: not the values (a reduce's on a rank
    other than the root: gloo leaves partial sums there)."""
    waited = bool(work.wait())

    def tensors(fn: Any) -> Any:
        try:
            got = fn()
        except Exception as exc:  # noqa: BLE001 - the error is the observation
            return raised(exc)["type"]
        mine = {t.data_ptr() for t in outputs}
        return [
            {
                "value": plain(t) if values else "not judged",
                "the output's memory": t.data_ptr() in mine,
            }
            for t in got
        ]

    return {
        "wait": waited,
        "result": tensors(work.result),
        "future": tensors(lambda: work.get_future().value()),
    }


@case(W, points=3, tasks=("7.2", "7.3", "7.4"))
def task_7_4_what_each_work_holds(lib: Any) -> Any:
    """Every ``dist.*`` call with ``async_op=True``, waited: what its Work's ``result()`` and
    ``get_future().value()`` hold (the tensors the call wrote, themselves, not copies: DDP's
    reducer reads its bucket through the future) or the error they raise, as gloo's Works
    (``ProcessGroupGloo.cpp``): ``broadcast``, ``reduce``, ``all_reduce``, ``all_gather``,
    ``all_gather_single``, ``reduce_scatter``, ``reduce_scatter_single``, ``barrier``,
    ``isend`` and ``irecv``."""

    def rank_main(w: World) -> Any:
        _init(lib, w)
        size, out = w.world_size, {}
        t = ints(w.rank, 3)
        out["broadcast"] = _what_work_holds(dist.broadcast(t, 1, async_op=True), [t])
        t = ints(w.rank, 3, salt=1)
        work = dist.reduce(t, 0, async_op=True)
        out["reduce"] = _what_work_holds(work, [t], values=w.rank == 0)
        t = ints(w.rank, 3, salt=2)
        out["all_reduce"] = _what_work_holds(dist.all_reduce(t, async_op=True), [t])
        outs = [torch.zeros(2) for _ in range(size)]
        work = dist.all_gather(outs, ints(w.rank, 2, salt=3), async_op=True)
        out["all_gather"] = _what_work_holds(work, outs)
        flat = torch.zeros(2 * size)
        work = dist.all_gather_single(flat, ints(w.rank, 2, salt=4), async_op=True)
        out["all_gather_single"] = _what_work_holds(work, [flat])
        mine = torch.zeros(2)
        blocks = [ints(w.rank, 2, salt=5 + i) for i in range(size)]
        work = dist.reduce_scatter(mine, blocks, async_op=True)
        out["reduce_scatter"] = _what_work_holds(work, [mine])
        work = dist.reduce_scatter_single(mine, ints(w.rank, 2 * size), async_op=True)
        out["reduce_scatter_single"] = _what_work_holds(work, [mine])
        out["barrier"] = _what_work_holds(dist.barrier(async_op=True), [])
        message = torch.zeros(2)
        if w.rank == 0:
            work = dist.isend(ints(0, 2, salt=9), 1)
        else:
            work = dist.irecv(message, 0)
        out["isend" if w.rank == 0 else "irecv"] = _what_work_holds(work, [message])
        return out

    return guard(lambda: run_world(2, rank_main))


@case(W, points=1, tasks=("7.2", "7.4"))
def task_7_4_send_and_recv_take_contiguous_tensors(lib: Any) -> Any:
    """``dist.send`` and ``dist.recv`` of a transposed tensor raise, as gloo's do
    (``checkSingleTensor``: "input tensor has to be contiguous"), and the message after them
    still arrives: the refused calls sent nothing."""

    def rank_main(w: World) -> Any:
        _init(lib, w)
        if w.rank == 0:
            refused = error_of(lambda: dist.send(ints(0, 3, 2).t(), 1))
            dist.send(ints(0, 6, salt=1), 1)
            return refused
        got = torch.zeros(6)
        refused = error_of(lambda: dist.recv(torch.zeros(2, 3).t(), 0))
        dist.recv(got, 0)
        return [refused, plain(got)]

    return guard(lambda: run_world(2, rank_main))


# ---- real DDP on the backend ------------------------------------------------------------------


@case(W, points=4, tasks=("7.2", "7.3", "7.4"))
def task_7_4_ddp_trains_on_labccl(lib: Any) -> Any:
    """Real ``DistributedDataParallel`` on your backend, worlds of 2 and 3, three SGD steps
    on each rank's own data: every rank starts from rank 0's weights, and after each
    backward every rank holds the mean gradient; losses and final weights as on gloo."""

    def rank_main(w: World) -> Any:
        _init(lib, w)
        model = mlp(w.rank)
        ddp = torch.nn.parallel.DistributedDataParallel(model)
        losses = train(ddp, w.rank, 3)
        return {"losses": losses, "weights": [floats(p) for p in model.parameters()]}

    return {f"W={n}": guard(lambda n=n: run_world(n, rank_main)) for n in (2, 3)}


class _Recorder(dist.ProcessGroup):
    """A trusted process group around the backend under test (gloo, or yours): it records
    each call DDP makes, as (operation, dtype, elements), and passes it on."""

    def __init__(self, inner: Any, rank: int, size: int, log: list) -> None:
        super().__init__(rank, size)
        self.inner, self.log = inner, log

    def getBackendName(self) -> str:  # noqa: N802 - c10d's name
        return "recorded"

    def _note(self, name: str, tensors: list) -> None:
        flat = [t for x in tensors for t in (x if isinstance(x, list) else [x])]
        dtype = str(flat[0].dtype).removeprefix("torch.")
        self.log.append([name, dtype, sum(t.numel() for t in flat)])

    def allreduce(self, tensors: list, opts: Any = None) -> Any:
        self._note("allreduce", tensors)
        return self.inner.allreduce(tensors, opts)

    def broadcast(self, tensors: list, opts: Any = None) -> Any:
        self._note("broadcast", tensors)
        return self.inner.broadcast(tensors, opts)

    def allgather(self, outs: list, ins: list, opts: Any = None) -> Any:
        self._note("allgather", ins)
        return self.inner.allgather(outs, ins, opts)

    def all_gather_single(self, out: Any, tensor: Any, opts: Any = None) -> Any:
        self._note("all_gather_single", [tensor])
        if isinstance(self.inner, dist.ProcessGroup):  # yours: a Python ProcessGroup
            return self.inner.all_gather_single(out, tensor, opts)
        return self.inner._allgather_base(out, tensor, opts)  # gloo's Backend

    def reduce_scatter_single(self, out: Any, tensor: Any, opts: Any = None) -> Any:
        self._note("reduce_scatter_single", [tensor])
        self.log[-1].append(str(opts.reduceOp.op).rpartition(".")[2])
        if isinstance(self.inner, dist.ProcessGroup):
            return self.inner.reduce_scatter_single(out, tensor, opts)
        return self.inner._reduce_scatter_base(out, tensor, opts)

    # FSDP2's DeviceMesh asks the group its name (see LabProcessGroup's)
    def setGroupName(self, name: str) -> None:  # noqa: N802 - c10d's name
        self._group_name = name

    def getGroupName(self) -> str:  # noqa: N802 - c10d's name
        return self._group_name

    def setGroupDesc(self, desc: str) -> None:  # noqa: N802 - c10d's name
        self._group_desc = desc

    def getGroupDesc(self) -> str:  # noqa: N802 - c10d's name
        return self._group_desc


_CREATORS = threading.local()


def _recorded(store: Any, rank: int, size: int, timeout: Any) -> Any:
    lib, log = _CREATORS.lib, _CREATORS.log
    return _Recorder(lib.create_labccl(store, rank, size, timeout), rank, size, log)


def register_recorder() -> None:
    """The backend ``"recorded"``: the backend under test inside a ``_Recorder``."""
    if not hasattr(dist.Backend, "RECORDED"):
        dist.Backend.register_backend("recorded", _recorded, devices=["cpu"])


def record_into(lib: Any, log: list) -> None:
    """This rank's next ``"recorded"`` group wraps ``lib``'s backend and logs into ``log``."""
    _CREATORS.lib, _CREATORS.log = lib, log


@case(W, points=3, tasks=("7.2", "7.3", "7.4"))
def task_7_4_what_ddp_asks_of_a_backend(lib: Any) -> Any:
    """The calls DDP makes on your backend, recorded by a process group of the course's
    wrapped around it: at construction an int64 ``allgather`` and ``broadcast`` (checking
    every rank has the same parameters), a float ``broadcast`` of every weight from rank 0;
    then per backward one ``allreduce`` of the gradient bucket (and, after the first
    iteration, int32 ``broadcast``s of the rebuilt buckets' layout)."""
    register_recorder()

    def rank_main(w: World) -> Any:
        log: list = []
        record_into(lib, log)
        dist.init_process_group("recorded", store=w.store, rank=w.rank, world_size=w.world_size)
        model = mlp(w.rank)
        ddp = torch.nn.parallel.DistributedDataParallel(model)
        train(ddp, w.rank, 2)
        return log

    return guard(lambda: run_world(2, rank_main))


@case(W, points=2, tasks=("7.2", "7.3", "7.4"))
def task_7_4_barrier_and_receives_posted_first(lib: Any) -> Any:
    """Through ``dist.*`` in a world of 3: no rank leaves ``dist.barrier()`` before every rank
    has reached it (twice), and ``dist.irecv`` from the left posted before ``dist.isend`` to
    the right completes (an async receive must not block)."""
    lock, events = threading.Lock(), []

    def rank_main(w: World) -> Any:
        _init(lib, w)
        for round_ in (1, 2):
            with lock:
                events.append(("arrive", round_))
            dist.barrier()
            with lock:
                events.append(("leave", round_))
        got = torch.zeros(3)
        recv = dist.irecv(got, (w.rank - 1) % w.world_size)
        send = dist.isend(ints(w.rank, 3, salt=4), (w.rank + 1) % w.world_size)
        recv.wait()
        send.wait()
        return plain(got)

    def run() -> Any:
        received = run_world(3, rank_main)
        order = []
        for round_ in (1, 2):
            arrived = [i for i, e in enumerate(events) if e == ("arrive", round_)]
            left = [i for i, e in enumerate(events) if e == ("leave", round_)]
            order.append(max(arrived) < min(left))
        return {"everyone arrived before anyone left": order, "received": received}

    return guard(run)


# ---- real FSDP2 on the backend ----------------------------------------------------------------


def _fsdp_step(lib: Any, w: World, steps: int = 2) -> dict[str, Any]:
    """``fully_shard`` on each Linear of an MLP 8-16-4 and on the whole, then ``steps`` SGD
    steps on each rank's own data: each parameter's local shard (shape and values) and its
    gradient's, as FSDP2 leaves them (``to_local()``)."""
    from torch.distributed.fsdp import fully_shard

    model = mlp(w.rank, (8, 16, 4))
    fully_shard(model[0])
    fully_shard(model[2])
    fully_shard(model)
    losses = train(model, w.rank, steps, width=8)
    return {
        "losses": losses,
        "shards": {n: floats(p.to_local()) for n, p in model.named_parameters()},
        "grad shards": {n: floats(p.grad.to_local()) for n, p in model.named_parameters()},
    }


@case(W, points=3, tasks=("7.2", "7.3", "7.4"))
def task_7_4_fsdp2_trains_on_labccl(lib: Any) -> Any:
    """Real FSDP2 (``fully_shard``) on your backend, worlds of 2, 3 and 4: each rank keeps a
    dim-0 shard of every parameter (FSDP2 pads 16 rows to 18 for 3 ranks, and a rank may
    hold an empty shard), all-gathers them with ``all_gather_single`` before each layer runs,
    and reduce-scatters the gradients with ``reduce_scatter_single`` and ``ReduceOp.AVG``.
    Two SGD steps: losses, local shards and local gradient shards, as on gloo."""

    def rank_main(w: World) -> Any:
        _init(lib, w)
        return _fsdp_step(lib, w)

    return {f"W={n}": guard(lambda n=n: run_world(n, rank_main)) for n in (2, 3, 4)}


@case(W, points=2, tasks=("7.2", "7.3", "7.4"))
def task_7_4_what_fsdp2_asks_of_a_backend(lib: Any) -> Any:
    """The calls FSDP2 makes on your backend in one step (recorded by the course's process
    group around yours): per layer an ``all_gather_single`` before forward, again before
    backward, then a ``reduce_scatter_single`` with AVG; dtypes and sizes, in order."""
    register_recorder()

    def rank_main(w: World) -> Any:
        log: list = []
        record_into(lib, log)
        dist.init_process_group("recorded", store=w.store, rank=w.rank, world_size=w.world_size)
        _fsdp_step(lib, w, steps=1)
        return log

    return guard(lambda: run_world(2, rank_main))
