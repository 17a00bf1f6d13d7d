// libtorch spellings of streams and events (ctorch/torch.h) on emulated devices.
#include "ctorch/torch.h"
#include "device/device_test.h"
#include "test_util.h"

namespace ctorch::testing {
namespace {

TEST(TorchStreamCompatTest, C10StreamsAndGuards) {
  use_emulated_devices(2);
  cuda::set_device(0);
  c10::cuda::CUDAStream current = c10::cuda::getCurrentCUDAStream();
  EXPECT_EQ(current, c10::cuda::getDefaultCUDAStream(0));
  EXPECT_EQ(current.id(), 0);
  const auto [least, greatest] = c10::cuda::CUDAStream::priority_range();
  EXPECT_EQ(least, 0);
  EXPECT_EQ(greatest, -3);
  const c10::cuda::CUDAStream high = c10::cuda::getStreamFromPool(/*isHighPriority=*/true, 1);
  EXPECT_EQ(high.priority(), greatest);
  EXPECT_EQ(high.device_index(), 1);
  EXPECT_EQ(c10::cuda::getStreamFromPool(-1).priority(), -1);
  EXPECT_EQ(c10::cuda::getStreamFromPool().priority(), 0);

  c10::cuda::setCurrentCUDAStream(high);
  EXPECT_EQ(cuda::current_device(), 0) << "setCurrentCUDAStream does not switch the device";
  EXPECT_EQ(c10::cuda::getCurrentCUDAStream(1), high);
  c10::cuda::setCurrentCUDAStream(c10::cuda::getDefaultCUDAStream(1));
  {
    c10::cuda::CUDAStreamGuard guard(high);
    EXPECT_EQ(cuda::current_device(), 1);
    EXPECT_EQ(at::cuda::getCurrentCUDAStream(), high);
  }
  EXPECT_EQ(cuda::current_device(), 0);
  EXPECT_EQ(at::cuda::getCurrentCUDAStream(1), c10::cuda::getDefaultCUDAStream(1));
}

TEST(TorchStreamCompatTest, AtCudaEvent) {
  use_emulated_devices(2);
  cuda::set_device(0);
  at::cuda::CUDAEvent untimed;
  EXPECT_FALSE(untimed.isCreated());
  EXPECT_EQ(untimed.device_index(), -1);
  const at::cuda::CUDAStream s = at::cuda::getStreamFromPool();
  untimed.recordOnce(s);
  EXPECT_TRUE(untimed.isCreated());
  EXPECT_EQ(untimed.device_index(), 0);
  untimed.block(at::cuda::getCurrentCUDAStream());
  untimed.synchronize();
  at::cuda::CUDAEvent start(/*cudaEventDefault=*/0u), end(0u);
  EXPECT_TRUE(start.enable_timing());
  EXPECT_FALSE(at::cuda::CUDAEvent(/*cudaEventDisableTiming=*/2u).enable_timing());
  start.record(s);
  end.record(s);
  end.synchronize();
  EXPECT_GE(start.elapsed_time(end), 0.0f);
  torch::cuda::synchronize();
}

TEST(TorchStreamCompatTest, CudaFunctionsAndDeviceGuards) {
  use_emulated_devices(2);
  c10::cuda::set_device(0);
  EXPECT_EQ(c10::cuda::device_count(), 2);
  EXPECT_EQ(c10::cuda::device_count_ensure_non_zero(), 2);
  EXPECT_EQ(at::cuda::getNumGPUs(), 2);
  {
    c10::cuda::CUDAGuard guard(1);
    EXPECT_EQ(c10::cuda::current_device(), 1);
    EXPECT_EQ(guard.original_device(), torch::Device(torch::kCUDA, 0));
    EXPECT_EQ(guard.current_device(), torch::Device(torch::kCUDA, 1));
    guard.set_index(0);
    EXPECT_EQ(c10::cuda::current_device(), 0);
    guard.reset_device(torch::Device("cuda:1"));
    EXPECT_EQ(c10::cuda::current_device(), 1);
    guard.set_device(torch::Device(torch::kCUDA));  // index -1: nothing changes
    EXPECT_EQ(guard.current_device(), torch::Device(torch::kCUDA, 1));
    EXPECT_NE(error_of([&] { guard.set_device(torch::kCPU); }).find("Expected a CUDA device, but got cpu"),
              std::string::npos);
  }
  EXPECT_EQ(c10::cuda::current_device(), 0);
  {
    c10::cuda::OptionalCUDAGuard guard;
    EXPECT_FALSE(guard.original_device().has_value());
    guard.set_device(torch::Device(torch::kCUDA, 1));
    EXPECT_EQ(c10::cuda::current_device(), 1);
    EXPECT_EQ(guard.original_device(), torch::Device(torch::kCUDA, 0));
    EXPECT_EQ(guard.current_device(), torch::Device(torch::kCUDA, 1));
    guard.reset();
    EXPECT_EQ(c10::cuda::current_device(), 0);
    EXPECT_FALSE(guard.current_device().has_value());
  }
  {
    c10::cuda::OptionalCUDAGuard guard(std::optional<torch::Device>(torch::Device("cuda:1")));
    EXPECT_EQ(c10::cuda::current_device(), 1);
  }
  EXPECT_EQ(c10::cuda::current_device(), 0);
  EXPECT_EQ(std::string(at::cuda::getCurrentDeviceProperties()->name), cuda::get_device_name(0));
  EXPECT_EQ(at::cuda::getDeviceProperties(1)->totalGlobalMem, cuda::get_device_properties(1).total_memory);
  EXPECT_EQ(at::cuda::warp_size(), 32);
}

TEST(TorchStreamCompatTest, StreamGuardRestoresStreamsAndDevices) {
  use_emulated_devices(2);
  c10::cuda::set_device(0);
  const c10::cuda::CUDAStream s0 = c10::cuda::getStreamFromPool(false, 0);
  const c10::cuda::CUDAStream s1 = c10::cuda::getStreamFromPool(false, 1);
  const c10::cuda::CUDAStream t1 = c10::cuda::getStreamFromPool(false, 1);
  {
    c10::cuda::CUDAStreamGuard guard(s1);
    EXPECT_EQ(guard.original_device(), torch::Device("cuda:0"));
    EXPECT_EQ(guard.current_device(), torch::Device("cuda:1"));
    EXPECT_EQ(guard.original_stream(), c10::cuda::getDefaultCUDAStream(0));
    EXPECT_EQ(guard.current_stream(), s1);
    EXPECT_EQ(c10::cuda::getCurrentCUDAStream(), s1);
    guard.reset_stream(t1);  // same device: only the stream changes
    EXPECT_EQ(c10::cuda::getCurrentCUDAStream(1), t1);
    guard.reset_stream(s0);  // other device: device 1's stream is restored first
    EXPECT_EQ(c10::cuda::current_device(), 0);
    EXPECT_EQ(c10::cuda::getCurrentCUDAStream(1), c10::cuda::getDefaultCUDAStream(1));
    EXPECT_EQ(c10::cuda::getCurrentCUDAStream(0), s0);
  }
  EXPECT_EQ(c10::cuda::current_device(), 0);
  EXPECT_EQ(c10::cuda::getCurrentCUDAStream(0), c10::cuda::getDefaultCUDAStream(0));
  EXPECT_EQ(c10::cuda::getCurrentCUDAStream(1), c10::cuda::getDefaultCUDAStream(1));
  // CUDA's event flags as libtorch code passes them.
  EXPECT_FALSE(at::cuda::CUDAEvent(cudaEventDisableTiming).enable_timing());
  EXPECT_TRUE(at::cuda::CUDAEvent(cudaEventDefault).enable_timing());
  EXPECT_FALSE(at::cuda::CUDAEvent(cudaEventBlockingSync | cudaEventDisableTiming).enable_timing());
  torch::cuda::synchronize(-1);
  c10::cuda::device_synchronize();
}

TEST(TorchStreamCompatTest, FactoriesOnACudaDeviceType) {
  use_emulated_devices(2);
  c10::cuda::set_device(1);
  const torch::Tensor a = torch::ones({2}, torch::kCUDA);
  EXPECT_EQ(a.device(), torch::Device("cuda:1"));
  const torch::Tensor b = torch::zeros({2}, torch::TensorOptions().device(torch::kCUDA, 0));
  EXPECT_EQ(b.device(), torch::Device("cuda:0"));
  EXPECT_EQ(a.to(torch::kCPU).device(), torch::Device("cpu"));
  EXPECT_EQ(b.to("cuda:1").device(), torch::Device("cuda:1"));
  c10::cuda::set_device(0);
}

}  // namespace
}  // namespace ctorch::testing
