#!/usr/bin/env bash
# Installs everything torchlab needs on a fresh Debian machine with Python 3.11.
# Safe to run again: each step is skipped when it is already done.
set -euo pipefail
cd "$(dirname "$0")/.."

# Debian packages: graphviz's `dot` (torchviz draws graphs with it), bubblewrap (`bwrap`, the
# sandbox every grading worker runs in) and g++ (week 5 builds C++; ninja comes from pip, and
# from Debian's ninja-build where apt can install it). Without root and without sudo, ask an
# admin for `apt-get install graphviz bubblewrap g++ ninja-build` (or use the docker/ images);
# checking your own code works without bubblewrap, and `torchlab grade` says what is missing.
# With --test (test.sh): also Debian's Chromium and its driver, for the course's browser test
# (it drives JupyterLab in headless Chromium, and skips where they are not installed).
# Browsers cannot be downloaded from anywhere else here.
NEED=""
if [ "${1:-}" = "--test" ]; then
  command -v chromium >/dev/null 2>&1 || NEED="$NEED chromium"
  command -v chromedriver >/dev/null 2>&1 || NEED="$NEED chromium-driver"
fi
command -v dot >/dev/null 2>&1 || NEED="$NEED graphviz"
command -v bwrap >/dev/null 2>&1 || NEED="$NEED bubblewrap"
command -v g++ >/dev/null 2>&1 || NEED="$NEED g++"
command -v ninja >/dev/null 2>&1 || NEED="$NEED ninja-build"
if [ -n "$NEED" ]; then
  echo "== installing$NEED (apt)"
  SUDO=""
  if [ "$(id -u)" -ne 0 ]; then
    if sudo -n true 2>/dev/null; then SUDO="sudo -n"; else SUDO="none"; fi
  fi
  if [ "$SUDO" = "none" ] || ! command -v apt-get >/dev/null 2>&1; then
    echo "   cannot install$NEED here (no root, no sudo, or no apt): ask an admin for them"
  else
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq $NEED >/dev/null
  fi
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
