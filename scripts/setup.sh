#!/usr/bin/env bash
# Installs everything torchlab needs on a fresh Debian machine with Python 3.11.
# Safe to run again: each step is skipped when it is already done.
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v dot >/dev/null 2>&1; then
  echo "== installing graphviz (dot), which torchviz needs"
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq graphviz >/dev/null
fi

PY="${PYTHON:-python3}"
# torch first and pinned: `pip install torch==2.13.0` takes the local CPU wheel, while an
# unpinned torch (asked for by any package) would pull gigabytes of CUDA packages.
if ! "$PY" -c "import torch, sys; sys.exit(torch.__version__.split('+')[0] != '2.13.0')" 2>/dev/null; then
  echo "== installing torch==2.13.0 (CPU)"
  "$PY" -m pip install -q torch==2.13.0
fi
echo "== installing torchlab and its tools"
"$PY" -m pip install -q -e ".[dev]"
