#!/usr/bin/env bash
# Gradescope runs this once when it builds the autograder image (as root). The autograder
# zip holds the instructor's copy of torchlab (with reference_impl and hidden cases), which
# Gradescope unpacks to /autograder/source.
set -euo pipefail
apt-get update -qq && apt-get install -y -qq graphviz bubblewrap g++ ninja-build python3-pip
cd /autograder/source
pip3 install torch==2.13.0 --index-url https://download.pytorch.org/whl/cpu
pip3 install -e .
# torch's answers for every week (hidden cases too) at build time, so grading never asks.
torchlab grade --answers-only
