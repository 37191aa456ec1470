"""Record the storage allocation/free sequence of small torch training programs (week 4 truth).

Runs two tiny programs on CPU with a fixed seed (an MLP and a CNN: forward, backward and an
``SGD(momentum=0.9)`` step, three iterations each) and writes, for each, the ordered sequence of
storage allocations and frees that a device allocator would be asked for:

    autograder/weeks/week4/data/traces/<program>.json
    {"program", "torch", "recorded_by", "events": [["malloc", id, bytes], ["free", id], ...],
     "summary": {...}}

How allocations are detected
    A ``TorchDispatchMode`` is active for the whole program (model construction included). After
    every op it looks at each tensor output's untyped storage; a storage not seen before (keyed by
    its StorageImpl pointer, ``UntypedStorage._cdata``) is a new allocation of
    ``storage.nbytes()`` bytes. Outputs that alias an input (views, in-place ops, ``detach``) share
    a live storage and are therefore not counted twice. Autograd's backward ops and the
    optimizer's ops run through the dispatcher on the calling thread, so they are captured too.

How frees are detected
    ``weakref.finalize`` on the storage's Python object. Since torch 2.x the Python storage object
    is preserved as long as the C++ StorageImpl is alive (PyObject preservation), so the finalizer
    fires exactly when the last reference to the StorageImpl (from any tensor or view, from Python
    or C++) goes away. Verified: a finalizer registered on ``t.untyped_storage()`` does not fire
    while a view of ``t`` is alive and fires when the view dies. At the end the program drops
    its model, optimizer and data and runs ``gc.collect()``, so every storage is freed in the
    trace; ``summary.live_at_end`` reports any that were not.

Limitations
    * Only storages produced as op *outputs* are seen. Scratch buffers that a kernel allocates
      and frees internally without returning them (e.g. CPU conv/matmul temporaries, or what
      cuDNN/cuBLAS workspaces would be on a GPU) are invisible. CPU kernels can also differ from
      CUDA kernels in what they allocate, so the trace is the allocation pattern of the CPU
      program, used as a realistic request stream, not a claim about a CUDA run.
    * Zero-byte storages are skipped (the CUDA caching allocator returns no block for them).
    * Python scalars promoted to 0-dim CPU tensors are op inputs, not outputs, so they are not
      recorded (on a GPU they are not device allocations either).
    * Determinism relies on CPython reference counting (no GC cycles are created by these
      programs) and single-threaded intra-op execution (``torch.set_num_threads(1)``).
"""

from __future__ import annotations

import argparse
import gc
import json
import weakref
from collections.abc import Callable
from pathlib import Path
from typing import Any

import torch
from torch import nn
from torch.utils._python_dispatch import TorchDispatchMode
from torch.utils._pytree import tree_flatten

ROOT = Path(__file__).resolve().parents[1]
OUT_DIR = ROOT / "autograder" / "weeks" / "week4" / "data" / "traces"  # inputs: not answers
SEED = 0
ITERATIONS = 3


class AllocRecorder(TorchDispatchMode):
    """Dispatch mode that logs first sightings of output storages and their deaths."""

    def __init__(self) -> None:
        super().__init__()
        self.events: list[list[Any]] = []
        self.live: dict[int, tuple[int, int]] = {}  # storage _cdata -> (id, bytes)
        self.next_id = 0
        self.skipped_zero_byte = 0

    def _on_free(self, key: int) -> None:
        entry = self.live.pop(key, None)
        if entry is not None:
            self.events.append(["free", entry[0]])

    def _track(self, t: torch.Tensor) -> None:
        if t.layout != torch.strided or t.is_meta:
            return
        storage = t.untyped_storage()
        key = storage._cdata
        if key in self.live:
            return
        nbytes = storage.nbytes()
        if nbytes == 0:
            self.skipped_zero_byte += 1
            return
        ident = self.next_id
        self.next_id += 1
        self.live[key] = (ident, nbytes)
        self.events.append(["malloc", ident, nbytes])
        weakref.finalize(storage, self._on_free, key)

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):  # noqa: ANN001, ANN204
        out = func(*args, **(kwargs or {}))
        flat, _ = tree_flatten(out)
        for item in flat:
            if isinstance(item, torch.Tensor):
                self._track(item)
        return out


def _train(make_model: Callable[[], nn.Module], make_batch: Callable[[], tuple]) -> None:
    model = make_model()
    opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    for _ in range(ITERATIONS):
        x, y = make_batch()
        opt.zero_grad(set_to_none=True)
        loss = nn.functional.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        del x, y, loss
    del model, opt


def program_mlp() -> None:
    """MLP 64-128-10 on a batch of 32, SGD with momentum."""

    def make_model() -> nn.Module:
        return nn.Sequential(nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, 10))

    def make_batch() -> tuple[torch.Tensor, torch.Tensor]:
        return torch.randn(32, 64), torch.randint(0, 10, (32,))

    _train(make_model, make_batch)


def program_cnn() -> None:
    """Conv(3->8,3x3)-ReLU-MaxPool-Conv(8->16,3x3)-ReLU-Linear on 8 images of 3x16x16."""

    def make_model() -> nn.Module:
        return nn.Sequential(
            nn.Conv2d(3, 8, 3, padding=1),
            nn.ReLU(),
            nn.MaxPool2d(2),
            nn.Conv2d(8, 16, 3, padding=1),
            nn.ReLU(),
            nn.Flatten(),
            nn.Linear(16 * 8 * 8, 10),
        )

    def make_batch() -> tuple[torch.Tensor, torch.Tensor]:
        return torch.randn(8, 3, 16, 16), torch.randint(0, 10, (8,))

    _train(make_model, make_batch)


def program_wide_mlp() -> None:
    """MLP 1024-2048-2048-10 on a batch of 256, SGD with momentum: layers of 8 to 16 MiB, so
    the large pool, its 20 MiB segments and their splits come into play."""

    def make_model() -> nn.Module:
        return nn.Sequential(
            nn.Linear(1024, 2048), nn.ReLU(), nn.Linear(2048, 2048), nn.ReLU(), nn.Linear(2048, 10)
        )

    def make_batch() -> tuple[torch.Tensor, torch.Tensor]:
        return torch.randn(256, 1024), torch.randint(0, 10, (256,))

    _train(make_model, make_batch)


PROGRAMS: dict[str, Callable[[], None]] = {
    "mlp_sgd": program_mlp,
    "cnn_sgd": program_cnn,
    "wide_mlp_sgd": program_wide_mlp,
}


def summarize(events: list[list[Any]], live_at_end: int, skipped: int) -> dict[str, Any]:
    """Counts, byte totals and peak live bytes of an event list."""
    sizes: dict[int, int] = {}
    live = peak = total = 0
    n_free = 0
    for ev in events:
        if ev[0] == "malloc":
            sizes[ev[1]] = ev[2]
            live += ev[2]
            total += ev[2]
            peak = max(peak, live)
        else:
            live -= sizes[ev[1]]
            n_free += 1
    return {
        "n_malloc": len(sizes),
        "n_free": n_free,
        "total_requested_bytes": total,
        "peak_live_bytes": peak,
        "live_bytes_at_end": live,
        "live_storages_at_end": live_at_end,
        "max_request_bytes": max(sizes.values(), default=0),
        "min_request_bytes": min(sizes.values(), default=0),
        "distinct_sizes": len(set(sizes.values())),
        "skipped_zero_byte_storages": skipped,
    }


def record(name: str) -> dict[str, Any]:
    """Run one program under the recorder and return the trace document."""
    torch.manual_seed(SEED)
    torch.set_num_threads(1)
    gc.collect()
    rec = AllocRecorder()
    with rec:
        PROGRAMS[name]()
    gc.collect()
    return {
        "program": f"{name}: {PROGRAMS[name].__doc__}",
        "torch": torch.__version__.split("+")[0],
        "recorded_by": "scripts/record_alloc_traces.py",
        "seed": SEED,
        "iterations": ITERATIONS,
        "events": rec.events,
        "summary": summarize(rec.events, len(rec.live), rec.skipped_zero_byte),
    }


def main(argv: list[str] | None = None) -> int:
    """Record every program (or those named) into OUT_DIR."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("programs", nargs="*", default=sorted(PROGRAMS))
    parser.add_argument("--out", type=Path, default=OUT_DIR)
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    for name in args.programs:
        doc = record(name)
        path = args.out / f"{name}.json"
        path.write_text(json.dumps(doc, separators=(",", ":")) + "\n")
        s = doc["summary"]
        print(
            f"{path}: {s['n_malloc']} mallocs, {s['n_free']} frees, peak {s['peak_live_bytes']} B"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
