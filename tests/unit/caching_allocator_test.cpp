// The caching-allocator policy over a mock raw backend: fake addresses, fake events completed by
// hand, no device (as CuPy tests its memory pool with mock_alloc).
#include <gtest/gtest.h>

#include <atomic>
#include <map>
#include <mutex>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "ctorch/error.h"
#include "memory/caching_allocator.h"
#include "mock_raw_backend.h"

namespace ctorch::inline api::memory {
namespace {

using namespace test_support;  // NOLINT: MockBackend and helpers

TEST(CachingAllocatorPolicy, RoundSize) {
  AllocatorConfig c;
  EXPECT_EQ(CachingAllocator::round_size(1, c), 512u);
  EXPECT_EQ(CachingAllocator::round_size(512, c), 512u);
  EXPECT_EQ(CachingAllocator::round_size(513, c), 1024u);
  EXPECT_EQ(CachingAllocator::round_size(1258291, c), 1258496u);  // 1.2 MiB -> next 512 multiple
  c = config_of("roundup_power2_divisions:4");
  EXPECT_EQ(CachingAllocator::round_size(1200, c), 1536u);  // <= 512 * 4: plain rounding
  EXPECT_EQ(CachingAllocator::round_size(1258291, c), 1310720u);  // 1.25 MiB
  EXPECT_EQ(CachingAllocator::round_size(kMiB, c), kMiB);         // powers of two stay
  EXPECT_EQ(CachingAllocator::round_size(3 * kMiB + 1, c), 3 * kMiB + kMiB / 2);  // step 512 KiB
}

TEST(CachingAllocatorPolicy, AllocationSizeAndPoolChoice) {
  EXPECT_EQ(CachingAllocator::allocation_size(512), 2 * kMiB);
  EXPECT_EQ(CachingAllocator::allocation_size(kMiB), 2 * kMiB);
  EXPECT_EQ(CachingAllocator::allocation_size(kMiB + 512), 20 * kMiB);
  EXPECT_EQ(CachingAllocator::allocation_size(10 * kMiB - 512), 20 * kMiB);
  EXPECT_EQ(CachingAllocator::allocation_size(10 * kMiB), 10 * kMiB);
  EXPECT_EQ(CachingAllocator::allocation_size(11 * kMiB + 512), 12 * kMiB);

  MockBackend raw(size_t{1} << 34);
  CachingAllocator a(0, &raw, {});
  Block* small = a.malloc(kMiB, stream(0));  // exactly 1 MiB is small
  EXPECT_EQ(get(a, "segment.small_pool.current"), 1);
  EXPECT_EQ(get(a, "reserved_bytes.small_pool.current"), int64_t(2 * kMiB));
  Block* large = a.malloc(kMiB + 1, stream(0));
  EXPECT_EQ(get(a, "segment.large_pool.current"), 1);
  EXPECT_EQ(get(a, "reserved_bytes.large_pool.current"), int64_t(20 * kMiB));
  EXPECT_EQ(get(a, "allocated_bytes.large_pool.current"), int64_t(kMiB + 512));
  EXPECT_EQ(get(a, "requested_bytes.large_pool.current"), int64_t(kMiB + 1));
  Block* huge = a.malloc(11 * kMiB + 1, stream(1));  // stream 1: the 20 MiB segment is stream 0's
  EXPECT_EQ(get(a, "reserved_bytes.all.current"), int64_t(2 * kMiB + 20 * kMiB + 12 * kMiB));
  EXPECT_EQ(get(a, "num_device_alloc"), 3);
  a.free(small);
  a.free(large);
  a.free(huge);
  EXPECT_EQ(get(a, "allocated_bytes.all.current"), 0);
  EXPECT_EQ(get(a, "reserved_bytes.all.current"), int64_t(34 * kMiB));  // cached, not returned
  a.empty_cache();
  EXPECT_EQ(get(a, "reserved_bytes.all.current"), 0);
  EXPECT_EQ(raw.used(), 0u);
  EXPECT_EQ(get(a, "num_device_free"), 3);
}

TEST(CachingAllocatorPolicy, SplitMergeAndInactiveSplitStats) {
  MockBackend raw(size_t{1} << 34);
  CachingAllocator a(0, &raw, {});
  Block* x = a.malloc(1000, stream(0));
  EXPECT_EQ(x->size, 1024u);
  EXPECT_EQ(get(a, "inactive_split.small_pool.current"), 1);  // the 2 MiB - 1 KiB rest
  EXPECT_EQ(get(a, "inactive_split_bytes.all.current"), int64_t(2 * kMiB - 1024));
  Block* y = a.malloc(1000, stream(0));
  EXPECT_EQ(y->ptr, x->ptr + 1024);  // carved from the same segment
  EXPECT_EQ(get(a, "segment.all.current"), 1);
  EXPECT_EQ(get(a, "inactive_split_bytes.all.current"), int64_t(2 * kMiB - 2048));
  a.free(x);  // [free x][y][free rest]: two inactive split blocks
  EXPECT_EQ(get(a, "inactive_split.all.current"), 2);
  EXPECT_EQ(get(a, "inactive_split_bytes.all.current"), int64_t(2 * kMiB - 1024));
  EXPECT_EQ(get(a, "active.all.current"), 1);
  a.free(y);  // merges both neighbours: one unsplit 2 MiB block
  EXPECT_EQ(get(a, "inactive_split.all.current"), 0);
  EXPECT_EQ(get(a, "inactive_split_bytes.all.current"), 0);
  const auto snap = a.snapshot();
  ASSERT_EQ(snap.size(), 1u);
  ASSERT_EQ(snap[0].blocks.size(), 1u);
  EXPECT_EQ(snap[0].blocks[0].size, 2 * kMiB);
  EXPECT_EQ(snap[0].blocks[0].state, BlockState::kInactive);
  // The merged segment is whole again, so empty_cache can return it.
  a.empty_cache();
  EXPECT_EQ(raw.used(), 0u);
}

TEST(CachingAllocatorPolicy, BestFitPicksTheSmallestFreeBlockThatFits) {
  MockBackend raw(size_t{1} << 34);
  CachingAllocator a(0, &raw, {});
  Block* b4 = a.malloc(4 * kKiB, stream(0));
  Block* pin1 = a.malloc(512, stream(0));
  Block* b8 = a.malloc(8 * kKiB, stream(0));
  Block* pin2 = a.malloc(512, stream(0));
  char* p4 = b4->ptr;
  char* p8 = b8->ptr;
  a.free(b8);
  a.free(b4);
  Block* c = a.malloc(3 * kKiB, stream(0));
  EXPECT_EQ(c->ptr, p4);  // 4 KiB is the best fit, even though the 8 KiB block was freed first
  Block* d = a.malloc(6 * kKiB, stream(0));
  EXPECT_EQ(d->ptr, p8);
  EXPECT_EQ(get(a, "num_device_alloc"), 1);
  for (Block* b : {c, d, pin1, pin2}) a.free(b);
  EXPECT_EQ(get(a, "active.all.current"), 0);
}

TEST(CachingAllocatorPolicy, LargePoolSplitsOnlyWhenMoreThanOneMiBRemains) {
  MockBackend raw(size_t{1} << 34);
  CachingAllocator a(0, &raw, {});
  Block* b = a.malloc(12 * kMiB, stream(0));
  char* p = b->ptr;
  a.free(b);
  Block* whole = a.malloc(11 * kMiB, stream(0));  // 1 MiB would remain: not > kSmallSize
  EXPECT_EQ(whole->ptr, p);
  EXPECT_EQ(whole->size, 12 * kMiB);
  EXPECT_EQ(get(a, "allocated_bytes.all.current"), int64_t(12 * kMiB));  // counts the whole block
  EXPECT_EQ(get(a, "requested_bytes.all.current"), int64_t(11 * kMiB));
  a.free(whole);
  Block* part = a.malloc(10 * kMiB, stream(0));  // 2 MiB remain: split
  EXPECT_EQ(part->size, 10 * kMiB);
  EXPECT_EQ(get(a, "inactive_split_bytes.large_pool.current"), int64_t(2 * kMiB));
  a.free(part);
  EXPECT_EQ(get(a, "num_device_alloc"), 1);
}

TEST(CachingAllocatorPolicy, FreeBlocksAreReusedOnlyOnTheirStream) {
  MockBackend raw(size_t{1} << 34);
  CachingAllocator a(0, &raw, {});
  Block* b = a.malloc(4096, stream(0));
  char* p = b->ptr;
  a.free(b);
  Block* other = a.malloc(4096, stream(1));
  EXPECT_NE(other->ptr, p);
  EXPECT_EQ(get(a, "num_device_alloc"), 2);
  Block* same = a.malloc(4096, stream(0));
  EXPECT_EQ(same->ptr, p);
  EXPECT_EQ(get(a, "num_device_alloc"), 2);
  a.free(other);
  a.free(same);
  EXPECT_THROW(a.malloc(16, stream(0, 1)), ValueError);  // a stream of another device
}

TEST(CachingAllocatorPolicy, RecordStreamDefersTheFreeUntilTheEventCompletes) {
  MockBackend raw(size_t{1} << 34);
  CachingAllocator a(0, &raw, {});
  Block* b = a.malloc(12 * kMiB, stream(0));
  char* p = b->ptr;
  a.record_stream(b, stream(0));  // the allocation stream: ignored
  a.record_stream(b, stream(7));
  a.free(b);
  EXPECT_EQ(get(a, "allocation.all.current"), 0);
  EXPECT_EQ(get(a, "allocated_bytes.all.current"), 0);
  EXPECT_EQ(get(a, "active.all.current"), 1);  // pending free
  EXPECT_EQ(get(a, "active_bytes.all.current"), int64_t(12 * kMiB));
  EXPECT_EQ(get(a, "requested_bytes.all.current"), int64_t(12 * kMiB));
  ASSERT_EQ(a.snapshot().size(), 1u);
  EXPECT_EQ(a.snapshot()[0].blocks[0].state, BlockState::kActivePendingFree);
  // Stream 7 may still use the block: the next request on stream 0 must not get it.
  Block* c = a.malloc(12 * kMiB, stream(0));
  EXPECT_NE(c->ptr, p);
  a.free(c);
  EXPECT_EQ(get(a, "active.all.current"), 1);
  raw.complete(stream(7));
  Block* d = a.malloc(512, stream(0));  // malloc polls events first
  EXPECT_EQ(get(a, "active.all.current"), 1);  // only d
  EXPECT_EQ(get(a, "active_bytes.large_pool.current"), 0);
  a.free(d);
  Block* e = a.malloc(12 * kMiB, stream(0));
  EXPECT_TRUE(e->ptr == p || e->ptr == c->ptr);
  a.free(e);
  EXPECT_EQ(raw.syncs, 0);  // nothing blocked so far
}

TEST(CachingAllocatorPolicy, EmptyCacheWaitsForPendingEvents) {
  MockBackend raw(size_t{1} << 34);
  CachingAllocator a(0, &raw, {});
  Block* b = a.malloc(4096, stream(0));
  a.record_stream(b, stream(3));
  a.record_stream(b, stream(0, 1));  // a stream of another device is allowed
  a.free(b);
  EXPECT_EQ(get(a, "active.all.current"), 1);
  a.empty_cache();
  EXPECT_EQ(raw.syncs, 2);
  EXPECT_EQ(get(a, "num_sync_all_streams"), 1);
  EXPECT_EQ(get(a, "active.all.current"), 0);
  EXPECT_EQ(get(a, "reserved_bytes.all.current"), 0);
  EXPECT_EQ(raw.used(), 0u);
  EXPECT_TRUE(a.reset());
  EXPECT_EQ(raw.live_events(), 0u);  // pooled events destroyed
}

TEST(CachingAllocatorPolicy, FreesTheCacheAndRetriesBeforeOom) {
  MockBackend raw(40 * kMiB);
  CachingAllocator a(0, &raw, {});
  a.free(a.malloc(12 * kMiB, stream(0)));
  Block* big = a.malloc(30 * kMiB, stream(0));  // 12 cached + 30 > 40: flush, retry
  ASSERT_NE(big, nullptr);
  EXPECT_EQ(get(a, "num_alloc_retries"), 1);
  EXPECT_EQ(get(a, "num_sync_all_streams"), 1);
  EXPECT_EQ(get(a, "num_device_free"), 1);
  EXPECT_EQ(get(a, "reserved_bytes.all.current"), int64_t(30 * kMiB));
  EXPECT_EQ(get(a, "reserved_bytes.all.peak"), int64_t(30 * kMiB));  // never held 42 MiB
  EXPECT_EQ(get(a, "num_ooms"), 0);
  a.free(big);
}

TEST(CachingAllocatorPolicy, OomMessageMatchesPyTorchAndChangesOnlyCounters) {
  MockBackend raw(40 * kMiB);
  CachingAllocator a(0, &raw, {});
  Block* live = a.malloc(30 * kMiB, stream(0));
  const auto before = flatten_stats(a.stats());
  const std::string msg = oom_message(a, 20 * kMiB);
  EXPECT_EQ(msg.rfind("CUDA out of memory. Tried to allocate 20.00 MiB. GPU 0 has a total capacity of 40.00 MiB of "
                      "which 10.00 MiB is free. Of the allocated memory 30.00 MiB is allocated by PyTorch, and 0 "
                      "bytes is reserved by PyTorch but unallocated. If reserved but unallocated memory is large try "
                      "setting PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.  See "
                      "documentation for Memory Management  "
                      "(https://pytorch.org/docs/stable/notes/cuda.html#environment-variables)",
                      0),
            0u)
      << msg;
  EXPECT_NE(msg.find("No free cached block"), std::string::npos) << msg;
  auto after = flatten_stats(a.stats());
  EXPECT_EQ(after["num_ooms"], 1);
  EXPECT_EQ(after["num_alloc_retries"], 1);
  // Everything else is as before, apart from the cache flush's sync counter.
  for (const auto& [key, value] : before) {
    if (key == "num_ooms" || key == "num_alloc_retries" || key == "num_sync_all_streams") continue;
    EXPECT_EQ(after[key], value) << key;
  }
  // A 100-byte request reports the 2 MiB segment it tried to allocate.
  a.free(live);
  Block* fill = a.malloc(39 * kMiB, stream(0));  // 40 MiB segment
  EXPECT_NE(oom_message(a, 100, stream(1)).find("Tried to allocate 2.00 MiB."), std::string::npos);
  a.free(fill);
  // The device stays usable.
  Block* ok = a.malloc(20 * kMiB, stream(0));
  EXPECT_NE(ok, nullptr);
  a.free(ok);
  EXPECT_THROW(a.malloc(kOneExaByte, stream(0)), OutOfMemoryError);
}

TEST(CachingAllocatorPolicy, OomNamesFragmentation) {
  MockBackend raw(24 * kMiB);
  CachingAllocator a(0, &raw, {});
  Block* x = a.malloc(2 * kMiB, stream(0));  // a 20 MiB segment, split
  Block* y = a.malloc(2 * kMiB, stream(0));
  a.free(x);  // free: [2 MiB] [y] [16 MiB]
  const std::string msg = oom_message(a, 17 * kMiB);
  EXPECT_NE(msg.find("Tried to allocate 18.00 MiB"), std::string::npos) << msg;
  EXPECT_NE(msg.find("and 18.00 MiB is reserved by PyTorch but unallocated"), std::string::npos) << msg;
  EXPECT_NE(msg.find("Largest free cached block: 16.00 MiB"), std::string::npos) << msg;
  EXPECT_NE(msg.find("This OOM is caused by fragmentation"), std::string::npos) << msg;
  a.free(y);
}

TEST(CachingAllocatorPolicy, MemoryFractionCapsReservedBytes) {
  MockBackend raw(100 * kMiB);
  CachingAllocator a(0, &raw, {});
  EXPECT_DOUBLE_EQ(a.memory_fraction(), 1.0);
  a.set_memory_fraction(0.5);
  EXPECT_DOUBLE_EQ(a.memory_fraction(), 0.5);
  EXPECT_THROW(a.set_memory_fraction(1.5), ValueError);
  Block* b = a.malloc(30 * kMiB, stream(0));
  const std::string msg = oom_message(a, 30 * kMiB);
  EXPECT_NE(msg.find("of which 70.00 MiB is free. 50.00 MiB allowed; Of the allocated memory"), std::string::npos)
      << msg;
  EXPECT_EQ(msg.find("device memory is fragmented"), std::string::npos) << msg;
  Block* c = a.malloc(20 * kMiB, stream(0));  // exactly up to the limit
  EXPECT_EQ(get(a, "reserved_bytes.all.current"), int64_t(50 * kMiB));
  a.free(b);
  a.free(c);
}

TEST(CachingAllocatorPolicy, OversizeBlocksWithMaxSplitSize) {
  MockBackend raw(size_t{1} << 34);
  CachingAllocator a(0, &raw, config_of("max_split_size_mb:20"));
  EXPECT_EQ(get(a, "max_split_size"), int64_t(20 * kMiB));
  Block* big = a.malloc(24 * kMiB, stream(0));
  EXPECT_EQ(get(a, "oversize_allocations.current"), 1);
  EXPECT_EQ(get(a, "oversize_segments.current"), 1);
  char* p = big->ptr;
  a.free(big);
  EXPECT_EQ(get(a, "oversize_allocations.current"), 0);
  Block* small = a.malloc(12 * kMiB, stream(0));  // must not take the oversize block
  EXPECT_NE(small->ptr, p);
  Block* near = a.malloc(22 * kMiB, stream(0));  // oversize request within +20 MiB: reuses it, unsplit
  EXPECT_EQ(near->ptr, p);
  EXPECT_EQ(near->size, 24 * kMiB);
  a.free(near);
  Block* far = a.malloc(4 * kMiB, stream(0));  // a new 20 MiB segment: >= max_split_size, so oversize too
  EXPECT_EQ(get(a, "oversize_segments.current"), 2);
  EXPECT_EQ(far->size, 4 * kMiB);  // but the request is not oversize, so the segment is split
  a.free(far);
  a.free(small);
}

TEST(CachingAllocatorPolicy, ReleasesOversizeCachedBlocksBeforeFlushingEverything) {
  MockBackend raw(60 * kMiB);
  CachingAllocator a(0, &raw, config_of("max_split_size_mb:20"));
  a.free(a.malloc(44 * kMiB, stream(0)));  // cached oversize
  Block* keep = a.malloc(4 * kMiB, stream(0));  // 20 MiB segment, stays split
  // 44 MiB is more than 22 + 20 MiB: not reused; 44 + 20 + 22 > 60: the oversize block is freed.
  Block* big = a.malloc(22 * kMiB, stream(0));
  EXPECT_EQ(get(a, "num_alloc_retries"), 0);  // no full flush needed
  EXPECT_EQ(get(a, "num_sync_all_streams"), 0);
  EXPECT_EQ(get(a, "num_device_free"), 1);
  a.free(big);
  a.free(keep);
}

TEST(CachingAllocatorPolicy, GarbageCollectionFreesOldCachedSegments) {
  MockBackend raw(100 * kMiB);
  CachingAllocator a(0, &raw, config_of("garbage_collection_threshold:0.5"));
  a.set_memory_fraction(1.0);
  Block* x = a.malloc(40 * kMiB, stream(0));
  Block* y = a.malloc(20 * kMiB, stream(0));
  a.free(x);
  a.free(y);
  EXPECT_EQ(get(a, "reserved_bytes.all.current"), int64_t(60 * kMiB));
  Block* z = a.malloc(30 * kMiB, stream(1));  // no fit on stream 1: reserved 60 > 50 -> collect
  EXPECT_EQ(get(a, "num_device_free"), 2);
  EXPECT_EQ(get(a, "reserved_bytes.all.current"), int64_t(30 * kMiB));
  EXPECT_EQ(get(a, "num_alloc_retries"), 0);
  a.free(z);
  // Without a threshold the cache is kept.
  MockBackend raw2(100 * kMiB);
  CachingAllocator b(0, &raw2, {});
  b.set_memory_fraction(1.0);
  b.free(b.malloc(40 * kMiB, stream(0)));
  b.free(b.malloc(30 * kMiB, stream(1)));
  EXPECT_EQ(get(b, "reserved_bytes.all.current"), int64_t(70 * kMiB));
}

TEST(CachingAllocatorPolicy, StatsKeysAndPeaks) {
  MockBackend raw(size_t{1} << 34);
  CachingAllocator a(0, &raw, {});
  const auto keys = flatten_stats(a.stats());
  EXPECT_EQ(keys.size(), 9u * 3 * 4 + 2 * 4 + 6);
  for (const char* k : {"allocation.all.current", "segment.small_pool.peak", "active.large_pool.allocated",
                        "inactive_split.all.freed", "allocated_bytes.all.current", "reserved_bytes.all.peak",
                        "active_bytes.small_pool.current", "inactive_split_bytes.large_pool.current",
                        "requested_bytes.all.current", "oversize_allocations.peak", "oversize_segments.freed",
                        "num_alloc_retries", "num_ooms", "num_sync_all_streams", "num_device_alloc",
                        "num_device_free", "max_split_size"}) {
    EXPECT_EQ(keys.count(k), 1u) << k;
  }
  EXPECT_EQ(keys.at("max_split_size"), -1);
  EXPECT_EQ(keys.begin()->first, "active.all.allocated");  // sorted as Python's sorted()
  Block* b = a.malloc(3000, stream(0));
  Block* c = a.malloc(5000, stream(0));
  a.free(b);
  EXPECT_EQ(get(a, "allocated_bytes.all.current"), 5120);
  EXPECT_EQ(get(a, "allocated_bytes.all.peak"), 3072 + 5120);
  EXPECT_EQ(get(a, "allocated_bytes.all.allocated"), 3072 + 5120);
  EXPECT_EQ(get(a, "allocated_bytes.all.freed"), 3072);
  EXPECT_EQ(get(a, "allocation.small_pool.allocated"), 2);
  a.reset_peak_stats();
  EXPECT_EQ(get(a, "allocated_bytes.all.peak"), 5120);
  a.reset_accumulated_stats();
  EXPECT_EQ(get(a, "allocated_bytes.all.allocated"), 0);
  EXPECT_EQ(get(a, "num_device_alloc"), 0);
  EXPECT_EQ(get(a, "allocated_bytes.all.current"), 5120);
  // The snapshot adds up to the statistics.
  size_t total = 0, allocated = 0;
  for (const SegmentInfo& s : a.snapshot()) {
    total += s.total_size;
    allocated += s.allocated_size;
  }
  EXPECT_EQ(int64_t(total), get(a, "reserved_bytes.all.current"));
  EXPECT_EQ(int64_t(allocated), get(a, "allocated_bytes.all.current"));
  char* cp = c->ptr;
  EXPECT_FALSE(a.free_ptr(cp + 512));  // not the start of a block
  EXPECT_TRUE(a.free_ptr(cp));
  EXPECT_FALSE(a.free_ptr(cp));  // double free
  EXPECT_EQ(get(a, "allocation.all.current"), 0);
}


TEST(CachingAllocatorPolicy, StatisticsEqualSnapshotSumsThroughARandomWorkload) {
  MockBackend raw(256 * kMiB);
  CachingAllocator a(0, &raw, config_of("max_split_size_mb:40"));
  int pending_steps = 0;
  auto [live, ooms] = run_random_workload(a, raw, 1234, [&](int) {
    pending_steps += get(a, "active.all.current") > get(a, "allocation.all.current");
  });
  // The workload covered OOMs, flushes and pending frees.
  EXPECT_GT(ooms, 0);
  EXPECT_GT(pending_steps, 0);
  EXPECT_GT(get(a, "num_alloc_retries"), 0);
  EXPECT_GT(get(a, "oversize_segments.allocated"), 0);
  EXPECT_EQ(get(a, "num_ooms"), ooms);
  for (Block* b : live) a.free(b);
  a.empty_cache();
  expect_stats_match_snapshot(a, -1);
  EXPECT_EQ(raw.used(), 0u);
  EXPECT_EQ(get(a, "reserved_bytes.all.current"), 0);
}

TEST(CachingAllocatorPolicy, ConcurrentChurnLeavesNothingBehind) {
  MockBackend raw(size_t{1} << 34);
  CachingAllocator a(0, &raw, {});
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&a, t] {
      std::mt19937 rng(t);
      std::vector<Block*> mine;
      for (int i = 0; i < 3000; ++i) {
        if (mine.size() < 16 && (rng() % 3 != 0 || mine.empty())) {
          mine.push_back(a.malloc(1 + rng() % (3 * kMiB), stream(t % 2)));
        } else {
          const size_t k = rng() % mine.size();
          a.free(mine[k]);
          mine.erase(mine.begin() + static_cast<std::ptrdiff_t>(k));
        }
      }
      for (Block* b : mine) a.free(b);
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(get(a, "allocation.all.current"), 0);
  EXPECT_EQ(get(a, "active_bytes.all.current"), 0);
  EXPECT_EQ(get(a, "requested_bytes.all.current"), 0);
  EXPECT_EQ(get(a, "inactive_split.all.current"), 0);
  a.empty_cache();
  EXPECT_EQ(raw.used(), 0u);
  EXPECT_EQ(raw.bad_frees, 0);
  EXPECT_EQ(get(a, "segment.all.current"), 0);
}

}  // namespace
}  // namespace ctorch::api::memory

namespace ctorch::inline api::memory {
namespace {

// raw_alloc blocks are found by address directly; blocks from malloc by a scan of the
// allocated list. Both free exactly once, and only at their start address.
TEST(CachingAllocatorPolicy, FreePtrFindsRawAndMallocBlocks) {
  MockBackend raw(size_t{1} << 34);
  CachingAllocator a(0, &raw, {});
  const Stream s(Device(DeviceType::CUDA, 0), 0);
  char* r = static_cast<char*>(a.raw_alloc(1000, s));
  Block* m = a.malloc(3000, s);
  Block* n = a.malloc(5000, s);
  EXPECT_EQ(a.find_allocated(r)->size, 1024u);
  EXPECT_EQ(a.find_allocated(m->ptr), m);
  EXPECT_EQ(a.find_allocated(r + 512), nullptr);
  EXPECT_FALSE(a.free_ptr(r + 512));
  EXPECT_TRUE(a.free_ptr(m->ptr));  // middle of the allocated list
  EXPECT_TRUE(a.free_ptr(r));
  EXPECT_FALSE(a.free_ptr(r));  // double free
  EXPECT_FALSE(a.idle());
  a.free(n);
  EXPECT_TRUE(a.idle());
  EXPECT_EQ(a.raw_alloc(0, s), nullptr);
  EXPECT_EQ(a.stats().allocation[0].current, 0);
}

}  // namespace
}  // namespace ctorch::api::memory
