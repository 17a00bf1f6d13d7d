// ctorch::cuda memory API (torch.cuda.memory): statistics and control of the device caching
// allocator. Same names, defaults and errors as PyTorch; works on real and emulated devices.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "ctorch/cuda.h"
#include "ctorch/stream.h"

namespace ctorch::cuda {

/// Bytes held by live tensors on `device` (rounded block sizes; allocated_bytes.all.current).
int64_t memory_allocated(DeviceArg device = {});
/// Peak of memory_allocated since start or the last reset_peak_memory_stats.
int64_t max_memory_allocated(DeviceArg device = {});
/// Bytes the caching allocator holds from the device (reserved_bytes.all.current).
int64_t memory_reserved(DeviceArg device = {});
/// Peak of memory_reserved since start or the last reset_peak_memory_stats.
int64_t max_memory_reserved(DeviceArg device = {});
/// Deprecated alias of memory_reserved (PyTorch warns).
[[deprecated("memory_cached has been renamed to memory_reserved")]] int64_t memory_cached(DeviceArg device = {});
/// Deprecated alias of max_memory_reserved (PyTorch warns).
[[deprecated("max_memory_cached has been renamed to max_memory_reserved")]] int64_t max_memory_cached(
    DeviceArg device = {});
/// Sets every "peak" statistic of `device` to its current value.
void reset_peak_memory_stats(DeviceArg device = {});
/// Deprecated: same as reset_peak_memory_stats (PyTorch warns).
[[deprecated("reset_max_memory_allocated now calls reset_peak_memory_stats")]] void reset_max_memory_allocated(
    DeviceArg device = {});
/// Deprecated: same as reset_peak_memory_stats (PyTorch warns).
[[deprecated("reset_max_memory_cached now calls reset_peak_memory_stats")]] void reset_max_memory_cached(
    DeviceArg device = {});
/// Zeroes the "allocated"/"freed" totals and the num_* counters of `device`.
void reset_accumulated_memory_stats(DeviceArg device = {});
/// The allocator statistics of `device`, flattened and sorted by key as PyTorch
/// ("allocated_bytes.all.current", "num_ooms", ...); empty before CUDA is initialized.
std::map<std::string, int64_t> memory_stats(DeviceArg device = {});
/// Returns every unused cached block of every device to the device (no-op before initialization).
void empty_cache();
/// Caps the memory the allocator may reserve on `device` at fraction * total memory; fraction in [0, 1].
void set_per_process_memory_fraction(double fraction, DeviceArg device = {});
/// The fraction set for `device` (1.0 when none).
double get_per_process_memory_fraction(DeviceArg device = {});
/// `size` bytes from the caching allocator of `device` for use on `stream` (default: the current
/// stream of that device); null for size 0. Free with caching_allocator_delete.
void* caching_allocator_alloc(int64_t size, DeviceArg device = {}, std::optional<::ctorch::Stream> stream = std::nullopt);
/// Frees memory from caching_allocator_alloc; throws "invalid device pointer" for anything else.
void caching_allocator_delete(void* ptr);
/// The allocator backend in use: "native", "cudaMallocAsync" (PYTORCH_CUDA_ALLOC_CONF=backend:cudaMallocAsync),
/// or "pluggable" after change_current_allocator.
std::string get_allocator_backend();
/// Statistics of the pinned host memory cache, flattened and sorted (torch.cuda.host_memory_stats):
/// allocations/allocated_bytes/active_requests/active_bytes.{current,peak,allocated,freed},
/// num_host_alloc, num_host_free, host_alloc_time/host_free_time.{total,max,min,count,avg} (us).
std::map<std::string, int64_t> host_memory_stats();
/// Returns every free cached pinned block to the system (torch._C._host_emptyCache).
void host_empty_cache();
/// peak = current for the pinned host statistics.
void reset_peak_host_memory_stats();
/// Zeroes the accumulated pinned host statistics and counters.
void reset_accumulated_host_memory_stats();
/// The processes using `device` as torch.cuda.list_gpu_processes prints them ("GPU:0" then one
/// "process <pid> uses <MB> MB GPU memory" line, or "no processes are running"). Without NVML,
/// ctorch reports this process (with its caching allocator's reserved bytes) while it holds memory there.
std::string list_gpu_processes(DeviceArg device = {});
/// PyTorch's human-readable table of memory_stats(device) (torch.cuda.memory_summary), byte for
/// byte; `abbreviated` leaves out the large/small pool rows.
std::string memory_summary(DeviceArg device = {}, bool abbreviated = false);

}  // namespace ctorch::cuda
