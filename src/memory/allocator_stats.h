// Statistics of the device caching allocator, with PyTorch's names and update rules
// (c10/core/CachingDeviceAllocator.h: Stat, StatArray, DeviceStats).
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>

namespace ctorch::inline api::memory {

/// One counter: current value, its peak, and the totals added and removed.
struct Stat {
  int64_t current = 0;
  int64_t peak = 0;
  int64_t allocated = 0;
  int64_t freed = 0;

  /// current += n; peak follows; allocated += n.
  void increase(size_t n) {
    current += static_cast<int64_t>(n);
    allocated += static_cast<int64_t>(n);
    peak = std::max(peak, current);
  }
  /// current -= n; freed += n.
  void decrease(size_t n) {
    current -= static_cast<int64_t>(n);
    freed += static_cast<int64_t>(n);
  }
  /// peak = current.
  void reset_peak() { peak = current; }
  /// allocated = freed = 0.
  void reset_accumulated() { allocated = freed = 0; }
};

/// Index into a StatArray.
enum class StatType : int { kAggregate = 0, kSmallPool = 1, kLargePool = 2 };
/// A Stat for all blocks, the small pool and the large pool.
using StatArray = std::array<Stat, 3>;

/// Everything memory_stats() reports for one device.
struct DeviceStats {
  StatArray allocation;            // live allocated blocks
  StatArray segment;               // raw segments (cudaMalloc)
  StatArray active;                // allocated + pending-free blocks
  StatArray inactive_split;        // free blocks inside split segments
  StatArray allocated_bytes;       // bytes of allocation
  StatArray reserved_bytes;        // bytes of segment
  StatArray active_bytes;          // bytes of active
  StatArray inactive_split_bytes;  // bytes of inactive_split
  StatArray requested_bytes;       // un-rounded request sizes of active blocks
  int64_t num_alloc_retries = 0;   // cache flushes followed by a retried raw allocation
  int64_t num_ooms = 0;            // OutOfMemoryErrors raised
  Stat oversize_allocations;       // allocated blocks >= max_split_size
  Stat oversize_segments;          // segments >= max_split_size
  int64_t num_sync_all_streams = 0;  // blocking waits on all pending free events
  int64_t num_device_alloc = 0;      // raw allocations
  int64_t num_device_free = 0;       // raw frees
  int64_t max_split_size = -1;       // the config value (SIZE_MAX shows as -1)

  /// peak = current everywhere.
  void reset_peak();
  /// Zeroes the accumulated totals and the event counters.
  void reset_accumulated();
};

/// The flattened, key-sorted dict torch.cuda.memory_stats() returns ("allocated_bytes.all.current").
std::map<std::string, int64_t> flatten_stats(const DeviceStats& s);

}  // namespace ctorch::api::memory
