#include "memory/pinned_allocator.h"

#include <atomic>
#include <mutex>

#include "ctorch/error.h"
#include "runtime/current.h"
#include "runtime/device_runtime.h"

namespace ctorch::inline api::memory {
namespace {

// Page-locked memory of the CUDA runtime the cache was created (or last rebound) for.
class RuntimeHostBackend final : public RuntimeEvents {
 public:
  explicit RuntimeHostBackend(impl::DeviceRuntime* rt) : RuntimeEvents(rt) {}
  void* allocate(size_t bytes) override { return rt()->pinned_allocate(bytes); }
  void deallocate(void* ptr) noexcept override { rt()->pinned_free(ptr); }
};

struct HostSlot {
  explicit HostSlot(impl::DeviceRuntime* rt) : backend(rt), allocator(&backend) {}
  RuntimeHostBackend backend;
  CachingHostAllocator allocator;
};

std::mutex g_mutex;
std::atomic<HostSlot*> g_slot{nullptr};  // created once, never destroyed (deleters may run late)

void reset_hook() {
  if (HostSlot* s = g_slot.load(std::memory_order_acquire)) {
    try {
      s->allocator.reset();
    } catch (...) {
      // Reported by the reconfiguration (live pinned memory).
    }
  }
}

void free_host_block(void* ctx) {
  HostSlot* s = g_slot.load(std::memory_order_acquire);
  try {
    s->allocator.free(static_cast<HostBlock*>(ctx));
  } catch (...) {
    // A deleter must not throw; free() only throws on internal invariant violations.
  }
}

}  // namespace

CachingHostAllocator& host_caching_allocator() {
  impl::DeviceRuntime* rt = &impl::lazy_init(DeviceType::CUDA);
  HostSlot* s = g_slot.load(std::memory_order_acquire);
  if (s != nullptr && s->backend.runtime() == rt) return s->allocator;
  std::lock_guard<std::mutex> lock(g_mutex);
  s = g_slot.load(std::memory_order_relaxed);
  if (s == nullptr) {
    s = new HostSlot(rt);
    impl::add_runtime_reset_hook(DeviceType::CUDA, &reset_hook);
    g_slot.store(s, std::memory_order_release);
  } else if (s->backend.runtime() != rt) {
    CTORCH_CHECK(s->allocator.reset(),
                 "[host allocator] the CUDA runtime was replaced while pinned memory from the previous runtime is alive");
    s->backend.rebind(rt);
  }
  return s->allocator;
}

CachingHostAllocator* existing_host_caching_allocator() noexcept {
  HostSlot* s = g_slot.load(std::memory_order_acquire);
  if (s == nullptr || s->backend.runtime() != impl::runtime_for(DeviceType::CUDA)) return nullptr;
  return &s->allocator;
}

DataPtr allocate_pinned(size_t nbytes) {
  CachingHostAllocator& a = host_caching_allocator();
  if (nbytes == 0) return DataPtr(nullptr, nullptr, nullptr, Device(DeviceType::CPU));
  HostBlock* b = a.allocate(nbytes);
  return DataPtr(b->ptr, b, &free_host_block, Device(DeviceType::CPU));
}

void record_pinned_use(const DataPtr& data, Stream s) {
  if (data.deleter() != &free_host_block) return;
  if (CachingHostAllocator* a = existing_host_caching_allocator()) a->record_event(static_cast<HostBlock*>(data.context()), s);
}

}  // namespace ctorch::api::memory
