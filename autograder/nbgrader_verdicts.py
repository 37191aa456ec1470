"""An nbgrader preprocessor that makes torchlab, not the notebook kernel, decide each test cell.

nbgrader runs a student's whole notebook in one kernel, test cells included, so a cell the
student adds (an IPython input transformer that turns later cells into ``pass``, a patched
checker) can make failing test cells look passed (measured in the grading notes, and again
on this course's notebook). This preprocessor runs in nbgrader's own process right after
``Execute``: it takes the answer cell's source, grades it with torchlab's guarded worker
(hidden cases included), and overwrites the outputs of every test cell with the verdict:
none for a pass, an error naming the first difference for a failure. ``SaveAutoGrades`` then
scores those outputs. Whatever ran in the kernel cannot change them.

Which case a cell checks comes from its ``grade_id``, which nbgrader itself keeps honest
(``OverwriteCells`` and ``CheckCellMetadata`` compare locked cells with its database).
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

from nbformat.v4 import new_output
from nbgrader.converters.autograde import Autograde
from nbgrader.preprocessors import Execute, NbGraderPreprocessor

from autograder.cases import load_week
from autograder.report import PASS
from autograder.runner import run_week
from autograder.weeks import WEEKS, Week


def _case_for(grade_id: str, week: str) -> str | None:
    """``test_<case>`` and ``hidden_<i>`` (the i-th hidden case), as the export names them."""
    if grade_id.startswith("test_"):
        return grade_id[len("test_") :]
    if grade_id.startswith("hidden_"):
        hidden = [c.name for c in load_week(week, include_hidden=True) if c.hidden]
        i = int(grade_id[len("hidden_") :]) - 1
        return hidden[i] if 0 <= i < len(hidden) else None
    return None


def _answer(nb: Any) -> tuple[Week, str] | None:
    """(week, module source) from the answer cell, whose grade_id is ``<module>_answer``."""
    for cell in nb.cells:
        meta = cell.metadata.get("nbgrader", {})
        for week in WEEKS.values():
            if meta.get("solution") and meta.get("grade_id") == f"{week.module}_answer":
                lines = cell.source.splitlines(keepends=True)
                if lines and lines[0].lstrip().startswith("%%writefile"):
                    lines = lines[1:]
                return week, "".join(lines)
    return None


class TorchlabVerdicts(NbGraderPreprocessor):
    """Replace every test cell's outputs with torchlab's verdict on the answer cell."""

    def preprocess(self, nb: Any, resources: dict) -> tuple[Any, dict]:
        found = _answer(nb)
        if found is None:  # no answer cell at all: every test cell fails
            week, source = next(iter(WEEKS.values())), ""
        else:
            week, source = found
        with tempfile.TemporaryDirectory(prefix="torchlab-nbgrader-") as tmp:
            (Path(tmp) / f"{week.module}.py").write_text(source)
            report = run_week(week, tmp, include_hidden=True)
        results = {r.name: r for r in report.results}
        for cell in nb.cells:
            meta = cell.metadata.get("nbgrader", {})
            if cell.cell_type != "code" or not meta.get("grade"):
                continue
            result = results.get(_case_for(str(meta.get("grade_id", "")), week.name) or "")
            if result is not None and result.status == PASS:
                cell.outputs = []
            else:
                message = result.message if result else "this test cell checks no known case"
                cell.outputs = [
                    new_output(
                        "error",
                        ename="TorchlabVerdict",
                        evalue=f"{result.status if result else 'error'}: {message}",
                        traceback=[f"torchlab: {message}"],
                    )
                ]
        return nb, resources


def autograde_chain() -> list[type]:
    """nbgrader's default autograde preprocessors with TorchlabVerdicts after Execute."""
    chain = list(Autograde.class_traits()["autograde_preprocessors"].make_dynamic_default())
    return (
        chain[: chain.index(Execute) + 1] + [TorchlabVerdicts] + chain[chain.index(Execute) + 1 :]
    )
