"""Shared set-up: one oracle cache for the whole test session (child processes inherit it)."""

import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="session", autouse=True)
def oracle_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("torchlab-cache")
    os.environ["TORCHLAB_CACHE"] = str(path)
    return path
