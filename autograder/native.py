"""Building a lab's C++ before its worker starts: cached by source hash, limited, sandboxed.

A native week (``Week.native_sources``) ships C++ beside the learner's Python module. The
runner builds it here, in the grader's process tree but never in the worker's:

- the build is keyed by a hash of the sources, torch's version and the flags, so an unchanged
  submission (or the same file across a whole class) is built once and found again;
- it runs the compile and link commands of ``torch.utils.cpp_extension``'s ninja build (read
  once from the build.ninja it writes, then cached: ``build_commands``) in a child process with
  a wall-clock limit, an address-space limit and its own process group (a build that never
  ends is stopped, and all of its compilers with it);
- under bubblewrap that child sees only the system's compilers and headers, Python and torch,
  and a copy of the sources: no network, no grader files, nothing else of the course (an
  ``#include`` of the course's answers finds nothing), and it writes only its build folder;
- a failed build gives the compiler's first error as "labdev.cpp, line 42: error: ..." for the
  learner's report; a compile error is cached like a library (the same source fails the same
  way), a timeout is not.

Nothing from the build is loaded here: the library's static initializers first run in the
worker, inside the sandbox.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import importlib.machinery
import importlib.metadata
import importlib.util
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

from autograder import isolation
from autograder.weeks import Week

# -O1: most of the build is parsing torch's headers; optimising harder buys most labs nothing.
CFLAGS = ["-O1"]  # torch adds -std=c++20, which its headers need
CFLAGS_OVERRIDE = "TORCHLAB_NATIVE_CFLAGS"


@contextlib.contextmanager
def unoptimised_builds(flags: str = "-O0") -> Iterator[None]:
    """Native builds inside the block use ``flags`` (through ``CFLAGS_OVERRIDE``): what a
    case observes does not depend on -O, and a build is most of a native run's cost (week
    4c's -O2 build takes 7.3 s, -O0 4.6 s here). For the mutation score and the task
    ablations, never for a learner's check or a grade."""
    before = os.environ.get(CFLAGS_OVERRIDE)
    os.environ[CFLAGS_OVERRIDE] = flags
    try:
        yield
    finally:
        if before is None:
            os.environ.pop(CFLAGS_OVERRIDE, None)
        else:
            os.environ[CFLAGS_OVERRIDE] = before


def cflags(name: str) -> list[str]:
    """The flags lib ``name`` is built with: ``$TORCHLAB_NATIVE_CFLAGS`` where it is set (the
    mutation score builds unoptimised), else its week's ``native_cflags``, else ``CFLAGS``."""
    from autograder.weeks import WEEKS

    if override := os.environ.get(CFLAGS_OVERRIDE):
        return override.split()
    for week in WEEKS.values():
        if week.native_library == name and week.native_cflags:
            return list(week.native_cflags)
    return list(CFLAGS)


_ERROR = re.compile(
    r"^(?P<file>[^\s:]+\.(?:cpp|cc|cxx|h|hpp)):(?P<line>\d+):(?:\d+:)? "
    r"(?:fatal )?error: (?P<message>.*)$",
    re.MULTILINE,
)
_UNDEFINED = re.compile(r"undefined (?:reference|symbol)[: ]+(?P<symbol>\S.*)$", re.MULTILINE)


@dataclass(frozen=True)
class BuildLimits:
    seconds: float = 180.0  # the whole build, compiler and linker
    memory_mb: int = 6144  # address space of each process in the build (g++ needs ~1.5 GB)
    isolation: str = "auto"  # as runner.Limits: "auto", "bubblewrap" or "none"
    announce: bool = False  # tell the learner on stderr that a build runs (see Announcer)


@dataclass
class BuildResult:
    library: Path | None  # the built .so, in the cache
    error: str | None  # the learner-facing reason when there is no library
    seconds: float  # what this call took (0.0-ish when found in the cache)
    cached: bool  # found, not built


class BuildError(RuntimeError):
    """A build that failed, with the message a learner should read."""


def cache_root() -> Path:
    """Builds live beside the oracle cache ($TORCHLAB_CACHE, else ~/.cache/torchlab)."""
    root = os.environ.get("TORCHLAB_CACHE") or Path.home() / ".cache" / "torchlab"
    return Path(root) / "native"


def _torch_version() -> str:
    try:
        return importlib.metadata.version("torch")
    except importlib.metadata.PackageNotFoundError:
        return "absent"


def source_key(name: str, sources: dict[str, bytes]) -> str:
    """The hash a build is cached under: the sources, torch's version, the flags."""
    h = hashlib.sha256(f"{name} torch={_torch_version()} {cflags(name)}".encode())
    for filename in sorted(sources):
        h.update(filename.encode() + b"\0" + sources[filename] + b"\0")
    return h.hexdigest()[:24]


_NOTE = re.compile(r"^(?P<file>[^\s:]+):(?P<line>\d+):(?:\d+:)? note: (?P<message>.*)$")
MAX_NOTES = 8  # the note lines kept after an error ("candidate: ...", "declared here")


def first_error(output: str, sources: list[str]) -> str:
    """The compiler's first error as "labdev.cpp, line 42: error: ...", with the notes that
    explain it (an ambiguous call's candidates, say), else the linker's error, else the last
    lines of the output (the sandbox's paths are left out: they mean nothing to the learner).
    ``torchlab check WEEK --build-log`` prints the whole output."""
    found = [m for m in _ERROR.finditer(output) if Path(m.group("file")).name in sources]
    m = found[0] if found else _ERROR.search(output)  # else an error inside a header
    if m:
        name = Path(m.group("file")).name
        first = f"{name}, line {m.group('line')}: error: {m.group('message').strip()}"[:500]
        notes = _notes_after(output, m.end())
        return "\n".join([first, *notes, *_adl_hint(m.group("message"), notes)])[:2000]
    if "out of memory" in output or "virtual memory exhausted" in output:
        return (
            "the compiler ran out of memory and was stopped: a template that multiplies "
            "without end, or an #include of something endless?"
        )
    m = _UNDEFINED.search(output)
    if m:
        return f"the library does not link: undefined {m.group('symbol').strip()}"[:500]
    tail = [line for line in output.strip().splitlines() if line.strip()][-3:]
    return ("the build failed: " + " / ".join(tail))[:500] if tail else "the build failed"


def _adl_hint(message: str, notes: list[str]) -> list[str]:
    """A call made ambiguous by argument-dependent lookup: the lab names its kernels as aten
    does (as_strided, view, add), so inside its namespace an unqualified ``as_strided(t, ...)``
    with an at::Tensor argument also finds ``at::as_strided``. Say so, and how to write it."""
    call = re.search(r"call of overloaded [‘'](\w+)\(", message)  # g++ quotes with ‘ ’
    if not call or "ambiguous" not in message:
        return []
    fn = call.group(1)
    owners = {m for n in notes for m in re.findall(rf"\b(\w+)::{fn}\(", n)} - {"at", "c10", "std"}
    ns = sorted(owners)[0] if owners else "your namespace"
    return [
        f"  hint: {fn}(...) with at::Tensor arguments also finds at::{fn} (C++'s argument-"
        f"dependent lookup); call yours by its full name: {ns}::{fn}(...)"
    ]


def _notes_after(output: str, start: int) -> list[str]:
    """The note lines that follow an error, up to the next error, as "  file, line N: ..."."""
    notes = []
    for line in output[start:].splitlines()[1:]:
        if _ERROR.match(line) or len(notes) == MAX_NOTES:
            break
        m = _NOTE.match(line)
        if m:
            where = f"{Path(m.group('file')).name}, line {m.group('line')}"
            notes.append(f"  {where}: note: {m.group('message').strip()}"[:300])
    return notes


def _learners_error(output: str) -> bool:
    """Did the compiler or linker reject the code (cacheable), rather than fail to run?"""
    return bool(_ERROR.search(output) or _UNDEFINED.search(output))


def build(
    name: str,
    sources: dict[str, Path],
    limits: BuildLimits | None = None,
    hide: list[str] | None = None,
    pch_from: Path | None = None,
) -> BuildResult:
    """Build ``sources`` ({file name: path}) into lib ``name``, or find it in the cache.

    ``pch_from``: a trusted C++ file (the course's skeleton) whose ``#include <...>`` lines
    make a precompiled header for the build (see ``precompiled_header``)."""
    limits = limits or BuildLimits()
    started = time.monotonic()
    missing = [f for f, p in sources.items() if not p.is_file()]
    if missing:
        return BuildResult(
            None,
            f"cannot find {', '.join(missing)}: it belongs beside your Python file",
            0.0,
            False,
        )
    data = {f: p.read_bytes() for f, p in sources.items()}
    folder = cache_root() / f"{name}-{source_key(name, data)}"
    library, failure = folder / f"{name}.so", folder / "error.txt"
    if library.is_file():
        return BuildResult(library, None, time.monotonic() - started, True)
    if failure.is_file():
        return BuildResult(None, failure.read_text(), time.monotonic() - started, True)
    # The same source built by two processes at once (the two halves of a mutation score,
    # two tests of one reference): the second waits for the first's result, up to its own
    # time limit, instead of compiling it again beside it.
    with _one_at_a_time(cache_root() / ".building" / folder.name, limits.seconds, unlink=True):
        if library.is_file():
            return BuildResult(library, None, time.monotonic() - started, True)
        if failure.is_file():
            return BuildResult(None, failure.read_text(), time.monotonic() - started, True)
        return _build_now(name, data, folder, limits, hide, pch_from, started)


def _build_now(
    name: str,
    data: dict[str, bytes],
    folder: Path,
    limits: BuildLimits,
    hide: list[str] | None,
    pch_from: Path | None,
    started: float,
) -> BuildResult:
    """``build``'s work when the cache has no answer: compile, then keep the result."""
    with tempfile.TemporaryDirectory(prefix="torchlab-build-") as tmp:
        work = Path(tmp) / "work"
        work.mkdir()
        work.chmod(0o777)  # the sandbox's student writes here
        for filename, blob in data.items():
            (work / filename).write_bytes(blob)
        with Announcer(sorted(data), limits.announce):
            pch = precompiled_header(name, pch_from) if pch_from is not None else None
            code, output, timed_out = _compile(name, sorted(data), work, limits, hide or [], pch)
        elapsed = time.monotonic() - started
        if timed_out:
            message = (
                f"building {', '.join(sorted(data))} took longer than {limits.seconds:g} s and "
                "was stopped: a template or constexpr that never ends, or an #include of "
                "something endless?"
            )
            return BuildResult(None, message, elapsed, False)
        built = work / f"{name}.so"
        staging = Path(tempfile.mkdtemp(prefix=f".{name}-", dir=_ensure(cache_root())))
        if code == 0 and built.is_file():
            shutil.copy2(built, staging / f"{name}.so")
            (staging / "output.txt").write_text(output[-20000:])  # warnings: --build-log
            result = BuildResult(folder / f"{name}.so", None, elapsed, False)
        else:
            message = first_error(output, sorted(data))
            result = BuildResult(None, message, elapsed, False)
            if not _learners_error(output):  # the machine's fault (no compiler): never cached
                shutil.rmtree(staging, ignore_errors=True)
                return result
            (staging / "error.txt").write_text(message)
            (staging / "output.txt").write_text(output[-20000:])
        try:
            os.replace(staging, folder)  # atomic: a parallel build of the same source wins once
        except OSError:
            shutil.rmtree(staging, ignore_errors=True)
        return result


def build_log(name: str, sources: dict[str, Path]) -> str | None:
    """The compiler's whole output (its last 20,000 characters) for these sources, if they
    were built: what ``torchlab check WEEK --build-log`` prints."""
    try:
        data = {f: p.read_bytes() for f, p in sources.items()}
    except OSError:
        return None
    log = cache_root() / f"{name}-{source_key(name, data)}" / "output.txt"
    return log.read_text() if log.is_file() else None


class Announcer:
    """Says on stderr that a build runs: "building labdev.cpp (about 10 s the first time)...",
    the seconds so far on a terminal, and when it ended. A build is the one slow step of a
    check, and silence for 15 s reads as a hang."""

    def __init__(self, files: list[str], enabled: bool) -> None:
        self.line = f"building {', '.join(files)} (about 10 s the first time)..."
        self.enabled, self.tty = enabled, sys.stderr.isatty()
        self.started = time.monotonic()
        self.done = threading.Event()

    def __enter__(self) -> Announcer:
        if self.enabled:
            sys.stderr.write(self.line + ("" if self.tty else "\n"))
            sys.stderr.flush()
            if self.tty:
                threading.Thread(target=self._tick, daemon=True).start()
        return self

    def _tick(self) -> None:
        while not self.done.wait(1.0):
            sys.stderr.write(f"\r{self.line} {time.monotonic() - self.started:.0f} s")
            sys.stderr.flush()

    def __exit__(self, *exc: object) -> None:
        self.done.set()
        if self.enabled:
            ended = f"the build ended after {time.monotonic() - self.started:.1f} s"
            sys.stderr.write(f"\r{self.line} {ended}\n" if self.tty else ended + "\n")
            sys.stderr.flush()


def _ensure(path: Path) -> Path:
    path.mkdir(parents=True, exist_ok=True)
    return path


@contextlib.contextmanager
def _one_at_a_time(lock: Path, seconds: float, unlink: bool = False) -> Iterator[bool]:
    """Hold an exclusive lock on the file ``lock`` (made if need be), waiting at most
    ``seconds`` for it; yields whether it is held (after the wait the caller goes on without
    it: the lock saves repeated work, it never guards correctness, which the atomic renames
    into the cache keep). ``unlink``: remove the file afterwards (a waiter that then takes
    the lock on the removed file checks the cache first, so it finds the result all the
    same)."""
    fd = os.open(_ensure(lock.parent) / lock.name, os.O_RDWR | os.O_CREAT, 0o644)
    held = False
    try:
        deadline = time.monotonic() + seconds
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                held = True
                break
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    break
                time.sleep(0.1)
        yield held
    finally:
        if held and unlink:
            with contextlib.suppress(OSError):
                os.unlink(lock)
        os.close(fd)  # releases the lock


def _compile(
    name: str,
    files: list[str],
    work: Path,
    limits: BuildLimits,
    hide: list[str],
    pch: Path | None = None,
) -> tuple[int, str, bool]:
    """Run the build in a child, sandboxed where bubblewrap runs. (rc, output, timed out)
    ``pch``: a precompiled header to include first (its folder is bound read-only inside).

    The child runs the compiler and the linker with the commands cpp_extension's ninja build
    would run (``build_commands``, found once and cached), without importing torch (1.3 s
    of a 6 s build); where those are not known, it runs cpp_extension's ninja build itself."""
    commands = build_commands(name)
    command = [sys.executable, "-m", "autograder.native", name, *files]
    if commands is not None:
        command[3:3] = ["--direct", json.dumps(commands)]
    if pch is not None:
        command += ["--include", str(pch)]
    path = f"{os.path.dirname(sys.executable)}:/usr/local/bin:/usr/bin:/bin"
    sandboxed = _sandboxed(limits)
    jail = None
    if sandboxed:
        env = {
            "PATH": path,
            "HOME": isolation.WORK,
            "TMPDIR": "/tmp",
            "PYTHONPATH": str(Path(isolation.autograder_dir()).parent),
            "MAX_JOBS": "2",
            "LANG": "C.UTF-8",
            **_flags_env(),
        }
        binds = [str(pch.parent)] if pch is not None else []
        jail = isolation.build(
            command, {}, hide, env, seccomp=False, work=str(work), ro_binds=binds
        )
        argv, cwd, env = jail.argv, str(work), {"PATH": path}
        fds = tuple(jail.pass_fds)
    else:
        argv, cwd, fds = command, str(work), ()
        env = {
            "PATH": path,
            "HOME": str(work),
            "PYTHONPATH": str(Path(__file__).resolve().parent.parent),
            "MAX_JOBS": "2",
            "LANG": "C.UTF-8",
            **_flags_env(),
        }

    size = limits.memory_mb * 2**20
    caps = {"RLIMIT_AS": size, "RLIMIT_CORE": 0, "RLIMIT_FSIZE": 256 * 2**20}
    # a root grader: the build runs as uid 65534 outside too (isolation.launched)
    argv = isolation.launched(argv, jail, caps)
    try:
        proc = subprocess.Popen(
            argv,
            stdin=subprocess.DEVNULL,  # never the grader's: `#include "/proc/1/fd/0"` reads it
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            cwd=cwd,
            env=env,
            pass_fds=fds,
            start_new_session=True,  # one group: a timeout stops ninja and every compiler
        )
    finally:
        if jail is not None:
            jail.close()
    assert proc.stdout is not None
    output, timed_out = read_bounded(proc.stdout.fileno(), time.monotonic() + limits.seconds)
    if timed_out:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    proc.stdout.close()
    proc.wait()
    if timed_out:
        return -9, "", True
    return proc.returncode, output.decode(errors="replace"), False


MAX_OUTPUT_BYTES = 256 * 1024  # a build's output the grader keeps: the start and the end


def _flags_env() -> dict[str, str]:
    """The flags override, for a build's child (its environment is otherwise built anew)."""
    value = os.environ.get(CFLAGS_OVERRIDE)
    return {CFLAGS_OVERRIDE: value} if value else {}


def read_bounded(fd: int, deadline: float) -> tuple[bytes, bool]:
    """Read ``fd`` to its end or to ``deadline``: (what was kept, whether time ran out).

    Only the first and the last ``MAX_OUTPUT_BYTES / 2`` are kept, so a build that floods its
    output costs the grader a fixed amount of memory; the rest is counted and dropped (the
    first error is near the start, the linker's near the end)."""
    half = MAX_OUTPUT_BYTES // 2
    head, tail, dropped = bytearray(), bytearray(), 0
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            return bytes(head + tail), True
        if not isolation.readable(fd, left):
            continue
        chunk = os.read(fd, 65536)
        if not chunk:
            break
        if len(head) < half:
            take = half - len(head)
            head += chunk[:take]
            chunk = chunk[take:]
        tail += chunk
        if len(tail) > half:
            dropped += len(tail) - half
            del tail[: len(tail) - half]
    if dropped:
        head += f"\n[... {dropped} bytes of output left out ...]\n".encode()
    return bytes(head + tail), False


def _sandboxed(limits: BuildLimits) -> bool:
    if limits.isolation == "none":
        return False
    problem = isolation.bubblewrap_problem()
    if problem is not None and limits.isolation == "bubblewrap":
        raise RuntimeError(f"this build needs bubblewrap: {problem}")
    return problem is None


# Where a build's own flags (the precompiled header) go in cpp_extension's compile line.
EXTRA_FLAGS = "-DTORCHLAB_BUILD_EXTRA_FLAGS"
NINJA_OVERRIDE = "TORCHLAB_NATIVE_NINJA"  # "1": every build goes through cpp_extension's ninja
COMPILE_RULE = "$cxx -MMD -MF $out.d $cflags -c $in -o $out $post_cflags"
LINK_RULE = "$cxx $in $ldflags -o $out"


def build_commands(name: str) -> dict[str, list[str]] | None:
    """The compiler, flags and link flags cpp_extension's ninja build uses for lib ``name``
    (``{"cxx", "cflags", "post_cflags", "ldflags"}``; ``EXTRA_FLAGS`` in ``cflags`` marks
    where a build's own flags go), or None (``TORCHLAB_NATIVE_NINJA=1``, or they could not be
    read: the build then runs cpp_extension itself).

    They are read once per library, flags, torch and Python from the build.ninja that
    cpp_extension writes for a stub (its ninja run left out), in a child with the build's
    environment, and cached: every build after that starts the compiler directly instead of
    a Python that imports torch to write the same file again."""
    if os.environ.get(NINJA_OVERRIDE) == "1":
        return None
    try:
        torch_dir = str(importlib.metadata.distribution("torch").locate_file("torch"))
    except importlib.metadata.PackageNotFoundError:
        return None
    identity = f"{name} torch={_torch_version()} at {torch_dir} {sys.executable} {cflags(name)}"
    key = hashlib.sha256(identity.encode()).hexdigest()[:24]
    path = cache_root() / "commands" / f"{name}-{key}.json"
    if not path.is_file():
        staging = Path(tempfile.mkdtemp(prefix=f".{name}-commands-", dir=_ensure(path.parent)))
        try:
            env = {
                "PATH": f"{os.path.dirname(sys.executable)}:/usr/local/bin:/usr/bin:/bin",
                "HOME": str(staging),
                "PYTHONPATH": str(Path(__file__).resolve().parent.parent),
                "LANG": "C.UTF-8",
                **_flags_env(),
            }
            command = [sys.executable, "-m", "autograder.native", "--commands", name]
            made = subprocess.run(
                [*command, str(staging / "commands.json")],
                capture_output=True,
                env=env,
                cwd=staging,
                timeout=300,
                check=False,
                stdin=subprocess.DEVNULL,
            )
            if made.returncode == 0 and (staging / "commands.json").is_file():
                os.replace(staging / "commands.json", path)
        except (OSError, subprocess.TimeoutExpired):
            pass
        finally:
            shutil.rmtree(staging, ignore_errors=True)
    try:
        commands = json.loads(path.read_text())
    except (OSError, ValueError):
        return None
    fields = ("cxx", "cflags", "post_cflags", "ldflags")
    if not isinstance(commands, dict) or sorted(commands) != sorted(fields):
        return None
    if not all(
        isinstance(v, list) and all(isinstance(x, str) for x in v) for v in commands.values()
    ):
        return None
    return commands if commands["cflags"].count(EXTRA_FLAGS) == 1 else None


def _write_commands(name: str, out: str) -> int:
    """Inside the child: ``build_commands``' answer, written to ``out``. cpp_extension writes
    the build.ninja of a stub library exactly as for a build (its checks of the compiler
    included); only its ninja run is left out. Rules other than the two it writes today (a
    newer torch) give no answer, and builds go through cpp_extension."""
    import shlex

    from torch.utils import cpp_extension

    with tempfile.TemporaryDirectory() as tmp:
        stub = os.path.join(tmp, "stub.cpp")
        Path(stub).write_text("")
        cpp_extension._run_ninja_build = lambda *args, **kwargs: None  # the file, not a build
        cpp_extension._write_ninja_file_and_build_library(
            name,
            [stub],
            [*cflags(name), EXTRA_FLAGS],
            None,
            None,
            None,
            None,
            tmp,
            False,
            False,
            False,
        )
        lines = Path(tmp, "build.ninja").read_text().splitlines()
    values = {k.strip(): v.strip() for k, _, v in (line.partition("=") for line in lines)}
    rules = [line.strip() for line in lines if line.startswith("  command =")]
    if rules != [f"command = {COMPILE_RULE}", f"command = {LINK_RULE}"]:
        return 1
    fields = ("cxx", "cflags", "post_cflags", "ldflags")
    if any(f not in values or "$" in values[f] for f in fields):
        return 1  # a ninja escape: not a plain shell line
    Path(out).write_text(json.dumps({f: shlex.split(values[f]) for f in fields}))
    return 0


def _build_direct(
    commands: dict[str, list[str]], name: str, files: list[str], extra: list[str]
) -> int:
    """Inside the build's child: the two steps of cpp_extension's ninja build (compile each
    file, link the library), run directly; the compiler's output goes to ours."""
    at = commands["cflags"].index(EXTRA_FLAGS)
    flags = commands["cflags"][:at] + extra + commands["cflags"][at + 1 :]
    objects = []
    for source in files:
        obj = f"{Path(source).stem}.o"
        step = [*commands["cxx"], *flags, "-c", os.path.abspath(source), "-o", obj]
        done = subprocess.run([*step, *commands["post_cflags"]], stdin=subprocess.DEVNULL)
        if done.returncode != 0:
            return 1
        objects.append(obj)
    link = [*commands["cxx"], *objects, *commands["ldflags"], "-o", f"{name}.so"]
    return 1 if subprocess.run(link, stdin=subprocess.DEVNULL).returncode != 0 else 0


PCH_HEADER = "torchlab_pch.h"


def precompiled_header(name: str, source: Path) -> Path | None:
    """A precompiled header of the ``#include <...>`` lines of ``source``, made for lib
    ``name``'s flags, or None (``TORCHLAB_PCH=0``, no such includes, or it could not be made).

    Most of a build is g++ parsing torch's headers (7 of its 11 s for week 5); with them
    precompiled a build takes about 4 s. The header is made once per set of includes, torch
    version and flags, outside the sandbox: its input is the course's own file, never a
    submission (each new set would cost 17 s and 400 MB). GCC checks a precompiled header
    against the flags of each build and quietly parses the headers instead when they differ,
    so a stale one costs time, never correctness. One is kept per library and flags."""
    if os.environ.get("TORCHLAB_PCH", "1") == "0" or not source.is_file():
        return None
    includes = [
        line.strip() for line in source.read_text().splitlines() if re.match(r"#include\s*<", line)
    ]
    if not includes:
        return None
    text = "// Made by torchlab (autograder/native.py) from " + source.name + "\n"
    text += "\n".join(includes) + "\n"
    key = hashlib.sha256(f"{name} torch={_torch_version()} {cflags(name)}\n{text}".encode())
    # One per library and set of flags: the mutation score's unoptimised builds and the
    # learners' optimised ones run side by side, and must not take turns remaking theirs.
    flags_tag = hashlib.sha256(" ".join(cflags(name)).encode()).hexdigest()[:8]
    folder = cache_root() / "pch" / name / flags_tag / key.hexdigest()[:24]
    header = folder / PCH_HEADER
    if (folder / f"{PCH_HEADER}.gch").is_file():
        folder.chmod(0o755)  # a root grader's builds run as uid 65534 (an older cache: 0700)
        return header
    # Two processes that need the same header at once (the halves of a mutation score): the
    # second waits for the first's instead of making its own beside it (17 s, 190 MB).
    with _one_at_a_time(_ensure(folder.parent) / ".making", PCH_SECONDS):
        if (folder / f"{PCH_HEADER}.gch").is_file():
            return header
        return _make_header(name, text, folder)


PCH_SECONDS = 600  # the most a precompiled header may take to make (and a waiter waits)


def _make_header(name: str, text: str, folder: Path) -> Path | None:
    """``precompiled_header``'s work when the cache has none: make it into ``folder``."""
    header = folder / PCH_HEADER
    staging = Path(tempfile.mkdtemp(prefix=f".{name}-pch-", dir=_ensure(folder.parent)))
    staging.chmod(0o755)  # readable by the build, which may run as another uid than ours
    (staging / PCH_HEADER).write_text(text)
    command = [sys.executable, "-m", "autograder.native", "--pch", name, str(staging / PCH_HEADER)]
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parent.parent)}
    made = subprocess.run(
        command,
        capture_output=True,
        env=env,
        timeout=PCH_SECONDS,
        check=False,
        stdin=subprocess.DEVNULL,
    )
    if made.returncode != 0 or not (staging / f"{PCH_HEADER}.gch").is_file():
        shutil.rmtree(staging, ignore_errors=True)
        return None  # builds go on without it, only slower
    for old in folder.parent.iterdir():  # one per library and flags: hundreds of MB each
        # Never this key's own folder: a parallel build made it and may be using it right now
        # (its sandbox has bound it already; removing it would take the header from under it).
        if old.name not in (staging.name, folder.name) and not old.name.startswith("."):
            shutil.rmtree(old, ignore_errors=True)
    try:
        os.replace(staging, folder)
    except OSError:
        shutil.rmtree(staging, ignore_errors=True)
    return header if (folder / f"{PCH_HEADER}.gch").is_file() else None


def _make_pch(name: str, header: str) -> int:
    """Inside the child: compile ``header`` with exactly the flags the library's ninja build
    will use (read from a build.ninja that cpp_extension writes but does not run)."""
    from torch.utils import cpp_extension

    with tempfile.TemporaryDirectory() as tmp:
        stub = os.path.join(tmp, "stub.cpp")
        Path(stub).write_text("")
        ninja = os.path.join(tmp, "build.ninja")
        cpp_extension._write_ninja_file_to_build_library(
            ninja, name, [stub], cflags(name), [], [], [], [], False, False, False
        )
        flags: list[str] = []
        for line in Path(ninja).read_text().splitlines():
            if line.startswith(("cflags =", "post_cflags =")):
                flags += line.split("=", 1)[1].split()
    cxx = os.environ.get("CXX", "c++")
    done = subprocess.run([cxx, *flags, "-x", "c++-header", header, "-o", f"{header}.gch"])
    return done.returncode


def library_path(module: Path, week: str) -> str:
    """The library a native lab's module loads: the one the grader built for this run
    (``TORCHLAB_NATIVE_LIBRARY``, set by the worker), else the C++ beside ``module``, built now
    (or found in the cache). A front door: the lab's own module names its week."""
    built = os.environ.get("TORCHLAB_NATIVE_LIBRARY")
    if built:
        return built
    from autograder.weeks import get_week

    return str(build_beside(module, get_week(week)))


def load_extension(module: Path, week: str, name: str) -> ModuleType:
    """Import the pybind11 extension ``name`` of a native lab (week 4c's allocator, week 7c's
    backend) from ``library_path``: the library the grader built for this run, else the C++
    beside ``module``. A front door for the lab's given Python face."""
    path = library_path(module, week)
    import torch  # noqa: F401 - the extension links against libtorch: load it first

    loader = importlib.machinery.ExtensionFileLoader(name, path)
    spec = importlib.util.spec_from_loader(name, loader)
    assert spec is not None
    extension = importlib.util.module_from_spec(spec)
    loader.exec_module(extension)
    return extension


def build_beside(module: Path, w: Week) -> Path:
    """Build the C++ beside a lab module (a notebook's or a script's ``load_library``) and
    return the library; raise BuildError with the compiler's first error."""
    sources = {f: module.parent / f for f in w.native_sources}
    pch_from = sources[w.native_sources[0]]  # the learner's own machine: their own includes
    result = build(w.native_library, sources, BuildLimits(isolation="none"), pch_from=pch_from)
    if result.library is None:
        raise BuildError(result.error or "the build failed")
    return result.library


def _main(argv: list[str]) -> int:
    """Inside the build's child: the build, in the cwd (``[--direct COMMANDS] NAME FILE...
    [--include PCH]``: the commands given, else the ninja build of torch.utils.cpp_extension),
    making a precompiled header (``--pch NAME H``), or finding the commands (``--commands NAME
    OUT``)."""
    if argv[0] == "--pch":
        return _make_pch(argv[1], argv[2])
    if argv[0] == "--commands":
        return _write_commands(argv[1], argv[2])
    extra: list[str] = []
    if "--include" in argv:
        at = argv.index("--include")
        extra = ["-include", argv[at + 1], "-Winvalid-pch"]
        argv = argv[:at] + argv[at + 2 :]
    if argv[0] == "--direct":  # the commands known: no torch in this process
        sys.stdout.flush()
        return _build_direct(json.loads(argv[1]), argv[2], argv[3:], extra)
    name, files = argv[0], argv[1:]
    from torch.utils import cpp_extension

    try:
        cpp_extension._write_ninja_file_and_build_library(
            name,
            [os.path.abspath(f) for f in files],
            cflags(name) + extra,
            None,
            None,
            None,
            None,
            os.getcwd(),
            False,
            False,
            False,
        )
    except (RuntimeError, subprocess.CalledProcessError) as exc:
        print(str(exc))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(_main(sys.argv[1:]))
