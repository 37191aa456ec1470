"""Week 4 mutants: realistic learner bugs in reference_impl/allocator.py, by task.

Each replaces one short, distinctive piece of the reference (found exactly once). Among them
the issue's: no rounding, first fit instead of best fit, no merge on free, the small/large
threshold off by one, a remainder split kept when it should not be, the stream ignored, and
statistics not updated on a split. ``python -m autograder.mutation week4`` prints the table.
"""

from __future__ import annotations

from autograder.mutation import Mutant


def _m(task: str, name: str, old: str, new: str, why: str = "") -> Mutant:
    return Mutant("week4", task, name, old, new, why)


WEEK4_MUTANTS: list[Mutant] = [
    # --- Task 4.1: sizes and pools -----------------------------------------------------------
    _m(
        "4.1",
        "no rounding",
        "    return mbs * ((size + mbs - 1) // mbs)\n",
        "    return size\n",
        "the issue's: blocks of odd sizes, and the pool fills with slivers",
    ),
    _m(
        "4.1",
        "small/large threshold off by one",
        "    return size <= kSmallSize\n",
        "    return size < kSmallSize\n",
        "the issue's: a 1 MiB request goes to the large pool",
    ),
    _m(
        "4.1",
        "medium requests get their own segment",
        "    if size < kMinLargeAlloc:\n        return kLargeBuffer\n",
        "",
        "a 3 MiB request gets a 4 MiB segment instead of sharing 20 MiB",
    ),
    _m(
        "4.1",
        "power-of-two steps rounded down",
        "    return size if floor == size else floor + step\n",
        "    return floor\n",
        "",
    ),
    # --- Task 4.2: blocks ------------------------------------------------------------------
    _m(
        "4.2",
        "first fit instead of best fit",
        "    return (block.stream, block.size, block.ptr)\n",
        "    return (block.stream, block.ptr, block.size)\n",
        "the issue's: the pool ordered by address takes the first block that comes",
    ),
    _m(
        "4.2",
        "stream ignored",
        "            if key[0] != stream:\n                return None\n",
        "",
        "the issue's: a block freed on another stream is handed out (a race on a GPU)",
    ),
    _m(
        "4.2",
        "no merge on free",
        "        for candidate in (block.prev, block.next):\n",
        "        for candidate in ():\n",
        "the issue's: free neighbours stay apart and the segment fragments",
    ),
    _m(
        "4.2",
        "large remainder split kept when it should not be",
        "        return size < self.config.max_split_size and remaining > kSmallSize\n",
        "        return remaining >= self.config.min_block_size\n",
        "the issue's: a 19.5 MiB request leaves a 0.5 MiB block nothing in the large pool can use",
    ),
    _m(
        "4.2",
        "oversize blocks split for small requests",
        "        if p.size < config.max_split_size and block.size >= config.max_split_size:\n"
        "            return False\n",
        "",
        "max_split_size ignored by the search",
    ),
    # --- Task 4.3: the miss path --------------------------------------------------------------
    _m(
        "4.3",
        "no retry after freeing the cache",
        "            self.release_cached_blocks() and self.alloc_block(p, is_retry=True)\n",
        "            False\n",
        "out of memory while the cache holds enough",
    ),
    _m(
        "4.3",
        "empty_cache frees segments still in use",
        "        self.release_blocks(self.small_blocks)\n",
        "        self.release_blocks(self.small_blocks)\n        self.active_blocks.clear()\n",
        "",
    ),
    _m(
        "4.3",
        "memory fraction ignored",
        "        if self.set_fraction and self.total_allocated_memory + size > "
        "self.allowed_memory_maximum:\n            return False\n",
        "",
        "",
    ),
    # --- Task 4.4: statistics -----------------------------------------------------------------
    _m(
        "4.4",
        "stats not updated on a split",
        "                    p.stat_types, inactive_split_bytes=remaining.size, inactive_split=1\n",
        "                    p.stat_types\n",
        "the issue's: the free remainder is not counted as an inactive split",
    ),
    _m(
        "4.4",
        "requested bytes count the rounded size",
        "            requested_bytes=orig_size,\n",
        "            requested_bytes=block.size,\n",
        "",
    ),
    # --- Task 4.5: the chip questions ------------------------------------------------------------
    _m(
        "4.5",
        "32-byte chips still round to 512",
        "    mbs = config.min_block_size\n",
        "    mbs = kMinBlockSize\n",
        "",
    ),
    _m(
        "4.5",
        "first fit keeps best fit",
        "        if config.first_fit:\n            block = self.first_fit_block(p)\n        else:\n"
        "            block = self._lower_bound(pool, p.stream, p.size, "
        "config.expandable_segments)\n",
        "        block = self._lower_bound(pool, p.stream, p.size, config.expandable_segments)\n",
        "the variant switch forgotten",
    ),
]

ACCEPTED_SURVIVORS: dict[str, str] = {}
