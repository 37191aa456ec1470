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
        ### BEGIN SOLUTION
        index = size.bit_length() - 1 - kRoundUpPowerOfTwoStartLog2
        index = min(max(index, 0), kRoundUpPowerOfTwoIntervals - 1)
        return self.roundup_power2_divisions[index]
        ### END SOLUTION

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
        ### BEGIN SOLUTION
        self.max_split_size = SIZE_MAX
        self.roundup_power2_divisions = [0] * kRoundUpPowerOfTwoIntervals
        self.garbage_collection_threshold = 0.0
        self.last_allocator_settings = text
        tokens = _lex_args(text)
        i = 0
        while i < len(tokens):
            key = tokens[i]
            if key not in _CONFIG_KEYS:
                raise ValueError(f"Unrecognized key '{key}' in Accelerator allocator config.")
            _consume(tokens, i + 1, ":")
            i = _CONFIG_KEYS[key](self, tokens, i + 2, key)
            if i + 1 < len(tokens):
                _consume(tokens, i + 1, ",")
                i += 1
            i += 1
        ### END SOLUTION


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
    ### BEGIN SOLUTION
    mb = _int(_value(tokens, i, key), key)
    if mb < kLargeBuffer // MiB:
        raise ValueError(
            f"CachingAllocator option {key} too small, must be >= {kLargeBuffer // MiB}"
        )
    mb = min(mb, SIZE_MAX // MiB)
    if key == "max_split_size_mb":
        config.max_split_size = mb * MiB
    else:
        config.max_non_split_rounding = mb * MiB
    return i
    ### END SOLUTION


def _parse_gc_threshold(config: AllocatorConfig, tokens: list[str], i: int, key: str) -> int:
    """Task 4.1: parseGarbageCollectionThreshold: a fraction strictly between 0 and 1."""
    ### BEGIN SOLUTION
    try:
        value = float(_value(tokens, i, key))
    except ValueError:
        raise ValueError(f"CachingAllocator option {key}: invalid value") from None
    if not 0.0 < value < 1.0:
        raise ValueError("garbage_collect_threshold is invalid, set it in (0.0, 1.0)")
    config.garbage_collection_threshold = value
    return i
    ### END SOLUTION


def _parse_bool(config: AllocatorConfig, tokens: list[str], i: int, key: str) -> int:
    """Task 4.1: expandable_segments / release_lock_on_cudamalloc: exactly True or False."""
    ### BEGIN SOLUTION
    value = tokens[i] if i < len(tokens) else ""
    if value not in ("True", "False"):
        raise ValueError(f"Expected 'True' or 'False' for {key} but got {value!r}")
    attr = "expandable_segments" if key == "expandable_segments" else "release_lock_on_cudamalloc"
    setattr(config, attr, value == "True")
    return i
    ### END SOLUTION


def _parse_divisions(config: AllocatorConfig, tokens: list[str], i: int, key: str) -> int:
    """Task 4.1: parseRoundUpPower2Divisions: one number for all sizes, or ``[64:8,256:2,>:1]``.

    In the list form each ``MB:d`` sets the interval that starts at MB megabytes; the first
    entry also covers every interval below it, and ``>`` covers every interval after the last
    one named (not that one itself: with ``[256:4,>:8]`` a 260 MiB request still gets 4
    divisions, as AcceleratorAllocatorConfig::parseRoundUpPower2Divisions does in
    c10/core/AllocatorConfig.cpp and an H100 measured).
    """
    ### BEGIN SOLUTION
    divs = config.roundup_power2_divisions
    if _value(tokens, i, key) != "[":
        d = _int(tokens[i], key)
        if not _is_pow2(d):
            raise ValueError("For roundups, the divisions has to be power of 2 ")
        divs[:] = [d] * len(divs)
        return i
    first, last_index = True, 0
    i += 1
    while i < len(tokens) and tokens[i] != "]":
        start = tokens[i]
        _consume(tokens, i + 1, ":")
        d = _int(_value(tokens, i + 2, key), key)
        i += 2
        if d != 0 and not _is_pow2(d):
            raise ValueError(
                "For roundups, the divisions has to be power of 2 or 0 to disable roundup "
            )
        if start == ">":  # the intervals AFTER the last one named (an H100 shows it so)
            divs[last_index + 1 :] = [d] * (len(divs) - last_index - 1)
        else:
            mb = _int(start, key)
            if not _is_pow2(mb):
                raise ValueError("For roundups, the intervals have to be power of 2 ")
            index = min(mb.bit_length() - 1, len(divs) - 1)
            if first:
                divs[:index] = [d] * index
                first = False
            divs[index] = d
            last_index = index
        if i + 1 < len(tokens) and tokens[i + 1] != "]":
            _consume(tokens, i + 1, ",")
            i += 1
        i += 1
    if i >= len(tokens):
        raise RuntimeError("Error parsing roundup_power2_divisions value")
    return i
    ### END SOLUTION


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
    ### BEGIN SOLUTION
    if _is_pow2(size):
        return size
    power2_floor = 1 << (size.bit_length() - 1)
    step = power2_floor >> (divisions.bit_length() - 1)
    if step == 0:
        return power2_floor << 1
    floor = size & ~(step - 1)
    return size if floor == size else floor + step
    ### END SOLUTION


def round_size(size: int, config: AllocatorConfig | None = None) -> int:
    """Task 4.1: the size a request really gets: DeviceCachingAllocator::round_size.

    Below kMinBlockSize (512): 512. With roundup_power2_divisions d > 1 for this size and
    size > 512 * d: the next of the d steps between powers of two (fewer distinct sizes, so
    freed blocks fit later requests: less fragmentation). Else the next multiple of 512.
    ``config.min_block_size`` replaces 512 on the 32-byte chips of the last task.
    """
    ### BEGIN SOLUTION
    config = config or _DEFAULT_CONFIG
    mbs = config.min_block_size
    if size < mbs:
        return mbs
    divisions = config.roundup_power2_divisions_for(size)
    if divisions > 1 and size > mbs * divisions:
        return roundup_power2_next_division(size, divisions)
    return mbs * ((size + mbs - 1) // mbs)
    ### END SOLUTION


def is_small(size: int) -> bool:
    """Task 4.1: does a ROUNDED size go to the small pool? DeviceCachingAllocator::get_pool."""
    ### BEGIN SOLUTION
    return size <= kSmallSize
    ### END SOLUTION


def get_allocation_size(size: int) -> int:
    """Task 4.1: the segment cudaMalloc'd for a miss: DeviceCachingAllocator::get_allocation_size.

    <= 1 MiB: a 2 MiB segment (room for many small blocks, one driver call for all of them);
    < 10 MiB: a 20 MiB segment shared by several medium requests; else the request itself,
    rounded up to 2 MiB (a big tensor gets its own segment, nothing wasted to sharing).
    """
    ### BEGIN SOLUTION
    if size <= kSmallSize:
        return kSmallBuffer
    if size < kMinLargeAlloc:
        return kLargeBuffer
    return kRoundLarge * ((size + kRoundLarge - 1) // kRoundLarge)
    ### END SOLUTION


_DEFAULT_CONFIG = AllocatorConfig()


def format_size(size: int) -> str:
    """Task 4.3: format_size (CUDACachingAllocator.cpp), used in the OOM message.

    "512 bytes" up to 1 KiB, then KiB, MiB, GiB with two decimals (std::fixed, precision 2).
    """
    ### BEGIN SOLUTION
    if size <= KiB:
        return f"{size} bytes"
    if size <= MiB:
        return f"{size / KiB:.2f} KiB"
    if size <= GiB:
        return f"{size / MiB:.2f} MiB"
    return f"{size / GiB:.2f} GiB"
    ### END SOLUTION


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
    ### BEGIN SOLUTION
    return (block.stream, block.size, block.ptr)
    ### END SOLUTION


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
        ### BEGIN SOLUTION
        return self.small_blocks if is_small(size) else self.large_blocks
        ### END SOLUTION

    def get_free_block(self, p: AllocParams) -> bool:
        """Task 4.2: best fit in the pool: DeviceCachingAllocator::get_free_block.

        lower_bound((stream, size)) gives the smallest free block of this stream that fits;
        a block of another stream means none fits. Then the oversize rules: a request below
        max_split_size never takes a block >= max_split_size (those stay whole for big
        requests), and a request >= max_split_size takes a block only if it wastes less than
        max_non_split_rounding (20 MiB): oversize blocks are never split, so the rest is lost.
        Blocks of an expandable segment are skipped while expandable_segments is off.
        """
        ### BEGIN SOLUTION
        pool, config = p.pool, self.config
        if self.set_fraction and config.garbage_collection_threshold > 0.0:
            pool.get_free_blocks_call_count += 1  # the clock of the GC's block ages
        if config.first_fit:
            block = self.first_fit_block(p)
        else:
            block = self._lower_bound(pool, p.stream, p.size, config.expandable_segments)
        if block is None:
            return False
        if p.size < config.max_split_size and block.size >= config.max_split_size:
            return False
        if p.size >= config.max_split_size and (
            block.size >= p.size + config.max_non_split_rounding
        ):
            return False
        p.block = block
        pool.erase(block)
        return True
        ### END SOLUTION

    @staticmethod
    def _lower_bound(pool: BlockPool, stream: int, size: int, expandable_ok: bool) -> Block | None:
        """Task 4.2: std::set::lower_bound: the first block of ``stream`` with size >= ``size``."""
        ### BEGIN SOLUTION
        keys = pool.keys
        i = keys.bisect_left((stream, size))
        while i < len(keys):
            key = keys[i]
            if key[0] != stream:
                return None
            block = pool.blocks[key]
            if block.expandable is None or expandable_ok:
                return block
            i += 1
        return None
        ### END SOLUTION

    def should_split(self, block: Block, size: int) -> bool:
        """Task 4.2: split a found block? DeviceCachingAllocator::should_split.

        Small pool (and expandable segments): whenever the rest holds a minimal block, since
        small segments exist to be shared. Large pool: only a request below max_split_size,
        and only if more than 1 MiB would be left (a smaller rest could only serve the small
        pool's sizes, which never come to the large pool: it would be wasted).
        """
        ### BEGIN SOLUTION
        remaining = block.size - size
        if block.pool.is_small or self.config.expandable_segments:
            return remaining >= self.config.min_block_size
        return size < self.config.max_split_size and remaining > kSmallSize
        ### END SOLUTION

    def alloc_found_block(self, p: AllocParams, orig_size: int, split: bool) -> Block:
        """Task 4.2: hand out p.block, split if asked: DeviceCachingAllocator::alloc_found_block.

        The request takes the FRONT of the block; the rest (same segment, next address) goes
        back to the pool. inactive_split counts free blocks that are part of a split segment:
        memory that empty_cache cannot give back.
        """
        ### BEGIN SOLUTION
        block, pool, size = p.block, p.pool, p.size
        already_split = block.is_split()
        counts_split = block.expandable is None  # torch leaves expandable segments out
        if split:
            remaining = block
            block = Block(remaining.ptr, size, p.stream, pool)
            block.expandable = remaining.expandable
            block.prev = remaining.prev
            if block.prev is not None:
                block.prev.next = block
            block.next = remaining
            remaining.prev = block
            remaining.ptr += size
            remaining.size -= size
            pool.insert_into_blocks(remaining)
            if already_split and counts_split:
                self._stat_arrays_update(p.stat_types, inactive_split_bytes=-size)
            elif counts_split:
                self._stat_arrays_update(
                    p.stat_types, inactive_split_bytes=remaining.size, inactive_split=1
                )
        elif already_split and counts_split:
            self._stat_arrays_update(
                p.stat_types, inactive_split_bytes=-block.size, inactive_split=-1
            )
        block.allocated = True
        block.requested_size = orig_size
        self.record_trace("alloc", block.ptr, orig_size)
        self.active_blocks.add(block)
        self._stat_arrays_update(
            p.stat_types,
            allocation=1,
            allocated_bytes=block.size,
            active=1,
            active_bytes=block.size,
            requested_bytes=orig_size,
        )
        if block.size >= self.config.max_split_size:
            increase_stat(self.stats.oversize_allocations, 1)
        return block
        ### END SOLUTION

    def free(self, block: Block) -> None:
        """Task 4.2: give a block back: DeviceCachingAllocator::free.

        allocated_bytes drop now; active_bytes drop in free_block (torch delays that for blocks
        used on other streams until their events complete; this simulation has no events).
        """
        ### BEGIN SOLUTION
        if not block.allocated:
            raise RuntimeError(f"invalid device pointer: {block.ptr:#x}")
        block.allocated = False
        stat_types = (AGGREGATE, SMALL_POOL if block.pool.is_small else LARGE_POOL)
        self._stat_arrays_update(stat_types, allocation=-1, allocated_bytes=-block.size)
        self.record_trace("free_requested", block.ptr, block.requested_size)
        if block.size >= self.config.max_split_size:
            decrease_stat(self.stats.oversize_allocations, 1)
        self.free_block(block)
        ### END SOLUTION

    def free_block(self, block: Block) -> None:
        """Task 4.2: merge with free neighbours, cache in the pool: free_block.

        Merging undoes splits: two free neighbours become one bigger block, so a later big
        request can use them and a fully free segment can be released again.
        """
        ### BEGIN SOLUTION
        self.record_trace("free_completed", block.ptr, block.requested_size)
        original_size, requested = block.size, block.requested_size
        pool = block.pool
        net_blocks = net_bytes = 0
        for candidate in (block.prev, block.next):
            subsumed = self.try_merge_blocks(block, candidate, pool)
            if subsumed > 0:
                net_blocks -= 1
                net_bytes -= subsumed
        self.active_blocks.discard(block)
        pool.insert_into_blocks(block)
        if block.is_split():
            net_blocks += 1
            net_bytes += block.size
        stat_types = (AGGREGATE, SMALL_POOL if pool.is_small else LARGE_POOL)
        deltas = {"active": -1, "active_bytes": -original_size, "requested_bytes": -requested}
        if block.expandable is None:
            if net_blocks:
                deltas["inactive_split"] = net_blocks
            if net_bytes:
                deltas["inactive_split_bytes"] = net_bytes
        self._stat_arrays_update(stat_types, **deltas)
        ### END SOLUTION

    def try_merge_blocks(self, dst: Block, src: Block | None, pool: BlockPool) -> int:
        """Task 4.2: absorb free neighbour ``src`` into ``dst``: try_merge_blocks.

        Returns the bytes absorbed (0: src missing or allocated). ``dst`` keeps its identity,
        so a merge with the previous block moves dst's ptr back to src's.
        """
        ### BEGIN SOLUTION
        if src is None or src.allocated:
            return 0
        pool.erase(src)
        if dst.prev is src:  # [src dst]
            dst.ptr = src.ptr
            dst.prev = src.prev
            if dst.prev is not None:
                dst.prev.next = dst
        else:  # [dst src]
            dst.next = src.next
            if dst.next is not None:
                dst.next.prev = dst
        dst.size += src.size
        if src.expandable is not None and src.expandable.tail is src:
            src.expandable.tail = dst  # keep the segment's end block (Task 4.5)
        return src.size
        ### END SOLUTION

    # === Task 4.3: the miss path ==============================================================

    def malloc(self, size: int, stream: int = 0) -> Block:
        """Task 4.2: DeviceCachingAllocator::malloc, the path that works: round the request,
        pick its pool, take the best cached block, or else a new segment from the driver
        (``alloc_block``); split what is left over when ``should_split`` says so. When the
        driver refuses, ``handle_miss`` (written later) tries to make room or raises."""
        ### BEGIN SOLUTION
        if size >= kOneExaByte:  # allocate()'s guard, before any search
            raise OutOfMemoryError("CUDA out of memory. Tried to allocate more than 1EB memory.")
        rounded = round_size(size, self.config)
        pool = self.get_pool(rounded)
        p = AllocParams(rounded, stream, pool, get_allocation_size(rounded))
        if not self.get_free_block(p):
            if self.set_fraction and self.config.garbage_collection_threshold > 0.0:
                self.garbage_collect_cached_blocks()  # old cached segments go first
            if not self.alloc_block(p, is_retry=False):
                self.handle_miss(p)
        return self.alloc_found_block(p, size, self.should_split(p.block, rounded))
        ### END SOLUTION

    def handle_miss(self, p: AllocParams) -> None:
        """Task 4.3: the rest of DeviceCachingAllocator::malloc, once the driver has refused
        a new segment: free cached oversize blocks and retry, then free EVERY unsplit cached
        segment and retry (a retry: num_alloc_retries), then raise OutOfMemoryError. On
        success ``p.block`` is the new segment."""
        ### BEGIN SOLUTION
        found = (self.release_available_cached_blocks(p) and self.alloc_block(p, False)) or (
            self.release_cached_blocks() and self.alloc_block(p, is_retry=True)
        )
        if not found:
            self.stats.num_ooms += 1
            self.record_trace("oom", self.device.free_bytes, p.size)
            raise OutOfMemoryError(self.out_of_memory_message(p.alloc_size))
        ### END SOLUTION

    def out_of_memory_message(self, alloc_size: int) -> str:
        """Task 4.3: the text of torch's OutOfMemoryError (the TORCH_CHECK_WITH in malloc).

        It names the SEGMENT size that failed (alloc_size), the device's capacity and free
        memory, the fraction limit if set, and allocated vs reserved-but-unallocated bytes.
        """
        ### BEGIN SOLUTION
        allocated = self.stats.allocated_bytes[AGGREGATE].current
        reserved = self.stats.reserved_bytes[AGGREGATE].current
        allowed = ""
        if self.set_fraction:
            allowed = format_size(self.allowed_memory_maximum) + " allowed; "
        return (
            f"CUDA out of memory. Tried to allocate {format_size(alloc_size)}. GPU 0 has a "
            f"total capacity of {format_size(self.device.capacity)} of which "
            f"{format_size(self.device.free_bytes)} is free. {allowed}"
            f"Of the allocated memory {format_size(allocated)} is allocated by PyTorch, and "
            f"{format_size(reserved - allocated)} is reserved by PyTorch but unallocated. "
            "If reserved but unallocated memory is large try setting "
            "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.  See "
            "documentation for Memory Management  "
            "(https://pytorch.org/docs/stable/notes/cuda.html#environment-variables)"
        )
        ### END SOLUTION

    def alloc_block(self, p: AllocParams, is_retry: bool) -> bool:
        """Task 4.2: a new segment from the driver: DeviceCachingAllocator::alloc_block.

        Fails without asking the driver when it would take reserved memory past the memory
        fraction (allowed_memory_maximum). A new segment is one unsplit block: segment and
        reserved_bytes go up; allocated/active only when alloc_found_block hands it out.
        """
        ### BEGIN SOLUTION
        if is_retry:
            self.stats.num_alloc_retries += 1
        size = p.alloc_size
        if self.set_fraction and self.total_allocated_memory + size > self.allowed_memory_maximum:
            return False
        if self.config.expandable_segments:
            p.block = self.alloc_expandable_block(p)
            return p.block is not None
        try:
            ptr = self.device.malloc(size)
        except DeviceOutOfMemory:
            return False
        self.total_allocated_memory += size
        p.block = Block(ptr, size, p.stream, p.pool)
        self._stat_arrays_update(p.stat_types, segment=1, reserved_bytes=size)
        if size >= self.config.max_split_size:
            increase_stat(self.stats.oversize_segments, 1)
        self.stats.num_device_alloc += 1
        self.record_trace("segment_alloc", ptr, size)
        return True
        ### END SOLUTION

    def release_block(self, block: Block) -> None:
        """Task 4.3: cudaFree one whole cached segment: DeviceCachingAllocator::release_block."""
        ### BEGIN SOLUTION
        self.stats.num_device_free += 1
        self.record_trace("segment_free", block.ptr, block.size)
        self.device.free(block.ptr)
        self.total_allocated_memory -= block.size
        stat_types = (AGGREGATE, SMALL_POOL if block.pool.is_small else LARGE_POOL)
        self._stat_arrays_update(stat_types, segment=-1, reserved_bytes=-block.size)
        if block.size >= self.config.max_split_size:
            decrease_stat(self.stats.oversize_segments, 1)
        block.pool.erase(block)
        ### END SOLUTION

    def release_available_cached_blocks(self, p: AllocParams) -> bool:
        """Task 4.3: free just enough oversize segments: release_available_cached_blocks.

        Only with max_split_size set. The smallest cached oversize block (same stream) that
        covers the request is freed; if none is big enough, the largest ones are freed until
        their total covers it. A cheap first retry before release_cached_blocks frees all.
        """
        ### BEGIN SOLUTION
        max_split = self.config.max_split_size
        if max_split == SIZE_MAX:
            return False
        pool, stream = p.pool, p.stream
        target = max(p.size, max_split)
        keys = pool.keys
        i = keys.bisect_left((stream, target))
        if i < len(keys) and keys[i][0] == stream and pool.blocks[keys[i]].expandable is None:
            self.release_block(pool.blocks[keys[i]])
            return True
        released, i = 0, i - 1
        while released < target and i >= 0:
            key = keys[i]
            if key[0] != stream or key[1] < max_split:
                break
            block = pool.blocks[key]
            i -= 1
            if block.expandable is None:  # torch asserts these are never expandable
                released += block.size
                self.release_block(block)
        return released >= target
        ### END SOLUTION

    def release_blocks(self, pool: BlockPool) -> None:
        """Task 4.3: cudaFree every cached block that is a whole segment: release_blocks.

        A free block that is still split has allocated neighbours: its segment cannot go back.
        """
        ### BEGIN SOLUTION
        for block in list(pool):
            if block.expandable is not None:
                continue
            if block.prev is None and block.next is None:
                self.release_block(block)
        if self.config.expandable_segments:
            self.release_expandable_tail(pool)
        ### END SOLUTION

    def release_cached_blocks(self) -> bool:
        """Task 4.3: DeviceCachingAllocator::release_cached_blocks (emptyCache, last retry).

        torch first synchronizes every stream (num_sync_all_streams) so blocks waiting on
        events come back, then frees all unsplit blocks of both pools. Always returns True.
        """
        ### BEGIN SOLUTION
        self.stats.num_sync_all_streams += 1
        self.release_blocks(self.large_blocks)
        self.release_blocks(self.small_blocks)
        return True
        ### END SOLUTION

    def empty_cache(self) -> None:
        """Task 4.3: torch.cuda.empty_cache: DeviceCachingAllocator::emptyCache."""
        ### BEGIN SOLUTION
        self.release_cached_blocks()
        ### END SOLUTION

    def set_memory_fraction(self, fraction: float) -> None:
        """Task 4.3: torch.cuda.set_per_process_memory_fraction: setMemoryFraction.

        Reserved memory (not allocated) is capped at fraction * total capacity.
        """
        ### BEGIN SOLUTION
        if not 0.0 <= fraction <= 1.0:
            raise RuntimeError(f"invalid fraction:{fraction}. Please set within (0, 1).")
        self.allowed_memory_maximum = int(fraction * self.device.capacity)
        self.set_fraction = True
        ### END SOLUTION

    def garbage_collect_cached_blocks(self) -> None:
        """Task 4.3: DeviceCachingAllocator::garbage_collect_cached_blocks.

        Once reserved memory passes garbage_collection_threshold * allowed, free unsplit
        large cached segments whose age (pool searches since they were cached) is at least
        the average age, repeating until enough is reclaimed. Unlike release_cached_blocks
        it needs no device-wide sync, and it keeps recently used segments cached.
        """
        ### BEGIN SOLUTION
        threshold = int(self.config.garbage_collection_threshold * self.allowed_memory_maximum)
        if self.total_allocated_memory <= threshold:
            return
        target = self.total_allocated_memory - threshold
        freeable = [b for b in self.large_blocks if not b.is_split() and b.expandable is None]
        if not freeable:
            return
        total_age, count = sum(b.gc_count() for b in freeable), len(freeable)
        reclaimed, freed_one = 0, True
        while reclaimed < target and freed_one and count > 0:
            age_threshold = total_age / count
            freed_one = False
            for block in [b for b in self.large_blocks if not b.is_split()]:
                if block.expandable is None and block.gc_count() >= age_threshold:
                    freed_one = True
                    reclaimed += block.size
                    total_age -= block.gc_count()
                    count -= 1
                    self.release_block(block)
        ### END SOLUTION

    # === Task 4.4: statistics and snapshots ===================================================

    def memory_stats(self) -> dict[str, int]:
        """Task 4.4: torch.cuda.memory_stats(): flat "stat.pool.kind" keys, sorted by name.

        torch/cuda/memory.py flattens memory_stats_as_nested_dict() and sorts the keys.
        max_split_size is the setting the allocator was made with (the C++ size_t cast to
        int64: -1 when unset), kept in ``stats.max_split_size``; a later settings change does
        not show there (a real H100 still says -1).
        """
        ### BEGIN SOLUTION
        s = self.stats
        out: dict[str, int] = {}
        for name, array in s.arrays():
            for pool_name, stat in zip(POOL_NAMES, array, strict=True):
                for kind in ("current", "peak", "allocated", "freed"):
                    out[f"{name}.{pool_name}.{kind}"] = getattr(stat, kind)
        for name in ("oversize_allocations", "oversize_segments"):
            for kind in ("current", "peak", "allocated", "freed"):
                out[f"{name}.{kind}"] = getattr(getattr(s, name), kind)
        for name in (
            "num_alloc_retries",
            "num_ooms",
            "num_sync_all_streams",
            "num_device_alloc",
            "num_device_free",
        ):
            out[name] = getattr(s, name)
        out["max_split_size"] = s.max_split_size
        return dict(sorted(out.items()))
        ### END SOLUTION

    def _all_stats(self) -> list[Stat]:
        s = self.stats
        return [st for _, arr in s.arrays() for st in arr] + [
            s.oversize_allocations,
            s.oversize_segments,
        ]

    def reset_peak_memory_stats(self) -> None:
        """Task 4.4: resetPeakStats: every peak drops to its current value."""
        ### BEGIN SOLUTION
        for stat in self._all_stats():
            stat.peak = stat.current
        ### END SOLUTION

    def reset_accumulated_memory_stats(self) -> None:
        """Task 4.4: resetAccumulatedStats: allocated/freed totals and the counters go to 0."""
        ### BEGIN SOLUTION
        for stat in self._all_stats():
            stat.allocated = stat.freed = 0
        s = self.stats
        s.num_alloc_retries = s.num_ooms = s.num_sync_all_streams = 0
        s.num_device_alloc = s.num_device_free = 0
        ### END SOLUTION

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
        ### BEGIN SOLUTION
        pool, best = p.pool, None
        keys = pool.keys
        start = keys.bisect_left((p.stream, p.size))
        for key in keys.islice(start, len(keys)):
            if key[0] != p.stream:
                break
            block = pool.blocks[key]
            if block.expandable is not None and not self.config.expandable_segments:
                continue
            if best is None or block.ptr < best.ptr:
                best = block
        return best
        ### END SOLUTION

    def alloc_expandable_block(self, p: AllocParams) -> Block | None:
        """Task 4.5: grow this pool's expandable segment: try_allocate_expandable_block.

        Simplified: one segment per (pool, stream), grown only at its end by whole pages
        (2 MiB small, 20 MiB large). If its last block is free it is extended, so the new
        block continues the free space instead of leaving a sliver: that is the point of
        expandable segments. Each page is one ``device.create_handle`` (cuMemCreate, mapped into
        the reserved range); reserved_bytes grow by the pages, num_device_alloc by one per
        growth; segment counts do not change (as in map_block).
        """
        ### BEGIN SOLUTION
        pool, stream = p.pool, p.stream
        seg = self.expandable_segments.get((pool.is_small, stream))
        if seg is None:
            page = kSmallBuffer if pool.is_small else kLargeBuffer
            base = self.device.reserve_address_space(self.device.capacity * 9 // 8 + page)
            seg = ExpandableSegment(base, page, stream, pool.is_small)
            self.expandable_segments[(pool.is_small, stream)] = seg
        tail = seg.tail
        have = tail.size if tail is not None and not tail.allocated else 0
        n_pages = -(-(p.size - have) // seg.page_size)
        start = seg.mapped_end
        for _ in range(n_pages):
            try:
                seg.handles.append(self.device.create_handle(seg.page_size))
            except DeviceOutOfMemory:
                for _ in range(len(seg.handles) - (start - seg.base) // seg.page_size):
                    self.device.release_handle(seg.handles.pop())
                return None
        grown = n_pages * seg.page_size
        block = Block(start, grown, stream, pool)
        block.expandable = seg
        if tail is not None:
            tail.next, block.prev = block, tail
        self.total_allocated_memory += grown
        self._stat_arrays_update(p.stat_types, reserved_bytes=grown)
        self.stats.num_device_alloc += 1
        self.record_trace("segment_map", start, grown)
        seg.tail = block
        if tail is not None and not tail.allocated:
            self.try_merge_blocks(block, tail, pool)
        return block
        ### END SOLUTION

    def release_expandable_tail(self, pool: BlockPool) -> None:
        """Task 4.5: unmap the free pages at the end of each expandable segment (unmap_block).

        Simplified: only the segment's last block is unmapped, page by page; torch also unmaps
        whole free pages in the middle. A fully unmapped segment is dropped.
        """
        ### BEGIN SOLUTION
        for key, seg in list(self.expandable_segments.items()):
            if seg.is_small != pool.is_small:
                continue
            tail = seg.tail
            if tail is None or tail.allocated:
                continue
            first_page = -(-(tail.ptr - seg.base) // seg.page_size)
            n_unmap = len(seg.handles) - first_page
            if n_unmap <= 0:
                continue
            for _ in range(n_unmap):
                self.device.release_handle(seg.handles.pop())
            unmapped = n_unmap * seg.page_size
            pool.erase(tail)
            tail.size -= unmapped
            if tail.size > 0:
                pool.insert_into_blocks(tail)
            else:
                seg.tail = tail.prev
                if tail.prev is not None:
                    tail.prev.next = None
            self.total_allocated_memory -= unmapped
            stat_types = (AGGREGATE, SMALL_POOL if pool.is_small else LARGE_POOL)
            self._stat_arrays_update(stat_types, reserved_bytes=-unmapped)
            self.stats.num_device_free += 1
            self.record_trace("segment_unmap", seg.mapped_end, unmapped)
            if not seg.handles:
                del self.expandable_segments[key]
        ### END SOLUTION


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
    ### BEGIN SOLUTION
    stats = allocator.stats
    allocator.reset_peak_memory_stats()
    alloc0, free0 = stats.num_device_alloc, stats.num_device_free
    live: dict[Any, Block] = {}
    n_malloc = hits = 0
    for event in events:
        if event[0] == "malloc":
            if event[2] == 0:
                continue
            before = stats.num_device_alloc
            live[event[1]] = allocator.malloc(event[2], event[3] if len(event) > 3 else 0)
            n_malloc += 1
            hits += stats.num_device_alloc == before
        elif event[1] in live:
            allocator.free(live.pop(event[1]))
    peak_reserved = stats.reserved_bytes[AGGREGATE].peak
    peak_allocated = stats.allocated_bytes[AGGREGATE].peak
    return {
        "driver_mallocs": stats.num_device_alloc - alloc0,
        "driver_frees": stats.num_device_free - free0,
        "cache_hit_rate": hits / n_malloc if n_malloc else 1.0,
        "peak_reserved": peak_reserved,
        "peak_allocated": peak_allocated,
        "fragmentation": 1 - peak_allocated / peak_reserved if peak_reserved else 0.0,
    }
    ### END SOLUTION
