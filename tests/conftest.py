"""Shared set-up: one oracle cache for the whole test session (child processes inherit it), and
a label on everything this test process starts, so the suite can run in parallel (pytest -n)."""

import os
import uuid
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent


# No warm check server lingers after the suite (its fork servers would count as a hostile
# test's leftovers): tests/test_check_server.py starts its own, in a folder of its own.
os.environ["TORCHLAB_NO_SERVER"] = "1"

# Every worker and sandbox this process starts carries this label in its environment
# (autograder/workers.py passes it through): the hostile tests count only their own leftovers,
# not the processes of tests running beside them in another pytest-xdist worker.
os.environ["TORCHLAB_RUN"] = f"pytest-{os.getpid()}-{uuid.uuid4().hex[:8]}"


@pytest.fixture(scope="session", autouse=True)
def oracle_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    base = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        base = base.parent  # one cache for all workers: C++ builds and torch's answers once
    path = base / "torchlab-cache"
    path.mkdir(exist_ok=True)  # writes into it are atomic (os.replace), so workers may share
    os.environ["TORCHLAB_CACHE"] = str(path)
    return path


# Modules whose fixtures build something big once (a graded class, a built library, a student
# copy): under pytest-xdist (README: pytest -n 2 --dist loadgroup) each stays in one worker, so
# the fixture is built once; every other test goes wherever a worker is free.
GROUPED_MODULES = {
    "test_browser",
    "test_cpp_allocator",
    "test_grading",
    "test_hostile",
    "test_hostile_native",
    "test_images",
    "test_isolation",
    "test_joined",
    "test_notebook",
    "test_pinned_truth",
    "test_release",
    "test_sample_class",
}


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        module = item.module.__name__.rsplit(".", 1)[-1] if item.module else ""
        if module in GROUPED_MODULES:
            item.add_marker(pytest.mark.xdist_group(module))
