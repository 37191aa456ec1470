"""The images in docker/, checked as text: what each Dockerfile copies exists, what it installs
is what pyproject.toml and scripts/setup.sh pin, and the rules a linter such as hadolint applies:
pinned base images, apt lists cleaned in the same layer, and an unprivileged user at the end.
Then the sharded grading the Slurm array and the Kubernetes Job run: their own commands, shard by
shard, merged, against one unsharded run. tests/test_images.py builds the images and runs them.
"""

import re
import subprocess
import tomllib
from pathlib import Path

import pytest

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
