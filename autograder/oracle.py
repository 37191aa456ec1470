"""The oracle: every case run with real torch, its observations cached on disk.

Torch's answers are computed here, in the grader's own process, never in the process that
runs submitted code. The cache is keyed by the torch and hypothesis versions and by the
source of the case modules, so editing a case or upgrading torch recomputes it.

A week whose truth module sets ``ORACLE_APART = True`` is answered in a child process
(``python -m autograder.oracle WEEK CASE...``) that writes the same cache: week 7's answers
start rank threads and gloo's own threads, and a grader process that keeps such threads must
not fork the sandbox with Python code to run before exec (a root grader's ``preexec_fn``):
a forked copy of a process whose other threads hold C locks can crash (it did: the fork
server "did not start", SIGSEGV, whenever week 7's answers had just been computed).
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib
import importlib.metadata
import importlib.util
import io
import json
import os
import subprocess
import sys
import threading
import warnings
from pathlib import Path
from typing import Any

from autograder import pinning
from autograder.cases import Case, draw_examples, run_case, week_files
from autograder.weeks import Week

AUTOGRADER_DIR = Path(__file__).resolve().parent
# Changing how observations are made or examples drawn changes every answer.
_CORE_SOURCES = ["cases.py", "observe.py", "oracle.py"]


class TorchLib:
    """``torch`` as a case sees it, plus the week's ``TORCH_EXTRAS``.

    Extras are the trusted torch constructions of things torch has no single function
    for (week 1's row-aligned layout, for example).
    """

    def __init__(self, torch: Any, extras: dict[str, Any]) -> None:
        self._torch, self._extras = torch, extras

    def __getattr__(self, name: str) -> Any:
        if name in self._extras:
            fn = self._extras[name]
            return lambda *a, **k: fn(self._torch, *a, **k)
        return getattr(self._torch, name)


def cache_dir() -> Path:
    """Where oracle observations live: $TORCHLAB_CACHE, else ~/.cache/torchlab."""
    root = os.environ.get("TORCHLAB_CACHE") or Path.home() / ".cache" / "torchlab"
    return Path(root) / "oracle"


def _version(dist: str) -> str:
    try:
        return importlib.metadata.version(dist)
    except importlib.metadata.PackageNotFoundError:
        return "absent"


def cache_key(week: str) -> str:
    """A digest of everything torch's answers for ``week`` depend on."""
    h = hashlib.sha256()
    h.update(f"torch={_version('torch')} hypothesis={_version('hypothesis')}".encode())
    for name in _CORE_SOURCES:
        h.update((AUTOGRADER_DIR / name).read_bytes())
    pinned = pinning.pinned_path(week)
    if pinned.exists():  # a pinned week's answers are this file
        h.update(pinned.read_bytes())
    # the week's cases, hidden cases, truth and generator, and those of every week they import
    # (week 7c's cases are week 7's: a change there must change week 7c's answers too)
    for path in week_files(week):
        h.update(path.name.encode() + path.read_bytes())
    return h.hexdigest()[:20]


def truth_module(week: str) -> str | None:
    """The module holding ``week``'s TORCH_EXTRAS (``autograder/truth/``), if it has one."""
    name = f"autograder.truth.{week}"
    return name if importlib.util.find_spec(name) is not None else None


def torch_lib(week: str) -> TorchLib:
    import torch

    name = truth_module(week)
    extras = getattr(importlib.import_module(name), "TORCH_EXTRAS", {}) if name else {}
    return TorchLib(torch, extras)


def expected_observations(week: Week, cases: list[Case]) -> dict[str, dict[str, Any]]:
    """``{case id: {"examples": [...], "expected": observation}}``, from cache when possible.

    Torch is imported only on a cache miss, so a warm check never pays for it. A week whose
    truth is pinned (``Week.truth``) reads it from its pinned file instead.
    """
    name = week.name
    if week.truth == "pinned":
        pinned = pinning.load(name)
        missing = [c.name for c in cases if c.id not in pinned]
        if missing:
            raise RuntimeError(
                f"no pinned answer for {', '.join(missing[:3])}: the instructor re-pins with "
                f"`python -m autograder.pinning {name}`"
            )
        return {c.id: pinned[c.id] for c in cases}
    path = cache_dir() / f"{name}-{cache_key(name)}.json"
    cached = _read_cache(path)
    if all(c.id in cached for c in cases):
        return {c.id: cached[c.id] for c in cases}
    # One thread answers at a time (the mutation score checks mutants on threads): Dynamo,
    # Inductor and redirect_stdout are not thread-safe (two Inductor compiles at once killed
    # the process with SIGFPE). A thread that waited reads what the other one wrote.
    with _ANSWERING:
        cached = _read_cache(path)
        _answer_missing(name, path, cached, cases)
    return {c.id: cached[c.id] for c in cases}


_ANSWERING = threading.Lock()


def _read_cache(path: Path) -> dict[str, Any]:
    if not path.exists():
        return {}
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError):
        return {}  # a damaged cache is recomputed, never trusted


def _apart(name: str) -> bool:
    """Whether ``name``'s answers are computed in a child process (see the docstring)."""
    module = truth_module(name)
    return bool(module) and bool(getattr(importlib.import_module(module), "ORACLE_APART", False))


_IN_CHILD = False  # set in the child that answers for a week kept apart


def _answer_missing(name: str, path: Path, cached: dict[str, Any], cases: list[Case]) -> None:
    """Ask torch for the cases ``cached`` lacks, and write them to ``path``."""
    missing = [c for c in cases if c.id not in cached]
    if missing and _apart(name) and not _IN_CHILD:
        command = [sys.executable, "-m", "autograder.oracle", name, *[c.name for c in missing]]
        done = subprocess.run(command, capture_output=True, text=True, check=False)
        cached.update(_read_cache(path))
        lacking = [c.name for c in missing if c.id not in cached]
        if done.returncode or lacking:
            raise RuntimeError(
                f"torch's answers for {name} could not be computed ({', '.join(lacking)}): "
                f"{done.stderr.strip()[-800:] or f'exit status {done.returncode}'}"
            )
        return
    if missing:
        if any(c.is_property for c in missing):
            from hypothesis.configuration import set_hypothesis_home_dir

            # hypothesis keeps its own files beside our cache, not in the user's folder
            set_hypothesis_home_dir(str(cache_dir().parent / "hypothesis"))
        lib = torch_lib(name)
        for c in missing:
            examples = draw_examples(c) if c.is_property else None
            # torch's UserWarnings are not answers, and what a case's program prints (week 6
            # compiles functions that print) is not the report's: the terminal stays the CLI's.
            with warnings.catch_warnings(), contextlib.redirect_stdout(io.StringIO()):
                warnings.simplefilter("ignore")
                expected = run_case(c, lib, examples)
            cached[c.id] = json.loads(json.dumps({"examples": examples, "expected": expected}))
        _write_atomically(path, cached)


def _write_atomically(path: Path, data: Any) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(f".{os.getpid()}.tmp")
    tmp.write_text(json.dumps(data))
    os.replace(tmp, path)


def main(argv: list[str]) -> int:
    """``python -m autograder.oracle WEEK CASE...``: answer those cases (hidden ones too) into
    the week's cache, in this process (how a week kept apart is answered)."""
    global _IN_CHILD
    from autograder.cases import load_week
    from autograder.weeks import WEEKS

    _IN_CHILD = True
    week = WEEKS[argv[0]]  # the grader's own call: the name is one of its weeks
    wanted = set(argv[1:])
    cases = [c for c in load_week(week.name, include_hidden=True) if c.name in wanted]
    expected_observations(week, cases)
    return 0


if __name__ == "__main__":  # run as the module itself, not as a second copy named __main__
    from autograder import oracle

    sys.exit(oracle.main(sys.argv[1:]))
