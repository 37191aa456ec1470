// Generated from reference_impl/cpp_allocator.cpp by `torchlab release`: this is the file you edit.
// Replace each `not_implemented(...)` with your code; the comment above the function
// says what PyTorch does and where. Check your work with `torchlab check`.
// Week 4 in C++: the caching allocator of c10/cuda/CUDACachingAllocator.cpp, as C++.
//
// The policy is week 4's, rule for rule (reference: allocator.py): requests are rounded
// (round_size), sent to the small or large pool, served by best fit from a std::set ordered by
// (stream, size, address) (get_free_block), split (should_split, alloc_found_block) and merged
// back on free (free_block, try_merge_blocks); a miss asks the simulated driver for a segment
// (alloc_block), then frees cached segments and retries (release_available_cached_blocks,
// release_cached_blocks) before it raises OutOfMemoryError with torch's message. Statistics
// are kept as DeviceStats keeps them (c10/core/CachingDeviceAllocator.h).
//
// What C++ changes: a Block is a heap object linked to its neighbours with raw pointers, as in
// torch; a pool is a std::set<Block*, Comparison> (torch's BlockPool::blocks); Python sees an
// allocation only as a handle (pointer, sizes, stream), and free() looks the pointer up, as
// torch's free(void*) does through get_allocated_block. pybind11 makes the Python API. The
// pools' tree nodes are recycled through free lists, and the handles live in a flat hash map
// (given code): the allocator's own bookkeeping should not cost more than its policy.
//
// Not here (week 4's Task 4.5, Python only): expandable segments and first fit.

#include <c10/core/CachingDeviceAllocator.h>
#include <c10/util/flat_hash_map.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <map>
#include <mutex>
#include <set>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <vector>

namespace py = pybind11;

// Everything in an unnamed namespace: internal to this library, so calls (the pool's
// comparisons above all) are direct and inlined, not made through the PLT as exported
// functions of a shared library would be.
namespace torchlab_alloc {
namespace {

// === Given: constants (c10/core/AllocatorConfig.h, CUDACachingAllocator.cpp) ================

constexpr size_t kMiB = 1024 * 1024;
constexpr size_t kSmallSize = 1 * kMiB;       // the largest "small" request
constexpr size_t kSmallBuffer = 2 * kMiB;     // small requests share 2 MiB segments
constexpr size_t kMinLargeAlloc = 10 * kMiB;  // (1 MiB, 10 MiB) requests share 20 MiB ones
constexpr size_t kRoundLarge = 2 * kMiB;      // bigger segments are rounded up to 2 MiB
constexpr size_t kLargeBuffer = 20 * kMiB;
constexpr size_t kNoLimit = std::numeric_limits<size_t>::max();  // max_split_size unset
constexpr size_t kOneExaByte = 1152921504606846976ULL;
constexpr int kIntervals = 16;  // roundup_power2_divisions: one entry per [2^k, 2^(k+1))
constexpr int kIntervalStartLog2 = 20;

struct OutOfMemoryError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// What an exercise not written yet throws: Python sees a NotImplementedError naming it.
struct NotImplementedYet : std::logic_error {
  using std::logic_error::logic_error;
};

[[noreturn]] void not_implemented(const char* what) { throw NotImplementedYet(what); }

// === Given: the simulated chip (a driver with cudaMalloc and cudaFree) =====================

// Two kinds of chip: a simulated one, whose addresses are numbers nobody reads (week 4's
// traces), and one whose memory is host memory (week 5's labdev, where kernels read and write
// the blocks this allocator hands out). A simulated chip can replay a real driver: its first
// segments go at `addresses`, in order (as week 4's Device does; see its docstring for why
// best fit cares), then the bump pointer takes over above them.
struct Device {
  size_t capacity;
  size_t alignment;
  bool host_memory;
  size_t bytes_in_use = 0;
  int64_t n_malloc = 0;
  int64_t n_free = 0;
  uint64_t next = 0x7F0000000000ULL;  // a bump pointer: an address is never handed out twice
  std::vector<uint64_t> addresses;    // a recorded driver's, handed out first
  size_t next_recorded = 0;
  std::unordered_map<uint64_t, size_t> live;

  Device(size_t capacity, size_t alignment, bool host_memory = false,
         std::vector<uint64_t> recorded = {})
      : capacity(capacity), alignment(alignment), host_memory(host_memory),
        addresses(std::move(recorded)) {
    for (uint64_t a : addresses) next = std::max(next, a + 1);
  }

  // The recorded driver's next address, checked: aligned and clear of every live segment.
  uint64_t recorded(size_t nbytes) {
    uint64_t ptr = addresses[next_recorded++];
    bool clash = ptr % alignment != 0;
    for (auto& kv : live) clash = clash || (kv.first < ptr + nbytes && ptr < kv.first + kv.second);
    if (clash)
      throw std::invalid_argument(
          "the recorded driver's next address cannot hold this segment (misaligned, or over a "
          "live segment): the recording is of another program");
    return ptr;
  }

  size_t free_bytes() const { return capacity - bytes_in_use; }

  // cudaMalloc: an aligned address, or 0 when the chip is full.
  uint64_t malloc(size_t nbytes) {
    if (nbytes > free_bytes()) return 0;
    uint64_t ptr = 0;
    if (host_memory) {
      // aligned_alloc wants a multiple of the alignment; segments always are (2 MiB steps).
      ptr = reinterpret_cast<uint64_t>(std::aligned_alloc(alignment, nbytes));
      if (ptr == 0) return 0;
    } else {
      ptr = next_recorded < addresses.size() ? recorded(nbytes)
                                             : (next + alignment - 1) / alignment * alignment;
      next = std::max(next, ptr + nbytes);
    }
    live[ptr] = nbytes;
    bytes_in_use += nbytes;
    n_malloc += 1;
    return ptr;
  }

  void free(uint64_t ptr) {
    auto it = live.find(ptr);
    bytes_in_use -= it->second;
    live.erase(it);
    n_free += 1;
    if (host_memory) std::free(reinterpret_cast<void*>(ptr));
  }
};

// === Given: statistics (c10/core/CachingDeviceAllocator.h: Stat, StatArray, DeviceStats) ====

struct Stat {
  int64_t current = 0, peak = 0, allocated = 0, freed = 0;
};

inline void update_stat(Stat& stat, int64_t amount) {
  stat.current += amount;
  if (stat.current > stat.peak) stat.peak = stat.current;
  if (amount > 0) stat.allocated += amount;
  if (amount < 0) stat.freed += -amount;
}

enum StatType { AGGREGATE = 0, SMALL_POOL = 1, LARGE_POOL = 2 };
using StatArray = std::array<Stat, 3>;

struct DeviceStats {
  StatArray allocated_bytes, reserved_bytes, active_bytes, inactive_split_bytes, requested_bytes;
  StatArray allocation, segment, active, inactive_split;
  Stat oversize_allocations, oversize_segments;
  int64_t num_alloc_retries = 0, num_ooms = 0, num_sync_all_streams = 0;
  int64_t num_device_alloc = 0, num_device_free = 0;
  int64_t max_split_size = -1;  // a setting, filled once by the allocator's constructor
};

// === Given: the settings (AllocatorConfig), filled in by cpp_allocator.py ====================

struct Config {
  size_t max_split_size = kNoLimit;
  size_t max_non_split_rounding = kLargeBuffer;
  std::vector<size_t> roundup_power2_divisions = std::vector<size_t>(kIntervals, 0);
  double garbage_collection_threshold = 0.0;
  size_t min_block_size = 512;

  size_t divisions_for(size_t size) const {
    int index = 63 - __builtin_clzll(size) - kIntervalStartLog2;
    index = std::min(std::max(index, 0), kIntervals - 1);
    return roundup_power2_divisions[index];
  }
};

// === Given: a free list for the pools' tree nodes ============================================

// Every pool insert makes a tree node and every erase frees one: sent to the system
// allocator, those calls were a noticeable share of the replay's time. A free list keeps what
// was freed and hands it out again: a caching allocator for the caching allocator. Each pool
// has its own (NodeAllocator points the pool's std::set at it), so it is used under the same
// rules as the pool: one thread at a time.
struct FreeList {
  struct Node {
    Node* next;
  };
  Node* first = nullptr;

  FreeList() = default;
  FreeList(const FreeList&) = delete;
  FreeList& operator=(const FreeList&) = delete;
  ~FreeList() {
    while (Node* node = first) {
      first = node->next;
      ::operator delete(node);
    }
  }
  void* get(size_t size) {
    if (Node* node = first) {
      first = node->next;
      return node;
    }
    return ::operator new(size < sizeof(Node) ? sizeof(Node) : size);
  }
  void put(void* p) {
    auto* node = static_cast<Node*>(p);
    node->next = first;
    first = node;
  }
};

// A std::set allocates only single nodes of one type, so one list of one size serves it.
template <class T>
struct NodeAllocator {
  using value_type = T;
  FreeList* list;
  explicit NodeAllocator(FreeList* list) : list(list) {}
  template <class U>
  NodeAllocator(const NodeAllocator<U>& other) : list(other.list) {}
  T* allocate(size_t n) {
    if (n == 1) return static_cast<T*>(list->get(sizeof(T)));
    return static_cast<T*>(::operator new(n * sizeof(T)));
  }
  void deallocate(T* p, size_t n) {
    if (n == 1) return list->put(p);
    ::operator delete(p);
  }
  template <class U>
  bool operator==(const NodeAllocator<U>& other) const { return list == other.list; }
};

// === Given: blocks and pools (CUDACachingAllocator.cpp: Block, BlockComparatorSize) ==========

struct BlockPool;

struct Block {
  uint64_t ptr;
  size_t size;
  size_t requested_size = 0;
  int64_t stream;
  bool allocated = false;
  Block* prev = nullptr;  // neighbours in the same segment
  Block* next = nullptr;
  BlockPool* pool;
  int64_t gc_count_base = 0;

  Block(uint64_t ptr, size_t size, int64_t stream, BlockPool* pool)
      : ptr(ptr), size(size), stream(stream), pool(pool) {}
  bool is_split() const { return prev != nullptr || next != nullptr; }
};

// Task 4.7: the pool's order, BlockComparatorSize: stream, then size, then address. Sorting by
// stream first puts each stream's blocks in one run, so one lower_bound finds the smallest
// block of THIS stream that fits.
inline bool size_order(const Block* a, const Block* b) {
  not_implemented("size_order (Task 4.7)");
}

struct BlockComparator {
  bool operator()(const Block* a, const Block* b) const { return size_order(a, b); }
};

struct BlockPool {
  bool is_small;
  FreeList nodes;  // before `blocks`: it outlives the set whose nodes it keeps
  std::set<Block*, BlockComparator, NodeAllocator<Block*>> blocks{
      BlockComparator{}, NodeAllocator<Block*>(&nodes)};
  int64_t get_free_blocks_call_count = 0;

  explicit BlockPool(bool is_small) : is_small(is_small) {}
  void insert(Block* block) {
    block->gc_count_base = get_free_blocks_call_count;
    blocks.insert(block);
  }
  int64_t age(const Block* block) const {
    return get_free_blocks_call_count - block->gc_count_base;
  }
};

struct AllocParams {
  size_t size;
  int64_t stream;
  BlockPool* pool;
  size_t alloc_size;
  Block* block = nullptr;
  std::array<int, 2> stat_types;
};

// What Python holds for an allocation: torch hands out a pointer, never the Block.
struct Allocation {
  uint64_t ptr;
  size_t size;
  size_t requested_size;
  int64_t stream;
};

// Task 4.6: sizes =============================================================================

// DeviceCachingAllocator::roundup_power2_next_division: cut [2^k, 2^(k+1)) into `divisions`
// equal steps and round up to the next step. Powers of two stay.
size_t roundup_power2_next_division(size_t size, size_t divisions) {
  not_implemented("roundup_power2_next_division (Task 4.6)");
}

// DeviceCachingAllocator::round_size: below min_block_size (512) the minimum; with
// roundup_power2_divisions d > 1 for this size and size > 512 * d, the next of d steps;
// else the next multiple of 512.
size_t round_size(size_t size, const Config& config) {
  not_implemented("round_size (Task 4.6)");
}

// DeviceCachingAllocator::get_allocation_size: the segment a miss asks the driver for.
size_t get_allocation_size(size_t size) {
  not_implemented("get_allocation_size (Task 4.6)");
}

// format_size (CUDACachingAllocator.cpp), for the OOM message: std::fixed, precision 2.
std::string format_size(uint64_t size) {
  char text[64];
  if (size <= 1024) {
    std::snprintf(text, sizeof text, "%llu bytes", static_cast<unsigned long long>(size));
  } else if (size <= kMiB) {
    std::snprintf(text, sizeof text, "%.2f KiB", size / 1024.0);
  } else if (size <= 1024 * kMiB) {
    std::snprintf(text, sizeof text, "%.2f MiB", size / double(kMiB));
  } else {
    std::snprintf(text, sizeof text, "%.2f GiB", size / double(1024 * kMiB));
  }
  return text;
}

// === The allocator ===========================================================================

struct CachingAllocator {
  Device device;
  Config config;
  BlockPool large_blocks{false};
  BlockPool small_blocks{true};
  // torch's allocated_blocks, by pointer, in the same open-addressing hash map torch uses
  ska::flat_hash_map<uint64_t, Block*> active_blocks;
  DeviceStats stats;
  size_t total_allocated_memory = 0;  // reserved from the driver
  size_t allowed_memory_maximum = 0;
  bool set_fraction = false;

  // Like DeviceCachingAllocator's constructor: the max_split_size stat is filled once, here;
  // a later settings change moves the policy, not the stat.
  CachingAllocator(Device device, Config config) : device(std::move(device)), config(config) {
    stats.max_split_size = config.max_split_size == kNoLimit ? -1 : int64_t(config.max_split_size);
  }
  CachingAllocator(const CachingAllocator&) = delete;
  CachingAllocator& operator=(const CachingAllocator&) = delete;

  ~CachingAllocator() {
    for (BlockPool* pool : {&large_blocks, &small_blocks})
      for (Block* b : pool->blocks) delete b;
    for (auto& kv : active_blocks) delete kv.second;
    if (device.host_memory)  // give the chip's memory back (a simulated chip has none)
      for (auto& kv : device.live) std::free(reinterpret_cast<void*>(kv.first));
  }

  void update(const std::array<int, 2>& types, StatArray DeviceStats::*array, int64_t amount) {
    if (amount == 0) return;
    for (int t : types) update_stat((stats.*array)[t], amount);
  }

  static std::array<int, 2> types_of(const BlockPool* pool) {
    return {AGGREGATE, pool->is_small ? SMALL_POOL : LARGE_POOL};
  }

  // Task 4.7: blocks ======================================================================

  BlockPool* get_pool(size_t size) {
    not_implemented("CachingAllocator::get_pool (Task 4.7)");
  }

  // DeviceCachingAllocator::get_free_block: lower_bound for (stream, size), then the oversize
  // rules (a request below max_split_size never takes a block >= it; a big request takes a
  // block only if it wastes less than max_non_split_rounding).
  bool get_free_block(AllocParams& p) {
    not_implemented("CachingAllocator::get_free_block (Task 4.7)");
  }

  // DeviceCachingAllocator::should_split: small pool whenever a minimal block is left over;
  // large pool only below max_split_size and with more than 1 MiB left.
  bool should_split(const Block* block, size_t size) const {
    not_implemented("CachingAllocator::should_split (Task 4.7)");
  }

  // DeviceCachingAllocator::alloc_found_block: the request takes the FRONT of the block, the
  // rest goes back to the pool; inactive_split counts free pieces of split segments.
  Block* alloc_found_block(AllocParams& p, size_t orig_size, bool split) {
    not_implemented("CachingAllocator::alloc_found_block (Task 4.7)");
  }

  // DeviceCachingAllocator::free: look the pointer up; allocated bytes drop now, the rest in
  // free_block.
  void free(uint64_t ptr) {
    not_implemented("CachingAllocator::free (Task 4.7)");
  }

  // DeviceCachingAllocator::free_block: merge with free neighbours, then cache in the pool.
  void free_block(Block* block) {
    not_implemented("CachingAllocator::free_block (Task 4.7)");
  }

  // DeviceCachingAllocator::try_merge_blocks: absorb free neighbour `src` into `dst` (which
  // keeps its identity), delete `src`, and return the bytes absorbed (0: nothing to merge).
  size_t try_merge_blocks(Block* dst, Block* src, BlockPool* pool) {
    not_implemented("CachingAllocator::try_merge_blocks (Task 4.7)");
  }

  // DeviceCachingAllocator::malloc: round, pick the pool, best fit, else a new segment, else
  // the miss path; split the rest when should_split says so.
  Allocation malloc(size_t size, int64_t stream) {
    not_implemented("CachingAllocator::malloc (Task 4.7)");
  }

  // DeviceCachingAllocator::alloc_block: a new segment from the driver, unless it would pass
  // the memory fraction. A new segment is one unsplit block.
  bool alloc_block(AllocParams& p, bool is_retry) {
    not_implemented("CachingAllocator::alloc_block (Task 4.7)");
  }

  // Task 4.8: the miss path ===============================================================

  // The rest of DeviceCachingAllocator::malloc once the driver refused: free cached oversize
  // blocks and retry, then every unsplit cached segment and retry, then raise.
  void handle_miss(AllocParams& p) {
    not_implemented("CachingAllocator::handle_miss (Task 4.8)");
  }

  std::string out_of_memory_message(size_t alloc_size) const {
    not_implemented("CachingAllocator::out_of_memory_message (Task 4.8)");
  }

  // DeviceCachingAllocator::release_block: cudaFree one whole cached segment.
  void release_block(Block* block) {
    not_implemented("CachingAllocator::release_block (Task 4.8)");
  }

  // release_available_cached_blocks: with max_split_size set, free the smallest cached
  // oversize block that covers the request, else the largest ones until they cover it.
  bool release_available_cached_blocks(AllocParams& p) {
    not_implemented("CachingAllocator::release_available_cached_blocks (Task 4.8)");
  }

  // release_blocks: cudaFree every cached block that is a whole segment.
  void release_blocks(BlockPool& pool) {
    not_implemented("CachingAllocator::release_blocks (Task 4.8)");
  }

  // release_cached_blocks (emptyCache, and malloc's last retry): sync, then free.
  bool release_cached_blocks() {
    not_implemented("CachingAllocator::release_cached_blocks (Task 4.8)");
  }

  void empty_cache() { release_cached_blocks(); }

  void set_memory_fraction(double fraction) {
    if (!(fraction >= 0.0 && fraction <= 1.0))
      throw std::runtime_error("invalid fraction:" + std::to_string(fraction) +
                               ". Please set within (0, 1).");
    allowed_memory_maximum = size_t(fraction * double(device.capacity));
    set_fraction = true;
  }

  // garbage_collect_cached_blocks: past the threshold, free unsplit large cached segments
  // at least as old as the average, until enough is reclaimed.
  void garbage_collect_cached_blocks() {
    not_implemented("CachingAllocator::garbage_collect_cached_blocks (Task 4.8)");
  }

  // Task 4.9: statistics ==================================================================

  // torch.cuda.memory_stats(): flat "stat.pool.kind" keys, sorted (a std::map is sorted).
  std::map<std::string, int64_t> memory_stats() const {
    std::map<std::string, int64_t> out;
    not_implemented("CachingAllocator::memory_stats (Task 4.9)");
    return out;
  }

  std::vector<Stat*> all_stats() {
    std::vector<Stat*> out;
    for (StatArray* a : {&stats.allocated_bytes, &stats.reserved_bytes, &stats.active_bytes,
                         &stats.inactive_split_bytes, &stats.requested_bytes, &stats.allocation,
                         &stats.segment, &stats.active, &stats.inactive_split})
      for (Stat& s : *a) out.push_back(&s);
    out.push_back(&stats.oversize_allocations);
    out.push_back(&stats.oversize_segments);
    return out;
  }

  // resetPeakStats: every peak drops to its current value.
  void reset_peak_memory_stats() {
    not_implemented("CachingAllocator::reset_peak_memory_stats (Task 4.9)");
  }

  // resetAccumulatedStats: the running totals and the counters go back to 0.
  void reset_accumulated_memory_stats() {
    not_implemented("CachingAllocator::reset_accumulated_memory_stats (Task 4.9)");
  }

  // Given: torch.cuda.memory_snapshot(), one dict per segment, sorted by address.
  py::list memory_snapshot() const {
    std::vector<const Block*> heads;
    for (const BlockPool* pool : {&small_blocks, &large_blocks})
      for (const Block* b : pool->blocks)
        if (!b->prev) heads.push_back(b);
    for (auto& kv : active_blocks)
      if (!kv.second->prev) heads.push_back(kv.second);
    std::sort(heads.begin(), heads.end(), [](auto* a, auto* b) { return a->ptr < b->ptr; });
    py::list out;
    for (const Block* head : heads) {
      size_t total = 0, allocated = 0, requested = 0;
      py::list blocks;
      for (const Block* b = head; b; b = b->next) {
        total += b->size;
        if (b->allocated) allocated += b->size, requested += b->requested_size;
        py::dict d;
        d["address"] = b->ptr;
        d["size"] = b->size;
        d["requested_size"] = b->requested_size;
        d["state"] = b->allocated ? "active_allocated" : "inactive";
        d["frames"] = py::list();
        blocks.append(d);
      }
      py::dict seg;
      seg["device"] = 0;
      seg["address"] = head->ptr;
      seg["total_size"] = total;
      seg["allocated_size"] = allocated;
      seg["active_size"] = allocated;
      seg["requested_size"] = requested;
      seg["stream"] = head->stream;
      seg["segment_type"] = head->pool->is_small ? "small" : "large";
      seg["segment_pool_id"] = py::make_tuple(0, 0);
      seg["is_expandable"] = false;
      seg["frames"] = py::list();
      seg["blocks"] = blocks;
      out.append(seg);
    }
    return out;
  }
};

// === Given: replaying a trace in C++ (the benchmark's loop) ==================================

// A trace encoded once: kind (1 malloc, 0 free), allocation id, bytes, stream.
struct Trace {
  std::vector<uint8_t> kind;
  std::vector<int64_t> id, nbytes, stream;
};

Trace encode(const py::list& events) {
  Trace t;
  std::map<std::string, int64_t> ids;  // event ids may be any printable key
  for (auto item : events) {
    auto e = item.cast<py::sequence>();
    bool is_malloc = e[0].cast<std::string>() == "malloc";
    std::string key = py::str(e[1]);
    auto [it, fresh] = ids.emplace(key, int64_t(ids.size()));
    t.kind.push_back(is_malloc);
    t.id.push_back(it->second);
    t.nbytes.push_back(is_malloc ? e[2].cast<int64_t>() : 0);
    t.stream.push_back(is_malloc && py::len(e) > 3 ? e[3].cast<int64_t>() : 0);
  }
  return t;
}

// week 4's replay(), the same figures: zero-byte mallocs skipped, frees of unknown ids too.
py::dict replay(CachingAllocator& a, const Trace& t) {
  a.reset_peak_memory_stats();
  int64_t alloc0 = a.stats.num_device_alloc, free0 = a.stats.num_device_free;
  std::vector<uint64_t> live(t.id.empty() ? 0 : *std::max_element(t.id.begin(), t.id.end()) + 1);
  int64_t n_malloc = 0, hits = 0;
  for (size_t i = 0; i < t.kind.size(); ++i) {
    if (t.kind[i]) {
      if (t.nbytes[i] == 0) continue;
      int64_t before = a.stats.num_device_alloc;
      live[t.id[i]] = a.malloc(size_t(t.nbytes[i]), t.stream[i]).ptr;
      n_malloc += 1;
      hits += a.stats.num_device_alloc == before;
    } else if (live[t.id[i]] != 0) {
      a.free(live[t.id[i]]);
      live[t.id[i]] = 0;
    }
  }
  int64_t peak_reserved = a.stats.reserved_bytes[AGGREGATE].peak;
  int64_t peak_allocated = a.stats.allocated_bytes[AGGREGATE].peak;
  py::dict out;
  out["driver_mallocs"] = a.stats.num_device_alloc - alloc0;
  out["driver_frees"] = a.stats.num_device_free - free0;
  out["cache_hit_rate"] = n_malloc ? double(hits) / double(n_malloc) : 1.0;
  out["peak_reserved"] = peak_reserved;
  out["peak_allocated"] = peak_allocated;
  out["fragmentation"] =
      peak_reserved ? 1.0 - double(peak_allocated) / double(peak_reserved) : 0.0;
  return out;
}

// === Given: lending the allocator to a device (week 5's labdev) =============================

// torch reaches a device's allocator through c10::DeviceAllocator
// (c10/core/CachingDeviceAllocator.h): allocate() for every tensor's storage, getDeviceStats()
// for torch.accelerator.memory_stats(), emptyCache() for torch.accelerator.empty_cache().
// CUDA's caching allocator is one (c10/cuda/CUDACachingAllocator.cpp, NativeCachingAllocator,
// whose allocate() calls DeviceCachingAllocator::malloc); this adapter makes yours one too,
// over a Device with host memory, so week 5's labdev can hand it every tensor it creates.
//
// A DataPtr's deleter is a plain function with one argument (the pointer), so it cannot carry
// the allocator: as in CUDA (local_raw_delete), it finds the one allocator this process lent.
// torch's autograd engine runs backward on the device's own thread, hence the mutex.
class LentAllocator;
LentAllocator* lent = nullptr;  // the allocator labdev's blocks come from; kept for good

void free_lent(void* ptr);

class LentAllocator final : public c10::DeviceAllocator {
 public:
  LentAllocator(CachingAllocator& allocator, py::object owner)
      : allocator_(allocator), owner_(std::move(owner)) {}

  c10::DataPtr allocate(size_t nbytes) override {
    c10::Device device(c10::DeviceType::PrivateUse1, 0);
    if (nbytes == 0) return {nullptr, nullptr, &free_lent, device};
    std::lock_guard<std::mutex> lock(mutex_);
    uint64_t ptr = 0;
    try {
      ptr = allocator_.malloc(nbytes, 0).ptr;
    } catch (const OutOfMemoryError& e) {
      TORCH_CHECK_WITH(OutOfMemoryError, false, e.what());  // torch.OutOfMemoryError
    } catch (const NotImplementedYet& e) {
      TORCH_CHECK_NOT_IMPLEMENTED(false, e.what());  // NotImplementedError, as in week 4c
    }
    trace_.push_back({true, ptr, nbytes});
    void* p = reinterpret_cast<void*>(ptr);
    return {p, p, &free_lent, device};
  }

  void free(void* ptr) {
    std::lock_guard<std::mutex> lock(mutex_);
    allocator_.free(reinterpret_cast<uint64_t>(ptr));
    trace_.push_back({false, reinterpret_cast<uint64_t>(ptr), 0});
  }

  c10::DeleterFnPtr raw_deleter() const override { return &free_lent; }

  void copy_data(void* dest, const void* src, std::size_t count) const override {
    std::memcpy(dest, src, count);  // host memory
  }

  bool initialized() override { return true; }

  void emptyCache(c10::MempoolId_t) override {
    std::lock_guard<std::mutex> lock(mutex_);
    allocator_.empty_cache();
  }

  void recordStream(const c10::DataPtr&, c10::Stream) override {}  // one stream on this chip

  // Your DeviceStats, field for field, in torch's struct.
  c10::CachingDeviceAllocator::DeviceStats getDeviceStats(c10::DeviceIndex) override {
    std::lock_guard<std::mutex> lock(mutex_);
    const DeviceStats& s = allocator_.stats;
    c10::CachingDeviceAllocator::DeviceStats out;
    auto copy = [](const StatArray& from, c10::CachingAllocator::StatArray& to) {
      for (size_t t = 0; t < from.size(); ++t) copy_stat(from[t], to[t]);
    };
    copy(s.allocation, out.allocation);
    copy(s.segment, out.segment);
    copy(s.active, out.active);
    copy(s.inactive_split, out.inactive_split);
    copy(s.allocated_bytes, out.allocated_bytes);
    copy(s.reserved_bytes, out.reserved_bytes);
    copy(s.active_bytes, out.active_bytes);
    copy(s.inactive_split_bytes, out.inactive_split_bytes);
    copy(s.requested_bytes, out.requested_bytes);
    copy_stat(s.oversize_allocations, out.oversize_allocations);
    copy_stat(s.oversize_segments, out.oversize_segments);
    out.num_alloc_retries = s.num_alloc_retries;
    out.num_ooms = s.num_ooms;
    out.num_sync_all_streams = s.num_sync_all_streams;
    out.num_device_alloc = s.num_device_alloc;
    out.num_device_free = s.num_device_free;
    out.max_split_size = s.max_split_size;
    return out;
  }

  void resetAccumulatedStats(c10::DeviceIndex) override {
    std::lock_guard<std::mutex> lock(mutex_);
    allocator_.reset_accumulated_memory_stats();
  }

  void resetPeakStats(c10::DeviceIndex) override {
    std::lock_guard<std::mutex> lock(mutex_);
    allocator_.reset_peak_memory_stats();
  }

  // What labdev asked for since lending, as week 4's trace events: ("malloc", ptr, nbytes) and
  // ("free", ptr). A pointer is never live twice, so it names one allocation at a time.
  py::list trace() {
    std::lock_guard<std::mutex> lock(mutex_);
    py::list out;
    for (const Event& e : trace_) {
      if (e.malloc) {
        out.append(py::make_tuple("malloc", e.ptr, e.nbytes));
      } else {
        out.append(py::make_tuple("free", e.ptr));
      }
    }
    return out;
  }

  int64_t live_bytes() {
    std::lock_guard<std::mutex> lock(mutex_);
    return allocator_.stats.allocated_bytes[AGGREGATE].current;
  }

  const CachingAllocator* allocator() const { return &allocator_; }

 private:
  static void copy_stat(const Stat& from, c10::CachingAllocator::Stat& to) {
    to.current = from.current;
    to.peak = from.peak;
    to.allocated = from.allocated;
    to.freed = from.freed;
  }

  struct Event {
    bool malloc;
    uint64_t ptr;
    size_t nbytes;
  };

  CachingAllocator& allocator_;
  py::object owner_;  // the Python object that owns allocator_: lent memory outlives its name
  std::mutex mutex_;
  std::vector<Event> trace_;
};

void free_lent(void* ptr) {
  if (ptr != nullptr) lent->free(ptr);
}

// The address of a c10::DeviceAllocator over `allocator`, for torch.ops.labdev.
// use_device_allocator. One allocator at a time: another may take over only when no block of
// the last one is still held, since every deleter goes to the current one.
uintptr_t lend_to_device(py::object owner) {
  CachingAllocator& allocator = owner.cast<CachingAllocator&>();
  if (!allocator.device.host_memory)
    throw std::invalid_argument(
        "lend an allocator whose Device has host memory (Device(capacity, host_memory=True)): "
        "a simulated chip's addresses cannot hold a tensor's bytes");
  if (lent != nullptr && lent->allocator() == &allocator)
    return reinterpret_cast<uintptr_t>(static_cast<c10::DeviceAllocator*>(lent));
  if (lent != nullptr && lent->live_bytes() != 0)
    throw std::runtime_error(
        "the allocator lent before still holds tensors' memory; delete those tensors (or "
        "restart the process) before lending another");
  lent = new LentAllocator(allocator, owner);  // never deleted: blocks may be freed at exit
  return reinterpret_cast<uintptr_t>(static_cast<c10::DeviceAllocator*>(lent));
}

py::list lent_trace() {
  if (lent == nullptr)
    throw std::runtime_error(
        "no allocator has been lent to a device yet: lend one first (week 5's "
        "use_caching_allocator)");
  return lent->trace();
}

}  // namespace
}  // namespace torchlab_alloc

// === Given: the Python module ================================================================

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
  using namespace torchlab_alloc;
  m.doc() = "Week 4's caching allocator in C++ (see cpp_allocator.py for the Python API)";
  py::register_exception<OutOfMemoryError>(m, "OutOfMemoryError", PyExc_RuntimeError);
  py::register_exception<NotImplementedYet>(m, "NotImplementedYet", PyExc_NotImplementedError);

  py::class_<Device>(m, "Device")
      .def(py::init<size_t, size_t, bool, std::vector<uint64_t>>(), py::arg("capacity"),
           py::arg("alignment") = 512, py::arg("host_memory") = false,
           py::arg("addresses") = std::vector<uint64_t>{})
      .def_readonly("capacity", &Device::capacity)
      .def_readonly("alignment", &Device::alignment)
      .def_readonly("host_memory", &Device::host_memory)
      .def_readonly("bytes_in_use", &Device::bytes_in_use)
      .def_readonly("n_malloc", &Device::n_malloc)
      .def_readonly("n_free", &Device::n_free)
      .def_property_readonly("free_bytes", &Device::free_bytes);

  py::class_<Config>(m, "Config")
      .def(py::init<>())
      .def_readwrite("max_split_size", &Config::max_split_size)
      .def_readwrite("max_non_split_rounding", &Config::max_non_split_rounding)
      .def_readwrite("roundup_power2_divisions", &Config::roundup_power2_divisions)
      .def_readwrite("garbage_collection_threshold", &Config::garbage_collection_threshold)
      .def_readwrite("min_block_size", &Config::min_block_size);

  py::class_<Allocation>(m, "Allocation")
      .def_readonly("ptr", &Allocation::ptr)
      .def_readonly("size", &Allocation::size)
      .def_readonly("requested_size", &Allocation::requested_size)
      .def_readonly("stream", &Allocation::stream)
      .def("__repr__", [](const Allocation& a) {
        return "Allocation(ptr=" + std::to_string(a.ptr) + ", size=" + std::to_string(a.size) +
               ")";
      });

  py::class_<Trace>(m, "Trace").def("__len__", [](const Trace& t) { return t.kind.size(); });
  m.def("encode", &encode, "a trace's events, encoded once for replay");

  py::class_<CachingAllocator>(m, "CachingAllocator")
      .def(py::init<Device, Config>())
      .def_readwrite("config", &CachingAllocator::config)
      .def_property_readonly("device", [](CachingAllocator& a) -> Device& { return a.device; },
                             py::return_value_policy::reference_internal)
      .def("malloc", &CachingAllocator::malloc, py::arg("size"), py::arg("stream") = 0)
      .def("free", [](CachingAllocator& a, const Allocation& b) { a.free(b.ptr); })
      .def("empty_cache", &CachingAllocator::empty_cache)
      .def("set_memory_fraction", &CachingAllocator::set_memory_fraction)
      .def("memory_stats", &CachingAllocator::memory_stats)
      .def("reset_peak_memory_stats", &CachingAllocator::reset_peak_memory_stats)
      .def("reset_accumulated_memory_stats", &CachingAllocator::reset_accumulated_memory_stats)
      .def("memory_snapshot", &CachingAllocator::memory_snapshot)
      .def("replay", &replay);

  m.def("lend_to_device", &lend_to_device, py::arg("allocator"),
        "a c10::DeviceAllocator over this allocator, by address, for week 5's labdev");
  m.def("lent_trace", &lent_trace, "what the device asked of the lent allocator");

  m.def("round_size", &round_size);
  m.def("get_allocation_size", &get_allocation_size);
  m.def("roundup_power2_next_division", &roundup_power2_next_division);
  m.def("format_size", &format_size);
}
