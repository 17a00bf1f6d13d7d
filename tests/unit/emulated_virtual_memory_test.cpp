// Emulated device virtual memory (Note [Emulated virtual memory]) and the caching allocator's
// expandable segments on an emulated device: capacity, translate bounds, data through mapped
// pages, OOM, mem_get_info, fraction and empty_cache.
#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <numeric>
#include <string>
#include <vector>

#include "backends/emulated/memory.h"
#include "backends/emulated/runtime.h"
#include "ctorch/emulation.h"
#include "ctorch/error.h"
#include "memory/device_allocator.h"
#include "mock_raw_backend.h"

namespace ctorch::inline api::memory {
namespace {

using backends::emulated::EmulatedRuntime;
using test_support::expect_stats_match_snapshot;
using test_support::get;

constexpr size_t kMiB = size_t{1} << 20;

cuda::EmulationConfig one_device(size_t memory) {
  cuda::EmulationConfig c;
  c.devices = 1;
  c.memory = memory;
  return c;
}

size_t free_bytes(EmulatedRuntime& rt) {
  size_t free = 0, total = 0;
  rt.memory_info(0, &free, &total);
  return free;
}

TEST(EmulatedVirtualMemory, MappedPagesShareTheDeviceCapacity) {
  EmulatedRuntime rt(one_device(64 * kMiB));
  impl::VirtualMemory* vm = impl::virtual_memory(rt);
  ASSERT_NE(vm, nullptr);
  auto* base = static_cast<char*>(vm->reserve_address_range(0, 72 * kMiB, 2 * kMiB));
  ASSERT_NE(base, nullptr);
  DeviceIndex owner = -1;
  EXPECT_TRUE(rt.owns(base + 70 * kMiB, &owner));
  EXPECT_EQ(owner, 0);
  EXPECT_THROW(rt.translate(base, 16, 0), Error);  // reserved, not mapped
  ASSERT_TRUE(vm->map_pages(0, base, 0, 4 * kMiB));
  EXPECT_EQ(free_bytes(rt), 60 * kMiB);
  auto* alias = static_cast<unsigned char*>(rt.translate(base, 4 * kMiB, 0));
  EXPECT_EQ(alias[0], backends::emulated::kFreshByte);
  EXPECT_EQ(alias[4 * kMiB - 1], backends::emulated::kFreshByte);
  try {
    rt.translate(base + 4 * kMiB - 8, 16, 0);  // runs into an unmapped page
    ADD_FAILURE() << "expected an illegal memory access";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("is not mapped"), std::string::npos) << e.what();
  }
  EXPECT_FALSE(vm->map_pages(0, base, 4 * kMiB, 62 * kMiB));  // 60 MiB left
  EXPECT_EQ(free_bytes(rt), 60 * kMiB);
  EXPECT_THROW(rt.raw_allocate(0, 61 * kMiB), OutOfMemoryError);  // raw allocations see the mapped pages
  void* raw = rt.raw_allocate(0, 60 * kMiB);
  EXPECT_FALSE(vm->map_pages(0, base, 4 * kMiB, 2 * kMiB));
  rt.raw_free(0, raw);
  // Data written through a copy comes back, across two separately mapped pages.
  ASSERT_TRUE(vm->map_pages(0, base, 4 * kMiB, 2 * kMiB));
  const Stream s = rt.create_stream(0, 0);
  std::vector<int> src(1 << 20), dst(1 << 20, 0);
  std::iota(src.begin(), src.end(), 7);
  char* dev = base + 4 * kMiB - 2 * kMiB;  // spans [2, 6) MiB
  rt.copy_async(dev, 0, src.data(), -1, src.size() * sizeof(int), s);
  rt.copy_async(dst.data(), -1, dev, 0, dst.size() * sizeof(int), s);
  rt.synchronize_stream(s);
  EXPECT_EQ(dst, src);
  // Reconfiguring is refused while a reservation is alive.
  EXPECT_THROW(rt.configure(one_device(64 * kMiB)), Error);
  vm->unmap_pages(0, base, 0, 6 * kMiB);
  EXPECT_EQ(free_bytes(rt), 64 * kMiB);
  EXPECT_THROW(rt.translate(base, 16, 0), Error);
  ASSERT_TRUE(vm->map_pages(0, base, 0, 2 * kMiB));  // release unmaps what is left
  vm->release_address_range(0, base);
  EXPECT_EQ(free_bytes(rt), 64 * kMiB);
  EXPECT_FALSE(rt.owns(base, &owner));
  rt.synchronize_device(0);  // no sticky error: every call was valid
  EXPECT_NO_THROW(rt.configure(one_device(64 * kMiB)));
  // Bad arguments: a page size that is not a multiple of the host page, a range not reserved.
  EXPECT_THROW(vm->reserve_address_range(0, 3000, 1000), ValueError);
  int dummy = 0;
  EXPECT_THROW(vm->map_pages(0, &dummy, 0, 2 * kMiB), Error);
}

TEST(EmulatedVirtualMemory, ExpandableSegmentsOnAnEmulatedDevice) {
  EmulatedRuntime rt(one_device(64 * kMiB));
  std::unique_ptr<RawBackend> backend = make_runtime_backend(&rt, 0);
  {
    CachingAllocator a(0, backend.get(), parse_allocator_config("expandable_segments:True"));
    ASSERT_TRUE(a.expandable_segments());
    const Stream s = rt.create_stream(0, 0);
    Block* x = a.malloc(4 * kMiB, s);
    Block* y = a.malloc(30 * kMiB, s);  // grows the segment to 40 MiB: y spans both pages
    EXPECT_EQ(y->ptr, x->ptr + 4 * kMiB);
    EXPECT_EQ(free_bytes(rt), 24 * kMiB);
    EXPECT_EQ(get(a, "reserved_bytes.all.current"), int64_t(40 * kMiB));
    std::vector<char> src(30 * kMiB), dst(30 * kMiB, 0);
    for (size_t i = 0; i < src.size(); ++i) src[i] = static_cast<char>(i * 31 + 5);
    rt.copy_async(y->ptr, 0, src.data(), -1, src.size(), s);
    rt.copy_async(dst.data(), -1, y->ptr, 0, dst.size(), s);
    rt.synchronize_stream(s);
    EXPECT_EQ(std::memcmp(src.data(), dst.data(), src.size()), 0);
    // The device is full at 60 MiB of pages: a 30 MiB request cannot grow the segment.
    EXPECT_THROW(a.malloc(30 * kMiB, s), OutOfMemoryError);
    expect_stats_match_snapshot(a, 0);
    EXPECT_EQ(free_bytes(rt), 24 * kMiB);
    a.free(y);
    a.empty_cache();  // unmaps the second page
    EXPECT_EQ(free_bytes(rt), 44 * kMiB);
    EXPECT_THROW(rt.translate(x->ptr + 24 * kMiB, 16, 0), Error);  // unmapped now
    expect_stats_match_snapshot(a, 1);
    a.set_memory_fraction(0.5);  // 32 MiB: one more 20 MiB page would pass it
    EXPECT_THROW(a.malloc(20 * kMiB, s), OutOfMemoryError);
    a.free(x);
    a.empty_cache();
    EXPECT_EQ(free_bytes(rt), 64 * kMiB);
    EXPECT_EQ(get(a, "segment.all.current"), 0);
  }
  rt.synchronize_device(0);
  EXPECT_NO_THROW(rt.configure(one_device(64 * kMiB)));  // every reservation was released
}

}  // namespace
}  // namespace ctorch::api::memory
