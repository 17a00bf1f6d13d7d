// The cpu tensor allocator.
//
// Policy: blocks below kCacheMinBytes come from the C allocator (glibc keeps them hot). Larger
// blocks are rounded up to a page and, when freed, kept in a size-ordered cache instead of
// being returned to the kernel, so out-of-place ops on large tensors reuse warm pages rather
// than faulting fresh ones every call (PyTorch's CPU allocator faults fresh pages). A request
// takes the smallest cached block that is at least as large and at most kMaxOversize larger.
// The cache holds at most kMaxCachedBytes; beyond that, freed blocks go back to the system.
// Small blocks (64 B to 1 MiB, power-of-two classes) are kept on per-thread free lists of
// kSmallPerClass blocks each, so creating a small tensor costs a list pop instead of an aligned
// malloc. Sanitizer builds skip the small cache so use-after-free stays visible.
// Blocks of 2 MiB and more are aligned to 2 MiB and advised as transparent huge pages
// (madvise(MADV_HUGEPAGE); PyTorch 2.x does the same under THP_MEM_ALLOC_ENABLE): streaming
// kernels over 4 KiB pages spend a third of their time on TLB misses on this class of machine.
#include <array>
#include <cstdlib>
#include <utility>
#include <map>
#include <mutex>
#include <new>

#include <sys/mman.h>

#include "ctorch/allocator.h"
#include "ctorch/error.h"

namespace ctorch::inline api {
namespace {

constexpr size_t kAlignment = 64;
constexpr size_t kPage = 4096;
constexpr size_t kHugePage = size_t{2} << 20;
constexpr size_t kCacheMinBytes = size_t{1} << 20;      // 1 MiB
constexpr size_t kMaxOversizeNum = 5, kMaxOversizeDen = 4;  // accept blocks up to 1.25x
constexpr size_t kMaxCachedBytes = size_t{4} << 30;     // 4 GiB

constexpr int kSmallClasses = 15;  // 64 B << 0 .. 64 B << 14 (1 MiB = kCacheMinBytes)
constexpr int kSmallPerClass = 32;

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
constexpr bool kSmallCacheEnabled = false;
#else
constexpr bool kSmallCacheEnabled = true;
#endif

int small_class(size_t nbytes) {
  int c = 0;
  size_t size = kAlignment;
  while (size < nbytes) {
    size <<= 1;
    ++c;
  }
  return c;
}

// Per-thread free lists; blocks freed on another thread join that thread's lists.
struct SmallCache {
  void* blocks[kSmallClasses][kSmallPerClass];
  int count[kSmallClasses] = {};
  ~SmallCache() {
    for (int c = 0; c < kSmallClasses; ++c) {
      for (int i = 0; i < count[c]; ++i) std::free(blocks[c][i]);
    }
  }
};

// The thread's cache lives on the heap and only this pointer is thread-local, in the default
// (dynamic) TLS model: libctorch then needs no static TLS at all, so it can be dlopen-ed (the
// Python extension loads it that way; glibc's surplus for static TLS is a few hundred bytes and
// other libraries use it too). The cost is one __tls_get_addr call per small allocation.
struct SmallCacheHolder {
  SmallCache* cache = nullptr;
  bool gone = false;  // the thread is exiting: blocks go straight to free()
  ~SmallCacheHolder() {
    delete cache;
    cache = nullptr;
    gone = true;
  }
};

// The calling thread's cache; nullptr once its thread-locals are being destroyed (a tensor freed
// by a later thread-local destructor then bypasses the cache).
SmallCache* small_cache() {
  thread_local SmallCacheHolder holder;
  if (__builtin_expect(holder.cache == nullptr, 0)) {
    if (holder.gone) return nullptr;
    holder.cache = new SmallCache();
  }
  return holder.cache;
}

template <int C>
void free_small_class(void* ptr) {
  SmallCache* cache = small_cache();
  if (cache != nullptr && cache->count[C] < kSmallPerClass) {
    cache->blocks[C][cache->count[C]++] = ptr;
  } else {
    std::free(ptr);
  }
}

template <int... C>
constexpr std::array<DeleterFn, sizeof...(C)> make_small_deleters(std::integer_sequence<int, C...>) {
  return {&free_small_class<C>...};
}
static_assert((kAlignment << (kSmallClasses - 1)) >= kCacheMinBytes, "small classes must cover kCacheMinBytes");
constexpr auto kSmallDeleters = make_small_deleters(std::make_integer_sequence<int, kSmallClasses>{});

struct LargeBlock {
  void* ptr;
  size_t size;
};

class CpuAllocator final : public Allocator {
 public:
  DataPtr allocate(size_t nbytes) override {
    if (nbytes == 0) return DataPtr(nullptr, nullptr, nullptr, Device(DeviceType::CPU));
    if (nbytes < kCacheMinBytes) {
      if (kSmallCacheEnabled) {
        const int c = small_class(nbytes);
        SmallCache* cache = small_cache();
        void* p = cache != nullptr && cache->count[c] ? cache->blocks[c][--cache->count[c]]
                                                      : std::aligned_alloc(kAlignment, kAlignment << c);
        if (!p) throw_oom(nbytes);
        return DataPtr(p, p, kSmallDeleters[c], Device(DeviceType::CPU));
      }
      void* p = std::aligned_alloc(kAlignment, (nbytes + kAlignment - 1) / kAlignment * kAlignment);
      if (!p) throw_oom(nbytes);
      return DataPtr(p, p, &free_small, Device(DeviceType::CPU));
    }
    size_t size = (nbytes + kPage - 1) / kPage * kPage;
    LargeBlock* block = take_cached(size);
    if (!block) {
      void* p = allocate_pages(size);
      if (!p) {
        release_cache();
        p = allocate_pages(size);
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
  // Page-aligned memory; huge-page aligned and advised from kHugePage up (advice is best effort).
  static void* allocate_pages(size_t size) {
    if (size < kHugePage) return std::aligned_alloc(kPage, size);
    const size_t rounded = (size + kHugePage - 1) / kHugePage * kHugePage;
    void* p = std::aligned_alloc(kHugePage, rounded);
    if (p) madvise(p, rounded, MADV_HUGEPAGE);
    return p;
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

}  // namespace ctorch::api
