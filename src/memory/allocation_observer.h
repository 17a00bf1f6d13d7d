// Allocation events for one observer above the memory layer (the stream sanitizer): the device
// allocators report what they hand out, free and are told by record_stream, behind one load of
// allocation_observer(), so that nothing in memory/ includes the observer.
#pragma once

#include <atomic>
#include <cstddef>

#include "ctorch/stream.h"

namespace ctorch::inline api::memory {

/// Watches device allocations. Every method may run concurrently on many threads.
class AllocationObserver {
 public:
  virtual ~AllocationObserver() = default;
  /// The allocator handed out `bytes` at `ptr` for use on `stream`.
  virtual void allocated(const void* ptr, size_t bytes, Stream stream) noexcept = 0;
  /// The allocation at `ptr` was freed; with `reusable`, the caching allocator may hand its memory
  /// out again on its allocation stream without synchronizing (raw frees synchronize).
  virtual void freed(const void* ptr, bool reusable) noexcept = 0;
  /// record_stream(`stream`) on the allocation at `ptr`, before the allocator records it.
  virtual void stream_recorded(const void* ptr, Stream stream) noexcept = 0;
};

/// The registered observer (null while none); use allocation_observer().
inline std::atomic<AllocationObserver*> g_allocation_observer{nullptr};

/// The registered observer, or null (one load; null costs nothing more).
inline AllocationObserver* allocation_observer() noexcept {
  return g_allocation_observer.load(std::memory_order_acquire);
}
/// Registers `observer` (null: none); it must never be destroyed.
inline void set_allocation_observer(AllocationObserver* observer) noexcept {
  g_allocation_observer.store(observer, std::memory_order_release);
}

}  // namespace ctorch::api::memory
