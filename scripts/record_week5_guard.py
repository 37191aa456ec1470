"""Record what CUDA's device guard does with a device index that does not exist, for week 5's
truth (needs a machine with exactly one GPU).

Torch's own Python backend for PrivateUse1 (the truth of week 5's other guard programs) cannot
show a refusal: its guard accepts every index (torch/csrc/acc/Module.cpp,
PythonDeviceGuard::setDevice does nothing). CUDA's guard asks the driver (c10/cuda/impl/
CUDAGuardImpl.h: setDevice and exchangeDevice call cudaSetDevice), so on a one-GPU machine it
shows what a one-device backend does. This runs the case's own program,
``autograder.weeks.week5.device._missing_device``, with the device "cuda" and prints the
observations with the machine they came from, as JSON; ``autograder/truth/week5.py`` keeps
them in ``RECORDED_ON_CUDA`` under the program's name.

Run: ``python scripts/record_week5_guard.py`` (without CUDA it says so and exits 0).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def main() -> int:
    import torch

    if not torch.cuda.is_available():
        print("no CUDA here: nothing recorded")
        return 0
    if torch.cuda.device_count() != 1:
        print(f"{torch.cuda.device_count()} GPUs here: the recording needs exactly one")
        return 1
    from autograder.weeks.week5.device import _missing_device

    recorded = {
        "recorded_with": f"torch {torch.__version__}, {torch.cuda.get_device_name(0)}, one GPU",
        "_missing_device": _missing_device("cuda"),
    }
    print(json.dumps(recorded, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
