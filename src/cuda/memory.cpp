// torch.cuda memory API over the allocator backend in use: a pluggable allocator
// (memory/pluggable_allocator.h), cudaMallocAsync (memory/malloc_async_allocator.h), or the native
// caching allocators (memory/device_allocator.h), checked in that order.
#include "ctorch/cuda_memory.h"

#include <unistd.h>

#include <cstdio>

#include "ctorch/error.h"
#include "memory/device_allocator.h"
#include "memory/malloc_async_allocator.h"
#include "memory/memory_summary.h"
#include "memory/pinned_allocator.h"
#include "memory/pluggable_allocator.h"
#include "runtime/current.h"
#include "runtime/device_runtime.h"

namespace ctorch::cuda {

// ctorch::cuda::memory (history, pluggable allocators) hides ctorch::memory here.
namespace mem = ::ctorch::memory;
namespace {

// _get_device_index(device, optional) plus c10's assertValidDevice.
DeviceIndex allocator_index(const DeviceArg& device, bool optional = true) {
  const int idx = device.resolve(optional);
  const int count = impl::lazy_init(DeviceType::CUDA).device_count();
  CTORCH_CHECK_DEVICE(idx >= 0 && idx < count, "Invalid device argument ", idx, ": did you call init?");
  return static_cast<DeviceIndex>(idx);
}

mem::CachingAllocator& allocator(const DeviceArg& device, bool optional = true, const char* what = "getDeviceStats") {
  mem::check_native_allocator(what);
  return mem::cuda_caching_allocator(allocator_index(device, optional));
}

int64_t stat(const DeviceArg& device, const char* key) {
  const auto stats = memory_stats(device);
  auto it = stats.find(key);
  return it == stats.end() ? 0 : it->second;
}

// The statistics of the backend in use (getDeviceStats).
mem::DeviceStats device_stats(DeviceIndex idx) {
  if (auto* a = mem::malloc_async_backend()) return a->stats(idx);
  mem::check_native_allocator("getDeviceStats");
  return mem::cuda_caching_allocator(idx).stats();
}

}  // namespace

std::map<std::string, int64_t> memory_stats(DeviceArg device) {
  if (!is_initialized()) return {};
  return mem::flatten_stats(device_stats(allocator_index(device)));
}

int64_t memory_allocated(DeviceArg device) { return stat(device, "allocated_bytes.all.current"); }
int64_t max_memory_allocated(DeviceArg device) { return stat(device, "allocated_bytes.all.peak"); }
int64_t memory_reserved(DeviceArg device) { return stat(device, "reserved_bytes.all.current"); }
int64_t max_memory_reserved(DeviceArg device) { return stat(device, "reserved_bytes.all.peak"); }
int64_t memory_cached(DeviceArg device) { return memory_reserved(device); }
int64_t max_memory_cached(DeviceArg device) { return max_memory_reserved(device); }

void reset_peak_memory_stats(DeviceArg device) {
  if (auto* a = mem::malloc_async_backend()) return a->reset_peak_stats(allocator_index(device));
  allocator(device, true, "resetPeakStats").reset_peak_stats();
}
void reset_max_memory_allocated(DeviceArg device) { reset_peak_memory_stats(device); }
void reset_max_memory_cached(DeviceArg device) { reset_peak_memory_stats(device); }
void reset_accumulated_memory_stats(DeviceArg device) {
  if (auto* a = mem::malloc_async_backend()) return a->reset_accumulated_stats(allocator_index(device));
  allocator(device, true, "resetAccumulatedStats").reset_accumulated_stats();
}

void empty_cache() {
  if (auto* p = mem::current_pluggable()) {
    if (p->reset) p->reset();
    return;
  }
  if (!is_initialized()) return;
  if (auto* a = mem::malloc_async_backend()) return a->empty_cache();
  const int count = device_count();
  for (int i = 0; i < count; ++i) {
    if (mem::CachingAllocator* a = mem::existing_cuda_caching_allocator(static_cast<DeviceIndex>(i))) {
      a->empty_cache();
    }
  }
}

void set_per_process_memory_fraction(double fraction, DeviceArg device) {
  impl::lazy_init(DeviceType::CUDA);
  const DeviceIndex idx = allocator_index(device, /*optional=*/false);
  CTORCH_CHECK_VALUE(fraction >= 0.0 && fraction <= 1.0, "Invalid fraction value: ", fraction,
                     ". Allowed range: 0~1");
  if (auto* a = mem::malloc_async_backend()) return a->set_memory_fraction(fraction, idx);
  mem::check_native_allocator("setMemoryFraction");
  mem::cuda_caching_allocator(idx).set_memory_fraction(fraction);
}

double get_per_process_memory_fraction(DeviceArg device) {
  impl::lazy_init(DeviceType::CUDA);
  CTORCH_CHECK(mem::malloc_async_backend() == nullptr, "cudaMallocAsync does not yet support getMemoryFraction. If "
               "you need it, please file an issue describing your use case.");
  return allocator(device, /*optional=*/false, "getMemoryFraction").memory_fraction();
}

void* caching_allocator_alloc(int64_t size, DeviceArg device, std::optional<::ctorch::Stream> stream) {
  // PyTorch allocates inside `with torch.cuda.device(device)`, where -1 is the current device.
  const int given = device.resolve(/*optional=*/false);
  const DeviceIndex idx = allocator_index(given < 0 ? DeviceArg() : DeviceArg(given));
  CTORCH_CHECK_VALUE(size >= 0, "Invalid memory size: ", size,
                     ". caching_allocator_alloc requires a non-negative size.");
  const Stream s = stream ? *stream : impl::current_stream(Device(DeviceType::CUDA, idx));
  if (size == 0) return nullptr;
  if (auto* p = mem::current_pluggable()) return mem::pluggable_raw_alloc(*p, idx, static_cast<size_t>(size), s);
  if (auto* a = mem::malloc_async_backend()) return a->raw_alloc(idx, static_cast<size_t>(size), s);
  CTORCH_CHECK(!mem::cuda_caching_disabled(),
               "caching_allocator_alloc: the caching allocator is disabled (PYTORCH_NO_CUDA_MEMORY_CACHING)");
  return mem::cuda_caching_allocator(idx).raw_alloc(static_cast<size_t>(size), s);
}

void caching_allocator_delete(void* ptr) {
  if (ptr == nullptr) return;
  if (auto* p = mem::current_pluggable()) return mem::pluggable_raw_free(*p, ptr);
  if (auto* a = mem::malloc_async_backend()) return a->raw_delete(ptr);
  if (is_initialized()) {
    const int count = device_count();
    for (int i = 0; i < count; ++i) {
      mem::CachingAllocator* a = mem::existing_cuda_caching_allocator(static_cast<DeviceIndex>(i));
      if (a == nullptr) continue;
      if (a->free_ptr(ptr)) return;
    }
  }
  CTORCH_CHECK(false, "invalid device pointer: ", ptr);
}

std::string get_allocator_backend() {
  if (mem::current_pluggable()) return "pluggable";
  return mem::malloc_async_backend() ? "cudaMallocAsync" : "native";
}

std::string list_gpu_processes(DeviceArg device) {
  const DeviceIndex idx = allocator_index(device);
  std::string out = detail::str_cat("GPU:", static_cast<int>(idx));
  // No NVML: the one process ctorch can see is this one, holding what its allocator reserved.
  int64_t reserved = 0;
  constexpr auto kAll = static_cast<size_t>(mem::StatType::kAggregate);
  if (auto* async = mem::malloc_async_backend()) {
    reserved = async->stats(idx).reserved_bytes[kAll].current;
  } else if (const mem::CachingAllocator* a =
                 mem::current_pluggable() ? nullptr : mem::existing_cuda_caching_allocator(idx)) {
    reserved = a->stats().reserved_bytes[kAll].current;
  }
  if (reserved == 0) return out + "\nno processes are running";
  char buf[96];
  std::snprintf(buf, sizeof buf, "\nprocess %10d uses %12.3f MB GPU memory", static_cast<int>(::getpid()),
                static_cast<double>(reserved) / (1024.0 * 1024.0));
  return out + buf;
}

std::map<std::string, int64_t> host_memory_stats() {
  if (mem::CachingHostAllocator* a = mem::existing_host_caching_allocator()) {
    return mem::flatten_host_stats(a->stats());
  }
  return mem::flatten_host_stats(mem::HostStats{});
}

void host_empty_cache() {
  if (mem::CachingHostAllocator* a = mem::existing_host_caching_allocator()) a->empty_cache();
}

void reset_peak_host_memory_stats() {
  if (mem::CachingHostAllocator* a = mem::existing_host_caching_allocator()) a->reset_peak_stats();
}

void reset_accumulated_host_memory_stats() {
  if (mem::CachingHostAllocator* a = mem::existing_host_caching_allocator()) a->reset_accumulated_stats();
}

std::string memory_summary(DeviceArg device, bool abbreviated) {
  const DeviceIndex idx = allocator_index(device);
  return mem::format_memory_summary(mem::flatten_stats(device_stats(idx)), idx, abbreviated);
}

}  // namespace ctorch::cuda
