// backend:cudaMallocAsync. Policy: Note [cudaMallocAsync backend] in malloc_async_allocator.h.
#include "memory/malloc_async_allocator.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdint>
#include <iostream>
#include <mutex>
#include <unordered_map>
#include <utility>
#include <vector>

#include "ctorch/error.h"
#include "memory/allocator_config.h"
#include "memory/pluggable_allocator.h"
#include "runtime/current.h"
#include "runtime/device_runtime.h"
#include "memory/allocation_observer.h"

namespace ctorch::inline api::memory {
namespace {

constexpr uint64_t kNoLimit = UINT64_MAX;

// One live allocation (PyTorch's PtrUsage).
struct PtrUsage {
  impl::DeviceRuntime* runtime;  // the runtime it came from
  size_t size;                   // requested bytes
  Stream creation;               // allocation stream (its device is the allocation's)
  std::vector<Stream> recorded;  // record_stream streams other than `creation`, each once
};

// Per-device state, set up at the device's first use.
struct DeviceSlot {
  bool initialized = false;
  impl::DeviceRuntime* runtime = nullptr;
  Stream unifier = Stream(Device(DeviceType::CUDA, 0), 0);  // the "unifying" free stream
  uint64_t used = 0;                                          // requested bytes live (pytorch_used_bytes)
  uint64_t limit = kNoLimit;                                  // pytorch_memory_limits
};

std::mutex g_mutex;  // guards everything below (PyTorch's general_mutex)
std::unordered_map<void*, PtrUsage> g_ptrs;
std::array<DeviceSlot, impl::kMaxDevices> g_devices;
std::atomic<bool> g_initialized{false};
MallocAsyncAllocator g_allocator;

void warn_once(std::once_flag& once, const char* text) {
  std::call_once(once, [text] { std::cerr << "[W ctorch] " << text << "\n"; });
}

impl::StreamOrderedMemory& pool_api(impl::DeviceRuntime& rt) {
  impl::StreamOrderedMemory* so = impl::stream_ordered_memory(rt);
  CTORCH_CHECK(so != nullptr, "backend:cudaMallocAsync needs a stream-ordered allocator (cudaMallocAsync), which "
               "this CUDA runtime does not provide");
  return *so;
}

void check_device(DeviceIndex index) {
  const int count = impl::require_runtime(DeviceType::CUDA).device_count();
  CTORCH_CHECK_DEVICE(index >= 0 && index < count, "Invalid device argument ", static_cast<int>(index),
                      ": expected a device index in [0, ", count, ")");
}

void reset_hook() { g_allocator.reset(); }

// Caller holds g_mutex. PyTorch's lazy_init_device.
DeviceSlot& lazy_init_device_locked(DeviceIndex index) {
  check_device(index);
  impl::DeviceRuntime* rt = &impl::require_runtime(DeviceType::CUDA);
  DeviceSlot& d = g_devices[static_cast<size_t>(index)];
  if (d.initialized && d.runtime == rt) return d;
  if (d.initialized) {
    // The runtime was replaced without the reset hooks (a test registering its own runtime).
    const bool live = std::any_of(g_ptrs.begin(), g_ptrs.end(),
                                  [&](const auto& p) { return p.second.creation.device().index() == index; });
    CTORCH_CHECK(!live, "[cudaMallocAsync] the CUDA runtime was replaced while memory of cuda:",
                 static_cast<int>(index), " allocated from the previous runtime is still alive");
  }
  impl::StreamOrderedMemory& so = pool_api(*rt);
  so.set_pool_release_threshold(index, kNoLimit);  // freed memory stays in the pool
  const Stream unifier = rt->create_stream(index, 0);
  d = DeviceSlot{true, rt, unifier, 0, kNoLimit};
  impl::add_runtime_reset_hook(DeviceType::CUDA, &reset_hook);
  g_initialized.store(true, std::memory_order_release);
  return d;
}

// Caller holds g_mutex. Makes `dependent` wait for the work queued on `dependency` so far.
void sync_raw(impl::DeviceRuntime& rt, Stream dependency, Stream dependent) {
  impl::EventHandle e = rt.create_event(dependency.device().index(), impl::EventFlags{});
  try {
    rt.record_event(e, dependency);
    rt.wait_event(dependent, e);
  } catch (...) {
    rt.destroy_event(e);
    throw;
  }
  rt.destroy_event(e);
}

// Caller holds g_mutex. PyTorch's mallocAsync.
void* malloc_async_locked(DeviceIndex index, size_t size, Stream s) {
  CTORCH_CHECK_VALUE(s.device() == Device(DeviceType::CUDA, index), "[cudaMallocAsync] Expected a stream of cuda:",
                     static_cast<int>(index), ", but got ", s);
  DeviceSlot& d = lazy_init_device_locked(index);
  void* p = nullptr;
  if (d.used + size <= d.limit && size <= d.limit) p = pool_api(*d.runtime).allocate_async(index, size, s);
  if (p == nullptr) {
    size_t device_free = 0, device_total = 0;
    d.runtime->memory_info(index, &device_free, &device_total);
    throw OutOfMemoryError(detail::str_cat(
        "Allocation on device ", static_cast<int>(index), " would exceed allowed memory. (out of memory)",
        "\nCurrently allocated     : ", format_size(d.used), "\nRequested               : ", format_size(size),
        "\nDevice limit            : ", format_size(device_total),
        "\nFree (according to CUDA): ", format_size(device_free),
        "\nPyTorch limit (set by user-supplied memory fraction)", "\n                        : ",
        format_size(d.limit)));
  }
  try {
    const bool inserted = g_ptrs.emplace(p, PtrUsage{d.runtime, size, s, {}}).second;
    CTORCH_INTERNAL_ASSERT(inserted, "address returned by cudaMallocAsync already exists in ptr_info");
  } catch (...) {
    pool_api(*d.runtime).free_async(index, p, s);
    throw;
  }
  d.used += size;
  return p;
}

// Caller holds g_mutex. PyTorch's free_impl.
void free_locked(std::unordered_map<void*, PtrUsage>::iterator it) {
  const PtrUsage& u = it->second;
  const DeviceIndex index = u.creation.device().index();
  impl::DeviceRuntime& rt = *u.runtime;
  impl::StreamOrderedMemory& so = pool_api(rt);
  if (u.recorded.empty()) {
    so.free_async(index, it->first, u.creation);
  } else {
    // Used on several streams: the unifying stream waits for all of them and frees.
    const Stream unifier = g_devices[static_cast<size_t>(index)].unifier;
    sync_raw(rt, u.creation, unifier);
    for (const Stream& r : u.recorded) sync_raw(rt, r, unifier);
    so.free_async(index, it->first, unifier);
  }
  g_devices[static_cast<size_t>(index)].used -= u.size;
  g_ptrs.erase(it);
}

// (index, runtime) of the initialized devices.
std::vector<std::pair<DeviceIndex, impl::DeviceRuntime*>> initialized_devices() {
  std::vector<std::pair<DeviceIndex, impl::DeviceRuntime*>> out;
  std::lock_guard<std::mutex> lock(g_mutex);
  for (size_t i = 0; i < g_devices.size(); ++i) {
    if (g_devices[i].initialized) out.emplace_back(static_cast<DeviceIndex>(i), g_devices[i].runtime);
  }
  return out;
}

void free_async_data(void* ctx) {
  if (AllocationObserver* o = allocation_observer()) o->freed(ctx, /*reusable=*/true);
  try {
    std::lock_guard<std::mutex> lock(g_mutex);
    auto it = g_ptrs.find(ctx);
    if (it != g_ptrs.end()) free_locked(it);
  } catch (...) {
    // A deleter must not throw; a failing free leaves the block to the pool's owner (as a leak).
  }
}

}  // namespace

DataPtr MallocAsyncAllocator::allocate(DeviceIndex index, size_t nbytes, Stream s) {
  constexpr size_t kOneExaByte = size_t{1} << 60;
  if (nbytes >= kOneExaByte) throw OutOfMemoryError("CUDA out of memory. Tried to allocate more than 1EB memory.");
  const Device device(DeviceType::CUDA, index);
  if (nbytes == 0) return DataPtr(nullptr, nullptr, nullptr, device);
  std::lock_guard<std::mutex> lock(g_mutex);
  void* p = malloc_async_locked(index, nbytes, s);
  return DataPtr(p, p, &free_async_data, device);
}

void* MallocAsyncAllocator::raw_alloc(DeviceIndex index, size_t nbytes, Stream s) {
  if (nbytes == 0) return nullptr;
  std::lock_guard<std::mutex> lock(g_mutex);
  return malloc_async_locked(index, nbytes, s);
}

void MallocAsyncAllocator::raw_delete(void* ptr) {
  std::lock_guard<std::mutex> lock(g_mutex);
  auto it = g_ptrs.find(ptr);
  CTORCH_CHECK(it != g_ptrs.end(), "invalid device pointer: ", ptr,
               " (not an allocation of backend:cudaMallocAsync: ptr not found in ptr_info)");
  free_locked(it);
}

void MallocAsyncAllocator::record_stream(const DataPtr& data, Stream s) {
  if (data.get() == nullptr) return;  // empty storage: nothing to protect
  static std::once_flag same_stream;
  std::lock_guard<std::mutex> lock(g_mutex);
  auto it = g_ptrs.find(data.get());
  CTORCH_INTERNAL_ASSERT(it != g_ptrs.end(), "ptr not found in ptr_info");
  std::vector<Stream>& recorded = it->second.recorded;
  if (s == it->second.creation) {
    warn_once(same_stream, "Called record_stream on tensor whose original creation stream matches the recorded "
                           "stream. This is unnecessary and has no effect.");
  } else if (std::find(recorded.begin(), recorded.end(), s) == recorded.end()) {
    recorded.push_back(s);
  }
}

DeviceStats MallocAsyncAllocator::stats(DeviceIndex index) {
  check_device(index);
  impl::PoolAttributes a;
  {
    std::lock_guard<std::mutex> lock(g_mutex);
    const DeviceSlot& d = g_devices[static_cast<size_t>(index)];
    if (d.initialized && d.runtime == impl::runtime_for(DeviceType::CUDA)) {
      a = pool_api(*d.runtime).pool_attributes(index);
    }
  }
  DeviceStats s;
  s.max_split_size = 0;  // PyTorch leaves DeviceStats' default for this backend
  constexpr auto kAll = static_cast<size_t>(StatType::kAggregate);
  s.allocated_bytes[kAll].current = s.active_bytes[kAll].current = static_cast<int64_t>(a.used_current);
  s.allocated_bytes[kAll].peak = s.active_bytes[kAll].peak = static_cast<int64_t>(a.used_high);
  s.reserved_bytes[kAll].current = static_cast<int64_t>(a.reserved_current);
  s.reserved_bytes[kAll].peak = static_cast<int64_t>(a.reserved_high);
  return s;
}

void MallocAsyncAllocator::reset_peak_stats(DeviceIndex index) {
  check_device(index);
  pool_api(impl::require_runtime(DeviceType::CUDA)).reset_pool_peaks(index);
}

void MallocAsyncAllocator::reset_accumulated_stats(DeviceIndex index) {
  check_device(index);
  static std::once_flag once;
  warn_once(once, "For backend:cudaMallocAsync, resetAccumulatedStats has no effect.");
}

void MallocAsyncAllocator::empty_cache() {
  // g_mutex is not held while synchronizing: a deleter running on a stream's thread may need it.
  for (const auto& [index, rt] : initialized_devices()) {
    if (rt != impl::runtime_for(DeviceType::CUDA)) continue;
    try {
      rt->synchronize_device(index);  // unchecked in PyTorch: a sticky error surfaces later
    } catch (const Error&) {
    }
    pool_api(*rt).trim_pool_to(index, 0);
  }
}

void MallocAsyncAllocator::set_memory_fraction(double fraction, DeviceIndex index) {
  CTORCH_CHECK_VALUE(fraction >= 0.0 && fraction <= 1.0, "invalid fraction:", fraction, ". Please set within (0, 1).");
  std::lock_guard<std::mutex> lock(g_mutex);
  DeviceSlot& d = lazy_init_device_locked(index);
  size_t device_free = 0, device_total = 0;
  d.runtime->memory_info(index, &device_free, &device_total);
  d.limit = static_cast<uint64_t>(fraction * static_cast<double>(device_total));
}

bool MallocAsyncAllocator::initialized() const noexcept { return g_initialized.load(std::memory_order_acquire); }

void MallocAsyncAllocator::reset() noexcept {
  try {
    for (const auto& [index, rt] : initialized_devices()) {
      try {
        rt->synchronize_device(index);
      } catch (...) {
      }
      try {
        pool_api(*rt).trim_pool_to(index, 0);
      } catch (...) {
      }
    }
  } catch (...) {
    // Only the copy of the device list can fail (bad_alloc): nothing was changed.
  }
  std::lock_guard<std::mutex> lock(g_mutex);
  for (size_t i = 0; i < g_devices.size(); ++i) {
    DeviceSlot& d = g_devices[i];
    const auto index = static_cast<DeviceIndex>(i);
    const bool live = std::any_of(g_ptrs.begin(), g_ptrs.end(),
                                  [&](const auto& p) { return p.second.creation.device().index() == index; });
    if (d.initialized && !live) d = DeviceSlot{};  // set up again, for the new runtime, at the next use
  }
}

MallocAsyncAllocator* malloc_async_backend() {
  // -1: not decided yet; 0: native; 1: cudaMallocAsync. Decided once (the config is read once).
  static std::atomic<int> selected{-1};
  int v = selected.load(std::memory_order_acquire);
  if (v < 0) {
    static std::mutex mu;
    std::lock_guard<std::mutex> lock(mu);
    v = selected.load(std::memory_order_relaxed);
    if (v < 0) {
      const AllocatorConfig& c = device_allocator_config();
      v = c.backend == "cudaMallocAsync" ? 1 : 0;
      if (v == 1 && c.used_native_specific_option) {
        std::cerr << "[W ctorch] backend:cudaMallocAsync ignores max_split_size_mb,roundup_power2_divisions, and "
                     "garbage_collect_threshold.\n";
      }
      selected.store(v, std::memory_order_release);
    }
  }
  return v == 1 && current_pluggable() == nullptr ? &g_allocator : nullptr;
}

MallocAsyncAllocator& malloc_async_allocator() noexcept { return g_allocator; }

bool is_malloc_async_data(const DataPtr& data) noexcept { return data.deleter() == &free_async_data; }

bool malloc_async_initialized() noexcept { return g_initialized.load(std::memory_order_acquire); }

}  // namespace ctorch::api::memory
