// The cpu tensor allocator.
//
// Policy: blocks below kCacheMinBytes come from the C allocator (glibc keeps them hot). Larger
// blocks are rounded up to a page and, when freed, kept in a size-ordered cache instead of
// being returned to the kernel, so out-of-place ops on large tensors reuse warm pages rather
// than faulting fresh ones every call (PyTorch's CPU allocator faults fresh pages). A request
// takes the smallest cached block that is at least as large and at most kMaxOversize larger.
// The cache holds at most kMaxCachedBytes; beyond that, freed blocks go back to the system.
#include <cstdlib>
#include <map>
#include <mutex>
#include <new>

#include "ctorch/allocator.h"
#include "ctorch/error.h"

namespace ctorch {
namespace {

constexpr size_t kAlignment = 64;
constexpr size_t kPage = 4096;
constexpr size_t kCacheMinBytes = size_t{1} << 20;      // 1 MiB
constexpr size_t kMaxOversizeNum = 5, kMaxOversizeDen = 4;  // accept blocks up to 1.25x
constexpr size_t kMaxCachedBytes = size_t{4} << 30;     // 4 GiB

struct LargeBlock {
  void* ptr;
  size_t size;
};

class CpuAllocator final : public Allocator {
 public:
  DataPtr allocate(size_t nbytes) override {
    if (nbytes == 0) return DataPtr(nullptr, nullptr, nullptr, Device(DeviceType::CPU));
    if (nbytes < kCacheMinBytes) {
      void* p = std::aligned_alloc(kAlignment, (nbytes + kAlignment - 1) / kAlignment * kAlignment);
      if (!p) throw_oom(nbytes);
      return DataPtr(p, p, &free_small, Device(DeviceType::CPU));
    }
    size_t size = (nbytes + kPage - 1) / kPage * kPage;
    LargeBlock* block = take_cached(size);
    if (!block) {
      void* p = std::aligned_alloc(kPage, size);
      if (!p) {
        release_cache();
        p = std::aligned_alloc(kPage, size);
      }
      if (!p) throw_oom(nbytes);
      block = new LargeBlock{p, size};
    }
    return DataPtr(block->ptr, block, &free_large, Device(DeviceType::CPU));
  }

  static CpuAllocator& instance() {
    static auto* a = new CpuAllocator();  // never destroyed: tensors may die during exit
    return *a;
  }

 private:
  [[noreturn]] static void throw_oom(size_t nbytes) {
    throw OutOfMemoryError(detail::str_cat(
        "[enforce fail at alloc_cpu.cpp] . DefaultCPUAllocator: not enough memory: you tried to "
        "allocate ",
        nbytes, " bytes."));
  }
  static void free_small(void* ctx) { std::free(ctx); }
  static void free_large(void* ctx) { instance().give_back(static_cast<LargeBlock*>(ctx)); }

  LargeBlock* take_cached(size_t size) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = cache_.lower_bound(size);
    if (it == cache_.end() || it->first * kMaxOversizeDen > size * kMaxOversizeNum) return nullptr;
    LargeBlock* b = it->second;
    cached_bytes_ -= b->size;
    cache_.erase(it);
    return b;
  }
  void give_back(LargeBlock* b) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (cached_bytes_ + b->size <= kMaxCachedBytes) {
        cached_bytes_ += b->size;
        cache_.emplace(b->size, b);
        return;
      }
    }
    std::free(b->ptr);
    delete b;
  }
  void release_cache() {
    std::lock_guard<std::mutex> lock(mutex_);
    for (auto& [size, b] : cache_) {
      std::free(b->ptr);
      delete b;
    }
    cache_.clear();
    cached_bytes_ = 0;
  }

  std::mutex mutex_;  // guards cache_ and cached_bytes_
  std::multimap<size_t, LargeBlock*> cache_;
  size_t cached_bytes_ = 0;
};

}  // namespace

Allocator* cpu_allocator() { return &CpuAllocator::instance(); }

}  // namespace ctorch
