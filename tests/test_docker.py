"""The images in docker/, checked as text: what each Dockerfile copies exists, what it installs
is what pyproject.toml and scripts/setup.sh pin, and the rules a linter such as hadolint applies:
pinned base images, apt lists cleaned in the same layer, and an unprivileged user at the end.
Then the sharded grading the Slurm array and the Kubernetes Job run: their own commands, shard by
shard, merged, against one unsharded run. tests/test_images.py builds the images and runs them.
"""

import csv
import json
import os
import re
import shlex
import shutil
import stat
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from autograder import cli, isolation
from autograder.samples import build_sample_class

ROOT = Path(__file__).resolve().parent.parent
DOCKERFILES = sorted((ROOT / "docker").glob("*.Dockerfile"))
PINNED_TORCH = next(
    d
    for d in tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    if d.startswith("torch==")
)
# The CPU wheel's own version: download.pytorch.org/whl/cpu names it so, and PyPI's torch of the
# same number is the CUDA build, so an image pins the local version too.
CPU_TORCH = PINNED_TORCH + "+cpu"


def instructions(path: Path) -> list[tuple[str, str]]:
    """(INSTRUCTION, arguments), continuation lines joined, comments left out."""
    text = re.sub(r"\\\n", " ", path.read_text())
    out = []
    for line in text.splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            word, _, rest = line.partition(" ")
            out.append((word.upper(), rest.strip()))
    return out


def arg_defaults(path: Path) -> dict[str, str]:
    """Each ARG's default value (an ARG without one: empty)."""
    args = [a for w, a in instructions(path) if w == "ARG"]
    return dict((a.split("=", 1) + [""])[:2] for a in args)


def test_there_are_a_student_and_a_grader_image():
    assert {p.name for p in DOCKERFILES} >= {"student.Dockerfile", "grader.Dockerfile"}


@pytest.mark.parametrize("path", DOCKERFILES, ids=lambda p: p.name)
def test_base_images_are_pinned(path):
    defaults = arg_defaults(path)
    for word, args in instructions(path):
        if word == "FROM":
            # FROM ${BASE}: scripts/build_images.sh passes a debootstrapped base where no
            # registry answers; the default, the usual base, is what must be pinned.
            image = re.sub(r"\$\{?(\w+)\}?", lambda m: defaults[m.group(1)], args.split()[0])
            assert ":" in image and not image.endswith(":latest"), f"{path.name}: FROM {image}"
            assert "bookworm" in image, "Debian bookworm: its python3 is 3.11, the debootstrap's"


@pytest.mark.parametrize("path", DOCKERFILES, ids=lambda p: p.name)
def test_apt_lists_are_cleaned_in_the_same_layer(path):
    for word, args in instructions(path):
        if word == "RUN" and "apt-get install" in args:
            assert "rm -rf /var/lib/apt/lists/*" in args, f"{path.name}: RUN {args}"
            assert "graphviz" in args and "bubblewrap" in args, "dot for torchviz; the sandbox"
            assert "g++" in args and "ninja-build" in args, "week 5 builds C++ with ninja"


@pytest.mark.parametrize("path", DOCKERFILES, ids=lambda p: p.name)
def test_it_runs_as_an_unprivileged_user(path):
    users = [args for word, args in instructions(path) if word == "USER"]
    assert users and users[-1] not in ("root", "0"), f"{path.name}: ends as root"


@pytest.mark.parametrize("path", DOCKERFILES, ids=lambda p: p.name)
def test_it_installs_what_pyproject_pins(path):
    runs = " ".join(args for word, args in instructions(path) if word == "RUN")
    assert f"{CPU_TORCH} " in runs + " ", f"{path.name} must install {CPU_TORCH} (the CPU wheel)"
    steps = instructions(path)
    at = next(i for i, (w, r) in enumerate(steps) if w == "RUN" and "torch==" in r)
    assert '--index-url "$TORCH_INDEX"' in steps[at][1], steps[at][1]
    assert arg_defaults(path)["TORCH_INDEX"] == "https://download.pytorch.org/whl/cpu"
    # torch is installed before the project is copied in (a code change keeps torch's layer)
    assert [w for w, _ in steps].index("COPY") > at
    # the project itself from its pyproject.toml, so every other pin comes from there
    assert re.search(r"pip install [^&]*-e \"?\.(\[\w+\])?\"?", runs), runs


def test_images_setup_and_build_script_pin_the_same_torch():
    setup = (ROOT / "scripts" / "setup.sh").read_text()
    assert f"pip install -q {PINNED_TORCH}\n" in setup
    build = (ROOT / "scripts" / "build_images.sh").read_text()
    assert f"TORCH_PIN={CPU_TORCH}\n" in build
    assert f'TORCH_WHEEL_GLOB="torch-{CPU_TORCH.split("==")[1]}-cp311-' in build
    # the usual base the script tries first is the Dockerfiles' own default
    assert "sed -n 's/^ARG BASE=//p' docker/grader.Dockerfile" in build
    bases = {arg_defaults(p)["BASE"] for p in DOCKERFILES}
    assert len(bases) == 1, bases
    syntax = subprocess.run(["bash", "-n", str(ROOT / "scripts" / "build_images.sh")])
    assert syntax.returncode == 0


@pytest.mark.parametrize("path", DOCKERFILES, ids=lambda p: p.name)
def test_what_it_copies_exists(path):
    for word, args in instructions(path):
        if word == "COPY":
            sources = [a for a in args.split() if not a.startswith("--")][:-1]
            for source in sources:
                assert (ROOT / source).exists(), f"{path.name}: COPY {source}"


def test_the_student_image_opens_the_labs_and_the_grader_runs_torchlab():
    student = dict(instructions(ROOT / "docker" / "student.Dockerfile"))
    assert student["CMD"].endswith('"."]') and "jupyter" in student["CMD"]  # labs/, cpp_labs/
    grader = dict(instructions(ROOT / "docker" / "grader.Dockerfile"))
    assert grader["ENTRYPOINT"] == '["torchlab"]'


# The sharded grading the cluster files run. Their own shell runs their own commands, shard by
# shard, with the environment Slurm and Kubernetes give them; `torchlab` is a stand-in that
# records each command line, which then runs through torchlab's own CLI in this process (one
# torch import, not one per shard: the image tests run them as processes, in the image).
SHARD_CLASS = ("ada_reference", "bo_skeleton", "di_buggy")  # full marks, 0, and in between


def sbatch_options(script: str) -> dict[str, str]:
    return dict(re.findall(r"^#SBATCH --([\w-]+)=(\S+)", script, re.M))


def k8s_job(text: str) -> tuple[int, str]:
    """The indexed Job's completions and its container's shell command (the folded args)."""
    completions = int(re.search(r"^\s*completions:\s*(\d+)", text, re.M).group(1))
    block = re.search(r"args:\n\s*- >-\n((?:\s{14}\S.*\n)+)", text).group(1)
    return completions, " ".join(block.split())


def merge_command(text: str) -> str:
    """The merge the file's comments tell the instructor to run."""
    return re.search(r"torchlab grade --out [^\s\"]+ --merge [^\s\"]+", text).group(0)


def _recorder(bin_dir: Path, record: Path) -> None:
    """A `torchlab` on PATH that appends its argv, as JSON, to ``record``."""
    stub = bin_dir / "torchlab"
    stub.write_text(
        f"#!/bin/sh\nexec {shlex.quote(sys.executable)} -c "
        f'\'import json, sys; open(sys.argv[1], "a").write(json.dumps(sys.argv[2:]) + "\\n")\''
        f' {shlex.quote(str(record))} "$@"\n'
    )
    stub.chmod(stub.stat().st_mode | stat.S_IXUSR)


def _commands(run: list[tuple[list[str], dict[str, str]]], tmp: Path) -> list[list[str]]:
    """Runs each (argv, extra environment) through the shell with the recording torchlab, and
    returns the recorded torchlab command lines in order."""
    (tmp / "bin").mkdir(exist_ok=True)
    record = tmp / "commands.jsonl"
    record.unlink(missing_ok=True)
    _recorder(tmp / "bin", record)
    for argv, env in run:
        path = f"{tmp / 'bin'}{os.pathsep}{os.environ['PATH']}"
        done = subprocess.run(argv, env={**os.environ, "PATH": path, **env}, cwd=tmp)
        assert done.returncode == 0, argv
    return [json.loads(line) for line in record.read_text().splitlines()]


def _torchlab(argv: list[str]) -> None:
    if argv[0] == "grade" and "--merge" not in argv and isolation.bubblewrap_problem():
        argv = [*argv, "--unsafe-no-sandbox"]  # as tests/test_sample_class.py, said aloud
    assert cli.main(argv) == 0, argv


def _gradebook(out: Path) -> list[dict[str, str]]:
    with (out / "gradebook.csv").open() as f:
        return list(csv.DictReader(f))


def _parsed(argv: list[str]) -> object:
    return cli._parser().parse_args(argv)


def test_slurm_and_kubernetes_shards_merge_to_the_unsharded_gradebook(tmp_path):
    """Both files' commands, mapped to one class and one output folder, are the same
    torchlab commands (so they are graded once here); merged, their shards give the gradebook
    of one unsharded run."""
    build_sample_class(tmp_path / "sample")
    subs, grades, whole = tmp_path / "subs", tmp_path / "grades", tmp_path / "whole"
    for student in SHARD_CLASS:
        shutil.copytree(tmp_path / "sample" / student, subs / student)
    grades.mkdir()

    script = ROOT / "docker" / "slurm-grade.sh"
    slurm_text = script.read_text()
    options = sbatch_options(slurm_text)
    first, last = map(int, options["array"].split("-"))
    n = last - first + 1
    array = [
        (
            ["bash", str(script), str(subs), str(grades)],
            {
                "SLURM_ARRAY_TASK_ID": str(i),
                "SLURM_ARRAY_TASK_COUNT": str(n),
                "SLURM_CPUS_PER_TASK": options["cpus-per-task"],
            },
        )
        for i in range(first, last + 1)
    ]
    slurm_merge = merge_command(slurm_text).replace("$GRADES", str(grades))

    k8s_text = (ROOT / "docker" / "k8s-grade-job.yaml").read_text()
    completions, command = k8s_job(k8s_text)
    assert re.search(rf"^\s*parallelism:\s*{completions}$", k8s_text, re.M)

    def mounted(cmd: str) -> str:  # the pod's volumes, /subs and /grades, are these folders
        return cmd.replace("/subs", str(subs)).replace("/grades", str(grades))

    pods = [
        (["/bin/sh", "-c", mounted(command)], {"JOB_COMPLETION_INDEX": str(k)})
        for k in range(completions)
    ]
    slurm = _commands(array, tmp_path)
    k8s = _commands(pods, tmp_path)
    assert completions == n == len(slurm) == len(k8s)
    for i, (a, b) in enumerate(zip(slurm, k8s, strict=True), start=1):
        assert _parsed(a) == _parsed(b), (a, b)
        assert _parsed(a).shard == f"{i}/{n}" and _parsed(a).out == grades / f"shard-{i}"
        assert _parsed(a).submissions == subs and _parsed(a).week is None  # every week
        _torchlab(a)
    _torchlab(["grade", str(subs), "--out", str(whole), "--jobs", "2"])

    # The merge each file's comment gives, run by the shell once the shards are written.
    (merge,) = _commands([(["sh", "-c", slurm_merge], {})], tmp_path)
    (k8s_merge,) = _commands([(["/bin/sh", "-c", mounted(merge_command(k8s_text))], {})], tmp_path)
    assert _parsed(merge) == _parsed(k8s_merge)
    assert sorted(_parsed(merge).merge) == sorted(grades / f"shard-{i}" for i in range(1, n + 1))
    _torchlab(merge)
    assert (grades / "all" / "gradebook.csv").read_text() == (whole / "gradebook.csv").read_text()
    rows = _gradebook(grades / "all")
    assert sorted({r["student_id"] for r in rows}) == list(SHARD_CLASS)
    book = {r["student_id"]: r for r in rows if r["assignment"] == "week1"}  # their week
    top = int(book["ada_reference"]["max_score"])
    assert int(book["ada_reference"]["score"]) == top
    assert int(book["bo_skeleton"]["score"]) == 0 < int(book["di_buggy"]["score"]) < top
