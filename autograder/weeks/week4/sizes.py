"""Task 4.1: sizes and pools. Truth: the rules of ``c10/cuda/CUDACachingAllocator.cpp``
(``round_size``, ``get_allocation_size``, the small/large threshold), pinned from the
course's solution, whose constants the pin checks compare with torch's installed
``c10/core/AllocatorConfig.h``."""

from __future__ import annotations

from typing import Any

from autograder.cases import case, property_case
from autograder.observe import error_kind
from autograder.weeks.week4.common import MiB, W, attempt

SIZES = [1, 511, 512, 513, 1000, 4096, 65536 + 1, MiB - 1, MiB, MiB + 1, 3 * MiB + 5, 10 * MiB]


@case(W, points=2, tasks="4.1")
def task_4_1_round_size(lib: Any) -> Any:
    """``round_size``: below 512 bytes a request takes 512; above, the next multiple of 512
    (no roundup_power2_divisions)."""
    config = lib.AllocatorConfig.parse("")
    return {str(s): attempt(lambda s=s: int(lib.round_size(s, config))) for s in SIZES}


@case(W, points=2, tasks="4.1")
def task_4_1_round_size_power2_divisions(lib: Any) -> Any:
    """``roundup_power2_divisions:4`` rounds a request up to one of 4 equal steps between
    powers of two (1.1 MiB becomes 1.25 MiB); powers of two and small requests stay as they
    were; the per-range form ``[256:1,512:2,>:8]`` picks the divisions by the request's range."""
    out = {}
    for text in [
        "roundup_power2_divisions:4",
        "roundup_power2_divisions:8",
        "roundup_power2_divisions:[256:1,512:2,1024:4,>:8]",
    ]:
        config = lib.AllocatorConfig.parse(text)
        sizes = [
            1200,
            4096,
            5000,
            int(1.1 * MiB),
            3 * MiB + 1,
            300 * MiB + 7,
            700 * MiB,
            1500 * MiB,
        ]
        out[text] = {
            str(s): attempt(lambda s=s, c=config: int(lib.round_size(s, c))) for s in sizes
        }
    return out


# Settings and sizes recorded on an H100 (scripts/record_cuda_fixtures.py: DIVISION_SETTINGS).
DIVISION_SETTINGS = [
    "roundup_power2_divisions:[256:4,>:8]",
    "roundup_power2_divisions:[64:8,256:2,>:1]",
    "roundup_power2_divisions:[128:2,512:4]",
    "roundup_power2_divisions:4",
]
DIVISION_SIZES = [m * MiB + extra for m, extra in ((100, 1), (200, 1), (260, 0), (300, 1))]
DIVISION_SIZES += [600 * MiB + 1, 1100 * MiB + 1]


@case(W, points=2, tasks="4.1")
def task_4_1_divisions_after_the_last_range(lib: Any) -> Any:
    """In ``[256:4,>:8]``, ``>`` sets the ranges AFTER the last one named: a 260 MiB request
    still gets 4 divisions (320 MiB), not 8. Truth: an H100 rounding these very requests
    (``autograder/truth/week4_data/cuda/round_size_divisions.json``)."""
    out = {}
    for text in DIVISION_SETTINGS:
        config = lib.AllocatorConfig.parse(text)
        out[text] = {
            str(n): attempt(lambda n=n, c=config: int(lib.round_size(n, c))) for n in DIVISION_SIZES
        }
    return out


@case(W, points=1, tasks="4.1")
def task_4_1_a_size_on_a_division_step_stays(lib: Any) -> Any:
    """With ``roundup_power2_divisions:4`` a request that is already on one of the 4 steps
    between two powers of two keeps its size: 1.25 MiB stays 1.25 MiB (not 1.5 MiB), 2560 bytes
    (2 KiB + 512, a step of [2 KiB, 4 KiB)) stays 2560; one byte more goes to the next step.
    Truth: ``roundup_power2_next_division`` in ``c10/cuda/CUDACachingAllocator.cpp``:
    ``round_size_floor = size & (~(power2_divison - 1)); return (round_size_floor == size) ?
    size : round_size_floor + power2_divison;`` (on an H200, torch 2.11 hands tensors of
    these byte sizes blocks of these sizes under this setting)."""
    config = lib.AllocatorConfig.parse("roundup_power2_divisions:4")
    sizes = [2560, 2561, 3072, 5 * MiB // 4, 5 * MiB // 4 + 1, 3 * MiB // 2, 7 * MiB // 4]
    sizes += [3 * MiB, 640 * MiB]
    return {str(s): attempt(lambda s=s: int(lib.round_size(s, config))) for s in sizes}


@case(W, points=1, tasks="4.1")
def task_4_1_small_or_large(lib: Any) -> Any:
    """A request is for the small pool when its ROUNDED size is at most 1 MiB (kSmallSize)."""
    return {
        str(s): attempt(lambda s=s: bool(lib.is_small(s)))
        for s in [512, MiB - 1, MiB, MiB + 1, 2 * MiB]
    }


@case(W, points=2, tasks="4.1")
def task_4_1_segment_sizes(lib: Any) -> Any:
    """``get_allocation_size``: a small request gets a 2 MiB segment, a large one below 10 MiB
    a 20 MiB segment, a larger one its own size rounded up to 2 MiB."""
    sizes = [512, MiB, MiB + 512, 5 * MiB, 10 * MiB - 512, 10 * MiB, 10 * MiB + 512, 33 * MiB]
    return {str(s): attempt(lambda s=s: int(lib.get_allocation_size(s))) for s in sizes}


@case(W, points=2, tasks="4.1")
def task_4_1_parse_settings(lib: Any) -> Any:
    """``AllocatorConfig.parse`` reads PYTORCH_CUDA_ALLOC_CONF's syntax; a bad key or value is
    an error (torch raises when it parses the variable)."""

    def fields(text: str) -> Any:
        c = lib.AllocatorConfig.parse(text)
        return {
            "max_split_size": int(c.max_split_size),
            "garbage_collection_threshold": float(c.garbage_collection_threshold),
            "roundup_power2_divisions": [int(d) for d in c.roundup_power2_divisions],
        }

    good = [
        "",
        "max_split_size_mb:128",
        "garbage_collection_threshold:0.6,max_split_size_mb:40",
        "roundup_power2_divisions:4",
    ]
    bad = ["max_split_size_mb:abc", "no_such_key:1", "garbage_collection_threshold:1.5"]
    out: dict[str, Any] = {t or "(empty)": attempt(lambda t=t: fields(t)) for t in good}
    out.update({t: attempt(lambda t=t: fields(t)) for t in bad})
    return out


def _requests() -> Any:
    from hypothesis import strategies as st

    return st.tuples(st.integers(1, 2**31), st.sampled_from([0, 2, 4, 8, 16]))


@property_case(
    W,
    _requests,
    n=40,
    points=2,
    tasks="4.1",
    label=lambda ex: f"round_size({ex[0]}), divisions {ex[1]}",
)
def random_round_sizes(lib: Any, example: Any) -> Any:
    """Random request sizes and divisions: the rounded size, its pool and its segment size."""
    size, divisions = example
    config = lib.AllocatorConfig.parse(f"roundup_power2_divisions:{divisions}" if divisions else "")

    def run() -> Any:
        rounded = int(lib.round_size(size, config))
        return {
            "rounded": rounded,
            "at least the request": rounded >= size,
            "multiple of 512": rounded % 512 == 0,
            "small pool": bool(lib.is_small(rounded)),
            "segment": int(lib.get_allocation_size(rounded)),
        }

    return attempt(run)


def _settings(config: Any) -> dict[str, Any]:
    """What a parse leaves in the config: the fields ``parseArgs`` sets."""
    return {
        "max_split_size": int(config.max_split_size),
        "max_non_split_rounding": int(config.max_non_split_rounding),
        "roundup_power2_divisions": [int(d) for d in config.roundup_power2_divisions],
        "garbage_collection_threshold": float(config.garbage_collection_threshold),
        "expandable_segments": bool(config.expandable_segments),
    }


@case(W, points=2, tasks="4.1")
def task_4_1_each_parse_starts_from_the_defaults(lib: Any) -> Any:
    """Two settings strings applied one after the other to the same config (what two calls of
    ``torch.cuda.memory._set_allocator_settings`` do). Each ``parse_args`` first puts
    max_split_size, roundup_power2_divisions and garbage_collection_threshold back to their
    defaults, so a key absent from the second string is unset again; max_non_split_rounding
    and expandable_segments keep their values. ``max_non_split_rounding_mb`` sets only the
    waste limit, never max_split_size. Truth: ``AcceleratorAllocatorConfig::parseArgs`` in
    ``c10/core/AllocatorConfig.cpp`` ("The following option will be reset to its default
    value if not explicitly set each time": ``max_split_size_``,
    ``roundup_power2_divisions_``, ``garbage_collection_threshold_``), and its
    ``parseMaxSplitSize`` / ``parseMaxNonSplitRoundingSize``, one per key."""

    def run() -> Any:
        config = lib.AllocatorConfig()
        steps = {}
        for text in (
            "max_split_size_mb:100,roundup_power2_divisions:4,"
            "garbage_collection_threshold:0.5,expandable_segments:True",
            "max_non_split_rounding_mb:40",
            "max_split_size_mb:64",
        ):
            config.parse_args(text)
            steps[text] = _settings(config) | {
                "round_size(1100000)": int(lib.round_size(1100000, config))
            }
        return steps

    return attempt(run)


@case(W, points=1, tasks="4.1")
def task_4_1_gc_threshold_is_strictly_between_0_and_1(lib: Any) -> Any:
    """``garbage_collection_threshold`` must lie strictly inside (0.0, 1.0): 0.0 and 1.0 are
    refused like 1.5. Truth: ``parseGarbageCollectionThreshold`` in
    ``c10/core/AllocatorConfig.cpp``: ``val_env > 0 && val_env < 1.0``, else
    "garbage_collect_threshold is invalid, set it in (0.0, 1.0)" (torch 2.13's
    ``torch._C._accelerator_setAllocatorSettings`` refuses 0.0, 1.0 and 1.5 and accepts 0.5).
    Only the refusal is compared, not the error's class: 2.13 raises ValueError there, older
    releases RuntimeError."""

    def parse(text: str) -> Any:
        try:
            config = lib.AllocatorConfig.parse(text)
        except NotImplementedError:
            raise  # an exercise not written yet, not a refusal
        except Exception:  # noqa: BLE001 - refusing is what is observed
            return "refused"
        return float(config.garbage_collection_threshold)

    out = {}
    for value in ("0.0", "0.01", "0.5", "0.99", "1.0", "1.5"):
        text = f"garbage_collection_threshold:{value}"
        out[text] = attempt(lambda t=text: parse(t))
    return out


@case(W, points=1, tasks="4.1")
def task_4_1_sizes_below_1_mib_use_the_first_interval(lib: Any) -> Any:
    """A request below 1 MiB takes the divisions of the FIRST interval, [1 MiB, 2 MiB): with
    ``[1:4,>:1]`` a 600 KiB request gets 4 divisions (640 KiB), and with
    ``[256:1,512:2,1024:4,>:8]`` it gets 1 (614400 bytes, the next multiple of 512), never the
    last interval's 8. Truth: ``AcceleratorAllocatorConfig::roundup_power2_divisions`` in
    ``c10/core/AllocatorConfig.cpp``: ``size_t index = (log_size > interval_start) ?
    (log_size - interval_start) : 0ul;`` then ``std::min(index, kRoundUpPowerOfTwoIntervals -
    1)`` (unsigned: an index below the first interval is clamped to 0), read by ``round_size``
    in ``c10/cuda/CUDACachingAllocator.cpp``. An H200 with torch 2.11 hands tensors of these
    byte sizes blocks of these sizes under these settings."""
    sizes = [5000, 100 * 1024 + 1, 300 * 1024, 600 * 1024, MiB - 1, int(1.1 * MiB)]
    out = {}
    for text in (
        "roundup_power2_divisions:[1:4,>:1]",
        "roundup_power2_divisions:[256:1,512:2,1024:4,>:8]",
    ):
        config = lib.AllocatorConfig.parse(text)
        out[text] = {
            str(s): attempt(lambda s=s, c=config: int(lib.round_size(s, c))) for s in sizes
        }
    return out


# Settings torch 2.13's own parser refuses with ValueError, or accepts: each is also in
# checks.SETTINGS_PROBES, so nothing is pinned while the course's engine answers one differently.
BAD_VALUES = [
    "max_split_size_mb:19",
    "max_split_size_mb:20",
    "max_non_split_rounding_mb:19",
    "expandable_segments:true",
    "expandable_segments:false",
    "expandable_segments:False",
    "roundup_power2_divisions:0",
    "roundup_power2_divisions:1",
    "roundup_power2_divisions:[256:0,>:4]",
    "roundup_power2_divisions:[300:2]",
    "roundup_power2_divisions:[0:2]",
    "roundup_power2_divisions:[1:2]",
]


@case(W, points=1, tasks="4.1")
def task_4_1_a_bad_setting_is_a_value_error(lib: Any) -> Any:
    """A bad value is refused with ValueError, not RuntimeError: megabytes below 20, a boolean
    that is not exactly ``True`` or ``False`` (``true`` is refused), a single division count
    that is not a power of two (0 included: only the list form may say 0, "disable"), and a
    list interval that is not a power of two (300, or 0). Only the error's class is compared.
    Truth: ``c10/core/AllocatorConfig.cpp``, whose checks are ``TORCH_CHECK_VALUE``:
    ``parseMaxSplitSize`` / ``parseMaxNonSplitRoundingSize`` ("CachingAllocator option ...
    too small, must be >= "), ``ConfigTokenizer::toBool`` ("Expected 'True' or 'False'"),
    ``parseRoundUpPower2Divisions`` ("For roundups, the divisions has to be power of 2 ",
    "the intervals have to be power of 2 "); torch 2.13's
    ``torch._C._accelerator_setAllocatorSettings`` gives these very verdicts (checked when
    the answers are pinned), and so does torch 2.11's CUDA build on an H200
    (``torch.cuda.memory._set_allocator_settings``)."""

    def verdict(text: str) -> str:
        try:
            lib.AllocatorConfig.parse(text)
        except NotImplementedError:
            raise  # an exercise not written yet, not a refusal
        except Exception as exc:  # noqa: BLE001 - the error's class is what is observed
            return error_kind(exc)
        return "accepted"

    return {text: attempt(lambda t=text: verdict(t)) for text in BAD_VALUES}
