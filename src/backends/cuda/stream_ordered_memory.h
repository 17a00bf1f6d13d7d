// Stream-ordered memory of the real CUDA runtime: impl::StreamOrderedMemory over each device's
// default memory pool (cudaMallocAsync / cudaFreeAsync / cudaMemPoolGetAttribute / cudaMemPoolTrimTo),
// for the allocator backend `backend:cudaMallocAsync`. Plain C++: no CUDA headers.
//
// Note [CUDA stream-ordered memory]
// - Thin: every method is one or a few CUDA runtime calls on cudaDeviceGetDefaultMemPool(index),
//   with `index` current (ScopedDevice), as c10/cuda/CUDAMallocAsyncAllocator.cpp does.
// - cudaErrorMemoryAllocation from cudaMallocAsync is cleared and reported as null; other errors
//   throw through CTORCH_CUDA_CHECK.
// - reset_pool_peaks sets the High attributes to 0, which the driver turns into the current value.
// - Compiled in CI; it has never run on a GPU. The emulated runtime's pool (Note [Emulated
//   stream-ordered memory]) is what the tests exercise.
#pragma once

#include <cstddef>
#include <cstdint>

#include "runtime/device_runtime.h"

namespace ctorch::inline api::backends::cuda {

/// impl::StreamOrderedMemory over the CUDA runtime (see Note [CUDA stream-ordered memory]).
class CudaStreamOrderedMemory : public impl::StreamOrderedMemory {
 public:
  /// cudaMallocAsync on `s`; null on cudaErrorMemoryAllocation.
  void* allocate_async(DeviceIndex index, size_t bytes, Stream s) override;
  /// cudaFreeAsync on `s`.
  void free_async(DeviceIndex index, void* ptr, Stream s) override;
  /// The four UsedMem / ReservedMem attributes of the default pool.
  impl::PoolAttributes pool_attributes(DeviceIndex index) override;
  /// Sets UsedMemHigh and ReservedMemHigh to 0 (reset to current).
  void reset_pool_peaks(DeviceIndex index) override;
  /// cudaMemPoolTrimTo.
  void trim_pool_to(DeviceIndex index, size_t bytes) override;
  /// cudaMemPoolAttrReleaseThreshold.
  void set_pool_release_threshold(DeviceIndex index, uint64_t bytes) override;
};

}  // namespace ctorch::api::backends::cuda
