"""Week 1 hidden cases: variations on the public ones, run only when grading.

Each one checks a rule a public case also checks, on tensors the public cases do not use, so
an engine fitted to the public examples (rather than to the rule) shows up here.
"""

from __future__ import annotations

import random
from typing import Any

from autograder import attempt, case, observe, property_case, shares_storage
from autograder.observe import guard, raised
from autograder.weeks.week1.common import _fmt_shape, _prod

W = "week1"


@case(W, points=3, tasks=("1.1", "1.2", "1.3", "1.4", "1.5", "1.6", "1.8", "1.10"), hidden=True)
def hidden_view_rule_variants(lib):
    """The chunk rule on other layouts: a permuted 3-d tensor, a step-2 column slice (one
    uniform stride: any view works), a row slice with an offset, an expanded middle dim."""
    p = lib.arange(60).view(3, 4, 5).permute(1, 0, 2)
    s = lib.arange(48).view(4, 12)[:, ::2]
    c = lib.arange(24).view(2, 3, 4)[:, 1:]
    e = lib.zeros(2, 1, 3).expand(2, 4, 3)
    return {
        "p": observe(p, values=False),
        "p.view(2, 2, 3, 5)": attempt(lambda: p.view(2, 2, 3, 5)),
        "p.view(4, 15)": attempt(lambda: p.view(4, 15)),
        "p.view(12, 5)": attempt(lambda: p.view(12, 5)),
        "p.view(4, 1, 3, 5)": attempt(lambda: p.view(4, 1, 3, 5)),
        "p.view(4, 3, 1, 5)": attempt(lambda: p.view(4, 3, 1, 5)),
        "s": observe(s, values=False),
        "s.view(24)": attempt(lambda: s.view(24)),
        "s.view(8, 3)": attempt(lambda: s.view(8, 3)),
        "s.view(2, 2, 6)": attempt(lambda: s.view(2, 2, 6)),
        "c": observe(c, values=False),
        "c.view(2, 8)": attempt(lambda: c.view(2, 8)),
        "c.view(16)": attempt(lambda: c.view(16)),
        "c.view(4, 4)": attempt(lambda: c.view(4, 4)),
        "c.view(2, 2, 2, 2)": attempt(lambda: c.view(2, 2, 2, 2)),
        "c.reshape(16) shares storage": attempt(lambda: shares_storage(c.reshape(16), c)),
        "e.view(2, 2, 2, 3)": attempt(lambda: e.view(2, 2, 2, 3)),
        "e.view(8, 3)": attempt(lambda: e.view(8, 3)),
        "e.view(2, 4, 3, 1)": attempt(lambda: e.view(2, 4, 3, 1)),
    }


@case(W, points=2, tasks=("1.1", "1.2", "1.3", "1.4", "1.5", "1.6", "1.7"), hidden=True)
def hidden_getitem_variants(lib):
    """Indexing combinations on a 3-d tensor: negative ints, None around Ellipsis, clamped
    and reversed bounds, and errors counted past inserted dims."""
    x = lib.arange(12).view(3, 4)
    y = lib.arange(24).view(2, 3, 4)
    return {
        "y[-1, None, ..., 1:100:3]": attempt(lambda: y[-1, None, ..., 1:100:3]),
        "y[..., None, -1]": attempt(lambda: y[..., None, -1]),
        "y[:, -2:, None, ::2]": attempt(lambda: y[:, -2:, None, ::2]),
        "y[:, :, None, None, 1]": attempt(lambda: y[:, :, None, None, 1]),
        "y[1][None][..., 2]": attempt(lambda: y[1][None][..., 2]),
        "y[0, -1, -1]": attempt(lambda: y[0, -1, -1]),
        "x[-2:-5]": attempt(lambda: x[-2:-5]),
        "x[:-10]": attempt(lambda: x[:-10]),
        "x.t()[::3, 1:]": attempt(lambda: x.t()[::3, 1:]),
        "y[0, 3]": attempt(lambda: y[0, 3]),
        "y[..., 4]": attempt(lambda: y[..., 4]),
        "y[None, None, 2]": attempt(lambda: y[None, None, 2]),
        "y[1, -4]": attempt(lambda: y[1, -4]),
        "y[0, ::0]": attempt(lambda: y[0, ::0]),
        "y[:, 1:, ::-2]": attempt(lambda: y[:, 1:, ::-2]),
    }


@case(
    W,
    points=2,
    tasks=("1.1", "1.2", "1.3", "1.4", "1.5", "1.6", "1.7", "1.8", "1.9", "1.10"),
    hidden=True,
)
def hidden_zero_size_and_size_one(lib):
    """Zero-size tensors keep odd strides through transpose and contiguous(); size-1 dims
    with odd strides stay contiguous and view freely."""
    z = lib.arange(0.0).view(3, 0, 2)
    odd = lib.arange(10).as_strided((2, 1, 3), (3, 7, 1))
    col = lib.arange(10).as_strided((3, 1), (2, 5))
    zt = z.transpose(0, 2)
    return {
        "z": observe(z, storage=True),
        "z.view(0, 6)": attempt(lambda: z.view(0, 6)),
        "z.view(6, 0)": attempt(lambda: z.view(6, 0)),
        "z.transpose(0, 2)": observe(zt),
        "z.transpose(0, 2).contiguous()": attempt(lambda: zt.contiguous()),
        "... shares storage": attempt(lambda: shares_storage(zt.contiguous(), z)),
        "z.unsqueeze(2)": attempt(lambda: z.unsqueeze(2)),
        "z[1:, :, 1]": attempt(lambda: z[1:, :, 1]),
        "z.expand(2, 3, 0, 2)": attempt(lambda: z.expand(2, 3, 0, 2)),
        "zeros(1).expand(2, 0)": attempt(lambda: lib.zeros(1).expand(2, 0)),
        "arange(6).view(2, 3)[:, 3:]": attempt(lambda: lib.arange(6).view(2, 3)[:, 3:]),
        "odd.view(3, 2)": attempt(lambda: odd.view(3, 2)),
        "odd.unsqueeze(1)": attempt(lambda: odd.unsqueeze(1)),
        "odd.transpose(1, 2)": attempt(lambda: odd.transpose(1, 2)),
        "odd.contiguous() shares storage": attempt(lambda: shares_storage(odd.contiguous(), odd)),
        "col": observe(col),
        "col.view(3)": attempt(lambda: col.view(3)),
        "col.contiguous()": attempt(lambda: col.contiguous()),
    }


@case(
    W,
    points=2,
    tasks=("1.1", "1.2", "1.3", "1.4", "1.6", "1.7", "1.8", "1.10", "1.12", "1.13"),
    hidden=True,
)
def hidden_aligned_variants(lib):
    """The aligned layout for other widths, dtypes, alignments and degenerate sizes."""

    def make(*size, **kw):
        return attempt(lambda: lib.empty_aligned(*size, **kw), values=False, storage=True)

    packed = lib.arange(18).view(2, 9)
    a = lib.empty_aligned(2, 9, dtype=lib.int64)
    a.copy_(packed)
    a[1, 3:] = 5
    return {
        "packed": observe(packed, storage=True),
        "(2, 3) float64": make(2, 3, dtype=lib.float64),
        "(2, 4) float64 (exact)": make(2, 4, dtype=lib.float64),
        "(2, 9) int64": make(2, 9, dtype=lib.int64),
        "(3, 5) align=64": make(3, 5, align=64),
        "(3, 5) bool": make(3, 5, dtype=lib.bool),
        "[2, 9] as a list": make([2, 9]),
        "(0, 5)": make(0, 5),
        "(3, 0)": make(3, 0),
        "(3, 5) align=6": make(3, 5, align=6),
        "(2, 5) float64 align=4": make(2, 5, dtype=lib.float64, align=4),
        "a": observe(a, storage=True),
        "a.unsqueeze(1)": attempt(lambda: a.unsqueeze(1)),
        "a.reshape(2, 9, 1) shares storage": attempt(lambda: shares_storage(a.reshape(2, 9, 1), a)),
        "a.reshape(9, 2)": attempt(lambda: a.reshape(9, 2), storage=True),
        "a.reshape(9, 2) shares storage": attempt(lambda: shares_storage(a.reshape(9, 2), a)),
        "a[:, ::3].contiguous()": attempt(lambda: a[:, ::3].contiguous(), storage=True),
    }


@case(
    W,
    points=2,
    tasks=("1.1", "1.2", "1.3", "1.4", "1.5", "1.6", "1.7", "1.8", "1.9", "1.11", "1.12"),
    hidden=True,
)
def hidden_write_variants(lib):
    """Writes into expanded and overlapping views through other index paths, and in-place
    dtype rules for bool targets and 0-d operands."""

    def scene(make, write):
        def run():
            t = make()
            try:
                write(t)
            except Exception as exc:  # noqa: BLE001 - the error is the observation
                return raised(exc)
            return observe(t)

        return guard(run)

    def expanded():
        return lib.arange(3.0).view(3, 1).expand(3, 4)

    def ints():
        return lib.arange(12).view(3, 4)

    def bools():
        return lib.zeros(3, dtype=lib.bool)

    def put(key, value):
        def run(t):
            t[key] = value

        return run

    def windows_seen_from_base():
        w = lib.arange(10, dtype=lib.float32)
        v = w.as_strided((4, 2), (2, 0))
        v[1, 1] = -5
        v[2:, :1] = 9
        return {"view": observe(v), "base": observe(w)}

    def two_views():
        w = lib.arange(9)
        u = w.as_strided((3, 3), (1, 3))
        w.as_strided((3, 3), (3, 1))[0] = -1
        return observe(u)

    return {
        "e[:, 1:2] = 7": scene(expanded, put((slice(None), slice(1, 2)), 7)),
        "e[:, 1:3] = 7": scene(expanded, put((slice(None), slice(1, 3)), 7)),
        "e.t()[0] = 1": scene(expanded, lambda e: e.t().__setitem__(0, 1)),
        "e.t().fill_(5)": scene(expanded, lambda e: e.t().fill_(5)),
        "e.t().add_(1)": scene(expanded, lambda e: e.t().add_(1)),
        "e[:, :1].add_(1)": scene(expanded, lambda e: e[:, :1].add_(1)),
        "e[1:2] = 4": scene(expanded, put(slice(1, 2), 4)),
        "tensor(2.).expand(3)[1] = 7": scene(lambda: lib.tensor(2.0).expand(3), put(1, 7)),
        "x.t().copy_(column of 4)": scene(
            ints, lambda x: x.t().copy_(lib.tensor([[1], [2], [3], [4]]))
        ),
        "x[1:, 1:][::2, ::2] = -1": scene(ints, lambda x: x[1:, 1:][::2, ::2].fill_(-1)),
        "x[None, 1, ..., 2] = 50": scene(ints, put((None, 1, Ellipsis, 2), 50)),
        "x.add_(tensor(2))": scene(ints, lambda x: x.add_(lib.tensor(2))),
        "x.add_(tensor(2.5))": scene(ints, lambda x: x.add_(lib.tensor(2.5))),
        "bool b[1] = 2": scene(bools, put(1, 2)),
        "bool b.add_(1)": scene(bools, lambda b: b.add_(1)),
        "bool b.add_(True)": scene(bools, lambda b: b.add_(True)),
        "float f.add_(float64 row)": scene(
            lambda: lib.zeros(2, 3), lambda f: f.add_(lib.arange(3, dtype=lib.float64))
        ),
        "as_strided((4, 2), (2, 0)) writes": guard(windows_seen_from_base),
        "two as_strided views of one storage": guard(two_views),
    }


# --- a hidden property: random as_strided layouts -------------------------------------------


def _as_strided_strategy() -> Any:
    from hypothesis import strategies as st

    @st.composite
    def examples(draw: Any) -> dict[str, Any]:
        rnd = random.Random(draw(st.integers(0, 2**32 - 1)))
        size = [rnd.choice([0, 1, 1, 2, 2, 3, 3, 4]) for _ in range(rnd.randint(1, 3))]
        if 0 in size and rnd.random() < 0.6:
            size = [s or 2 for s in size]
        # mostly a dense (maybe permuted) layout, sometimes overlapping, gapped or broadcast
        stride, acc = [0] * len(size), 1
        for i in rnd.sample(range(len(size)), len(size)):
            stride[i] = acc
            acc *= max(size[i], 1)
        for i in range(len(size)):
            r = rnd.random()
            if r < 0.15:
                stride[i] = 0
            elif r < 0.35:
                stride[i] = rnd.randint(1, 6)
            elif r < 0.45:
                stride[i] += rnd.randint(1, 3)
        return {
            "n": rnd.randint(8, 30),
            "start": rnd.choice([0, 0, 0, 1, 3]),
            "size": size,
            "stride": stride,
            "offset": rnd.choice([None, None, 0, 1, 2, 5]),
        }

    return examples()


def _as_strided_label(ex: dict[str, Any]) -> str:
    base = f"arange({ex['n']})" + (f"[{ex['start']}:]" if ex["start"] else "")
    args = f"{_fmt_shape(ex['size'])}, {_fmt_shape(ex['stride'])}"
    if ex["offset"] is not None:
        args += f", {ex['offset']}"
    return f"{base}.as_strided({args})"


@property_case(
    W,
    strategy=_as_strided_strategy,
    n=30,
    points=3,
    label=_as_strided_label,
    tasks=("1.1", "1.2", "1.3", "1.4", "1.6", "1.9", "1.10"),
    hidden=True,
)
def hidden_random_as_strided(lib, ex):
    """Any size/stride/offset: bounds, contiguity, and view/reshape/contiguous sharing."""
    base = lib.arange(ex["n"])
    src = base[ex["start"] :] if ex["start"] else base
    try:
        if ex["offset"] is None:
            x = src.as_strided(ex["size"], ex["stride"])
        else:
            x = src.as_strided(ex["size"], ex["stride"], ex["offset"])
    except Exception as exc:  # noqa: BLE001 - out of bounds: the error is the observation
        return {"x": raised(exc)}
    numel = _prod(ex["size"])
    return {
        "x": observe(x),
        "x.view(-1)": attempt(lambda: x.view(-1)),
        "x.view(numel, 1)": attempt(lambda: x.view(numel, 1)),
        "x.reshape(-1) shares storage": attempt(lambda: shares_storage(x.reshape(-1), base)),
        "x.contiguous()": attempt(lambda: x.contiguous()),
        "x.contiguous() shares storage": attempt(lambda: shares_storage(x.contiguous(), base)),
    }


@case(W, points=3, tasks=tuple(f"1.{i}" for i in range(1, 13)), hidden=True)
def hidden_random_programs_from_the_differential_generator(lib: Any) -> Any:
    """Twenty programs from the generator the course's engine is held to (autograder/
    differential/week1.py), with seeds the differential run does not use: views, copies,
    arithmetic and writes through views, all together."""
    from autograder.differential import week1 as gen

    lib.arange(1)  # every case's first call (see autograder/weeks/week1/__init__.py)
    return [gen.execute(lib, gen.generate(random.Random(f"hidden:{i}"))) for i in range(20)]
