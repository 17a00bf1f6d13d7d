// CachingAllocator: PyTorch's native CUDA caching-allocator policy for one device, written once
// over an abstract RawBackend, so emulated devices, real CUDA devices and the unit tests' mock
// run the same code.
//
// Note [Caching allocator policy] (c10/cuda/CUDACachingAllocator.cpp)
// - Every request is rounded up to a multiple of 512 bytes (kMinBlockSize), or to a power-of-two
//   division when roundup_power2_divisions is set.
// - Rounded sizes <= 1 MiB (kSmallSize) use the small pool, whose segments are 2 MiB
//   (kSmallBuffer); larger ones use the large pool: 20 MiB segments (kLargeBuffer) for requests
//   under 10 MiB (kMinLargeAlloc), else the request rounded up to 2 MiB (kRoundLarge).
// - Free blocks are kept per pool ordered by (stream, size, address); a request takes the
//   smallest free block of its own stream that fits (best fit). Blocks >= max_split_size are
//   never split and only serve requests within max_non_split_rounding of their size.
// - A block larger than the request is split when the rest is >= 512 bytes (small pool) or
//   > 1 MiB (large pool, and the request is < max_split_size); the rest stays cached. Freed
//   blocks merge with free neighbours of the same segment.
// - A block used on other streams (record_stream) is freed only after events recorded on those
//   streams at free time have completed; malloc polls them first (process_events).
// - When nothing fits and a raw allocation fails: free oversize cached blocks (with
//   max_split_size set), then wait for all pending events and free every unsplit cached
//   segment, then retry once; only then raise OutOfMemoryError.
// - A per-process memory fraction caps reserved bytes; with garbage_collection_threshold, old
//   unsplit large cached segments are freed once reserved passes threshold * allowed.
// - expandable_segments:True (backend with VirtualMemoryBackend): Note [Expandable segments] in
//   expandable_segment.h.
// - CUDA graphs (Note [Private pools]): while a capture allocates to a private pool, requests on
//   its streams are served from that pool only; blocks freed there return to it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <atomic>
#include <deque>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "ctorch/cuda_memory_snapshot.h"
#include "ctorch/device.h"
#include "ctorch/stream.h"
#include "memory/allocator_config.h"
#include "memory/allocator_stats.h"
#include "memory/frames.h"
#include "memory/raw_backend.h"

namespace ctorch::inline api::memory {

/// Every request is rounded to a multiple of this.
inline constexpr size_t kMinBlockSize = 512;
/// Rounded sizes up to this use the small pool.
inline constexpr size_t kSmallSize = size_t{1} << 20;
/// Segment size of the small pool.
inline constexpr size_t kSmallBuffer = size_t{2} << 20;
/// Large requests below this get a kLargeBuffer segment.
inline constexpr size_t kMinLargeAlloc = size_t{10} << 20;
/// Segment size for large requests below kMinLargeAlloc.
inline constexpr size_t kLargeBuffer = size_t{20} << 20;
/// Larger segments are rounded to a multiple of this.
inline constexpr size_t kRoundLarge = size_t{2} << 20;
/// Requests of this size or more fail at once ("more than 1EB").
inline constexpr size_t kOneExaByte = size_t{1} << 60;

/// The optional virtual-memory capability of a RawBackend (found by dynamic_cast), used by
/// expandable segments. Implemented over impl::VirtualMemory for real use and by the unit tests' mock.
class VirtualMemoryBackend {
 public:
  virtual ~VirtualMemoryBackend() = default;
  /// Reserves `bytes` of address space to be mapped in pages of `page_size`; null when none is left.
  virtual void* reserve(size_t bytes, size_t page_size) = 0;
  /// Maps new memory at the whole pages [base + offset, +bytes); false when the device is out of memory.
  virtual bool map(void* base, size_t offset, size_t bytes) = 0;
  /// Unmaps whole pages (after the device's queued work) and frees their memory; must not throw.
  virtual void unmap(void* base, size_t offset, size_t bytes) noexcept = 0;
  /// Returns a reservation whose pages are all unmapped; must not throw.
  virtual void release(void* base) noexcept = 0;
};

class ExpandableSegment;


struct BlockPool;
struct PrivatePool;

/// A range of one segment: allocated, free (cached) or waiting for events.
struct Block {
  DeviceIndex device = 0;
  StreamId stream = 0;        // the allocation stream; reused only on it
  size_t size = 0;            // rounded size
  size_t requested_size = 0;  // what the caller asked for (while active)
  BlockPool* pool = nullptr;
  char* ptr = nullptr;
  bool allocated = false;
  int event_count = 0;                  // outstanding free events (> 0: pending free, still active)
  std::vector<Stream> stream_uses;      // streams from record_stream (each once; usually empty)
  Block* prev = nullptr;                // neighbours within the segment
  Block* next = nullptr;
  uint64_t gc_count_base = 0;           // pool call count when cached (garbage collection age)
  FramesPtr context;                    // allocating frames (memory history with context)
  Block* alloc_prev = nullptr;          // the allocator's intrusive list of allocated blocks
  Block* alloc_next = nullptr;
  ExpandableSegment* segment = nullptr;  // the expandable segment the block lies in (else null)
  bool mapped = true;                    // false: unmapped address space of `segment`

  /// True when the block is part of a split segment.
  bool is_split() const { return prev != nullptr || next != nullptr; }
  /// Back to a default Block, keeping stream_uses' capacity (recycling without a temporary).
  void reset() noexcept {
    device = 0;
    stream = 0;
    size = requested_size = 0;
    pool = nullptr;
    ptr = nullptr;
    allocated = false;
    event_count = 0;
    stream_uses.clear();
    prev = next = nullptr;
    gc_count_base = 0;
    context.reset();
    alloc_prev = alloc_next = nullptr;
    segment = nullptr;
    mapped = true;
  }
};

/// A best-fit search key: (stream, size), before every block of that stream and size.
struct BlockKey {
  StreamId stream;
  size_t size;
};

/// Orders free blocks by (stream, size, address), as PyTorch's BlockComparatorSize.
struct BlockComparator {
  using is_transparent = void;  // lower_bound(BlockKey) without building a Block
  bool operator()(const Block* a, const Block* b) const {
    if (a->stream != b->stream) return a->stream < b->stream;
    if (a->size != b->size) return a->size < b->size;
    return reinterpret_cast<uintptr_t>(a->ptr) < reinterpret_cast<uintptr_t>(b->ptr);
  }
  bool operator()(const Block* a, const BlockKey& k) const {
    return a->stream != k.stream ? a->stream < k.stream : a->size < k.size;
  }
  bool operator()(const BlockKey& k, const Block* b) const {
    return k.stream != b->stream ? k.stream < b->stream : k.size <= b->size;
  }
};

/// Orders unmapped blocks by (stream, address), as PyTorch's BlockComparatorAddress.
struct BlockAddressComparator {
  bool operator()(const Block* a, const Block* b) const {
    if (a->stream != b->stream) return a->stream < b->stream;
    return reinterpret_cast<uintptr_t>(a->ptr) < reinterpret_cast<uintptr_t>(b->ptr);
  }
};

/// Recycled single-node allocations of one BlockSet (a free list of at most kMaxNodes nodes), so
/// inserting and erasing cached blocks on the hot path neither mallocs nor frees.
struct NodeFreeList {
  static constexpr size_t kMaxNodes = 256;
  struct Node {
    Node* next;
  };
  Node* head = nullptr;
  size_t count = 0;
  NodeFreeList() = default;
  NodeFreeList(const NodeFreeList&) = delete;
  NodeFreeList& operator=(const NodeFreeList&) = delete;
  ~NodeFreeList() {
    while (head) {
      Node* n = head;
      head = n->next;
      ::operator delete(n);
    }
  }
};

/// std::set's allocator over a NodeFreeList (nodes of one size; other requests go to operator new).
template <class T>
struct NodeAllocator {
  using value_type = T;
  NodeFreeList* list;
  explicit NodeAllocator(NodeFreeList* l) noexcept : list(l) {}
  template <class U>
  NodeAllocator(const NodeAllocator<U>& o) noexcept : list(o.list) {}  // NOLINT: rebinding
  T* allocate(size_t n) {
    if (n == 1 && list->head) {
      NodeFreeList::Node* node = list->head;
      list->head = node->next;
      --list->count;
      return reinterpret_cast<T*>(node);
    }
    static_assert(sizeof(T) >= sizeof(NodeFreeList::Node));
    return static_cast<T*>(::operator new(n * sizeof(T)));
  }
  void deallocate(T* p, size_t n) noexcept {
    if (n == 1 && list->count < NodeFreeList::kMaxNodes) {
      auto* node = reinterpret_cast<NodeFreeList::Node*>(p);
      node->next = list->head;
      list->head = node;
      ++list->count;
      return;
    }
    ::operator delete(p);
  }
  template <class U>
  bool operator==(const NodeAllocator<U>& o) const noexcept {
    return list == o.list;
  }
};

/// Free blocks ordered for best fit.
using BlockSet = std::set<Block*, BlockComparator, NodeAllocator<Block*>>;

/// Free blocks of one pool.
struct BlockPool {
  BlockPool() : blocks(BlockComparator{}, NodeAllocator<Block*>(&free_nodes)) {}
  NodeFreeList free_nodes;  // declared before blocks: outlives it
  BlockSet blocks;
  std::set<Block*, BlockAddressComparator> unmapped;  // unmapped ranges of expandable segments
  bool is_small = false;
  uint64_t get_free_blocks_call_count = 0;  // age clock for garbage collection
  PrivatePool* owner = nullptr;             // the private pool this belongs to (null: a global pool)
};

/// Id of a private memory pool (PyTorch's MempoolId_t): (capture id, 0) for a graph's own pool,
/// (0, n) for one from graph_pool_handle().
using MempoolId = std::pair<uint64_t, uint64_t>;
/// Selects the streams whose allocations go to a private pool (beginAllocateToPool's filter).
using StreamFilter = std::function<bool(Stream)>;

/// Note [Private pools] (PyTorch's PrivatePool, c10/cuda/CUDACachingAllocator.cpp): the blocks
/// of one or more CUDA graphs that share a MempoolId. While a capture is underway, allocations on
/// its streams come from the pool's own small/large BlockPools, blocks freed there stay there,
/// process_events is skipped (no event query during capture), frees of blocks used on other streams
/// wait until no capture is underway, and the OOM fallback "free every cached block" is skipped.
/// use_count counts the graphs holding the pool; at 0 (release_pool) its cached segments are
/// returned by the next empty_cache (or OOM flush) and the pool is erased once it has none left.
/// Blocks still allocated (tensors made during capture) keep their memory until they are freed.
struct PrivatePool {
  PrivatePool() {
    small_blocks.is_small = true;
    small_blocks.owner = large_blocks.owner = this;
  }
  int use_count = 1;
  int segment_count = 0;  // raw allocations of the pool (cudaMalloc_count)
  BlockPool large_blocks;
  BlockPool small_blocks;
};

using cuda::BlockInfo;
using cuda::BlockState;
using cuda::SegmentInfo;

/// One event of the allocation history, frames not yet symbolized.
struct RawTraceEntry {
  cuda::TraceAction action = cuda::TraceAction::kAlloc;
  uintptr_t addr = 0;
  size_t size = 0;
  StreamId stream = 0;
  int64_t time_us = 0;
  FramesPtr frames;
};

/// What the allocator records (torch.cuda.memory._record_memory_history's options).
struct HistoryOptions {
  bool trace = false;         // keep a ring buffer of events
  bool block_frames = false;  // keep the allocating frames of live blocks
  bool alloc_frames = false;  // frames on alloc events
  bool free_frames = false;   // frames on free events
  size_t max_entries = std::numeric_limits<size_t>::max();
};

/// The caching allocator of one device (see Note [Caching allocator policy]). Thread-safe.
class CachingAllocator {
 public:
  /// An allocator for device `device` over `backend` (not owned; must outlive the allocator).
  CachingAllocator(DeviceIndex device, RawBackend* backend, AllocatorConfig config);
  /// Frees every cached segment and event; live blocks are leaked (their memory stays mapped).
  ~CachingAllocator();
  CachingAllocator(const CachingAllocator&) = delete;
  CachingAllocator& operator=(const CachingAllocator&) = delete;

  /// A block of at least `size` bytes for use on `stream`; null for size 0. Throws
  /// OutOfMemoryError with PyTorch's message when the device has no room.
  Block* malloc(size_t size, Stream stream);
  /// Frees an allocated block (deferred by events when it was used on other streams).
  void free(Block* block);
  /// malloc for caching_allocator_alloc: the block is also indexed by address, so free_ptr
  /// finds it in O(1) (blocks from malloc are found by a scan of the allocated list).
  void* raw_alloc(size_t size, Stream stream);
  /// The allocated block starting at `ptr`, or null.
  Block* find_allocated(const void* ptr) const;
  /// Frees the allocated block starting at `ptr`; false (nothing done) when there is none.
  bool free_ptr(const void* ptr);
  /// Marks `block` as used on `stream` (ignored for its allocation stream).
  void record_stream(Block* block, Stream stream);
  /// Waits for pending frees and returns every unsplit cached segment to the backend.
  void empty_cache();
  /// Makes allocations on streams that `filter` accepts come from private pool `id` (created, or
  /// shared: use_count + 1). Throws "beginAllocateToPool: already recording to mempool_id" when a
  /// capture already allocates to `id`.
  void begin_allocate_to_pool(MempoolId id, StreamFilter filter);
  /// Stops allocating to `id`; throws when nothing allocates to it.
  void end_allocate_to_pool(MempoolId id);
  /// Drops one use of pool `id`; at 0 its cached memory is freed by the next empty_cache.
  void release_pool(MempoolId id);
  /// use_count of private pool `id`, -1 when there is no such pool (tests).
  int private_pool_use_count(MempoolId id) const;
  /// Caps reserved bytes at fraction * total device memory.
  void set_memory_fraction(double fraction);
  /// The fraction set, 1.0 when none.
  double memory_fraction();
  /// A copy of the statistics.
  DeviceStats stats() const;
  /// peak = current for every statistic.
  void reset_peak_stats();
  /// Zeroes accumulated statistics and counters.
  void reset_accumulated_stats();
  /// Segments and their blocks, by address (block frames symbolized when recorded).
  std::vector<SegmentInfo> snapshot() const;
  /// Sets what the history records; `clear` drops the recorded trace.
  void record_history(const HistoryOptions& options, bool clear);
  /// Adds a "snapshot" event to the trace (when tracing).
  void note_snapshot();
  /// The recorded trace, oldest first.
  std::vector<RawTraceEntry> trace() const;
  /// True when no block is allocated or waiting for events.
  bool idle() const;
  /// Frees cached segments and pooled events and, when idle, clears every statistic and the
  /// recorded trace (history options stay); returns idle().
  bool reset();
  /// The config in use.
  const AllocatorConfig& config() const { return config_; }
  /// True when new memory comes from expandable segments (configured and the backend can map).
  bool expandable_segments() const { return expandable_; }
  /// The device served.
  DeviceIndex device() const { return device_; }

  /// Rounded size of a request (round_size).
  static size_t round_size(size_t size, const AllocatorConfig& config);
  /// Raw segment size for a rounded request (get_allocation_size).
  static size_t allocation_size(size_t size);

 private:
  struct AllocParams {
    Stream stream;
    size_t size = 0;        // rounded
    size_t alloc_size = 0;  // segment size if a new one is needed
    BlockPool* pool = nullptr;
    Block* block = nullptr;
    std::optional<BlockSet::iterator> cached;  // block's node when get_free_block found it (still pooled)
    FramesPtr context;      // allocating frames (memory history)
  };

  StatType pool_type(const BlockPool& pool) const {
    return pool.is_small ? StatType::kSmallPool : StatType::kLargePool;
  }
  // Note [Aggregate statistics]: the hot path updates only the pool's entry (`t`) of each
  // StatArray and the aggregate's peak; the aggregate's current/allocated/freed are the pools'
  // sums, filled in by materialize_aggregate() before anyone reads stats_.
  template <class F>
  void for_pool_stats(const BlockPool& pool, F&& f) {
    f(static_cast<size_t>(pool_type(pool)));
  }
  static void inc(StatArray& a, size_t t, size_t n) {
    a[t].increase(n);
    Stat& agg = a[static_cast<size_t>(StatType::kAggregate)];
    const int64_t all = a[static_cast<size_t>(StatType::kSmallPool)].current +
                        a[static_cast<size_t>(StatType::kLargePool)].current;
    if (all > agg.peak) agg.peak = all;
  }
  static void dec(StatArray& a, size_t t, size_t n) { a[t].decrease(n); }
  void materialize_aggregate() const;

  static constexpr size_t kMaxSpare = 256;  // recycled Blocks and container nodes kept at most
  Block* new_block();
  void delete_block(Block* b) noexcept;
  void pool_erase(BlockPool& pool, BlockSet::iterator it) noexcept;
  void rekey(BlockPool& pool, BlockSet::iterator it);
  void free_locked(Block* block, const FramesPtr& frames);
  Block* find_allocated_locked(const void* ptr) const;
  bool get_free_block(AllocParams& p);
  bool alloc_block(AllocParams& p, bool is_retry);
  bool release_available_cached_blocks(const AllocParams& p);
  void release_cached_blocks_locked();
  void release_blocks(BlockPool& pool);
  void release_block(Block* block);
  // Expandable segments (expandable_segment.cpp).
  Block* find_expandable_block(StreamId stream, BlockPool& pool, size_t size, bool* no_space);
  bool map_block(Block* to_map, size_t size, const FramesPtr& context);
  Block* try_allocate_expandable_block(const AllocParams& p, bool* no_space);
  void unmap_block(Block* block);
  void release_expandable_segment(Block* block);
  void count_segment_runs(const BlockPool& pool, int delta);
  void garbage_collect_cached_blocks();
  bool should_split(const Block* block, size_t size) const;
  Block* alloc_found_block(AllocParams& p, size_t orig_size, bool split);
  void free_block(Block* block);
  static bool can_merge(const Block* dst, const Block* src);
  size_t try_merge_blocks(Block* dst, Block* src, BlockPool& pool);
  void insert_into_pool(Block* block);
  void insert_events(Block* block);
  void insert_events_deferred_until_no_capture();
  BlockPool* capture_pool(Stream stream, size_t rounded_size);
  void process_events();
  void synchronize_and_free_events();
  void* take_event(DeviceIndex index);
  void return_event(DeviceIndex index, void* event) noexcept;
  [[noreturn]] void raise_oom(const AllocParams& p, size_t orig_size);
  /// Appends to the trace ring buffer when history is on (checked inline: the hot path's cost).
  void record_trace(cuda::TraceAction action, const void* addr, size_t size, StreamId stream, FramesPtr frames) {
    if (history_.trace) append_trace(action, addr, size, stream, std::move(frames));
  }
  void append_trace(cuda::TraceAction action, const void* addr, size_t size, StreamId stream, FramesPtr frames);

  const DeviceIndex device_;
  RawBackend* const backend_;
  VirtualMemoryBackend* const vm_;  // backend_'s virtual-memory capability, or null
  const AllocatorConfig config_;
  const bool expandable_;           // config_.expandable_segments and vm_ != null
  bool has_divisions_ = false;  // roundup_power2_divisions set (else plain 512-byte rounding)

  mutable std::mutex mu_;
  // Everything below is guarded by mu_.
  BlockPool small_blocks_;
  BlockPool large_blocks_;
  std::map<MempoolId, std::unique_ptr<PrivatePool>> graph_pools_;
  std::map<MempoolId, PrivatePool*> graph_pools_freeable_;           // use_count 0, segments left
  std::vector<std::pair<MempoolId, StreamFilter>> captures_underway_;
  std::vector<Block*> needs_events_deferred_until_no_capture_;
  Block* allocated_list_ = nullptr;  // intrusive list of allocated blocks (no hashing on the hot path)
  std::unordered_map<const void*, Block*> raw_allocated_;  // blocks from raw_alloc, by address
  // Pending free events per stream, FIFO: (event, event's device, block).
  struct PendingEvent {
    void* event;
    DeviceIndex device;
    Block* block;
  };
  std::map<std::pair<DeviceIndex, StreamId>, std::deque<PendingEvent>> pending_events_;
  std::map<DeviceIndex, std::vector<void*>> event_pool_;  // idle events by device
  std::vector<Block*> spare_blocks_;                   // recycled Block objects
  mutable DeviceStats stats_;  // aggregate entries stale between materialize_aggregate() calls
  size_t total_reserved_ = 0;
  std::vector<ExpandableSegment*> expandable_segments_;  // owned; deleted when fully unmapped
  bool fraction_refused_map_ = false;  // the last expandable growth was refused by the fraction
  bool set_fraction_ = false;
  size_t allowed_memory_maximum_ = 0;
  size_t device_total_ = 0;
  HistoryOptions history_;                  // guarded by mu_
  std::atomic<bool> capture_alloc_{false};  // capture frames in malloc (read before locking)
  std::atomic<bool> capture_free_{false};   // capture frames in free
  std::vector<RawTraceEntry> trace_;        // ring buffer of history_.max_entries
  size_t trace_next_ = 0;                   // next slot to overwrite once full
};

}  // namespace ctorch::api::memory
