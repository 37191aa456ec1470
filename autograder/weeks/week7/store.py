"""Task 7.1: the store, against ``dist.HashStore``."""

from __future__ import annotations

import threading
import time
from datetime import timedelta
from typing import Any

from autograder.cases import case
from autograder.observe import guard, raised
from autograder.weeks.week7.common import W, World, run_world


def _steps(store: Any, steps: list[tuple[str, tuple]]) -> list[Any]:
    """Each call's answer (bytes as text), or the error it raised; later calls still run."""
    out = []
    for name, args in steps:
        try:
            answer = getattr(store, name)(*args)
        except Exception as exc:  # noqa: BLE001 - an error is an observation
            out.append(raised(exc))
            continue
        out.append(answer.decode("latin-1") if isinstance(answer, bytes) else answer)
    return out


@case(W, points=2, tasks="7.1")
def task_7_1_set_get_add(lib: Any) -> Any:
    """``set`` takes text or bytes and ``get`` gives bytes; ``add`` keeps a decimal count
    (negative ones too);
    ``check``, ``num_keys`` and ``delete_key`` see what is there; ``add`` on a key that
    holds no number raises."""
    store = lib.LabStore()
    return _steps(
        store,
        [
            ("set", ("k", "v")),
            ("get", ("k",)),
            ("set", ("raw", b"\x00\xff")),
            ("get", ("raw",)),
            ("add", ("c", 5)),
            ("add", ("c", 2)),
            ("get", ("c",)),
            ("add", ("zero", 0)),
            ("add", ("below", -5)),
            ("add", ("below", 2)),
            ("get", ("below",)),
            ("check", (["k", "c"],)),
            ("check", (["k", "nope"],)),
            ("num_keys", ()),
            ("delete_key", ("k",)),
            ("delete_key", ("k",)),
            ("check", (["k"],)),
            ("num_keys", ()),
            ("add", ("raw", 1)),
            ("set", ("c", "overwritten")),
            ("get", ("c",)),
        ],
    )


@case(W, points=2, tasks="7.1")
def task_7_1_compare_set(lib: Any) -> Any:
    """``compare_set`` swaps only where the key holds the expected value, a missing key only
    when the expected value is empty, and answers with what the key holds afterwards."""
    store = lib.LabStore()
    return _steps(
        store,
        [
            ("compare_set", ("k", "", "first")),
            ("compare_set", ("k", "first", "second")),
            ("compare_set", ("k", "first", "third")),
            ("get", ("k",)),
            ("compare_set", ("missing", "something", "x")),
            ("check", (["missing"],)),
            ("compare_set", ("k", "", "x")),
        ],
    )


@case(W, points=2, tasks="7.1")
def task_7_1_wait_and_timeouts(lib: Any) -> Any:
    """``get`` of a missing key and ``wait`` on one give up after the timeout with
    ``DistStoreError`` (a ``RuntimeError``); ``wait`` on keys that exist returns at once."""
    store = lib.LabStore(timeout=timedelta(milliseconds=40))
    store.set("here", "1")
    out = _steps(
        store,
        [
            ("get", ("missing",)),
            ("wait", (["here"],)),
            ("wait", (["here", "missing"], timedelta(milliseconds=20))),
        ],
    )
    store.set_timeout(timedelta(milliseconds=10))
    out += _steps(store, [("wait", (["missing"],))])
    return out


@case(W, points=3, tasks="7.1")
def task_7_1_ranks_meet_through_the_store(lib: Any) -> Any:
    """Three ranks share one store: each counts itself in with ``add``, the last one sets
    ``go``, everyone ``wait``s for it and reads every rank's address. A store that does not
    wake its waiters, or loses an ``add``, shows here."""
    store = lib.LabStore(timeout=timedelta(seconds=3))
    lock = threading.Lock()
    arrivals: list[int] = []

    def rank_main(w: World) -> Any:
        store.set(f"addr/{w.rank}", f"10.0.0.{w.rank}:29500")
        count = store.add("arrived", 1)
        with lock:
            arrivals.append(count)
        if count == w.world_size:
            store.set("go", "yes")
        store.wait(["go"])
        return [store.get(f"addr/{r}").decode() for r in range(w.world_size)]

    def run() -> Any:
        per_rank = run_world(3, rank_main)
        return {"per rank": per_rank, "counts": sorted(arrivals), "keys": store.num_keys()}

    return guard(run)


@case(W, points=2, tasks="7.1")
def task_7_1_set_wakes_whoever_waits(lib: Any) -> Any:
    """A rank waiting for a key wakes when another sets it, not when its own timeout ends:
    rank 1 waits (3 s) for ``k``, then sets ``ack``; rank 0 sets ``k`` and gives rank 1 1.5 s
    to answer. A store that never wakes its waiters lets rank 0 time out."""
    store = lib.LabStore(timeout=timedelta(seconds=3))

    def rank_main(w: World) -> Any:
        try:
            if w.rank == 1:
                store.wait(["k"])
                store.set("ack", "1")
                return "answered"
            time.sleep(0.05)  # rank 1 is waiting by now (if not, it finds the key at once)
            store.set("k", "v")
            store.wait(["ack"], timedelta(seconds=1.5))
            return "saw the answer"
        except Exception as exc:  # noqa: BLE001 - a timeout is the observation
            return raised(exc)["type"]

    return guard(lambda: run_world(2, rank_main))


@case(W, points=3, tasks="7.1")
def task_7_1_the_timeout_each_wait_is_given(lib: Any) -> Any:
    """A wait gives up after the timeout it is given (``wait(keys, timeout)``), else after
    the store's, as last set with ``set_timeout``, to the millisecond: rank 0 gives up on a
    key nobody sets (40 ms) and says so; rank 1 expects that within 1.5 s. Then a 900 ms
    timeout is long enough for a key set 50 ms later. (Short times: a learner's check and a
    class's grading wait through each of them.)"""

    def gives_up(configure: Any) -> Any:
        store = lib.LabStore(timeout=timedelta(seconds=3))

        def rank_main(w: World) -> Any:
            try:
                if w.rank == 0:
                    try:
                        configure(store)
                    except Exception as exc:  # noqa: BLE001 - the timeout we expect
                        store.set("gave up", raised(exc)["type"])
                    return "done"
                deadline = time.monotonic() + 1.5  # check(), not wait(): its own timeout
                while not store.check(["gave up"]):  # is what is being tested
                    if time.monotonic() > deadline:
                        return "rank 0 was still waiting after 1.5 s"
                    time.sleep(0.01)
                return f"rank 0 gave up in time, with {store.get('gave up').decode()}"
            except Exception as exc:  # noqa: BLE001 - a timeout is the observation
                return raised(exc)["type"]

        return guard(lambda: run_world(2, rank_main))

    def late_key(w: World, store: Any) -> Any:
        try:
            if w.rank == 0:
                time.sleep(0.05)
                store.set("late", "here")
                return "set"
            store.set_timeout(timedelta(milliseconds=900))
            store.wait(["late"])
            return store.get("late").decode()
        except Exception as exc:  # noqa: BLE001 - a timeout is the observation
            return raised(exc)["type"]

    late = lib.LabStore(timeout=timedelta(seconds=3))
    return {
        "wait's own timeout": gives_up(lambda st: st.wait(["never"], timedelta(milliseconds=40))),
        "set_timeout": gives_up(
            lambda st: (st.set_timeout(timedelta(milliseconds=40)), st.get("never"))
        ),
        "900 ms": guard(lambda: run_world(2, lambda w: late_key(w, late))),
    }
