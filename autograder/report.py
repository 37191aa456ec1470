"""One report model, rendered for every front end: terminal table, HTML, JSON and pytest."""

from __future__ import annotations

import html
import json
import textwrap
from dataclasses import asdict, dataclass, field
from typing import Any

from autograder.cases import task_key

PASS = "pass"
# Every status a case can end with, worst news last.
STATUSES = [PASS, "fail", "not implemented", "error", "timeout", "crash"]


def printable(text: object) -> str:
    """Text from submitted code, made safe for a terminal: one line, no control characters
    (an escape sequence could otherwise rewrite other students' lines)."""
    return "".join(ch for ch in " ".join(str(text).split()) if ch.isprintable())


def task_span(tasks: list[str]) -> str:
    """Tasks as runs, the way a reader scans them: ["1.1", "1.2", "1.3", "1.9"] -> "1.1-1.3,1.9"."""
    runs: list[list[str]] = []
    for t in sorted(set(tasks), key=task_key):
        if runs:
            last = task_key(runs[-1][-1])
            if task_key(t)[:-1] == last[:-1] and task_key(t)[-1] == last[-1] + 1:
                runs[-1].append(t)
                continue
        runs.append([t])
    return ",".join(r[0] if len(r) == 1 else f"{r[0]}-{r[-1]}" for r in runs)


@dataclass
class CaseResult:
    """How one case went for one engine."""

    id: str
    name: str
    week: str
    points: int
    status: str
    message: str = ""
    tasks: list[str] = field(default_factory=list)
    hidden: bool = False
    seconds: float = 0.0
    output: str = ""  # what the engine printed during the case
    blame: str = ""  # the task to look at first when the case fails ("1.4"), if known
    # What the sandbox's guard refused during the case (a thread, a write outside the run's
    # folder): harmless to the verdict, but the course's own references must trip none.
    refused: list[str] = field(default_factory=list)

    @property
    def earned(self) -> int:
        return self.points if self.status == PASS else 0

    @property
    def own_task(self) -> str:
        """The latest task the case needs: the one whose work it checks once earlier ones pass."""
        return max(self.tasks, key=task_key) if self.tasks else ""


def blame_line(r: CaseResult) -> str:
    """Where to look first, in words (the runner decided which task; see runner.assign_blame)."""
    if r.blame == r.own_task:
        return f"look first at Task {r.blame}: the earlier tasks' own cases pass"
    return f"look first at Task {r.blame}: its own cases fail too, and this case needs it"


@dataclass
class Report:
    """All results of one run: a week (or several) for one engine."""

    title: str
    impl: str
    results: list[CaseResult] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)  # run-level news (an import error...)
    isolation: str = ""  # what the engine ran behind: "bubblewrap", or the guard alone

    @property
    def score(self) -> int:
        return sum(r.earned for r in self.results)

    @property
    def max_score(self) -> int:
        return sum(r.points for r in self.results)

    @property
    def passed(self) -> bool:
        return bool(self.results) and all(r.status == PASS for r in self.results)

    def task_progress(self) -> dict[str, tuple[int, int]]:
        """``{task: (passed, total)}`` over each task's own cases (those it completes), in task
        order. A task is done when all its own cases pass: the CLI's progress, the notebook's
        progress list and the grader's per-task feedback all read it from here."""
        out: dict[str, list[int]] = {}
        for r in self.results:
            if r.own_task and not r.hidden:
                tally = out.setdefault(r.own_task, [0, 0])
                tally[0] += r.status == PASS
                tally[1] += 1
        return {t: (out[t][0], out[t][1]) for t in sorted(out, key=task_key)}

    def task_line(self, task: str) -> str:
        """What ``-k N.M`` asks, answered: is Task N.M done? Its own cases (those it completes)
        apart from the cases that also need later tasks ("not implemented" until then)."""
        passed, own = self.task_progress().get(task, (0, 0))
        later = sum(1 for r in self.results if task in r.tasks and r.own_task != task)
        done = "done" if own and passed == own else "not done yet"
        text = f"Task {task}: {done}: {passed} of its {own} own cases pass"
        if later:
            text += f"; {later} more cases need it and later tasks too"
        return text

    def next_step(self) -> CaseResult | None:
        """The failing case to work on next: the one whose task to look at (its blame, see
        runner.assign_blame) comes earliest; among those, the first in the week's order."""
        todo = [r for r in self.results if r.status != PASS and not r.hidden]
        if not todo:
            return None
        return min(todo, key=lambda r: task_key(r.blame or r.own_task or "0"))

    def counts(self) -> dict[str, int]:
        out = {s: 0 for s in STATUSES}
        for r in self.results:
            out[r.status] = out.get(r.status, 0) + 1
        return {s: n for s, n in out.items() if n}

    def summary(self) -> str:
        parts = ", ".join(f"{n} {s if s != PASS else 'passed'}" for s, n in self.counts().items())
        return f"score {self.score}/{self.max_score}: {parts or 'no cases'}"

    # ---- serialisation -------------------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["score"], data["max_score"] = self.score, self.max_score
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Report:
        results = [CaseResult(**r) for r in data.get("results", [])]
        problems = list(data.get("problems", []))
        return cls(data["title"], data["impl"], results, problems, str(data.get("isolation", "")))

    def for_student(self) -> Report:
        """The copy a student may see: a hidden case shows only whether it passed (its
        details, and anything the code printed during it, could reveal the case)."""
        results = []
        for r in self.results:
            r = CaseResult(**asdict(r))
            if r.hidden:
                r.name = f"hidden case {len([x for x in results if x.hidden]) + 1}"
                r.id = f"{r.week}::{r.name}"  # the case's id holds its real name
                r.message = "" if r.status == PASS else "a hidden case: its details are not shown"
                r.blame = ""
                r.output = ""
            results.append(r)
        return Report(self.title, self.impl, results, list(self.problems), self.isolation)

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), indent=2)

    # ---- rendering -----------------------------------------------------------------------

    def render_text(self, color: bool = False, show_output: bool = False) -> str:
        """The terminal table: case, tasks, points, result, and the first difference."""

        def paint(text: str, status: str) -> str:
            if not color:
                return text
            code = {PASS: "32", "not implemented": "33"}.get(status, "31")
            return f"\033[{code}m{text}\033[0m"

        width = max([len(r.name) for r in self.results] + [4])
        twidth = max([len(task_span(r.tasks)) for r in self.results] + [5])
        lines = [f"{self.title}  (engine: {self.impl})"]
        lines += [f"  ! {printable(p)}" for p in self.problems]
        lines.append(f"  {'case':<{width}}  {'tasks':<{twidth}} {'points':>6}  result")
        for r in self.results:
            pts = f"{r.earned}/{r.points}"
            label = r.status if r.status == PASS else r.status.upper()
            tasks = task_span(r.tasks)  # every task the case checks, as pytest shows them
            lines.append(
                f"  {r.name:<{width}}  {tasks:<{twidth}} {pts:>6}  {paint(label, r.status)}"
            )
            if r.message and r.status != PASS:
                lines += textwrap.wrap(
                    printable(r.message), 96, initial_indent=" " * 6, subsequent_indent=" " * 8
                )
            if r.blame and r.status != PASS:
                lines.append(" " * 6 + printable(blame_line(r)))
            if show_output and r.output and r.status != PASS:
                printed = r.output.splitlines()[-10:]
                lines += ["      printed:"] + [f"        {printable(ln)}" for ln in printed]
        lines.append(f"  {self.summary()}")
        return "\n".join(lines)

    def render_html(self) -> str:
        """A self-contained HTML table (the notebook's check() and the feedback pages)."""
        colors = {PASS: "#1a7f37", "not implemented": "#9a6700"}
        rows = []
        for r in self.results:
            col = colors.get(r.status, "#cf222e")
            msg = html.escape(r.message) if r.status != PASS else ""
            if r.blame and r.status != PASS:
                msg += f"<br><i>{html.escape(blame_line(r))}</i>"
            rows.append(
                f"<tr><td><code>{html.escape(r.name)}</code></td>"
                f"<td>{html.escape(task_span(r.tasks))}</td>"
                f"<td style='text-align:right'>{r.earned}/{r.points}</td>"
                f"<td style='color:{col};font-weight:bold'>{html.escape(r.status)}</td>"
                f"<td style='text-align:left'>{msg}</td></tr>"
            )
        problems = "".join(f"<p style='color:#cf222e'>{html.escape(p)}</p>" for p in self.problems)
        head = "<tr><th>case</th><th>tasks</th><th>points</th><th>result</th><th>details</th></tr>"
        return (
            f"<div class='torchlab-report'><h4>{html.escape(self.title)}</h4>"
            f"<p>engine: <code>{html.escape(self.impl)}</code></p>{problems}"
            f"<table>{head}{''.join(rows)}</table>"
            f"<p><b>{html.escape(self.summary())}</b></p></div>"
        )

    def _repr_html_(self) -> str:
        return self.render_html()

    def __str__(self) -> str:
        return self.render_text()
