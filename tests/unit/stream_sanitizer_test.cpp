// The stream sanitizer's model without a device: SyncState and AccessTracker driven with made-up
// streams, events and addresses. The first group is PyTorch's TestEventHandler
// (test/test_cuda_sanitizer.py), case by case; then ranges, host synchronization and freed-block reuse.
#include <gtest/gtest.h>

#include <vector>

#include "sanitizer/access_tracker.h"
#include "sanitizer/sync_state.h"

namespace ctorch::inline api::sanitizer {
namespace {

Stream stream_id(int i, DeviceIndex device = 0) { return Stream(Device(DeviceType::CUDA, device), 1000 + i); }
const void* event_id(int i) { return reinterpret_cast<const void*>(static_cast<uintptr_t>(2000 + i)); }
uintptr_t tensor_id(int i) { return static_cast<uintptr_t>(0x10000 * (i + 1)); }

// PyTorch's EventHandler over the two classes: a launch checks every access, then commits them
// all only when there is no race (ctorch reports before the kernel runs).
class Handler {
 public:
  struct Touch {
    uintptr_t base;
    size_t begin = 0, end = 4;
  };
  std::vector<Race> launch(Stream s, const std::vector<Touch>& reads, const std::vector<Touch>& writes) {
    std::vector<std::pair<uintptr_t, Access>> accesses;
    for (bool write : {false, true}) {
      for (const Touch& t : write ? writes : reads) {
        Access a;
        a.write = write;
        a.stream = s;
        a.begin = t.begin;
        a.end = t.end;
        accesses.emplace_back(t.base, a);
      }
    }
    std::vector<Race> races;
    for (const auto& [base, a] : accesses) tracker.check(base, a, sync, races);
    if (races.empty()) {
      const SeqNum seq = sync.launch(s);
      for (auto& [base, a] : accesses) {
        a.seq = seq;
        tracker.commit(base, a);
      }
    }
    return races;
  }
  std::vector<Race> launch_ids(Stream s, const std::vector<int>& reads, const std::vector<int>& writes) {
    std::vector<Touch> r, w;
    for (int i : reads) r.push_back({tensor_id(i)});
    for (int i : writes) w.push_back({tensor_id(i)});
    return launch(s, r, w);
  }
  bool good(Stream s, const std::vector<int>& reads, const std::vector<int>& writes = {}) {
    return launch_ids(s, reads, writes).empty();
  }
  bool bad(Stream s, const std::vector<int>& reads, const std::vector<int>& writes = {}) {
    return !launch_ids(s, reads, writes).empty();
  }
  void record(int e, Stream s) { sync.record(event_id(e), s); }
  void wait(int e, Stream s) { sync.wait(s, event_id(e)); }

  SyncState sync;
  AccessTracker tracker;
};

TEST(StreamSanitizerModel, EmptyKernelLaunch) {
  Handler h;
  EXPECT_TRUE(h.good(stream_id(0), {}));
}

TEST(StreamSanitizerModel, SimplePassing) {
  Handler h;
  EXPECT_TRUE(h.good(stream_id(1), {1}));
  EXPECT_TRUE(h.good(stream_id(2), {1}));
}

TEST(StreamSanitizerModel, SimpleError) {
  Handler h;
  EXPECT_TRUE(h.good(stream_id(1), {1}));
  EXPECT_TRUE(h.bad(stream_id(2), {}, {1}));
}

TEST(StreamSanitizerModel, SimpleSync) {
  Handler h;
  EXPECT_TRUE(h.good(stream_id(1), {1}));
  h.record(0, stream_id(1));
  h.wait(0, stream_id(2));
  EXPECT_TRUE(h.good(stream_id(2), {}, {1}));
}

TEST(StreamSanitizerModel, ReadsCheckLastWrite) {
  Handler h;
  EXPECT_TRUE(h.good(stream_id(1), {}, {1}));
  h.record(0, stream_id(1));
  h.wait(0, stream_id(2));
  EXPECT_TRUE(h.good(stream_id(2), {1}));
  EXPECT_TRUE(h.bad(stream_id(3), {1}));
}

TEST(StreamSanitizerModel, BranchSync) {
  Handler h;
  EXPECT_TRUE(h.good(stream_id(1), {}, {1}));
  h.record(0, stream_id(1));
  h.wait(0, stream_id(2));
  h.wait(0, stream_id(3));
  EXPECT_TRUE(h.good(stream_id(2), {1}));
  EXPECT_TRUE(h.good(stream_id(3), {1}));
  EXPECT_TRUE(h.bad(stream_id(2), {}, {1}));
}

TEST(StreamSanitizerModel, ChainSync) {
  Handler h;
  const int iterations = 10;
  EXPECT_TRUE(h.good(stream_id(0), {1}));
  for (int i = 0; i < iterations; ++i) {
    h.record(i, stream_id(i));
    h.wait(i, stream_id(i + 1));
  }
  EXPECT_TRUE(h.good(stream_id(iterations), {}, {1}));
}

TEST(StreamSanitizerModel, ExpiredRecord) {
  Handler h;
  EXPECT_TRUE(h.good(stream_id(1), {1}));
  h.record(0, stream_id(1));
  EXPECT_TRUE(h.good(stream_id(1), {1}));
  h.wait(0, stream_id(2));
  EXPECT_TRUE(h.bad(stream_id(2), {}, {1}));
}

TEST(StreamSanitizerModel, DeletedRecord) {
  Handler h;
  EXPECT_TRUE(h.good(stream_id(1), {1}));
  h.record(0, stream_id(1));
  h.sync.forget_event(event_id(0));  // destroyed; the handle may come back as a new event
  h.wait(0, stream_id(2));
  EXPECT_TRUE(h.bad(stream_id(2), {}, {1}));
}

TEST(StreamSanitizerModel, AllReadsCheckedFailing) {
  Handler h;
  const int iterations = 10;
  for (int i = 1; i <= iterations; ++i) {
    EXPECT_TRUE(h.good(stream_id(i), {1}));
    h.record(i, stream_id(i));
  }
  for (int i = 1; i < iterations; ++i) h.wait(i, stream_id(0));
  const std::vector<Race> races = h.launch_ids(stream_id(0), {}, {1});
  ASSERT_EQ(races.size(), 1u);
  EXPECT_EQ(races[0].previous.stream, stream_id(iterations));  // the one read not waited for
}

TEST(StreamSanitizerModel, AllReadsCheckedPassing) {
  Handler h;
  const int iterations = 10;
  for (int i = 1; i < iterations; ++i) {
    EXPECT_TRUE(h.good(stream_id(i), {1}));
    h.record(i, stream_id(i));
  }
  for (int i = 1; i < iterations; ++i) h.wait(i, stream_id(0));
  EXPECT_TRUE(h.good(stream_id(0), {}, {1}));
}

TEST(StreamSanitizerModel, MultipleErrors) {
  Handler h;
  std::vector<int> all;
  for (int i = 0; i < 10; ++i) all.push_back(i);
  EXPECT_TRUE(h.good(stream_id(0), {}, all));
  EXPECT_EQ(h.launch_ids(stream_id(1), {}, all).size(), 10u);
}

TEST(StreamSanitizerModel, CorrectStateMerging) {
  Handler h;
  EXPECT_TRUE(h.good(stream_id(1), {}, {1}));
  EXPECT_TRUE(h.good(stream_id(2), {}, {2}));
  h.record(1, stream_id(1));
  h.record(2, stream_id(2));
  EXPECT_TRUE(h.good(stream_id(1), {}, {1}));
  EXPECT_TRUE(h.good(stream_id(2), {}, {2}));
  h.wait(1, stream_id(2));
  h.wait(2, stream_id(1));
  h.record(3, stream_id(2));
  h.wait(3, stream_id(1));
  EXPECT_TRUE(h.good(stream_id(1), {}, {1, 2}));
}

TEST(StreamSanitizerModel, RecordOverride) {
  Handler h;
  EXPECT_TRUE(h.good(stream_id(1), {1}));
  EXPECT_TRUE(h.good(stream_id(2), {2}));
  h.record(1, stream_id(1));
  h.record(1, stream_id(2));
  h.wait(1, stream_id(3));
  EXPECT_TRUE(h.bad(stream_id(3), {}, {1}));
}

TEST(StreamSanitizerModel, MultipleWait) {
  Handler h;
  EXPECT_TRUE(h.good(stream_id(1), {}, {1}));
  h.record(1, stream_id(1));
  h.wait(1, stream_id(2));
  h.wait(1, stream_id(3));
  EXPECT_TRUE(h.good(stream_id(2), {1}));
  EXPECT_TRUE(h.good(stream_id(3), {1}));
}

// --- beyond PyTorch's cases ---

TEST(StreamSanitizerModel, WaitingOnANeverRecordedEventOrdersNothing) {
  Handler h;
  EXPECT_TRUE(h.good(stream_id(1), {}, {1}));
  h.wait(7, stream_id(2));
  EXPECT_TRUE(h.bad(stream_id(2), {1}));
}

TEST(StreamSanitizerModel, HostSynchronizationOrdersLaterWorkOnEveryStream) {
  for (int how = 0; how < 3; ++how) {
    Handler h;
    EXPECT_TRUE(h.good(stream_id(1), {}, {1}));
    EXPECT_TRUE(h.good(stream_id(3), {}, {3}));  // a stream the host does not wait for
    if (how == 0) h.sync.host_waits_stream(stream_id(1));
    if (how == 1) {
      h.record(0, stream_id(1));
      h.sync.host_waits_event(event_id(0));
    }
    if (how == 2) h.sync.host_waits_device(Device(DeviceType::CUDA, 0));
    EXPECT_TRUE(h.good(stream_id(2), {1})) << how;
    EXPECT_TRUE(h.good(stream_id(5), {1})) << how;  // a stream first seen after the sync
    EXPECT_EQ(h.good(stream_id(2), {3}), how == 2) << how;
  }
}

TEST(StreamSanitizerModel, DeviceSynchronizationCoversOnlyThatDevice) {
  Handler h;
  EXPECT_TRUE(h.good(stream_id(1, 0), {}, {1}));
  EXPECT_TRUE(h.good(stream_id(1, 1), {}, {2}));
  h.sync.host_waits_device(Device(DeviceType::CUDA, 1));
  EXPECT_TRUE(h.bad(stream_id(2, 0), {1}));
  EXPECT_TRUE(h.good(stream_id(2, 0), {2}));
}

TEST(StreamSanitizerModel, AHostSyncBeforeTheLaterKernelIsNeededNotAfterTheEarlierOne) {
  Handler h;
  EXPECT_TRUE(h.good(stream_id(1), {}, {1}));
  h.sync.host_waits_stream(stream_id(1));
  EXPECT_TRUE(h.good(stream_id(1), {}, {1}));  // queued after the sync: not covered by it
  EXPECT_TRUE(h.bad(stream_id(2), {1}));
}

TEST(StreamSanitizerModel, DisjointRangesOfOneAllocationDoNotConflict) {
  Handler h;
  const uintptr_t t = tensor_id(1);
  EXPECT_TRUE(h.launch(stream_id(1), {}, {{t, 0, 64}}).empty());
  EXPECT_TRUE(h.launch(stream_id(2), {}, {{t, 64, 128}}).empty());
  EXPECT_TRUE(h.launch(stream_id(2), {{t, 100, 128}}, {}).empty());
  const std::vector<Race> races = h.launch(stream_id(2), {{t, 60, 70}}, {});
  ASSERT_EQ(races.size(), 1u);
  EXPECT_EQ(races[0].previous.stream, stream_id(1));
}

TEST(StreamSanitizerModel, AWriteSupersedesOnlyTheAccessesInsideItsRange) {
  Handler h;
  const uintptr_t t = tensor_id(1);
  EXPECT_TRUE(h.launch(stream_id(1), {}, {{t, 0, 128}}).empty());
  h.record(0, stream_id(1));
  h.wait(0, stream_id(2));
  EXPECT_TRUE(h.launch(stream_id(2), {}, {{t, 0, 64}}).empty());
  // [64, 128) is still stream 1's write: stream 3 never waited for it.
  EXPECT_FALSE(h.launch(stream_id(3), {{t, 100, 104}}, {}).empty());
  h.wait(0, stream_id(3));
  EXPECT_TRUE(h.launch(stream_id(3), {{t, 100, 104}}, {}).empty());
  EXPECT_FALSE(h.launch(stream_id(3), {{t, 0, 4}}, {}).empty());  // stream 2's write
}

TEST(StreamSanitizerModel, AFailedLaunchRecordsNothing) {
  Handler h;
  EXPECT_TRUE(h.good(stream_id(1), {}, {1}));
  EXPECT_TRUE(h.bad(stream_id(2), {}, {1}));
  h.record(0, stream_id(1));
  h.wait(0, stream_id(2));
  EXPECT_TRUE(h.good(stream_id(2), {}, {1}));  // the failed write left no access behind
}

// Note [Freed-block reuse]: allocated on stream 1, used on stream 2, freed, memory reused on stream 1.
class FreedBlock : public ::testing::Test {
 protected:
  void use_on_other_stream_then_free(bool record_stream, bool reusable = true) {
    tracker().allocated(base, 256, stream_id(1), nullptr);
    EXPECT_TRUE(h.launch(stream_id(1), {}, {{base, 0, 256}}).empty());  // initialised on its stream
    h.record(0, stream_id(1));
    h.wait(0, stream_id(2));
    EXPECT_TRUE(h.launch(stream_id(2), {{base, 0, 256}}, {}).empty());  // read on the side stream
    if (record_stream) tracker().record_stream(base, stream_id(2));
    tracker().freed(base, reusable, h.sync);
  }
  AccessTracker& tracker() { return h.tracker; }
  std::vector<Race> reuse_and_write(uintptr_t at, size_t bytes) {
    tracker().allocated(at, bytes, stream_id(1), nullptr);
    return h.launch(stream_id(1), {}, {{at, 0, bytes}});
  }

  Handler h;
  const uintptr_t base = 0x40000;
};

TEST_F(FreedBlock, ReuseWithoutRecordStreamIsARace) {
  use_on_other_stream_then_free(false);
  EXPECT_EQ(tracker().num_freed_accesses(), 1u);
  const std::vector<Race> races = reuse_and_write(base, 256);
  ASSERT_EQ(races.size(), 1u);
  EXPECT_EQ(races[0].previous.stream, stream_id(2));
  EXPECT_EQ(races[0].previous.freed_base, base);
  EXPECT_FALSE(races[0].previous.write);
}

TEST_F(FreedBlock, APartOfTheBlockReusedIsARaceToo) {
  use_on_other_stream_then_free(false);
  const std::vector<Race> races = reuse_and_write(base + 128, 64);
  ASSERT_EQ(races.size(), 1u);
  EXPECT_EQ(races[0].previous.freed_base, base);
  EXPECT_EQ(tracker().num_freed_accesses(), 1u);  // the rest of the block still carries it
}

TEST_F(FreedBlock, RecordStreamMakesReuseSafe) {
  use_on_other_stream_then_free(true);
  EXPECT_EQ(tracker().num_freed_accesses(), 0u);
  EXPECT_TRUE(reuse_and_write(base, 256).empty());
}

TEST_F(FreedBlock, WaitingBeforeTheFreeMakesReuseSafe) {
  tracker().allocated(base, 256, stream_id(1), nullptr);
  EXPECT_TRUE(h.launch(stream_id(2), {}, {{base, 0, 256}}).empty());
  h.record(1, stream_id(2));
  h.wait(1, stream_id(1));
  tracker().freed(base, true, h.sync);
  EXPECT_EQ(tracker().num_freed_accesses(), 0u);
  EXPECT_TRUE(reuse_and_write(base, 256).empty());
}

TEST_F(FreedBlock, SynchronizingBeforeTheReuseMakesItSafe) {
  use_on_other_stream_then_free(false);
  h.sync.host_waits_stream(stream_id(2));
  EXPECT_TRUE(reuse_and_write(base, 256).empty());
}

TEST_F(FreedBlock, RawFreesSynchronizeAndLeaveNothing) {
  use_on_other_stream_then_free(false, /*reusable=*/false);
  EXPECT_EQ(tracker().num_freed_accesses(), 0u);
  EXPECT_TRUE(reuse_and_write(base, 256).empty());
}

TEST_F(FreedBlock, MemoryElsewhereIsUnaffected) {
  use_on_other_stream_then_free(false);
  EXPECT_TRUE(reuse_and_write(base + 256, 256).empty());
  EXPECT_EQ(tracker().num_allocations(), 1u);
}

}  // namespace
}  // namespace ctorch::api::sanitizer
