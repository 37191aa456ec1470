"""Workers: the child processes that run a learner's engine, started, limited and read.

A worker (``worker.py``) gets one request (the cases, the limits, the guard's policy) and
answers one JSON line per event on a pipe. It runs either directly in its own bubblewrap
sandbox, or, for a week whose module uses torch, as a fresh child of a warm fork server
(``zygote.py``) inside one. Everything a worker sends is untrusted bytes: ``_supervise``
reads it under a deadline and a size limit, and nothing in it can raise out of here.

``runner.py`` decides what to run and judges it; this module only runs it.
"""

from __future__ import annotations

import importlib.util
import json
import linecache
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from autograder import isolation, zygote
from autograder.labs import REPO_ROOT, engine_files
from autograder.oracle import cache_dir
from autograder.weeks import Week

# The worker's pipe is untrusted bytes: a line longer than this is no observation, and a
# worker that sends more than the total is stopped (its current case: "output too large").
MAX_LINE_BYTES = 4 * 2**20
MAX_WORKER_BYTES = 32 * 2**20


@dataclass(frozen=True)
class Limits:
    case_seconds: float = 5.0  # per case, enforced inside the worker and again from outside
    import_seconds: float = 10.0  # importing the learner's module
    memory_mb: int = 4096  # address-space limit of the worker
    run_seconds: float = 60.0  # the whole run: after it, cases not yet run are not started
    hide_paths: tuple[str, ...] = ()  # more paths the engine may not read (grading: the class)
    # "auto": bubblewrap where it runs, else the guard alone; "bubblewrap": required;
    # "none": the guard alone (a learner's own code on a machine without bubblewrap).
    isolation: str = "auto"
    build_seconds: float = 180.0  # a native week's C++ build (compile and link), when not cached
    announce_builds: bool = False  # say on stderr that a build runs, and for how long (a learner)


# stop(case id, outcome) -> True: the run ends after that case (see run_engine)
Stop = Callable[[str, dict[str, Any]], bool]


def isolation_for(limits: Limits) -> str:
    """The isolation a run gets: ``isolation.BUBBLEWRAP`` or ``isolation.GUARD_ONLY``."""
    if limits.isolation == "none":
        return isolation.GUARD_ONLY
    problem = isolation.bubblewrap_problem()
    if problem is None:
        return isolation.BUBBLEWRAP
    if limits.isolation == "bubblewrap":
        raise RuntimeError(f"this run needs bubblewrap: {problem}")
    return isolation.GUARD_ONLY


def run_engine(
    week: Week,
    path: Path,
    items: list[dict],
    limits: Limits,
    problems: list[str],
    hidden: bool = False,
    run_deadline: float | None = None,
    library: Path | None = None,
    stop: Stop | None = None,
) -> dict[str, dict[str, Any]]:
    """Run ``items`` in workers; a worker that dies or hangs is replaced for the rest.
    ``hidden``: the items are hidden cases (only such a worker can read their source).
    ``stop(case id, outcome)``: True ends the run after that case (the mutation score stops
    at a mutant's first failing case); the items after it get no outcome."""
    outcomes: dict[str, dict[str, Any]] = {}
    pending = list(items)
    if run_deadline is None:
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
        fresh = _run_worker(
            week, path, pending, limits, outcomes, run_deadline, hidden, library, stop
        )
        if fresh is None and len(outcomes) == before:  # died between cases: blame the next
            outcomes[pending[0]["id"]] = {"status": "crash", "message": "the worker died"}
        if fresh is not None:  # the module itself cannot be used: every case fails with it
            if fresh not in problems:  # the hidden cases' worker meets it again: say it once
                problems.append(fresh)
            for item in pending:
                outcomes.setdefault(item["id"], {"status": "error", "message": fresh})
        ran = [i["id"] for i in pending if i["id"] in outcomes]
        if stop is not None and any(stop(case_id, outcomes[case_id]) for case_id in ran):
            break
        pending = [i for i in pending if i["id"] not in outcomes]
    return outcomes


def rlimits(limits: Limits) -> dict[str, int]:
    """The worker's rlimits by name (the fork server's children set them on themselves)."""
    return {
        "RLIMIT_AS": limits.memory_mb * 1024 * 1024,
        # a backstop: the watchdog normally acts first
        "RLIMIT_CPU": int(limits.run_seconds) + 10,
        "RLIMIT_FSIZE": 64 * 1024 * 1024,  # no disk filling
        "RLIMIT_CORE": 0,
        "RLIMIT_NOFILE": 256,
    }


def _worker_env(home: str, pythonpath: str) -> dict[str, str]:
    """A fresh environment: none of the grader's own variables (tokens, paths) get through."""
    return {
        "PATH": "/usr/local/bin:/usr/bin:/bin",
        "HOME": home,
        "LANG": "C.UTF-8",
        "PYTHONPATH": pythonpath,
        "PYTHONDONTWRITEBYTECODE": "1",
        "PYTHONHASHSEED": "0",
        "OMP_NUM_THREADS": "1",
        # torch.compile keeps a cache; in the worker's own folder, the one place it may write
        "TORCHINDUCTOR_CACHE_DIR": f"{home}/.torchinductor",
        # a label, not a secret: the course's tests find their own leftovers by it
        **({"TORCHLAB_RUN": run} if (run := os.environ.get("TORCHLAB_RUN")) else {}),
    }


def secret_paths(week: Week, engine: Path, hidden: bool, extra: list[Path]) -> list[Path]:
    """What the engine may not see: the answers, the forbidden packages, and ``extra``."""
    deny = [REPO_ROOT / "reference_impl", cache_dir()] + _package_dirs(week.forbid_modules)
    # The notebook's helpers draw worked answers (the chunk rule of view, for one): an engine
    # gets no marks from importing them.
    deny.append(REPO_ROOT / "autograder" / "notebook")
    deny.append(REPO_ROOT / "autograder" / "truth")  # torch's side of the cases: answers
    if not hidden:  # only the worker that runs hidden cases reads their source
        deny.append(REPO_ROOT / "autograder" / "hidden")
    deny += extra
    engine = engine.resolve()
    # `--impl reference` checks the reference itself: its own folder stays readable.
    return [d for d in deny if not engine.is_relative_to(Path(d).resolve())]


def guard_policy(week: Week, workdir: str, deny_read: list[Path]) -> dict[str, Any]:
    """What the worker's guard refuses (see sandbox.py): the answers, and torch itself."""
    return {
        "lab": f"{week.name} ({week.title})",
        "forbid_modules": list(week.forbid_modules),
        "deny_read": [str(d) for d in deny_read],
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
    hidden: bool = False,
    library: Path | None = None,
    stop: Stop | None = None,
) -> str | None:
    """One worker over ``items``, filling ``outcomes``. Returns a module-level problem."""
    read_fd, write_fd = os.pipe()
    jail: isolation.Jail | None = None
    with tempfile.TemporaryDirectory(prefix="torchlab-") as workdir:
        secrets = secret_paths(week, path, hidden, [Path(p) for p in limits.hide_paths])
        command = [sys.executable, "-m", "autograder.worker", str(write_fd)]
        sandboxed = isolation_for(limits) == isolation.BUBBLEWRAP
        if sandboxed:
            inside = isolation.WORK  # the engine's copy, its folder and $HOME, in the sandbox
            module = Path(inside) / path.name
            inner_env = _worker_env(inside, str(Path(isolation.autograder_dir()).parent))
        if sandboxed and not week.fork_server:
            jail = isolation.build(
                command,
                engine_files(week, path, library),
                [str(p) for p in secrets],
                inner_env,
                (write_fd,),
            )
            argv, fds, cwd, env = jail.argv, tuple(jail.pass_fds), workdir, _worker_env(workdir, "")
        elif not sandboxed:
            inside, module = workdir, path
            argv, fds, cwd, env = command, (write_fd,), workdir, _worker_env(workdir, _pythonpath())
        request = {
            "week": week.name,
            "hidden": hidden,
            "module_path": str(module),
            "module_name": week.module,
            "cases": items,
            "case_seconds": limits.case_seconds,
            "import_seconds": limits.import_seconds,
            "preload": list(week.preload),
            "before_guard": week.before_guard,
            "guard": guard_policy(week, inside, secrets),
        }
        if library is not None:  # loaded by the module itself (see worker.serve)
            request["native_library"] = str(Path(inside) / library.name if sandboxed else library)
        log_path = Path(workdir) / "worker.log"
        if sandboxed and week.fork_server:
            request["rlimits"] = rlimits(limits)
            try:
                return _run_forked(
                    (week, secrets, inner_env),
                    request,
                    (read_fd, write_fd, log_path),
                    limits,
                    outcomes,
                    run_deadline,
                    module,
                    engine_files(week, path, library),  # handed over as descriptors, never as text
                    stop,
                )
            finally:
                os.close(read_fd)
        # The request in a memfd of its own (argv[2]); stdin is /dev/null, so nothing the
        # worker (or a build's #include "/proc/1/fd/0") reads there is the grader's.
        request_fd = isolation.memfd("torchlab-request", json.dumps(request).encode())
        # Limits the kernel enforces on the worker, whatever the code inside it does (they
        # pass through bwrap to everything in the sandbox); a root grader's jail drops to uid
        # 65534 (isolation.launched: never Python between fork and exec).
        argv = isolation.launched([*argv, str(request_fd)], jail, rlimits(limits), nproc_room=64)
        try:
            with open(log_path, "wb") as log:
                proc = subprocess.Popen(
                    argv,
                    stdin=subprocess.DEVNULL,
                    stdout=log,
                    stderr=log,
                    pass_fds=(*fds, request_fd),
                    cwd=cwd,
                    env=env,
                    start_new_session=True,  # its own process group: a kill takes its children
                )
        finally:
            os.close(write_fd)
            os.close(request_fd)
            if jail is not None:
                jail.close()
        try:
            wanted = {item["id"] for item in items}
            return _supervise(
                proc,
                read_fd,
                limits,
                outcomes,
                log_path,
                module,
                run_deadline,
                wanted,
                bool(jail),
                stop,
            )
        finally:
            os.close(read_fd)
            _kill(proc)


def _server(
    week: Week, secrets: list[Path], env: dict[str, str]
) -> tuple[Any, Callable[[bool], zygote.Zygote]]:
    """The pool key of the fork server for these settings, and how to start one."""
    key = (week.preload, week.warm_up, tuple(str(p) for p in secrets))

    def start(wait: bool) -> zygote.Zygote:
        def make(fd: int) -> tuple[list[str], list[int], isolation.Jail]:
            command = [sys.executable, "-m", "autograder.zygote", str(fd)]
            command += [json.dumps(list(week.preload)), week.warm_up]
            hide = [str(p) for p in secrets]
            jail = isolation.build(
                command, {}, hide, env, (fd,), False, mount_caps=True, as_pid_1=True
            )
            return jail.argv, jail.pass_fds, jail

        return zygote.Zygote(make, wait)

    return key, start


def prestart(week: Week, path: Path, hidden: bool, limits: Limits) -> None:
    """Start the public (and, when grading, the hidden) fork server while this process loads
    the cases: both import torch, and a one-off check should pay that once, not twice."""
    if not week.fork_server or isolation_for(limits) != isolation.BUBBLEWRAP:
        return
    env = _worker_env(isolation.WORK, str(Path(isolation.autograder_dir()).parent))
    for side in {False, hidden}:
        secrets = secret_paths(week, path, side, [Path(p) for p in limits.hide_paths])
        zygote.POOL.prestart(*_server(week, secrets, env))


def _run_forked(
    server_config: tuple[Week, list[Path], dict[str, str]],
    request: dict[str, Any],
    pipe: tuple[int, int, Path],
    limits: Limits,
    outcomes: dict[str, dict],
    run_deadline: float,
    module: Path,
    files: dict[str, Path],
    stop: Stop | None = None,
) -> str | None:
    """``_run_worker`` for a week whose module uses torch: the worker is a child of a fork
    server that imported torch once (zygote.py), in a sandbox built the same way: the same
    binds, the same hidden folders, the same environment, the same seccomp filter."""
    read_fd, write_fd, log_path = pipe
    key, start = _server(*server_config)
    try:
        proc, server = None, None
        for attempt in range(2):  # a server that died while idle is replaced once
            server = zygote.POOL.acquire(key, start)
            try:
                with open(log_path, "wb") as log:
                    proc = server.spawn(request, write_fd, log.fileno(), files)
                break
            except OSError:
                server.close()
                if attempt:
                    raise
    except (OSError, RuntimeError) as exc:
        return f"the grader could not start a worker: {exc}"
    finally:
        os.close(write_fd)
    try:
        wanted = {item["id"] for item in request["cases"]}
        return _supervise(
            proc, read_fd, limits, outcomes, log_path, module, run_deadline, wanted, False, stop
        )
    finally:
        _kill(proc)
        zygote.POOL.release(key, server)


def _pythonpath() -> str:
    """The worker must import this autograder, wherever the course copy lives."""
    extra = os.environ.get("PYTHONPATH")
    return os.pathsep.join([str(REPO_ROOT)] + ([extra] if extra else []))


class _Overflow(Exception):
    """The worker sent more than the grader reads."""


def _supervise(
    proc: subprocess.Popen | zygote.ZygoteChild,
    fd: int,
    limits: Limits,
    outcomes: dict,
    log_path: Path,
    path: Path,
    run_deadline: float,
    wanted: set[str],
    isolated: bool = False,
    stop: Stop | None = None,
) -> str | None:
    """Read the worker's events; stop it when a case overruns (the alarm may not fire
    inside C code), when it dies, when it sends more than the grader reads, or when
    ``stop`` says a case's outcome ends the run.

    Everything read is untrusted bytes: a line that is not a well-formed event of the case
    now running is ignored, and nothing in it can raise out of here."""
    state: dict[str, Any] = {"current": None, "imported": False}
    deadline = time.monotonic() + limits.import_seconds + 5.0
    buffer = b""
    total = 0
    while True:
        current, imported = state["current"], state["imported"]
        timeout = max(0.0, min(deadline, run_deadline) - time.monotonic())
        ready = isolation.readable(fd, timeout)
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
            if isolated and code > 128 and code - 128 in signal.valid_signals():
                code = 128 - code  # bwrap exits with 128 + the signal that ended the worker
            died = _death(code, log_path, path)
            if not imported:
                return f"the worker stopped while importing the module: {died}"
            if current is not None and current not in outcomes:
                outcomes[current] = {"status": "crash", "message": f"{died} during this case"}
            return None
        total += len(chunk)
        buffer += chunk
        *lines, buffer = buffer.split(b"\n")
        if total > MAX_WORKER_BYTES or len(buffer) > MAX_LINE_BYTES:
            _kill(proc)  # a flood, not results: stop reading, stop it
            if current is not None:
                outcomes[current] = {
                    "status": "error",
                    "message": "output too large: the code sent more than "
                    f"{MAX_WORKER_BYTES // 2**20} MB (or a line over "
                    f"{MAX_LINE_BYTES // 2**20} MB) to the grader's result pipe; stopped",
                }
            return None if imported else "output too large while importing the module"
        for line in lines:
            problem = _take(line, state, outcomes, wanted)
            if problem is not None:
                return problem
            if stop is not None and current is not None and state["current"] is None:
                if current in outcomes and stop(current, outcomes[current]):
                    _kill(proc)  # the cases after it are not wanted
                    return None
            if state["current"] != current and state["current"] is not None:
                deadline = time.monotonic() + limits.case_seconds + 2.0
            current = state["current"]


def _take(line: bytes, state: dict[str, Any], outcomes: dict, wanted: set[str]) -> str | None:
    """Apply one line from the worker to ``state``; returns a module-level problem."""
    try:
        event = json.loads(line)
    except Exception:  # noqa: BLE001 - ValueError, RecursionError (deep nesting), ...
        return None  # not the worker's: submitted code wrote to the pipe
    if not isinstance(event, dict):
        return None
    kind, case_id = event.get("event"), event.get("id")
    if kind == "import_error" and not state["imported"]:
        violations = event.get("violations")
        flags = "; ".join(str(v) for v in violations) if isinstance(violations, list) else ""
        message = safe_text(event.get("message"), 500)
        return message + (f" (the guard stopped: {safe_text(flags, 300)})" if flags else "")
    if kind == "imported":
        state["imported"] = True
    elif not isinstance(case_id, str):
        return None  # an id that is not a string is no id of ours
    elif kind == "start" and case_id in wanted and case_id not in outcomes:
        state["current"] = case_id
    elif kind == "result" and case_id == state["current"]:
        # Only the case now running, once: lines written for other cases are ignored.
        outcomes[case_id] = _clean(event)
        state["current"] = None
    return None


def safe_text(value: object, limit: int) -> str:
    """Text from a worker, safe to keep and write anywhere: a str, at most ``limit``
    characters, every lone surrogate (which no UTF-8 file can hold) replaced."""
    text = value if isinstance(value, str) else str(value)
    return text[-limit:].encode("utf-8", "replace").decode("utf-8")


def _clean(event: dict[str, Any]) -> dict[str, Any]:
    """A result as the parent keeps it: known fields, plain types. A status can only say
    what went wrong (passing is for the judge to decide, from the observation)."""
    seconds = event.get("seconds")
    violations = event.get("violations")
    out: dict[str, Any] = {
        "seconds": float(seconds)
        if isinstance(seconds, int | float) and 0 <= seconds < 1e6
        else 0.0,
        "output": safe_text(event.get("output", ""), 2000),
        "violations": [safe_text(v, 300) for v in violations if isinstance(v, str)]
        if isinstance(violations, list)
        else [],
    }
    if "observation" in event:
        out["observation"] = event["observation"]
    else:
        status = event.get("status")
        if status in ("error", "timeout") and event.get("message"):
            out["status"], out["message"] = status, safe_text(event["message"], 500)
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
            return f"{text} at {module.name} {where}{_case_line(log)}"
    return text + _case_line(log)


def _case_line(log: str) -> str:
    """The line of the case that was running when the worker died: its innermost frame in
    the course's case files (faulthandler lists the newest first), read from the course's own
    copy, so a crash in a kernel says which call reached it: ', running `torch.mm(x, w)`
    (kernels.py line 40)'."""
    cases = str(Path(__file__).resolve().parent / "weeks")
    programs = str(Path(__file__).resolve().parent / "differential")
    for line in log.splitlines():
        m = re.match(r'\s*File "([^"]+)", line (\d+)', line)
        if m and m.group(1).startswith((cases, programs)):
            code = linecache.getline(m.group(1), int(m.group(2))).strip()
            if code:
                return f", running `{code[:120]}` ({Path(m.group(1)).name} line {m.group(2)})"
    return ""


def _kill(proc: subprocess.Popen | zygote.ZygoteChild) -> None:
    if isinstance(proc, zygote.ZygoteChild):
        proc.kill()
    elif proc.poll() is None:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        proc.wait()
