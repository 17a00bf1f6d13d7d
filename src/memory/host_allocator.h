// CachingHostAllocator: PyTorch's pinned host memory cache (aten/src/ATen/core/CachingHostAllocator.h),
// written over an abstract HostBackend so the policy is unit-tested with a mock.
//
// Note [Caching host allocator policy]
// - A request is rounded up to the next power of two; free blocks are kept in 64 lists indexed
//   by log2(size) and never split or merged. A request takes the most recently freed block of
//   its list, else a new block from the backend (cudaHostAlloc).
// - Every non-blocking copy from or to a block calls record_event(block, stream): the stream
//   joins the block's stream set. Freeing a block with a stream set records one event per stream;
//   the block returns to its free list only after those events complete (allocate polls them
//   first, oldest first, stopping at the first that is not done).
// - empty_cache() returns every free block to the backend (pending ones stay until their events
//   complete). Statistics: allocations/allocated_bytes = blocks held from the backend (live and
//   cached), active_requests/active_bytes = blocks handed out and not yet reusable.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <map>
#include <mutex>
#include <string>
#include <unordered_set>
#include <vector>

#include "ctorch/stream.h"
#include "memory/allocator_stats.h"
#include "memory/raw_backend.h"

namespace ctorch::inline api::memory {

/// Raw page-locked memory and the events the host cache needs (allocate throws OutOfMemoryError).
using HostBackend = RawBackend;

/// One cached pinned block.
struct HostBlock {
  size_t size = 0;       // power of two
  void* ptr = nullptr;
  bool allocated = false;
  int event_count = 0;   // outstanding events (> 0: freed, not yet reusable)
  std::vector<Stream> streams;  // streams of copies since allocation (record_event)
};

/// Durations of backend calls in microseconds (PyTorch's DurationStat).
struct DurationStat {
  int64_t total = 0;
  int64_t max = 0;
  int64_t min = 0;
  int64_t count = 0;
  /// Adds one measurement.
  void add(int64_t us);
};

/// host_memory_stats() counters (PyTorch 2.x HostStats).
struct HostStats {
  Stat allocations;      // blocks held from the backend (live + cached)
  Stat allocated_bytes;  // their bytes
  Stat active_requests;  // blocks handed out and not yet reusable
  Stat active_bytes;     // their bytes
  int64_t num_host_alloc = 0;  // backend allocations
  int64_t num_host_free = 0;   // backend frees
  DurationStat host_alloc_time;
  DurationStat host_free_time;
};

/// The flattened, key-sorted dict torch.cuda.host_memory_stats() returns.
std::map<std::string, int64_t> flatten_host_stats(const HostStats& s);

/// The pinned host memory cache (see Note [Caching host allocator policy]). Thread-safe.
class CachingHostAllocator {
 public:
  /// A cache over `backend` (not owned; must outlive the cache).
  explicit CachingHostAllocator(HostBackend* backend);
  /// Returns cached blocks and events; live blocks are leaked.
  ~CachingHostAllocator();
  CachingHostAllocator(const CachingHostAllocator&) = delete;
  CachingHostAllocator& operator=(const CachingHostAllocator&) = delete;

  /// A block of at least `size` bytes (null for 0).
  HostBlock* allocate(size_t size);
  /// Frees a block from allocate(); reusable once the events of its streams complete.
  void free(HostBlock* block);
  /// Adds `stream` to the stream set of a live block (a copy on `stream` uses it); false when
  /// `block` is not a live block of this cache.
  bool record_event(HostBlock* block, Stream stream);
  /// Returns every free block to the backend.
  void empty_cache();
  /// A copy of the statistics.
  HostStats stats() const;
  /// peak = current.
  void reset_peak_stats();
  /// Zeroes accumulated totals, counters and durations.
  void reset_accumulated_stats();
  /// Waits for pending events, returns cached blocks and events; when nothing is live, clears the
  /// statistics and returns true.
  bool reset();
  /// Number of free blocks in the cache (tests).
  size_t cached_blocks() const;

  /// Next power of two >= size (PowerOf2Ceil).
  static size_t round_size(size_t size);

 private:
  void process_events();
  void make_reusable(HostBlock* block);
  void release_free_blocks();
  void* take_event(DeviceIndex index);

  HostBackend* const backend_;
  mutable std::mutex mu_;
  std::array<std::vector<HostBlock*>, 64> free_lists_;  // LIFO per log2(size)
  std::unordered_set<HostBlock*> blocks_;                // every block held
  struct Pending {
    void* event;
    DeviceIndex device;
    HostBlock* block;
  };
  std::deque<Pending> pending_;                      // FIFO of free events
  std::map<DeviceIndex, std::vector<void*>> event_pool_;
  HostStats stats_;
};

}  // namespace ctorch::api::memory
