"""Week 5 joined up with week 4c: labdev's tensors live in your C++ caching allocator.

Week 4c's ``cpp_allocator.lend_to_device`` wraps the allocator in a ``c10::DeviceAllocator``
(the interface CUDA's caching allocator implements, c10/core/CachingDeviceAllocator.h), and
week 5's ``privateuse1.use_caching_allocator`` hands it to labdev.cpp, which from then on takes
every block from it. Here:

- ``other_week(week)``: another week's module, where ``mine`` would find it (week 4c's
  ``cpp_allocator`` is built now, or found in the build cache);
- ``mlp_steps(device_lib, steps)``: a small MLP trained on labdev beside the same MLP on the
  CPU, with ``torch.accelerator.memory_stats()`` after every step;
- ``replay_stats(allocator_lib, events)``: the statistics week 4's Python allocator keeps for
  the same malloc and free events (the check that the C++ answered as week 4 would);
- ``steps_table(rows)``: the rows as an HTML table;
- ``compare_with_week4()``: the statistics torch reads from the
  lent allocator beside week 4's for the same events, as an HTML table.
"""

from __future__ import annotations

import html
import importlib.util
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType
from typing import Any

from autograder.notebook.viz import HTML

CAPACITY = 1 << 30  # the chip's memory: 1 GiB of host memory
# Linear(512, 1024)'s weight and its gradient are 2 MiB each: large-pool blocks, carved from a
# 20 MiB segment. Everything else fits the 2 MiB small-pool segments.
SIZES = (64, 512, 1024, 10)
BATCH = 32
SHOWN = (
    "reserved_bytes.all.current",
    "allocated_bytes.all.current",
    "segment.all.current",
    "num_device_alloc",
    "allocation.all.allocated",
)


def load_lab_module(folder: Path | str, name: str) -> ModuleType:
    """``name`` from another week's lab folder (``cpp_allocator`` from week 4c's), imported
    under its own name once: a process keeps the C++ library it has loaded."""
    if name in sys.modules:
        return sys.modules[name]
    path = Path(folder) / f"{name}.py"
    if not path.is_file():
        raise FileNotFoundError(f"cannot find {path}: that week's lab folder holds it")
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        del sys.modules[name]
        raise
    return module


def other_week(week: str) -> ModuleType:
    """``week``'s module where ``mine`` finds it: ``TORCHLAB_IMPL`` names where to look (the
    lab folders unless it says otherwise); a path there names one week's file, so another
    week is looked for in its lab folder."""
    from autograder.labs import resolve_impl
    from autograder.weeks import get_week

    impl = os.environ.get("TORCHLAB_IMPL", "lab")
    if os.sep in impl or impl.endswith(".py"):
        impl = "lab"
    path = resolve_impl(get_week(week), impl)
    return load_lab_module(path.parent, path.stem)


def make_mlp(seed: int = 0) -> Any:
    """The MLP every row is about: 64 -> 512 -> 1024 -> 10 with ReLUs, the same weights for a
    given seed."""
    import torch

    torch.manual_seed(seed)
    layers: list[Any] = []
    for n_in, n_out in zip(SIZES, SIZES[1:], strict=False):
        layers += [torch.nn.Linear(n_in, n_out), torch.nn.ReLU()]
    return torch.nn.Sequential(*layers[:-1])


def mlp_steps(device: str = "labdev", steps: int = 5, seed: int = 0) -> list[dict[str, Any]]:
    """Train ``make_mlp(seed)`` for ``steps`` SGD steps on ``device`` and, with the same data,
    on the CPU. A row per step: the two losses and the ``SHOWN`` entries of
    ``torch.accelerator.memory_stats()`` after the step (every key under "stats")."""
    import torch

    models = {"dev": make_mlp(seed).to(device), "cpu": make_mlp(seed)}
    optims = {k: torch.optim.SGD(m.parameters(), lr=0.05) for k, m in models.items()}
    generator = torch.Generator().manual_seed(seed + 1)
    rows = []
    for step in range(1, steps + 1):
        x = torch.randn(BATCH, SIZES[0], generator=generator)
        y = torch.randn(BATCH, SIZES[-1], generator=generator)
        losses = {}
        for key, model in models.items():
            where = device if key == "dev" else "cpu"
            optims[key].zero_grad()
            loss = torch.nn.functional.mse_loss(model(x.to(where)), y.to(where))
            loss.backward()
            optims[key].step()
            losses[key] = float(loss.detach().to("cpu"))
        stats = dict(torch.accelerator.memory_stats())
        rows.append(
            {"step": step, "loss": losses["dev"], "cpu_loss": losses["cpu"], "stats": stats}
        )
    return rows


def replay_stats(allocator_lib: Any, events: Sequence[Sequence[Any]]) -> dict[str, int]:
    """Week 4's ``memory_stats()`` after ``events`` (("malloc", id, nbytes) / ("free", id))
    on a fresh ``allocator_lib.CachingAllocator`` with a ``CAPACITY`` device."""
    allocator = allocator_lib.CachingAllocator(allocator_lib.Device(CAPACITY))
    live: dict[Any, Any] = {}
    for event in events:
        if event[0] == "malloc":
            live[event[1]] = allocator.malloc(event[2])
        else:
            allocator.free(live.pop(event[1]))
    return dict(allocator.memory_stats())


def _mib(n: int) -> str:
    return f"{n / 2**20:.2f} MiB"


def steps_table(rows: Sequence[dict[str, Any]]) -> HTML:
    """The rows of ``mlp_steps`` as a table: losses, then what the allocator holds."""
    head = ["step", "loss on labdev", "loss on the CPU", "reserved", "allocated", "segments"]
    head += ["driver mallocs", "allocations so far"]
    cells = []
    for row in rows:
        s = row["stats"]
        cells.append(
            [
                str(row["step"]),
                f"{row['loss']:.6f}",
                f"{row['cpu_loss']:.6f}",
                _mib(s.get("reserved_bytes.all.current", 0)),
                _mib(s.get("allocated_bytes.all.current", 0)),
                str(s.get("segment.all.current", 0)),
                str(s.get("num_device_alloc", 0)),
                str(s.get("allocation.all.allocated", 0)),
            ]
        )
    th = "".join(f"<th>{html.escape(h)}</th>" for h in head)
    body = "".join(
        "<tr>" + "".join(f"<td>{html.escape(c)}</td>" for c in row) + "</tr>" for row in cells
    )
    return HTML(f"<table class='torchlab-joined'><tr>{th}</tr>{body}</table>")


def compare_with_week4() -> HTML:
    """``torch.accelerator.memory_stats()`` of the lent allocator beside week 4's Python
    allocator's statistics after the same events: the keys that differ, or a few headline keys
    when none does."""
    import torch

    week4, cpp = other_week("week4"), other_week("week4c")
    live = dict(torch.accelerator.memory_stats())
    replayed = replay_stats(week4, cpp.lent_trace())
    differ = [k for k in sorted(live) if live[k] != replayed.get(k)]
    keys = differ or list(SHOWN) + ["allocated_bytes.all.peak", "inactive_split.all.peak"]
    th = "<tr><th>statistic</th><th>C++, through torch.accelerator</th><th>week 4</th></tr>"
    body = "".join(
        f"<tr><td>{html.escape(k)}</td><td>{live.get(k)}</td><td>{replayed.get(k)}</td></tr>"
        for k in keys
    )
    if differ:
        note = (
            f"{len(differ)} of {len(live)} statistics differ: the first differing key is the clue."
        )
    else:
        note = f"all {len(live)} statistics are equal; a few of them:"
    return HTML(f"<p>{html.escape(note)}</p><table class='torchlab-joined'>{th}{body}</table>")
