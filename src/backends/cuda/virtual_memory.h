// Device virtual memory of the real CUDA runtime: impl::VirtualMemory over the driver's VMM API,
// for the caching allocator's expandable segments. Plain C++: no CUDA headers.
//
// Note [CUDA virtual memory]
// - reserve: cuMemAddressReserve. map: one cuMemCreate'd physical allocation per page (pinned
//   device memory of the reservation's device; as PyTorch's ExpandableSegment, so that single
//   pages can be unmapped later), cuMemMap of each, then cuMemSetAccess read-write for the device.
//   CUDA_ERROR_OUT_OF_MEMORY from cuMemCreate releases the pages created so far and reports
//   "out of memory" (false); other driver errors throw. unmap: cudaDeviceSynchronize (cuMemUnmap
//   does not wait for queued work), cuMemUnmap + cuMemRelease per page. release: cuMemAddressFree.
// - The driver entry points come from cudaGetDriverEntryPointByVersion, so libctorch links only
//   cudart (no libcuda at build time); without them reserve gives null and the allocator falls
//   back to fixed segments.
// - Not done: access for peer devices (PyTorch's ExpandableSegment::addPeer), IPC handles.
// - Compiled in CI; it has never run on a GPU.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <mutex>
#include <vector>

#include "runtime/device_runtime.h"

namespace ctorch::inline api::backends::cuda {

/// impl::VirtualMemory over the CUDA driver (see Note [CUDA virtual memory]). Thread-safe.
class CudaVirtualMemory : public impl::VirtualMemory {
 public:
  /// Reserves device address space (cuMemAddressReserve); null when the driver API is unavailable
  /// or no address space is left. Throws ValueError when `page_size` is not a multiple of the
  /// device's allocation granularity.
  void* reserve_address_range(DeviceIndex index, size_t bytes, size_t page_size) override;
  /// cuMemCreate + cuMemMap per page, cuMemSetAccess; false when the device is out of memory.
  bool map_pages(DeviceIndex index, void* base, size_t offset, size_t bytes) override;
  /// cudaDeviceSynchronize, then cuMemUnmap + cuMemRelease per page; errors are swallowed.
  void unmap_pages(DeviceIndex index, void* base, size_t offset, size_t bytes) noexcept override;
  /// Unmaps what is left, then cuMemAddressFree; errors are swallowed.
  void release_address_range(DeviceIndex index, void* base) noexcept override;

 private:
  struct Reservation {
    DeviceIndex device = 0;
    size_t size = 0;
    size_t page = 0;
    std::vector<uint64_t> handles;  // CUmemGenericAllocationHandle per page; 0 = unmapped
  };
  void unmap_locked(Reservation& r, uintptr_t base, size_t first, size_t last) noexcept;

  std::mutex mu_;
  std::map<uintptr_t, Reservation> reservations_;  // by base address; guarded by mu_
};

}  // namespace ctorch::api::backends::cuda
