"""Record real training programs on a GPU, for week 4's truth (needs CUDA).

Each program runs in a fresh process (so the caching allocator starts empty) under
``torch.cuda.memory._record_memory_history``, and ``autograder/truth/week4_data/cuda/
model_<name>.json`` gets:

- ``events``: ``_snapshot()["device_traces"]`` of the device, as ``[action, addr, size,
  stream]`` (alloc, free_requested, free_completed, segment_alloc, segment_free): every block
  the allocator served and every segment it asked the driver for, with the addresses they got;
- ``stats``: ``torch.cuda.memory_stats()`` after the program, ``baseline`` before it;
- ``segments``: the final ``_snapshot()["segments"]`` (each segment's address, size, type and
  its blocks as ``[size, state]``).

Week 4 replays ``events`` on the learner's allocator over ``Device(capacity, addresses=...)``
(``autograder/weeks/week4/gpu.py``): a correct policy puts every block at the GPU's address.
The programs (seed 0, three optimizer steps each):

- ``transformer_adamw``: an embedding of 1000 tokens, ``nn.TransformerEncoder`` (3 layers,
  d=256, 4 heads, feed-forward 1024, batch_first), a 1000-way head; batch 16 x 128; AdamW;
- ``resnet18_sgd``: torchvision's resnet18 with 10 classes (this file's copy of its layout
  where torchvision is not installed); 32 images of 3x64x64; SGD with momentum 0.9;
- ``mlp_big_adam_varying_batch``: Linear 4096-8192-8192-10 with GELU; Adam; batches of 64,
  512 and 256.

Run ``python scripts/record_cuda_programs.py`` (``--only NAME``, ``--out DIR``). Without CUDA it
says so and exits 0. After recording, ``python -m autograder.weeks.week4.checks`` derives the
cases' inputs and ``python -m autograder.pinning week4`` checks the pinned answers against them.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import torch
from torch import nn

ROOT = Path(__file__).resolve().parents[1]
OUT_DIR = ROOT / "autograder" / "truth" / "week4_data" / "cuda"


def transformer_adamw() -> None:
    layer = nn.TransformerEncoderLayer(256, 4, dim_feedforward=1024, batch_first=True)
    model = nn.Sequential(
        nn.Embedding(1000, 256), nn.TransformerEncoder(layer, 3), nn.Linear(256, 1000)
    ).cuda()
    opt = torch.optim.AdamW(model.parameters())
    for _ in range(3):
        tokens = torch.randint(0, 1000, (16, 128), device="cuda")
        loss = nn.functional.cross_entropy(model(tokens).flatten(0, 1), tokens.flatten())
        opt.zero_grad()
        loss.backward()
        opt.step()


class _Basic(nn.Module):
    """torchvision's BasicBlock: two 3x3 convolutions and a shortcut."""

    def __init__(self, cin: int, cout: int, stride: int) -> None:
        super().__init__()
        self.conv1 = nn.Conv2d(cin, cout, 3, stride, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(cout)
        self.relu = nn.ReLU(inplace=True)
        self.conv2 = nn.Conv2d(cout, cout, 3, 1, 1, bias=False)
        self.bn2 = nn.BatchNorm2d(cout)
        self.downsample = None
        if stride != 1 or cin != cout:
            self.downsample = nn.Sequential(
                nn.Conv2d(cin, cout, 1, stride, bias=False), nn.BatchNorm2d(cout)
            )

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        out = self.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        return self.relu(out + (x if self.downsample is None else self.downsample(x)))


def _resnet18(num_classes: int) -> nn.Module:
    """torchvision.models.resnet18's layout, for machines without torchvision."""
    layers: list[nn.Module] = [
        nn.Conv2d(3, 64, 7, 2, 3, bias=False),
        nn.BatchNorm2d(64),
        nn.ReLU(inplace=True),
        nn.MaxPool2d(3, 2, 1),
    ]
    cin = 64
    for cout, stride in ((64, 1), (128, 2), (256, 2), (512, 2)):
        layers.append(nn.Sequential(_Basic(cin, cout, stride), _Basic(cout, cout, 1)))
        cin = cout
    layers += [nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(512, num_classes)]
    return nn.Sequential(*layers)


def resnet18_sgd() -> None:
    try:
        from torchvision.models import resnet18

        model = resnet18(num_classes=10).cuda()
    except ImportError:
        model = _resnet18(10).cuda()
    opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    for _ in range(3):
        x = torch.randn(32, 3, 64, 64, device="cuda")
        y = torch.randint(0, 10, (32,), device="cuda")
        loss = nn.functional.cross_entropy(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()


def mlp_big_adam_varying_batch() -> None:
    model = nn.Sequential(
        nn.Linear(4096, 8192), nn.GELU(), nn.Linear(8192, 8192), nn.GELU(), nn.Linear(8192, 10)
    ).cuda()
    opt = torch.optim.Adam(model.parameters())
    for batch in (64, 512, 256):
        x = torch.randn(batch, 4096, device="cuda")
        y = torch.randint(0, 10, (batch,), device="cuda")
        loss = nn.functional.cross_entropy(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()


PROGRAMS = {f.__name__: f for f in (transformer_adamw, resnet18_sgd, mlp_big_adam_varying_batch)}


def record(name: str) -> dict[str, Any]:
    """Run one program here (a fresh process) and return its recording."""
    torch.manual_seed(0)
    torch.cuda.init()
    baseline = torch.cuda.memory_stats()
    torch.cuda.memory._record_memory_history(context=None, max_entries=1_000_000)
    PROGRAMS[name]()
    torch.cuda.synchronize()
    snap = torch.cuda.memory._snapshot()
    torch.cuda.memory._record_memory_history(enabled=None)
    device = torch.cuda.current_device()
    return {
        "name": name,
        "gpu": torch.cuda.get_device_name(device),
        "torch": torch.__version__,
        "recorded_with": "scripts/record_cuda_programs.py: torch.cuda.memory."
        "_record_memory_history; events from _snapshot()['device_traces'] as [action, addr, "
        "size, stream]; stats = torch.cuda.memory_stats() at the end; baseline = "
        "memory_stats() before the program (fresh process)",
        "baseline": {k: int(v) for k, v in baseline.items()},
        "events": [
            [e["action"], e["addr"], e["size"], e["stream"]] for e in snap["device_traces"][device]
        ],
        "stats": {k: int(v) for k, v in torch.cuda.memory_stats().items()},
        "segments": [
            {
                "address": s["address"],
                "total_size": s["total_size"],
                "segment_type": s["segment_type"],
                "blocks": [[b["size"], b["state"]] for b in s["blocks"]],
            }
            for s in snap["segments"]
            if s["device"] == device
        ],
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", action="append", choices=sorted(PROGRAMS))
    parser.add_argument("--out", type=Path, default=OUT_DIR)
    parser.add_argument("--child", choices=sorted(PROGRAMS), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if not torch.cuda.is_available():
        print("record_cuda_programs: CUDA is not available on this machine; nothing recorded.")
        return 0
    if args.child:  # one program, in this fresh process
        out = args.out / f"model_{args.child}.json"
        out.write_text(json.dumps(record(args.child), separators=(",", ":")) + "\n")
        return 0
    args.out.mkdir(parents=True, exist_ok=True)
    for name in args.only or PROGRAMS:
        cmd = [sys.executable, __file__, "--child", name, "--out", str(args.out)]
        done = subprocess.run(cmd, check=False)
        path = args.out / f"model_{name}.json"
        events = json.loads(path.read_text())["events"] if done.returncode == 0 else []
        print(
            f"model_{name}: "
            + (f"{len(events)} events" if events else f"failed (exit {done.returncode})")
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
