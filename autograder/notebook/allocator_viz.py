"""Week 4's pictures: a caching allocator seen from outside, whichever allocator it is.

Everything here uses only the allocator API of the lab (``Device``, ``CachingAllocator``,
``AllocatorConfig.parse``, ``malloc``, ``free``, ``memory_stats``, ``memory_snapshot``,
``replay``), never ``torch``, so the same call draws the allocator of your ``allocator.py``
and any other module with the same names:

- ``plot_memory_over_trace(lib, events)``: allocated against reserved bytes after every event
  of a replayed trace (a training program's mallocs and frees);
- ``plot_segments(snapshot)``: each segment of ``memory_snapshot()`` as a bar, its blocks
  coloured by state (allocated, free, and the part of an allocated block beyond the request);
- ``plot_variants(lib, events)``: the chip variants of Task 4.5 side by side (driver calls,
  peak reserved, fragmentation).

Each returns an HTML picture (matplotlib when it is installed, else a plain SVG drawn here)
and never raises: an unfinished allocator or a missing file is shown as a short line.
"""

from __future__ import annotations

import base64
import html
import io
import json
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

from autograder.notebook.viz import HTML

TRACES = Path(__file__).resolve().parents[1] / "weeks" / "week4" / "data" / "traces"
MiB = 1024 * 1024
CAPACITY = 8 * 1024 * MiB  # the simulated chip of the pictures: 8 GiB
COLORS = {
    "allocated": "#4c78a8",
    "rounding": "#9ecae9",
    "split remainder": "#f2b701",  # free, in a segment that also holds live blocks
    "free": "#e0e0e0",  # a segment with nothing live: empty_cache would give it back
    "reserved": "#f58518",
}


# ---- traces --------------------------------------------------------------------------------


def synthetic_trace() -> list[list[Any]]:
    """A small stand-in trace (three steps of a tiny model) for when no recorded one is found."""
    events: list[list[Any]] = []
    n = 0
    for _step in range(3):
        live = []
        for size in (4 * 1024, 64 * 1024, 3 * MiB, 512, 12 * MiB, 200 * 1024):
            n += 1
            events.append(["malloc", n, size])
            live.append(n)
        for i in live[::2] + live[1::2]:
            events.append(["free", i])
    return events


def normalize_events(raw: Any) -> list[list[Any]]:
    """``[["malloc", id, nbytes(, stream)], ["free", id], ...]`` from a trace file's events,
    whether they are lists or dicts (``{"action"|"op"|"kind": ..., "id": ..., "size"|...}``)."""
    if isinstance(raw, dict):
        raw = raw.get("events", [])
    out: list[list[Any]] = []
    for e in raw:
        if isinstance(e, dict):
            action = str(e.get("action") or e.get("op") or e.get("kind") or e.get("event") or "")
            ident = e.get("id", e.get("ptr", e.get("storage")))
            size = e.get("size", e.get("nbytes", e.get("bytes", 0)))
            if action.startswith("malloc") or action.startswith("alloc"):
                out.append(["malloc", ident, int(size)])
            elif action.startswith("free"):
                out.append(["free", ident])
        elif isinstance(e, list | tuple) and e:
            out.append(list(e))
    return out


def load_trace(name: str = "mlp_sgd") -> tuple[list[list[Any]], str]:
    """The events of ``traces/<name>.json`` and a label; the synthetic trace if it is absent."""
    path = TRACES / f"{name}.json"
    try:
        events = normalize_events(json.loads(path.read_text()))
        if events:
            return events, f"{name} (recorded with torch 2.13, {len(events)} events)"
    except Exception:  # noqa: BLE001 - a missing or odd file falls back to the stand-in
        pass
    return synthetic_trace(), f"a synthetic stand-in ({name}.json was not found)"


# ---- running the allocator ------------------------------------------------------------------


def make_allocator(lib: Any, settings: str = "", alignment: int = 512, **kwargs: Any) -> Any:
    """``lib.CachingAllocator(lib.Device(CAPACITY, alignment), config, **kwargs)``."""
    config = lib.AllocatorConfig.parse(settings) if settings else lib.AllocatorConfig()
    return lib.CachingAllocator(lib.Device(CAPACITY, alignment), config, **kwargs)


def timeline(lib: Any, events: Iterable[Sequence[Any]]) -> dict[str, list[int]]:
    """Allocated and reserved bytes (``*.all.current``) after every event of a replay."""
    allocator = make_allocator(lib)
    live: dict[Any, Any] = {}
    out: dict[str, list[int]] = {"allocated": [], "reserved": [], "requested": []}
    for e in events:
        if e[0] == "malloc":
            if not e[2]:
                continue
            live[e[1]] = allocator.malloc(e[2], e[3] if len(e) > 3 else 0)
        elif e[1] in live:
            allocator.free(live.pop(e[1]))
        else:
            continue
        stats = allocator.memory_stats()
        out["allocated"].append(int(stats["allocated_bytes.all.current"]))
        out["reserved"].append(int(stats["reserved_bytes.all.current"]))
        out["requested"].append(int(stats.get("requested_bytes.all.current", 0)))
    return out


def demo_snapshot(lib: Any) -> list[dict[str, Any]]:
    """The snapshot after a few mallocs and frees that leave splits, holes and rounding."""
    allocator = make_allocator(lib)
    keep = [allocator.malloc(n) for n in (4, 300 * 1024, 700 * 1024 + 1, 100 * 1024)]
    big = [allocator.malloc(n) for n in (3 * MiB + 1, 5 * MiB, 4 * MiB, 12 * MiB + 7)]
    allocator.free(keep[1])
    allocator.free(big[1])
    allocator.free(big[3])
    return allocator.memory_snapshot()


VARIANTS: dict[str, Callable[[Any], Any]] = {
    "torch's policy (best fit, 512 B)": lambda lib: make_allocator(lib),
    "32-byte alignment": lambda lib: make_allocator(lib, alignment=32, min_block_size=32),
    "first fit": lambda lib: make_allocator(lib, first_fit=True),
    "expandable segments": lambda lib: make_allocator(lib, "expandable_segments:True"),
}


def compare_variants(lib: Any, events: Sequence[Sequence[Any]]) -> dict[str, Any]:
    """``lib.replay`` of the same trace on each variant: its dict, or the error it raised."""
    out: dict[str, Any] = {}
    for name, make in VARIANTS.items():
        try:
            out[name] = lib.replay(make(lib), [list(e) for e in events])
        except Exception as exc:  # noqa: BLE001 - one variant failing leaves the others
            out[name] = exc
    return out


# ---- drawing --------------------------------------------------------------------------------


def _message(cls: str, exc: BaseException | str) -> HTML:
    if isinstance(exc, NotImplementedError):
        text, color = f"not implemented yet: {exc}", "#9a6700"
    elif isinstance(exc, BaseException):
        text, color = f"this picture cannot be drawn: {type(exc).__name__}: {exc}", "#cf222e"
    else:
        text, color = str(exc), "#9a6700"
    return HTML(f"<div class='{cls}' style='color:{color}'>{html.escape(text[:600])}</div>")


def _pyplot() -> Any:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        return plt
    except Exception:  # noqa: BLE001 - no matplotlib: the SVG fallback draws instead
        return None


def _figure_html(cls: str, fig: Any, plt: Any, note: str = "") -> HTML:
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=100, bbox_inches="tight")
    plt.close(fig)
    data = base64.b64encode(buffer.getvalue()).decode()
    return HTML(
        f"<div class='{cls}'><img src='data:image/png;base64,{data}'/>"
        f"<div style='color:#6b7280'>{html.escape(note)}</div></div>"
    )


def _svg_html(cls: str, body: str, width: int, height: int, note: str) -> HTML:
    return HTML(
        f"<div class='{cls}'><svg xmlns='http://www.w3.org/2000/svg' width='{width}' "
        f"height='{height}' style='font-family:sans-serif;font-size:11px'>{body}</svg>"
        f"<div style='color:#6b7280'>{html.escape(note)}</div></div>"
    )


def _mib(n: float) -> str:
    return f"{n / MiB:.1f} MiB"


def plot_memory_over_trace(
    lib: Any, events: Sequence[Sequence[Any]] | None = None, title: str = ""
) -> HTML:
    """Allocated against reserved bytes after each event of a replayed trace. Never raises."""
    cls = "torchlab-allocator-trace"
    try:
        if events is None:
            events, title = load_trace()
        data = timeline(lib, events)
        if not data["reserved"]:
            return _message(cls, "the trace has no events to draw")
        n = len(data["reserved"])
        note = (
            f"{title}: peak allocated {_mib(max(data['allocated']))}, peak reserved "
            f"{_mib(max(data['reserved']))} after {n} events"
        )
        plt = _pyplot()
        if plt is not None:
            fig, ax = plt.subplots(figsize=(8, 3))
            xs = range(n)
            ax.fill_between(xs, data["reserved"], step="post", color=COLORS["reserved"], alpha=0.3)
            ax.step(xs, data["reserved"], where="post", color=COLORS["reserved"], label="reserved")
            ax.step(
                xs, data["allocated"], where="post", color=COLORS["allocated"], label="allocated"
            )
            if any(data["requested"]):
                ax.step(xs, data["requested"], where="post", color="#54a24b", label="requested")
            ax.set_xlabel("event")
            ax.set_ylabel("bytes")
            ax.set_title(title or "allocated vs reserved")
            ax.legend(loc="upper left")
            return _figure_html(cls, fig, plt, note)
        width, height, top = 640, 200, max(max(data["reserved"]), 1)

        def path(values: list[int]) -> str:
            step = (width - 50) / max(n - 1, 1)
            points = [
                f"{40 + i * step:.1f},{height - 20 - v * (height - 40) / top:.1f}"
                for i, v in enumerate(values)
            ]
            return " ".join(points)

        body = (
            f"<polyline fill='none' stroke='{COLORS['reserved']}' stroke-width='2' "
            f"points='{path(data['reserved'])}'/>"
            f"<polyline fill='none' stroke='{COLORS['allocated']}' stroke-width='2' "
            f"points='{path(data['allocated'])}'/>"
            f"<text x='40' y='12' fill='{COLORS['reserved']}'>reserved (max {_mib(top)})</text>"
            f"<text x='240' y='12' fill='{COLORS['allocated']}'>allocated</text>"
            f"<text x='40' y='{height - 4}'>event 0 .. {n - 1}</text>"
        )
        return _svg_html(cls, body, width, height, note + " (matplotlib is not installed)")
    except Exception as exc:  # noqa: BLE001 - a notebook cell never stops on a drawing
        return _message(cls, exc)


def _segment_pieces(segment: dict[str, Any]) -> list[tuple[int, int, str]]:
    """(offset, size, kind) pieces of one segment: allocated, rounding (allocated beyond the
    request), split remainder (free beside live blocks: only a merge can reclaim it) and free
    (a segment with nothing live), in address order."""
    pieces = []
    base = int(segment["address"])
    blocks = segment.get("blocks", [])
    live = any(b.get("state") == "active_allocated" for b in blocks)
    for block in segment.get("blocks", []):
        offset, size = int(block["address"]) - base, int(block["size"])
        if block.get("state") == "active_allocated":
            requested = min(int(block.get("requested_size", size)), size)
            pieces.append((offset, requested, "allocated"))
            if size > requested:
                pieces.append((offset + requested, size - requested, "rounding"))
        else:
            pieces.append((offset, size, "split remainder" if live else "free"))
    return pieces


def plot_segments(snapshot: Any, title: str = "memory_snapshot()") -> HTML:
    """Each segment as a bar of its blocks (allocated, rounding, free). Never raises."""
    cls = "torchlab-allocator-segments"
    try:
        if callable(snapshot):
            snapshot = snapshot()
        segments = sorted(snapshot, key=lambda s: int(s["address"]))
        if not segments:
            return _message(cls, "the snapshot has no segments")
        labels = [
            f"{s.get('segment_type', '?')} {_mib(int(s['total_size']))} @ {int(s['address']):#x}"
            for s in segments
        ]
        note = (
            f"{len(segments)} segments, {sum(len(s.get('blocks', [])) for s in segments)} "
            "blocks; dark blue: requested bytes, light blue: rounding inside allocated blocks, "
            "yellow: free split remainders beside live blocks, grey: free segments"
        )
        plt = _pyplot()
        if plt is not None:
            fig, ax = plt.subplots(figsize=(8, 1.2 + 0.45 * len(segments)))
            for row, segment in enumerate(segments):
                total = int(segment["total_size"])
                for offset, size, kind in _segment_pieces(segment):
                    ax.barh(
                        row,
                        size / total,
                        left=offset / total,
                        color=COLORS[kind],
                        edgecolor="white",
                        linewidth=0.5,
                    )
            ax.set_yticks(range(len(segments)), labels)
            ax.invert_yaxis()
            ax.set_xlim(0, 1)
            ax.set_xlabel("fraction of the segment")
            ax.set_title(title)
            kinds = ["allocated", "rounding", "split remainder", "free"]
            handles = [plt.Rectangle((0, 0), 1, 1, color=COLORS[k]) for k in kinds]
            ax.legend(handles, kinds, loc="upper center", bbox_to_anchor=(0.5, -0.35), ncol=4)
            return _figure_html(cls, fig, plt, note)
        width, row_h = 640, 22
        body = []
        for row, segment in enumerate(segments):
            total = int(segment["total_size"])
            y = 10 + row * row_h
            body.append(f"<text x='0' y='{y + 13}'>{html.escape(labels[row])}</text>")
            for offset, size, kind in _segment_pieces(segment):
                x, w = 230 + offset * 400 / total, max(size * 400 / total, 0.5)
                body.append(
                    f"<rect x='{x:.1f}' y='{y}' width='{w:.1f}' height='{row_h - 6}' "
                    f"fill='{COLORS[kind]}' stroke='white' stroke-width='0.5'/>"
                )
        height = 20 + len(segments) * row_h
        return _svg_html(cls, "".join(body), width, height, note + " (matplotlib is not installed)")
    except Exception as exc:  # noqa: BLE001
        return _message(cls, exc)


def plot_variants(lib: Any, events: Sequence[Sequence[Any]] | None = None, title: str = "") -> HTML:
    """The chip variants' driver calls, peak reserved and fragmentation as bars, with a table
    of every figure ``replay`` returned. Never raises."""
    cls = "torchlab-allocator-variants"
    try:
        if events is None:
            events, title = load_trace()
        results = compare_variants(lib, events)
        ok = {k: v for k, v in results.items() if isinstance(v, dict)}
        rows = []
        for name, value in results.items():
            if isinstance(value, dict):
                cells = (
                    f"<td>{value['driver_mallocs']}</td><td>{value['driver_frees']}</td>"
                    f"<td>{value['cache_hit_rate']:.3f}</td><td>{_mib(value['peak_reserved'])}</td>"
                    f"<td>{_mib(value['peak_allocated'])}</td><td>{value['fragmentation']:.3f}</td>"
                )
            else:
                prefix = "not implemented yet: " if isinstance(value, NotImplementedError) else ""
                text = html.escape(f"{prefix}{type(value).__name__}: {value}"[:200])
                cells = f"<td colspan='6' style='color:#9a6700'>{text}</td>"
            rows.append(f"<tr><td>{html.escape(name)}</td>{cells}</tr>")
        table = (
            "<table><tr><th>variant</th><th>driver mallocs</th><th>driver frees</th>"
            "<th>cache hit rate</th><th>peak reserved</th><th>peak allocated</th>"
            f"<th>fragmentation</th></tr>{''.join(rows)}</table>"
        )
        if not ok:
            return HTML(f"<div class='{cls}'>{table}</div>")
        metrics = [
            ("driver mallocs", lambda r: r["driver_mallocs"]),
            ("peak reserved (MiB)", lambda r: r["peak_reserved"] / MiB),
            ("fragmentation", lambda r: r["fragmentation"]),
        ]
        plt = _pyplot()
        if plt is not None:
            fig, axes = plt.subplots(1, 3, figsize=(11, 3.4))
            names = list(ok)
            palette = ["#4c78a8", "#f58518", "#54a24b", "#e45756"]
            for ax, (label, read) in zip(axes, metrics, strict=True):
                ax.bar(range(len(names)), [read(ok[n]) for n in names], color=palette[: len(names)])
                ax.set_xticks(
                    range(len(names)), [n.split(" (")[0] for n in names], rotation=30, ha="right"
                )
                ax.set_title(label)
            fig.suptitle(title or "chip variants")
            fig.subplots_adjust(top=0.8, wspace=0.3)  # room for the title above the three
            picture = _figure_html(cls, fig, plt).text
            return HTML(f"<div class='{cls}'>{picture}{table}</div>")
        body, x0 = [], 0
        for label, read in metrics:
            values = [read(v) for v in ok.values()]
            top = max(max(values), 1e-9)
            body.append(f"<text x='{x0}' y='12'>{html.escape(label)}</text>")
            for i, v in enumerate(values):
                h = 100 * v / top
                body.append(
                    f"<rect x='{x0 + i * 40}' y='{130 - h:.1f}' width='30' height='{h:.1f}' "
                    f"fill='{list(COLORS.values())[i % 4]}'/>"
                    f"<text x='{x0 + i * 40}' y='145'>{i + 1}</text>"
                )
            x0 += 200
        legend = ", ".join(f"{i + 1}: {n}" for i, n in enumerate(ok))
        svg = _svg_html(cls, "".join(body), 600, 150, f"{legend} (matplotlib is not installed)")
        return HTML(f"<div class='{cls}'>{svg.text}{table}</div>")
    except Exception as exc:  # noqa: BLE001
        return _message(cls, exc)
