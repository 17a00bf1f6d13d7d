// The CUDA device allocator back-end in use, behind one interface: a pluggable allocator
// (pluggable_allocator.h), cudaMallocAsync (malloc_async_allocator.h) or the native caching
// allocators (device_allocator.h), chosen in that order at each call (a pluggable allocator
// replaces the whole back-end, as in PyTorch; else backend:cudaMallocAsync in the allocator
// config; else native). allocate_cuda and the torch.cuda memory API (cuda/memory.cpp) go through it.
#pragma once

#include <cstddef>
#include <cstdint>

#include "ctorch/allocator.h"
#include "ctorch/stream.h"
#include "memory/allocator_stats.h"

namespace ctorch::inline api::memory {

/// The parts of torch.cuda's memory API a back-end may lack (PyTorch's "does not yet support").
enum class AllocatorApi : uint8_t {
  Stats,
  ResetPeakStats,
  ResetAccumulatedStats,
  SetMemoryFraction,
  GetMemoryFraction,
};

/// One back-end of the CUDA device allocator.
class DeviceAllocatorBackend {
 public:
  virtual ~DeviceAllocatorBackend() = default;
  /// torch.cuda.get_allocator_backend()'s name: "native", "cudaMallocAsync" or "pluggable".
  virtual const char* name() const noexcept = 0;
  /// The name PyTorch's "<name> does not yet support <api>" messages use.
  virtual const char* message_name() const noexcept = 0;
  /// True when the back-end implements `api`.
  virtual bool supports(AllocatorApi api) const noexcept = 0;
  /// `nbytes` on cuda:`index` for use on stream `s` (an empty DataPtr for 0 bytes).
  virtual DataPtr allocate(DeviceIndex index, size_t nbytes, Stream s) = 0;
  /// caching_allocator_alloc: `nbytes` (> 0) on cuda:`index`, freed by raw_delete.
  virtual void* raw_alloc(DeviceIndex index, size_t nbytes, Stream s) = 0;
  /// caching_allocator_delete of a non-null `ptr`; throws when it did not come from raw_alloc.
  virtual void raw_delete(void* ptr) = 0;
  /// PyTorch's DeviceStats of cuda:`index` (supports(Stats) must hold).
  virtual DeviceStats stats(DeviceIndex index) = 0;
  /// Resets the peak statistics of cuda:`index`.
  virtual void reset_peak_stats(DeviceIndex index) = 0;
  /// Resets the accumulated statistics of cuda:`index`.
  virtual void reset_accumulated_stats(DeviceIndex index) = 0;
  /// Returns unused cached memory (a pluggable allocator's reset hook).
  virtual void empty_cache() = 0;
  /// Caps allocations on cuda:`index` at fraction * total memory.
  virtual void set_memory_fraction(double fraction, DeviceIndex index) = 0;
  /// The cap set by set_memory_fraction on cuda:`index`.
  virtual double memory_fraction(DeviceIndex index) = 0;
  /// Bytes reserved on cuda:`index` as far as the back-end knows (0 when it does not track them).
  virtual int64_t reserved_bytes(DeviceIndex index) = 0;
};

/// The back-end in use (reads the allocator config at the first call; throws when it does not parse).
DeviceAllocatorBackend& device_allocator_backend();

/// torch.cuda.empty_cache(): the pluggable allocator's reset hook when one is installed, else, once
/// the CUDA runtime is initialized (`initialized`), the back-end's cache (the config is not read before).
void empty_device_cache(bool initialized);
/// Throws PyTorch's "<back-end> does not yet support <what>. If you need it, please file an issue
/// describing your use case." when `backend` lacks `api`.
void check_supports(const DeviceAllocatorBackend& backend, AllocatorApi api, const char* what);

}  // namespace ctorch::api::memory
