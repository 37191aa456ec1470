"""The one runner: every front end (CLI, pytest, notebook, grader) checks a week through here.

It takes torch's observations from the oracle, runs the engine under test in a child process
(``worker.py``) with a time limit per case and a memory limit, and judges each case. Whatever
the engine does (loops, crashes, exits, prints), the runner returns a Report.
"""

from __future__ import annotations

import importlib.util
import json
import os
import resource
import select
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from autograder.cases import Case, load_week, task_key
from autograder.judge import NOT_IMPLEMENTED, judge
from autograder.oracle import cache_dir, expected_observations
from autograder.report import PASS, CaseResult, Report
from autograder.weeks import Week, get_week

REPO_ROOT = Path(__file__).resolve().parent.parent


MAX_PIPE_BYTES = 64 * 2**20  # a line this long is no observation


@dataclass(frozen=True)
class Limits:
    case_seconds: float = 5.0  # per case, enforced inside the worker and again from outside
    import_seconds: float = 10.0  # importing the learner's module
    memory_mb: int = 4096  # address-space limit of the worker
    run_seconds: float = 60.0  # the whole run: after it, cases not yet run are not started
    hide_paths: tuple[str, ...] = ()  # more paths the engine may not read (grading: the class)


def resolve_impl(week: Week, impl: str) -> Path:
    """Which file to test: "lab" (the learner's skeleton), "reference", or a folder/file path.

    A submission folder may hold the lab file itself or a whole copy of the course.
    """
    filename = f"{week.module}.py"
    if impl == "lab":
        return REPO_ROOT / "labs" / week.folder / filename
    if impl == "reference":
        return REPO_ROOT / "reference_impl" / filename
    path = Path(impl).expanduser().resolve()
    if path.is_dir():
        for candidate in (path / filename, path / "labs" / week.folder / filename):
            if candidate.exists():
                return candidate
        return path / filename
    return path


def run_week(
    week: str,
    impl: str = "lab",
    select_cases: list[str] | None = None,
    include_hidden: bool = False,
    limits: Limits | None = None,
) -> Report:
    """Check one week's cases against an engine and return the report.

    ``select_cases`` keeps cases whose name contains one of the strings, or that a task given
    as "1.4" completes (the latest task the case needs).
    """
    limits = limits or Limits()
    w = get_week(week)
    cases = [c for c in load_week(w.name, include_hidden) if _selected(c, select_cases)]
    path = resolve_impl(w, impl)
    report = Report(f"{w.name}: {w.title}", _display(path))
    if impl == "reference" and not path.exists():
        report.problems.append("this copy of the course has no reference engine")
    expected = expected_observations(w.name, cases)
    if not path.exists():
        problem = f"cannot find {_display(path)}: is the file there, with this name?"
        report.problems.append(problem)
        outcomes: dict[str, dict[str, Any]] = {
            c.id: {"status": "error", "message": problem} for c in cases
        }
    else:
        items = [{"id": c.id, "examples": expected[c.id]["examples"]} for c in cases]
        outcomes = run_engine(w, path, items, limits, report.problems)
    for c in cases:
        report.results.append(_result(c, expected[c.id]["expected"], outcomes[c.id]))
    return report


def _selected(c: Case, wanted: list[str] | None) -> bool:
    return not wanted or any(w == c.completed_by or w in c.name for w in wanted)


def _display(path: Path) -> str:
    try:
        return str(path.relative_to(Path.cwd()))
    except ValueError:
        return str(path)


def _result(c: Case, expected: Any, outcome: dict[str, Any]) -> CaseResult:
    base = dict(
        id=c.id, name=c.name, week=c.week, points=c.points, tasks=sorted(c.tasks, key=task_key)
    )
    base.update(hidden=c.hidden, seconds=outcome.get("seconds", 0.0))
    base["output"] = outcome.get("output", "")
    forbidden = [v for v in outcome.get("violations", []) if v.startswith("imported ")]
    if forbidden:  # a lab that forbids torch gives nothing for work torch did
        message = f"scores zero: your code {forbidden[0]}, which this lab forbids"
        return CaseResult(status="fail", message=message, **base)
    if "observation" not in outcome:
        return CaseResult(status=outcome["status"], message=outcome["message"], **base)
    try:
        verdict = judge(expected, outcome["observation"])
    except Exception:  # noqa: BLE001 - a malformed observation is the submission's failure
        message = "the result could not be compared with torch's (not an observation)"
        return CaseResult(status="fail", message=message, **base)
    status = verdict.status if verdict.status in (PASS, NOT_IMPLEMENTED) else "fail"
    return CaseResult(status=status, message=verdict.message, **base)


# ---- the child process --------------------------------------------------------------------


def run_engine(
    week: Week, path: Path, items: list[dict], limits: Limits, problems: list[str]
) -> dict[str, dict[str, Any]]:
    """Run ``items`` in workers; a worker that dies or hangs is replaced for the rest."""
    outcomes: dict[str, dict[str, Any]] = {}
    pending = list(items)
    run_deadline = time.monotonic() + limits.run_seconds
    while pending:
        if time.monotonic() >= run_deadline:  # e.g. every case loops: don't wait for each
            message = (
                f"not run: the whole check took longer than {limits.run_seconds:g} s "
                "(earlier cases ran out of time)"
            )
            for item in pending:
                outcomes[item["id"]] = {"status": "timeout", "message": message}
            break
        before = len(outcomes)
        fresh = _run_worker(week, path, pending, limits, outcomes, run_deadline)
        if fresh is None and len(outcomes) == before:  # died between cases: blame the next
            outcomes[pending[0]["id"]] = {"status": "crash", "message": "the worker died"}
        if fresh is not None:  # the module itself cannot be used: every case fails with it
            problems.append(fresh)
            for item in pending:
                outcomes.setdefault(item["id"], {"status": "error", "message": fresh})
        pending = [i for i in pending if i["id"] not in outcomes]
    return outcomes


def _limit_child(limits: Limits) -> None:
    """Limits the kernel enforces on the worker, whatever the code inside it does."""
    memory = limits.memory_mb * 1024 * 1024
    resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
    cpu = int(limits.run_seconds) + 10  # a backstop: the watchdog normally acts first
    resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 5))
    resource.setrlimit(resource.RLIMIT_FSIZE, (64 * 1024 * 1024,) * 2)  # no disk filling
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    if os.getuid() != 0:  # root ignores NPROC; the guard refuses fork for everyone anyway
        resource.setrlimit(resource.RLIMIT_NPROC, (256, 256))


def _worker_env(workdir: str) -> dict[str, str]:
    """A fresh environment: none of the grader's own variables (tokens, paths) get through."""
    return {
        "PATH": "/usr/local/bin:/usr/bin:/bin",
        "HOME": workdir,
        "LANG": "C.UTF-8",
        "PYTHONPATH": _pythonpath(),
        "PYTHONDONTWRITEBYTECODE": "1",
        "PYTHONHASHSEED": "0",
        "OMP_NUM_THREADS": "1",
    }


def guard_policy(week: Week, engine: Path, workdir: str, deny_read: list[Path]) -> dict[str, Any]:
    """What the worker's guard refuses (see sandbox.py): the answers, and torch itself."""
    deny = [REPO_ROOT / "reference_impl", REPO_ROOT / "autograder" / "hidden", cache_dir()]
    deny += _package_dirs(week.forbid_modules) + list(deny_read)
    engine = engine.resolve()
    # `--impl reference` checks the reference itself: its own folder stays readable.
    deny = [d for d in deny if not engine.is_relative_to(Path(d).resolve())]
    return {
        "lab": f"{week.name} ({week.title})",
        "forbid_modules": list(week.forbid_modules),
        "deny_read": [str(d) for d in deny],
        "write_ok": [workdir],
        "allow_native": week.native,
    }


def _package_dirs(names: tuple[str, ...]) -> list[Path]:
    """Where forbidden packages are installed, found without importing them."""
    out = []
    for name in names:
        try:
            spec = importlib.util.find_spec(name)
        except (ImportError, ValueError):
            continue
        if spec is not None and spec.submodule_search_locations:
            out += [Path(p) for p in spec.submodule_search_locations]
    return out


def _run_worker(
    week: Week,
    path: Path,
    items: list[dict],
    limits: Limits,
    outcomes: dict[str, dict],
    run_deadline: float,
) -> str | None:
    """One worker over ``items``, filling ``outcomes``. Returns a module-level problem."""
    read_fd, write_fd = os.pipe()
    with tempfile.TemporaryDirectory(prefix="torchlab-") as workdir:
        request = {
            "week": week.name,
            "module_path": str(path),
            "module_name": week.module,
            "cases": items,
            "case_seconds": limits.case_seconds,
            "import_seconds": limits.import_seconds,
            "preload": list(week.preload),
            "guard": guard_policy(week, path, workdir, [Path(p) for p in limits.hide_paths]),
        }
        log_path = Path(workdir) / "worker.log"
        with open(log_path, "wb") as log:
            proc = subprocess.Popen(
                [sys.executable, "-m", "autograder.worker", str(write_fd)],
                stdin=subprocess.PIPE,
                stdout=log,
                stderr=log,
                pass_fds=(write_fd,),
                cwd=workdir,
                env=_worker_env(workdir),
                start_new_session=True,  # its own process group: a kill takes its children
                preexec_fn=lambda: _limit_child(limits),
            )
        os.close(write_fd)
        try:
            assert proc.stdin is not None
            proc.stdin.write(json.dumps(request).encode())
            proc.stdin.close()
        except BrokenPipeError:
            pass
        try:
            wanted = {item["id"] for item in items}
            return _supervise(proc, read_fd, limits, outcomes, log_path, path, run_deadline, wanted)
        finally:
            os.close(read_fd)
            _kill(proc)


def _pythonpath() -> str:
    """The worker must import this autograder, wherever the course copy lives."""
    extra = os.environ.get("PYTHONPATH")
    return os.pathsep.join([str(REPO_ROOT)] + ([extra] if extra else []))


def _supervise(
    proc: subprocess.Popen,
    fd: int,
    limits: Limits,
    outcomes: dict,
    log_path: Path,
    path: Path,
    run_deadline: float,
    wanted: set[str],
) -> str | None:
    """Read the worker's events; stop it when a case overruns (the alarm may not fire
    inside C code) or when it dies."""
    current: str | None = None
    imported = False
    deadline = time.monotonic() + limits.import_seconds + 5.0
    buffer = b""
    while True:
        timeout = max(0.0, min(deadline, run_deadline) - time.monotonic())
        ready, _, _ = select.select([fd], [], [], timeout)
        if len(buffer) > MAX_PIPE_BYTES:  # a flood, not results: stop reading, stop it
            _kill(proc)
            if current is not None:
                outcomes[current] = {
                    "status": "error",
                    "message": f"wrote more than {MAX_PIPE_BYTES // 2**20} MB to the grader's "
                    "result pipe without a result; stopped",
                }
            return None if imported else "flooded the grader's result pipe while importing"
        if not ready or time.monotonic() >= min(deadline, run_deadline):  # overran: stop it
            _kill(proc)
            if time.monotonic() >= run_deadline:  # the whole run's budget, not this module
                if current is not None:
                    outcomes[current] = {
                        "status": "timeout",
                        "message": f"stopped: the whole check took longer than "
                        f"{limits.run_seconds:g} s",
                    }
                return None
            if not imported:
                return f"importing the module took longer than {limits.import_seconds:g} s"
            outcomes[current] = {
                "status": "timeout",
                "message": f"took longer than {limits.case_seconds:g} s and was stopped: "
                "is there a loop that never ends?",
            }
            return None
        chunk = os.read(fd, 65536)
        if not chunk:  # the worker exited
            code = proc.wait()
            died = _death(code, log_path, path)
            if not imported:
                return f"the worker stopped while importing the module: {died}"
            if current is not None and current not in outcomes:
                outcomes[current] = {"status": "crash", "message": f"{died} during this case"}
            return None
        buffer += chunk
        *lines, buffer = buffer.split(b"\n")
        for line in lines:
            try:
                event = json.loads(line)
                kind = event["event"]
            except (ValueError, KeyError, TypeError):
                continue  # not the worker's: submitted code wrote to the pipe
            if kind == "import_error":
                flags = "; ".join(str(v) for v in event.get("violations", []))
                return str(event.get("message")) + (
                    f" (the guard stopped: {flags})" if flags else ""
                )
            if kind == "imported":
                imported = True
            elif kind == "start" and event.get("id") in wanted and event["id"] not in outcomes:
                current = event["id"]
                deadline = time.monotonic() + limits.case_seconds + 2.0
            elif kind == "result" and current is not None and event.get("id") == current:
                # Only the case now running, once: lines written for other cases are ignored.
                outcomes[current] = _clean(event)
                current = None


def _clean(event: dict[str, Any]) -> dict[str, Any]:
    """A result as the parent keeps it: known fields, plain types. A status can only say
    what went wrong (passing is for the judge to decide, from the observation)."""
    out: dict[str, Any] = {
        "seconds": float(event["seconds"]) if isinstance(event.get("seconds"), int | float) else 0,
        "output": str(event.get("output", ""))[-2000:],
        "violations": [str(v) for v in event.get("violations", []) if isinstance(v, str)],
    }
    if "observation" in event:
        out["observation"] = event["observation"]
    else:
        status = event.get("status")
        if status in ("error", "timeout") and event.get("message"):
            out["status"], out["message"] = status, str(event["message"])[:500]
        else:  # the worker never sends this: the code wrote to the grader's pipe
            out["status"] = "error"
            out["message"] = "a forged result line (the code wrote to the grader's result pipe)"
    return out


def _death(code: int, log_path: Path, module: Path) -> str:
    """Why the worker ended, in words: an exit code, or the signal that killed it, and the
    line of the learner's file it was on (faulthandler writes the stack to the log)."""
    if code < 0:
        name = signal.Signals(-code).name
        text = {
            "SIGSEGV": "the process crashed (segmentation fault)",
            "SIGKILL": "the process was killed (out of memory?)",
        }.get(name, f"the process was killed by {name}")
    else:
        text = f"the process exited with code {code} (sys.exit or os._exit?)"
    log = log_path.read_text(errors="replace") if log_path.exists() else ""
    for line in log.splitlines():
        if f'File "{module}"' in line:  # '  File "/x/strides.py", line 3 in arange'
            where = line.split(",", 1)[1].strip()
            return f"{text} at {module.name} {where}"
    return text


def _kill(proc: subprocess.Popen) -> None:
    if proc.poll() is None:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        proc.wait()
