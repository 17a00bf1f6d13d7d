// Interprocess device memory of the emulated runtime (private to backends/emulated).
//
// Note [Emulated interprocess memory]
// An emulated device's memory is one memfd (Note [Emulated device memory]), so an allocation can
// be shared as cudaIpcGetMemHandle shares one: the 64-byte handle names the exporter's memfd by
// (pid, fd number, the arena's nonce, which is in the memfd's name) plus the allocation's arena
// offset and size and a hash of the device UUID. Opening it maps the allocation's pages of
// /proc/<pid>/fd/<fd> twice, as an arena maps its memfd: a PROT_NONE range whose addresses are the
// device pointers (a host dereference faults) and a read-write alias for kernels. The mapping is
// registered as imported memory of the opening device, so kernels, copies and memsets of that
// device (or of its peers) reach it through translate() like the device's own allocations. Opening
// a handle already open in this process returns the same pointer and counts a reference; close
// unmaps at the last reference, after the device's queued work. As CUDA: a process cannot open its
// own handles, and the device must be the allocation's (same UUID). Unlike CUDA: opening does not
// check that the allocation is still live in the exporter (the exporter keeps it alive, as
// torch.multiprocessing does); after the exporter frees it the opener reads the poison pattern.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <map>
#include <mutex>

#include "backends/emulated/memory.h"
#include "runtime/device_runtime.h"

namespace ctorch::inline api::backends::emulated {

/// The handle of arena allocation [offset, offset + size) of a device whose UUID is `uuid`.
impl::IpcMemBytes make_ipc_mem_handle(const Arena& arena, size_t offset, size_t size, const std::string& uuid);

/// Allocations of other processes mapped into one device (see the Note above). Thread-safe.
class IpcImports {
 public:
  IpcImports() = default;
  /// Unmaps every import.
  ~IpcImports();
  IpcImports(const IpcImports&) = delete;
  IpcImports& operator=(const IpcImports&) = delete;

  /// Maps the allocation `handle` names (or counts another reference); returns its device
  /// pointer. Throws ValueError for a malformed handle, Error when it cannot be opened here.
  void* open(const impl::IpcMemBytes& handle, const std::string& uuid);
  /// Drops a reference of `base` (from open), unmapping at the last; false when it is not open.
  bool close(void* base) noexcept;
  /// True when `p` lies in an imported range.
  bool contains(const void* p) const noexcept;
  /// Checks that [p, p + bytes) lies inside one import.
  Lookup lookup(const void* p, size_t bytes) const;
  /// Number of open imports.
  size_t count() const noexcept { return count_.load(std::memory_order_acquire); }

 private:
  struct Import {
    char* base = nullptr;   // PROT_NONE mapping (device addresses), page aligned
    char* alias = nullptr;  // read-write mapping of the same pages
    size_t mapped = 0;      // bytes of each mapping
    size_t start = 0;       // offset of the allocation within the mapping
    size_t size = 0;        // the allocation's bytes
    uint64_t key = 0;       // identifies the exporter's allocation (pid, nonce, offset)
    int refs = 0;
  };
  const Import* find_locked(const void* p) const;

  mutable std::mutex mu_;
  std::map<uintptr_t, Import> imports_;  // by base; guarded by mu_
  std::atomic<size_t> count_{0};         // imports_.size(), for the lock-free empty check
};

}  // namespace ctorch::api::backends::emulated
