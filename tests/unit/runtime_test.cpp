// The runtime seam: registry, the cpu runtime, and what happens without a CUDA runtime.
#include <gtest/gtest.h>

#include "ctorch/ctorch.h"
#include "runtime/device_runtime.h"

using namespace ctorch;

TEST(Runtime, CpuRuntimeIsRegistered) {
  impl::DeviceRuntime* cpu = impl::runtime_for(DeviceType::CPU);
  ASSERT_NE(cpu, nullptr);
  EXPECT_EQ(cpu->type(), DeviceType::CPU);
  EXPECT_EQ(cpu->device_count(), 1);
  EXPECT_GT(cpu->properties(0).total_memory, 0u);
  EXPECT_THROW(cpu->set_current_device(1), IndexError);
  Stream s = cpu->create_stream(0, 0);
  EXPECT_TRUE(cpu->query_stream(s));
}

TEST(Runtime, CpuEventsTimeAndCheckFlags) {
  impl::DeviceRuntime& cpu = impl::require_runtime(DeviceType::CPU);
  impl::EventHandle a = cpu.create_event(0, {.enable_timing = true});
  impl::EventHandle b = cpu.create_event(0, {.enable_timing = true});
  impl::EventHandle plain = cpu.create_event(0, {});
  Stream s = Stream::default_stream(kCPU);
  EXPECT_THROW(cpu.elapsed_ms(a, b), Error);  // not recorded yet
  cpu.record_event(a, s);
  cpu.record_event(b, s);
  cpu.record_event(plain, s);
  EXPECT_GE(cpu.elapsed_ms(a, b), 0.0f);
  EXPECT_THROW(cpu.elapsed_ms(a, plain), Error);
  cpu.destroy_event(a);
  cpu.destroy_event(b);
  cpu.destroy_event(plain);
}

TEST(Runtime, CpuRawMemoryCopies) {
  impl::DeviceRuntime& cpu = impl::require_runtime(DeviceType::CPU);
  auto* p = static_cast<char*>(cpu.raw_allocate(0, 100));
  auto* q = static_cast<char*>(cpu.raw_allocate(0, 100));
  cpu.memset_async(p, 7, 100, Stream::default_stream(kCPU));
  cpu.copy_async(q, -1, p, -1, 100, Stream::default_stream(kCPU));
  EXPECT_EQ(q[99], 7);
  cpu.raw_free(0, p);
  cpu.raw_free(0, q);
}

TEST(Runtime, NoCudaRuntimeMeansNoDevices) {
  if (impl::runtime_for(DeviceType::CUDA) != nullptr) GTEST_SKIP() << "a CUDA runtime is registered";
  EXPECT_FALSE(cuda::is_available());
  EXPECT_EQ(cuda::device_count(), 0);
  EXPECT_THROW(impl::require_runtime(DeviceType::CUDA), DeviceError);
  try {
    zeros({2}, TensorOptions().device("cuda:0"));
    FAIL() << "expected DeviceError";
  } catch (const DeviceError& e) {
    const std::string what = e.what();
#ifdef CTORCH_HAS_CUDA_BACKEND
    // Built with CUDA on a machine without a driver or device: PyTorch's words for that case.
    EXPECT_TRUE(what.find("Found no NVIDIA driver on your system") == 0 || what.find("No CUDA GPUs are available") == 0)
        << what;
#else
    EXPECT_EQ(what.find("Torch not compiled with CUDA enabled"), 0u) << what;
#endif
    EXPECT_NE(what.find("CTORCH_EMULATED_CUDA=N"), std::string::npos) << what;
  }
}

TEST(CpuAllocator, LargeBlocksAreReused) {
  void* first;
  {
    Tensor t = empty({4 << 20});  // 16 MiB: cached on free
    first = t.data_ptr();
  }
  Tensor again = empty({4 << 20});
  EXPECT_EQ(again.data_ptr(), first);
  Tensor small = empty({3});
  EXPECT_EQ(reinterpret_cast<uintptr_t>(small.data_ptr()) % 64, 0u);
}

TEST(Parallel, ThreadCountIsSettableAndResultsDoNotDependOnIt) {
  const int before = get_num_threads();
  EXPECT_THROW(set_num_threads(0), ValueError);
  EXPECT_EQ(get_num_threads(), before);
  Tensor a = arange(100000.0), b = arange(100000.0).mul(2.0);
  set_num_threads(1);
  EXPECT_EQ(get_num_threads(), 1);
  std::vector<float> one = (a + b).to_vector<float>();
  set_num_threads(2);
  EXPECT_EQ(get_num_threads(), 2);
  std::vector<float> two = (a + b).to_vector<float>();
  EXPECT_EQ(one, two);
  EXPECT_EQ(two[99999], 299997.0f);
  set_num_threads(before);
}
