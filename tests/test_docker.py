"""The images in docker/, checked without a Docker engine (none runs on these machines): what
each Dockerfile copies exists, what it installs is what pyproject.toml pins, and the rules a
linter such as hadolint applies: pinned base images, apt lists cleaned in the same layer, and
an unprivileged user at the end."""

import re
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


def test_there_are_a_student_and_a_grader_image():
    assert {p.name for p in DOCKERFILES} >= {"student.Dockerfile", "grader.Dockerfile"}


@pytest.mark.parametrize("path", DOCKERFILES, ids=lambda p: p.name)
def test_base_images_are_pinned(path):
    for word, args in instructions(path):
        if word == "FROM":
            image = args.split()[0]
            assert ":" in image and not image.endswith(":latest"), f"{path.name}: FROM {image}"


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
    assert PINNED_TORCH in runs, f"{path.name} must install {PINNED_TORCH} (the CPU wheel)"
    assert "download.pytorch.org/whl/cpu" in runs, "an unpinned index pulls CUDA packages"
    # the project itself from its pyproject.toml, so every other pin comes from there
    assert re.search(r"pip install [^&]*-e \"?\.(\[\w+\])?\"?", runs), runs


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
