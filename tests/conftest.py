"""Shared set-up: one oracle cache for the whole test session (child processes inherit it)."""

import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent


# No warm check server lingers after the suite (its fork servers would count as a hostile
# test's leftovers): tests/test_check_server.py starts its own, in a folder of its own.
os.environ["TORCHLAB_NO_SERVER"] = "1"


@pytest.fixture(scope="session", autouse=True)
def oracle_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("torchlab-cache")
    os.environ["TORCHLAB_CACHE"] = str(path)
    return path
