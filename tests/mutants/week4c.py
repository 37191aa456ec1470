"""Week 4c mutants: realistic learner bugs in reference_impl/cpp_allocator.cpp, by task. Each
is built like a submission (once per distinct source). ``python -m autograder.mutation
week4c``."""

from __future__ import annotations

from autograder.mutation import Mutant

CPP = "cpp_allocator.cpp"


def _m(task: str, name: str, old: str, new: str, why: str = "") -> Mutant:
    return Mutant("week4c", task, name, old, new, why, CPP)


WEEK4C_MUTANTS: list[Mutant] = [
    # --- Task 4.6: sizes ----------------------------------------------------------------------
    _m(
        "4.6",
        "medium requests get their own segment",
        "  if (size < kMinLargeAlloc) return kLargeBuffer;",
        "  if (size < kMinLargeAlloc) return kMinLargeAlloc;",
        "a 10 MiB segment where torch shares a 20 MiB one",
    ),
    _m(
        "4.6",
        "divisions ignored",
        "  if (divisions > 1 && size > mbs * divisions) return",
        "  if (false && divisions > 1 && size > mbs * divisions) return",
        "roundup_power2_divisions never applied",
    ),
    _m(
        "4.6",
        "one division too many",
        "  size_t step = power2_floor >> (63 - __builtin_clzll(divisions));",
        "  size_t step = power2_floor >> (64 - __builtin_clzll(divisions));",
        "an off-by-one in log2",
    ),
    # --- Task 4.7: blocks ---------------------------------------------------------------------
    _m(
        "4.7",
        "pool ordered by address first",
        "  if (a->size != b->size) return a->size < b->size;\n  return a->ptr < b->ptr;",
        "  if (a->ptr != b->ptr) return a->ptr < b->ptr;\n  return a->size < b->size;",
        "first fit by accident: the lowest address, not the smallest block",
    ),
    _m(
        "4.7",
        "streams share blocks",
        "    if (it == pool.blocks.end() || (*it)->stream != p.stream) return false;",
        "    if (it == pool.blocks.end()) return false;",
        "a block of another stream handed out",
    ),
    _m(
        "4.7",
        "no merge with the next block",
        "    for (Block* candidate : {block->prev, block->next}) {",
        "    for (Block* candidate : {block->prev}) {",
        "free merges only backwards",
    ),
    _m(
        "4.7",
        "large remainders of exactly 1 MiB split",
        "  return size < config.max_split_size && remaining > kSmallSize;",
        "  return size < config.max_split_size && remaining >= kSmallSize;",
        "> where torch has >",
    ),
    # --- Task 4.8: the miss path --------------------------------------------------------------
    _m(
        "4.8",
        "no retry after freeing the cache",
        "                 (release_cached_blocks() && alloc_block(p, true));",
        "                 false;",
        "raises out of memory with freeable segments cached",
    ),
    _m(
        "4.8",
        "split segments released",
        "      if (!b->is_split()) whole.push_back(b);",
        "      whole.push_back(b);",
        "gives the driver back a segment that still has live blocks",
    ),
    _m(
        "4.8",
        "OOM names the request, not the segment",
        "    throw OutOfMemoryError(out_of_memory_message(p.alloc_size));",
        "    throw OutOfMemoryError(out_of_memory_message(p.size));",
        "the message's 'Tried to allocate' is the segment size",
    ),
    # --- Task 4.9: statistics -----------------------------------------------------------------
    _m(
        "4.9",
        "peaks reset to zero",
        "    for (Stat* s : all_stats()) s->peak = s->current;",
        "    for (Stat* s : all_stats()) s->peak = 0;",
        "reset_peak_memory_stats forgets what is live",
    ),
    _m(
        "4.9",
        "accumulated reset keeps the driver counts",
        "    stats.num_device_alloc = stats.num_device_free = 0;\n",
        "",
        "reset_accumulated_memory_stats forgets two counters",
    ),
    _m(
        "4.9",
        "no small_pool keys",
        '  const char* pools[] = {"all", "small_pool", "large_pool"};',
        '  const char* pools[] = {"all", "small", "large"};',
        "pool names that are not torch's",
    ),
]

ACCEPTED_SURVIVORS: dict[str, str] = {}
