# Generated from reference_impl/allocator.py by `torchlab release`: this is the file you edit.
# Replace each `raise NotImplementedError(...)` with your code; the docstring above it
# says what PyTorch does and where. Check your work with `torchlab check`.
# ruff: noqa: F401, F841
"""Week 4: a caching allocator with the policy of PyTorch's CUDA caching allocator.

Every CUDA tensor's storage comes from ``DeviceCachingAllocator::malloc``
(c10/cuda/CUDACachingAllocator.cpp). ``cudaMalloc`` and ``cudaFree`` are slow (they synchronize
the device), so torch asks the driver for big *segments* and carves them into *blocks*:

1. a request is rounded (``round_size``) and sent to one of two pools: *small* (<= 1 MiB, packed
   into 2 MiB segments) or *large* (everything else);
2. ``get_free_block`` looks for the smallest cached free block on the same stream that fits
   (best fit; the pool is a ``std::set`` ordered by (stream, size, address));
3. on a miss, ``alloc_block`` asks the driver for a new segment (``get_allocation_size``); if
   the driver is out of memory, cached segments are released and the call retried; only then
   does torch raise ``OutOfMemoryError``;
4. a block bigger than the request is split (``should_split``); on free it merges back with
   its free neighbours (``try_merge_blocks``) and waits in the pool for the next request.

Freed memory is never returned to the driver until ``empty_cache`` (or an OOM retry) releases
whole segments. Everything is counted in ``memory_stats()`` exactly as the C++ counts it.

Here the device is simulated (``Device``): a chip with a capacity and a driver that hands out
aligned address ranges. This module must never import torch. The free-block pools are
``sortedcontainers.SortedList`` (a sorted list of (stream, size, address) keys).

The exercises ("Task 4.x" in a docstring; each may span several functions):
  4.1 sizes and pools: roundup_power2_next_division, round_size, is_small,
      get_allocation_size, AllocatorConfig.roundup_power2_divisions_for,
      AllocatorConfig.parse_args (AllocatorConfig.parse)
  4.2 blocks: size_key (BlockComparatorSize), CachingAllocator.get_pool, get_free_block,
      should_split, alloc_found_block (splitting), free_block, try_merge_blocks,
      CachingAllocator.free, CachingAllocator.malloc and alloc_block (a new segment)
  4.3 the miss path: format_size, handle_miss, release_block,
      release_available_cached_blocks, release_blocks, release_cached_blocks, empty_cache,
      garbage_collect_cached_blocks, set_memory_fraction, out_of_memory_message
  4.4 statistics: memory_stats, reset_peak_memory_stats, reset_accumulated_memory_stats
      (memory_snapshot is given, so your blocks can be seen from Task 4.2 on)
  4.5 the chip questions: first_fit_block (config.first_fit), min_block_size (alignment=32
      chips), expandable segments (alloc_expandable_block, release_expandable_tail), replay
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from sortedcontainers import SortedList

# === Given: constants (c10/core/AllocatorConfig.h, CUDACachingAllocator.cpp) ====================

KiB = 1024
MiB = 1024 * KiB
GiB = 1024 * MiB

kMinBlockSize = 512  # every size is rounded up to a multiple of 512 bytes
kSmallSize = 1 * MiB  # the largest "small" request
kSmallBuffer = 2 * MiB  # small requests are packed into 2 MiB segments
kMinLargeAlloc = 10 * MiB  # requests in (1 MiB, 10 MiB) share 20 MiB segments
kRoundLarge = 2 * MiB  # segments of 10 MiB and more are rounded up to 2 MiB
kLargeBuffer = 20 * MiB  # the shared segment for 1-10 MiB requests

SIZE_MAX = 2**64 - 1  # max_split_size when unset: "no block is oversize"
kOneExaByte = 1152921504606846976  # NativeCachingAllocator::allocate refuses >= 1 EiB

# roundup_power2_divisions keeps one entry per power-of-two interval from 1 MiB to 64 GiB
# (AllocatorConfig.cpp: kRoundUpPowerOfTwoIntervals = 16, kRoundUpPowerOfTwoStart = 1 MiB).
kRoundUpPowerOfTwoIntervals = 16
kRoundUpPowerOfTwoStartLog2 = 20

STAT_NAMES = (
    "allocated_bytes",
    "reserved_bytes",
    "active_bytes",
    "inactive_split_bytes",
    "requested_bytes",
    "allocation",
    "segment",
    "active",
    "inactive_split",
)
POOL_NAMES = ("all", "small_pool", "large_pool")  # StatType::AGGREGATE, SMALL_POOL, LARGE_POOL
AGGREGATE, SMALL_POOL, LARGE_POOL = 0, 1, 2


# === Given: the simulated chip ===================================================================


class DeviceOutOfMemory(RuntimeError):
    """The driver's cudaErrorMemoryAllocation."""


class OutOfMemoryError(RuntimeError):
    """torch.OutOfMemoryError (c10::OutOfMemoryError): what the caching allocator raises."""


class Device:
    """A simulated chip: ``capacity`` bytes of memory and a driver (cudaMalloc / cudaFree).

    Where a segment lands is the driver's choice, and it matters: best fit breaks a tie between
    two equally good free blocks by address (``size_key``), so the same program can place its
    blocks, and fragment, differently on two drivers. By default addresses come from a bump
    pointer going up over a 2**47-byte virtual space: two live ranges never overlap, an address
    is never handed out twice, and later segments sit higher. A real driver does neither: on an
    H100 (``autograder/truth/week4_data/cuda/``) later segments mostly got LOWER addresses, and
    freed ranges were handed out again. That order follows the driver's virtual-memory
    bookkeeping, not a rule this course can state, so it is not imitated; instead
    ``addresses`` replays a recording: the first segments go at the given addresses, in
    order (the ``segment_alloc`` events of ``torch.cuda.memory._record_memory_history``), and
    the bump pointer takes over above them when the list runs out. ``alignment`` is the chip's
    allocation granule: every address the driver returns is a multiple of it.
    """

    BASE = 0x7F0000000000

    def __init__(self, capacity: int, alignment: int = 512, addresses: Sequence[int] = ()) -> None:
        self.capacity = capacity
        self.alignment = alignment
        self.bytes_in_use = 0
        self.n_malloc = 0
        self.n_free = 0
        self.addresses = [int(a) for a in addresses]  # a recorded driver's, still to hand out
        self._next = max([self.BASE, *(a + 1 for a in self.addresses)])
        self._live: dict[int, int] = {}  # address (or page handle) -> bytes
        self._handles = 0

    @property
    def free_bytes(self) -> int:
        """What cudaMemGetInfo reports as free."""
        return self.capacity - self.bytes_in_use

    def malloc(self, nbytes: int) -> int:
        """cudaMalloc: an aligned address, or DeviceOutOfMemory when nbytes do not fit."""
        if nbytes > self.free_bytes:
            raise DeviceOutOfMemory(f"cudaMalloc of {nbytes} bytes: out of memory")
        ptr = self._recorded(nbytes, self.alignment)
        if ptr is None:
            a = self.alignment
            ptr = (self._next + a - 1) // a * a
        self._next = max(self._next, ptr + nbytes)
        self._live[ptr] = nbytes
        self.bytes_in_use += nbytes
        self.n_malloc += 1
        return ptr

    def free(self, ptr: int) -> None:
        """cudaFree."""
        self.bytes_in_use -= self._live.pop(ptr)
        self.n_free += 1

    def reserve_address_space(self, nbytes: int) -> int:
        """cuMemAddressReserve: virtual addresses only, no memory (expandable segments)."""
        ptr = self._recorded(0, kSmallBuffer)
        if ptr is None:
            ptr = (self._next + kSmallBuffer - 1) // kSmallBuffer * kSmallBuffer
        self._next = max(self._next, ptr + nbytes)
        return ptr

    def create_handle(self, nbytes: int) -> int:
        """cuMemCreate: ``nbytes`` of physical memory, to be mapped into a reserved range
        (an expandable segment's page). It has a handle, not an address."""
        if nbytes > self.free_bytes:
            raise DeviceOutOfMemory(f"cuMemCreate of {nbytes} bytes: out of memory")
        self._handles += 1
        self._live[-self._handles] = nbytes  # negative keys: never an address
        self.bytes_in_use += nbytes
        return -self._handles

    def release_handle(self, handle: int) -> None:
        """cuMemRelease (after cuMemUnmap): the page's memory goes back to the chip."""
        self.bytes_in_use -= self._live.pop(handle)

    def _recorded(self, nbytes: int, alignment: int) -> int | None:
        """The recorded driver's next address, checked: aligned and clear of live ranges."""
        if not self.addresses:
            return None
        ptr = self.addresses.pop(0)
        clash = [p for p, n in self._live.items() if p >= 0 and p < ptr + nbytes and ptr < p + n]
        if ptr % alignment or clash:
            raise ValueError(
                f"the recorded driver's next address {ptr:#x} cannot hold {nbytes} bytes "
                "(misaligned, or over a live segment): the recording is of another program"
            )
        return ptr


# === Given: statistics plumbing (c10/core/CachingDeviceAllocator.h: Stat, DeviceStats) ==========


class Stat:
    """One counter: current value, its peak, and the running totals added and removed."""

    __slots__ = ("current", "peak", "allocated", "freed")

    def __init__(self) -> None:
        self.current = self.peak = self.allocated = self.freed = 0


def increase_stat(stat: Stat, amount: int) -> None:
    stat.current += amount
    if stat.current > stat.peak:
        stat.peak = stat.current
    stat.allocated += amount


def decrease_stat(stat: Stat, amount: int) -> None:
    stat.current -= amount
    stat.freed += amount


class DeviceStats:
    """DeviceStats: one StatArray (all, small_pool, large_pool) per statistic, plus counters."""

    def __init__(self) -> None:
        for name in STAT_NAMES:
            setattr(self, name, [Stat(), Stat(), Stat()])
        self.oversize_allocations = Stat()
        self.oversize_segments = Stat()
        self.num_alloc_retries = 0
        self.num_ooms = 0
        self.num_sync_all_streams = 0
        self.num_device_alloc = 0
        self.num_device_free = 0
        self.max_split_size = 0  # a setting, not a counter: filled once, by the allocator

    def arrays(self) -> Iterable[tuple[str, list[Stat]]]:
        return ((name, getattr(self, name)) for name in STAT_NAMES)


# === Given: configuration data (c10/core/AllocatorConfig.h) =====================================


class AllocatorConfig:
    """The settings of ``PYTORCH_CUDA_ALLOC_CONF`` / ``torch.cuda.memory._set_allocator_settings``.

    ``min_block_size`` and ``first_fit`` are this course's chip knobs (Task 4.5), not torch's.
    """

    def __init__(self) -> None:
        self.max_split_size = SIZE_MAX
        self.max_non_split_rounding = kLargeBuffer  # max_non_split_rounding_mb, default 20 MiB
        self.roundup_power2_divisions = [0] * kRoundUpPowerOfTwoIntervals
        self.garbage_collection_threshold = 0.0
        self.expandable_segments = False
        self.release_lock_on_cudamalloc = False
        self.min_block_size = kMinBlockSize
        self.first_fit = False
        self.last_allocator_settings = ""

    @classmethod
    def parse(cls, text: str) -> AllocatorConfig:
        """A fresh config with ``text`` applied (see parse_args)."""
        config = cls()
        config.parse_args(text)
        return config

    # === Task 4.1: sizes and pools ===============================================================

    def roundup_power2_divisions_for(self, size: int) -> int:
        """Task 4.1: the divisions for ``size``: AllocatorConfig::roundup_power2_divisions.

        One entry per power-of-two interval, starting at [1 MiB, 2 MiB) and ending with
        everything >= 32 GiB; sizes under 1 MiB use the first entry.
        """
        raise NotImplementedError("AllocatorConfig.roundup_power2_divisions_for (Task 4.1)")

    def parse_args(self, text: str) -> None:
        """Task 4.1: apply a settings string: AllocatorConfig::parseArgs (AllocatorConfig.cpp).

        "max_split_size_mb:128,roundup_power2_divisions:[256:1,>:8],expandable_segments:True".
        Like torch, every call first resets max_split_size, roundup_power2_divisions and
        garbage_collection_threshold (a key absent from the string is back at its default),
        while expandable_segments and max_non_split_rounding keep their values. A bad key or
        value raises ValueError (TORCH_CHECK_VALUE in c10/core/AllocatorConfig.cpp: torch 2.13
        says so on this CPU build, an H100 for the unknown key); a string cut short is
        RuntimeError (torch stops on an internal assert there).
        """
        raise NotImplementedError("AllocatorConfig.parse_args (Task 4.1)")


def _lex_args(text: str) -> list[str]:
    """AllocatorConfig::lexArgs: split on , : [ ] (kept as tokens); spaces are dropped."""
    tokens: list[str] = []
    buf = ""
    for ch in text:
        if ch in ",:[]":
            if buf:
                tokens.append(buf)
                buf = ""
            tokens.append(ch)
        elif ch != " ":
            buf += ch
    if buf:
        tokens.append(buf)
    return tokens


def _consume(tokens: list[str], i: int, ch: str) -> None:
    if i >= len(tokens) or tokens[i] != ch:
        raise RuntimeError(
            f"Error parsing CachingAllocator::AllocatorConfig settings, expected {ch}"
        )


def _value(tokens: list[str], i: int, key: str) -> str:
    if i >= len(tokens):
        raise RuntimeError(f"Error, expecting {key} value")
    return tokens[i]


def _int(text: str, key: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise ValueError(f"CachingAllocator option {key}: invalid value {text!r}") from None


def _is_pow2(n: int) -> bool:
    return n > 0 and n & (n - 1) == 0


def _parse_mb(config: AllocatorConfig, tokens: list[str], i: int, key: str) -> int:
    """Task 4.1: parseMaxSplitSize / parseMaxNonSplitRoundingSize: megabytes, at least 20."""
    raise NotImplementedError("_parse_mb (Task 4.1)")


def _parse_gc_threshold(config: AllocatorConfig, tokens: list[str], i: int, key: str) -> int:
    """Task 4.1: parseGarbageCollectionThreshold: a fraction strictly between 0 and 1."""
    raise NotImplementedError("_parse_gc_threshold (Task 4.1)")


def _parse_bool(config: AllocatorConfig, tokens: list[str], i: int, key: str) -> int:
    """Task 4.1: expandable_segments / release_lock_on_cudamalloc: exactly True or False."""
    raise NotImplementedError("_parse_bool (Task 4.1)")


def _parse_divisions(config: AllocatorConfig, tokens: list[str], i: int, key: str) -> int:
    """Task 4.1: parseRoundUpPower2Divisions: one number for all sizes, or ``[64:8,256:2,>:1]``.

    In the list form each ``MB:d`` sets the interval that starts at MB megabytes; the first
    entry also covers every interval below it, and ``>`` covers every interval after the last
    one named (not that one itself: with ``[256:4,>:8]`` a 260 MiB request still gets 4
    divisions, as AcceleratorAllocatorConfig::parseRoundUpPower2Divisions does in
    c10/core/AllocatorConfig.cpp and an H100 measured).
    """
    raise NotImplementedError("_parse_divisions (Task 4.1)")


_CONFIG_KEYS = {
    "max_split_size_mb": _parse_mb,
    "max_non_split_rounding_mb": _parse_mb,
    "garbage_collection_threshold": _parse_gc_threshold,
    "roundup_power2_divisions": _parse_divisions,
    "expandable_segments": _parse_bool,
    "release_lock_on_cudamalloc": _parse_bool,
}


def roundup_power2_next_division(size: int, divisions: int) -> int:
    """Task 4.1: DeviceCachingAllocator::roundup_power2_next_division.

    Cut [2**k, 2**(k+1)) into ``divisions`` equal steps and round up to the next step:
    1200 with 4 divisions -> steps 1024, 1280, 1536, 1792 -> 1280. Powers of two stay.
    """
    raise NotImplementedError("roundup_power2_next_division (Task 4.1)")


def round_size(size: int, config: AllocatorConfig | None = None) -> int:
    """Task 4.1: the size a request really gets: DeviceCachingAllocator::round_size.

    Below kMinBlockSize (512): 512. With roundup_power2_divisions d > 1 for this size and
    size > 512 * d: the next of the d steps between powers of two (fewer distinct sizes, so
    freed blocks fit later requests: less fragmentation). Else the next multiple of 512.
    ``config.min_block_size`` replaces 512 on the 32-byte chips of the last task.
    """
    raise NotImplementedError("round_size (Task 4.1)")


def is_small(size: int) -> bool:
    """Task 4.1: does a ROUNDED size go to the small pool? DeviceCachingAllocator::get_pool."""
    raise NotImplementedError("is_small (Task 4.1)")


def get_allocation_size(size: int) -> int:
    """Task 4.1: the segment cudaMalloc'd for a miss: DeviceCachingAllocator::get_allocation_size.

    <= 1 MiB: a 2 MiB segment (room for many small blocks, one driver call for all of them);
    < 10 MiB: a 20 MiB segment shared by several medium requests; else the request itself,
    rounded up to 2 MiB (a big tensor gets its own segment, nothing wasted to sharing).
    """
    raise NotImplementedError("get_allocation_size (Task 4.1)")


_DEFAULT_CONFIG = AllocatorConfig()


def format_size(size: int) -> str:
    """Task 4.3: format_size (CUDACachingAllocator.cpp), used in the OOM message.

    "512 bytes" up to 1 KiB, then KiB, MiB, GiB with two decimals (std::fixed, precision 2).
    """
    raise NotImplementedError("format_size (Task 4.3)")


# === Given: blocks, segments and pools (CUDACachingAllocator.cpp: Block, BlockPool) ============


class ExpandableSegment:
    """Task 4.5's simplified expandable segment: reserved addresses, mapped from the start.

    torch reserves 9/8 of the chip's memory as virtual addresses and maps physical pages
    (2 MiB small, 20 MiB large) into it on demand. Here ``handles`` are the mapped pages,
    each a ``device.create_handle(page_size)`` (cuMemCreate), in address order.
    """

    def __init__(self, base: int, page_size: int, stream: int, is_small: bool) -> None:
        self.base = base
        self.page_size = page_size
        self.stream = stream
        self.is_small = is_small
        self.handles: list[int] = []
        self.tail: Block | None = None  # the mapped block that ends at mapped_end

    @property
    def mapped_end(self) -> int:
        return self.base + len(self.handles) * self.page_size


class Block:
    """A range of a segment: free (in its pool) or allocated (in active_blocks)."""

    __slots__ = (
        "ptr",
        "size",
        "requested_size",
        "stream",
        "allocated",
        "prev",
        "next",
        "pool",
        "gc_count_base",
        "expandable",
    )

    def __init__(self, ptr: int, size: int, stream: int, pool: BlockPool) -> None:
        self.ptr = ptr
        self.size = size
        self.requested_size = 0
        self.stream = stream
        self.allocated = False
        self.prev: Block | None = None  # neighbours in the same segment
        self.next: Block | None = None
        self.pool = pool
        self.gc_count_base = 0  # pool.get_free_blocks_call_count when the block was cached
        self.expandable: ExpandableSegment | None = None

    def is_split(self) -> bool:
        return self.prev is not None or self.next is not None

    def gc_count(self) -> int:
        """How many searches of its pool this free block has sat through (its GC "age")."""
        return self.pool.get_free_blocks_call_count - self.gc_count_base

    def __repr__(self) -> str:
        state = "allocated" if self.allocated else "free"
        return f"Block(ptr={self.ptr:#x}, size={self.size}, stream={self.stream}, {state})"


def size_key(block: Block) -> tuple[int, int, int]:
    """Task 4.2: the pool's order, BlockComparatorSize: stream, then size, then address.

    Sorting by stream first puts each stream's blocks in one run, so one lower_bound finds
    the smallest block of THIS stream that fits: best fit never crosses streams (a block freed
    on stream A may still be read by kernels queued on A; handing it to stream B would race).
    """
    raise NotImplementedError("size_key (Task 4.2)")


class BlockPool:
    """The cached free blocks of one pool, sorted by ``size_key`` (a std::set in torch)."""

    def __init__(self, is_small: bool) -> None:
        self.is_small = is_small
        self.keys = SortedList()
        self.blocks: dict[tuple[int, int, int], Block] = {}
        self.get_free_blocks_call_count = 0

    def insert_into_blocks(self, block: Block) -> None:
        block.gc_count_base = self.get_free_blocks_call_count
        key = size_key(block)
        self.keys.add(key)
        self.blocks[key] = block

    def erase(self, block: Block) -> None:
        key = size_key(block)
        self.keys.remove(key)
        del self.blocks[key]

    def __len__(self) -> int:
        return len(self.keys)

    def __iter__(self):
        return (self.blocks[k] for k in list(self.keys))


class AllocParams:
    """One malloc's search state: the rounded size, stream, pool, segment size and result."""

    __slots__ = ("size", "stream", "pool", "alloc_size", "stat_types", "block", "device_oom")

    def __init__(self, size: int, stream: int, pool: BlockPool, alloc_size: int) -> None:
        self.size = size
        self.stream = stream
        self.pool = pool
        self.alloc_size = alloc_size
        self.stat_types = (AGGREGATE, SMALL_POOL if pool.is_small else LARGE_POOL)
        self.block: Block | None = None
        self.device_oom = False


# === The allocator ==============================================================================


class CachingAllocator:
    """DeviceCachingAllocator: one device's pools, active blocks and statistics."""

    def __init__(
        self,
        device: Device,
        config: AllocatorConfig | None = None,
        min_block_size: int | None = None,
        first_fit: bool | None = None,
    ) -> None:
        self.device = device
        self.config = config if config is not None else AllocatorConfig()
        if min_block_size is not None:
            self.config.min_block_size = min_block_size
        if first_fit is not None:
            self.config.first_fit = first_fit
        self.large_blocks = BlockPool(is_small=False)
        self.small_blocks = BlockPool(is_small=True)
        self.active_blocks: set[Block] = set()
        self.stats = DeviceStats()
        # Like DeviceCachingAllocator's constructor (CUDACachingAllocator.cpp): the stat is
        # filled once, here. A later _set_allocator_settings changes the policy, not the stat.
        max_split = self.config.max_split_size
        self.stats.max_split_size = -1 if max_split == SIZE_MAX else max_split
        self.total_allocated_memory = 0  # bytes held from the driver (reserved)
        self.allowed_memory_maximum = 0
        self.set_fraction = False
        self.expandable_segments: dict[tuple[bool, int], ExpandableSegment] = {}
        self.record_history = False
        self.trace: list[tuple[str, int, int]] = []

    # --- given plumbing ---------------------------------------------------------------------

    def set_allocator_settings(self, text: str) -> None:
        """torch.cuda.memory._set_allocator_settings: parse into the live config."""
        self.config.parse_args(text)

    def record_memory_history(self, enabled: bool = True) -> None:
        """torch.cuda.memory._record_memory_history: keep a trace of (action, addr, size)."""
        self.record_history = enabled
        if not enabled:
            self.trace.clear()

    def record_trace(self, action: str, addr: int, size: int) -> None:
        if self.record_history:
            self.trace.append((action, addr, size))

    def _stat_arrays_update(self, stat_types: Sequence[int], **deltas: int) -> None:
        """Add (or, when negative, remove) ``deltas`` to the named StatArrays."""
        stats = self.stats
        for name, amount in deltas.items():
            array = getattr(stats, name)
            for t in stat_types:
                if amount >= 0:
                    increase_stat(array[t], amount)
                else:
                    decrease_stat(array[t], -amount)

    # === Task 4.2: blocks =====================================================================

    def get_pool(self, size: int) -> BlockPool:
        """Task 4.2: DeviceCachingAllocator::get_pool: small_blocks for <= 1 MiB, else large."""
        raise NotImplementedError("CachingAllocator.get_pool (Task 4.2)")

    def get_free_block(self, p: AllocParams) -> bool:
        """Task 4.2: best fit in the pool: DeviceCachingAllocator::get_free_block.

        lower_bound((stream, size)) gives the smallest free block of this stream that fits;
        a block of another stream means none fits. Then the oversize rules: a request below
        max_split_size never takes a block >= max_split_size (those stay whole for big
        requests), and a request >= max_split_size takes a block only if it wastes less than
        max_non_split_rounding (20 MiB): oversize blocks are never split, so the rest is lost.
        Blocks of an expandable segment are skipped while expandable_segments is off.
        """
        raise NotImplementedError("CachingAllocator.get_free_block (Task 4.2)")

    @staticmethod
    def _lower_bound(pool: BlockPool, stream: int, size: int, expandable_ok: bool) -> Block | None:
        """Task 4.2: std::set::lower_bound: the first block of ``stream`` with size >= ``size``."""
        raise NotImplementedError("CachingAllocator._lower_bound (Task 4.2)")

    def should_split(self, block: Block, size: int) -> bool:
        """Task 4.2: split a found block? DeviceCachingAllocator::should_split.

        Small pool (and expandable segments): whenever the rest holds a minimal block, since
        small segments exist to be shared. Large pool: only a request below max_split_size,
        and only if more than 1 MiB would be left (a smaller rest could only serve the small
        pool's sizes, which never come to the large pool: it would be wasted).
        """
        raise NotImplementedError("CachingAllocator.should_split (Task 4.2)")

    def alloc_found_block(self, p: AllocParams, orig_size: int, split: bool) -> Block:
        """Task 4.2: hand out p.block, split if asked: DeviceCachingAllocator::alloc_found_block.

        The request takes the FRONT of the block; the rest (same segment, next address) goes
        back to the pool. inactive_split counts free blocks that are part of a split segment:
        memory that empty_cache cannot give back.
        """
        raise NotImplementedError("CachingAllocator.alloc_found_block (Task 4.2)")

    def free(self, block: Block) -> None:
        """Task 4.2: give a block back: DeviceCachingAllocator::free.

        allocated_bytes drop now; active_bytes drop in free_block (torch delays that for blocks
        used on other streams until their events complete; this simulation has no events).
        """
        raise NotImplementedError("CachingAllocator.free (Task 4.2)")

    def free_block(self, block: Block) -> None:
        """Task 4.2: merge with free neighbours, cache in the pool: free_block.

        Merging undoes splits: two free neighbours become one bigger block, so a later big
        request can use them and a fully free segment can be released again.
        """
        raise NotImplementedError("CachingAllocator.free_block (Task 4.2)")

    def try_merge_blocks(self, dst: Block, src: Block | None, pool: BlockPool) -> int:
        """Task 4.2: absorb free neighbour ``src`` into ``dst``: try_merge_blocks.

        Returns the bytes absorbed (0: src missing or allocated). ``dst`` keeps its identity,
        so a merge with the previous block moves dst's ptr back to src's.
        """
        raise NotImplementedError("CachingAllocator.try_merge_blocks (Task 4.2)")

    # === Task 4.3: the miss path ==============================================================

    def malloc(self, size: int, stream: int = 0) -> Block:
        """Task 4.2: DeviceCachingAllocator::malloc, the path that works: round the request,
        pick its pool, take the best cached block, or else a new segment from the driver
        (``alloc_block``); split what is left over when ``should_split`` says so. When the
        driver refuses, ``handle_miss`` (written later) tries to make room or raises."""
        raise NotImplementedError("CachingAllocator.malloc (Task 4.2)")

    def handle_miss(self, p: AllocParams) -> None:
        """Task 4.3: the rest of DeviceCachingAllocator::malloc, once the driver has refused
        a new segment: free cached oversize blocks and retry, then free EVERY unsplit cached
        segment and retry (a retry: num_alloc_retries), then raise OutOfMemoryError. On
        success ``p.block`` is the new segment."""
        raise NotImplementedError("CachingAllocator.handle_miss (Task 4.3)")

    def out_of_memory_message(self, alloc_size: int) -> str:
        """Task 4.3: the text of torch's OutOfMemoryError (the TORCH_CHECK_WITH in malloc).

        It names the SEGMENT size that failed (alloc_size), the device's capacity and free
        memory, the fraction limit if set, and allocated vs reserved-but-unallocated bytes.
        """
        raise NotImplementedError("CachingAllocator.out_of_memory_message (Task 4.3)")

    def alloc_block(self, p: AllocParams, is_retry: bool) -> bool:
        """Task 4.2: a new segment from the driver: DeviceCachingAllocator::alloc_block.

        Fails without asking the driver when it would take reserved memory past the memory
        fraction (allowed_memory_maximum). A new segment is one unsplit block: segment and
        reserved_bytes go up; allocated/active only when alloc_found_block hands it out.
        """
        raise NotImplementedError("CachingAllocator.alloc_block (Task 4.2)")

    def release_block(self, block: Block) -> None:
        """Task 4.3: cudaFree one whole cached segment: DeviceCachingAllocator::release_block."""
        raise NotImplementedError("CachingAllocator.release_block (Task 4.3)")

    def release_available_cached_blocks(self, p: AllocParams) -> bool:
        """Task 4.3: free just enough oversize segments: release_available_cached_blocks.

        Only with max_split_size set. The smallest cached oversize block (same stream) that
        covers the request is freed; if none is big enough, the largest ones are freed until
        their total covers it. A cheap first retry before release_cached_blocks frees all.
        """
        raise NotImplementedError("CachingAllocator.release_available_cached_blocks (Task 4.3)")

    def release_blocks(self, pool: BlockPool) -> None:
        """Task 4.3: cudaFree every cached block that is a whole segment: release_blocks.

        A free block that is still split has allocated neighbours: its segment cannot go back.
        """
        raise NotImplementedError("CachingAllocator.release_blocks (Task 4.3)")

    def release_cached_blocks(self) -> bool:
        """Task 4.3: DeviceCachingAllocator::release_cached_blocks (emptyCache, last retry).

        torch first synchronizes every stream (num_sync_all_streams) so blocks waiting on
        events come back, then frees all unsplit blocks of both pools. Always returns True.
        """
        raise NotImplementedError("CachingAllocator.release_cached_blocks (Task 4.3)")

    def empty_cache(self) -> None:
        """Task 4.3: torch.cuda.empty_cache: DeviceCachingAllocator::emptyCache."""
        raise NotImplementedError("CachingAllocator.empty_cache (Task 4.3)")

    def set_memory_fraction(self, fraction: float) -> None:
        """Task 4.3: torch.cuda.set_per_process_memory_fraction: setMemoryFraction.

        Reserved memory (not allocated) is capped at fraction * total capacity.
        """
        raise NotImplementedError("CachingAllocator.set_memory_fraction (Task 4.3)")

    def garbage_collect_cached_blocks(self) -> None:
        """Task 4.3: DeviceCachingAllocator::garbage_collect_cached_blocks.

        Once reserved memory passes garbage_collection_threshold * allowed, free unsplit
        large cached segments whose age (pool searches since they were cached) is at least
        the average age, repeating until enough is reclaimed. Unlike release_cached_blocks
        it needs no device-wide sync, and it keeps recently used segments cached.
        """
        raise NotImplementedError("CachingAllocator.garbage_collect_cached_blocks (Task 4.3)")

    # === Task 4.4: statistics and snapshots ===================================================

    def memory_stats(self) -> dict[str, int]:
        """Task 4.4: torch.cuda.memory_stats(): flat "stat.pool.kind" keys, sorted by name.

        torch/cuda/memory.py flattens memory_stats_as_nested_dict() and sorts the keys.
        max_split_size is the setting the allocator was made with (the C++ size_t cast to
        int64: -1 when unset), kept in ``stats.max_split_size``; a later settings change does
        not show there (a real H100 still says -1).
        """
        raise NotImplementedError("CachingAllocator.memory_stats (Task 4.4)")

    def _all_stats(self) -> list[Stat]:
        s = self.stats
        return [st for _, arr in s.arrays() for st in arr] + [
            s.oversize_allocations,
            s.oversize_segments,
        ]

    def reset_peak_memory_stats(self) -> None:
        """Task 4.4: resetPeakStats: every peak drops to its current value."""
        raise NotImplementedError("CachingAllocator.reset_peak_memory_stats (Task 4.4)")

    def reset_accumulated_memory_stats(self) -> None:
        """Task 4.4: resetAccumulatedStats: allocated/freed totals and the counters go to 0."""
        raise NotImplementedError("CachingAllocator.reset_accumulated_memory_stats (Task 4.4)")

    def memory_snapshot(self) -> list[dict[str, Any]]:
        """Given, so that your blocks can be seen from Task 4.2 on: torch.cuda.memory_snapshot(),
        DeviceCachingAllocator::snapshot.

        One dict per segment (a block with no prev is a segment head; walk ``next``), sorted
        by address; its blocks tile it in address order.
        """
        every = list(self.small_blocks) + list(self.large_blocks) + list(self.active_blocks)
        segments = []
        for head in every:
            if head.prev is not None:
                continue
            seg: dict[str, Any] = {
                "device": 0,
                "address": head.ptr,
                "total_size": 0,
                "allocated_size": 0,
                "active_size": 0,
                "requested_size": 0,
                "stream": head.stream,
                "segment_type": "small" if head.pool.is_small else "large",
                "segment_pool_id": (0, 0),
                "is_expandable": head.expandable is not None,
                "frames": [],
                "blocks": [],
            }
            block: Block | None = head
            while block is not None:
                seg["total_size"] += block.size
                if block.allocated:
                    seg["allocated_size"] += block.size
                    seg["active_size"] += block.size
                    seg["requested_size"] += block.requested_size
                seg["blocks"].append(
                    {
                        "address": block.ptr,
                        "size": block.size,
                        "requested_size": block.requested_size,
                        "state": "active_allocated" if block.allocated else "inactive",
                        "frames": [],
                    }
                )
                block = block.next
            segments.append(seg)
        segments.sort(key=lambda seg: seg["address"])
        return segments

    # === Task 4.5: the chip questions =========================================================

    def first_fit_block(self, p: AllocParams) -> Block | None:
        """Task 4.5: first fit instead of best fit: the LOWEST-address block of the stream that
        fits (the classic malloc policy torch does not use). O(pool) per search; compare its
        fragmentation with best fit in the replay table.
        """
        raise NotImplementedError("CachingAllocator.first_fit_block (Task 4.5)")

    def alloc_expandable_block(self, p: AllocParams) -> Block | None:
        """Task 4.5: grow this pool's expandable segment: try_allocate_expandable_block.

        Simplified: one segment per (pool, stream), grown only at its end by whole pages
        (2 MiB small, 20 MiB large). If its last block is free it is extended, so the new
        block continues the free space instead of leaving a sliver: that is the point of
        expandable segments. Each page is one ``device.create_handle`` (cuMemCreate, mapped into
        the reserved range); reserved_bytes grow by the pages, num_device_alloc by one per
        growth; segment counts do not change (as in map_block).
        """
        raise NotImplementedError("CachingAllocator.alloc_expandable_block (Task 4.5)")

    def release_expandable_tail(self, pool: BlockPool) -> None:
        """Task 4.5: unmap the free pages at the end of each expandable segment (unmap_block).

        Simplified: only the segment's last block is unmapped, page by page; torch also unmaps
        whole free pages in the middle. A fully unmapped segment is dropped.
        """
        raise NotImplementedError("CachingAllocator.release_expandable_tail (Task 4.5)")


def replay(allocator: CachingAllocator, events: Iterable[Sequence[Any]]) -> dict[str, float]:
    """Task 4.5: replay a trace ``[["malloc", id, nbytes], ["free", id], ...]``.

    Zero-byte mallocs are skipped (torch's allocate() never calls malloc for them). Returns
    the driver calls (num_device_alloc / num_device_free during the replay), cache_hit_rate
    (the fraction of mallocs served without a new segment), peak_reserved and peak_allocated
    (reserved_bytes / allocated_bytes .all.peak; allocated counts ROUNDED sizes), and
    fragmentation = 1 - peak_allocated / peak_reserved: the share of the reserved high-water
    mark that never held a live block at the allocated high-water mark (0 when nothing was
    reserved). Peaks are reset first, so the figures describe this replay alone.
    """
    raise NotImplementedError("replay (Task 4.5)")
