// A device allocator loaded from a shared library (torch.cuda.memory.CUDAPluggableAllocator and
// change_current_allocator). The library exports, with C linkage:
//   void* alloc(size_t size, int device, cudaStream_t stream);
//   void  free(void* ptr, size_t size, int device, cudaStream_t stream);
// `stream` is the ctorch StreamId cast to a pointer (not yet the cudaStream_t on real CUDA).
#pragma once

#include <cstddef>
#include <memory>
#include <string>

namespace ctorch::cuda::memory {

/// Signature of the allocation function.
using PluggableAllocFn = void* (*)(size_t size, int device, void* stream);
/// Signature of the free function.
using PluggableFreeFn = void (*)(void* ptr, size_t size, int device, void* stream);

/// Functions of a loaded allocator library (shared by copies; the library is never unloaded).
class CUDAPluggableAllocator {
 public:
  /// dlopens `path_to_so` and looks up both functions; throws Error naming the library or symbol.
  CUDAPluggableAllocator(const std::string& path_to_so, const std::string& alloc_fn_name,
                         const std::string& free_fn_name);
  /// Optional: called by empty_cache() (set_reset_fn).
  void set_reset_fn(void (*fn)());
  /// The allocation function.
  PluggableAllocFn alloc_fn() const;
  /// The free function.
  PluggableFreeFn free_fn() const;

  /// Loaded library state (defined in src/memory/pluggable_allocator.h).
  struct Impl;
  /// Shared state (internal).
  const std::shared_ptr<Impl>& impl() const { return impl_; }

 private:
  std::shared_ptr<Impl> impl_;
};

/// Makes `allocator` serve every CUDA device allocation from now on. Refused with PyTorch's
/// "Can't swap an already initialized allocator" once the caching allocator (or a pluggable
/// allocator already installed) has been used.
void change_current_allocator(const CUDAPluggableAllocator& allocator);

}  // namespace ctorch::cuda::memory
