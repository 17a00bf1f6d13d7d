#include "memory/pluggable_allocator.h"

#include <dlfcn.h>

#include "ctorch/error.h"
#include "memory/device_allocator.h"
#include "memory/malloc_async_allocator.h"
#include "memory/allocation_observer.h"

namespace ctorch::cuda::memory {

CUDAPluggableAllocator::CUDAPluggableAllocator(const std::string& path_to_so, const std::string& alloc_fn_name,
                                               const std::string& free_fn_name)
    : impl_(std::make_shared<Impl>()) {
  impl_->handle = ::dlopen(path_to_so.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (impl_->handle == nullptr) {
    const char* err = ::dlerror();
    CTORCH_CHECK(false, "CUDAPluggableAllocator: cannot load '", path_to_so, "': ", err ? err : "unknown error");
  }
  ::dlerror();
  impl_->alloc = reinterpret_cast<PluggableAllocFn>(::dlsym(impl_->handle, alloc_fn_name.c_str()));
  CTORCH_CHECK_VALUE(impl_->alloc != nullptr, "CUDAPluggableAllocator: '", path_to_so, "' has no symbol '",
                     alloc_fn_name, "' (the allocation function)");
  impl_->free = reinterpret_cast<PluggableFreeFn>(::dlsym(impl_->handle, free_fn_name.c_str()));
  CTORCH_CHECK_VALUE(impl_->free != nullptr, "CUDAPluggableAllocator: '", path_to_so, "' has no symbol '",
                     free_fn_name, "' (the free function)");
  // The handle is never closed: blocks may outlive every CUDAPluggableAllocator object.
}

void CUDAPluggableAllocator::set_reset_fn(void (*fn)()) { impl_->reset = fn; }
PluggableAllocFn CUDAPluggableAllocator::alloc_fn() const { return impl_->alloc; }
PluggableFreeFn CUDAPluggableAllocator::free_fn() const { return impl_->free; }

}  // namespace ctorch::cuda::memory

namespace ctorch::inline api::memory {
namespace {

using Impl = cuda::memory::CUDAPluggableAllocator::Impl;

std::mutex g_mutex;
std::atomic<Impl*> g_current{nullptr};
std::shared_ptr<Impl> g_keep;  // keeps the installed allocator alive

struct PluggableBlock {
  Impl* impl;
  void* ptr;
  size_t size;
  int device;
  void* stream;
};

void free_pluggable_block(void* ctx) {
  auto* b = static_cast<PluggableBlock*>(ctx);
  if (AllocationObserver* o = allocation_observer()) o->freed(b->ptr, /*reusable=*/false);
  b->impl->free(b->ptr, b->size, b->device, b->stream);
  delete b;
}

void* stream_handle(Stream s) { return reinterpret_cast<void*>(static_cast<intptr_t>(s.id())); }

void* checked_alloc(Impl& p, DeviceIndex index, size_t nbytes, Stream s) {
  p.used.store(true, std::memory_order_relaxed);
  void* ptr = p.alloc(nbytes, index, stream_handle(s));
  if (ptr == nullptr) {
    throw OutOfMemoryError(detail::str_cat("CUDA out of memory. Tried to allocate ", format_size(nbytes),
                                           " on GPU ", static_cast<int>(index),
                                           " with the pluggable allocator, which returned null."));
  }
  return ptr;
}

}  // namespace

Impl* current_pluggable() noexcept { return g_current.load(std::memory_order_acquire); }

DataPtr allocate_pluggable(Impl& p, DeviceIndex index, size_t nbytes, Stream s) {
  const Device device(DeviceType::CUDA, index);
  if (nbytes == 0) return DataPtr(nullptr, nullptr, nullptr, device);
  void* ptr = checked_alloc(p, index, nbytes, s);
  return DataPtr(ptr, new PluggableBlock{&p, ptr, nbytes, index, stream_handle(s)}, &free_pluggable_block, device);
}

void* pluggable_raw_alloc(Impl& p, DeviceIndex index, size_t nbytes, Stream s) {
  void* ptr = checked_alloc(p, index, nbytes, s);
  std::lock_guard<std::mutex> lock(p.mu);
  p.live[ptr] = {nbytes, index, stream_handle(s)};
  return ptr;
}

void pluggable_raw_free(Impl& p, void* ptr) {
  Impl::Live live{};
  {
    std::lock_guard<std::mutex> lock(p.mu);
    auto it = p.live.find(ptr);
    CTORCH_CHECK(it != p.live.end(), "Trying to free a pointer not allocated here");
    live = it->second;
    p.live.erase(it);
  }
  p.free(ptr, live.size, live.device, live.stream);
}

void check_native_allocator(const char* what) {
  CTORCH_CHECK(current_pluggable() == nullptr, "CUDAPluggableAllocator does not yet support ", what,
               ". If you need it, please file an issue describing your use case.");
}

}  // namespace ctorch::api::memory

namespace ctorch::cuda::memory {

void change_current_allocator(const CUDAPluggableAllocator& allocator) {
  std::lock_guard<std::mutex> lock(::ctorch::memory::g_mutex);
  ::ctorch::memory::Impl* cur = ::ctorch::memory::g_current.load(std::memory_order_acquire);
  const bool initialized =
      cur != nullptr ? cur->used.load()
                     : ::ctorch::memory::any_cuda_caching_allocator_created() || ::ctorch::memory::malloc_async_initialized();
  CTORCH_CHECK(!initialized, "Can't swap an already initialized allocator");
  ::ctorch::memory::g_keep = allocator.impl();
  ::ctorch::memory::g_current.store(allocator.impl().get(), std::memory_order_release);
}

}  // namespace ctorch::cuda::memory
