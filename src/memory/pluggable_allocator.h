// The current pluggable allocator (cuda_pluggable_allocator.h), consulted by allocate_cuda and
// the memory API: when one is installed, device storages come from its alloc/free functions and
// the caching allocator's statistics are unavailable, as in PyTorch.
#pragma once

#include <atomic>
#include <cstddef>
#include <mutex>
#include <string>
#include <unordered_map>

#include "ctorch/allocator.h"
#include "ctorch/cuda_pluggable_allocator.h"
#include "ctorch/stream.h"

namespace ctorch::cuda::memory {

/// State of a loaded allocator library.
struct CUDAPluggableAllocator::Impl {
  void* handle = nullptr;
  PluggableAllocFn alloc = nullptr;
  PluggableFreeFn free = nullptr;
  void (*reset)() = nullptr;
  std::atomic<bool> used{false};  // allocated at least once (initialized, in PyTorch's words)
  std::mutex mu;                  // guards live
  struct Live {
    size_t size;
    int device;
    void* stream;
  };
  std::unordered_map<void*, Live> live;  // raw allocations (caching_allocator_alloc)
};

}  // namespace ctorch::cuda::memory

namespace ctorch::inline api::memory {

/// The installed pluggable allocator, or null (the native caching allocator).
cuda::memory::CUDAPluggableAllocator::Impl* current_pluggable() noexcept;
/// `nbytes` from the pluggable allocator `p` on cuda:`index` for stream `s`.
DataPtr allocate_pluggable(cuda::memory::CUDAPluggableAllocator::Impl& p, DeviceIndex index, size_t nbytes, Stream s);
/// Raw allocation for caching_allocator_alloc (recorded so raw_free can find its size).
void* pluggable_raw_alloc(cuda::memory::CUDAPluggableAllocator::Impl& p, DeviceIndex index, size_t nbytes, Stream s);
/// Frees a raw allocation; throws "Trying to free a pointer not allocated here" for others.
void pluggable_raw_free(cuda::memory::CUDAPluggableAllocator::Impl& p, void* ptr);
/// Throws PyTorch's "CUDAPluggableAllocator does not yet support <what>..." when one is installed.
void check_native_allocator(const char* what);

}  // namespace ctorch::api::memory
