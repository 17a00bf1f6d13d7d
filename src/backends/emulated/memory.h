// Device memory of the emulated runtime: one Arena per device, plus the pinned-host registry.
//
// Note [Emulated device memory]
// Each device owns a memfd of `capacity` bytes (sparse: nothing is committed until touched),
// mapped twice: a PROT_NONE mapping whose addresses are the device pointers handed to users (a
// host dereference faults with SIGSEGV, like dereferencing a GPU pointer), and a read-write
// alias that kernels use. alias = device pointer + a constant offset per device.
//
// Sub-allocation: best fit over a free list ordered by size (lowest offset among equal sizes),
// 512-byte granularity, coalescing with both neighbours on free. Beyond capacity (or when no
// free block is large enough) allocate() throws OutOfMemoryError.
//
// Patterns: fresh allocations are filled with kFreshByte (0xA5) through the alias, so code that
// expects zeroed memory fails. Freed blocks are filled with kPoisonByte (0xDB) and quarantined.
// The quarantine keeps the most recent kQuarantineBytes of freed memory per device poisoned and
// committed; when it grows past that, the oldest entries have their pages (widened to page
// boundaries, where still free) released with fallocate(PUNCH_HOLE); they then read as zero.
// A single free larger than the quarantine skips the fill of its page-aligned interior and is
// released at once. So committed memory stays at most live bytes + kQuarantineBytes + partial
// pages. Filling fresh memory commits it: an allocation costs a memset of its size.
//
// Mapped virtual memory (virtual_memory.h) is charged to the arena: charge() counts it against
// the capacity, so raw allocations and mapped pages share the device's memory.
//
// Liveness: a registry of live allocations answers translate() (is [p, p+n) inside ONE live
// allocation? then the alias pointer) with the requested size as bound, so even the padding up
// to 512 bytes is out of bounds.
#pragma once

#include <cinttypes>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <deque>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <utility>

#include "ctorch/device.h"
#include "memory/allocator_config.h"

namespace ctorch::inline api::backends::emulated {

/// `p` as "0x..." for error messages about device pointers.
inline std::string hex(const void* p) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "0x%" PRIxPTR, reinterpret_cast<uintptr_t>(p));
  return buf;
}

/// Allocation granularity and alignment of device memory.
inline constexpr size_t kDeviceAlignment = 512;
/// Byte pattern of freshly allocated device memory.
inline constexpr unsigned char kFreshByte = 0xA5;
/// Byte pattern of freed device memory.
inline constexpr unsigned char kPoisonByte = 0xDB;
/// Freed bytes per device that stay poisoned before pages are released.
inline constexpr size_t kQuarantineBytes = size_t{64} << 20;

using ::ctorch::memory::format_size;  // PyTorch's format_size, shared with the caching allocator

/// Result of looking up a device address range in an arena.
struct Lookup {
  bool ok = false;      // the range lies inside one live allocation
  size_t offset = 0;    // offset of the range start within the arena (or reservation)
  char* alias = nullptr;  // the read-write alias of the range start
  std::string reason;   // why not, when !ok
};

/// The memory of one emulated device (see Note [Emulated device memory]).
class Arena {
 public:
  /// Maps `capacity` bytes (rounded up to pages) for device `index`; throws Error on failure.
  Arena(DeviceIndex index, size_t capacity);
  /// Unmaps everything (live allocations included).
  ~Arena();
  Arena(const Arena&) = delete;
  Arena& operator=(const Arena&) = delete;

  /// `bytes` (> 0) of fresh (0xA5) memory; throws OutOfMemoryError when nothing fits.
  void* allocate(size_t bytes);
  /// Frees a pointer from allocate(); false (nothing done) when it is not a live allocation.
  bool deallocate(const void* ptr) noexcept;
  /// True when `p` lies in this arena's device range (live or not).
  bool contains(const void* p) const noexcept {
    auto a = reinterpret_cast<uintptr_t>(p), b = reinterpret_cast<uintptr_t>(base_);
    return a >= b && a - b < capacity_;
  }
  /// Checks that [p, p + bytes) lies inside one live allocation.
  Lookup lookup(const void* p, size_t bytes) const;
  /// The live allocation containing `p`: its arena offset and requested size; false when none.
  bool allocation_of(const void* p, size_t* offset, size_t* requested) const;
  /// The memfd behind the arena (interprocess handles name it; Note [Emulated interprocess memory]).
  int fd() const noexcept { return fd_; }
  /// A random number in the memfd's name, so that an interprocess handle names exactly this arena.
  uint64_t nonce() const noexcept { return nonce_; }
  /// The read-write alias of arena offset `offset`.
  char* alias_at(size_t offset) const noexcept { return alias_ + offset; }

  /// Capacity in bytes.
  size_t capacity() const noexcept { return capacity_; }
  /// Bytes in use: live allocations (rounded to kDeviceAlignment) plus charged (mapped) bytes.
  size_t in_use() const;
  /// Counts `bytes` of mapped virtual memory against the capacity; false when they do not fit.
  bool charge(size_t bytes);
  /// Returns bytes counted by charge(); must not throw.
  void uncharge(size_t bytes) noexcept;
  /// Number of live allocations.
  size_t live_count() const;
  /// Physical bytes currently backing the arena (memfd blocks).
  size_t committed_bytes() const;

 private:
  struct Block {
    size_t size;       // rounded size
    size_t requested;  // bytes asked for (the bound translate checks)
  };

  void insert_free_locked(size_t offset, size_t size);
  void erase_free_locked(std::map<size_t, size_t>::iterator it);
  void punch(size_t offset, size_t size) noexcept;
  void release_quarantine_locked() noexcept;

  const DeviceIndex index_;
  size_t capacity_ = 0;
  int fd_ = -1;
  uint64_t nonce_ = 0;
  char* base_ = nullptr;   // PROT_NONE mapping: device addresses
  char* alias_ = nullptr;  // read-write mapping of the same memfd

  mutable std::mutex mu_;
  // Guarded by mu_:
  std::map<size_t, size_t> free_by_offset_;          // offset -> size
  std::set<std::pair<size_t, size_t>> free_by_size_;  // (size, offset)
  std::map<size_t, Block> live_;                      // offset -> block
  std::deque<std::pair<size_t, size_t>> quarantine_;  // (offset, size), oldest first
  size_t quarantined_ = 0;
  size_t in_use_ = 0;
  size_t charged_ = 0;  // mapped virtual memory (charge/uncharge)
};

/// Page-aligned host memory handed out by pinned_allocate, and the lookup is_pinned needs.
class PinnedRegistry {
 public:
  PinnedRegistry() = default;
  /// Unmaps whatever is still allocated.
  ~PinnedRegistry();
  /// `bytes` (> 0) of page-aligned host memory; throws OutOfMemoryError.
  void* allocate(size_t bytes);
  /// Frees memory from allocate(); false when `p` is not a pinned allocation.
  bool deallocate(void* p) noexcept;
  /// True when [p, p + bytes) lies inside one pinned allocation.
  bool contains(const void* p, size_t bytes = 1) const;
  /// Number of live pinned allocations.
  size_t live_count() const;

 private:
  mutable std::mutex mu_;
  std::map<uintptr_t, size_t> blocks_;  // start -> mapped size; guarded by mu_
};

/// Copies `bytes` from `src` to `dst` (host aliases of device memory, or host memory) as a copy
/// engine would; overlapping ranges are allowed. Note [Copy chunks] in memory.cpp.
void copy_bytes(void* dst, const void* src, size_t bytes);

}  // namespace ctorch::api::backends::emulated
