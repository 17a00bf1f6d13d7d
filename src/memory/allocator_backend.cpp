// The three CUDA allocator back-ends behind DeviceAllocatorBackend (allocator_backend.h).
#include "memory/allocator_backend.h"

#include "ctorch/error.h"
#include "memory/device_allocator.h"
#include "memory/malloc_async_allocator.h"
#include "memory/pluggable_allocator.h"
#include "runtime/current.h"
#include "runtime/device_runtime.h"

namespace ctorch::inline api::memory {
namespace {

// The devices of the registered CUDA runtime (0 when there is none), as cuda::device_count().
int cuda_device_count() noexcept {
  impl::DeviceRuntime* r = impl::runtime_for(DeviceType::CUDA);
  return r ? r->device_count() : 0;
}

constexpr auto kAll = static_cast<size_t>(StatType::kAggregate);

// One CachingAllocator per device (device_allocator.h).
class NativeBackend final : public DeviceAllocatorBackend {
 public:
  const char* name() const noexcept override { return "native"; }
  const char* message_name() const noexcept override { return "native"; }
  bool supports(AllocatorApi) const noexcept override { return true; }
  DataPtr allocate(DeviceIndex index, size_t nbytes, Stream s) override { return allocate_native(index, nbytes, s); }
  void* raw_alloc(DeviceIndex index, size_t nbytes, Stream s) override {
    CTORCH_CHECK(!cuda_caching_disabled(),
                 "caching_allocator_alloc: the caching allocator is disabled (PYTORCH_NO_CUDA_MEMORY_CACHING)");
    return cuda_caching_allocator(index).raw_alloc(nbytes, s);
  }
  void raw_delete(void* ptr) override {
    if (impl::is_initialized(DeviceType::CUDA)) {
      const int count = cuda_device_count();
      for (int i = 0; i < count; ++i) {
        CachingAllocator* a = existing_cuda_caching_allocator(static_cast<DeviceIndex>(i));
        if (a != nullptr && a->free_ptr(ptr)) return;
      }
    }
    CTORCH_CHECK(false, "invalid device pointer: ", ptr);
  }
  DeviceStats stats(DeviceIndex index) override { return cuda_caching_allocator(index).stats(); }
  void reset_peak_stats(DeviceIndex index) override { cuda_caching_allocator(index).reset_peak_stats(); }
  void reset_accumulated_stats(DeviceIndex index) override { cuda_caching_allocator(index).reset_accumulated_stats(); }
  void empty_cache() override {
    const int count = cuda_device_count();
    for (int i = 0; i < count; ++i) {
      if (CachingAllocator* a = existing_cuda_caching_allocator(static_cast<DeviceIndex>(i))) a->empty_cache();
    }
  }
  void set_memory_fraction(double fraction, DeviceIndex index) override {
    cuda_caching_allocator(index).set_memory_fraction(fraction);
  }
  double memory_fraction(DeviceIndex index) override { return cuda_caching_allocator(index).memory_fraction(); }
  int64_t reserved_bytes(DeviceIndex index) override {
    const CachingAllocator* a = existing_cuda_caching_allocator(index);
    return a ? a->stats().reserved_bytes[kAll].current : 0;
  }
};

// cudaMallocAsync (malloc_async_allocator.h): no getMemoryFraction, as in PyTorch.
class MallocAsyncBackend final : public DeviceAllocatorBackend {
 public:
  const char* name() const noexcept override { return "cudaMallocAsync"; }
  const char* message_name() const noexcept override { return "cudaMallocAsync"; }
  bool supports(AllocatorApi api) const noexcept override { return api != AllocatorApi::GetMemoryFraction; }
  DataPtr allocate(DeviceIndex index, size_t nbytes, Stream s) override { return a().allocate(index, nbytes, s); }
  void* raw_alloc(DeviceIndex index, size_t nbytes, Stream s) override { return a().raw_alloc(index, nbytes, s); }
  void raw_delete(void* ptr) override { a().raw_delete(ptr); }
  DeviceStats stats(DeviceIndex index) override { return a().stats(index); }
  void reset_peak_stats(DeviceIndex index) override { a().reset_peak_stats(index); }
  void reset_accumulated_stats(DeviceIndex index) override { a().reset_accumulated_stats(index); }
  void empty_cache() override { a().empty_cache(); }
  void set_memory_fraction(double fraction, DeviceIndex index) override { a().set_memory_fraction(fraction, index); }
  double memory_fraction(DeviceIndex) override {
    check_supports(*this, AllocatorApi::GetMemoryFraction, "getMemoryFraction");
    return 1.0;
  }
  int64_t reserved_bytes(DeviceIndex index) override { return a().stats(index).reserved_bytes[kAll].current; }

 private:
  static MallocAsyncAllocator& a() noexcept { return malloc_async_allocator(); }
};

// The installed CUDAPluggableAllocator (pluggable_allocator.h): alloc/free and the reset hook only.
class PluggableBackend final : public DeviceAllocatorBackend {
 public:
  const char* name() const noexcept override { return "pluggable"; }
  const char* message_name() const noexcept override { return "CUDAPluggableAllocator"; }
  bool supports(AllocatorApi) const noexcept override { return false; }
  DataPtr allocate(DeviceIndex index, size_t nbytes, Stream s) override {
    return allocate_pluggable(p(), index, nbytes, s);
  }
  void* raw_alloc(DeviceIndex index, size_t nbytes, Stream s) override {
    return pluggable_raw_alloc(p(), index, nbytes, s);
  }
  void raw_delete(void* ptr) override { pluggable_raw_free(p(), ptr); }
  DeviceStats stats(DeviceIndex) override {
    unsupported(AllocatorApi::Stats, "getDeviceStats");
    return {};
  }
  void reset_peak_stats(DeviceIndex) override { unsupported(AllocatorApi::ResetPeakStats, "resetPeakStats"); }
  void reset_accumulated_stats(DeviceIndex) override {
    unsupported(AllocatorApi::ResetAccumulatedStats, "resetAccumulatedStats");
  }
  void empty_cache() override {
    if (auto reset = p().reset) reset();
  }
  void set_memory_fraction(double, DeviceIndex) override {
    unsupported(AllocatorApi::SetMemoryFraction, "setMemoryFraction");
  }
  double memory_fraction(DeviceIndex) override {
    unsupported(AllocatorApi::GetMemoryFraction, "getMemoryFraction");
    return 1.0;
  }
  int64_t reserved_bytes(DeviceIndex) override { return 0; }

 private:
  static cuda::memory::CUDAPluggableAllocator::Impl& p() {
    auto* impl = current_pluggable();
    CTORCH_INTERNAL_ASSERT(impl != nullptr, "[allocator] the pluggable allocator was removed");
    return *impl;
  }
  void unsupported(AllocatorApi api, const char* what) const { check_supports(*this, api, what); }
};

}  // namespace

DeviceAllocatorBackend& device_allocator_backend() {
  // Never destroyed: storages may be freed during exit.
  static auto* native = new NativeBackend;
  static auto* async = new MallocAsyncBackend;
  static auto* pluggable = new PluggableBackend;
  if (current_pluggable() != nullptr) return *pluggable;
  if (malloc_async_backend() != nullptr) return *async;
  return *native;
}

void empty_device_cache(bool initialized) {
  if (current_pluggable() == nullptr && !initialized) return;
  device_allocator_backend().empty_cache();
}

void check_supports(const DeviceAllocatorBackend& backend, AllocatorApi api, const char* what) {
  CTORCH_CHECK(backend.supports(api), backend.message_name(), " does not yet support ", what,
               ". If you need it, please file an issue describing your use case.");
}

}  // namespace ctorch::api::memory
