// torch.cuda telemetry (utilization, memory_usage, temperature, power_draw, clock_rate,
// list_gpu_processes), current_blas_handle, capabilities and bf16 on cuda devices. Emulated
// devices report the model of Note [Emulated telemetry model]; the NVML path is tested in
// tests/unit/nvml_test.cpp.
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <thread>

#include "ctorch/cuda_telemetry.h"
#include "ctorch/torch.h"
#include "device/device_test.h"
#include "device/stream_test_util.h"
#include "test_util.h"

namespace ctorch::testing {
namespace {

class CudaTelemetryTest : public DeviceTest {
 protected:
  void SetUp() override {
    DeviceTest::SetUp();
    if (IsSkipped()) return;
    if (GetParam() == Backend::Cpu) GTEST_SKIP() << "cuda only";
    cuda::set_device(0);
  }
  bool emulated() const { return GetParam() == Backend::Emulated; }
};

TEST_P(CudaTelemetryTest, ReadingsAreInRange) {
  for (int d = 0; d < cuda::device_count(); ++d) {
    const int util = cuda::utilization(d), mem = cuda::memory_usage(d);
    EXPECT_GE(util, 0);
    EXPECT_LE(util, 100);
    EXPECT_GE(mem, 0);
    EXPECT_LE(mem, 100);
    EXPECT_GT(cuda::temperature(d), 0);
    EXPECT_GT(cuda::power_draw(d), 1000) << "milliwatts";
    EXPECT_GT(cuda::clock_rate(d), 100) << "MHz";
  }
}

TEST_P(CudaTelemetryTest, DeviceArgumentsAsTorchCuda) {
  cuda::set_device(1);
  EXPECT_EQ(cuda::clock_rate(), cuda::clock_rate(1)) << "nothing: the current device";
  EXPECT_EQ(cuda::clock_rate("cuda"), cuda::clock_rate(1)) << "'cuda': the current device";
  EXPECT_EQ(cuda::clock_rate(Device("cuda:0")), cuda::clock_rate(0));
  EXPECT_EQ(error_of<ValueError>([] { cuda::utilization(Device("cpu")); }), "Expected a cuda device, but got: cpu");
  EXPECT_NE(error_of<DeviceError>([] { cuda::temperature(cuda::device_count()); }), "no error");
  EXPECT_NE(error_of<DeviceError>([] { cuda::power_draw(-1); }), "no error");
}

TEST_P(CudaTelemetryTest, ModelFollowsUtilization) {
  if (!emulated()) GTEST_SKIP() << "the emulated model";
  for (int d = 0; d < 2; ++d) {
    const cuda::DeviceStatus s = cuda::device_status(d);
    EXPECT_TRUE(s.emulated);
    EXPECT_EQ(s.temperature, 35 + (2 * s.utilization + 2) / 5) << "35 C + 0.4 C per %";
    EXPECT_EQ(s.power_draw, 25000 + 2500 * s.utilization) << "25 W + 2.5 W per %";
    EXPECT_EQ(s.power_limit, 300000);
    EXPECT_EQ(s.clock_rate, 1410);
    EXPECT_EQ(s.name, cuda::get_device_name(d));
    EXPECT_EQ(s.memory_total, cuda::mem_get_info(d).second);
    EXPECT_EQ(s.bus_id.size(), 16u) << s.bus_id;
  }
  EXPECT_NE(cuda::driver_version().find("(emulated)"), std::string::npos);
}

TEST_P(CudaTelemetryTest, BusyStreamRaisesUtilization) {
  if (!emulated()) GTEST_SKIP() << "needs the emulated gate";
  const cuda::Stream s(1);
  Gate gate;
  gate.block(s);  // a kernel task that runs until the gate opens
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  const int while_running = cuda::utilization(1);
  gate.open();
  s.synchronize();
  EXPECT_GE(while_running, 29) << "a kernel has run for the last 300 ms of the 1 s window";
  EXPECT_GE(cuda::utilization(1), 29) << "and still counts once it has ended";
  EXPECT_GE(cuda::temperature(1), 35 + 12);
}

TEST_P(CudaTelemetryTest, CopiesRaiseMemoryUsage) {
  if (!emulated()) GTEST_SKIP() << "the emulated model";
  Tensor host = zeros({16 << 20});  // 64 MiB
  Tensor a = empty({16 << 20}, TensorOptions().device("cuda:1"));
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  while (cuda::memory_usage(1) < 2 && std::chrono::steady_clock::now() < deadline) {
    a.copy_(host);  // a copy task (cudaMemcpyAsync); same-dtype device copies run as kernels
    host.copy_(a);
  }
  EXPECT_GE(cuda::memory_usage(1), 2) << "host-device copies write and read device memory";
}

TEST_P(CudaTelemetryTest, ListGpuProcessesNamesThisProcessWhileItHoldsMemory) {
  if (!emulated()) GTEST_SKIP() << "NVML lists every process on a real device";
  Tensor t = empty({1000}, TensorOptions().device("cuda:1"));
  char expected[128];
  std::snprintf(expected, sizeof expected, "GPU:1\nprocess %10d uses ", static_cast<int>(::getpid()));
  const std::string listed = cuda::list_gpu_processes(1);
  EXPECT_EQ(listed.rfind(expected, 0), 0u) << listed;
  EXPECT_NE(listed.find(" MB GPU memory"), std::string::npos) << listed;
  const std::vector<cuda::GpuProcess> procs = cuda::gpu_processes(1);
  ASSERT_EQ(procs.size(), 1u);
  EXPECT_EQ(procs[0].pid, ::getpid());
  EXPECT_GE(procs[0].used_memory, 4000u);
  const cuda::DeviceStatus s = cuda::device_status(1);
  EXPECT_GE(s.memory_used, procs[0].used_memory);
}

TEST_P(CudaTelemetryTest, BlasHandleIsPerDeviceAndThread) {
  void* h0 = cuda::current_blas_handle();
  ASSERT_NE(h0, nullptr);
  EXPECT_EQ(cuda::current_blas_handle(), h0) << "stable on one thread and device";
  cuda::set_device(1);
  void* h1 = cuda::current_blas_handle();
  EXPECT_NE(h1, nullptr);
  EXPECT_NE(h1, h0) << "one handle per device";
  void* other_thread = nullptr;
  std::thread([&] {
    cuda::set_device(1);
    other_thread = cuda::current_blas_handle();
  }).join();
  EXPECT_NE(other_thread, nullptr);
  EXPECT_NE(other_thread, h1) << "one handle per thread";
}

TEST_P(CudaTelemetryTest, CapabilityOfEveryDevice) {
  for (int d = 0; d < cuda::device_count(); ++d) {
    const cuda::DeviceProperties p = cuda::get_device_properties(d);
    EXPECT_EQ(cuda::get_device_capability(d), std::make_pair(p.major, p.minor)) << "cuda:" << d;
    EXPECT_EQ(cuda::get_device_capability(Device(DeviceType::CUDA, static_cast<DeviceIndex>(d))),
              std::make_pair(p.major, p.minor));
  }
  cuda::set_device(1);
  EXPECT_EQ(cuda::get_device_capability(), cuda::get_device_capability(1)) << "the current device";
  EXPECT_EQ(error_of<DeviceError>([] { cuda::get_device_capability(cuda::device_count()); }), "Invalid device id");
  EXPECT_EQ(error_of<DeviceError>([] { cuda::get_device_capability(-1); }), "Invalid device id");
  EXPECT_EQ(error_of<ValueError>([] { cuda::get_device_capability(Device("cpu")); }),
            "Expected a cuda device, but got: cpu");
}

TEST_P(CudaTelemetryTest, Bf16SupportFollowsTheCurrentDevicesCapability) {
  EXPECT_EQ(cuda::is_bf16_supported(), cuda::get_device_capability().first >= 8);
}

TEST_P(CudaTelemetryTest, GencodeFlagsFollowTheArchList) {
  std::string expected;
  for (const std::string& arch : cuda::get_arch_list()) {
    ASSERT_EQ(arch.rfind("sm_", 0), 0u) << arch;
    expected += (expected.empty() ? "" : " ") + std::string("-gencode compute=compute_") + arch.substr(3) + ",code=" + arch;
  }
  EXPECT_EQ(cuda::get_gencode_flags(), expected);
}

CTORCH_INSTANTIATE_DEVICE_TESTS(CudaTelemetryTest);

}  // namespace
}  // namespace ctorch::testing
