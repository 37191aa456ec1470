"""The sandbox a worker runs in, probed from inside: what it can see, write and start.

Each probe runs a small script inside ``isolation.build``'s bwrap command, the one the runner
uses, and reports what the kernel let it do. Skipped (with the reason) where bubblewrap
cannot run; ``torchlab grade`` refuses there unless told ``--unsafe-no-sandbox``.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from autograder import isolation
from autograder.labs import REPO_ROOT
from autograder.oracle import cache_dir
from autograder.runner import run_week
from autograder.weeks import WEEKS, get_week
from autograder.workers import Limits, secret_paths

pytestmark = pytest.mark.skipif(
    isolation.bubblewrap_problem() is not None, reason=str(isolation.bubblewrap_problem())
)

PROBE = textwrap.dedent(
    """
    import json, os, socket, sys
    out = {"uid": os.getuid(), "gid": os.getgid(), "cwd": os.getcwd(), "pid": os.getpid()}
    out["files"] = sorted(os.listdir("."))
    out["exists"] = {p: os.path.exists(p) for p in sys.argv[1:]}
    def attempt(name, fn):
        try:
            out[name] = repr(fn())
        except BaseException as exc:
            out[name] = f"{type(exc).__name__}: {exc}"
    attempt("fork", os.fork)
    attempt("write_home", lambda: open("mine.txt", "w").write("x"))
    attempt("write_tmp", lambda: open("/tmp/torchlab-probe", "w").write("x"))
    attempt("write_usr", lambda: open(sys.prefix + "/torchlab-probe", "w").write("x"))
    attempt("write_root", lambda: open("/torchlab-probe.py", "w").write("x"))
    # bwrap made the folders above the autograder to mount it on: no place for a module
    attempt("write_on_path", lambda: open(os.environ["PYTHONPATH"] + "/json.py", "w").write("x"))
    attempt("write_hidden", lambda: open(sys.argv[2].rsplit("/", 1)[0] + "/x.py", "w").write("x"))
    attempt("write_proc_sys", lambda: open("/proc/sys/vm/swappiness", "r+"))
    attempt("fill_home", lambda: open("big", "wb").write(b"x" * (200 * 2**20)))
    attempt("connect", lambda: socket.create_connection(("1.1.1.1", 53), timeout=2))
    attempt("import_torch_tensor", lambda: __import__("torch").Tensor)
    attempt("processes", lambda: sorted(p for p in os.listdir("/proc") if p.isdigit()))
    print(json.dumps(out))
    """
)


def probe(tmp_path: Path, hidden: bool = False) -> dict:
    engine = tmp_path / "strides.py"
    engine.write_text("# a learner's file\n")
    week = get_week("week1")
    secrets = [str(p) for p in secret_paths(week, engine, hidden, [tmp_path])]
    looks = [
        str(REPO_ROOT / "reference_impl" / "strides.py"),
        str(REPO_ROOT / "autograder" / "hidden" / "week1.py"),
        str(REPO_ROOT / "autograder" / "cases.py"),
        str(REPO_ROOT / ".git"),
        str(cache_dir()),
        str(tmp_path),
        "/etc/shadow",
        "/etc/hostname",
        "/var",
        "/home/student/../../etc/shadow",
    ]
    jail = isolation.build(
        [sys.executable, "-c", PROBE, *looks],
        {"strides.py": engine},
        secrets,
        {"PYTHONPATH": str(REPO_ROOT)},
    )

    # as the runner does: through launch.py (a root grader's sandbox runs as uid 65534)
    argv = isolation.launched(jail.argv, jail, {"RLIMIT_FSIZE": 512 * 2**20})
    try:
        run = subprocess.run(
            argv, pass_fds=jail.pass_fds, capture_output=True, text=True, timeout=60
        )
    finally:
        jail.close()
    assert run.returncode == 0, run.stderr
    return json.loads(run.stdout)


@pytest.fixture(scope="module")
def inside(tmp_path_factory) -> dict:
    return probe(tmp_path_factory.mktemp("probe"))


def test_the_worker_is_nobody_in_its_own_folder(inside):
    assert (inside["uid"], inside["gid"]) == (isolation.NOBODY, isolation.NOBODY)
    assert inside["cwd"] == isolation.WORK
    assert inside["files"] == ["strides.py"]


def test_the_answers_and_the_class_are_not_there(inside, tmp_path):
    seen = inside["exists"]
    assert seen[str(REPO_ROOT / "autograder" / "cases.py")], "the autograder is readable"
    for path, there in seen.items():
        if not path.endswith("cases.py"):
            assert not there, f"{path} is visible inside the sandbox"


def test_the_hidden_cases_are_visible_only_to_their_own_worker(tmp_path):
    hidden = REPO_ROOT / "autograder" / "hidden" / "week1.py"
    if not hidden.exists():
        pytest.skip("a student copy has no hidden cases")
    assert probe(tmp_path, hidden=True)["exists"][str(hidden)]


def test_only_its_own_folder_and_tmp_are_writable_and_both_are_bounded(inside):
    assert inside["write_home"] == "1" and inside["write_tmp"] == "1"
    assert "Read-only file system" in inside["write_usr"]
    assert "No space left on device" in inside["fill_home"], inside["fill_home"]
    assert not Path("/tmp/torchlab-probe").exists(), "the sandbox's /tmp is its own"


def test_nothing_else_is_writable_not_even_where_bwrap_mounted_things(inside):
    """The sandbox's root, the folders made to mount the autograder on (on PYTHONPATH, ahead of
    the standard library), a hidden folder's empty stand-in and the kernel's settings."""
    for what in ("write_root", "write_on_path", "write_hidden"):
        assert "Read-only file system" in inside[what], (what, inside[what])
    refused = ("Read-only file system", "Permission denied")
    assert any(r in inside["write_proc_sys"] for r in refused), inside["write_proc_sys"]


def test_no_process_network_or_torch(inside):
    assert "Operation not permitted" in inside["fork"]
    assert "unreachable" in inside["connect"] or "Errno" in inside["connect"], inside["connect"]
    assert "AttributeError" in inside["import_torch_tensor"], "torch is an empty folder in week 1"
    assert len(eval(inside["processes"])) <= 2, "only bwrap's init and the worker"


def test_a_fork_bomb_through_ctypes_is_refused_by_the_kernel(tmp_path):
    """The guard refuses ctypes; code that gets past it still meets the seccomp filter."""
    engine = tmp_path / "strides.py"
    engine.write_text(
        "import ctypes\n"
        "libc = ctypes.CDLL(None, use_errno=True)\n"
        "def arange(*a, **k):\n"
        "    raise RuntimeError(f'fork gave {libc.fork()} errno {ctypes.get_errno()}')\n"
    )
    week = get_week("week1")
    native = week.__class__(**{**week.__dict__, "native": True})  # the guard allows ctypes
    from autograder import workers

    limits = Limits(case_seconds=2.0, run_seconds=10.0)
    items = [{"id": "week1::transpose_then_view", "examples": None}]
    outcomes = workers.run_engine(native, engine, items, limits, [])
    seen = json.dumps(outcomes["week1::transpose_then_view"].get("observation"))
    assert "fork gave -1 errno 1" in seen, outcomes


def test_a_check_says_which_isolation_it_ran_under():
    report = run_week(WEEKS["week1"], "reference", ["transpose_then_view"])
    assert report.isolation == isolation.describe(isolation.BUBBLEWRAP)
    assert report.isolation.startswith(isolation.BUBBLEWRAP)
    if isolation.root_mode():  # a root grader says what stands between the worker and root
        assert "the grader runs as root" in report.isolation
    guarded = run_week(
        WEEKS["week1"], "reference", ["transpose_then_view"], limits=Limits(isolation="none")
    )
    assert guarded.isolation == isolation.GUARD_ONLY
