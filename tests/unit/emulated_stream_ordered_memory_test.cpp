// The emulated stream-ordered memory pool (Note [Emulated stream-ordered memory]) on a private
// EmulatedRuntime: stream-ordered reuse, cross-stream reuse only after the free ran, internal
// dependencies under pressure, trim and release threshold, capacity/OOM and recovery, bad input.
#include <gtest/gtest.h>

#include <cstdint>
#include <future>
#include <string>

#include "backends/emulated/memory.h"
#include "backends/emulated/runtime.h"
#include "ctorch/emulation.h"
#include "ctorch/error.h"

namespace ctorch {
namespace {

using backends::emulated::EmulatedRuntime;

constexpr size_t kMiB = size_t{1} << 20;

cuda::EmulationConfig devices(int n, size_t memory) {
  cuda::EmulationConfig c;
  c.devices = n;
  c.memory = memory;
  return c;
}

// Holds streams of `rt` until open() (or destruction).
class Gate {
 public:
  explicit Gate(EmulatedRuntime& rt) : rt_(rt) {}
  ~Gate() { open(); }
  void block(Stream s) {
    std::shared_future<void> f = future_;
    rt_.enqueue(s, [f] { f.wait(); }, "gate");
  }
  void open() {
    if (!opened_) promise_.set_value();
    opened_ = true;
  }

 private:
  EmulatedRuntime& rt_;
  std::promise<void> promise_;
  std::shared_future<void> future_ = promise_.get_future().share();
  bool opened_ = false;
};

size_t free_bytes(EmulatedRuntime& rt, DeviceIndex index = 0) {
  size_t free = 0, total = 0;
  rt.memory_info(index, &free, &total);
  return free;
}

TEST(EmulatedStreamOrderedMemory, ABlockFreedOnAStreamIsReusableAtOnceOnThatStream) {
  EmulatedRuntime rt(devices(1, 64 * kMiB));
  impl::StreamOrderedMemory* so = impl::stream_ordered_memory(rt);
  ASSERT_NE(so, nullptr);
  const Stream s = rt.create_stream(0, 0);
  Gate gate(rt);
  gate.block(s);  // the free below stays queued
  void* p = so->allocate_async(0, 1000, s);
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(so->pool_attributes(0).used_current, 1024u);
  so->free_async(0, p, s);
  EXPECT_EQ(so->pool_attributes(0).used_current, 0u);
  EXPECT_EQ(so->allocate_async(0, 900, s), p);  // stream order: its work runs after the free
  const impl::PoolAttributes a = so->pool_attributes(0);
  EXPECT_EQ(a.used_current, 1024u);
  EXPECT_EQ(a.reserved_current, 1024u);
  EXPECT_EQ(a.reserved_high, 1024u);
  gate.open();
  so->free_async(0, p, s);
  rt.synchronize_device(0);
}

TEST(EmulatedStreamOrderedMemory, OtherStreamsReuseABlockOnlyAfterItsFreeRan) {
  EmulatedRuntime rt(devices(1, 64 * kMiB));
  impl::StreamOrderedMemory* so = impl::stream_ordered_memory(rt);
  const Stream s1 = rt.create_stream(0, 0), s2 = rt.create_stream(0, 0);
  ASSERT_NE(s1, s2);
  Gate gate(rt);
  gate.block(s1);
  void* p = so->allocate_async(0, 4096, s1);
  so->free_async(0, p, s1);
  void* q = so->allocate_async(0, 4096, s2);
  EXPECT_NE(q, p);  // the free has not run on s1
  EXPECT_EQ(so->pool_attributes(0).reserved_current, 8192u);
  gate.open();
  rt.synchronize_stream(s1);
  EXPECT_EQ(so->allocate_async(0, 4096, s2), p);  // now any stream may take it
  so->free_async(0, p, s2);
  so->free_async(0, q, s2);
  rt.synchronize_device(0);  // threshold 0: everything goes back to the device
  EXPECT_EQ(so->pool_attributes(0).reserved_current, 0u);
  EXPECT_EQ(free_bytes(rt), 64 * kMiB);
}

TEST(EmulatedStreamOrderedMemory, UnderPressureAPendingFreeIsReusedAfterAWait) {
  EmulatedRuntime rt(devices(1, 64 * kMiB));
  impl::StreamOrderedMemory* so = impl::stream_ordered_memory(rt);
  so->set_pool_release_threshold(0, UINT64_MAX);
  const Stream s1 = rt.create_stream(0, 0), s2 = rt.create_stream(0, 0);
  Gate gate(rt);
  gate.block(s1);
  void* p = so->allocate_async(0, 40 * kMiB, s1);
  so->free_async(0, p, s1);
  EXPECT_EQ(so->allocate_async(0, 40 * kMiB, s2), p);  // no room for a new block: wait for the free
  EXPECT_FALSE(rt.query_stream(s2));                    // s2 now waits for s1
  gate.open();
  rt.synchronize_stream(s2);
  so->free_async(0, p, s2);
  rt.synchronize_device(0);
  EXPECT_EQ(so->pool_attributes(0).reserved_current, 40 * kMiB);  // kept: threshold UINT64_MAX
}

TEST(EmulatedStreamOrderedMemory, TrimAndReleaseThresholdReturnOnlyFreesThatRan) {
  EmulatedRuntime rt(devices(1, 64 * kMiB));
  impl::StreamOrderedMemory* so = impl::stream_ordered_memory(rt);
  so->set_pool_release_threshold(0, UINT64_MAX);
  const Stream s = rt.create_stream(0, 0);
  void* a = so->allocate_async(0, 1 * kMiB, s);
  void* b = so->allocate_async(0, 2 * kMiB, s);
  void* c = so->allocate_async(0, 4 * kMiB, s);
  EXPECT_EQ(free_bytes(rt), 57 * kMiB);  // reserved memory is the device's
  Gate gate(rt);
  gate.block(s);
  for (void* p : {a, b, c}) so->free_async(0, p, s);
  so->trim_pool_to(0, 0);  // the frees have not run: nothing can go back
  EXPECT_EQ(so->pool_attributes(0).reserved_current, 7 * kMiB);
  gate.open();
  rt.synchronize_device(0);  // threshold UINT64_MAX: the pool keeps everything
  EXPECT_EQ(so->pool_attributes(0).reserved_current, 7 * kMiB);
  so->trim_pool_to(0, 3 * kMiB);  // largest first
  EXPECT_EQ(so->pool_attributes(0).reserved_current, 3 * kMiB);
  EXPECT_EQ(free_bytes(rt), 61 * kMiB);
  so->set_pool_release_threshold(0, 1 * kMiB);
  rt.synchronize_device(0);
  EXPECT_EQ(so->pool_attributes(0).reserved_current, 1 * kMiB);
  const impl::PoolAttributes peaks = so->pool_attributes(0);
  EXPECT_EQ(peaks.reserved_high, 7 * kMiB);
  EXPECT_EQ(peaks.used_high, 7 * kMiB);
  so->reset_pool_peaks(0);
  EXPECT_EQ(so->pool_attributes(0).reserved_high, 1 * kMiB);
  EXPECT_EQ(so->pool_attributes(0).used_high, 0u);
  so->trim_pool_to(0, 0);
  EXPECT_EQ(free_bytes(rt), 64 * kMiB);
}

TEST(EmulatedStreamOrderedMemory, CapacityOomAndRecovery) {
  EmulatedRuntime rt(devices(1, 64 * kMiB));
  impl::StreamOrderedMemory* so = impl::stream_ordered_memory(rt);
  so->set_pool_release_threshold(0, UINT64_MAX);
  const Stream s = rt.create_stream(0, 0);
  void* p = so->allocate_async(0, 40 * kMiB, s);
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(so->allocate_async(0, 40 * kMiB, s), nullptr);  // out of memory: nothing changes
  EXPECT_EQ(so->pool_attributes(0).reserved_current, 40 * kMiB);
  EXPECT_THROW(rt.raw_allocate(0, 40 * kMiB), OutOfMemoryError);  // the pool holds the device's memory
  so->free_async(0, p, s);
  EXPECT_EQ(so->allocate_async(0, 40 * kMiB, s), p);  // usable again
  so->free_async(0, p, s);
  rt.synchronize_stream(s);
  // Cached blocks of the wrong size go back to the device when a new block does not fit.
  void* small[5];
  for (void*& q : small) q = so->allocate_async(0, 10 * kMiB, s);
  for (void* q : small) ASSERT_NE(q, nullptr);
  for (void* q : small) so->free_async(0, q, s);
  rt.synchronize_stream(s);
  void* big = so->allocate_async(0, 60 * kMiB, s);
  ASSERT_NE(big, nullptr);
  EXPECT_EQ(so->pool_attributes(0).reserved_current, 60 * kMiB);
  so->free_async(0, big, s);
  rt.synchronize_device(0);
  so->trim_pool_to(0, 0);
  EXPECT_EQ(free_bytes(rt), 64 * kMiB);
}

TEST(EmulatedStreamOrderedMemory, BadInputIsATypedErrorAndChangesNothing) {
  EmulatedRuntime rt(devices(2, 64 * kMiB));
  impl::StreamOrderedMemory* so = impl::stream_ordered_memory(rt);
  const Stream s0 = rt.create_stream(0, 0), s1 = rt.create_stream(1, 0);
  EXPECT_THROW(so->allocate_async(0, 0, s0), ValueError);
  try {
    so->allocate_async(0, 512, s1);
    ADD_FAILURE() << "expected ValueError";
  } catch (const ValueError& e) {
    EXPECT_NE(std::string(e.what()).find("Expected a stream of cuda:0, but got"), std::string::npos) << e.what();
  }
  void* p = so->allocate_async(0, 512, s0);
  void* raw = rt.raw_allocate(0, 512);
  EXPECT_THROW(so->free_async(0, raw, s0), Error);  // not from the pool
  EXPECT_THROW(so->free_async(1, p, s1), Error);    // not from cuda:1's pool
  EXPECT_EQ(so->pool_attributes(0).used_current, 512u);
  so->free_async(0, p, s0);
  try {
    so->free_async(0, p, s0);
    ADD_FAILURE() << "expected a double-free error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("is not an allocation of the device's memory pool; double free?"),
              std::string::npos)
        << e.what();
  }
  EXPECT_EQ(so->pool_attributes(0).used_current, 0u);
  rt.raw_free(0, raw);
  EXPECT_THROW(so->pool_attributes(5), DeviceError);
}

TEST(EmulatedStreamOrderedMemory, ConfigureRefusesLiveAllocationsButNotCachedOnes) {
  EmulatedRuntime rt(devices(1, 64 * kMiB));
  impl::StreamOrderedMemory* so = impl::stream_ordered_memory(rt);
  so->set_pool_release_threshold(0, UINT64_MAX);
  const Stream s = rt.create_stream(0, 0);
  void* p = so->allocate_async(0, 1 * kMiB, s);
  EXPECT_THROW(rt.configure(devices(1, 32 * kMiB)), Error);
  so->free_async(0, p, s);
  rt.synchronize_device(0);
  EXPECT_EQ(so->pool_attributes(0).reserved_current, 1 * kMiB);
  rt.configure(devices(1, 32 * kMiB));  // the cached block goes with the old device
  EXPECT_EQ(so->pool_attributes(0).reserved_current, 0u);
  EXPECT_EQ(free_bytes(rt), 32 * kMiB);
}

}  // namespace
}  // namespace ctorch
