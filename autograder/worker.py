"""The worker: runs the engine under test, case by case, in a child process.

The parent (``runner.py``) hands it one JSON request in a memfd and reads one JSON line per event
from a dedicated pipe (fd given as argv[1]), so whatever the engine prints cannot be mistaken
for a result. Torch is never imported here: the expected answers stay with the parent.
"""

from __future__ import annotations

import contextlib
import faulthandler
import importlib.util
import io
import json
import os
import signal
import sys
import tempfile
import time
import traceback
from pathlib import Path
from typing import Any


class CaseTimeout(BaseException):
    """Raised by the alarm when a case runs past its time limit (not an Exception, so the
    engine's own ``except Exception`` cannot swallow it)."""


def _on_alarm(signum: int, frame: Any) -> None:
    raise CaseTimeout


def describe_exception(exc: BaseException, path: str | None = None) -> str:
    """One plain line: what went wrong and where in the learner's file."""
    if isinstance(exc, SyntaxError):
        where = f"{Path(exc.filename or path or '?').name}, line {exc.lineno}"
        return f"{type(exc).__name__}: {exc.msg} ({where})"
    text = f"{type(exc).__name__}: {exc}".strip()
    if path:
        frames = [f for f in traceback.extract_tb(exc.__traceback__) if f.filename == path]
        if frames:
            text += f" ({Path(path).name}, line {frames[-1].lineno})"
    return text[:500]


def load_engine(path: str, name: str) -> Any:
    """Import the learner's module from a file, as a fresh module every run."""
    folder = str(Path(path).parent)
    if folder not in sys.path:
        sys.path.insert(0, folder)
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot import {path}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def main() -> None:
    """``python -m autograder.worker RESULT_FD REQUEST_FD``: the request is read from its own
    descriptor (a memfd), never from stdin."""
    with os.fdopen(int(sys.argv[2]), "rb") as f:
        request = json.loads(f.read())
    serve(request, int(sys.argv[1]))


def serve(request: dict[str, Any], out_fd: int) -> None:
    """Run the request's cases, one event per line on ``out_fd``. The fork server
    (``zygote.py``) calls this in each child it forks; ``main`` in a fresh interpreter."""
    out = os.fdopen(out_fd, "w", buffering=1)

    def send(event: dict[str, Any]) -> None:
        out.write(json.dumps(event) + "\n")
        out.flush()

    faulthandler.enable()  # a segfault prints where it happened to our stderr log
    signal.signal(signal.SIGALRM, _on_alarm)

    from autograder.cases import load_week, run_case

    # A public worker never loads the hidden cases: their names and docstrings stay out of
    # every process whose messages the student reads.
    cases = {c.id: c for c in load_week(request["week"], include_hidden=bool(request["hidden"]))}
    run = run_one  # bound now: the submission may rebind the module's globals
    path = request["module_path"]
    if request.get("native_library"):  # a native week: the C++ the grader built for this run
        os.environ["TORCHLAB_NATIVE_LIBRARY"] = request["native_library"]
    before_guard = request.get("before_guard", "")
    if before_guard:  # the week's own set-up that the guard would refuse (Week.before_guard)
        module, _, function = before_guard.partition(":")
        getattr(importlib.import_module(module), function)()
    # From here on, submitted code may run: the guard goes in first (see sandbox.py).
    sys.dont_write_bytecode = True
    violations: list[str] = []
    if request.get("guard"):
        from autograder.sandbox import install

        for name in request.get("preload", []):  # trusted libraries the lab allows (NumPy)
            importlib.import_module(name)

        # tempfile's first call probes /tmp, /var/tmp, /usr/tmp for a writable folder, which
        # the guard refuses: point it at the one folder this run may write (torch's custom
        # ops ask for it on first use).
        tempfile.tempdir = request["guard"]["write_ok"][0]
        # The engine's own folder stays readable (its helper modules), even in a temp folder.
        violations = install({**request["guard"], "read_ok": [str(Path(path).parent)]})
    signal.setitimer(signal.ITIMER_REAL, request["import_seconds"])
    try:
        lib = load_engine(path, request["module_name"])
    except CaseTimeout:
        send({"event": "import_error", "message": _import_timeout(request)})
        return
    except BaseException as exc:  # noqa: BLE001 - a broken file must become a report line
        message = describe_exception(exc, path)
        send({"event": "import_error", "message": message, "violations": violations})
        return
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
    send({"event": "imported"})

    for item in request["cases"]:
        send({"event": "start", "id": item["id"]})
        violations.clear()  # the guard notes a refusal once: per case, each case sees its own
        result = run(cases[item["id"]], lib, item.get("examples"), request, path, run_case)
        result["violations"] = list(violations)
        send(result)


def _import_timeout(request: dict[str, Any]) -> str:
    return (
        f"importing {Path(request['module_path']).name} took longer than "
        f"{request['import_seconds']:g} s: is there a loop at the top level of the file?"
    )


def run_one(case: Any, lib: Any, examples: Any, request: dict, path: str, run_case: Any) -> dict:
    """Run one case under the alarm; always returns one result event."""
    captured = io.StringIO()
    started = time.perf_counter()
    result: dict[str, Any] = {"event": "result", "id": case.id}
    signal.setitimer(signal.ITIMER_REAL, request["case_seconds"])
    try:
        with contextlib.redirect_stdout(captured), contextlib.redirect_stderr(captured):
            result["observation"] = run_case(case, lib, examples)
    except CaseTimeout:
        result["status"] = "timeout"
        result["message"] = (
            f"took longer than {request['case_seconds']:g} s and was stopped: "
            "is there a loop that never ends?"
        )
    except SystemExit as exc:
        result["status"] = "error"
        result["message"] = f"the code called sys.exit({exc.code!r}) during this case"
    except BaseException as exc:  # noqa: BLE001 - KeyboardInterrupt, GeneratorExit, ...
        result["status"] = "error"
        result["message"] = describe_exception(exc, path)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
    result["seconds"] = round(time.perf_counter() - started, 4)
    result["output"] = captured.getvalue()[-2000:]
    try:
        json.dumps(result)
    except (TypeError, ValueError) as exc:
        result.pop("observation", None)
        result["status"] = "error"
        result["message"] = f"the result could not be compared (not plain data): {exc}"
    return result


if __name__ == "__main__":
    main()
