"""Differential programs: random programs over everything a week's engine models, run on torch
and on an engine (the course's own, or yours), and every observation compared.

A week's generator module (``autograder/differential/<week>.py``) defines

- ``generate(rng: random.Random) -> Any``: one random program as plain data (JSON-able), drawn
  only from what the week's engine models (what the lab leaves out stays out; what torch
  itself gets wrong or crashes on is listed in the module's ``EXCLUDED`` with the reason);
- ``execute(lib: Any, program: Any) -> Observation``: run it with ``lib`` (``torch`` through
  ``autograder.oracle.torch_lib``, or the engine under test) and return what a learner could
  observe, as plain data; an error is an observation (``autograder.observe.raised``);
- ``describe(program: Any) -> str``: the program as a few lines of Python a learner can read.

``run(week, n, seed)`` draws program ``i`` from ``random.Random(f"{seed}:{i}")``, so a
difference is reproduced from its seed and index alone. An engine may refuse what it does not
model (NotImplementedError naming what torch does): that is counted apart from a different
answer, which is never acceptable. The course's engines agree with torch on 20,000 programs per
week; the public and hidden cases draw programs from the same generators. Try your own engine:

    python -m autograder.differential week1 --n 2000 [--seed 0] [--impl PATH]

(``--impl``: your lab folder or file; by default the lab this folder belongs to.)
"""

from __future__ import annotations

import argparse
import importlib
import random
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from autograder.judge import NOT_IMPLEMENTED, PASS, judge
from autograder.weeks import Week, get_week

# The weeks with a generator: autograder/differential/<week>.py.
WEEKS_WITH_GENERATORS = tuple(sorted(p.stem for p in Path(__file__).parent.glob("week*.py")))


@dataclass(frozen=True)
class Difference:
    """One program on which the engine and torch disagree: a different answer, or (``refused``)
    the engine's NotImplementedError where torch answers."""

    week: str
    seed: int
    index: int
    program: str  # describe(program)
    message: str  # the judge's first difference, torch's answer first
    refused: bool = False

    def __str__(self) -> str:
        return f"{self.week} seed {self.seed} program {self.index}: {self.message}\n" + "\n".join(
            "    " + line for line in self.program.splitlines()
        )


# --- shapes, for the generators: what they expect a step to give (an expectation only: a
# program records what torch and the engine really do) ----------------------------------------


def broadcast_shape(a: list[int], b: list[int]) -> list[int] | None:
    """The shape ``a`` and ``b`` broadcast to, or None where torch refuses (infer_size)."""
    out = []
    for i in range(1, max(len(a), len(b)) + 1):
        x = a[-i] if i <= len(a) else 1
        y = b[-i] if i <= len(b) else 1
        if x != y and 1 not in (x, y):
            return None
        out.append(y if x == 1 else x)
    return out[::-1]


def factor(rng: random.Random, n: int, ndim: int) -> list[int]:
    """A random shape of ``ndim`` dims (at least one unless ``n`` is 1) with ``n`` elements."""
    if n != 1:
        ndim = max(ndim, 1)
    shape = [1] * ndim
    if ndim == 0:
        return shape
    rest = n
    for d in range(ndim - 1):
        shape[d] = rng.choice([k for k in range(1, rest + 1) if rest % k == 0])
        rest //= shape[d]
    shape[-1] = rest
    rng.shuffle(shape)
    return shape


def generator(week: Week) -> Any:
    return importlib.import_module(f"autograder.differential.{week.name}")


def load_engine(week: Week, impl: str | None = None) -> Any:
    """The engine to compare: the module at ``impl`` (a file, or a folder holding the lab), or
    by default the course's own where this checkout has it, else the learner's lab."""
    from autograder.labs import REPO_ROOT, resolve_impl
    from autograder.pinning import import_file

    if impl is None:
        impl = "reference" if (REPO_ROOT / "reference_impl").is_dir() else "lab"
    return import_file(resolve_impl(week, impl), f"_differential_{week.module}")


def program(week: Week, seed: int, index: int, kind: str | None = None) -> Any:
    """Program ``index`` of ``seed``; of one ``kind`` when the generator has ``KINDS``."""
    rng = random.Random(f"{seed}:{index}")
    if kind is None:
        return generator(week).generate(rng)
    kinds = getattr(generator(week), "KINDS", {})
    if kind not in kinds:
        raise SystemExit(
            f"{week.name}'s generator has no kind {kind!r} (it has: {', '.join(kinds) or 'none'})"
        )
    return kinds[kind](rng)


def programs(week: str) -> Any:
    """A hypothesis strategy of the week's random programs, for a public property case: each
    example is the program itself (plain data), drawn from a seed of the public cases' own, so
    the same programs reach torch and the learner's engine, and a failure names its program."""
    from hypothesis import strategies as st

    gen = importlib.import_module(f"autograder.differential.{week}")
    return st.integers(0, 10**9).map(lambda i: gen.generate(random.Random(f"public:{i}")))


def random_programs_case(
    week: str, n: int, points: int, tasks: tuple[str, ...], doc: str, first: Any = None
) -> None:
    """Register the week's public ``random_programs`` case: ``n`` programs drawn by
    ``programs(week)``, each run by the generator's ``execute`` on torch and on the engine; a
    failure is labelled with the program, as a learner can read it. ``first(lib)`` runs before
    the programs (week 1's cases all call ``lib.arange`` first)."""
    from autograder.cases import property_case

    def strategy() -> Any:
        return programs(week)

    def label(program: Any) -> str:
        return "\n" + importlib.import_module(f"autograder.differential.{week}").describe(program)

    def random_programs(lib: Any, program: Any) -> Any:
        if first is not None:
            first(lib)
        return importlib.import_module(f"autograder.differential.{week}").execute(lib, program)

    random_programs.__doc__ = doc
    property_case(week, strategy, n=n, points=points, tasks=tasks, label=label)(random_programs)


def run(
    week: Week, n: int, seed: int = 0, engine: Any = None, kind: str | None = None
) -> list[Difference]:
    """The programs ``0..n-1`` of ``seed`` on torch and on ``engine`` (``load_engine``'s default
    if None)."""
    from autograder.oracle import torch_lib

    gen = generator(week)
    engine = engine if engine is not None else load_engine(week)
    torch = torch_lib(week.name)
    out = []
    for i in range(n):
        prog = program(week, seed, i, kind)
        verdict = judge(gen.execute(torch, prog), gen.execute(engine, prog))
        if verdict.status != PASS:
            refused = verdict.status == NOT_IMPLEMENTED
            out.append(Difference(week.name, seed, i, gen.describe(prog), verdict.message, refused))
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="random programs on torch and on an engine")
    parser.add_argument("week", choices=WEEKS_WITH_GENERATORS)
    parser.add_argument("--n", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--impl", help="a folder or file holding the engine (default: this lab)")
    parser.add_argument("--show", type=int, default=5, help="differences to print in full")
    parser.add_argument("--kind", help="only programs of this kind (a generator's KINDS)")
    parser.add_argument(
        "--broken", action="store_true", help="break the engine first (BREAK): is the run blind?"
    )
    args = parser.parse_args(argv)
    week = get_week(args.week)  # the front door: a name from the command line
    engine = load_engine(week, args.impl)
    undo = generator(week).BREAK(engine) if args.broken else None  # kept: it holds the break
    start = time.perf_counter()
    found = run(week, args.n, args.seed, engine, args.kind)
    seconds = time.perf_counter() - start
    wrong = [d for d in found if not d.refused]
    for d in wrong[: args.show]:
        print(d)
    kinds = Counter(("refused: " if d.refused else "") + d.message.split(":")[0] for d in found)
    for kind, count in kinds.most_common():
        print(f"  {count:6d}  {kind}")
    print(
        f"{week.name}: {len(wrong)} of {args.n} programs differ, "
        f"{len(found) - len(wrong)} refused ({seconds:.1f} s)"
    )
    del undo
    return 1 if wrong else 0


if __name__ == "__main__":
    raise SystemExit(main())
