"""The course materials are right about torch 2.13: every result they state is checked here.

The convention (one for the chapter and for the notebook's markdown cells): a result about
torch is stated only inside a fenced ```python block, in doctest style::

    >>> x = torch.arange(6.).view(2, 3)
    >>> x.t().stride()          # a comment is fine
    (1, 3)
    >>> x.view(4)
    RuntimeError: shape '[4]' is invalid for input of size 6

A ``>>>`` line (with ``...`` continuation lines) is run as in the interactive interpreter;
the lines under it, up to the next ``>>>`` or the end of the block, are what it must print
(the ``repr`` of an expression's value, and anything it prints). An error is shown as one
line, ``ExceptionType: first line of its message``, and both parts must match. Each section
(a ``#``, ``##`` or ``###`` heading; a notebook cell) starts from a namespace holding only
``torch``, and the examples of its blocks share it, in order, as a reader running them would.

Prose may repeat a result, but only a checked one: ``test_inline_claims_are_checked`` finds
sentences that quote a call and what it gives ("`x.t().stride()` is `(1, 3)`", "raises `...`")
and asks for an example whose source has the call and whose output has the result, or else
evaluates the call itself. The notebook's other statements are checked by ``NOTEBOOK_CLAIMS``.
"""

from __future__ import annotations

import ast
import contextlib
import io
import json
import re
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
import torch

from autograder.authoring import SYLLABI, case_counts, syllabus_rows
from autograder.weeks import WEEKS

ROOT = Path(__file__).resolve().parent.parent
# Every chapter and every lab notebook is checked, registered week or not; the task lists are
# checked for each registered week (its chapter is curriculum/<folder>.md).
CHAPTERS = sorted((ROOT / "curriculum").glob("week*_*.md"))
NOTEBOOKS = sorted(
    p for track in ("labs", "cpp_labs") for p in (ROOT / track).glob("week*_*/week*.ipynb")
)
WEEK1_NOTEBOOK = ROOT / "labs" / "week1_strides" / "week1.ipynb"


def chapter_of(week: str) -> Path:
    return ROOT / "curriculum" / f"{WEEKS[week].folder}.md"


def skeleton_of(week: str) -> Path:
    return WEEKS[week].lab_dir(ROOT) / f"{WEEKS[week].module}.py"


FENCE = re.compile(r"^```(\w*)\s*$")


@dataclass(frozen=True)
class Block:
    where: str  # "week1_strides.md:57" or "week1.ipynb:cell 4:3"
    section: str  # the heading the block is under: examples of one section share a namespace
    lang: str
    lines: tuple[str, ...]


@dataclass(frozen=True)
class Example:
    block: Block
    where: str
    source: str
    want: str


def fenced_blocks(text: str, where: str) -> list[Block]:
    """Every fenced block of a markdown text, with the line its opening fence is on."""
    blocks, lang, start, body, section = [], None, 0, [], where
    for n, line in enumerate(text.splitlines(), start=1):
        fence = FENCE.match(line.strip())
        if lang is None and re.match(r"#{1,3} ", line):
            section = f"{where}: {line.lstrip('#').strip()}"
        elif lang is None and fence:
            lang, start, body = fence.group(1), n, []
        elif lang is not None and line.strip() == "```":
            blocks.append(Block(f"{where}:{start}", section, lang, tuple(body)))
            lang = None
        elif lang is not None:
            body.append(line)
    assert lang is None, f"{where}: the block opened on line {start} is never closed"
    return blocks


def examples_of(block: Block) -> list[Example]:
    """Split a doctest-style block into examples: source lines, then the output they state."""
    out: list[Example] = []
    source: list[str] = []
    want: list[str] = []
    first_line = 0
    base = int(block.where.rsplit(":", 1)[1])

    def close() -> None:
        if source:
            where = f"{block.where.rsplit(':', 1)[0]}:{first_line}"
            text = "\n".join(source)
            out.append(Example(block, where, text, "\n".join(want).rstrip()))

    for n, line in enumerate(block.lines, start=base + 1):
        if line.startswith(">>> ") or line == ">>>":
            close()
            source, want, first_line = [line[4:]], [], n
        elif (line.startswith("... ") or line == "...") and source and not want:
            source.append(line[4:])
        elif source:
            want.append(line)
        elif line.strip():
            raise AssertionError(f"{block.where}: output line {line!r} before any >>> line")
    close()
    return out


def notebook_markdown(notebook: Path) -> list[tuple[int, str]]:
    cells = json.loads(notebook.read_text())["cells"]
    return [(i, "".join(c["source"])) for i, c in enumerate(cells) if c["cell_type"] == "markdown"]


def material_texts() -> list[tuple[str, str]]:
    """(where, markdown text) for every chapter and every notebook markdown cell."""
    texts = [(chapter.name, chapter.read_text()) for chapter in CHAPTERS]
    for notebook in NOTEBOOKS:
        texts += [(f"{notebook.name}:cell {i}", t) for i, t in notebook_markdown(notebook)]
    return texts


def all_blocks() -> list[Block]:
    return [b for where, text in material_texts() for b in fenced_blocks(text, where)]


def all_examples() -> list[Example]:
    return [e for b in all_blocks() if b.lang == "python" for e in examples_of(b)]


EXAMPLES = all_examples()


def _id(e: Example) -> str:
    first = e.source.splitlines()[0].split("  #")[0].strip()
    return f"{e.where} {first[:50]}"


def _run(source: str, namespace: dict) -> str:
    """Run one example as the interactive interpreter would; return what it printed."""
    buffer = io.StringIO()
    hook = sys.displayhook

    def display(value: object) -> None:
        if value is not None:
            print(repr(value), file=buffer)

    sys.displayhook = display
    try:
        with contextlib.redirect_stdout(buffer):
            exec(compile(source + "\n", "<example>", "single"), namespace)  # noqa: S102
    finally:
        sys.displayhook = hook
    return buffer.getvalue().rstrip()


def _error_line(exc: BaseException) -> str:
    message = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
    return f"{type(exc).__name__}: {message}"


QUOTING = [c for c in CHAPTERS if any(e.where.startswith(f"{c.name}:") for e in EXAMPLES)]


def test_every_week_has_a_chapter_and_a_notebook():
    for name, week in WEEKS.items():
        assert chapter_of(name) in CHAPTERS, f"{name}: no chapter {chapter_of(name)}"
        assert week.lab_dir(ROOT) / f"{name}.ipynb" in NOTEBOOKS, f"{name}: no notebook"


@pytest.mark.parametrize("chapter", QUOTING, ids=lambda p: p.name)
def test_torch_is_the_version_the_materials_quote(chapter: Path):
    assert torch.__version__.startswith("2.13."), torch.__version__
    assert "torch 2.13.0" in chapter.read_text()


@pytest.mark.parametrize("chapter", QUOTING, ids=lambda p: p.name)
def test_there_are_examples_to_check(chapter: Path):
    mine = [e for e in EXAMPLES if e.where.startswith(f"{chapter.name}:")]
    assert len(mine) >= (100 if chapter.name == "week1_strides.md" else 30), len(mine)


@pytest.mark.parametrize("example", EXAMPLES, ids=_id)
def test_example_states_what_torch_gives(example: Example):
    namespace: dict = {"torch": torch}
    section = [e for e in EXAMPLES if e.block.section == example.block.section]
    for earlier in section[: section.index(example)]:
        try:
            _run(earlier.source, namespace)
        except Exception:  # noqa: BLE001 - an error an earlier example states is fine
            pass
    try:
        got = _run(example.source, namespace)
    except Exception as exc:  # noqa: BLE001 - an error is an answer too
        got = _error_line(exc)
    assert got == example.want, (
        f"{example.where}: `{example.source}`\n  the text says: {example.want}\n"
        f"  torch {torch.__version__} gives: {got}"
    )


def test_every_block_states_checked_results():
    """No fenced block outside the convention: each is a python block of >>> examples."""
    for block in all_blocks():
        assert block.lang == "python", f"{block.where}: a ```{block.lang} block is not checked"
        assert examples_of(block), f"{block.where}: a python block with no >>> example"


# --- results stated in prose -------------------------------------------------------------------

# A quoted call followed by what it gives: "`x.t().stride()` is `(1, 3)`", "`v[::-1]` raises
# `...`", "`m.t().view(12)` fails". Also a message on its own: "2.13 says `...`".
SPAN = re.compile(r"(`+)(.+?)\1")
VERB = re.compile(r"\s+(is|are|gives|returns|has strides?|has shape|raises|works|succeeds|fails)\b")
RESULT_VERBS = ("is", "are", "gives", "returns", "has stride", "has strides", "has shape")


def _prose(text: str) -> str:
    """A markdown text without its fenced blocks, on one line (inline code may wrap)."""
    kept, fenced = [], False
    for line in text.splitlines():
        if FENCE.match(line.strip()):
            fenced = not fenced
        elif not fenced:
            kept.append(line.strip())
    return " ".join(kept)


def _norm(code: str) -> str:
    return re.sub(r"\s+", "", code).replace("torch.", "")


def prose_claims() -> list[tuple[str, str, str, str]]:
    """(where, call, verb, stated result) for each result a sentence states about torch."""
    claims = []
    for where, text in material_texts():
        prose = _prose(text)
        spans = list(SPAN.finditer(prose))
        for i, span in enumerate(spans):
            code = span.group(2).strip()
            after = prose[span.end() : spans[i + 1].start() if i + 1 < len(spans) else None]
            before = prose[spans[i - 1].end() if i else 0 : span.start()]
            if re.search(r"\b(raises|says)\s+$", before) and " " in code:
                claims.append((where, "", "raises", code))  # a message, not a type name
            verb = VERB.match(after)
            if not verb or not re.search(r"[(\[]", code) or re.search(r"[^=!<>]=[^=]", code):
                continue  # no result stated, not a call, or a statement (`x[:, 0] = 1`)
            result = ""
            if i + 1 < len(spans) and after[verb.end() :].strip() == "":
                result = spans[i + 1].group(2).strip()
            if result or verb.group(1) not in RESULT_VERBS:
                claims.append((where, code, verb.group(1), result))
    return claims


class _TorchNames(dict):
    """Names for a call quoted without ``torch.``: `zeros(3).stride()`."""

    def __missing__(self, name: str) -> object:
        try:
            return getattr(torch, name)
        except AttributeError:
            raise KeyError(name) from None


@pytest.mark.parametrize("where, call, verb, result", prose_claims(), ids=lambda v: str(v)[:40])
def test_inline_claims_are_checked(where: str, call: str, verb: str, result: str):
    """A result stated in prose must be one a >>> example checks, or one torch gives directly."""
    wanted = _norm(result)
    for e in EXAMPLES:
        if _norm(call) in _norm(e.source) and wanted in _norm(e.want):
            return
    if call:
        try:
            value = eval(call, {"torch": torch}, _TorchNames())  # noqa: S307
        except Exception as exc:  # noqa: BLE001
            got = _error_line(exc)
            if verb in ("raises", "fails") and wanted in _norm(got):
                return
        else:
            if verb not in ("raises", "fails") and wanted in _norm(repr(value)):
                return
    pytest.fail(
        f"{where}: `{call}` {verb} `{result}` is stated in prose, but no >>> example checks "
        "it: quote it in a ```python block (or fix it)"
    )


# --- the notebook's results outside >>> blocks ----------------------------------------------------

# What the notebook's prose and code comments state, each as (its words, a check that must be
# True in torch). The words are looked up with whitespace collapsed; a claim the notebook no
# longer makes is skipped. New results belong in >>> blocks, which the tests above check.
NOTEBOOK_CLAIMS = [
    (
        "`torch.arange(12)` allocates one storage of 12 int64 elements (96 bytes)",
        "torch.arange(12).dtype == torch.int64"
        " and torch.arange(12).untyped_storage().nbytes() == 96",
    ),
    (
        "`view(3, 4)` makes a second tensor on the *same* storage",
        "(lambda a: a.view(3, 4).untyped_storage().data_ptr() == a.untyped_storage().data_ptr())"
        "(torch.arange(12))",
    ),
    (
        "so it is no longer contiguous, and `view(12)` becomes impossible",
        "not torch.arange(12).view(3, 4).t().is_contiguous() and raises("
        "lambda: torch.arange(12).view(3, 4).t().view(12))",
    ),
    (
        "# size-1 stride ignored",
        "torch.empty(2, 1, 3).as_strided((2, 1, 3), (3, 999, 1)).is_contiguous()",
    ),
    (
        "# empty: contiguous",
        "torch.empty(0, 3).as_strided((0, 3), (7, 5)).is_contiguous()",
    ),
    (
        "x.untyped_storage().data_ptr()) # a copy",
        "(lambda x: x.t().flatten().untyped_storage().data_ptr() != x.untyped_storage().data_ptr())"
        "(torch.arange(12).view(3, 4))",
    ),
    (
        "`stride(0)` becomes 8, the storage grows from 60 to 96 bytes",
        "torch.empty(3, 8)[:, :5].stride(0) == 8 and torch.empty(3, 5).untyped_storage().nbytes()"
        " == 60 and torch.empty(3, 8)[:, :5].untyped_storage().nbytes() == 96",
    ),
    (
        "8 float32 columns are exactly 32 bytes",
        "torch.empty(8).untyped_storage().nbytes() == 32",
    ),
]


def _notebook_text() -> str:
    cells = json.loads(WEEK1_NOTEBOOK.read_text())["cells"]
    return re.sub(r"\s+", " ", " ".join("".join(c["source"]) for c in cells))


def _raises(fn) -> bool:
    try:
        fn()
    except Exception:  # noqa: BLE001
        return True
    return False


@pytest.mark.parametrize("words, check", NOTEBOOK_CLAIMS, ids=[w for w, _ in NOTEBOOK_CLAIMS])
def test_notebook_claim_is_true(words: str, check: str):
    if re.sub(r"\s+", " ", words) not in _notebook_text():
        pytest.skip(f"the notebook no longer says {words!r}")
    assert eval(check, {"torch": torch, "raises": _raises}), f"week1.ipynb says {words!r}: false"  # noqa: S307


# --- the chapter names every function the skeleton asks for -------------------------------------


def skeleton_tasks(week: str) -> dict[str, list[str]]:
    """Task -> the functions the learner's skeleton asks for under it, from its raises."""
    tasks: dict[str, list[str]] = {}
    for node in ast.walk(ast.parse(skeleton_of(week).read_text())):
        if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        for inner in ast.walk(node):
            if (
                isinstance(inner, ast.Raise)
                and isinstance(inner.exc, ast.Call)
                and getattr(inner.exc.func, "id", "") == "NotImplementedError"
                and inner.exc.args
                and isinstance(inner.exc.args[0], ast.Constant)
                and (
                    m := re.fullmatch(r"([\w.]+) \(Task (\d+\.\d+)\)", str(inner.exc.args[0].value))
                )
            ):
                name = m.group(1).rsplit(".", 1)[-1]  # "Tensor.view" -> "view"
                assert name == node.name, f"{node.name} raises for {m.group(1)}"
                tasks.setdefault(m.group(2), []).append(name)
    for source in WEEKS[week].native_sources:  # C++: not_implemented("Class::name (Task 5.2)")
        text = (WEEKS[week].lab_dir(ROOT) / source).read_text()
        for qualified, task in re.findall(
            r'not_implemented\("([\w:]+) \(Task (\d+\.\d+)\)"\)', text
        ):
            tasks.setdefault(task, []).append(qualified.rsplit("::", 1)[-1])
    return tasks


def chapter_task_bullets(week: str) -> dict[str, str]:
    """Task -> its bullet's text in the chapter's "## The lab's tasks" section."""
    text = chapter_of(week).read_text()
    section = text.split("## The lab's tasks", 1)[1].split("\n## ", 1)[0]
    bullets = re.split(r"\n- (?=\*\*Task )", "\n" + section)
    out = {}
    for bullet in bullets:
        if m := re.match(r"\*\*Task (\d+\.\d+)\b", bullet):
            assert m.group(1) not in out, f"two bullets for Task {m.group(1)}"
            out[m.group(1)] = " ".join(bullet.split())
    return out


def _task_key(task: str) -> list[int]:
    return [int(p) for p in task.split(".")]


SKELETON_TASKS = {week: skeleton_tasks(week) for week in WEEKS}


@pytest.mark.parametrize("week", list(WEEKS))
def test_the_skeleton_asks_for_every_task(week: str):
    """Tasks N.1, N.2, ... with no gap; week 1 has 13. A second part of a week (week2b)
    goes on from the first part's last task (2.5 after 2.4)."""
    number = week.removeprefix("week").rstrip("abc")
    before = [
        w for w in list(WEEKS)[: list(WEEKS).index(week)] if w.rstrip("abc") == f"week{number}"
    ]
    first = 1 + sum(len(SKELETON_TASKS[w]) for w in before)
    tasks = sorted(SKELETON_TASKS[week], key=_task_key)
    assert tasks == [f"{number}.{i}" for i in range(first, first + len(tasks))], tasks
    if week == "week1":
        assert len(tasks) == 13


@pytest.mark.parametrize("week", list(WEEKS))
def test_the_chapter_has_one_bullet_per_task(week: str):
    assert sorted(chapter_task_bullets(week), key=_task_key) == sorted(
        SKELETON_TASKS[week], key=_task_key
    )


@pytest.mark.parametrize("week", list(WEEKS))
def test_progress_has_a_title_per_task(week: str):
    from autograder.notebook import TASK_TITLES

    assert sorted(TASK_TITLES.get(week, {}), key=_task_key) == sorted(
        SKELETON_TASKS[week], key=_task_key
    )


@pytest.mark.parametrize(
    "week, task, name",
    [(w, t, n) for w, tasks in SKELETON_TASKS.items() for t, names in tasks.items() for n in names],
    ids=str,
)
def test_the_chapter_names_each_function_under_its_task(week: str, task: str, name: str):
    bullet = chapter_task_bullets(week).get(task, "")
    assert re.search(rf"`(\w+\.)?{re.escape(name)}(\(\))?`", bullet), (
        f"{skeleton_of(week).relative_to(ROOT)} asks for `{name}` under Task {task}, but the "
        f"chapter's bullet for Task {task} does not name it: {bullet[:120]!r}"
    )


def _numbered(section: str) -> list[int]:
    return [int(m.group(1)) for m in re.finditer(r"^(\d+)\. ", section, re.MULTILINE)]


def _section(text: str, heading: str) -> str:
    """The text under the first ``## `` heading that starts with ``heading``."""
    parts = re.split(r"^(## .*)$", text, flags=re.MULTILINE)
    for title, body in zip(parts[1::2], parts[2::2], strict=True):
        if title.startswith(heading):
            return body
    return ""


@pytest.mark.parametrize("week", sorted(WEEKS))
def test_instructor_guide_answers_every_thinking_question(week) -> None:
    """Each thinking question of a week's chapter has its answer, ``**N. ...**``, in the
    instructor's guide (``week2b``'s are in week 2's guide, under a heading naming it)."""
    chapter = chapter_of(week)
    questions = _numbered(_section(chapter.read_text(), "## Thinking questions"))
    assert questions == list(range(1, len(questions) + 1)) and questions, chapter.name
    guides = ROOT / "curriculum" / "instructor"
    guide = guides / f"{week}_answers.md"
    if not guide.exists():
        guide = guides / f"{week.rstrip('abcdefgh')}_answers.md"
    text = guide.read_text()
    parts = re.split(r"^(## Answers to the thinking questions.*)$", text, flags=re.MULTILINE)
    sections = dict(zip(parts[1::2], parts[2::2], strict=True))
    assert sections, f"{guide.name} has no '## Answers to the thinking questions'"
    named = [body for title, body in sections.items() if chapter.name in title]
    body = named[0] if named else next(iter(sections.values()))
    body = re.split(r"^## ", body, flags=re.MULTILINE)[0]
    answers = [int(n) for n in re.findall(r"^\*\*(\d+)\.", body, re.MULTILINE)]
    assert answers == questions, f"{guide.name} answers {answers}, {chapter.name} asks {questions}"


@pytest.mark.parametrize("path", SYLLABI, ids=lambda p: p.parent.name)
def test_the_syllabus_counts_every_weeks_cases_from_the_registry(path):
    """The table's public and hidden cases (and points) are the registry's, and every "N public
    cases" in the prose is one of them: `python -m autograder.authoring --syllabus` rewrites
    them after cases change."""
    text = path.read_text()
    stated = syllabus_rows(text)
    assert set(stated) == set(WEEKS), f"the table's weeks: {sorted(stated)}"
    wrong = {w: (n, case_counts(w)) for w, n in stated.items() if n != case_counts(w)}
    assert not wrong, f"stale counts (stated, registry): {wrong}; run the command above"
    prose = {int(n) for n in re.findall(r"(\d+)(?: public cases| 个公开测试用例)", text)}
    assert prose <= {n[0] for n in stated.values()}, f"prose names other counts: {prose}"
