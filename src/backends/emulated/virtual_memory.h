// Device virtual memory of the emulated runtime: the emulated side of impl::VirtualMemory
// (cuMemAddressReserve / cuMemCreate + cuMemMap / cuMemUnmap + cuMemRelease / cuMemAddressFree),
// which the caching allocator's expandable segments use.
//
// Note [Emulated virtual memory]
// - A reservation is two host ranges of the same size, both mmap'ed PROT_NONE with
//   MAP_NORESERVE (address space only): the device addresses, which stay inaccessible (a host
//   dereference faults, like dereferencing a GPU pointer), and a read-write alias that kernels
//   reach through translate() (alias = device address + a constant per reservation).
// - Mapping pages charges their bytes to the device's Arena (so OOM, mem_get_info and memory
//   fractions see them; raw allocations and mapped pages share the capacity), makes the alias
//   read-write (mprotect) and fills it with kFreshByte. Unmapping returns the pages to the host
//   (MADV_DONTNEED), makes them PROT_NONE again and uncharges them.
// - translate() accepts a range of a reservation only when all its pages are mapped: the bounds
//   are the mapped pages, as on a GPU (and as for tensors inside cached segments).
// - The runtime waits for the device's queued work before unmapping or releasing (as PyTorch
//   synchronizes before cuMemUnmap), except from a stream task.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <mutex>
#include <vector>

#include "backends/emulated/memory.h"
#include "ctorch/device.h"

namespace ctorch::inline api::backends::emulated {

/// The reservations of one emulated device (see Note [Emulated virtual memory]). Thread-safe.
class VirtualSpace {
 public:
  /// Reservations of device `index`, whose mapped pages are charged to `arena` (not owned).
  VirtualSpace(DeviceIndex index, Arena* arena) : index_(index), arena_(arena) {}
  /// Unmaps and releases every reservation.
  ~VirtualSpace();
  VirtualSpace(const VirtualSpace&) = delete;
  VirtualSpace& operator=(const VirtualSpace&) = delete;

  /// Reserves `bytes` (a multiple of `page_size`, itself of the host page) of device addresses;
  /// null when the host has no address space left. Throws ValueError for bad sizes.
  void* reserve(size_t bytes, size_t page_size);
  /// Maps the whole pages [base + offset, +bytes), filled with kFreshByte; false (nothing mapped)
  /// when the device's capacity does not allow it. Throws Error for a bad range.
  bool map(void* base, size_t offset, size_t bytes);
  /// Unmaps whole mapped pages; false (nothing done) for a bad range.
  bool unmap(void* base, size_t offset, size_t bytes) noexcept;
  /// Unmaps what is still mapped and frees the reservation; false when `base` is not one.
  bool release(void* base) noexcept;

  /// True when `p` lies in a reservation (mapped or not).
  bool contains(const void* p) const noexcept;
  /// Checks that [p, p + bytes) lies in mapped pages of one reservation.
  Lookup lookup(const void* p, size_t bytes) const;
  /// Number of reservations.
  size_t reservation_count() const;
  /// Bytes currently mapped.
  size_t mapped_bytes() const;

 private:
  enum PageState : char { kUnmapped = 0, kMapped = 1, kChanging = 2 };
  struct Reservation {
    char* base = nullptr;   // device addresses (PROT_NONE)
    char* alias = nullptr;  // what kernels touch
    size_t size = 0;
    size_t page = 0;
    std::vector<char> pages;  // PageState per page
  };

  Reservation* find_locked(const void* base);
  bool check_range_locked(const Reservation& r, size_t offset, size_t bytes, PageState expected) const;
  void set_locked(Reservation& r, size_t offset, size_t bytes, PageState state);
  static void unmap_alias(char* alias, size_t bytes) noexcept;

  const DeviceIndex index_;
  Arena* const arena_;
  mutable std::mutex mu_;
  std::map<uintptr_t, Reservation> reservations_;  // by device base; guarded by mu_
  size_t mapped_ = 0;                              // guarded by mu_
};

}  // namespace ctorch::api::backends::emulated
