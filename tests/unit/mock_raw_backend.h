// The caching-allocator unit tests' mock raw backend (fake addresses, fake events completed by
// hand, fake reservations; no device, as CuPy tests its pool with mock_alloc) and shared checks.
#pragma once

#include <gtest/gtest.h>

#include <map>
#include <mutex>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "ctorch/error.h"
#include "memory/caching_allocator.h"

namespace ctorch::inline api::memory::test_support {

constexpr size_t kKiB = 1024;
constexpr size_t kMiB = 1024 * 1024;

// Hands out fake, never dereferenced addresses from a bump pointer, within `capacity` bytes, and
// fake reservations whose mapped pages count against the same capacity (VirtualMemoryBackend).
class MockBackend final : public RawBackend, public VirtualMemoryBackend {
 public:
  struct FakeEvent {
    bool done = true;
    Stream stream = Stream(Device(DeviceType::CUDA, 0), 0);
    int syncs = 0;
  };

  explicit MockBackend(size_t capacity) : capacity_(capacity) {}
  ~MockBackend() override {
    for (auto* e : all_events_) delete e;
  }

  void* allocate(size_t bytes) override {
    std::lock_guard<std::mutex> lock(mu_);
    if (used_ + bytes > capacity_) return nullptr;
    used_ += bytes;
    ++allocs;
    void* p = reinterpret_cast<void*>(next_);
    next_ += bytes + (size_t{1} << 30);  // gaps: segments are never adjacent
    live_[p] = bytes;
    return p;
  }
  void deallocate(void* ptr) noexcept override {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = live_.find(ptr);
    if (it == live_.end()) {
      ++bad_frees;
      return;
    }
    used_ -= it->second;
    live_.erase(it);
    ++frees;
  }
  void* create_event(DeviceIndex) override {
    std::lock_guard<std::mutex> lock(mu_);
    auto* e = new FakeEvent;
    all_events_.insert(e);
    return e;
  }
  void destroy_event(void* e) noexcept override {
    std::lock_guard<std::mutex> lock(mu_);
    all_events_.erase(static_cast<FakeEvent*>(e));
    delete static_cast<FakeEvent*>(e);
  }
  void record_event(void* e, Stream s) override {
    auto* ev = static_cast<FakeEvent*>(e);
    ev->done = auto_complete;
    ev->stream = s;
  }
  bool query_event(void* e) override { return static_cast<FakeEvent*>(e)->done; }
  void synchronize_event(void* e) override {
    auto* ev = static_cast<FakeEvent*>(e);
    ev->done = true;
    ++ev->syncs;
    ++syncs;
  }
  void memory_info(size_t* free_bytes, size_t* total_bytes) override {
    std::lock_guard<std::mutex> lock(mu_);
    *free_bytes = capacity_ - used_;
    *total_bytes = capacity_;
  }

  void* reserve(size_t bytes, size_t page_size) override {
    std::lock_guard<std::mutex> lock(mu_);
    if (fail_reserve) return nullptr;
    EXPECT_TRUE(page_size > 0 && bytes % page_size == 0) << bytes << " in pages of " << page_size;
    void* p = reinterpret_cast<void*>(next_);
    next_ += bytes + (size_t{1} << 30);
    reservations_[p] = Reservation{bytes, page_size, std::vector<char>(bytes / page_size, 0)};
    ++reserves;
    return p;
  }
  bool map(void* base, size_t offset, size_t bytes) override {
    std::lock_guard<std::mutex> lock(mu_);
    Reservation& r = reservations_.at(base);
    EXPECT_TRUE(bytes > 0 && offset % r.page == 0 && bytes % r.page == 0 && offset + bytes <= r.size);
    if (used_ + bytes > capacity_) return false;
    for (size_t i = offset / r.page; i < (offset + bytes) / r.page; ++i) {
      EXPECT_EQ(r.pages[i], 0) << "page " << i << " mapped twice";
      r.pages[i] = 1;
    }
    used_ += bytes;
    ++maps;
    return true;
  }
  void unmap(void* base, size_t offset, size_t bytes) noexcept override {
    std::lock_guard<std::mutex> lock(mu_);
    Reservation& r = reservations_.at(base);
    for (size_t i = offset / r.page; i < (offset + bytes) / r.page; ++i) {
      if (r.pages[i] != 1) ++bad_unmaps;
      r.pages[i] = 0;
    }
    used_ -= bytes;
    ++unmaps;
  }
  void release(void* base) noexcept override {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = reservations_.find(base);
    if (it == reservations_.end()) {
      ++bad_releases;
      return;
    }
    for (char mapped : it->second.pages) bad_releases += mapped;  // must be unmapped first
    reservations_.erase(it);
    ++releases;
  }

  /// Number of live reservations.
  size_t reservations() const {
    std::lock_guard<std::mutex> lock(mu_);
    return reservations_.size();
  }
  /// Completes every recorded event of stream `s` (the stream's work finished).
  void complete(Stream s) {
    std::lock_guard<std::mutex> lock(mu_);
    for (auto* e : all_events_) {
      if (e->stream == s) e->done = true;
    }
  }
  size_t used() const {
    std::lock_guard<std::mutex> lock(mu_);
    return used_;
  }
  size_t live_events() const {
    std::lock_guard<std::mutex> lock(mu_);
    return all_events_.size();
  }

  int allocs = 0, frees = 0, bad_frees = 0, syncs = 0;
  int reserves = 0, maps = 0, unmaps = 0, releases = 0, bad_unmaps = 0, bad_releases = 0;
  bool auto_complete = false;
  bool fail_reserve = false;

 private:
  mutable std::mutex mu_;
  size_t capacity_;
  size_t used_ = 0;
  uintptr_t next_ = uintptr_t{1} << 40;
  std::map<void*, size_t> live_;
  std::set<FakeEvent*> all_events_;
  struct Reservation {
    size_t size = 0, page = 0;
    std::vector<char> pages;  // 1 = mapped
  };
  std::map<void*, Reservation> reservations_;
};

inline Stream stream(StreamId id, DeviceIndex dev = 0) { return Stream(Device(DeviceType::CUDA, dev), id); }

inline int64_t get(const CachingAllocator& a, const std::string& key) {
  const auto m = flatten_stats(a.stats());
  auto it = m.find(key);
  EXPECT_NE(it, m.end()) << key;
  return it == m.end() ? -12345 : it->second;
}

inline std::string oom_message(CachingAllocator& a, size_t size, Stream s = stream(0)) {
  try {
    a.malloc(size, s);
  } catch (const OutOfMemoryError& e) {
    return e.what();
  }
  ADD_FAILURE() << "expected OutOfMemoryError for " << size << " bytes";
  return "";
}

inline AllocatorConfig config_of(const std::string& s) { return parse_allocator_config(s); }

// PyTorch's own consistency check: the statistics equal the sums over the snapshot (expandable
// segments have no inactive splits; each of their mapped ranges is one snapshot segment).
inline void expect_stats_match_snapshot(const CachingAllocator& a, int step) {
  const auto st = flatten_stats(a.stats());
  for (const char* pool : {"all", "small_pool", "large_pool"}) {
    const std::string p = pool;
    int64_t segments = 0, reserved = 0, allocs = 0, allocated = 0, active = 0, active_bytes = 0, requested = 0,
            split = 0, split_bytes = 0;
    for (const SegmentInfo& seg : a.snapshot()) {
      if ((p == "small_pool" && seg.is_large) || (p == "large_pool" && !seg.is_large)) continue;
      ++segments;
      reserved += int64_t(seg.total_size);
      allocated += int64_t(seg.allocated_size);
      active_bytes += int64_t(seg.active_size);
      requested += int64_t(seg.requested_size);
      for (const BlockInfo& b : seg.blocks) {
        allocs += b.state == BlockState::kActiveAllocated;
        active += b.state != BlockState::kInactive;
        if (b.state == BlockState::kInactive && seg.blocks.size() > 1 && !seg.is_expandable) {
          ++split;
          split_bytes += int64_t(b.size);
        }
      }
    }
    EXPECT_EQ(st.at("segment." + p + ".current"), segments) << "step " << step << " " << p;
    EXPECT_EQ(st.at("reserved_bytes." + p + ".current"), reserved) << "step " << step << " " << p;
    EXPECT_EQ(st.at("allocation." + p + ".current"), allocs) << "step " << step << " " << p;
    EXPECT_EQ(st.at("allocated_bytes." + p + ".current"), allocated) << "step " << step << " " << p;
    EXPECT_EQ(st.at("active." + p + ".current"), active) << "step " << step << " " << p;
    EXPECT_EQ(st.at("active_bytes." + p + ".current"), active_bytes) << "step " << step << " " << p;
    EXPECT_EQ(st.at("requested_bytes." + p + ".current"), requested) << "step " << step << " " << p;
    EXPECT_EQ(st.at("inactive_split." + p + ".current"), split) << "step " << step << " " << p;
    EXPECT_EQ(st.at("inactive_split_bytes." + p + ".current"), split_bytes) << "step " << step << " " << p;
  }
}

/// What a random workload ended with: the blocks still live and how many mallocs ran out of memory.
struct WorkloadResult {
  std::vector<Block*> live;
  int ooms = 0;
};

/// 1500 random steps of malloc (on 3 streams), free (after record_stream on 4, a third of the
/// time), completing a stream's events and empty_cache, checking the statistics against the
/// snapshot after each step; `after_step(step)` runs after each check. Stops at the first failure.
template <class AfterStep>
WorkloadResult run_random_workload(CachingAllocator& a, MockBackend& raw, unsigned seed, AfterStep after_step) {
  std::mt19937 rng(seed);
  WorkloadResult r;
  for (int step = 0; step < 1500; ++step) {
    const unsigned op = rng() % 10;
    if (op < 5 || r.live.empty()) {
      const size_t size = rng() % 4 == 0 ? 1 + rng() % (48 * kMiB) : 1 + rng() % (600 * kKiB);
      try {
        r.live.push_back(a.malloc(size, stream(rng() % 3)));
      } catch (const OutOfMemoryError&) {
        ++r.ooms;
      }
    } else if (op < 8) {
      const size_t k = rng() % r.live.size();
      if (rng() % 3 == 0) a.record_stream(r.live[k], stream(rng() % 4));
      a.free(r.live[k]);
      r.live.erase(r.live.begin() + static_cast<std::ptrdiff_t>(k));
    } else if (op == 8) {
      raw.complete(stream(rng() % 4));
    } else if (rng() % 20 == 0) {
      a.empty_cache();
    }
    expect_stats_match_snapshot(a, step);
    if (::testing::Test::HasFailure()) break;
    after_step(step);
  }
  return r;
}

}  // namespace ctorch::api::memory::test_support
