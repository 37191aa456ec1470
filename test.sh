#!/usr/bin/env bash
# Set-up command 2: install, then the whole test suite (lint, format, tests).
set -euo pipefail
cd "$(dirname "$0")"
scripts/setup.sh --test
ruff check .
ruff format --check .
python -m pytest -n 2 --dist loadgroup
