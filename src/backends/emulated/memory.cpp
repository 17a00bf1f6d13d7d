// Device arenas and pinned host memory of the emulated runtime. Policy: Note [Emulated device
// memory] in memory.h.
#include "backends/emulated/memory.h"

#include <algorithm>
#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <random>
#include <fcntl.h>
#include <linux/falloc.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ctorch/error.h"
#include "memory/allocator_config.h"

namespace ctorch::inline api::backends::emulated {
namespace {

size_t page_size() {
  static const size_t page = static_cast<size_t>(sysconf(_SC_PAGE_SIZE));
  return page;
}

size_t round_up(size_t n, size_t m) { return (n + m - 1) / m * m; }
size_t round_down(size_t n, size_t m) { return n / m * m; }

}  // namespace

// ---------------------------------------------------------------------------------------------
// Arena

Arena::Arena(DeviceIndex index, size_t capacity) : index_(index) {
  capacity_ = round_up(capacity, page_size());
  nonce_ = (static_cast<uint64_t>(std::random_device{}()) << 32) ^ std::random_device{}();
  char nonce_text[24];
  std::snprintf(nonce_text, sizeof nonce_text, "%016" PRIx64, nonce_);
  const std::string name = "ctorch-emulated-cuda:" + std::to_string(index) + "-" + nonce_text;
  fd_ = memfd_create(name.c_str(), MFD_CLOEXEC);
  CTORCH_CHECK(fd_ >= 0, "emulated cuda:", index, ": memfd_create failed: ", std::strerror(errno));
  auto fail = [&](const char* what) {
    const int err = errno;
    if (alias_) munmap(alias_, capacity_);
    if (base_) munmap(base_, capacity_);
    close(fd_);
    CTORCH_CHECK(false, "emulated cuda:", index, ": ", what, " of ", format_size(capacity_),
                 " failed: ", std::strerror(err));
  };
  if (ftruncate(fd_, static_cast<off_t>(capacity_)) != 0) fail("ftruncate");
  void* base = mmap(nullptr, capacity_, PROT_NONE, MAP_SHARED | MAP_NORESERVE, fd_, 0);
  if (base == MAP_FAILED) fail("mmap (device range)");
  base_ = static_cast<char*>(base);
  void* alias = mmap(nullptr, capacity_, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_NORESERVE, fd_, 0);
  if (alias == MAP_FAILED) fail("mmap (alias)");
  alias_ = static_cast<char*>(alias);
  insert_free_locked(0, capacity_);
}

Arena::~Arena() {
  munmap(alias_, capacity_);
  munmap(base_, capacity_);
  close(fd_);
}

void Arena::insert_free_locked(size_t offset, size_t size) {
  // Coalesce with the following and the preceding free block.
  auto next = free_by_offset_.lower_bound(offset);
  if (next != free_by_offset_.end() && offset + size == next->first) {
    size += next->second;
    erase_free_locked(next);
  }
  auto after = free_by_offset_.lower_bound(offset);
  if (after != free_by_offset_.begin()) {
    auto prev = std::prev(after);
    if (prev->first + prev->second == offset) {
      offset = prev->first;
      size += prev->second;
      erase_free_locked(prev);
    }
  }
  free_by_offset_.emplace(offset, size);
  free_by_size_.emplace(size, offset);
}

void Arena::erase_free_locked(std::map<size_t, size_t>::iterator it) {
  free_by_size_.erase({it->second, it->first});
  free_by_offset_.erase(it);
}

void* Arena::allocate(size_t bytes) {
  const size_t size = round_up(bytes, kDeviceAlignment);
  size_t offset;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = size >= bytes ? free_by_size_.lower_bound({size, 0}) : free_by_size_.end();
    if (it == free_by_size_.end() || in_use_ + charged_ + size > capacity_) {
      const size_t largest = free_by_size_.empty() ? 0 : free_by_size_.rbegin()->first;
      std::string msg = detail::str_cat(
          "CUDA out of memory (emulated device cuda:", index_, "): tried to allocate ",
          format_size(bytes), "; capacity ", format_size(capacity_), ", in use ", format_size(in_use_ + charged_));
      if (capacity_ - in_use_ - charged_ >= size) {
        msg += detail::str_cat(", largest free block ", format_size(largest), " (fragmented)");
      }
      throw OutOfMemoryError(msg);
    }
    offset = it->second;
    const size_t block = it->first;
    erase_free_locked(free_by_offset_.find(offset));
    if (block > size) insert_free_locked(offset + size, block - size);
    in_use_ += size;
    // Registered as live before the fill; nobody can name the pointer until we return it.
    live_.emplace(offset, Block{size, bytes});
  }
  std::memset(alias_ + offset, kFreshByte, size);
  return base_ + offset;
}

bool Arena::deallocate(const void* ptr) noexcept {
  if (!contains(ptr)) return false;
  const size_t offset = static_cast<size_t>(static_cast<const char*>(ptr) - base_);
  size_t size;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = live_.find(offset);
    if (it == live_.end()) return false;
    size = it->second.size;
    live_.erase(it);
  }
  // The block is now neither live nor free: it is ours to poison or release without the lock.
  const bool large = size > kQuarantineBytes;
  if (large) {
    const size_t page = page_size();
    const size_t inner_begin = round_up(offset, page), inner_end = round_down(offset + size, page);
    if (inner_begin < inner_end) {
      std::memset(alias_ + offset, kPoisonByte, inner_begin - offset);
      std::memset(alias_ + inner_end, kPoisonByte, offset + size - inner_end);
      punch(inner_begin, inner_end - inner_begin);
    } else {
      std::memset(alias_ + offset, kPoisonByte, size);
    }
  } else {
    std::memset(alias_ + offset, kPoisonByte, size);
  }
  std::lock_guard<std::mutex> lock(mu_);
  insert_free_locked(offset, size);
  in_use_ -= size;
  if (!large) {
    quarantine_.emplace_back(offset, size);
    quarantined_ += size;
    release_quarantine_locked();
  }
  return true;
}

void Arena::punch(size_t offset, size_t size) noexcept {
  const size_t page = page_size();
  const size_t begin = round_up(offset, page), end = round_down(offset + size, page);
  if (begin >= end) return;
  // Best effort: without hole punching the pages simply stay committed.
  (void)fallocate(fd_, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, static_cast<off_t>(begin),
                  static_cast<off_t>(end - begin));
}

void Arena::release_quarantine_locked() noexcept {
  while (quarantined_ > kQuarantineBytes && !quarantine_.empty()) {
    auto [offset, size] = quarantine_.front();
    quarantine_.pop_front();
    quarantined_ -= size;
    // Release the entry's pages, widened to page boundaries (so that entries smaller than a
    // page are released too) but only where memory is still free: parts of the entry may have
    // been allocated again since.
    const size_t page = page_size();
    const size_t lo = round_down(offset, page), hi = round_up(offset + size, page);
    auto it = free_by_offset_.upper_bound(lo);
    if (it != free_by_offset_.begin()) --it;
    for (; it != free_by_offset_.end() && it->first < hi; ++it) {
      const size_t begin = std::max(lo, it->first), end = std::min(hi, it->first + it->second);
      if (begin < end) punch(begin, end - begin);
    }
  }
}

Lookup Arena::lookup(const void* p, size_t bytes) const {
  Lookup r;
  const size_t offset = static_cast<size_t>(static_cast<const char*>(p) - base_);
  std::lock_guard<std::mutex> lock(mu_);
  auto it = live_.upper_bound(offset);
  if (it == live_.begin()) {
    r.reason = detail::str_cat("no live allocation of cuda:", index_, " contains it (freed, or never allocated)");
    return r;
  }
  --it;
  const size_t start = it->first, requested = it->second.requested;
  // A zero-byte range may sit at the end of an allocation; others must start inside it.
  if (offset - start > requested || (bytes > 0 && offset - start == requested)) {
    r.reason = detail::str_cat("no live allocation of cuda:", index_, " contains it (freed, or never allocated)");
    return r;
  }
  if (bytes > requested - (offset - start)) {
    r.reason = detail::str_cat("it runs ", bytes - (requested - (offset - start)), " bytes past the end of the ",
                               requested, "-byte allocation at ", hex(base_ + start), " on cuda:", index_);
    return r;
  }
  r.ok = true;
  r.offset = offset;
  r.alias = alias_ + offset;
  return r;
}

bool Arena::allocation_of(const void* p, size_t* offset, size_t* requested) const {
  if (!contains(p)) return false;
  const size_t at = static_cast<size_t>(static_cast<const char*>(p) - base_);
  std::lock_guard<std::mutex> lock(mu_);
  auto it = live_.upper_bound(at);
  if (it == live_.begin()) return false;
  --it;
  if (at - it->first >= it->second.requested) return false;
  *offset = it->first;
  *requested = it->second.requested;
  return true;
}

size_t Arena::in_use() const {
  std::lock_guard<std::mutex> lock(mu_);
  return in_use_ + charged_;
}

bool Arena::charge(size_t bytes) {
  std::lock_guard<std::mutex> lock(mu_);
  if (in_use_ + charged_ + bytes > capacity_) return false;
  charged_ += bytes;
  return true;
}

void Arena::uncharge(size_t bytes) noexcept {
  std::lock_guard<std::mutex> lock(mu_);
  charged_ -= std::min(bytes, charged_);
}

size_t Arena::live_count() const {
  std::lock_guard<std::mutex> lock(mu_);
  return live_.size();
}

size_t Arena::committed_bytes() const {
  struct stat st {};
  if (fstat(fd_, &st) != 0) return 0;
  return static_cast<size_t>(st.st_blocks) * 512;
}

// ---------------------------------------------------------------------------------------------
// PinnedRegistry

PinnedRegistry::~PinnedRegistry() {
  for (auto& [start, size] : blocks_) munmap(reinterpret_cast<void*>(start), size);
}

void* PinnedRegistry::allocate(size_t bytes) {
  const size_t size = round_up(bytes, page_size());
  void* p = mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) {
    throw OutOfMemoryError(detail::str_cat("CUDA out of memory (emulated pinned host memory): tried to allocate ",
                                           format_size(bytes), ": ", std::strerror(errno)));
  }
  std::lock_guard<std::mutex> lock(mu_);
  blocks_.emplace(reinterpret_cast<uintptr_t>(p), size);
  return p;
}

bool PinnedRegistry::deallocate(void* p) noexcept {
  size_t size;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = blocks_.find(reinterpret_cast<uintptr_t>(p));
    if (it == blocks_.end()) return false;
    size = it->second;
    blocks_.erase(it);
  }
  munmap(p, size);
  return true;
}

bool PinnedRegistry::contains(const void* p, size_t bytes) const {
  const auto a = reinterpret_cast<uintptr_t>(p);
  std::lock_guard<std::mutex> lock(mu_);
  auto it = blocks_.upper_bound(a);
  if (it == blocks_.begin()) return false;
  --it;
  return a - it->first < it->second && bytes <= it->second - (a - it->first);
}

size_t PinnedRegistry::live_count() const {
  std::lock_guard<std::mutex> lock(mu_);
  return blocks_.size();
}

// Note [Copy chunks]
// Blocks at the same offset of two devices' arenas (page-aligned memfd mappings) share their
// address modulo 4096. glibc's non-temporal path for copies above ~3/4 of the L3 cache loses about
// 40% to that 4K aliasing (16 MiB on this machine: 11-13 GB/s against 19-21 GB/s at a 1 KiB
// offset), which made device-to-device copies slower than memcpy. Chunks below that threshold
// take glibc's cached path, which does not suffer from it and is as fast for large copies
// (bench/parallel_bench.cpp: BM_Broadcast against BM_Memcpy).
void copy_bytes(void* dst, const void* src, size_t bytes) {
  auto* to = static_cast<char*>(dst);
  const auto* from = static_cast<const char*>(src);
  const auto d = reinterpret_cast<uintptr_t>(dst), s = reinterpret_cast<uintptr_t>(src);
  if (d < s + bytes && s < d + bytes) {
    std::memmove(to, from, bytes);
    return;
  }
  constexpr size_t kChunk = size_t{256} << 10;
  for (size_t done = 0; done < bytes; done += kChunk) {
    std::memcpy(to + done, from + done, std::min(kChunk, bytes - done));
  }
}

}  // namespace ctorch::api::backends::emulated
