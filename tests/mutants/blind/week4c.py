"""Week 4c's blind set: 70 learner bugs written by a helper who read only the reference
and the chapter, never the cases; frozen before it was scored (sha256 b9f774f4...). First
score: 56 of 70 caught by the public cases."""

from autograder.mutation import Mutant

F = "cpp_allocator.cpp"


def _m(task, name, old, new, why="", file=F):
    return Mutant("week4c", task, name, old, new, why, file)


WEEK4C_BLIND = [
    # ---------------- Task 4.6: sizes ----------------
    _m(
        "4.6",
        "rp2 always steps up",
        "  return floor == size ? size : floor + step;",
        "  return floor + step;",
        "forgets that a size already on a division boundary stays (1.25 MiB with 4 divisions -> 1.5 MiB)",
    ),
    _m(
        "4.6",
        "rp2 division log off by one",
        "size_t step = power2_floor >> (63 - __builtin_clzll(divisions));",
        "size_t step = power2_floor >> (64 - __builtin_clzll(divisions));",
        "uses the bit length of divisions instead of its log2: steps half as wide",
    ),
    _m(
        "4.6",
        "round uses divisions of 1",
        "if (divisions > 1 && size > mbs * divisions)",
        "if (divisions >= 1 && size > mbs * divisions)",
        "treats 1 division as 'power-2 rounding on': sizes round up to the next power of two",
    ),
    _m(
        "4.6",
        "round forgets 512*d guard",
        "if (divisions > 1 && size > mbs * divisions)",
        "if (divisions > 1)",
        "applies power-2 divisions to small sizes too (700 B with d=4 -> 768 instead of 1024)",
    ),
    _m(
        "4.6",
        "round exact multiple goes up",
        "  return mbs * ((size + mbs - 1) / mbs);",
        "  return mbs * (size / mbs + 1);",
        "ceil written as floor+1: 1024 becomes 1536",
    ),
    _m(
        "4.6",
        "round hardcodes 512",
        "  size_t mbs = config.min_block_size;",
        "  size_t mbs = 512;",
        "ignores the config's min_block_size (a 32-byte chip)",
    ),
    _m(
        "4.6",
        "alloc size small boundary strict",
        "  if (size <= kSmallSize) return kSmallBuffer;",
        "  if (size < kSmallSize) return kSmallBuffer;",
        "1 MiB request gets a 20 MiB segment",
    ),
    _m(
        "4.6",
        "alloc size large boundary inclusive",
        "  if (size < kMinLargeAlloc) return kLargeBuffer;",
        "  if (size <= kMinLargeAlloc) return kLargeBuffer;",
        "a 10 MiB request gets a 20 MiB segment instead of 10 MiB",
    ),
    _m(
        "4.6",
        "alloc size no 2MiB rounding",
        "  return kRoundLarge * ((size + kRoundLarge - 1) / kRoundLarge);\n  // END SOLUTION\n}",
        "  return size;\n  // END SOLUTION\n}",
        "big segments made exactly to measure, not rounded to 2 MiB",
    ),
    # ---------------- Task 4.7: blocks ----------------
    _m(
        "4.7",
        "order without address",
        "  return a->ptr < b->ptr;\n  // END SOLUTION",
        "  return false;\n  // END SOLUTION",
        "thinks (stream, size) is enough: equal blocks collide in the set and one is lost",
    ),
    _m(
        "4.7",
        "order size before stream",
        "  if (a->stream != b->stream) return a->stream < b->stream;\n  if (a->size != b->size) return a->size < b->size;",
        "  if (a->size != b->size) return a->size < b->size;\n  if (a->stream != b->stream) return a->stream < b->stream;",
        "size-major order: lower_bound can land on another stream's block and miss a fit",
    ),
    _m(
        "4.7",
        "order address descending",
        "  return a->ptr < b->ptr;\n  // END SOLUTION",
        "  return a->ptr > b->ptr;\n  // END SOLUTION",
        "tie-break on address reversed: among equal sizes the highest address is taken",
    ),
    _m(
        "4.7",
        "get_pool strict small",
        "    return size <= kSmallSize ? &small_blocks : &large_blocks;",
        "    return size < kSmallSize ? &small_blocks : &large_blocks;",
        "1 MiB exactly goes to the large pool",
    ),
    _m(
        "4.7",
        "best fit ignores stream",
        "    if (it == pool.blocks.end() || (*it)->stream != p.stream) return false;\n    Block* block = *it;",
        "    if (it == pool.blocks.end()) return false;\n    Block* block = *it;",
        "forgets that blocks never cross streams",
    ),
    _m(
        "4.7",
        "oversize rule 1 strict",
        "if (p.size < config.max_split_size && block->size >= config.max_split_size) return false;",
        "if (p.size < config.max_split_size && block->size > config.max_split_size) return false;",
        "a block of exactly max_split_size counted as not oversize",
    ),
    _m(
        "4.7",
        "oversize rule 2 strict",
        "block->size >= p.size + config.max_non_split_rounding)",
        "block->size > p.size + config.max_non_split_rounding)",
        "waste of exactly max_non_split_rounding accepted",
    ),
    _m(
        "4.7",
        "oversize rule 2 kLargeBuffer",
        "block->size >= p.size + config.max_non_split_rounding)",
        "block->size >= p.size + kLargeBuffer)",
        "older torch / blog posts: ignores max_non_split_rounding_mb",
    ),
    _m(
        "4.7",
        "gc clock ticks large pool",
        "      pool.get_free_blocks_call_count += 1;",
        "      large_blocks.get_free_blocks_call_count += 1;",
        "gc only looks at large blocks, so learner ticks only that clock, also for small searches",
    ),
    _m(
        "4.7",
        "small split strict",
        "    if (block->pool->is_small) return remaining >= config.min_block_size;",
        "    if (block->pool->is_small) return remaining > config.min_block_size;",
        "a 512-byte remainder is not split off",
    ),
    _m(
        "4.7",
        "large split inclusive",
        "    return size < config.max_split_size && remaining > kSmallSize;",
        "    return size < config.max_split_size && remaining >= kSmallSize;",
        "a remainder of exactly 1 MiB is split off",
    ),
    _m(
        "4.7",
        "split ignores max_split",
        "    return size < config.max_split_size && remaining > kSmallSize;",
        "    return remaining > kSmallSize;",
        "oversize blocks get split",
    ),
    _m(
        "4.7",
        "split forgets prev link",
        "      if (block->prev) block->prev->next = block;\n      block->next = remaining;",
        "      block->next = remaining;",
        "only three of the four pointer updates: the front neighbour still points at remaining",
    ),
    _m(
        "4.7",
        "split inserts before shrinking",
        "      remaining->ptr += p.size;\n      remaining->size -= p.size;\n      pool->insert(remaining);",
        "      pool->insert(remaining);\n      remaining->ptr += p.size;\n      remaining->size -= p.size;",
        "changes the key of a block already in the set",
    ),
    _m(
        "4.7",
        "new split inactive bytes of request",
        "        update(p.stat_types, &DeviceStats::inactive_split_bytes, remaining->size);",
        "        update(p.stat_types, &DeviceStats::inactive_split_bytes, block->size);",
        "counts the wrong half of a fresh split as inactive",
    ),
    _m(
        "4.7",
        "unsplit hand-out keeps inactive count",
        "      update(p.stat_types, &DeviceStats::inactive_split, -1);\n",
        "",
        "handing out a whole free piece of a split segment: drops bytes but not the count",
    ),
    _m(
        "4.7",
        "requested_bytes counts rounded",
        "    update(p.stat_types, &DeviceStats::requested_bytes, orig_size);",
        "    update(p.stat_types, &DeviceStats::requested_bytes, block->size);",
        "adds the rounded size to requested_bytes",
    ),
    _m(
        "4.7",
        "requested_size rounded",
        "    block->requested_size = orig_size;",
        "    block->requested_size = p.size;",
        "stores the rounded size as requested_size",
    ),
    _m(
        "4.7",
        "oversize allocation by request",
        "    if (block->size >= config.max_split_size) update_stat(stats.oversize_allocations, 1);",
        "    if (p.size >= config.max_split_size) update_stat(stats.oversize_allocations, 1);",
        "judges oversize by the rounded request, not the block handed out (unsplit new segment)",
    ),
    _m(
        "4.7",
        "gc without memory fraction",
        "      if (set_fraction && config.garbage_collection_threshold > 0.0) {\n        garbage_collect_cached_blocks();",
        "      if (config.garbage_collection_threshold > 0.0) {\n        garbage_collect_cached_blocks();",
        "forgets that gc needs a memory fraction too",
    ),
    _m(
        "4.7",
        "fraction limit inclusive",
        "if (set_fraction && total_allocated_memory + size > allowed_memory_maximum) return false;",
        "if (set_fraction && total_allocated_memory + size >= allowed_memory_maximum) return false;",
        "a segment that exactly reaches the allowed maximum is refused",
    ),
    _m(
        "4.7",
        "fraction ignores reserved",
        "if (set_fraction && total_allocated_memory + size > allowed_memory_maximum) return false;",
        "if (set_fraction && size > allowed_memory_maximum) return false;",
        "compares the new segment alone with the allowed maximum",
    ),
    _m(
        "4.7",
        "device alloc counted before driver",
        "    if (is_retry) stats.num_alloc_retries += 1;\n    size_t size = p.alloc_size;\n"
        "    if (set_fraction && total_allocated_memory + size > allowed_memory_maximum) return false;\n"
        "    uint64_t ptr = device.malloc(size);\n    if (ptr == 0) return false;\n"
        "    total_allocated_memory += size;\n    p.block = new Block(ptr, size, p.stream, p.pool);\n"
        "    update(p.stat_types, &DeviceStats::segment, 1);\n"
        "    update(p.stat_types, &DeviceStats::reserved_bytes, size);\n"
        "    if (size >= config.max_split_size) update_stat(stats.oversize_segments, 1);\n"
        "    stats.num_device_alloc += 1;",
        "    if (is_retry) stats.num_alloc_retries += 1;\n    size_t size = p.alloc_size;\n"
        "    stats.num_device_alloc += 1;\n"
        "    if (set_fraction && total_allocated_memory + size > allowed_memory_maximum) return false;\n"
        "    uint64_t ptr = device.malloc(size);\n    if (ptr == 0) return false;\n"
        "    total_allocated_memory += size;\n    p.block = new Block(ptr, size, p.stream, p.pool);\n"
        "    update(p.stat_types, &DeviceStats::segment, 1);\n"
        "    update(p.stat_types, &DeviceStats::reserved_bytes, size);\n"
        "    if (size >= config.max_split_size) update_stat(stats.oversize_segments, 1);",
        "counts every attempt (also refused ones) as a driver allocation",
    ),
    _m(
        "4.7",
        "forgets total_allocated_memory",
        "    total_allocated_memory += size;\n    p.block = new Block",
        "    p.block = new Block",
        "never tracks reserved memory: the memory fraction never bites",
    ),
    _m(
        "4.7",
        "invalid pointer ValueError",
        "      throw std::runtime_error(text);",
        "      throw std::invalid_argument(text);",
        "an unknown pointer is an 'invalid argument': Python sees ValueError, not RuntimeError",
    ),
    _m(
        "4.7",
        "free forgets oversize allocations",
        "    if (block->size >= config.max_split_size) update_stat(stats.oversize_allocations, -1);\n",
        "",
        "oversize_allocations only ever goes up",
    ),
    _m(
        "4.7",
        "free drops requested bytes from allocated",
        "    update(types, &DeviceStats::allocated_bytes, -int64_t(block->size));",
        "    update(types, &DeviceStats::allocated_bytes, -int64_t(block->requested_size));",
        "allocated_bytes decreased by the request, not the block",
    ),
    _m(
        "4.7",
        "merge only with prev",
        "    for (Block* candidate : {block->prev, block->next}) {",
        "    for (Block* candidate : {block->prev}) {",
        "forgets the neighbour behind",
    ),
    _m(
        "4.7",
        "inactive bytes of unmerged size",
        "      net_bytes += int64_t(block->size);",
        "      net_bytes += int64_t(original_size);",
        "uses the size from before the merge",
    ),
    _m(
        "4.7",
        "active bytes of merged size",
        "    update(types, &DeviceStats::active_bytes, -int64_t(original_size));",
        "    update(types, &DeviceStats::active_bytes, -int64_t(block->size));",
        "reads the size after the merge grew it",
    ),
    _m(
        "4.7",
        "merge keeps dst address",
        "      dst->ptr = src->ptr;\n",
        "",
        "merging a free block in front forgets to move dst's address down",
    ),
    _m(
        "4.7",
        "merge forgets back link",
        "      if (dst->next) dst->next->prev = dst;\n",
        "",
        "the block after the merged one still points at the deleted src",
    ),
    _m(
        "4.7",
        "insert before merge",
        "    int64_t net_blocks = 0, net_bytes = 0;\n    for (Block* candidate : {block->prev, block->next}) {\n"
        "      size_t subsumed = try_merge_blocks(block, candidate, pool);\n      if (subsumed > 0) {\n"
        "        net_blocks -= 1;\n        net_bytes -= int64_t(subsumed);\n      }\n    }\n    pool->insert(block);\n",
        "    int64_t net_blocks = 0, net_bytes = 0;\n    pool->insert(block);\n"
        "    for (Block* candidate : {block->prev, block->next}) {\n"
        "      size_t subsumed = try_merge_blocks(block, candidate, pool);\n      if (subsumed > 0) {\n"
        "        net_blocks -= 1;\n        net_bytes -= int64_t(subsumed);\n      }\n    }\n",
        "caches the block first, then merges: its key changes while it is in the set",
    ),
    # ---------------- Task 4.8: the miss path ----------------
    _m(
        "4.8",
        "both retries counted",
        "    bool found = (release_available_cached_blocks(p) && alloc_block(p, false)) ||",
        "    bool found = (release_available_cached_blocks(p) && alloc_block(p, true)) ||",
        "counts the oversize retry in num_alloc_retries too",
    ),
    _m(
        "4.8",
        "skips oversize release",
        "    bool found = (release_available_cached_blocks(p) && alloc_block(p, false)) ||\n"
        "                 (release_cached_blocks() && alloc_block(p, true));",
        "    bool found = release_cached_blocks() && alloc_block(p, true);",
        "goes straight to freeing the whole cache",
    ),
    _m(
        "4.8",
        "forgets num_ooms",
        "      stats.num_ooms += 1;\n",
        "",
        "raises without counting the OOM",
    ),
    _m(
        "4.8",
        "oom reports request size",
        "      throw OutOfMemoryError(out_of_memory_message(p.alloc_size));",
        "      throw OutOfMemoryError(out_of_memory_message(p.size));",
        "'Tried to allocate' the rounded request, not the segment asked of the driver",
    ),
    _m(
        "4.8",
        "oom reserved not minus allocated",
        "format_size(reserved - allocated) +",
        "format_size(reserved) +",
        "reports all reserved memory as 'reserved but unallocated'",
    ),
    _m(
        "4.8",
        "oom forgets allowed clause",
        '    std::string allowed = set_fraction ? format_size(allowed_memory_maximum) + " allowed; " : "";',
        '    std::string allowed = "";',
        "forgets the memory-fraction part of torch's message",
    ),
    _m(
        "4.8",
        "release forgets total_allocated_memory",
        "    total_allocated_memory -= block->size;\n",
        "",
        "released segments still count against the memory fraction",
    ),
    _m(
        "4.8",
        "release forgets oversize segments",
        "    if (block->size >= config.max_split_size) update_stat(stats.oversize_segments, -1);\n",
        "",
        "oversize_segments only goes up",
    ),
    _m(
        "4.8",
        "oversize release key not clamped",
        "    size_t target = std::max(p.size, max_split);",
        "    size_t target = p.size;",
        "searches for the request size instead of max(size, max_split_size)",
    ),
    _m(
        "4.8",
        "oversize release any amount is enough",
        "    return released >= target;\n    // END SOLUTION",
        "    return released > 0;\n    // END SOLUTION",
        "reports success after releasing anything",
    ),
    _m(
        "4.8",
        "oversize walk skips exact max_split",
        "      if (block->stream != p.stream || block->size < max_split) break;",
        "      if (block->stream != p.stream || block->size <= max_split) break;",
        "a block of exactly max_split_size is not treated as oversize",
    ),
    _m(
        "4.8",
        "oversize walk ignores stream",
        "      if (block->stream != p.stream || block->size < max_split) break;",
        "      if (block->size < max_split) break;",
        "walks back into another stream's blocks",
    ),
    _m(
        "4.8",
        "oversize single ignores stream",
        "    if (it != pool.blocks.end() && (*it)->stream == p.stream) {\n      release_block(*it);",
        "    if (it != pool.blocks.end()) {\n      release_block(*it);",
        "releases the next stream's block found by lower_bound",
    ),
    _m(
        "4.8",
        "release cache forgets small pool",
        "    release_blocks(small_blocks);\n",
        "",
        "only the large pool is emptied",
    ),
    _m(
        "4.8",
        "forgets sync count",
        "    stats.num_sync_all_streams += 1;\n",
        "",
        "num_sync_all_streams never counted",
    ),
    _m(
        "4.8",
        "gc strictly older than average",
        "double(large_blocks.age(b)) >= age_threshold",
        "double(large_blocks.age(b)) > age_threshold",
        "blocks of exactly average age are kept (all same age: nothing freed)",
    ),
    _m(
        "4.8",
        "gc one pass",
        "    while (reclaimed < target && freed_one && count > 0) {",
        "    if (reclaimed < target && freed_one && count > 0) {",
        "one sweep only, not repeated until enough is reclaimed",
    ),
    _m(
        "4.8",
        "gc threshold of capacity",
        "size_t(config.garbage_collection_threshold * double(allowed_memory_maximum));",
        "size_t(config.garbage_collection_threshold * double(device.capacity));",
        "threshold relative to the whole device, not the allowed fraction",
    ),
    # ---------------- Task 4.9: statistics ----------------
    _m(
        "4.9",
        "pool names swapped",
        '    const char* pools[] = {"all", "small_pool", "large_pool"};',
        '    const char* pools[] = {"all", "large_pool", "small_pool"};',
        "wrong order of StatType names",
    ),
    _m(
        "4.9",
        "allocated and freed swapped",
        '      out[prefix + ".allocated"] = s.allocated;\n      out[prefix + ".freed"] = s.freed;',
        '      out[prefix + ".allocated"] = s.freed;\n      out[prefix + ".freed"] = s.allocated;',
        "mixed the two running totals",
    ),
    _m(
        "4.9",
        "max_split_size from live config",
        '    out["max_split_size"] = stats.max_split_size;',
        '    out["max_split_size"] = config.max_split_size == kNoLimit ? -1 : int64_t(config.max_split_size);',
        "reads the current setting instead of the stat fixed at construction",
    ),
    _m(
        "4.9",
        "no oversize_segments keys",
        '    put("oversize_segments", stats.oversize_segments);\n',
        "",
        "forgets the second oversize stat",
    ),
    _m(
        "4.9",
        "sync key reads retries",
        '    out["num_sync_all_streams"] = stats.num_sync_all_streams;',
        '    out["num_sync_all_streams"] = stats.num_alloc_retries;',
        "copy-paste of the line above",
    ),
    _m(
        "4.9",
        "inactive_split_bytes reads count",
        '        {"inactive_split_bytes", &stats.inactive_split_bytes},',
        '        {"inactive_split_bytes", &stats.inactive_split},',
        "copy-paste of the count array",
    ),
    _m(
        "4.9",
        "reset peak to zero",
        "    for (Stat* s : all_stats()) s->peak = s->current;",
        "    for (Stat* s : all_stats()) s->peak = 0;",
        "resets peaks to 0 instead of current",
    ),
    _m(
        "4.9",
        "reset accumulated keeps device counts",
        "    stats.num_device_alloc = stats.num_device_free = 0;\n",
        "",
        "forgets the driver counters",
    ),
    _m(
        "4.9",
        "reset accumulated zeroes peak",
        "    for (Stat* s : all_stats()) s->allocated = s->freed = 0;",
        "    for (Stat* s : all_stats()) s->allocated = s->freed = s->peak = 0;",
        "thinks peaks are accumulated too",
    ),
    _m(
        "4.9",
        "reset accumulated keeps ooms",
        "    stats.num_alloc_retries = stats.num_ooms = stats.num_sync_all_streams = 0;",
        "    stats.num_alloc_retries = stats.num_sync_all_streams = 0;",
        "num_ooms is not reset",
    ),
]


ACCEPTED_SURVIVORS = {
    "oversize release key not clamped": (
        "equivalent: when this path runs, the pool holds no block of the request's stream between the request and max_split_size, so both searches land on the same element (its author's note)"
    ),
}
