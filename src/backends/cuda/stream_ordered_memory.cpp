// CudaStreamOrderedMemory: see Note [CUDA stream-ordered memory] in stream_ordered_memory.h.
// Compiled only (no GPU here).
#include "backends/cuda/stream_ordered_memory.h"

#include <cuda_runtime_api.h>

#include "backends/cuda/check.h"
#include "backends/cuda/stream.h"

namespace ctorch::inline api::backends::cuda {
namespace {

cudaMemPool_t default_pool(DeviceIndex index) {
  cudaMemPool_t pool = nullptr;
  CTORCH_CUDA_CHECK(cudaDeviceGetDefaultMemPool(&pool, index));
  return pool;
}

uint64_t attribute(cudaMemPool_t pool, cudaMemPoolAttr attr) {
  uint64_t value = 0;
  CTORCH_CUDA_CHECK(cudaMemPoolGetAttribute(pool, attr, &value));
  return value;
}

}  // namespace

void* CudaStreamOrderedMemory::allocate_async(DeviceIndex index, size_t bytes, Stream s) {
  ScopedDevice guard(index);
  void* p = nullptr;
  const cudaError_t err = cudaMallocAsync(&p, bytes, native_stream(s));
  if (err == cudaErrorMemoryAllocation) {
    (void)cudaGetLastError();
    return nullptr;
  }
  CTORCH_CUDA_CHECK(err);
  return p;
}

void CudaStreamOrderedMemory::free_async(DeviceIndex index, void* ptr, Stream s) {
  ScopedDevice guard(index);
  CTORCH_CUDA_CHECK(cudaFreeAsync(ptr, native_stream(s)));
}

impl::PoolAttributes CudaStreamOrderedMemory::pool_attributes(DeviceIndex index) {
  ScopedDevice guard(index);
  cudaMemPool_t pool = default_pool(index);
  impl::PoolAttributes a;
  a.used_current = attribute(pool, cudaMemPoolAttrUsedMemCurrent);
  a.used_high = attribute(pool, cudaMemPoolAttrUsedMemHigh);
  a.reserved_current = attribute(pool, cudaMemPoolAttrReservedMemCurrent);
  a.reserved_high = attribute(pool, cudaMemPoolAttrReservedMemHigh);
  return a;
}

void CudaStreamOrderedMemory::reset_pool_peaks(DeviceIndex index) {
  ScopedDevice guard(index);
  cudaMemPool_t pool = default_pool(index);
  uint64_t zero = 0;
  CTORCH_CUDA_CHECK(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReservedMemHigh, &zero));
  CTORCH_CUDA_CHECK(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrUsedMemHigh, &zero));
}

void CudaStreamOrderedMemory::trim_pool_to(DeviceIndex index, size_t bytes) {
  ScopedDevice guard(index);
  CTORCH_CUDA_CHECK(cudaMemPoolTrimTo(default_pool(index), bytes));
}

void CudaStreamOrderedMemory::set_pool_release_threshold(DeviceIndex index, uint64_t bytes) {
  ScopedDevice guard(index);
  cudaMemPool_t pool = default_pool(index);
  CTORCH_CUDA_CHECK(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &bytes));
  // On by default; set explicitly as PyTorch does, to make the reuse policy visible.
  int enable = 1;
  CTORCH_CUDA_CHECK(cudaMemPoolSetAttribute(pool, cudaMemPoolReuseFollowEventDependencies, &enable));
  CTORCH_CUDA_CHECK(cudaMemPoolSetAttribute(pool, cudaMemPoolReuseAllowOpportunistic, &enable));
  CTORCH_CUDA_CHECK(cudaMemPoolSetAttribute(pool, cudaMemPoolReuseAllowInternalDependencies, &enable));
}

}  // namespace ctorch::api::backends::cuda
