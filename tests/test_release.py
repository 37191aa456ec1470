"""One source: the skeletons are generated from the reference, and the student copy is clean."""

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from autograder import native, release

REFERENCE = '''\
class Tensor:
    def view(self, *shape):
        """Task 1.4: a view with a new shape."""
        ### BEGIN SOLUTION
        return compute(shape)
        ### END SOLUTION


def contiguous_strides(shape):
    """Task 1.1: row-major strides."""
    x = 1
    ### BEGIN SOLUTION
    return x
    ### END SOLUTION
'''


def test_regions_become_named_raises():
    out = release.make_skeleton(REFERENCE, "reference_impl/demo.py")
    assert 'raise NotImplementedError("Tensor.view (Task 1.4)")' in out
    assert 'raise NotImplementedError("contiguous_strides (Task 1.1)")' in out
    assert "compute(shape)" not in out and "return x" not in out
    assert "Generated from reference_impl/demo.py" in out
    compile(out, "demo.py", "exec")


@pytest.mark.parametrize(
    "broken, words",
    [
        ("### BEGIN SOLUTION\nx = 1\n", "never closed"),
        ("x = 1\n### END SOLUTION\n", "without"),
        ("### BEGIN SOLUTION\n### BEGIN SOLUTION\n### END SOLUTION\n", "inside another"),
    ],
)
def test_broken_markers_are_reported_with_a_line(broken, words):
    with pytest.raises(release.ReleaseError, match=words):
        release.make_skeleton(broken, "x.py")


def test_committed_skeletons_match_the_reference():
    assert release.check() == []


def test_every_skeleton_imports_or_builds_without_the_reference(tmp_path):
    """A Python skeleton imports; a C++ skeleton compiles and links (the build the checks use,
    cached by its hash), so the learner starts from "not implemented", never a build error."""
    for week, _, lab in release.skeleton_pairs():
        if lab.suffix != ".py":
            built = native.build(week.native_library, {lab.name: lab})
            assert built.library is not None, f"{lab.name}: {built.error}"
            continue
        code = f"import runpy; runpy.run_path({str(lab)!r})"
        assert subprocess.run([sys.executable, "-c", code]).returncode == 0, week.name


def test_student_copy_has_no_answers(tmp_path):
    out = release.write_student_copy(tmp_path / "student")
    files = {p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file()}
    assert "labs/week1_strides/strides.py" in files
    assert "labs/week1_strides/week1.ipynb" in files
    assert "curriculum/week1_strides.md" in files
    assert "autograder/weeks/week1/__init__.py" in files
    for secret in ("reference_impl/", "autograder/hidden/", "curriculum/instructor/", "tests/"):
        assert not any(f.startswith(secret) for f in files), secret
    assert not any(".git/" in f or "__pycache__" in f for f in files)
    for week in ("week4", "week4c"):  # pinned answers: the public cases' only
        shipped = (out / "autograder" / "truth" / f"{week}_pinned.json").read_text()
        assert '"week4::task_4_2_best_fit"' in shipped or week == "week4c"
        assert "hidden_" not in shipped, f"{week}: a hidden case's answer ships"
    assert "autograder/truth/week4_data/cuda/model_transformer_adamw.json" in files
    assert "autograder/truth/week4_data/cuda/model_mlp_big_adam_varying_batch.json" not in files
    with pytest.raises(release.ReleaseError, match="not empty"):
        release.write_student_copy(out)


def test_student_copy_checks_its_own_skeleton(tmp_path):
    out = release.write_student_copy(tmp_path / "student")
    run = subprocess.run(
        [sys.executable, "-m", "autograder.cli", "check", "week1", "-k", "1.4"],
        cwd=out,
        env={"PYTHONPATH": str(out), "PATH": "/usr/bin:/bin", "HOME": str(tmp_path)},
        capture_output=True,
        text=True,
    )
    assert run.returncode == 1, run.stderr
    assert "not implemented yet" in run.stdout
    assert str(out) in run.stdout or "labs/week1_strides/strides.py" in run.stdout


# ---- The student copy speaks to students (issue 8) ------------------------------------------
#
# Every text file the release ships is read, and nothing in it may point the student at what
# the release leaves out: the reference (`--impl reference`, `reference_impl`, "the reference
# engine"), the folders in release.INSTRUCTOR_ONLY, or course paths and Markdown links that do
# not exist in the release. Shared docs mark instructor-only text with `<!-- instructor -->`
# ... `<!-- /instructor -->`, which write_student_copy removes.

RULES = {
    # Telling the student to run, or offering, the engine they do not have.
    "impl-reference": re.compile(
        r"--impl[ =]reference\b|TORCHLAB_IMPL=reference\b"
        r"|\bimpl\s*=\s*[\"']reference[\"']|\bhelp=[\"'][^\"'\n]*\breference\b"
    ),
    "reference_impl": re.compile(r"reference_impl"),
    # A path under an instructor-only folder: `tests/x.py`, `.ci/run`, or the folder's bare
    # name quoted ("samples", `.git`), except as a dict key ("tests": in results.json).
    "instructor-path": re.compile(
        r"(?<![\w./-])(?:\./)?(?:"
        + "|".join(re.escape(p) for p in release.INSTRUCTOR_ONLY if p != "reference_impl")
        + r")(?:/|(?=[\"'`](?!\s*:)))"
    ),
    # "the reference engine", "against the reference"; not "the reference count".
    "reference-wording": re.compile(
        r"\breference\s+engines?\b|\bthe\s+reference\b(?!\s*-?\s*count)", re.IGNORECASE
    ),
}
# A relative path with at least one "/" (a course path when its first part is a top-level
# name of the course, or when it starts with ../), and a Markdown link's target.
PATH_TOKEN = re.compile(r"(?<![\w./~$@:-])((?:\.\.?/)*[\w.][\w.-]*(?:/[\w.*<>-]+)+/?)")
MD_LINK = re.compile(r"\[[^\]\n]*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")

# What may stay, file by file and rule by rule, with the reason: the autograder's instructor
# tools, which need the instructor's copy and say so when it is missing, and code that keeps
# the reference away from workers. A reference in any other file, or in one of these files
# under another rule, fails.
_TOOL = "an instructor's tool: it works on the instructor's copy and says what is missing"
ALLOWED: dict[tuple[str, str], str] = {
    ("autograder/release.py", "reference_impl"): "the release itself: skeletons' source",
    ("autograder/release.py", "instructor-path"): "INSTRUCTOR_ONLY: what the release leaves out",
    ("autograder/release.py", "reference-wording"): _TOOL,
    ("autograder/labs.py", "reference_impl"): "resolves --impl reference; a given file's copy",
    ("autograder/labs.py", "reference-wording"): "says whose files the grader never reads",
    ("autograder/workers.py", "reference_impl"): "denies the reference to workers",
    ("autograder/workers.py", "impl-reference"): "a comment in the code that handles that impl",
    ("autograder/workers.py", "reference-wording"): "the same comment",
    ("autograder/runner.py", "reference-wording"): 'a student copy says "no reference engine"',
    ("autograder/differential/__init__.py", "reference_impl"): "the default only where it exists",
    ("autograder/differential/__init__.py", "impl-reference"): "the same line",
    ("autograder/cli.py", "reference_impl"): "progress checks it only where it exists; release",
    ("autograder/cli.py", "reference-wording"): "printed only where reference_impl/ exists",
    ("autograder/sandbox.py", "instructor-path"): "keeps the grader's .git out of workers' view",
    ("autograder/sandbox.py", "reference-wording"): "says what workers cannot see",
    ("autograder/isolation.py", "reference-wording"): "says what workers cannot see",
    ("autograder/samples.py", "reference_impl"): _TOOL + " (the sample class)",
    ("autograder/samples.py", "instructor-path"): _TOOL + " (samples/hostile/)",
    ("autograder/samples.py", "reference-wording"): _TOOL,
    ("autograder/nbgrader_bridge.py", "reference_impl"): _TOOL + " (its answer cell)",
    ("autograder/nbgrader_bridge.py", "instructor-path"): _TOOL,
    ("autograder/nbgrader_bridge.py", "reference-wording"): _TOOL,
    ("autograder/authoring.py", "reference_impl"): _TOOL + " (measures task tags)",
    ("autograder/authoring.py", "reference-wording"): _TOOL,
    ("autograder/authoring.py", "instructor-path"): _TOOL + " (recorded tags: tests/task_tags/)",
    ("autograder/mutation.py", "instructor-path"): _TOOL + " (mutants: tests/mutants/)",
    ("autograder/mutation.py", "reference-wording"): _TOOL + " (mutants of the reference)",
    ("autograder/pinning.py", "reference_impl"): _TOOL + " (pins a week's answers)",
    ("autograder/pinning.py", "instructor-path"): _TOOL + " (names its test)",
    ("autograder/pinning.py", "reference-wording"): _TOOL,
    ("autograder/weeks/week4/checks.py", "reference-wording"): _TOOL + " (what pinning checks)",
    ("pyproject.toml", "reference_impl"): "one pyproject for both copies: matches nothing here",
    ("pyproject.toml", "instructor-path"): "one pyproject for both copies: testpaths = tests "
    "(a student's pytest warns, then collects from the current folder)",
}
# Real problems in files this test's author did not own, line by line (file, rule, text of
# the line), each with what to change. The test fails once one is fixed, so that its entry is
# removed here.
PENDING: dict[tuple[str, str, str], str] = {}


def _tolerated(rel: str, where: str, rule: str) -> bool:
    return (rel, rule) in ALLOWED or any(
        (rel, rule) == (p, r) and text in where for p, r, text in PENDING
    )


def _texts(path: Path, rel: str) -> list[tuple[str, str]]:
    """(label, text) pairs to scan in one shipped file; [] for a binary file."""
    data = path.read_bytes()
    if b"\0" in data:
        return []
    try:
        text = data.decode()
    except UnicodeDecodeError:
        return []
    if not rel.endswith(".ipynb"):
        return [(rel, text)]
    out = []
    for i, cell in enumerate(json.loads(text)["cells"], 1):
        out.append((f"{rel} cell {i}", "".join(cell["source"])))
        for output in cell.get("outputs", []):
            parts = [output.get("text", "")] + list(output.get("data", {}).values())
            flat = "".join("".join(p) if isinstance(p, list) else str(p) for p in parts)
            out.append((f"{rel} cell {i} output", flat))
    return out


def _course_path_missing(token: str, rel: str, out: Path, top: set[str]) -> bool:
    """Whether ``token``, written in the release's file ``rel``, is a course path (or ../ path)
    that the release does not have. Paths under INSTRUCTOR_ONLY have rules of their own."""
    token = token.rstrip(".,;:")
    if token.startswith("../"):
        target = ((out / rel).parent / token).resolve()
        return not (target.is_relative_to(out) and target.exists())
    token = token.removeprefix("./")
    first = token.split("/")[0]
    if first not in top or any((token + "/").startswith(p + "/") for p in release.INSTRUCTOR_ONLY):
        return False
    pattern = re.sub(r"<[^>]*>", "*", token.rstrip("/"))
    return not any(out.glob(pattern)) if "*" in pattern else not (out / pattern).exists()


def _findings(out: Path, root: Path = release.REPO_ROOT) -> list[tuple[str, str, str]]:
    """(file, "line N: excerpt", rule) for every reference to what the release leaves out."""
    top = {p.name for p in root.iterdir()} | {p.name for p in out.iterdir()}
    found = []
    for path in sorted(p for p in out.rglob("*") if p.is_file()):
        rel = path.relative_to(out).as_posix()
        for label, text in _texts(path, rel):
            hits = [(m, rule) for rule, rx in RULES.items() for m in rx.finditer(text)]
            hits += [
                (m, "missing-path")
                for m in PATH_TOKEN.finditer(text)
                if _course_path_missing(m.group(1), rel, out, top)
            ]
            if rel.endswith((".md", ".ipynb")):
                for m in MD_LINK.finditer(text):
                    target = m.group(1).split("#")[0]
                    if target and not re.match(r"\w+:", target):
                        dest = ((out / rel).parent / target).resolve()
                        if not (dest.is_relative_to(out) and dest.exists()):
                            hits.append((m, "missing-link"))
            for m, rule in hits:
                line = text.count("\n", 0, m.start()) + 1
                excerpt = text.splitlines()[line - 1].strip()
                found.append((rel, f"{label}, line {line}: {excerpt}", rule))
    return found


@pytest.fixture(scope="module")
def student_copy(tmp_path_factory):
    return release.write_student_copy(tmp_path_factory.mktemp("release") / "student")


def test_student_copy_refers_only_to_what_it_ships(student_copy):
    found = _findings(student_copy)
    bad = [f"{where} [{rule}]" for rel, where, rule in found if not _tolerated(rel, where, rule)]
    assert not bad, "the student copy refers to what it does not ship:\n" + "\n".join(bad)
    stale = [key for key in ALLOWED if not any(key == (rel, rule) for rel, _, rule in found)]
    stale += [
        key
        for key in PENDING
        if not any(key[:2] == (rel, rule) and key[2] in where for rel, where, rule in found)
    ]
    assert not stale, f"no longer needed: remove these entries from ALLOWED/PENDING: {stale}"


def test_the_scan_finds_each_kind_of_reference(tmp_path):
    (tmp_path / "labs" / "week1_strides").mkdir(parents=True)
    (tmp_path / "labs" / "week1_strides" / "strides.py").write_text("")
    (tmp_path / "README.md").write_text(
        "torchlab check week1 --impl reference\n"  # 1
        "the answers: `reference_impl/strides.py`\n"  # 2
        "see `tests/test_cli.py` and `.ci/run`\n"  # 3
        "checks the reference\nengine\n"  # 4
        "[guide](curriculum/instructor/week1_answers.md)\n"  # 6
        "`autograder/weeks/week1.py` and `../shared/DESIGN.md`\n"  # 7
        # None of these: PyTorch's own paths, an output folder, a dict key, the lab.
        "a reference-counted pointer; watch the reference\ncount grow\n"
        '`c10/core/Contiguity.h`, `grades/`, {"tests": 1}, `.gitignore`\n'
        "`labs/week1_strides/strides.py`, [lab](labs/week1_strides/strides.py#L1)\n"
    )
    notebook = {"cells": [{"cell_type": "markdown", "source": ["a\n", "`--impl reference`"]}]}
    (tmp_path / "week1.ipynb").write_text(json.dumps(notebook))
    found = {(where.split(":")[0], rule) for _, where, rule in _findings(tmp_path)}
    assert found == {
        ("README.md, line 1", "impl-reference"),
        ("README.md, line 2", "reference_impl"),
        ("README.md, line 3", "instructor-path"),
        ("README.md, line 4", "reference-wording"),
        ("README.md, line 6", "instructor-path"),
        ("README.md, line 6", "missing-link"),
        ("README.md, line 7", "missing-path"),
        ("week1.ipynb cell 1, line 2", "impl-reference"),
    }
    assert len([w for _, w, rule in _findings(tmp_path) if rule == "missing-path"]) == 2


def test_instructor_blocks_are_left_out():
    text = "a\n\n<!-- instructor -->\nsecret\n\nmore\n<!-- /instructor -->\n\nb\n"
    assert release.strip_instructor_blocks(text, "x.md") == "a\n\nb\n"
    assert (
        release.strip_instructor_blocks("a\n\n<!-- instructor -->\nz\n<!-- /instructor -->\n", "x")
        == "a\n"
    )
    for broken, words in [
        ("<!-- instructor -->\nx\n", "line 1: <!-- instructor --> is never closed"),
        ("x\n<!-- /instructor -->\n", "line 2: <!-- /instructor --> without"),
        ("<!-- instructor -->\n<!-- instructor -->\n", "line 2: .* inside another block"),
        ("x <!-- instructor -->\n", "line 1: an instructor marker must be alone"),
    ]:
        with pytest.raises(release.ReleaseError, match=words):
            release.strip_instructor_blocks(broken, "x.md")


def test_readme_keeps_the_instructor_part_and_the_release_drops_it(student_copy):
    full = (release.REPO_ROOT / "README.md").read_text()
    student = (student_copy / "README.md").read_text()
    assert "--impl reference" in full and "reference_impl/" in full
    assert "<!-- instructor -->" in full
    assert "instructor -->" not in student
    assert "torchlab check week1 -k 1.4" in student and "pytest labs/week1_strides" in student
    skeleton = (student_copy / "labs/week1_strides/strides.py").read_text()
    assert skeleton.startswith("# Generated by `torchlab release`: this is the file you edit.")


def test_student_cli_offers_only_what_it_ships(student_copy, tmp_path):
    env = {"PYTHONPATH": str(student_copy), "PATH": "/usr/bin:/bin", "HOME": str(tmp_path)}
    # The session's cache (torch's answers, the C++ builds), keyed by the same sources: the
    # student's bare `torchlab` checks every week, and need not answer for torch again.
    env["TORCHLAB_CACHE"] = os.environ["TORCHLAB_CACHE"]
    outputs = {}
    for args in (
        [],
        ["--help"],
        *([c, "--help"] for c in ("check", "release", "progress")),
        ["grade", "--help"],
        ["nbgrader", "export", "--help"],
    ):
        run = subprocess.run(
            [sys.executable, "-m", "autograder.cli", *args],
            cwd=student_copy,
            env=env,
            capture_output=True,
            text=True,
        )
        assert run.returncode == 0, (args, run.stderr)
        outputs[" ".join(args) or "(no arguments)"] = run.stdout
    for args, text in outputs.items():
        assert "reference" not in text.lower(), f"torchlab {args}:\n{text}"
    assert "--impl" in outputs["check --help"]
    assert "Your progress" in outputs["(no arguments)"]
