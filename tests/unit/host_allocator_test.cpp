// The pinned host caching policy (src/memory/host_allocator.h) over a mock backend: fake
// addresses, events completed by hand.
#include <gtest/gtest.h>

#include <cstdlib>
#include <map>
#include <set>

#include "ctorch/error.h"
#include "memory/host_allocator.h"

namespace ctorch::inline api::memory {
namespace {

class MockHostBackend final : public HostBackend {
 public:
  void* allocate(size_t bytes) override {
    if (fail_next) {
      fail_next = false;
      throw OutOfMemoryError("mock: no pinned memory");
    }
    ++allocs;
    void* p = std::malloc(bytes);
    live.insert(p);
    return p;
  }
  void deallocate(void* ptr) noexcept override {
    ++frees;
    live.erase(ptr);
    std::free(ptr);
  }
  void* create_event(DeviceIndex) override { return new int(0); }
  void destroy_event(void* e) noexcept override { delete static_cast<int*>(e); }
  void record_event(void* e, Stream s) override {
    recorded.insert_or_assign(e, s);
    done[e] = false;
  }
  bool query_event(void* e) override { return done[e]; }
  void synchronize_event(void* e) override { done[e] = true; }
  // Completes every event recorded on `s`.
  void finish(Stream s) {
    for (auto& [e, st] : recorded) {
      if (st == s) done[e] = true;
    }
  }

  int allocs = 0, frees = 0;
  bool fail_next = false;
  std::set<void*> live;
  std::map<void*, Stream> recorded;
  std::map<void*, bool> done;
};

const Stream kS1(Device(DeviceType::CUDA, 0), 1);
const Stream kS2(Device(DeviceType::CUDA, 0), 2);

TEST(CachingHostAllocator, RoundsToPowersOfTwoAndReusesFreedBlocks) {
  EXPECT_EQ(CachingHostAllocator::round_size(1), 1u);
  EXPECT_EQ(CachingHostAllocator::round_size(3 << 20), size_t{4} << 20);
  EXPECT_EQ(CachingHostAllocator::round_size(4096), 4096u);
  MockHostBackend backend;
  CachingHostAllocator a(&backend);
  EXPECT_EQ(a.allocate(0), nullptr);
  HostBlock* b = a.allocate(3000);
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(b->size, 4096u);
  void* p = b->ptr;
  a.free(b);
  HostBlock* c = a.allocate(2100);  // same bucket (4096): the cached block
  EXPECT_EQ(c->ptr, p);
  HostBlock* d = a.allocate(5000);  // another bucket: a new block, never a split
  EXPECT_NE(d->ptr, p);
  EXPECT_EQ(backend.allocs, 2);
  const auto s = flatten_host_stats(a.stats());
  EXPECT_EQ(s.at("allocations.current"), 2);
  EXPECT_EQ(s.at("allocated_bytes.current"), 4096 + 8192);
  EXPECT_EQ(s.at("active_requests.current"), 2);
  EXPECT_EQ(s.at("active_requests.allocated"), 3);
  EXPECT_EQ(s.at("active_bytes.current"), 4096 + 8192);
  EXPECT_EQ(s.at("num_host_alloc"), 2);
  EXPECT_EQ(s.at("num_host_free"), 0);
  EXPECT_EQ(s.at("host_alloc_time.count"), 2);
  a.free(c);
  a.free(d);
  a.empty_cache();
  EXPECT_EQ(backend.frees, 2);
  EXPECT_TRUE(backend.live.empty());
  const auto t = flatten_host_stats(a.stats());
  EXPECT_EQ(t.at("allocations.current"), 0);
  EXPECT_EQ(t.at("allocations.peak"), 2);
  EXPECT_EQ(t.at("allocated_bytes.freed"), 4096 + 8192);
  EXPECT_EQ(t.at("num_host_free"), 2);
  EXPECT_EQ(t.size(), 28u);
}

TEST(CachingHostAllocator, BlockWaitsForTheEventsOfItsCopies) {
  MockHostBackend backend;
  CachingHostAllocator a(&backend);
  HostBlock* b = a.allocate(1000);
  void* p = b->ptr;
  EXPECT_TRUE(a.record_event(b, kS1));
  EXPECT_TRUE(a.record_event(b, kS2));
  EXPECT_TRUE(a.record_event(b, kS1));  // a stream counts once
  a.free(b);
  EXPECT_EQ(backend.recorded.size(), 2u);  // one event per stream
  EXPECT_EQ(a.stats().active_requests.current, 1);  // freed but not reusable
  HostBlock* c = a.allocate(1000);
  EXPECT_NE(c->ptr, p);  // the copies may still read or write p
  backend.finish(kS1);
  HostBlock* d = a.allocate(1000);
  EXPECT_NE(d->ptr, p);  // kS2's copy is still pending
  backend.finish(kS2);
  HostBlock* e = a.allocate(1000);
  EXPECT_EQ(e->ptr, p);  // both events done: reused
  EXPECT_EQ(backend.allocs, 3);
  for (HostBlock* x : {c, d, e}) a.free(x);
  EXPECT_EQ(a.cached_blocks(), 3u);
  EXPECT_TRUE(a.reset());
  EXPECT_TRUE(backend.live.empty());
}

TEST(CachingHostAllocator, EmptyCacheKeepsPendingBlocks) {
  MockHostBackend backend;
  CachingHostAllocator a(&backend);
  HostBlock* b = a.allocate(1 << 20);
  a.record_event(b, kS1);
  a.free(b);
  a.empty_cache();
  EXPECT_EQ(backend.frees, 0);  // its copy has not run yet
  backend.finish(kS1);
  a.empty_cache();
  EXPECT_EQ(backend.frees, 1);
  EXPECT_EQ(a.stats().allocations.current, 0);
}

TEST(CachingHostAllocator, RecordEventIgnoresUnknownAndFreedBlocks) {
  MockHostBackend backend;
  CachingHostAllocator a(&backend);
  HostBlock stranger;
  EXPECT_FALSE(a.record_event(&stranger, kS1));
  EXPECT_FALSE(a.record_event(nullptr, kS1));
  HostBlock* b = a.allocate(64);
  a.free(b);
  EXPECT_FALSE(a.record_event(b, kS1));  // cached, not live
  EXPECT_TRUE(backend.recorded.empty());
}

TEST(CachingHostAllocator, BackendFailureChangesNothing) {
  MockHostBackend backend;
  CachingHostAllocator a(&backend);
  backend.fail_next = true;
  EXPECT_THROW(a.allocate(100), OutOfMemoryError);
  const HostStats s = a.stats();
  EXPECT_EQ(s.allocations.current, 0);
  EXPECT_EQ(s.active_requests.current, 0);
  EXPECT_EQ(s.num_host_alloc, 0);
  HostBlock* b = a.allocate(100);
  EXPECT_NE(b, nullptr);
  a.free(b);
  a.reset_accumulated_stats();
  EXPECT_EQ(a.stats().num_host_alloc, 0);
  EXPECT_EQ(a.stats().active_requests.allocated, 0);
  EXPECT_EQ(a.stats().allocations.peak, 1);
  a.reset_peak_stats();
  EXPECT_EQ(a.stats().active_requests.peak, 0);
}

}  // namespace
}  // namespace ctorch::api::memory
