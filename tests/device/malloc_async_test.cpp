// backend:cudaMallocAsync on emulated (and real) cuda devices. The backend is chosen once per
// process from PYTORCH_CUDA_ALLOC_CONF, so these tests run in the ctest entry
// `malloc_async_backend` (tests/CMakeLists.txt), which sets it; elsewhere they skip.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <string>

#include "ctorch/cuda_memory.h"
#include "ctorch/cuda_memory_snapshot.h"
#include "ctorch/cuda_pluggable_allocator.h"
#include "ctorch/torch.h"
#include "device/device_test.h"
#include "device/stream_test_util.h"
#include "runtime/current.h"
#include "runtime/device_runtime.h"
#include "test_util.h"

namespace ctorch {
namespace {

constexpr int64_t kMiB = 1024 * 1024;

bool async_backend() { return cuda::get_allocator_backend() == "cudaMallocAsync"; }
constexpr const char* kSkip = "needs PYTORCH_CUDA_ALLOC_CONF=backend:cudaMallocAsync (ctest -R malloc_async_backend)";

using ::ctorch::testing::error_of;

class MallocAsync : public testing::DeviceTest {
 protected:
  void SetUp() override {
    DeviceTest::SetUp();
    if (IsSkipped()) return;
    if (!async_backend()) GTEST_SKIP() << kSkip;
  }
};

TEST_P(MallocAsync, BackendNameAndTheErrorsOfWhatItDoesNotTrack) {
  EXPECT_EQ(cuda::get_allocator_backend(), "cudaMallocAsync");
  Tensor t = ones({16}, on_device());  // the backend is now initialized
  EXPECT_EQ(error_of<Error>([] { cuda::memory_snapshot(); })
                .find("Calling snapshot with backend:cudaMallocAsync is not meaningful. (For backend:native, snapshot "
                      "returns a detailed summary of all blocks tracked by the allocator, but the cudaMallocAsync "
                      "backend does not track individual blocks.)"),
            0u);
  EXPECT_NE(error_of<Error>([] { cuda::memory::record_memory_history("all"); })
                .find("cudaMallocAsync does not yet support recordHistory. If you need it, please file an issue"),
            std::string::npos);
  EXPECT_NE(error_of<Error>([] { cuda::get_per_process_memory_fraction(0); })
                .find("cudaMallocAsync does not yet support getMemoryFraction"),
            std::string::npos);
  cuda::memory::CUDAPluggableAllocator other(CTORCH_TEST_PLUGGABLE_SO, "ctorch_test_alloc", "ctorch_test_free");
  EXPECT_EQ(error_of<Error>([&] { cuda::memory::change_current_allocator(other); }),
            "Can't swap an already initialized allocator");
  EXPECT_EQ(cuda::get_allocator_backend(), "cudaMallocAsync");
}

TEST_P(MallocAsync, StatisticsComeFromThePool) {
  const int64_t base = cuda::memory_allocated(0);
  {
    Tensor t = empty({1000}, on_device());  // 4000 bytes
    EXPECT_EQ(t.fill_(2.0).sum().item<float>(), 2000.0f);
    EXPECT_GE(cuda::memory_allocated(0), base + 4000);
    EXPECT_GE(cuda::memory_reserved(0), cuda::memory_allocated(0));
    EXPECT_GE(cuda::max_memory_allocated(0), cuda::memory_allocated(0));
  }
  EXPECT_EQ(cuda::memory_allocated(0), base);  // back to its start
  const auto stats = cuda::memory_stats(0);
  EXPECT_EQ(stats.size(), 122u);  // every key, as for the native allocator
  EXPECT_EQ(stats.at("active_bytes.all.current"), stats.at("allocated_bytes.all.current"));
  EXPECT_EQ(stats.at("active_bytes.all.peak"), stats.at("allocated_bytes.all.peak"));
  for (const char* k : {"allocation.all.current", "segment.all.current", "allocated_bytes.large_pool.current",
                        "reserved_bytes.small_pool.peak", "allocated_bytes.all.allocated", "requested_bytes.all.current",
                        "num_ooms", "num_device_alloc", "max_split_size"}) {
    EXPECT_EQ(stats.at(k), 0) << k;  // keys only the native allocator fills
  }
  EXPECT_GT(cuda::max_memory_allocated(0), cuda::memory_allocated(0));
  cuda::reset_peak_memory_stats(0);
  EXPECT_EQ(cuda::max_memory_allocated(0), cuda::memory_allocated(0));
  EXPECT_EQ(cuda::max_memory_reserved(0), cuda::memory_reserved(0));
  cuda::reset_accumulated_memory_stats(0);  // warns once, changes nothing
  EXPECT_NE(cuda::memory_summary(0).find("GPU reserved memory"), std::string::npos);
  if (cuda::device_count() > 1) {
    const int64_t base1 = cuda::memory_allocated(1);
    void* q = cuda::caching_allocator_alloc(4096, 1);
    EXPECT_GE(cuda::memory_allocated(1), base1 + 4096);
    cuda::caching_allocator_delete(q);
    EXPECT_EQ(cuda::memory_allocated(1), base1);
    EXPECT_THROW(cuda::caching_allocator_delete(q), Error);  // double free
  }
}

TEST_P(MallocAsync, EmptyCacheLowersReserved) {
  { Tensor big = empty({8 * kMiB / 4}, on_device()); }
  const int64_t reserved = cuda::memory_reserved(0);
  EXPECT_GE(reserved, cuda::memory_allocated(0) + 8 * kMiB);  // freed memory stays in the pool
  cuda::empty_cache();
  EXPECT_LE(cuda::memory_reserved(0), reserved - 8 * kMiB);
  EXPECT_GE(cuda::max_memory_reserved(0), reserved);
}

TEST_P(MallocAsync, RecordStreamKeepsABlockFromReuseWhileTheOtherStreamIsHeld) {
  if (!cuda::is_emulated()) GTEST_SKIP() << "the gate holds emulated streams";
  impl::DeviceRuntime& rt = impl::require_runtime(DeviceType::CUDA);
  const Stream side = rt.create_stream(0, 0);
  {  // without record_stream the block is reusable at once on its stream
    Tensor a = empty({4096}, on_device());
    void* p = a.data_ptr();
    a = Tensor();
    Tensor b = empty({4096}, on_device());
    EXPECT_EQ(b.data_ptr(), p);
  }
  testing::Gate gate;
  gate.block(side);
  Tensor t = ones({4096}, on_device());
  t.record_stream(side);
  void* old = t.data_ptr();
  t = Tensor();
  Tensor u = empty({4096}, on_device());
  EXPECT_NE(u.data_ptr(), old);  // the side stream may still use it
  EXPECT_FALSE(rt.query_stream(side));
  gate.open();
  rt.synchronize_device(0);
  Tensor v = empty({4096}, on_device());
  EXPECT_EQ(v.data_ptr(), old);  // its free has run
  EXPECT_EQ(v.fill_(3.0).sum().item<float>(), 3.0f * 4096);
}

CTORCH_INSTANTIATE_CUDA_TESTS(MallocAsync);

// One small emulated device for OOM and fraction tests; restores two devices afterwards.
class MallocAsyncSmallDevice : public ::testing::Test {
 protected:
  void SetUp() override {
    if (cuda::device_count() > 0 && !cuda::is_emulated()) GTEST_SKIP() << "a real CUDA runtime is in use";
    if (!async_backend()) GTEST_SKIP() << kSkip;
    cuda::EmulationConfig c;
    c.devices = 1;
    c.memory = 64 * kMiB;
    cuda::emulate(c);  // the reset hook trims the pools of earlier tests
  }
  void TearDown() override {
    if (cuda::is_emulated()) cuda::emulate(2);
  }
};

TEST_F(MallocAsyncSmallDevice, OomHasPyTorchsMessageAndTheDeviceStaysUsable) {
  const TensorOptions opts = TensorOptions().device(Device(DeviceType::CUDA, 0));
  Tensor a = empty({40 * kMiB / 4}, opts);
  const std::string msg = error_of<OutOfMemoryError>([&] { Tensor b = empty({40 * kMiB / 4}, opts); });
  EXPECT_EQ(msg.rfind("Allocation on device 0 would exceed allowed memory. (out of memory)\n"
                      "Currently allocated     : 40.00 MiB\n"
                      "Requested               : 40.00 MiB\n"
                      "Device limit            : 64.00 MiB\n"
                      "Free (according to CUDA): 24.00 MiB\n"
                      "PyTorch limit (set by user-supplied memory fraction)\n"
                      "                        : 17179869184.00 GiB",
                      0),
            0u)
      << msg;
  EXPECT_EQ(cuda::memory_allocated(0), 40 * kMiB);
  a = Tensor();
  Tensor c = ones({40 * kMiB / 4}, opts);  // usable again: the same pool block
  EXPECT_EQ(c.sum().item<float>(), static_cast<float>(40 * kMiB / 4));
  c = Tensor();
  cuda::set_per_process_memory_fraction(0.5, 0);  // 32 MiB of requests
  Tensor d = empty({30 * kMiB / 4}, opts);
  EXPECT_NE(error_of<OutOfMemoryError>([&] { Tensor e = empty({4 * kMiB / 4}, opts); })
                .find("PyTorch limit (set by user-supplied memory fraction)\n                        : 32.00 MiB"),
            std::string::npos);
  d = Tensor();
  cuda::empty_cache();
  EXPECT_EQ(cuda::memory_reserved(0), 0);
  EXPECT_EQ(cuda::mem_get_info(0).first, size_t(64 * kMiB));  // nothing leaked
}

// The choice is made from the variable at the first allocation, with PyTorch's warning for the
// native-only options; it runs in a re-executed child process (death-test machinery).
TEST(MallocAsyncEnvironment, ChosenFromTheConfigWithPyTorchsWarningForNativeOptions) {
  if (cuda::device_count() > 0 && !cuda::is_emulated()) GTEST_SKIP() << "a real CUDA runtime is in use";
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  const char* previous = std::getenv("PYTORCH_CUDA_ALLOC_CONF");
  const std::string saved = previous ? previous : "";
  setenv("PYTORCH_CUDA_ALLOC_CONF", "backend:cudaMallocAsync,max_split_size_mb:64", 1);
  auto check = [] {
    testing::use_emulated_devices(1);
    Tensor t = full({1000}, 2.0, TensorOptions().device(Device(DeviceType::CUDA, 0)));
    return cuda::get_allocator_backend() == "cudaMallocAsync" && cuda::memory_allocated(0) >= 4000 &&
           cuda::memory_stats(0).at("max_split_size") == 0 && t.sum().item<float>() == 2000.0f;
  };
  EXPECT_EXIT(std::exit(check() ? 0 : 1), ::testing::ExitedWithCode(0),
              "backend:cudaMallocAsync ignores max_split_size_mb,roundup_power2_divisions, and "
              "garbage_collect_threshold\\.");
  if (previous) {
    setenv("PYTORCH_CUDA_ALLOC_CONF", saved.c_str(), 1);
  } else {
    unsetenv("PYTORCH_CUDA_ALLOC_CONF");
  }
}

}  // namespace
}  // namespace ctorch
