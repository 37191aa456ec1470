"""The course in Simplified Chinese, kept in step with the English.

English is the source. Beside each English text lives its translation:

- a chapter or the syllabus, such as ``curriculum/week1_strides.md``:
  ``curriculum/zh/week1_strides.md``;
- a notebook's prose, the markdown cells of ``labs/week1_strides/week1.ipynb``:
  ``curriculum/zh/notebooks/week1.md``, each cell's translation under a line
  ``<!-- cell: ID -->`` naming the English cell's id. ``torchlab release --write`` builds
  ``labs/week1_strides/week1.zh.ipynb`` from the English notebook: its code cells as they are,
  its markdown cells translated. That second notebook is the language switch; each notebook's
  first line links to the other.

In step means: the same sections (the same heading levels in the same order, and the same
instructor blocks), and the same code examples, character for character (a code example is
code: torch's output and messages stay as torch prints them, in English). ``parity`` says
what differs; ``python -m autograder.i18n`` prints it for every text.
"""

from __future__ import annotations

import copy
import json
import re
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from autograder.weeks import WEEKS

REPO_ROOT = Path(__file__).resolve().parent.parent
CURRICULUM = REPO_ROOT / "curriculum"
ZH = CURRICULUM / "zh"
FENCE = re.compile(r"^(`{3,}|~{3,})")
HEADING = re.compile(r"^(#{1,6})\s+\S")
CELL = re.compile(r"^<!-- cell: ([\w.-]+) -->\s*$")
INSTRUCTOR = ("<!-- instructor -->", "<!-- /instructor -->")
# The first line of every notebook: a link to the same notebook in the other language.
SWITCH = {
    "en": "*[中文版]({stem}.zh.ipynb)*",
    "zh": "*[English]({stem}.ipynb)*",
}


@dataclass(frozen=True)
class Shape:
    """What must be the same in a text and its translation."""

    sections: list[str]  # "##" per heading, and the instructor markers, in order
    code: list[str]  # every fenced block, its fence line included, then every indented one


def shape(markdown: str) -> Shape:
    """The sections and code blocks of a Markdown text (headings inside code do not count)."""
    sections: list[str] = []
    code: list[str] = []
    fence: str | None = None
    block: list[str] = []
    for line in markdown.splitlines():
        if fence is not None:
            block.append(line)
            if line.strip() == fence:
                code.append("\n".join(block))
                fence, block = None, []
        elif m := FENCE.match(line.strip()):
            fence, block = m.group(1), [line.strip()]
        elif m := HEADING.match(line):
            sections.append(m.group(1))
        elif line.strip() in INSTRUCTOR:
            sections.append(line.strip())
    if fence is not None:
        code.append("\n".join(block))  # an unclosed block: compared as it is
    return Shape(sections, code + _indented_blocks(markdown))


LIST_LINE = re.compile(r"^(\s+|[-*+] |\d+\. )")


def _indented_blocks(markdown: str) -> list[str]:
    """Code shown by indentation (4 spaces, after a blank line, not inside a list item)."""
    out: list[str] = []
    lines = markdown.splitlines()
    fence, previous, i = None, "", 0
    while i < len(lines):
        line = lines[i]
        if fence is not None:
            fence = None if line.strip() == fence else fence
        elif m := FENCE.match(line.strip()):
            fence = m.group(1)
        elif line.startswith("    ") and i and not lines[i - 1].strip():
            if not LIST_LINE.match(previous):
                block = []
                while i < len(lines) and (lines[i].startswith("    ") or not lines[i].strip()):
                    block.append(lines[i])
                    i += 1
                while block and not block[-1].strip():
                    block.pop()
                out.append("\n".join(block))
                continue
        if line.strip():
            previous = line
        i += 1
    return out


def _headings(markdown: str) -> list[str]:
    """The heading lines, to name a section in a message."""
    out, fence = [], None
    for line in markdown.splitlines():
        if fence is not None:
            fence = None if line.strip() == fence else fence
        elif m := FENCE.match(line.strip()):
            fence = m.group(1)
        elif HEADING.match(line) or line.strip() in INSTRUCTOR:
            out.append(line.strip())
    return out


CJK = re.compile(r"[\u4e00-\u9fff]")
INLINE_CODE = re.compile(r"`[^`]*`")


def _prose_by_section(markdown: str) -> list[tuple[str, str]]:
    """(heading, its prose outside code) for the text before the first heading and each
    section after one."""
    out: list[tuple[str, list[str]]] = [("(the top)", [])]
    fence = None
    for line in markdown.splitlines():
        if fence is not None:
            fence = None if line.strip() == fence else fence
        elif m := FENCE.match(line.strip()):
            fence = m.group(1)
        elif HEADING.match(line):
            out.append((line.strip(), [line]))
        else:
            out[-1][1].append(line)
    return [(h, INLINE_CODE.sub("", "\n".join(lines))) for h, lines in out]


def untranslated(english: str, chinese: str, where: str) -> list[str]:
    """Sections whose English has prose and whose Chinese has no Chinese in it (a section
    left in English, or a file copied and not yet translated)."""
    en, zh = _prose_by_section(english), _prose_by_section(chinese)
    return [
        f"{where}: section {h_zh!r} is not translated (it has no Chinese)"
        for (_, p_en), (h_zh, p_zh) in zip(en, zh, strict=False)
        if len(re.findall(r"[A-Za-z]{3,}", p_en)) >= 5 and not CJK.search(p_zh)
    ]


def parity(english: str, chinese: str, where: str) -> list[str]:
    """What differs between a text and its translation, in words (empty: in step)."""
    en, zh = shape(english), shape(chinese)
    problems = untranslated(english, chinese, where)
    if en.sections != zh.sections:
        en_h, zh_h = _headings(english), _headings(chinese)
        i = next(
            (k for k, (a, b) in enumerate(zip(en.sections, zh.sections, strict=False)) if a != b),
            min(len(en.sections), len(zh.sections)),
        )
        at_en = en_h[i] if i < len(en_h) else "(the end)"
        at_zh = zh_h[i] if i < len(zh_h) else "(the end)"
        problems.append(
            f"{where}: the sections differ: English has {len(en.sections)} headings and markers,"
            f" Chinese {len(zh.sections)}; the first difference is number {i + 1}:"
            f" English {at_en!r}, Chinese {at_zh!r}"
        )
    if len(en.code) != len(zh.code):
        problems.append(f"{where}: English has {len(en.code)} code blocks, Chinese {len(zh.code)}")
    for k, (a, b) in enumerate(zip(en.code, zh.code, strict=False), 1):
        if a != b:
            line = next(
                (
                    f"English {x!r}, Chinese {y!r}"
                    for x, y in zip(a.splitlines(), b.splitlines(), strict=False)
                    if x != y
                ),
                "one is longer",
            )
            problems.append(f"{where}: code block {k} differs from the English: {line}")
    return problems


# -- chapters and the syllabus -------------------------------------------------------------


def chapters() -> list[Path]:
    """The English texts that have a translation: the syllabus and every chapter."""
    return sorted(CURRICULUM.glob("*.md"))


def translation_of(english: Path) -> Path:
    return ZH / english.name


# -- notebooks -------------------------------------------------------------------------------


def notebooks() -> dict[str, Path]:
    """Each registered week's English notebook."""
    return {
        name: w.lab_dir(REPO_ROOT) / f"{name}.ipynb"
        for name, w in WEEKS.items()
        if (w.lab_dir(REPO_ROOT) / f"{name}.ipynb").exists()
    }


def prose_path(week: str) -> Path:
    return ZH / "notebooks" / f"{week}.md"


def zh_notebook_path(week: str) -> Path:
    return WEEKS[week].lab_dir(REPO_ROOT) / f"{week}.zh.ipynb"


def parse_prose(text: str, where: str) -> dict[str, str]:
    """Cell id -> translated markdown, from a notebook's prose file in curriculum/zh/notebooks."""
    cells: dict[str, list[str]] = {}
    current: list[str] | None = None
    for i, line in enumerate(text.splitlines(), 1):
        if m := CELL.match(line):
            if m.group(1) in cells:
                raise ValueError(f"{where}, line {i}: cell {m.group(1)!r} appears twice")
            current = cells[m.group(1)] = []
        elif current is not None:
            current.append(line)
        elif line.strip() and not line.startswith("<!--"):
            raise ValueError(f"{where}, line {i}: text before the first '<!-- cell: ID -->' line")
    return {k: "\n".join(v).strip("\n") for k, v in cells.items()}


def _source(cell: dict[str, Any]) -> str:
    src = cell["source"]
    return src if isinstance(src, str) else "".join(src)


def _without_switch(text: str) -> str:
    """A markdown cell without the language-switch line at its top."""
    first, _, rest = text.partition("\n")
    if first.startswith("*[") and ".ipynb)*" in first:
        return rest.lstrip("\n")
    return text


def english_prose(week: str) -> dict[str, str]:
    """Cell id -> markdown of the English notebook (the switch line left out)."""
    nb = json.loads(notebooks()[week].read_text())
    return {
        c["id"]: _without_switch(_source(c)) for c in nb["cells"] if c["cell_type"] == "markdown"
    }


def notebook_parity(week: str) -> list[str]:
    """What differs between a week's notebook prose and its translation (empty: in step)."""
    path = prose_path(week)
    where = str(path.relative_to(REPO_ROOT) if path.is_relative_to(REPO_ROOT) else path)
    if not prose_path(week).exists():
        return [f"{where} is missing: the Chinese prose of {week}'s notebook"]
    try:
        zh = parse_prose(prose_path(week).read_text(), where)
    except ValueError as e:
        return [str(e)]
    en = english_prose(week)
    problems = [f"{where}: cell {k!r} is not translated" for k in en if k not in zh]
    problems += [f"{where}: cell {k!r} is not in the English notebook" for k in zh if k not in en]
    for k in en:
        if k in zh:
            problems += parity(en[k], zh[k], f"{where}, cell {k!r}")
    first = json.loads(notebooks()[week].read_text())["cells"][0]
    if not _source(first).startswith(SWITCH["en"].format(stem=week)):
        problems.append(
            f"{notebooks()[week].relative_to(REPO_ROOT)}: its first cell must begin with"
            f" {SWITCH['en'].format(stem=week)!r}, the link to the Chinese notebook"
        )
    return problems


def build_notebook(week: str) -> str:
    """The Chinese notebook of ``week``, as the text of an .ipynb file: the English
    notebook's cells, with each markdown cell's source replaced by its translation."""
    en_path = notebooks()[week]
    nb = json.loads(en_path.read_text())
    prose = parse_prose(prose_path(week).read_text(), str(prose_path(week)))
    out = copy.deepcopy(nb)
    for i, cell in enumerate(out["cells"]):
        if cell["cell_type"] != "markdown":
            continue
        text = prose.get(cell["id"])
        if text is None:
            raise ValueError(f"{prose_path(week)}: cell {cell['id']!r} is not translated")
        if i == 0:
            text = SWITCH["zh"].format(stem=week) + "\n\n" + text
        cell["source"] = text.splitlines(keepends=True)
    out.setdefault("metadata", {})["language_info_zh"] = {"translated_from": en_path.name}
    return json.dumps(out, indent=1, ensure_ascii=False) + "\n"


def generated_notebooks() -> dict[Path, str]:
    """Relative path -> text of each Chinese notebook whose prose exists."""
    return {
        zh_notebook_path(week).relative_to(REPO_ROOT): build_notebook(week)
        for week in notebooks()
        if prose_path(week).exists()
    }


# -- all of it -------------------------------------------------------------------------------


def problems() -> list[str]:
    """Everything out of step, for every text."""
    out = []
    for en in chapters():
        zh = translation_of(en)
        where = str(zh.relative_to(REPO_ROOT))
        if not zh.exists():
            out.append(f"{where} is missing: the Chinese of {en.relative_to(REPO_ROOT)}")
        else:
            out += parity(en.read_text(), zh.read_text(), where)
    for zh in sorted(ZH.glob("*.md")):
        if not (CURRICULUM / zh.name).exists():
            out.append(f"{zh.relative_to(REPO_ROOT)} has no English original in curriculum/")
    for week in notebooks():
        out += notebook_parity(week)
    return out


def template(week: str) -> str:
    """The English prose of a week's notebook in the translation file's form: what a
    translator starts from, replacing each cell's English."""
    return "".join(f"<!-- cell: {k} -->\n{v}\n\n" for k, v in english_prose(week).items())


def main(argv: list[str] | None = None) -> int:
    """``python -m autograder.i18n [PATH ...]``: what is out of step (only PATHs' texts).
    ``python -m autograder.i18n template WEEK``: a notebook's prose to translate."""
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["template"] and len(argv) == 2:
        print(template(argv[1]), end="")
        return 0
    found = [p for p in problems() if not argv or any(a in p for a in argv)]
    print("\n".join(found) if found else "in step")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
