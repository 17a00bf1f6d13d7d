// The caching allocator's CUDA-graph private pools (Note [Private pools]) over the mock raw backend.
#include <gtest/gtest.h>

#include <string>

#include "ctorch/error.h"
#include "memory/caching_allocator.h"
#include "mock_raw_backend.h"

namespace ctorch::inline api::memory {
namespace {

using namespace test_support;  // NOLINT: MockBackend and helpers

StreamFilter only(StreamId id) {
  return [id](Stream s) { return s.id() == id; };
}

TEST(CachingAllocatorGraphPools, CaptureAllocatesFromItsOwnPool) {
  MockBackend raw(size_t{1} << 34);
  CachingAllocator a(0, &raw, {});
  Block* cached = a.malloc(1000, stream(1));
  char* cached_ptr = cached->ptr;
  a.free(cached);  // a free block of stream 1 in the global small pool
  const MempoolId id{1, 0};
  a.begin_allocate_to_pool(id, only(1));
  EXPECT_EQ(a.private_pool_use_count(id), 1);
  Block* x = a.malloc(1000, stream(1));
  ASSERT_NE(x->pool->owner, nullptr);  // not the cached global block
  EXPECT_NE(x->ptr, cached_ptr);
  EXPECT_EQ(get(a, "num_device_alloc"), 2);
  EXPECT_EQ(get(a, "segment.small_pool.current"), 2);  // private blocks count in their size's pool
  Block* other = a.malloc(1000, stream(2));            // a stream the filter does not take
  EXPECT_EQ(other->pool->owner, nullptr);
  char* x_ptr = x->ptr;
  a.free(x);  // stays in the private pool
  Block* y = a.malloc(1000, stream(1));
  EXPECT_EQ(y->ptr, x_ptr);
  EXPECT_NE(y->pool->owner, nullptr);
  a.end_allocate_to_pool(id);
  Block* z = a.malloc(1000, stream(1));  // capture over: the global pool again
  EXPECT_EQ(z->pool->owner, nullptr);
  EXPECT_EQ(z->ptr, cached_ptr);
  // Released while y (a tensor made during capture) is alive: its segment stays until y is freed.
  a.release_pool(id);
  EXPECT_EQ(a.private_pool_use_count(id), 0);
  a.empty_cache();
  EXPECT_EQ(a.private_pool_use_count(id), 0);
  EXPECT_EQ(get(a, "allocated_bytes.all.current"), 3 * 1024);
  a.free(y);
  a.empty_cache();
  EXPECT_EQ(a.private_pool_use_count(id), -1);  // erased with its last segment
  a.free(z);
  a.free(other);
  a.empty_cache();
  EXPECT_EQ(raw.used(), 0u);
}

TEST(CachingAllocatorGraphPools, SharedPoolCountsUsesAndRefusesConcurrentRecording) {
  MockBackend raw(size_t{1} << 34);
  CachingAllocator a(0, &raw, {});
  const MempoolId id{0, 7};
  a.begin_allocate_to_pool(id, only(1));
  try {
    a.begin_allocate_to_pool(id, only(3));
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()).find("beginAllocateToPool: already recording to mempool_id"), 0u);
  }
  EXPECT_EQ(a.private_pool_use_count(id), 1);  // the failed call changed nothing
  Block* x = a.malloc(4096, stream(1));
  char* x_ptr = x->ptr;
  a.free(x);
  a.end_allocate_to_pool(id);
  EXPECT_THROW(a.end_allocate_to_pool(id), Error);
  // A second graph shares the pool: it reuses the first graph's freed block.
  a.begin_allocate_to_pool(id, only(1));
  EXPECT_EQ(a.private_pool_use_count(id), 2);
  Block* y = a.malloc(4096, stream(1));
  EXPECT_EQ(y->ptr, x_ptr);
  EXPECT_EQ(get(a, "num_device_alloc"), 1);
  a.free(y);
  a.end_allocate_to_pool(id);
  a.release_pool(id);
  a.empty_cache();
  EXPECT_EQ(raw.used(), 2 * kMiB);  // one graph still holds the pool
  a.release_pool(id);
  a.empty_cache();
  EXPECT_EQ(raw.used(), 0u);
  EXPECT_EQ(a.private_pool_use_count(id), -1);
}

TEST(CachingAllocatorGraphPools, NoEventWorkDuringCapture) {
  MockBackend raw(size_t{1} << 34);
  CachingAllocator a(0, &raw, {});
  Block* b = a.malloc(1000, stream(0));
  a.record_stream(b, stream(5));
  a.begin_allocate_to_pool({1, 0}, only(1));
  a.free(b);  // used on stream 5: its event is recorded only once no capture is underway
  EXPECT_EQ(raw.live_events(), 0u);
  EXPECT_EQ(get(a, "active_bytes.all.current"), 1024);
  Block* d = a.malloc(1000, stream(0));  // no process_events while capturing
  EXPECT_EQ(raw.live_events(), 0u);
  a.end_allocate_to_pool({1, 0});
  Block* c = a.malloc(1000, stream(0));  // now the deferred free records its event
  EXPECT_EQ(raw.live_events(), 1u);
  raw.complete(stream(5));
  a.free(c);
  a.free(d);
  a.release_pool({1, 0});
  a.empty_cache();
}

}  // namespace
}  // namespace ctorch::api::memory
