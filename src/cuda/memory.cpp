// torch.cuda memory API over the allocator back-end in use (memory/allocator_backend.h: a pluggable
// allocator, cudaMallocAsync, or the native caching allocators). Each call checks what the back-end
// supports where PyTorch does, so the errors come in PyTorch's order.
#include "ctorch/cuda_memory.h"

#include <atomic>
#include <cstdio>

#include "ctorch/error.h"
#include "memory/allocator_backend.h"
#include "memory/memory_summary.h"
#include "memory/pinned_allocator.h"
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

int64_t stat(const DeviceArg& device, const char* key) {
  const auto stats = memory_stats(device);
  auto it = stats.find(key);
  return it == stats.end() ? 0 : it->second;
}

// The statistics of the back-end in use (getDeviceStats).
mem::DeviceStats device_stats(DeviceIndex idx) {
  mem::DeviceAllocatorBackend& b = mem::device_allocator_backend();
  mem::check_supports(b, mem::AllocatorApi::Stats, "getDeviceStats");
  return b.stats(idx);
}

// Keeps the caller's frame on the stack during the call before it: the allocation history's frames
// name caching_allocator_alloc / caching_allocator_delete, which a tail call would drop.
inline void not_a_tail_call() noexcept { std::atomic_signal_fence(std::memory_order_seq_cst); }

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
  mem::DeviceAllocatorBackend& b = mem::device_allocator_backend();
  mem::check_supports(b, mem::AllocatorApi::ResetPeakStats, "resetPeakStats");
  b.reset_peak_stats(allocator_index(device));
}
void reset_max_memory_allocated(DeviceArg device) { reset_peak_memory_stats(device); }
void reset_max_memory_cached(DeviceArg device) { reset_peak_memory_stats(device); }
void reset_accumulated_memory_stats(DeviceArg device) {
  mem::DeviceAllocatorBackend& b = mem::device_allocator_backend();
  mem::check_supports(b, mem::AllocatorApi::ResetAccumulatedStats, "resetAccumulatedStats");
  b.reset_accumulated_stats(allocator_index(device));
}

void empty_cache() { mem::empty_device_cache(is_initialized()); }

void set_per_process_memory_fraction(double fraction, DeviceArg device) {
  impl::lazy_init(DeviceType::CUDA);
  const DeviceIndex idx = allocator_index(device, /*optional=*/false);
  CTORCH_CHECK_VALUE(fraction >= 0.0 && fraction <= 1.0, "Invalid fraction value: ", fraction,
                     ". Allowed range: 0~1");
  mem::DeviceAllocatorBackend& b = mem::device_allocator_backend();
  mem::check_supports(b, mem::AllocatorApi::SetMemoryFraction, "setMemoryFraction");
  b.set_memory_fraction(fraction, idx);
}

double get_per_process_memory_fraction(DeviceArg device) {
  impl::lazy_init(DeviceType::CUDA);
  mem::DeviceAllocatorBackend& b = mem::device_allocator_backend();
  mem::check_supports(b, mem::AllocatorApi::GetMemoryFraction, "getMemoryFraction");
  return b.memory_fraction(allocator_index(device, /*optional=*/false));
}

void* caching_allocator_alloc(int64_t size, DeviceArg device, std::optional<::ctorch::Stream> stream) {
  // PyTorch allocates inside `with torch.cuda.device(device)`, where -1 is the current device.
  const int given = device.resolve(/*optional=*/false);
  const DeviceIndex idx = allocator_index(given < 0 ? DeviceArg() : DeviceArg(given));
  CTORCH_CHECK_VALUE(size >= 0, "Invalid memory size: ", size,
                     ". caching_allocator_alloc requires a non-negative size.");
  const Stream s = stream ? *stream : impl::current_stream(Device(DeviceType::CUDA, idx));
  if (size == 0) return nullptr;
  void* p = mem::device_allocator_backend().raw_alloc(idx, static_cast<size_t>(size), s);
  not_a_tail_call();
  return p;
}

void caching_allocator_delete(void* ptr) {
  if (ptr == nullptr) return;
  mem::device_allocator_backend().raw_delete(ptr);
  not_a_tail_call();
}

std::string get_allocator_backend() { return mem::device_allocator_backend().name(); }

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
