// The allocator backend `backend:cudaMallocAsync` (PYTORCH_CUDA_ALLOC_CONF / CTORCH_CUDA_ALLOC_CONF):
// device storages come from the CUDA runtime's stream-ordered allocator (impl::StreamOrderedMemory),
// as c10/cuda/CUDAMallocAsyncAllocator.cpp does. ctorch keeps no cache of its own.
//
// Note [cudaMallocAsync backend]
// - Chosen once, at first use, from the allocator config (malloc_async_backend()); a pluggable
//   allocator installed before that wins. Once this backend has allocated, change_current_allocator
//   is refused ("Can't swap an already initialized allocator").
// - A device is initialized at its first allocation (or set_per_process_memory_fraction): its
//   default pool's release threshold is set to UINT64_MAX (freed memory stays in the pool) and one
//   pool stream is taken as the device's "unifying" free stream.
// - allocate: cudaMallocAsync on the allocation's stream; the pointer is recorded with its size and
//   creation stream. free (the DataPtr deleter, from any thread): without record_stream,
//   cudaFreeAsync on the creation stream. With recorded streams, PyTorch's trick: the unifying
//   stream waits for an event on the creation stream and on each recorded stream, and the free is
//   queued there, so no recorded stream's queued work can see the memory reused.
// - Statistics: allocated_bytes.all and active_bytes.all (current, peak) are the pool's used
//   memory, reserved_bytes.all the pool's reserved memory; every other key is present and 0 (and
//   max_split_size is 0), as PyTorch fills DeviceStats for this backend. reset_peak_memory_stats
//   resets the pool's high-water marks; reset_accumulated_memory_stats only warns.
// - set_per_process_memory_fraction caps the bytes ctorch has allocated (requested sizes) at
//   fraction * total memory; beyond it, or when the pool cannot grow, OutOfMemoryError with
//   PyTorch's "Allocation on device N would exceed allowed memory" text.
// - empty_cache: for each initialized device, synchronize it, then trim its pool to 0.
// - Snapshots, memory history and getMemoryFraction throw PyTorch's "not meaningful" / "does not
//   yet support" errors. The sanitizer hooks are called as for the native allocator (a freed
//   block is reusable on its free stream without synchronization).
#pragma once

#include <cstddef>

#include "ctorch/allocator.h"
#include "ctorch/stream.h"
#include "memory/allocator_stats.h"

namespace ctorch::inline api::memory {

/// The process-wide cudaMallocAsync allocator (see Note [cudaMallocAsync backend]). Thread-safe.
class MallocAsyncAllocator {
 public:
  /// `nbytes` on cuda:`index` for stream `s` (an empty DataPtr for 0 bytes); OutOfMemoryError.
  DataPtr allocate(DeviceIndex index, size_t nbytes, Stream s);
  /// `nbytes` (> 0) for caching_allocator_alloc; freed by raw_delete.
  void* raw_alloc(DeviceIndex index, size_t nbytes, Stream s);
  /// Frees memory from raw_alloc or allocate; throws "invalid device pointer" for anything else.
  void raw_delete(void* ptr);
  /// The memory of `data` (from allocate) will not be reused before the work queued on `s` so far.
  void record_stream(const DataPtr& data, Stream s);
  /// PyTorch's DeviceStats for this backend (zeros before the device's first use).
  DeviceStats stats(DeviceIndex index);
  /// Resets the pool's peaks of cuda:`index`.
  void reset_peak_stats(DeviceIndex index);
  /// Warns once that it has no effect (as PyTorch).
  void reset_accumulated_stats(DeviceIndex index);
  /// Synchronizes every initialized device and trims its pool to 0.
  void empty_cache();
  /// Caps ctorch's allocations on cuda:`index` at fraction * total memory (fraction in [0, 1]).
  void set_memory_fraction(double fraction, DeviceIndex index);
  /// True once any device was initialized (change_current_allocator is then refused).
  bool initialized() const noexcept;
  /// Returns pooled memory and forgets idle devices (runtime reset hook); must not throw.
  void reset() noexcept;
};

/// The cudaMallocAsync allocator when it is the backend in use, else null (native, or a pluggable
/// allocator installed). The config is read at the first call; throws when it does not parse.
MallocAsyncAllocator* malloc_async_backend();
/// The process-wide instance, whether or not it is the backend in use.
MallocAsyncAllocator& malloc_async_allocator() noexcept;
/// True when `data` came from the cudaMallocAsync allocator.
bool is_malloc_async_data(const DataPtr& data) noexcept;
/// True once the cudaMallocAsync allocator has initialized a device.
bool malloc_async_initialized() noexcept;

}  // namespace ctorch::api::memory
