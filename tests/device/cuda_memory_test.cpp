// The torch.cuda memory API over the caching allocator, on emulated (and real) cuda devices.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "ctorch/cuda_memory.h"
#include "ctorch/cuda_memory_snapshot.h"
#include "ctorch/torch.h"
#include "device/device_test.h"
#include "runtime/current.h"
#include "runtime/device_runtime.h"
#include "test_util.h"

namespace ctorch {
namespace {

using testing::DeviceTest;

constexpr int64_t kMiB = 1024 * 1024;

class CudaMemory : public DeviceTest {};

using ::ctorch::testing::error_of;

TEST_P(CudaMemory, AllocatedFollowsTensorsInRoundedBlocks) {
  const int64_t base = cuda::memory_allocated(0);
  const int64_t base_reserved = cuda::memory_reserved(0);
  {
    Tensor t = empty({1000}, on_device());  // 4000 bytes -> one 4096-byte block
    EXPECT_EQ(cuda::memory_allocated(0), base + 4096);
    EXPECT_GE(cuda::memory_reserved(0), base + 4096);
    EXPECT_GE(cuda::max_memory_allocated(0), base + 4096);
    Tensor u = zeros({3, 100}, on_device(kDouble));  // 2400 bytes -> 2560
    EXPECT_EQ(cuda::memory_allocated(), base + 4096 + 2560);
    EXPECT_EQ(cuda::memory_stats(0).at("allocation.all.current"),
              cuda::memory_stats(0).at("allocation.small_pool.current") +
                  cuda::memory_stats(0).at("allocation.large_pool.current"));
    EXPECT_EQ(u.sum().item<double>(), 0.0);  // the memory really works
  }
  EXPECT_EQ(cuda::memory_allocated(0), base);
  const int64_t reserved = cuda::memory_reserved(0);
  EXPECT_GE(reserved, base_reserved);
  EXPECT_GE(reserved, 2 * kMiB);  // the freed blocks stay cached
  cuda::empty_cache();
  if (base == 0) {
    EXPECT_EQ(cuda::memory_reserved(0), 0);
  }
  EXPECT_LE(cuda::memory_reserved(0), reserved);
  EXPECT_GE(cuda::max_memory_reserved(0), reserved);
  cuda::reset_peak_memory_stats(0);
  EXPECT_EQ(cuda::max_memory_allocated(0), cuda::memory_allocated(0));
  EXPECT_EQ(cuda::max_memory_reserved(0), cuda::memory_reserved(0));
}

TEST_P(CudaMemory, LargeTensorsUseTheLargePool) {
  cuda::init();
  const auto before = cuda::memory_stats(0);
  {
    Tensor t = empty({3 * kMiB / 4 + 1}, on_device());  // 3 MiB + 4 bytes -> 3 MiB + 512
    const auto now = cuda::memory_stats(0);
    EXPECT_EQ(now.at("allocated_bytes.large_pool.current") - before.at("allocated_bytes.large_pool.current"),
              3 * kMiB + 512);
    EXPECT_EQ(now.at("requested_bytes.large_pool.current") - before.at("requested_bytes.large_pool.current"),
              3 * kMiB + 4);
  }
  EXPECT_EQ(cuda::memory_stats(0).at("allocated_bytes.large_pool.current"),
            before.at("allocated_bytes.large_pool.current"));
}

TEST_P(CudaMemory, ArgumentsAreValidated) {
  cuda::init();  // before initialization memory_stats answers {} without looking at the device (as PyTorch)
  EXPECT_NE(error_of<DeviceError>([] { cuda::memory_allocated(99); }).find("Invalid device argument 99"),
            std::string::npos);
  EXPECT_NE(error_of<ValueError>([] { cuda::memory_allocated("cpu"); }).find("Expected a cuda device, but got: cpu"),
            std::string::npos);
  EXPECT_NE(error_of<ValueError>([] { cuda::set_per_process_memory_fraction(1.5, 0); })
                .find("Invalid fraction value: 1.5. Allowed range: 0~1"),
            std::string::npos);
  EXPECT_NE(error_of<ValueError>([] { cuda::set_per_process_memory_fraction(0.5, "cuda"); })
                .find("Expected a torch.device with a specified index or an integer"),
            std::string::npos);
  EXPECT_NE(error_of<Error>([] {
              int x = 0;
              cuda::caching_allocator_delete(&x);
            }).find("invalid device pointer: 0x"),
            std::string::npos);
  EXPECT_NE(error_of<ValueError>([] { cuda::caching_allocator_alloc(-1, 0); })
                .find("Invalid memory size: -1. caching_allocator_alloc requires a non-negative size."),
            std::string::npos);
  EXPECT_DOUBLE_EQ(cuda::get_per_process_memory_fraction(0), 1.0);
  EXPECT_EQ(cuda::get_allocator_backend(), "native");
  Tensor cpu_tensor = ones({2});
  EXPECT_THROW(cpu_tensor.record_stream(impl::current_stream(Device(DeviceType::CUDA, 0))), NotImplementedError);
}

TEST_P(CudaMemory, StatsHaveEveryPyTorchKey) {
  cuda::init();
  const auto stats = cuda::memory_stats(0);
  EXPECT_EQ(stats.size(), 122u);
  for (const char* k : {"allocated_bytes.all.current", "reserved_bytes.large_pool.peak", "active.small_pool.freed",
                        "inactive_split_bytes.all.allocated", "requested_bytes.all.current", "segment.all.current",
                        "num_alloc_retries", "num_ooms", "num_sync_all_streams", "num_device_alloc",
                        "num_device_free", "max_split_size", "oversize_allocations.current",
                        "oversize_segments.peak"}) {
    EXPECT_EQ(stats.count(k), 1u) << k;
  }
}

TEST_P(CudaMemory, CachingAllocatorAllocAndDelete) {
  const int64_t base = cuda::memory_allocated(0);
  void* p = cuda::caching_allocator_alloc(100, 0);
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(cuda::memory_allocated(0), base + 512);
  EXPECT_EQ(cuda::caching_allocator_alloc(0, 0), nullptr);
  cuda::caching_allocator_delete(p);
  EXPECT_EQ(cuda::memory_allocated(0), base);
  EXPECT_THROW(cuda::caching_allocator_delete(p), Error);  // double free
  cuda::caching_allocator_delete(nullptr);                 // ignored
  if (cuda::device_count() > 1) {
    const int64_t base1 = cuda::memory_allocated(1);
    void* q = cuda::caching_allocator_alloc(4096, 1);
    EXPECT_EQ(cuda::memory_allocated(1), base1 + 4096);
    EXPECT_EQ(cuda::memory_allocated(0), base);
    cuda::caching_allocator_delete(q);
    EXPECT_EQ(cuda::memory_allocated(1), base1);
  }
}

TEST_P(CudaMemory, RecordStreamKeepsTheBlockActiveUntilTheStreamIsDone) {
  impl::DeviceRuntime& rt = impl::require_runtime(DeviceType::CUDA);
  const Stream side = rt.create_stream(0, 0);
  ASSERT_NE(side.id(), impl::current_stream(Device(DeviceType::CUDA, 0)).id());
  const int64_t base_active = cuda::memory_stats(0).at("active_bytes.all.current");
  const int64_t base_allocated = cuda::memory_allocated(0);
  {
    Tensor t = ones({256}, on_device());
    t.record_stream(side);
  }
  // Freed for the statistics, but still active until the side stream's event is seen complete.
  EXPECT_EQ(cuda::memory_allocated(0), base_allocated);
  EXPECT_EQ(cuda::memory_stats(0).at("active_bytes.all.current"), base_active + 1024);
  rt.synchronize_stream(side);
  cuda::empty_cache();  // waits for the free event and returns the block
  EXPECT_EQ(cuda::memory_stats(0).at("active_bytes.all.current"), base_active);
}

TEST_P(CudaMemory, ConcurrentAllocAndFreeFromManyThreads) {
  const int64_t base = cuda::memory_allocated(0);
  std::vector<std::thread> threads;
  std::vector<Tensor> handoff(4);
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 200; ++i) {
        Tensor a = empty({64 + (i * 37 + t * 11) % 5000}, on_device());
        Tensor b = empty({(i % 7) * 1000 + 1}, on_device(kDouble));
        if (i == 199) handoff[t] = a;  // freed later on the main thread
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_GT(cuda::memory_allocated(0), base);
  handoff.clear();
  EXPECT_EQ(cuda::memory_allocated(0), base);
  EXPECT_EQ(cuda::memory_stats(0).at("active.all.current"), cuda::memory_stats(0).at("allocation.all.current"));
}

TEST_P(CudaMemory, LibtorchSpellings) {
  const int64_t base = cuda::memory_allocated(0);
  void* p = c10::cuda::CUDACachingAllocator::raw_alloc(1000);
  EXPECT_EQ(cuda::memory_allocated(0), base + 1024);
  c10::cuda::CUDACachingAllocator::raw_delete(p);
  EXPECT_EQ(cuda::memory_allocated(0), base);
  c10::cuda::CUDACachingAllocator::setMemoryFraction(0.25, 0);
  EXPECT_DOUBLE_EQ(c10::cuda::CUDACachingAllocator::getMemoryFraction(0), 0.25);
  c10::cuda::CUDACachingAllocator::setMemoryFraction(1.0, 0);
  c10::cuda::CUDACachingAllocator::emptyCache();
  c10::cuda::CUDACachingAllocator::resetAccumulatedStats(0);
  EXPECT_EQ(cuda::memory_stats(0).at("num_device_alloc"), 0);
  EXPECT_EQ(cuda::memory_stats(0).at("allocated_bytes.all.freed"), 0);
}

// Configures small emulated devices for one test and restores the fixture's devices afterwards.
class SmallEmulatedDevice : public ::testing::Test {
 protected:
  void SetUp() override {
    if (cuda::device_count() > 0 && !cuda::is_emulated()) GTEST_SKIP() << "a real CUDA runtime is in use";
    cuda::EmulationConfig c;
    c.devices = 1;
    c.memory = 64 * kMiB;
    cuda::emulate(c);  // succeeds: the caches of earlier tests are returned by the reset hook
  }
  void TearDown() override {
    if (cuda::is_emulated()) cuda::emulate(2);
  }
};

TEST_F(SmallEmulatedDevice, OomHasPyTorchsMessageAndTheDeviceStaysUsable) {
  const TensorOptions opts = TensorOptions().device(Device(DeviceType::CUDA, 0));
  EXPECT_EQ(cuda::memory_reserved(0), 0);
  Tensor a = empty({40 * kMiB / 4}, opts);
  std::string msg;
  try {
    Tensor b = empty({40 * kMiB / 4}, opts);
    FAIL() << "expected OutOfMemoryError";
  } catch (const OutOfMemoryError& e) {
    msg = e.what();
  }
  EXPECT_EQ(msg.rfind("CUDA out of memory. Tried to allocate 40.00 MiB. GPU 0 has a total capacity of 64.00 MiB of "
                      "which 24.00 MiB is free. Of the allocated memory 40.00 MiB is allocated by PyTorch, and 0 bytes "
                      "is reserved by PyTorch but unallocated. If reserved but unallocated memory is large try "
                      "setting PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True",
                      0),
            0u)
      << msg;
  EXPECT_EQ(cuda::memory_stats(0).at("num_ooms"), 1);
  EXPECT_EQ(cuda::memory_allocated(0), 40 * kMiB);
  a = Tensor();
  Tensor c = ones({40 * kMiB / 4}, opts);  // usable again, same cached segment
  EXPECT_EQ(cuda::memory_stats(0).at("num_device_alloc"), 1);
  EXPECT_EQ(c.sum().item<float>(), static_cast<float>(40 * kMiB / 4));
  c = Tensor();
  cuda::empty_cache();
  EXPECT_EQ(cuda::memory_reserved(0), 0);
  EXPECT_EQ(cuda::mem_get_info(0).first, size_t(64 * kMiB));  // nothing leaked
}

TEST_F(SmallEmulatedDevice, FractionLimitsReservedMemoryExactly) {
  const TensorOptions opts = TensorOptions().device(Device(DeviceType::CUDA, 0));
  cuda::set_per_process_memory_fraction(0.5, 0);
  EXPECT_DOUBLE_EQ(cuda::get_per_process_memory_fraction(0), 0.5);
  Tensor a = empty({20 * kMiB / 4}, opts);  // a 20 MiB segment
  Tensor b = empty({12 * kMiB / 4}, opts);  // 12 MiB: 32 MiB reserved, exactly the limit
  EXPECT_EQ(cuda::memory_reserved(0), 32 * kMiB);
  try {
    Tensor c = empty({2 * kMiB / 4}, opts);
    FAIL() << "expected OutOfMemoryError";
  } catch (const OutOfMemoryError& e) {
    EXPECT_NE(std::string(e.what()).find("32.00 MiB allowed; "), std::string::npos) << e.what();
  }
}

TEST_F(SmallEmulatedDevice, EmulateRefusesWhileTensorsAreAliveButNotForCachedMemory) {
  const TensorOptions opts = TensorOptions().device(Device(DeviceType::CUDA, 0));
  Tensor live = empty({1000}, opts);
  cuda::EmulationConfig c;
  c.devices = 1;
  c.memory = 32 * kMiB;
  EXPECT_THROW(cuda::emulate(c), Error);
  live = Tensor();  // now only cached memory remains
  EXPECT_GT(cuda::memory_reserved(0), 0);
  cuda::emulate(c);
  cuda::init();
  EXPECT_EQ(cuda::memory_reserved(0), 0);
  EXPECT_EQ(cuda::memory_stats(0).at("num_device_alloc"), 0);  // a fresh allocator
  EXPECT_EQ(cuda::get_device_properties(0).total_memory, size_t(32 * kMiB));
}

// With the emulator's delay-and-reorder mode a side stream lags behind: a block it still uses must
// not be handed out again after record_stream, or the side stream's late writes would land in the
// new tensor.
TEST_F(SmallEmulatedDevice, RecordStreamProtectsABlockFromReuseWhileASideStreamUsesIt) {
  cuda::EmulationConfig c;
  c.devices = 1;
  c.reorder = true;
  c.seed = 7;
  cuda::emulate(c);
  impl::DeviceRuntime& rt = impl::require_runtime(DeviceType::CUDA);
  const TensorOptions opts = TensorOptions().device(Device(DeviceType::CUDA, 0));
  const Stream main_stream = impl::current_stream(Device(DeviceType::CUDA, 0));
  const Stream side = rt.create_stream(0, 0);
  ASSERT_NE(side, main_stream);
  for (int round = 0; round < 5; ++round) {
    Tensor t = empty({4096}, opts);
    impl::EventHandle ready = rt.create_event(0, {});
    rt.record_event(ready, main_stream);
    rt.wait_event(side, ready);  // the side stream sees t's allocation
    {
      impl::StreamGuard guard(side);
      for (int i = 0; i < 20; ++i) t.fill_(1.0);  // queued on the side stream, which lags
    }
    t.record_stream(side);
    void* old = t.data_ptr();
    t = Tensor();
    Tensor u = empty({4096}, opts);  // same size, same (main) stream
    if (!rt.query_stream(side)) {
      EXPECT_NE(u.data_ptr(), old) << "round " << round;  // the block is still in use
    }
    u.fill_(2.0);
    rt.synchronize_stream(side);
    EXPECT_EQ(u.eq(2.0).all().item<bool>(), true) << "round " << round;
    rt.destroy_event(ready);
  }
}

// The variables are read once per process, so each case runs in a re-executed child process
// (death-test machinery; exit code 0 = as expected).
TEST(CudaMemoryEnvironment, AllocConfAndNoCaching) {
  if (cuda::device_count() > 0 && !cuda::is_emulated()) GTEST_SKIP() << "a real CUDA runtime is in use";
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  auto run_with = [](const char* name, const char* value, auto check) {
    setenv(name, value, 1);
    EXPECT_EXIT(std::exit(check() ? 0 : 1), ::testing::ExitedWithCode(0), "") << name << "=" << value;
    unsetenv(name);
  };
  const auto tensor_on_cuda = [] {
    testing::use_emulated_devices(1);
    return empty({1000}, TensorOptions().device(Device(DeviceType::CUDA, 0)));
  };
  run_with("PYTORCH_NO_CUDA_MEMORY_CACHING", "1", [&] {
    Tensor t = tensor_on_cuda();
    return cuda::memory_allocated(0) == 0 && cuda::memory_reserved(0) == 0;  // raw allocations, no statistics
  });
  run_with("PYTORCH_CUDA_ALLOC_CONF", "max_split_size_mb:64", [&] {
    Tensor t = tensor_on_cuda();
    return cuda::memory_stats(0).at("max_split_size") == 64 * kMiB;
  });
  setenv("PYTORCH_CUDA_ALLOC_CONF", "max_split_size_mb:64", 1);
  run_with("CTORCH_CUDA_ALLOC_CONF", "max_split_size_mb:32", [&] {  // ctorch's variable wins
    Tensor t = tensor_on_cuda();
    return cuda::memory_stats(0).at("max_split_size") == 32 * kMiB;
  });
  unsetenv("PYTORCH_CUDA_ALLOC_CONF");
  run_with("PYTORCH_CUDA_ALLOC_CONF", "max_split_size_mb:1", [&] {
    try {
      tensor_on_cuda();
    } catch (const Error& e) {
      return std::string(e.what()).find("PYTORCH_CUDA_ALLOC_CONF='max_split_size_mb:1': ") != std::string::npos &&
             std::string(e.what()).find("max_split_size_mb too small, must be >= 20") != std::string::npos;
    }
    return false;
  });
}

// PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True: tensors tile one segment that grows by 20 MiB
// pages, the statistics match the snapshot, and empty_cache unmaps whole free pages.
TEST(CudaMemoryEnvironment, ExpandableSegments) {
  if (cuda::device_count() > 0 && !cuda::is_emulated()) GTEST_SKIP() << "a real CUDA runtime is in use";
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  setenv("PYTORCH_CUDA_ALLOC_CONF", "expandable_segments:True", 1);
  auto check = [] {
    testing::use_emulated_devices(1);
    const auto opts = TensorOptions().device(Device(DeviceType::CUDA, 0));
    auto large = [](const char* key) { return cuda::memory_stats(0).at(std::string(key) + ".large_pool.current"); };
    auto fail = [](const char* what) {
      std::fprintf(stderr, "expandable segments: %s\n", what);
      return false;
    };
    Tensor a = ones({1 << 20}, opts);        // 4 MiB: one 20 MiB page
    Tensor b = full({5 << 20}, 2.0, opts);  // 20 MiB more, right after a: the segment grows to 40 MiB
    if (large("reserved_bytes") != 40 * kMiB || large("segment") != 1) return fail("growth");
    if (b.data_ptr() != static_cast<char*>(a.data_ptr()) + 4 * kMiB) return fail("tiling");
    std::vector<cuda::SegmentInfo> large_segments;
    for (const auto& seg : cuda::memory_snapshot()) {
      if (seg.is_large) large_segments.push_back(seg);
    }
    if (large_segments.size() != 1 || !large_segments[0].is_expandable ||
        large_segments[0].total_size != static_cast<size_t>(40 * kMiB)) {
      return fail("snapshot");
    }
    const auto [free_before, total] = cuda::mem_get_info(0);
    if (total - free_before < static_cast<size_t>(40 * kMiB)) return fail("mem_get_info");
    if (a.sum().item<double>() != double(1 << 20) || b.sum().item<double>() != 2.0 * double(5 << 20)) {
      return fail("values");
    }
    b = Tensor();
    cuda::empty_cache();  // unmaps the second page; the first still holds a
    if (large("reserved_bytes") != 20 * kMiB) return fail("empty_cache");
    if (cuda::mem_get_info(0).first != free_before + 20 * kMiB) return fail("mem_get_info after empty_cache");
    const std::string summary = cuda::memory_summary(0);
    if (summary.find("GPU reserved memory   |  20480 KiB") == std::string::npos) return fail(summary.c_str());
    return true;
  };
  EXPECT_EXIT(std::exit(check() ? 0 : 1), ::testing::ExitedWithCode(0), "");
  unsetenv("PYTORCH_CUDA_ALLOC_CONF");
}

CTORCH_INSTANTIATE_CUDA_TESTS(CudaMemory);

}  // namespace
}  // namespace ctorch
