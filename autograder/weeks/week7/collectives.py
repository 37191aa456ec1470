"""Tasks 7.2 and 7.3: point-to-point messages and collectives by algorithm, against gloo.

Each rank's result comes from the library (yours, or gloo through ``dist.*``); what your
interconnect carried is compared with the algorithm's textbook cost (``common.traffic``)."""

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
    error_of,
    ints,
    plain,
    run_world,
    traffic,
)


def world(size: int, rank_main: Any) -> Any:
    return guard(lambda: run_world(size, rank_main))


# ---- Task 7.2: point-to-point ---------------------------------------------------------------


@case(W, points=2, tasks="7.2")
def task_7_2_send_and_recv(lib: Any) -> Any:
    """Rank 0 sends a tensor to rank 1, which sends back twice it; two messages between the
    same ranks arrive in the order they were sent; an int64 tensor keeps its dtype."""

    def rank_main(w: World) -> Any:
        comm = lib.Comm(w.port)
        x, got, back = ints(0, 2, 3), torch.zeros(2, 3), torch.zeros(2, 3)
        first, second = torch.zeros(4, dtype=torch.int64), torch.zeros(4, dtype=torch.int64)
        if w.rank == 0:
            comm.send(x, 1)
            comm.recv(back, 1)
            comm.send(torch.arange(4), 1)
            comm.send(torch.arange(4) * 10, 1)
            return plain(back)
        comm.recv(got, 0)
        comm.send(got * 2, 0)
        comm.recv(first, 0)
        comm.recv(second, 0)
        return [plain(got), plain(first), plain(second)]

    return world(2, rank_main)


@case(W, points=2, tasks="7.2")
def task_7_2_async_work(lib: Any) -> Any:
    """``isend``/``irecv`` return Work: each rank posts a send to its right and a receive from
    its left, then waits (``wait()`` is True, ``is_completed()`` True afterwards); the buffer
    is filled by the wait, and the sender may change its tensor once ``isend`` returned."""

    def rank_main(w: World) -> Any:
        comm = lib.Comm(w.port)
        mine, got = ints(w.rank, 5), torch.zeros(5)
        send = comm.isend(mine, (w.rank + 1) % w.world_size)
        recv = comm.irecv(got, (w.rank - 1) % w.world_size)
        waited = [bool(send.wait()), bool(recv.wait())]
        mine.fill_(-1)  # too late to change what was sent
        return {
            "waited": waited,
            "completed": [bool(send.is_completed()), bool(recv.is_completed())],
            "received": plain(got),
        }

    return world(3, rank_main)


@case(W, points=2, tasks="7.2")
def task_7_2_receives_posted_first(lib: Any) -> Any:
    """Each rank posts its receive from the left *before* its send to the right (an async
    receive must not block: a ring of blocking receives waits forever). Before ``wait`` the
    receive is not completed (gloo's receive completes in ``wait``); afterwards it is, and
    its future holds the buffer."""

    def rank_main(w: World) -> Any:
        comm = lib.Comm(w.port)
        got = torch.zeros(4)
        recv = comm.irecv(got, (w.rank - 1) % w.world_size)
        send = comm.isend(ints(w.rank, 4, salt=5), (w.rank + 1) % w.world_size)
        before = bool(recv.is_completed())
        recv.wait()
        send.wait()
        return {
            "receive completed before wait": before,
            "after": bool(recv.is_completed()),
            "received": plain(got),
        }

    return world(3, rank_main)


@case(W, points=2, tasks="7.2")
def task_7_2_the_wire_carries_bytes(lib: Any) -> Any:
    """A message lands in the receiver's buffer as bytes: four float32 values received into
    an int32 buffer of the same size give the floats' bit patterns, a 2 by 2 message fills
    a buffer of 4, and two int64 values fill a float32 buffer of 4 (the same 16 bytes), as
    on gloo. A send or receive Work has no result and no future: both raise (c10d's ``Work``
    base class)."""

    def rank_main(w: World) -> Any:
        comm = lib.Comm(w.port)
        if w.rank == 0:
            work = comm.isend(torch.tensor([0.0, 1.0, 2.0, -0.5]), 1)
            work.wait()
            comm.send(torch.tensor([[3, 4], [5, 6]], dtype=torch.int32), 1)
            comm.send(torch.tensor([1, -(2**40)], dtype=torch.int64), 1)
            return {"send's result": error_of(work.result), "future": error_of(work.get_future)}
        buffer, square = torch.zeros(4, dtype=torch.int32), torch.zeros(4, dtype=torch.int32)
        work = comm.irecv(buffer, 0)
        work.wait()
        comm.recv(square, 0)
        wider = torch.zeros(4)
        comm.recv(wider, 0)
        return {
            "received": plain(buffer),
            "a 2 by 2 message in a buffer of 4": plain(square),
            "two int64 in four float32": plain(wider.view(torch.int32)),
            "recv's result": error_of(work.result),
            "future": error_of(work.get_future),
        }

    return world(2, rank_main)


# ---- Task 7.3: collectives ------------------------------------------------------------------


def _collective(lib: Any, size: int, kind: str, shape: tuple, op: Any = None, root: int = 0,
                dtype: torch.dtype = torch.float32, salt: int = 0) -> Any:  # fmt: skip
    """One collective on a world of ``size``: each rank's result and the traffic."""
    numel = 1
    for n in shape:
        numel *= n

    def rank_main(w: World) -> Any:
        comm = lib.Comm(w.port)
        mine = ints(w.rank, *shape, dtype=dtype, salt=salt)
        if kind == "broadcast":
            lib.broadcast(comm, mine, root)
            return plain(mine)
        if kind == "reduce":
            lib.reduce(comm, mine, root, op)
            return plain(mine) if w.rank == root else None  # gloo uses the others as scratch
        if kind == "all_reduce":
            lib.all_reduce(comm, mine, op)
            return plain(mine)
        if kind == "all_gather":
            out = [torch.zeros_like(mine) for _ in range(size)]
            lib.all_gather(comm, out, mine)
            return [plain(t) for t in out]
        blocks = [ints(w.rank, *shape, dtype=dtype, salt=salt + 1 + i) for i in range(size)]
        out = torch.zeros_like(mine)
        lib.reduce_scatter(comm, out, blocks, op)
        return plain(out)

    def run() -> Any:
        holder: dict[str, Any] = {}

        def main(w: World) -> Any:
            holder["link"] = w.link
            return rank_main(w)

        per_rank = run_world(size, main)
        return {"per rank": per_rank, "traffic": traffic(lib, holder["link"], kind, numel, root)}

    return guard(run)


@case(W, points=3, tasks=("7.2", "7.3"))
def task_7_3_broadcast_binomial_tree(lib: Any) -> Any:
    """``broadcast`` from every root in worlds of 2, 3 and 4: every rank ends with the root's
    tensor, and the tree's messages: the root sends ``ceil(log2 W)`` at most, ``W - 1`` in
    all, each of the whole tensor."""
    return {
        f"W={size} root={root}": _collective(lib, size, "broadcast", (2, 3), root=root)
        for size in (2, 3, 4)
        for root in range(size)
    }


@case(W, points=3, tasks=("7.2", "7.3"))
def task_7_3_reduce_to_a_root(lib: Any) -> Any:
    """``reduce`` to each root with SUM, MAX and AVG (worlds of 3 and 4): the root's tensor
    holds the reduction; every other rank sends once (what it holds afterwards is not
    judged: gloo leaves partial sums there)."""
    return {
        f"W={size} dst={root} {op.name}": _collective(lib, size, "reduce", (5,), op, root)
        for size in (3, 4)
        for root in (0, size - 1)
        for op in (ReduceOp.SUM, ReduceOp.MAX, ReduceOp.AVG)
    }


@case(W, points=3, tasks=("7.2", "7.3"))
def task_7_3_all_gather_ring(lib: Any) -> Any:
    """``all_gather`` in worlds of 2, 3 and 4: every rank holds every rank's tensor in rank
    order; the ring sends ``W - 1`` blocks per rank."""
    return {f"W={size}": _collective(lib, size, "all_gather", (2, 2)) for size in (2, 3, 4)}


@case(W, points=3, tasks=("7.2", "7.3"))
def task_7_3_reduce_scatter_ring(lib: Any) -> Any:
    """``reduce_scatter`` with SUM, MIN and AVG in worlds of 2, 3 and 4: rank ``r`` holds the
    reduction of every rank's block ``r``; ``W - 1`` messages per rank."""
    return {
        f"W={size} {op.name}": _collective(lib, size, "reduce_scatter", (3,), op)
        for size in (2, 3, 4)
        for op in (ReduceOp.SUM, ReduceOp.MIN, ReduceOp.AVG)
    }


@case(W, points=3, tasks=("7.2", "7.3"))
def task_7_3_all_reduce_ring(lib: Any) -> Any:
    """``all_reduce`` with SUM in worlds of 2, 3 and 4, on a tensor that splits evenly and one
    that does not (7 elements, and 2 elements among 3 or 4 ranks: some chunks are empty): every
    rank holds the sum; ``2 (W - 1)`` messages per rank."""
    return {
        f"W={size} shape={shape}": _collective(lib, size, "all_reduce", shape, ReduceOp.SUM)
        for size in (2, 3, 4)
        for shape in ((4, 3), (7,), (2,))
    }


@case(W, points=3, tasks=("7.2", "7.3"))
def task_7_3_reduce_ops(lib: Any) -> Any:
    """Every ``ReduceOp`` gloo offers, through ``all_reduce`` in a world of 3 (float32, and
    int32 for SUM, MAX, PRODUCT): AVG divides the sum by the world size; AVG of an integer
    tensor raises, as torch's in-place division does."""
    out = {}
    for op in (ReduceOp.SUM, ReduceOp.AVG, ReduceOp.MAX, ReduceOp.MIN, ReduceOp.PRODUCT):
        out[f"float32 {op.name}"] = _collective(lib, 3, "all_reduce", (6,), op, salt=3)
    for op in (ReduceOp.SUM, ReduceOp.MAX, ReduceOp.PRODUCT, ReduceOp.AVG):
        out[f"int32 {op.name}"] = _collective(
            lib, 3, "all_reduce", (4,), op, dtype=torch.int32, salt=4
        )
    return out


# Three ranks' values whose average rounds differently when each is divided first (found by
# trying every triple of -20..20 in float32): AVG is the sum, divided once, at the end.
THIRDS = [[-20.0, -20.0, -20.0, 1.0, 7.0], [-20.0, -20.0, -19.0, 1.0, 7.0],
          [-18.0, -15.0, -17.0, 1.0, 10.0]]  # fmt: skip


@case(W, points=2, tasks=("7.2", "7.3"))
def task_7_3_avg_divides_once(lib: Any) -> Any:
    """AVG in a world of 3 through ``all_reduce``, ``reduce_scatter`` and ``reduce``, on
    values where dividing each rank's share first rounds differently: compared bit for bit
    (each float32's bits as an int32), since the difference is in the last bit."""

    def bits(t: torch.Tensor) -> Any:
        return t.view(torch.int32).tolist()

    def rank_main(w: World) -> Any:
        comm = lib.Comm(w.port)
        mine = torch.tensor(THIRDS[w.rank])
        out: dict[str, Any] = {}
        t = mine.clone()
        lib.all_reduce(comm, t, ReduceOp.AVG)
        out["all_reduce"] = bits(t)
        o = torch.zeros(5)
        lib.reduce_scatter(comm, o, [mine.clone() for _ in range(3)], ReduceOp.AVG)
        out["reduce_scatter"] = bits(o)
        t = mine.clone()
        lib.reduce(comm, t, 0, ReduceOp.AVG)
        out["reduce"] = bits(t) if w.rank == 0 else None
        return out

    return world(3, rank_main)


@case(W, points=2, tasks=("7.2", "7.3"))
def task_7_3_a_transposed_tensor_and_premul_sum(lib: Any) -> Any:
    """``all_reduce`` of a transposed (non-contiguous) tensor writes the sums in place, in its
    own layout, and ``broadcast`` into one (a world of 3) fills it in its own layout too;
    ``ReduceOp.PREMUL_SUM`` (NCCL's) raises, as on gloo."""

    def rank_main(w: World) -> Any:
        comm = lib.Comm(w.port)
        t = ints(w.rank, 3, 2).t()
        lib.all_reduce(comm, t, ReduceOp.SUM)
        sent = ints(w.rank, 4, 3, salt=1).t()
        lib.broadcast(comm, sent, 0)
        premul = dist._make_nccl_premul_sum(2.0)
        refused = error_of(lambda: lib.all_reduce(comm, ints(w.rank, 2), premul))
        return {
            "transposed": plain(t),
            "strides": list(t.stride()),
            "broadcast into a transposed tensor": plain(sent),
            "PREMUL_SUM": refused,
        }

    return world(3, rank_main)


@case(W, points=2, tasks=("7.2", "7.3"))
def task_7_3_one_rank_and_the_inputs(lib: Any) -> Any:
    """A world of one: every collective leaves the tensor as it is and sends nothing.
    ``reduce_scatter`` leaves its input blocks unchanged on every rank."""

    def keeps_inputs(w: World) -> Any:
        comm = lib.Comm(w.port)
        blocks = [ints(w.rank, 3, salt=i) for i in range(w.world_size)]
        out = torch.zeros(3)
        lib.reduce_scatter(comm, out, blocks, ReduceOp.SUM)
        return all(torch.equal(b, ints(w.rank, 3, salt=i)) for i, b in enumerate(blocks))

    return {
        "all_reduce": _collective(lib, 1, "all_reduce", (3,), ReduceOp.SUM),
        "broadcast": _collective(lib, 1, "broadcast", (3,)),
        "all_gather": _collective(lib, 1, "all_gather", (3,)),
        "inputs unchanged": world(3, keeps_inputs),
    }


@case(W, points=2, tasks=("7.2", "7.3"))
def task_7_3_barrier(lib: Any) -> Any:
    """``barrier`` in a world of 4, twice: no rank leaves a barrier before every rank has
    arrived at it."""
    lock, events = threading.Lock(), []

    def rank_main(w: World) -> Any:
        comm = lib.Comm(w.port)
        for round_ in (1, 2):
            with lock:
                events.append(("arrive", round_))
            lib.barrier(comm)
            with lock:
                events.append(("leave", round_))
        return None

    def run() -> Any:
        run_world(4, rank_main)
        order = []
        for round_ in (1, 2):
            arrived = [i for i, e in enumerate(events) if e == ("arrive", round_)]
            left = [i for i, e in enumerate(events) if e == ("leave", round_)]
            order.append({"everyone arrived before anyone left": max(arrived) < min(left)})
        return order

    return guard(run)


@case(W, points=2, tasks=("7.2", "7.3"))
def task_7_3_bitwise_ops(lib: Any) -> Any:
    """BAND, BOR and BXOR on int64 tensors in a world of 3; on a float tensor each raises."""
    out = {
        f"int64 {op.name}": _collective(lib, 3, "all_reduce", (5,), op, dtype=torch.int64)
        for op in (ReduceOp.BAND, ReduceOp.BOR, ReduceOp.BXOR)
    }

    def on_floats(op: Any) -> Any:
        def rank_main(w: World) -> Any:
            try:
                lib.all_reduce(lib.Comm(w.port), ints(w.rank, 2), op)
            except Exception as exc:  # noqa: BLE001 - the error is the observation
                return raised(exc)["type"]
            return "no error"

        return rank_main

    for op in (ReduceOp.BAND, ReduceOp.BOR, ReduceOp.BXOR):
        out[f"float32 {op.name}"] = world(2, on_floats(op))
    return out
