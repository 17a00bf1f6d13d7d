#include "memory/device_allocator.h"

#include <array>
#include <atomic>
#include <cstdlib>
#include <iostream>
#include <mutex>

#include "ctorch/error.h"
#include "memory/allocation_observer.h"
#include "memory/allocator_backend.h"
#include "memory/malloc_async_allocator.h"
#include "runtime/current.h"
#include "runtime/device_runtime.h"

namespace ctorch::inline api::memory {
namespace {

// Forwards the policy's raw operations to one device of a DeviceRuntime, and the virtual-memory
// ones to its impl::VirtualMemory (reserve gives null when the runtime has none: the allocator then
// uses fixed segments).
class RuntimeBackend final : public RuntimeEvents, public VirtualMemoryBackend {
 public:
  RuntimeBackend(impl::DeviceRuntime* rt, DeviceIndex index) : RuntimeEvents(rt), index_(index) {}

  void* allocate(size_t bytes) override {
    try {
      return rt()->raw_allocate(index_, bytes);
    } catch (const OutOfMemoryError&) {
      return nullptr;  // cudaErrorMemoryAllocation: the policy frees cache and retries
    }
  }
  void deallocate(void* ptr) noexcept override { rt()->raw_free(index_, ptr); }
  void memory_info(size_t* free_bytes, size_t* total_bytes) override {
    rt()->memory_info(index_, free_bytes, total_bytes);
  }

  void* reserve(size_t bytes, size_t page_size) override {
    impl::VirtualMemory* vm = impl::virtual_memory(*rt());
    return vm ? vm->reserve_address_range(index_, bytes, page_size) : nullptr;
  }
  bool map(void* base, size_t offset, size_t bytes) override {
    impl::VirtualMemory* vm = impl::virtual_memory(*rt());
    return vm != nullptr && vm->map_pages(index_, base, offset, bytes);
  }
  void unmap(void* base, size_t offset, size_t bytes) noexcept override {
    if (impl::VirtualMemory* vm = impl::virtual_memory(*rt())) vm->unmap_pages(index_, base, offset, bytes);
  }
  void release(void* base) noexcept override {
    if (impl::VirtualMemory* vm = impl::virtual_memory(*rt())) vm->release_address_range(index_, base);
  }

 private:
  const DeviceIndex index_;
};

struct Slot {
  Slot(impl::DeviceRuntime* rt, DeviceIndex index, const AllocatorConfig& config)
      : backend(rt, index), allocator(index, &backend, config) {}
  RuntimeBackend backend;
  CachingAllocator allocator;
};

// Slots are created under g_mutex and never destroyed (see Note in the header).
std::mutex g_mutex;
std::array<std::atomic<Slot*>, impl::kMaxDevices> g_slots{};
// Rebinding an idle slot to a new runtime happens under g_mutex.

void warn_unimplemented_options(const AllocatorConfig& c, impl::DeviceRuntime& rt) {
  static std::once_flag once;
  std::call_once(once, [&] {
    if (c.expandable_segments && impl::virtual_memory(rt) == nullptr) {
      std::cerr << "[W ctorch] expandable_segments:True needs device virtual memory, which this CUDA runtime "
                   "does not provide; using fixed-size segments.\n";
    }
  });
}

void free_cuda_block(void* ctx) {
  auto* b = static_cast<Block*>(ctx);
  Slot* slot = g_slots[static_cast<size_t>(b->device)].load(std::memory_order_acquire);
  if (AllocationObserver* o = allocation_observer()) o->freed(b->ptr, /*reusable=*/true);
  try {
    slot->allocator.free(b);
  } catch (...) {
    // A deleter must not throw; free() only throws on internal invariant violations.
  }
}

struct RawBlock {
  impl::DeviceRuntime* runtime;
  DeviceIndex index;
  void* ptr;
};

void free_raw_block(void* ctx) {
  auto* b = static_cast<RawBlock*>(ctx);
  if (AllocationObserver* o = allocation_observer()) o->freed(b->ptr, /*reusable=*/false);
  if (b->ptr) b->runtime->raw_free(b->index, b->ptr);
  delete b;
}

void reset_hook() { reset_cuda_caching_allocators(); }

}  // namespace

std::unique_ptr<RawBackend> make_runtime_backend(impl::DeviceRuntime* runtime, DeviceIndex index) {
  return std::make_unique<RuntimeBackend>(runtime, index);
}

bool cuda_caching_disabled() noexcept {
  static const bool disabled = std::getenv("PYTORCH_NO_CUDA_MEMORY_CACHING") != nullptr;
  return disabled;
}

CachingAllocator& cuda_caching_allocator(DeviceIndex index) {
  CTORCH_CHECK_INDEX(index >= 0 && index < impl::kMaxDevices, "[caching allocator] device index ",
                     static_cast<int>(index), " is out of range [0, ", impl::kMaxDevices, ")");
  impl::DeviceRuntime* rt = &impl::require_runtime(DeviceType::CUDA);
  Slot* slot = g_slots[static_cast<size_t>(index)].load(std::memory_order_acquire);
  if (slot != nullptr && slot->backend.runtime() == rt) return slot->allocator;
  std::lock_guard<std::mutex> lock(g_mutex);
  slot = g_slots[static_cast<size_t>(index)].load(std::memory_order_relaxed);
  if (slot == nullptr) {
    const AllocatorConfig& config = device_allocator_config();
    warn_unimplemented_options(config, *rt);
    slot = new Slot(rt, index, config);
    impl::add_runtime_reset_hook(DeviceType::CUDA, &reset_hook);
    g_slots[static_cast<size_t>(index)].store(slot, std::memory_order_release);
  } else if (slot->backend.runtime() != rt) {
    // The runtime was replaced without the reset hooks (a test registering its own runtime).
    CTORCH_CHECK(slot->allocator.reset(), "[caching allocator] the CUDA runtime was replaced while memory of cuda:",
                 static_cast<int>(index), " allocated from the previous runtime is still alive");
    slot->backend.rebind(rt);
  }
  return slot->allocator;
}

CachingAllocator* existing_cuda_caching_allocator(DeviceIndex index) noexcept {
  if (index < 0 || index >= impl::kMaxDevices) return nullptr;
  Slot* slot = g_slots[static_cast<size_t>(index)].load(std::memory_order_acquire);
  if (slot == nullptr || slot->backend.runtime() != impl::runtime_for(DeviceType::CUDA)) return nullptr;
  return &slot->allocator;
}

bool any_cuda_caching_allocator_created() noexcept {
  for (const auto& s : g_slots) {
    if (s.load(std::memory_order_acquire) != nullptr) return true;
  }
  return false;
}

DataPtr allocate_native(DeviceIndex index, size_t nbytes, Stream s) {
  const Device device(DeviceType::CUDA, index);
  if (cuda_caching_disabled()) {
    impl::DeviceRuntime& rt = impl::require_runtime(DeviceType::CUDA);
    void* p = nbytes ? rt.raw_allocate(index, nbytes) : nullptr;
    return DataPtr(p, new RawBlock{&rt, index, p}, &free_raw_block, device);
  }
  if (nbytes == 0) return DataPtr(nullptr, nullptr, nullptr, device);
  Block* b = cuda_caching_allocator(index).malloc(nbytes, s);
  return DataPtr(b->ptr, b, &free_cuda_block, device);
}

DataPtr allocate_cuda(DeviceIndex index, size_t nbytes, Stream s) {
  // The back-end in use; cudaMallocAsync ignores PYTORCH_NO_CUDA_MEMORY_CACHING.
  DataPtr data = device_allocator_backend().allocate(index, nbytes, s);
  if (AllocationObserver* o = allocation_observer()) o->allocated(data.get(), nbytes, s);
  return data;
}

Block* block_of(const DataPtr& data) noexcept {
  return data.deleter() == &free_cuda_block ? static_cast<Block*>(data.context()) : nullptr;
}

void record_stream(const DataPtr& data, Stream s) {
  if (AllocationObserver* o = allocation_observer()) o->stream_recorded(data.get(), s);
  if (Block* b = block_of(data)) return cuda_caching_allocator(b->device).record_stream(b, s);
  if (is_malloc_async_data(data)) return malloc_async_allocator().record_stream(data, s);
  // Empty storage, raw or pluggable memory: ignored.
}

namespace {
// True when graph pools apply: the native back-end with caching; throws for other back-ends.
bool graph_pools_apply() {
  const DeviceAllocatorBackend& backend = device_allocator_backend();
  CTORCH_CHECK_NOT_IMPLEMENTED(std::string(backend.name()) == "native",
                               "CUDA graphs need the native caching allocator; ctorch does not implement their "
                               "memory pools for the ", backend.message_name(), " allocator back-end");
  return !cuda_caching_disabled();
}
}  // namespace

void begin_allocate_to_pool(DeviceIndex index, MempoolId id, StreamFilter filter) {
  if (graph_pools_apply()) cuda_caching_allocator(index).begin_allocate_to_pool(id, std::move(filter));
}

void end_allocate_to_pool(DeviceIndex index, MempoolId id) {
  if (graph_pools_apply()) cuda_caching_allocator(index).end_allocate_to_pool(id);
}

void release_pool(DeviceIndex index, MempoolId id) {
  if (graph_pools_apply()) cuda_caching_allocator(index).release_pool(id);
}

void reset_cuda_caching_allocators() noexcept {
  std::lock_guard<std::mutex> lock(g_mutex);
  for (auto& s : g_slots) {
    Slot* slot = s.load(std::memory_order_acquire);
    if (slot == nullptr) continue;
    try {
      slot->allocator.reset();
    } catch (...) {
      // A failing event synchronization: the reconfiguration will report the live events.
    }
  }
}

}  // namespace ctorch::api::memory
