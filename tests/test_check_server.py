"""The warm check server (autograder/check_server.py): the same report as a cold check, only
its user can reach it, a stale one is replaced, it ends when idle, and a hostile submission
checked through it reaches neither the server nor the next check."""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from autograder import check_server

REPO = Path(__file__).resolve().parent.parent
ESCAPE = Path("/tmp/torchlab-escape-through-server")


@pytest.fixture
def server_env(tmp_path):
    """An environment whose checks use a server of their own (its folder under tmp_path),
    stopped at the end."""
    run_dir = tmp_path / "run"
    run_dir.mkdir(mode=0o700)
    env = {k: v for k, v in os.environ.items() if k != "TORCHLAB_NO_SERVER"}
    env["XDG_RUNTIME_DIR"] = str(run_dir)
    yield env
    torchlab(env, "server", "stop")
    pid_file = run_dir / "torchlab" / "server.pid"
    if pid_file.exists():  # still running: a test failed half-way
        try:
            os.kill(int(pid_file.read_text()), signal.SIGKILL)
        except (ProcessLookupError, ValueError):
            pass


def torchlab(env, *args, cwd=REPO):
    return subprocess.run(
        [sys.executable, "-m", "autograder.cli", *args],
        capture_output=True,
        text=True,
        env=env,
        cwd=cwd,
        timeout=300,
    )


def server_pid(env) -> int:
    return int((Path(env["XDG_RUNTIME_DIR"]) / "torchlab" / "server.pid").read_text())


def verdicts(stdout: str) -> list[tuple[str, str, str]]:
    return [(r["name"], r["status"], r["message"]) for r in json.loads(stdout)["results"]]


def test_a_check_through_the_server_gives_the_same_report(server_env):
    cold = torchlab({**server_env, "TORCHLAB_NO_SERVER": "1"}, "check", "week1", "--json")
    first = torchlab(server_env, "check", "week1", "--json")
    again = torchlab(server_env, "check", "week1", "--json")
    assert verdicts(first.stdout) == verdicts(cold.stdout) == verdicts(again.stdout)
    assert "could not be used" not in first.stderr + again.stderr
    assert server_pid(server_env) > 0


def test_another_user_cannot_reach_the_socket(server_env):
    """The folder is 0700 and its user's: a process of another uid cannot connect."""
    torchlab(server_env, "check", "week1", "-k", "1.1")
    sock = Path(server_env["XDG_RUNTIME_DIR"]) / "torchlab" / "check.sock"
    assert sock.exists()
    assert oct(sock.parent.stat().st_mode & 0o777) == "0o700"
    pid = os.fork()
    if pid == 0:  # the child: become someone else, then try
        code = 0
        try:
            os.setgid(65534)
            os.setuid(65534)
            s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            s.connect(str(sock))
        except PermissionError:
            code = 3  # refused: what must happen
        except OSError:
            code = 4
        os._exit(code)
    _, status = os.waitpid(pid, 0)
    if os.getuid() != 0:
        pytest.skip("changing uid needs root")
    assert os.waitstatus_to_exitcode(status) == 3


def test_a_folder_someone_else_could_enter_is_refused(tmp_path, monkeypatch):
    loose = tmp_path / "loose"
    (loose / "torchlab").mkdir(parents=True)
    (loose / "torchlab").chmod(0o755)
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(loose))
    with pytest.raises(PermissionError, match="only you can enter"):
        check_server.runtime_dir()


def test_a_check_works_and_says_so_where_the_server_cannot_start(tmp_path, server_env):
    loose = tmp_path / "loose"
    (loose / "torchlab").mkdir(parents=True)
    (loose / "torchlab").chmod(0o777)
    run = torchlab({**server_env, "XDG_RUNTIME_DIR": str(loose)}, "check", "week1", "-k", "1.1")
    assert "the check server could not be used" in run.stderr
    assert "not implemented yet" in run.stdout  # the check itself ran


def test_a_stale_server_is_replaced(server_env, tmp_path):
    """What the server's answers depend on changed (here the oracle cache it would read):
    the old server goes and a fresh one answers."""
    torchlab(server_env, "check", "week1", "-k", "1.1")
    old = server_pid(server_env)
    moved = {**server_env, "TORCHLAB_CACHE": str(tmp_path / "elsewhere")}
    run = torchlab(moved, "check", "week1", "-k", "1.1")
    assert "not implemented yet" in run.stdout, run.stdout + run.stderr
    assert server_pid(server_env) != old
    deadline = time.monotonic() + 5
    while _alive(old) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not _alive(old)
    torchlab(moved, "server", "stop")


def test_an_idle_server_ends(server_env):
    env = {**server_env, "TORCHLAB_SERVER_IDLE": "1"}
    torchlab(env, "check", "week1", "-k", "1.1")
    pid = server_pid(env)
    deadline = time.monotonic() + 10
    while _alive(pid) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not _alive(pid)


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


HOSTILE = """
import os, signal, socket

def make_linear(q):
    found = []
    for path in ("/tmp/torchlab-escape-through-server", "/tmp/torchlab-0/planted"):
        try:
            open(path, "w").write("escaped")
            found.append(path)
        except OSError:
            pass
    for where in ("/tmp/torchlab-0/check.sock",):
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            s.connect(where)
            found.append(where)
        except OSError:
            pass
    for pid in (os.getppid(), 1):
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass
    raise RuntimeError(f"reached: {found}")
"""


def test_a_hostile_check_through_the_server_is_contained(server_env, tmp_path):
    """A week-2b submission (torch weeks run in the server's warm fork servers) that writes
    outside, looks for the server's socket and kills what it can: the server lives on, the
    next check through it is the reference's full marks, and nothing is left on the host."""
    if ESCAPE.exists():
        ESCAPE.unlink()
    honest = tmp_path / "honest"
    honest.mkdir()
    shutil.copy(REPO / "reference_impl" / "real_dispatch.py", honest)
    first = torchlab(server_env, "check", "week2b", "--impl", str(honest), "--json")
    pid = server_pid(server_env)
    hostile = tmp_path / "hostile"
    hostile.mkdir()
    (hostile / "real_dispatch.py").write_text(textwrap.dedent(HOSTILE))
    attacked = torchlab(server_env, "check", "week2b", "--impl", str(hostile), "--json")
    assert json.loads(attacked.stdout)["score"] == 0
    after = torchlab(server_env, "check", "week2b", "--impl", str(honest), "--json")
    assert verdicts(after.stdout) == verdicts(first.stdout)
    assert json.loads(after.stdout)["score"] == json.loads(after.stdout)["max_score"]
    assert server_pid(server_env) == pid and _alive(pid)
    assert not ESCAPE.exists()
    assert "reached: []" in attacked.stdout or "reached" not in attacked.stdout
