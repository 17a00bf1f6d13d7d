// Tensors created on and moved between devices: factories, to/cuda/cpu/copy_, pinned memory,
// non_blocking, mixed-device errors (spec §2). Runs on emulated cuda and, when present, real cuda.
#include <sstream>

#include "device/device_test.h"
#include "test_util.h"

using namespace ctorch;
using ctorch::testing::DeviceTest;

namespace {

class Movement : public DeviceTest {};
CTORCH_INSTANTIATE_CUDA_TESTS(Movement);

using ::ctorch::testing::error_of;
using ::ctorch::testing::PrintStyleScope;

}  // namespace

TEST_P(Movement, FactoriesCreateOnTheRequestedDevice) {
  Tensor z = zeros({2, 5}, on_device());
  EXPECT_EQ(z.device(), Device("cuda:0"));
  EXPECT_EQ(z.to_vector<float>(), std::vector<float>(10, 0.0f));
  Tensor t = tensor({{2, 5, 8}, {1, 4, 7}}, TensorOptions().device("cuda:0"));
  EXPECT_EQ(t.device(), Device("cuda:0"));
  EXPECT_EQ(t.dtype(), kLong);
  EXPECT_EQ(t.to_vector<int64_t>(), (std::vector<int64_t>{2, 5, 8, 1, 4, 7}));
  EXPECT_EQ(arange(5, TensorOptions().device("cuda:0")).to_vector<int64_t>(), (std::vector<int64_t>{0, 1, 2, 3, 4}));
  EXPECT_EQ(full({3}, 2.5, on_device()).to_vector<float>(), std::vector<float>(3, 2.5f));
}

TEST_P(Movement, CudaWithoutIndexMeansTheCurrentDevice) {
  if (cuda::device_count() < 2) GTEST_SKIP() << "needs two devices";
  {
    cuda::device guard(1);
    Tensor t = ones({2}, TensorOptions().device("cuda"));
    EXPECT_EQ(t.device(), Device("cuda:1"));
    EXPECT_EQ(ones({1}).cuda().device(), Device("cuda:1"));
  }
  EXPECT_EQ(ones({2}, TensorOptions().device("cuda")).device(), Device("cuda:0"));
}

TEST_P(Movement, ToReturnsSelfWhenNothingChanges) {
  Tensor cpu_t = tensor({{1., 4., 7.}, {3., 6., 9.}, {2., 5., 8.}});
  EXPECT_TRUE(cpu_t.to(Device("cpu")).is_same(cpu_t));
  EXPECT_TRUE(cpu_t.cpu().is_same(cpu_t));
  Tensor g = cpu_t.to(device());
  EXPECT_EQ(g.device(), Device("cuda:0"));
  EXPECT_FALSE(g.is_same(cpu_t));
  EXPECT_TRUE(g.to(device()).is_same(g));
  EXPECT_TRUE(g.to(Device("cuda")).is_same(g));  // current device is 0
  EXPECT_TRUE(g.cuda().is_same(g));
  EXPECT_TRUE(g.cuda(0).is_same(g));
  EXPECT_FALSE(g.to(device(), false, /*copy=*/true).is_same(g));
  EXPECT_EQ(g.cpu().to_vector<float>(), cpu_t.to_vector<float>());
  EXPECT_EQ(error_of([&] { cpu_t.cuda(Device("cpu")); }), "Invalid device, must be cuda device");
}

TEST_P(Movement, CopyBetweenEveryPairOfDevices) {
  Tensor host = arange(12.0).reshape({3, 4});
  Tensor d0 = empty({3, 4}, on_device());
  d0.copy_(host);  // H2D
  Tensor back = zeros({3, 4});
  back.copy_(d0);  // D2H
  EXPECT_EQ(back.to_vector<float>(), host.to_vector<float>());
  Tensor d0b = zeros({3, 4}, on_device());
  d0b.copy_(d0);  // D2D, same device
  EXPECT_EQ(d0b.to_vector<float>(), host.to_vector<float>());
  if (cuda::device_count() >= 2) {
    Tensor d1 = zeros({3, 4}, TensorOptions().device("cuda:1"));
    d1.copy_(d0);  // D2D across devices
    EXPECT_EQ(d1.device(), Device("cuda:1"));
    EXPECT_EQ(d1.to_vector<float>(), host.to_vector<float>());
    Tensor via_to = d0.to(Device("cuda:1"));
    EXPECT_EQ(via_to.to_vector<float>(), host.to_vector<float>());
  }
}

TEST_P(Movement, CopyConvertsBroadcastsAndHandlesStrides) {
  Tensor host = arange(6).reshape({2, 3});  // int64
  Tensor dst = zeros({3, 2}, on_device(kDouble)).t();  // non-contiguous destination
  dst.copy_(host);
  EXPECT_EQ(dst.to_vector<double>(), (std::vector<double>{0, 1, 2, 3, 4, 5}));
  Tensor row = tensor({1.5f, 2.5f, 3.5f}).to(device());
  Tensor out = zeros({2, 3});
  out.copy_(row);  // D2H with broadcasting
  EXPECT_EQ(out.to_vector<float>(), (std::vector<float>{1.5, 2.5, 3.5, 1.5, 2.5, 3.5}));
  Tensor g = arange(6.0, on_device()).reshape({2, 3}).t();
  EXPECT_EQ(g.cpu().to_vector<float>(), (std::vector<float>{0, 3, 1, 4, 2, 5}));
  EXPECT_EQ(g.to(kInt).cpu().to_vector<int32_t>(), (std::vector<int32_t>{0, 3, 1, 4, 2, 5}));
}

TEST_P(Movement, PinnedMemoryAndNonBlockingCopies) {
  Tensor host = arange(1000.0);
  EXPECT_FALSE(host.is_pinned());
  Tensor pinned = host.pin_memory();
  EXPECT_TRUE(pinned.is_pinned());
  EXPECT_TRUE(pinned.pin_memory().is_same(pinned));
  EXPECT_EQ(pinned.to_vector<float>(), host.to_vector<float>());
  Tensor g = pinned.to(device(), /*non_blocking=*/true);
  Tensor back = g.to(Device("cpu"), /*non_blocking=*/true);
  EXPECT_TRUE(back.is_pinned());  // non-blocking D2H allocates a pinned destination
  cuda::synchronize();
  EXPECT_EQ(back.to_vector<float>(), host.to_vector<float>());
  Tensor pageable_copy = g.to(Device("cpu"), /*non_blocking=*/false);
  EXPECT_FALSE(pageable_copy.is_pinned());
  EXPECT_EQ(error_of([&] { g.pin_memory(); }), "cannot pin 'torch.cuda.FloatTensor' only dense CPU tensors can be pinned");
  EXPECT_EQ(error_of([&] { empty({2}, on_device().pinned_memory(true)); }), "Only dense CPU tensors can be pinned");
  Tensor pinned_factory = empty({4}, TensorOptions().pinned_memory(true));
  EXPECT_TRUE(pinned_factory.is_pinned());
}

TEST_P(Movement, ItemAndPrintingReadThroughTheHost) {
  Tensor g = tensor({1.5, 2.5}, on_device());
  EXPECT_EQ(g[1].item<double>(), 2.5);
  const PrintStyleScope python(TensorPrintStyle::Python);
  std::ostringstream ss;
  ss << g;
  EXPECT_EQ(ss.str(), "tensor([1.5000, 2.5000], device='cuda:0')");
  EXPECT_EQ(g.type_string(), "torch.cuda.FloatTensor");
}

TEST_P(Movement, MixedDeviceOpsFailExceptCpuScalars) {
  Tensor g = ones({3}, on_device());
  Tensor c = ones({3});
  EXPECT_EQ(error_of([&] { (void)(g + c); }),
            "Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cpu!");
  EXPECT_EQ(error_of([&] { (void)(c + g); }),
            "Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cpu!");
  Tensor scalar = tensor(2.0);  // 0-dim cpu tensor: allowed
  Tensor r = g * scalar;
  EXPECT_EQ(r.device(), Device("cuda:0"));
  EXPECT_EQ(r.to_vector<float>(), std::vector<float>(3, 2.0f));
  EXPECT_EQ((scalar + g).to_vector<float>(), std::vector<float>(3, 3.0f));
  Tensor one_elem = ones({1});  // 1-dim is not a scalar
  EXPECT_NE(error_of([&] { (void)(g + one_elem); }).find("Expected all tensors to be on the same device"),
            std::string::npos);
  if (cuda::device_count() >= 2) {
    Tensor h = ones({3}, TensorOptions().device("cuda:1"));
    EXPECT_EQ(error_of([&] { (void)(g + h); }),
              "Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cuda:1!");
  }
}

TEST_P(Movement, ResultsStayOnTheOperandsDevice) {
  if (cuda::device_count() < 2) GTEST_SKIP() << "needs two devices";
  Tensor x = ones({2}, TensorOptions().device("cuda:0"));
  Tensor y = ones({2}, TensorOptions().device("cuda:0"));
  cuda::device guard(1);
  Tensor z = x + y;
  EXPECT_EQ(z.device(), Device("cuda:0"));
  EXPECT_EQ(z.to_vector<float>(), std::vector<float>(2, 2.0f));
}

TEST_P(Movement, NonexistentDeviceRaisesInvalidOrdinal) {
  const std::string msg = error_of([&] { zeros({1}, TensorOptions().device("cuda:7")); });
  EXPECT_EQ(msg.rfind("CUDA error: invalid device ordinal", 0), 0u) << msg;
  EXPECT_EQ(error_of([&] { ones({1}).to(Device("cuda:7")); }).rfind("CUDA error: invalid device ordinal", 0), 0u);
  EXPECT_EQ(error_of([&] { cuda::set_device(7); }).rfind("CUDA error: invalid device ordinal", 0), 0u);
  EXPECT_EQ(cuda::current_device(), 0);
}
