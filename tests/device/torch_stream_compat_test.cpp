// libtorch spellings of streams and events (ctorch/torch.h) on emulated devices.
#include "ctorch/torch.h"
#include "device/device_test.h"

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

}  // namespace
}  // namespace ctorch::testing
