"""Worlds of ranks as threads, and the interconnect between them (the course's, trusted).

Week 7's programs run on W ranks. A real world is W processes; the sandbox allows no new
process (``os.fork`` is refused by its seccomp filter) and, once the guard is in, no new
thread. So the worker starts a fixed pool of rank threads *before* the guard
(``start_pool``, named by ``Week.before_guard``), and every case runs its world on them: rank
``r`` runs on pool thread ``r`` with its ``Port`` on the thread (``thread.port``: the
learner's ``current_port()`` reads it) and the world's store on ``thread.store``. The oracle
runs the same cases on the same kind of pool in the grader's process, with gloo.

``torch.distributed`` keeps one default group per process; ranks as threads need one per
thread: ``_set_thread_isolation_mode(True)`` and a thread-local world, as torch's own
``MultiThreadedTestCase`` does (``torch/testing/_internal/common_distributed.py``).
"""

from __future__ import annotations

import contextlib
import ctypes
import queue
import threading
import time
from collections.abc import Callable
from typing import Any

import torch

POOL_SIZE = 4  # the largest world a case uses
RECV_SECONDS = 2.0  # a message that has not come by then never will: the case's limit is 5 s
_UNSET = object()


class LinkAborted(RuntimeError):
    """Another rank of the world failed: this one stops waiting for it."""


class Link:
    """The chip's interconnect for one world: a FIFO queue of messages per (sender,
    receiver), and counters of what each rank sent (messages and elements)."""

    def __init__(self, world_size: int) -> None:
        self.world_size = world_size
        self._queues = {(s, d): [] for s in range(world_size) for d in range(world_size) if s != d}
        self._cond = threading.Condition()
        self.messages = [0] * world_size
        self.elements = [0] * world_size
        self.aborted: str | None = None

    def port(self, rank: int) -> Port:
        return Port(self, rank)

    def abort(self, reason: str) -> None:
        with self._cond:
            if self.aborted is None:
                self.aborted = reason
            self._cond.notify_all()


class Port:
    """One rank's end of the interconnect (what ``current_port()`` gives the learner).

    ``send(dst, tensor)``: put ``tensor`` on the wire to ``dst`` (the port keeps a copy: the
    sender may change its tensor afterwards); never blocks. ``recv(src)``: the next tensor
    ``src`` sent to this rank, waiting for it (a ``TimeoutError`` after a few seconds: a
    message that late means the ranks disagree on who sends what). ``poll(src)``: whether a
    message from ``src`` is waiting. Messages from one rank to another arrive in order.
    """

    def __init__(self, link: Link, rank: int) -> None:
        self._link = link
        self.rank = rank
        self.world_size = link.world_size

    def _check_peer(self, peer: int, role: str) -> None:
        if not isinstance(peer, int) or not 0 <= peer < self.world_size or peer == self.rank:
            raise ValueError(
                f"rank {self.rank} cannot {role} rank {peer!r}: the world has ranks "
                f"0 to {self.world_size - 1}, and a rank does not message itself"
            )

    def send(self, dst: int, tensor: torch.Tensor) -> None:
        self._check_peer(dst, "send to")
        if not isinstance(tensor, torch.Tensor):
            raise TypeError(f"port.send takes a tensor, not {type(tensor).__name__}")
        message = tensor.detach().clone()
        link = self._link
        with link._cond:
            link._queues[(self.rank, dst)].append(message)
            link.messages[self.rank] += 1
            link.elements[self.rank] += message.numel()
            link._cond.notify_all()

    def poll(self, src: int) -> bool:
        self._check_peer(src, "receive from")
        with self._link._cond:
            return bool(self._link._queues[(src, self.rank)])

    def recv(self, src: int) -> torch.Tensor:
        self._check_peer(src, "receive from")
        link = self._link
        deadline = time.monotonic() + RECV_SECONDS
        with link._cond:
            box = link._queues[(src, self.rank)]
            while not box:
                if link.aborted is not None:
                    raise LinkAborted(link.aborted)
                left = deadline - time.monotonic()
                if left <= 0:
                    raise TimeoutError(
                        f"rank {self.rank} waited {RECV_SECONDS:g} s for a message from rank "
                        f"{src} that never came: do both ranks agree on who sends what, "
                        "and in which order?"
                    )
                link._cond.wait(min(left, 0.5))
            return box.pop(0)


class _RankThread(threading.Thread):
    def __init__(self, index: int) -> None:
        super().__init__(name=f"rank-{index}", daemon=True)
        self.jobs: queue.Queue = queue.Queue()
        self.port: Port | None = None
        self.store: Any = None
        self.busy = False

    def run(self) -> None:
        while True:
            job, done = self.jobs.get()
            self.busy = True
            try:
                done(job(), None)
            except BaseException as exc:  # noqa: BLE001 - handed to the case's thread
                done(None, exc)
            finally:
                self.busy = False


_POOL: list[_RankThread] = []
_SET_ASYNC_EXC: Any = None
# How long a world may take: in the worker, under the case's 5 s; in the grader's process
# (torch's side, gloo over TCP, maybe on a loaded machine) as long as it needs.
WORLD_SECONDS = {"worker": 4.5, "oracle": 60.0}
_SIDE = "oracle"


def start_worker_pool() -> None:
    """The worker's set-up before the guard (``Week.before_guard``): its rank threads."""
    global _SIDE
    _SIDE = "worker"
    start_pool()


def start_pool() -> None:
    """Start the rank threads (the worker before the guard; the oracle on first use) and
    make ``torch.distributed`` per-thread. Where the week's warm-up has not run (the oracle's
    process), run it first: the first DDP imports Dynamo lazily, and two rank threads doing
    that at once break the import."""
    global _SET_ASYNC_EXC
    if _POOL:
        return
    from autograder.weeks.week7 import warm_up

    warm_up.warm_up()  # once per process (the fork server's children inherit it)
    _SET_ASYNC_EXC = ctypes.pythonapi.PyThreadState_SetAsyncExc  # resolved before the guard
    _thread_local_world()
    for i in range(POOL_SIZE):
        t = _RankThread(i)
        t.start()
        _POOL.append(t)


def _thread_local_world() -> None:
    """One default process group per thread (``multi_threaded_pg._install_threaded_pg``
    without its threaded backend)."""
    import torch.distributed as dist
    from torch.distributed import distributed_c10d as c10d

    torch._C._distributed_c10d._set_thread_isolation_mode(True)
    if type(c10d._world).__name__ == "ThreadLocalWorld":
        return
    from torch.testing._internal.distributed.multi_threaded_pg import ThreadLocalWorld

    c10d._world = ThreadLocalWorld()
    assert dist.is_available()


def _stop(thread: _RankThread) -> None:
    """Interrupt a rank thread that did not finish (a loop that never ends)."""
    if _SET_ASYNC_EXC is not None and thread.ident is not None:
        _SET_ASYNC_EXC(ctypes.c_ulong(thread.ident), ctypes.py_object(LinkAborted))


class World:
    """What a case's rank function gets: ``rank``, ``world_size``, the world's ``store``
    (a ``dist.HashStore`` on both sides), this rank's ``port`` and the ``link`` (its
    counters)."""

    def __init__(self, rank: int, world_size: int, store: Any, link: Link) -> None:
        self.rank, self.world_size, self.store, self.link = rank, world_size, store, link
        self.port = threading.current_thread().port  # type: ignore[attr-defined]


# gloo's TCP rendezvous between threads fails now and then (about 1 world in 300 here:
# "Gloo connectFullMesh failed ... Connection closed by peer"). Only torch's side runs gloo
# (the learner's library has its own interconnect): such a world is run again, never taken
# as torch's answer.
GLOO_TRANSIENT = "Gloo connectFullMesh failed"
GLOO_RETRIES = 3


def run_world(
    world_size: int, fn: Callable[[World], Any], seconds: float | None = None
) -> list[Any]:
    """Run ``fn(World)`` on ranks ``0 .. world_size - 1`` at once; their results in rank
    order. A rank that raises ends the world: the others stop waiting on the interconnect, and
    the first rank's own error (not a ``LinkAborted``) is raised here, unchanged."""
    seconds = WORLD_SECONDS[_SIDE] if seconds is None else seconds
    try:
        for attempt in range(GLOO_RETRIES):
            try:
                return _run_world_once(world_size, fn, seconds)
            except RuntimeError as exc:
                if GLOO_TRANSIENT not in str(exc) or attempt == GLOO_RETRIES - 1:
                    raise
        raise AssertionError("unreachable")
    finally:
        # DDP marks its forward in a class attribute, saved and restored around it: ranks as
        # threads interleave, and the last to leave restores a finished world's module, which
        # every later torch.compile in this process would take for an active DDP forward
        # (Dynamo's DDPOptimizer: week 6's examples failed after week 7's in one process).
        torch.nn.parallel.DistributedDataParallel._active_ddp_module = None


def _run_world_once(world_size: int, fn: Callable[[World], Any], seconds: float) -> list[Any]:
    import torch.distributed as dist

    start_pool()
    if not 1 <= world_size <= POOL_SIZE:
        raise ValueError(f"a world has 1 to {POOL_SIZE} ranks, not {world_size}")
    threads = _POOL[:world_size]
    free_by = time.monotonic() + seconds  # a rank of the last world may still be unwinding
    while any(t.busy for t in threads) and time.monotonic() < free_by:
        time.sleep(0.01)
    if any(t.busy for t in threads):
        raise RuntimeError("a rank of an earlier case is still running: this case cannot start")
    link, store = Link(world_size), dist.HashStore()
    results: list[Any] = [_UNSET] * world_size
    errors: dict[int, BaseException] = {}
    finished = threading.Semaphore(0)

    def job(rank: int) -> Callable[[], Any]:
        def run() -> Any:
            try:
                return fn(World(rank, world_size, store, link))
            finally:
                with contextlib.suppress(Exception):
                    if dist.is_initialized():
                        dist.destroy_process_group()
                # An init that failed in the backend's creator (an unfinished create_labccl)
                # counted a group that destroy never uncounts: the next world on this pool
                # thread would name its group "1" where the others say "0", and gloo would
                # wait forever under the wrong prefix (found by the materials helper).
                with contextlib.suppress(Exception):
                    from torch.distributed import distributed_c10d as c10d

                    c10d._world.group_count = 0

        return run

    def done_for(rank: int) -> Callable[[Any, BaseException | None], None]:
        def done(result: Any, exc: BaseException | None) -> None:
            if exc is not None:
                errors[rank] = exc
                link.abort(f"rank {rank} failed: {type(exc).__name__}: {exc}"[:300])
            else:
                results[rank] = result
            finished.release()

        return done

    for rank, t in enumerate(threads):
        t.port, t.store = link.port(rank), store
        t.jobs.put((job(rank), done_for(rank)))
    deadline = time.monotonic() + seconds
    count = 0
    try:
        while count < world_size:
            if not finished.acquire(timeout=max(0.0, min(0.2, deadline - time.monotonic()))):
                if time.monotonic() >= deadline:
                    break
                continue
            count += 1
    finally:
        if count < world_size:  # a timeout here or the case's own alarm
            link.abort("the world ran out of time")
            for t in threads:
                if t.busy:
                    _stop(t)
    if count < world_size:
        raise TimeoutError(
            f"the world of {world_size} ranks did not finish in {seconds:g} s: "
            "is a rank waiting for a message nobody sends, or looping?"
        )
    if errors:
        first = [errors[r] for r in sorted(errors) if not isinstance(errors[r], LinkAborted)]
        raise (first or [errors[min(errors)]])[0]
    return results
