// Expandable segments (Note [Expandable segments]) over the mock backend's fake reservations:
// growth, reuse, filling holes, unmapping on empty_cache, OOM while growing, and statistics equal
// to the snapshot's sums through a random workload.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "memory/expandable_segment.h"
#include "mock_raw_backend.h"

namespace ctorch::inline api::memory {
namespace {

using namespace test_support;  // NOLINT: MockBackend and helpers

AllocatorConfig expandable() { return config_of("expandable_segments:True"); }

TEST(ExpandableSegments, LargeRequestsTileOneSegmentThatGrowsByPages) {
  MockBackend raw(256 * kMiB);
  CachingAllocator a(0, &raw, expandable());
  ASSERT_TRUE(a.expandable_segments());
  Block* b1 = a.malloc(4 * kMiB, stream(0));
  EXPECT_EQ(raw.reserves, 1);
  EXPECT_EQ(raw.maps, 1);
  EXPECT_EQ(get(a, "reserved_bytes.large_pool.current"), int64_t(20 * kMiB));  // one 20 MiB page
  EXPECT_EQ(get(a, "segment.large_pool.current"), 1);
  Block* b2 = a.malloc(17 * kMiB, stream(0));  // 16 MiB left in the page: one more page, same segment
  EXPECT_EQ(b2->ptr, b1->ptr + 4 * kMiB);
  EXPECT_EQ(raw.reserves, 1);
  EXPECT_EQ(raw.maps, 2);
  EXPECT_EQ(get(a, "reserved_bytes.large_pool.current"), int64_t(40 * kMiB));
  EXPECT_EQ(get(a, "segment.large_pool.current"), 1);  // still one contiguous mapped range
  EXPECT_EQ(get(a, "num_device_alloc"), 2);
  EXPECT_EQ(get(a, "inactive_split.all.current"), 0);  // expandable segments have no inactive splits
  EXPECT_EQ(raw.used(), 40 * kMiB);
  // The native policy would have needed a 20 MiB and an 18 MiB segment.
  Block* s = a.malloc(1000, stream(0));  // the small pool reserves its own segment, in 2 MiB pages
  EXPECT_EQ(raw.reserves, 2);
  EXPECT_EQ(get(a, "reserved_bytes.small_pool.current"), int64_t(2 * kMiB));
  const std::vector<SegmentInfo> snap = a.snapshot();
  ASSERT_EQ(snap.size(), 2u);
  for (const SegmentInfo& seg : snap) EXPECT_TRUE(seg.is_expandable);
  expect_stats_match_snapshot(a, 0);
  for (Block* b : {b1, b2, s}) a.free(b);
  expect_stats_match_snapshot(a, 1);
}

TEST(ExpandableSegments, FreedBlocksAreReusedWithoutMapping) {
  MockBackend raw(256 * kMiB);
  CachingAllocator a(0, &raw, expandable());
  Block* b = a.malloc(6 * kMiB, stream(0));
  char* p = b->ptr;
  a.free(b);
  b = a.malloc(6 * kMiB, stream(0));
  EXPECT_EQ(b->ptr, p);
  EXPECT_EQ(raw.maps, 1);
  // Another stream gets its own segment.
  Block* other = a.malloc(6 * kMiB, stream(1));
  EXPECT_EQ(raw.reserves, 2);
  EXPECT_EQ(get(a, "segment.large_pool.current"), 2);
  a.free(b);
  a.free(other);
  expect_stats_match_snapshot(a, 0);
}

TEST(ExpandableSegments, EmptyCacheUnmapsWholeFreePagesAndReleasesEmptySegments) {
  MockBackend raw(256 * kMiB);
  CachingAllocator a(0, &raw, expandable());
  Block* x = a.malloc(4 * kMiB, stream(0));
  Block* y = a.malloc(30 * kMiB, stream(0));  // [4, 34) MiB: pages [0, 20) and [20, 40)
  EXPECT_EQ(get(a, "reserved_bytes.all.current"), int64_t(40 * kMiB));
  a.free(y);
  a.empty_cache();  // [20, 40) is a whole free page; [0, 20) still holds x
  EXPECT_EQ(raw.unmaps, 1);
  EXPECT_EQ(get(a, "reserved_bytes.all.current"), int64_t(20 * kMiB));
  EXPECT_EQ(get(a, "num_device_free"), 1);
  EXPECT_EQ(raw.used(), 20 * kMiB);
  EXPECT_EQ(raw.reservations(), 1u);
  expect_stats_match_snapshot(a, 0);
  a.free(x);
  a.empty_cache();
  EXPECT_EQ(get(a, "reserved_bytes.all.current"), 0);
  EXPECT_EQ(get(a, "segment.all.current"), 0);
  EXPECT_EQ(raw.used(), 0u);
  EXPECT_EQ(raw.reservations(), 0u);
  EXPECT_EQ(raw.releases, 1);
  EXPECT_EQ(raw.bad_unmaps + raw.bad_releases, 0);
  EXPECT_TRUE(a.snapshot().empty());
}

TEST(ExpandableSegments, HolesAreFilledAtTheLowestAddressAndRangesCountAsSegments) {
  MockBackend raw(256 * kMiB);
  CachingAllocator a(0, &raw, expandable());
  Block* x = a.malloc(4 * kMiB, stream(0));   // [0, 4)
  Block* y = a.malloc(36 * kMiB, stream(0));  // [4, 40)
  Block* z = a.malloc(10 * kMiB, stream(0));  // [40, 50): pages up to 60
  a.free(y);
  a.empty_cache();  // unmaps page [20, 40): two mapped ranges
  EXPECT_EQ(get(a, "segment.large_pool.current"), 2);
  EXPECT_EQ(get(a, "reserved_bytes.large_pool.current"), int64_t(40 * kMiB));
  std::vector<SegmentInfo> snap = a.snapshot();
  ASSERT_EQ(snap.size(), 2u);
  EXPECT_EQ(snap[0].total_size, 20 * kMiB);
  EXPECT_EQ(snap[1].address, reinterpret_cast<uintptr_t>(x->ptr) + 40 * kMiB);
  expect_stats_match_snapshot(a, 0);
  // 18 MiB fits the free 16 MiB after x plus the hole: mapped there, not at the end.
  Block* w = a.malloc(18 * kMiB, stream(0));
  EXPECT_EQ(w->ptr, x->ptr + 4 * kMiB);
  EXPECT_EQ(get(a, "segment.large_pool.current"), 1);
  EXPECT_EQ(get(a, "reserved_bytes.large_pool.current"), int64_t(60 * kMiB));
  expect_stats_match_snapshot(a, 1);
  for (Block* b : {x, z, w}) a.free(b);
}

TEST(ExpandableSegments, OomWhileGrowingLeavesTheStatisticsUnchanged) {
  MockBackend raw(64 * kMiB);
  CachingAllocator a(0, &raw, expandable());
  Block* live = a.malloc(30 * kMiB, stream(0));  // pages [0, 40); [30, 40) free but not a whole page
  const auto before = flatten_stats(a.stats());
  const auto snap_before = a.snapshot();
  const std::string msg = oom_message(a, 40 * kMiB);  // needs 30 MiB more: two pages, 80 > 64 MiB
  EXPECT_EQ(msg.rfind("CUDA out of memory. Tried to allocate 40.00 MiB. GPU 0 has a total capacity of 64.00 MiB of "
                      "which 24.00 MiB is free.",
                      0),
            0u)
      << msg;
  auto after = flatten_stats(a.stats());
  EXPECT_EQ(after["num_ooms"], 1);
  for (const auto& [key, value] : before) {
    if (key == "num_ooms" || key == "num_alloc_retries" || key == "num_sync_all_streams") continue;
    EXPECT_EQ(after[key], value) << key;
  }
  const auto snap_after = a.snapshot();
  ASSERT_EQ(snap_after.size(), snap_before.size());
  EXPECT_EQ(snap_after[0].total_size, snap_before[0].total_size);
  EXPECT_EQ(snap_after[0].blocks.size(), snap_before[0].blocks.size());
  EXPECT_EQ(raw.used(), 40 * kMiB);
  // A request that fits still grows the segment.
  Block* fits = a.malloc(20 * kMiB, stream(0));
  EXPECT_EQ(fits->ptr, live->ptr + 30 * kMiB);
  EXPECT_EQ(raw.used(), 60 * kMiB);
  a.free(fits);
  a.free(live);
  a.empty_cache();
  EXPECT_EQ(raw.used(), 0u);
}

TEST(ExpandableSegments, OomAfterAPartialGrowthKeepsNoPageMapped) {
  MockBackend raw(70 * kMiB);
  CachingAllocator a(0, &raw, expandable());
  Block* x = a.malloc(4 * kMiB, stream(0));   // [0, 4)
  Block* y = a.malloc(36 * kMiB, stream(0));  // [4, 40)
  Block* z = a.malloc(5 * kMiB, stream(0));   // [40, 45): pages [0, 60) mapped
  a.free(y);
  a.empty_cache();  // unmaps the hole [20, 40)
  a.free(z);        // [40, 60) is free but stays mapped
  EXPECT_EQ(raw.used(), 40 * kMiB);
  // 60 MiB: filling the hole succeeds (60 MiB mapped), growing the end does not (80 > 70 MiB).
  const int maps_before = raw.maps;
  EXPECT_THROW(a.malloc(60 * kMiB, stream(0)), OutOfMemoryError);
  EXPECT_EQ(raw.maps, maps_before + 1);
  // The retry's flush unmapped every whole free page, including the one just mapped.
  EXPECT_EQ(raw.used(), 20 * kMiB);
  EXPECT_EQ(get(a, "reserved_bytes.all.current"), int64_t(20 * kMiB));
  EXPECT_EQ(get(a, "segment.all.current"), 1);
  expect_stats_match_snapshot(a, 0);
  a.free(x);
  a.empty_cache();
  EXPECT_EQ(raw.used(), 0u);
  EXPECT_EQ(raw.reservations(), 0u);
}

TEST(ExpandableSegments, MemoryFractionCapsMappedBytes) {
  MockBackend raw(200 * kMiB);
  CachingAllocator a(0, &raw, expandable());
  a.set_memory_fraction(0.25);  // 50 MiB: two 20 MiB pages at most
  Block* b = a.malloc(35 * kMiB, stream(0));
  const std::string msg = oom_message(a, 10 * kMiB);  // a third page would pass 50 MiB
  EXPECT_NE(msg.find("50.00 MiB allowed; "), std::string::npos) << msg;
  EXPECT_EQ(msg.find("device memory is fragmented"), std::string::npos) << msg;
  EXPECT_EQ(get(a, "reserved_bytes.all.current"), int64_t(40 * kMiB));
  Block* c = a.malloc(5 * kMiB, stream(0));  // fits the mapped tail
  a.free(b);
  a.free(c);
}

TEST(ExpandableSegments, FallsBackToFixedSegmentsWithoutAddressSpace) {
  MockBackend raw(256 * kMiB);
  raw.fail_reserve = true;
  CachingAllocator a(0, &raw, expandable());
  Block* b = a.malloc(4 * kMiB, stream(0));
  EXPECT_EQ(raw.allocs, 1);  // a 20 MiB fixed segment
  EXPECT_EQ(get(a, "reserved_bytes.all.current"), int64_t(20 * kMiB));
  EXPECT_FALSE(a.snapshot()[0].is_expandable);
  a.free(b);
  a.empty_cache();
  EXPECT_EQ(raw.used(), 0u);
}

TEST(ExpandableSegments, HistoryRecordsMapAndUnmap) {
  MockBackend raw(256 * kMiB);
  CachingAllocator a(0, &raw, expandable());
  HistoryOptions h;
  h.trace = true;
  a.record_history(h, true);
  a.free(a.malloc(4 * kMiB, stream(0)));
  a.empty_cache();
  std::vector<cuda::TraceAction> actions;
  for (const RawTraceEntry& e : a.trace()) actions.push_back(e.action);
  const std::vector<cuda::TraceAction> expected = {cuda::TraceAction::kSegmentMap, cuda::TraceAction::kAlloc,
                                                   cuda::TraceAction::kFreeRequested,
                                                   cuda::TraceAction::kFreeCompleted,
                                                   cuda::TraceAction::kSegmentUnmap};
  EXPECT_EQ(actions, expected);
  EXPECT_STREQ(cuda::trace_action_name(cuda::TraceAction::kSegmentMap), "segment_map");
}

TEST(ExpandableSegments, StatisticsEqualSnapshotSumsThroughARandomWorkload) {
  MockBackend raw(256 * kMiB);
  CachingAllocator a(0, &raw, config_of("expandable_segments:True,max_split_size_mb:40"));
  int pending_steps = 0, multi_range_steps = 0;
  auto [live, ooms] = run_random_workload(a, raw, 4321, [&](int step) {
    EXPECT_EQ(raw.used(), static_cast<size_t>(get(a, "reserved_bytes.all.current"))) << "step " << step;
    pending_steps += get(a, "active.all.current") > get(a, "allocation.all.current");
    multi_range_steps += get(a, "segment.all.current") > static_cast<int64_t>(raw.reservations());
  });
  EXPECT_GT(ooms, 0);
  EXPECT_GT(pending_steps, 0);
  EXPECT_GT(multi_range_steps, 0);  // holes were unmapped inside segments
  EXPECT_GT(get(a, "num_alloc_retries"), 0);
  EXPECT_EQ(get(a, "num_ooms"), ooms);
  EXPECT_EQ(raw.allocs, 0);  // every byte came from mapped pages
  for (Block* b : live) a.free(b);
  a.empty_cache();
  expect_stats_match_snapshot(a, -1);
  EXPECT_EQ(raw.used(), 0u);
  EXPECT_EQ(raw.reservations(), 0u);
  EXPECT_EQ(raw.bad_unmaps + raw.bad_releases, 0);
  EXPECT_EQ(get(a, "reserved_bytes.all.current"), 0);
}

}  // namespace
}  // namespace ctorch::api::memory
