// Emulated device virtual memory: VirtualSpace and EmulatedRuntime's impl::VirtualMemory.
// Policy: Note [Emulated virtual memory] in virtual_memory.h.
#include "backends/emulated/virtual_memory.h"

#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <sys/mman.h>
#include <unistd.h>

#include "backends/emulated/device_state.h"
#include "ctorch/error.h"

namespace ctorch::inline api::backends::emulated {
namespace {

size_t host_page() {
  static const size_t page = static_cast<size_t>(sysconf(_SC_PAGE_SIZE));
  return page;
}

char* map_none(size_t bytes) {
  void* p = mmap(nullptr, bytes, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  return p == MAP_FAILED ? nullptr : static_cast<char*>(p);
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// VirtualSpace

VirtualSpace::~VirtualSpace() {
  for (auto& [key, r] : reservations_) {
    munmap(r.alias, r.size);
    munmap(r.base, r.size);
  }
  if (mapped_ > 0) arena_->uncharge(mapped_);
}

void* VirtualSpace::reserve(size_t bytes, size_t page_size) {
  CTORCH_CHECK_VALUE(page_size > 0 && page_size % host_page() == 0 && bytes > 0 && bytes % page_size == 0,
                     "[emulated reserve_address_range] Expected a size that is a multiple of a page size that is "
                     "a multiple of ", host_page(), " bytes, but got ", bytes, " bytes in pages of ", page_size);
  char* base = map_none(bytes);
  if (base == nullptr) return nullptr;
  char* alias = map_none(bytes);
  if (alias == nullptr) {
    munmap(base, bytes);
    return nullptr;
  }
  Reservation r{base, alias, bytes, page_size, std::vector<char>(bytes / page_size, kUnmapped)};
  std::lock_guard<std::mutex> lock(mu_);
  try {
    reservations_.emplace(reinterpret_cast<uintptr_t>(base), std::move(r));
  } catch (...) {
    munmap(alias, bytes);
    munmap(base, bytes);
    throw;
  }
  return base;
}

VirtualSpace::Reservation* VirtualSpace::find_locked(const void* base) {
  auto it = reservations_.find(reinterpret_cast<uintptr_t>(base));
  return it == reservations_.end() ? nullptr : &it->second;
}

bool VirtualSpace::check_range_locked(const Reservation& r, size_t offset, size_t bytes, PageState expected) const {
  if (bytes == 0 || offset % r.page != 0 || bytes % r.page != 0 || offset > r.size || bytes > r.size - offset) {
    return false;
  }
  for (size_t i = offset / r.page; i < (offset + bytes) / r.page; ++i) {
    if (r.pages[i] != expected) return false;
  }
  return true;
}

void VirtualSpace::set_locked(Reservation& r, size_t offset, size_t bytes, PageState state) {
  for (size_t i = offset / r.page; i < (offset + bytes) / r.page; ++i) r.pages[i] = state;
}

void VirtualSpace::unmap_alias(char* alias, size_t bytes) noexcept {
  // Best effort: without MADV_DONTNEED the pages merely stay committed until the next map.
  (void)madvise(alias, bytes, MADV_DONTNEED);
  (void)mprotect(alias, bytes, PROT_NONE);
}

bool VirtualSpace::map(void* base, size_t offset, size_t bytes) {
  char* alias = nullptr;
  {
    std::lock_guard<std::mutex> lock(mu_);
    Reservation* r = find_locked(base);
    CTORCH_CHECK(r != nullptr, "CUDA error: invalid argument (emulated map_pages on cuda:", index_, ": ", hex(base),
                 " is not a reserved address range)");
    CTORCH_CHECK(check_range_locked(*r, offset, bytes, kUnmapped), "CUDA error: invalid argument (emulated map_pages "
                 "on cuda:", index_, ": [", offset, ", ", offset + bytes, ") of the range at ", hex(base),
                 " is not whole unmapped pages of ", r->page, " bytes)");
    if (!arena_->charge(bytes)) return false;
    set_locked(*r, offset, bytes, kChanging);  // not translatable until filled
    alias = r->alias + offset;
  }
  const bool ok = mprotect(alias, bytes, PROT_READ | PROT_WRITE) == 0;
  const int err = errno;
  if (ok) std::memset(alias, kFreshByte, bytes);
  std::lock_guard<std::mutex> lock(mu_);
  Reservation* r = find_locked(base);
  set_locked(*r, offset, bytes, ok ? kMapped : kUnmapped);
  if (!ok) {
    arena_->uncharge(bytes);
    CTORCH_CHECK(false, "emulated cuda:", index_, ": mprotect of ", bytes, " bytes failed: ", std::strerror(err));
  }
  mapped_ += bytes;
  return true;
}

bool VirtualSpace::unmap(void* base, size_t offset, size_t bytes) noexcept {
  char* alias = nullptr;
  {
    std::lock_guard<std::mutex> lock(mu_);
    Reservation* r = find_locked(base);
    if (r == nullptr || !check_range_locked(*r, offset, bytes, kMapped)) return false;
    set_locked(*r, offset, bytes, kChanging);
    alias = r->alias + offset;
  }
  unmap_alias(alias, bytes);
  std::lock_guard<std::mutex> lock(mu_);
  set_locked(*find_locked(base), offset, bytes, kUnmapped);
  mapped_ -= bytes;
  arena_->uncharge(bytes);
  return true;
}

bool VirtualSpace::release(void* base) noexcept {
  Reservation r;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = reservations_.find(reinterpret_cast<uintptr_t>(base));
    if (it == reservations_.end()) return false;
    r = std::move(it->second);
    reservations_.erase(it);
    size_t still_mapped = 0;
    for (char state : r.pages) still_mapped += state == kMapped ? r.page : 0;
    mapped_ -= still_mapped;
    arena_->uncharge(still_mapped);
  }
  munmap(r.alias, r.size);
  munmap(r.base, r.size);
  return true;
}

bool VirtualSpace::contains(const void* p) const noexcept {
  const auto a = reinterpret_cast<uintptr_t>(p);
  std::lock_guard<std::mutex> lock(mu_);
  auto it = reservations_.upper_bound(a);
  if (it == reservations_.begin()) return false;
  --it;
  return a - it->first < it->second.size;
}

Lookup VirtualSpace::lookup(const void* p, size_t bytes) const {
  Lookup l;
  const auto a = reinterpret_cast<uintptr_t>(p);
  std::lock_guard<std::mutex> lock(mu_);
  auto it = reservations_.upper_bound(a);
  if (it != reservations_.begin()) --it;
  if (it == reservations_.end() || a < it->first || a - it->first >= it->second.size) {
    l.reason = detail::str_cat("no reserved address range of cuda:", index_, " contains it");
    return l;
  }
  const Reservation& r = it->second;
  const size_t offset = a - it->first;
  if (bytes > r.size - offset) {
    l.reason = detail::str_cat("it runs past the end of the reserved address range at ", hex(r.base));
    return l;
  }
  const size_t last = bytes == 0 ? offset : offset + bytes - 1;
  for (size_t i = offset / r.page; i <= last / r.page; ++i) {
    if (r.pages[i] != kMapped) {
      l.reason = detail::str_cat("the page at ", hex(r.base + i * r.page), " of the reserved address range at ",
                                 hex(r.base), " on cuda:", index_, " is not mapped");
      return l;
    }
  }
  l.ok = true;
  l.offset = offset;
  l.alias = r.alias + offset;
  return l;
}

size_t VirtualSpace::reservation_count() const {
  std::lock_guard<std::mutex> lock(mu_);
  return reservations_.size();
}

size_t VirtualSpace::mapped_bytes() const {
  std::lock_guard<std::mutex> lock(mu_);
  return mapped_;
}

// ---------------------------------------------------------------------------------------------
// EmulatedRuntime: impl::VirtualMemory

void* EmulatedRuntime::reserve_address_range(DeviceIndex index, size_t bytes, size_t page_size) {
  return device(index).vspace->reserve(bytes, page_size);
}

bool EmulatedRuntime::map_pages(DeviceIndex index, void* base, size_t offset, size_t bytes) {
  return device(index).vspace->map(base, offset, bytes);
}

void EmulatedRuntime::unmap_pages(DeviceIndex index, void* base, size_t offset, size_t bytes) noexcept {
  try {
    DeviceState& dev = device(index);
    // cuMemUnmap does not wait for work that may still use the pages; the caller (PyTorch too)
    // synchronizes first. From a stream task that could deadlock.
    if (!StreamWorker::current()) drain_device(dev);
    if (!dev.vspace->unmap(base, offset, bytes)) {
      std::lock_guard<std::mutex> lock(dev.error_mu);
      if (dev.device_error.empty()) {
        dev.device_error = detail::str_cat("invalid argument: unmap_pages of [", offset, ", ", offset + bytes,
                                           ") at ", hex(base), " on emulated cuda:", index, " (not mapped pages)");
      }
    }
  } catch (...) {
    // Must not throw: an invalid index has nothing to unmap.
  }
}

void EmulatedRuntime::release_address_range(DeviceIndex index, void* base) noexcept {
  try {
    DeviceState& dev = device(index);
    if (!StreamWorker::current()) drain_device(dev);
    if (!dev.vspace->release(base)) {
      std::lock_guard<std::mutex> lock(dev.error_mu);
      if (dev.device_error.empty()) {
        dev.device_error = detail::str_cat("invalid argument: release_address_range of ", hex(base),
                                           " on emulated cuda:", index, " (not a reserved address range)");
      }
    }
  } catch (...) {
    // Must not throw: an invalid index has nothing to release.
  }
}

}  // namespace ctorch::api::backends::emulated
