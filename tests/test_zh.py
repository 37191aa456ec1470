"""The Chinese course is in step with the English (see autograder/i18n.py): every chapter and
the syllabus exist in both languages with the same sections and the same code, each week's
notebook has its prose translated cell by cell, and the generated Chinese notebooks run the
English notebooks' code unchanged. The checker itself is shown to catch each kind of drift."""

from __future__ import annotations

import json

import pytest

from autograder import i18n
from autograder.weeks import WEEKS

CHAPTERS = i18n.chapters()


@pytest.mark.parametrize("english", CHAPTERS, ids=[p.name for p in CHAPTERS])
def test_chapter_has_its_translation_in_step(english) -> None:
    zh = i18n.translation_of(english)
    assert zh.exists(), f"curriculum/zh/{english.name} is missing: every chapter has a Chinese"
    assert i18n.parity(english.read_text(), zh.read_text(), str(zh)) == []


def test_no_chinese_text_without_an_english_original() -> None:
    orphans = [p.name for p in i18n.ZH.glob("*.md") if not (i18n.CURRICULUM / p.name).exists()]
    assert orphans == [], f"curriculum/zh has texts with no English original: {orphans}"


@pytest.mark.parametrize("week", sorted(WEEKS))
def test_notebook_prose_is_translated_cell_by_cell(week) -> None:
    assert week in i18n.notebooks(), f"{week} has no notebook"
    assert i18n.notebook_parity(week) == []


@pytest.mark.parametrize("week", sorted(WEEKS))
def test_chinese_notebook_runs_the_english_code(week) -> None:
    """The generated notebook (``torchlab release --write``) is current, its code cells are
    the English notebook's, every markdown cell is Chinese, and each links to the other."""
    path = i18n.zh_notebook_path(week)
    assert path.exists(), f"{path.name} is missing: run `torchlab release --write`"
    assert path.read_text() == i18n.build_notebook(week), f"{path.name} is stale: release --write"
    en = json.loads(i18n.notebooks()[week].read_text())["cells"]
    zh = json.loads(path.read_text())["cells"]
    assert [c["id"] for c in zh] == [c["id"] for c in en]
    for a, b in zip(en, zh, strict=True):
        if a["cell_type"] == "code":
            assert a["source"] == b["source"], f"{week}: code cell {a['id']} differs"
        else:
            assert i18n.CJK.search("".join(b["source"])), f"{week}: cell {a['id']} not Chinese"
    assert "".join(zh[0]["source"]).startswith(f"*[English]({week}.ipynb)*")
    assert "".join(en[0]["source"]).startswith(f"*[中文版]({week}.zh.ipynb)*")


# -- the checker catches drift: each kind, made on a real chapter -------------------------------

REAL = i18n.CURRICULUM / "week1_strides.md"


def _zh() -> str:
    return i18n.translation_of(REAL).read_text()


def _drift(chinese: str) -> list[str]:
    return i18n.parity(REAL.read_text(), chinese, "zh/week1_strides.md")


def test_checker_catches_a_dropped_section() -> None:
    lines = _zh().splitlines()
    heading = next(i for i, ln in enumerate(lines) if ln.startswith("## "))
    problems = _drift("\n".join(lines[:heading] + lines[heading + 1 :]))
    assert any("the sections differ" in p for p in problems), problems


def test_checker_catches_a_heading_at_another_level() -> None:
    text = _zh()
    i = text.index("\n## ") + 1
    problems = _drift(text[:i] + "#" + text[i:])
    assert any("the sections differ" in p and "number" in p for p in problems), problems


def test_checker_catches_a_changed_code_example() -> None:
    text = _zh()
    start = text.index("\n>>> ") + 1
    end = text.index("\n", start)
    problems = _drift(text[:start] + ">>> x = 1  # translated" + text[end:])
    assert any("code block" in p and "differs" in p for p in problems), problems


def test_checker_catches_a_section_left_in_english() -> None:
    en, zh = REAL.read_text(), _zh()
    # The Chinese file with its last section replaced by the English one.
    cut_en, cut_zh = en.rindex("\n## "), zh.rindex("\n## ")
    problems = _drift(zh[:cut_zh] + en[cut_en:])
    assert any("is not translated" in p for p in problems), problems


def test_checker_catches_an_english_copy() -> None:
    problems = _drift(REAL.read_text())
    assert len([p for p in problems if "is not translated" in p]) > 5


def test_checker_catches_a_missing_notebook_cell(tmp_path, monkeypatch) -> None:
    week = "week4"
    text = i18n.prose_path(week).read_text()
    first = text.index("<!-- cell: ", 1)  # drop the first cell's translation
    broken = tmp_path / f"{week}.md"
    broken.write_text(text[first:])
    monkeypatch.setattr(i18n, "prose_path", lambda w: broken)
    problems = i18n.notebook_parity(week)
    assert any("is not translated" in p and "cell" in p for p in problems), problems


def test_checker_catches_a_changed_indented_code_block() -> None:
    """Chapters also show C++ as indented blocks (week 5's): those are code too."""
    en = (i18n.CURRICULUM / "week5_privateuse1.md").read_text()
    zh = i18n.translation_of(i18n.CURRICULUM / "week5_privateuse1.md").read_text()
    first = i18n._indented_blocks(zh)[0].splitlines()[0]
    problems = i18n.parity(en, zh.replace(first, first + "  // 注释", 1), "zh/week5")
    assert any("code block" in p and "注释" in p for p in problems), problems
