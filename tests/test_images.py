"""The images, built and run (issue 31): scripts/build_images.sh builds them (from a
debootstrapped Debian bookworm where no registry answers), and each is entered as a container
would run it: its own root file system (``podman create`` + ``podman mount``, writable), a new
pid namespace with its own /proc, its configured user, environment and working folder.

- The grader image grades the bundled sample class as its unprivileged user, with bubblewrap
  working inside, and the gradebook equals the one graded here, outside the image.
- The Kubernetes Job's pods and the Slurm array's tasks run their commands in the grader image,
  shard by shard, and the merged gradebook equals the image's unsharded one.
- The student image serves JupyterLab; Debian's Chromium, outside, opens week 1's notebook
  and runs its check cell (tests/test_browser.py's driver, pointed at the image's server).

Building is slow (cold: minutes, see README), so these run only when asked:
``TORCHLAB_IMAGE_TESTS=1 python -m pytest tests/test_images.py``. Images are cached by the
hash of their inputs: an unchanged tree is not rebuilt. Entering an image needs root (as CI
has): containers themselves (crun) cannot run on every machine, a mounted image can.
"""

from __future__ import annotations

import csv
import json
import os
import secrets
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest

from autograder import isolation
from autograder.report import task_span
from autograder.runner import run_week
from autograder.samples import build_sample_class, sample_submissions
from autograder.weeks import WEEKS

ROOT = Path(__file__).resolve().parent.parent
HOW = "TORCHLAB_IMAGE_TESTS=1 python -m pytest tests/test_images.py"
LIMITS = ["--timeout", "2", "--student-timeout", "6", "--memory-mb", "1024", "--jobs", "2"]


def _why_not() -> str | None:
    """Why the image tests cannot run here, or None."""
    if os.environ.get("TORCHLAB_IMAGE_TESTS") != "1":
        return f"builds the images (minutes when cold): run with `{HOW}`"
    if os.geteuid() != 0:
        return "entering a built image (podman mount, a pid namespace, bwrap) needs root"
    for tool, package in [
        ("podman", "podman"),
        ("bwrap", "bubblewrap"),
        ("unshare", "util-linux"),
        ("curl", "curl"),
    ]:
        if not shutil.which(tool):
            return f"{tool} is not installed: apt-get install {package}"
    if not (shutil.which("debootstrap") or os.environ.get("TORCHLAB_IMAGE_BASE")):
        return (
            "debootstrap is not installed (apt-get install debootstrap): where no registry "
            "answers, the images' base is made from Debian's archive with it (where one does, "
            "set TORCHLAB_IMAGE_BASE=python:3.11-slim-bookworm)"
        )
    info = subprocess.run(["podman", "info"], capture_output=True, text=True)
    if info.returncode != 0:
        return f"podman cannot run here: {info.stderr.strip()[-300:]}"
    return None


WHY_NOT = _why_not()
pytestmark = pytest.mark.skipif(WHY_NOT is not None, reason=WHY_NOT or "")


def build(name: str) -> str:
    """Builds (or finds, by the hash of its inputs) the image ``name``; returns its tag."""
    started = time.monotonic()
    run = subprocess.run(
        [str(ROOT / "scripts" / "build_images.sh"), name], capture_output=True, text=True
    )
    assert run.returncode == 0, f"build_images.sh {name} failed:\n{run.stderr[-5000:]}"
    (line,) = [ln for ln in run.stdout.splitlines() if ln.startswith(f"{name} ")]
    tag = line.split()[1]
    print(*[ln for ln in run.stderr.splitlines() if ln.startswith("== ")], sep="\n")
    print(f"{name}: {tag} in {time.monotonic() - started:.0f} s")
    return tag


@dataclass
class Mounted:
    """A container's root file system, mounted, and how its image says to run it."""

    root: Path
    uid: int
    gid: int
    home: str
    env: dict[str, str]
    workdir: str
    entrypoint: list[str]
    cmd: list[str]

    def command(
        self,
        argv: list[str],
        binds: dict[str, Path] | None = None,
        env: dict[str, str] | None = None,
    ) -> list[str]:
        """The command line that runs ``argv`` in the container as its image's user: a new pid
        namespace with a fresh /proc (the kernel lets the user's bubblewrap mount its own proc
        only where no part of /proc is covered, as `bwrap --proc` or Docker's masked paths
        do), then bwrap as root to pivot into the root (in a chroot the kernel refuses user
        namespaces), then setpriv down to the user. ``binds``: container path -> host path."""
        out = ["unshare", "--pid", "--fork", "--kill-child", "--mount"]
        out += ["--propagation", "private", f"--mount-proc={self.root}/proc"]
        out += ["bwrap", "--die-with-parent", "--bind", str(self.root), "/"]
        out += ["--dev", "/dev", "--tmpfs", "/tmp"]
        for inside, outside in (binds or {}).items():
            out += ["--bind", str(outside), inside]
        out += ["--chdir", self.workdir, "--clearenv"]
        for key, value in {**self.env, "HOME": self.home, **(env or {})}.items():
            out += ["--setenv", key, value]
        out += ["--", "setpriv", f"--reuid={self.uid}", f"--regid={self.gid}", "--init-groups"]
        return out + argv


@contextmanager
def container(tag: str) -> Iterator[Mounted]:
    """A container of image ``tag``, created and mounted (not started), removed after."""
    config = json.loads(
        subprocess.run(
            ["podman", "image", "inspect", "--format", "{{json .Config}}", tag],
            capture_output=True,
            text=True,
            check=True,
        ).stdout
    )
    name = f"torchlab-test-{secrets.token_hex(4)}"
    subprocess.run(["podman", "create", "--name", name, tag], capture_output=True, check=True)
    try:
        mount = subprocess.run(
            ["podman", "mount", name], capture_output=True, text=True, check=True
        )
        root = Path(mount.stdout.strip())
        user = config["User"]
        entry = next(
            line.split(":")
            for line in (root / "etc" / "passwd").read_text().splitlines()
            if line.split(":")[0] == user or line.split(":")[2] == user
        )
        yield Mounted(
            root=root,
            uid=int(entry[2]),
            gid=int(entry[3]),
            home=entry[5],
            env=dict(e.split("=", 1) for e in config.get("Env") or []),
            workdir=config.get("WorkingDir") or "/",
            entrypoint=config.get("Entrypoint") or [],
            cmd=config.get("Cmd") or [],
        )
    finally:
        subprocess.run(["podman", "umount", name], capture_output=True)
        subprocess.run(["podman", "rm", "-f", name], capture_output=True)


def gradebook(path: Path) -> list[dict[str, str]]:
    """The rows of a gradebook.csv."""
    with path.open() as f:
        return list(csv.DictReader(f))


def writable_by(folder: Path, c: Mounted) -> Path:
    """``folder``, made and given to the container's user (a volume it writes to)."""
    folder.mkdir(parents=True, exist_ok=True)
    os.chown(folder, c.uid, c.gid)
    return folder


@pytest.fixture(scope="module")
def grader() -> Iterator[Mounted]:
    with container(build("grader")) as c:
        yield c


def test_the_grader_image_runs_as_its_unprivileged_user_with_bubblewrap(grader: Mounted) -> None:
    probe = "import os, sys; from autograder import isolation; import torch; print(os.getuid(), "
    probe += "torch.__version__, sys.version_info[:2], isolation.bubblewrap_problem())"
    run = subprocess.run(
        grader.command(["python", "-c", probe]), capture_output=True, text=True, timeout=120
    )
    assert run.returncode == 0, run.stderr
    assert run.stdout.split(maxsplit=1)[0] == str(grader.uid) != "0"
    assert "2.13.0+cpu (3, 11) None" in run.stdout, run.stdout  # the CPU wheel; a working bwrap
    assert grader.entrypoint == ["torchlab"]


def test_the_sample_class_graded_in_the_image_as_outside(grader: Mounted, tmp_path: Path) -> None:
    out = writable_by(tmp_path / "grades", grader)
    started = time.monotonic()
    inside = subprocess.run(
        grader.command(
            [*grader.entrypoint, "grade", "--out", "/grades/sample", *LIMITS],
            binds={"/grades": out},
        ),
        capture_output=True,
        text=True,
        timeout=900,
    )
    seconds_inside = time.monotonic() - started
    assert inside.returncode == 0, inside.stdout[-3000:] + inside.stderr[-3000:]

    # The same command here, outside the image, from this checkout.
    here = ["--unsafe-no-sandbox"] if isolation.bubblewrap_problem() else []
    started = time.monotonic()
    outside = subprocess.run(
        [sys.executable, "-m", "autograder.cli", "grade", "--out", str(tmp_path / "here")]
        + LIMITS
        + here,
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        timeout=900,
    )
    seconds_outside = time.monotonic() - started
    assert outside.returncode == 0, outside.stdout[-3000:] + outside.stderr[-3000:]
    print(f"sample class: {seconds_inside:.0f} s in the image, {seconds_outside:.0f} s outside")

    book = (out / "sample" / "gradebook.csv").read_text()
    assert book == (tmp_path / "here" / "gradebook.csv").read_text()
    rows = gradebook(out / "sample" / "gradebook.csv")
    assert {r["student_id"] for r in rows} == set(sample_submissions())
    assert len({r["score"] for r in rows}) > 2  # full marks, none, and some between
    # Graded by the image's user, each student inside bubblewrap (not the guard alone).
    assert (out / "sample" / "gradebook.csv").stat().st_uid == grader.uid
    for report in (out / "sample" / "students").glob("*/week1.json"):
        assert json.loads(report.read_text())["isolation"] == "bubblewrap", report


def test_the_cluster_files_shards_run_in_the_image(grader: Mounted, tmp_path: Path) -> None:
    """The Job's pods (its image: this one; /subs and /grades its volumes) and the Slurm
    array's tasks (the script in the image) grade their shards in the grader image; merged as
    the files say, each equals the image's unsharded gradebook."""
    from test_docker import k8s_job, merge_command, sbatch_options

    build_sample_class(tmp_path / "sample")
    subs = tmp_path / "subs"
    for student in ("ada_reference", "bo_skeleton", "di_buggy"):
        shutil.copytree(tmp_path / "sample" / student, subs / student)
    k8s, slurm = writable_by(tmp_path / "k8s", grader), writable_by(tmp_path / "slurm", grader)

    def run(argv: list[str], grades: Path, env: dict[str, str] | None = None) -> str:
        done = subprocess.run(
            grader.command(argv, binds={"/subs": subs, "/grades": grades}, env=env),
            capture_output=True,
            text=True,
            timeout=900,
        )
        assert done.returncode == 0, f"{argv}\n{done.stdout[-3000:]}{done.stderr[-3000:]}"
        return done.stdout

    timings = {}
    started = time.monotonic()
    run(["torchlab", "grade", "/subs", "--out", "/grades/whole", "--jobs", "2"], k8s)
    timings["unsharded (first: torch's answers for every week)"] = time.monotonic() - started

    # The image's own copies of the files.
    docker = grader.root / grader.workdir.lstrip("/") / "docker"
    k8s_text = (docker / "k8s-grade-job.yaml").read_text()
    completions, pod = k8s_job(k8s_text)
    started = time.monotonic()
    for k in range(completions):
        run(["/bin/sh", "-c", pod], k8s, {"JOB_COMPLETION_INDEX": str(k)})
    run(["/bin/sh", "-c", merge_command(k8s_text)], k8s)
    timings[f"{completions} pods and the merge"] = time.monotonic() - started

    script = f"{grader.workdir}/docker/slurm-grade.sh"
    slurm_text = (docker / "slurm-grade.sh").read_text()
    sbatch = sbatch_options(slurm_text)
    first, last = map(int, sbatch["array"].split("-"))
    started = time.monotonic()
    for i in range(first, last + 1):
        env = {
            "SLURM_ARRAY_TASK_ID": str(i),
            "SLURM_ARRAY_TASK_COUNT": str(last - first + 1),
            "SLURM_CPUS_PER_TASK": sbatch["cpus-per-task"],
        }
        run(["bash", script, "/subs", "/grades"], slurm, env)
    run(["/bin/sh", "-c", merge_command(slurm_text).replace("$GRADES", "/grades")], slurm)
    timings[f"{last - first + 1} Slurm tasks and the merge"] = time.monotonic() - started
    print("; ".join(f"{k}: {v:.0f} s" for k, v in timings.items()))

    whole = (k8s / "whole" / "gradebook.csv").read_text()
    assert (k8s / "all" / "gradebook.csv").read_text() == whole
    assert (slurm / "all" / "gradebook.csv").read_text() == whole
    assert {r["student_id"] for r in gradebook(k8s / "all" / "gradebook.csv")} == set(
        os.listdir(subs)
    )
    shards = sorted(p.name for p in k8s.glob("shard-*"))
    assert shards == [f"shard-{k}" for k in range(1, completions + 1)]


# The student image: JupyterLab from it, Chromium from here.
@pytest.fixture(scope="module")
def student() -> Iterator[Mounted]:
    with container(build("student")) as c:
        yield c


@pytest.fixture(scope="module")
def image_lab(
    student: Mounted, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[str, str]]:
    """The image's own command (JupyterLab over the course folder), on loopback with a token,
    as its user: (base URL, token)."""
    from test_browser import _free_port

    port, token = _free_port(), secrets.token_hex(16)
    # Its --ip=0.0.0.0 is for a container's own network; this one shares the host's.
    cmd = ["--ip=127.0.0.1" if a.startswith("--ip=") else a for a in student.cmd]
    assert cmd != student.cmd, student.cmd
    argv = [
        *student.entrypoint,
        *cmd,
        f"--port={port}",
        f"--IdentityProvider.token={token}",
        "--LabApp.expose_app_in_browser=True",  # window.jupyterapp, to run one cell
    ]
    log_path = tmp_path_factory.mktemp("image-lab") / "server.log"
    log = log_path.open("w")
    server = subprocess.Popen(student.command(argv), stdout=log, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}"
    try:
        from test_browser import wait_for_lab

        wait_for_lab(base, token, server, 120, log_path, "JupyterLab did not start in the image")
        yield base, token
    finally:
        # unshare ignores SIGTERM while it waits; killed, it takes its pid namespace (the
        # server, its kernels, a check server) down with it (--kill-child).
        server.kill()
        server.wait(20)
        log.close()


@pytest.fixture(scope="module")
def browser() -> Iterator[object]:
    from test_browser import CHROMIUM, DRIVER, chromium

    if not (CHROMIUM and DRIVER):
        pytest.skip("Chromium is not installed: apt-get install chromium chromium-driver")
    yield from chromium()


def test_week1_notebook_from_the_student_image_in_chromium(
    student: Mounted, image_lab, browser
) -> None:
    from test_browser import _open_and_check

    course = student.root / student.workdir.lstrip("/")
    assert (course / "labs" / "week1_strides" / "week1.ipynb").is_file()
    assert not (course / "reference_impl").exists(), "the student copy has no answers"
    labs = course / "labs" / "week1_strides"
    rows = _open_and_check(
        browser, image_lab, "week1.ipynb", "image_week1", "labs/week1_strides", labs
    )
    # The same cases, run here on the image's copy of the learner's file (the skeleton).
    report = run_week(WEEKS["week1"], str(labs), ["1.4"])
    want = [
        [r.name, task_span(r.tasks), f"{r.earned}/{r.points}", r.status] for r in report.results
    ]
    assert want and [row[:4] for row in rows] == want
    # The kernel that ran the cell is the image's: it checked the image's file.
    assert f"{student.workdir}/labs/week1_strides/strides.py" in browser.page_source
    for case, _, _, result, _ in rows:
        assert result == "not implemented", case
