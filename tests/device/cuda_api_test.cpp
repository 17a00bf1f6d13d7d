// ctorch::cuda device management (torch.cuda names and semantics), on emulated and real cuda.
#include <sstream>
#include <stdexcept>

#include "device/device_test.h"
#include "test_util.h"

using namespace ctorch;
using ctorch::testing::DeviceTest;

namespace {
class CudaApi : public DeviceTest {};
CTORCH_INSTANTIATE_CUDA_TESTS(CudaApi);
}  // namespace

TEST_P(CudaApi, AvailabilityAndCount) {
  EXPECT_TRUE(cuda::is_available());
  EXPECT_GE(cuda::device_count(), 1);
  cuda::init();
  EXPECT_TRUE(cuda::is_initialized());
}

TEST_P(CudaApi, SetDeviceAndTheDeviceBlock) {
  if (cuda::device_count() < 2) GTEST_SKIP() << "needs two devices";
  EXPECT_EQ(cuda::current_device(), 0);
  {
    cuda::device block(1);
    EXPECT_EQ(block.idx(), 1);
    EXPECT_EQ(cuda::current_device(), 1);
    {
      cuda::device inner("cuda:0");
      EXPECT_EQ(cuda::current_device(), 0);
    }
    EXPECT_EQ(cuda::current_device(), 1);
  }
  EXPECT_EQ(cuda::current_device(), 0);
  try {
    cuda::device block(1);
    throw std::runtime_error("inside the block");
  } catch (const std::runtime_error&) {
  }
  EXPECT_EQ(cuda::current_device(), 0);
  {
    cuda::device noop(-1);
    EXPECT_EQ(cuda::current_device(), 0);
  }
  cuda::set_device(1);
  EXPECT_EQ(cuda::current_device(), 1);
  cuda::set_device(-1);  // negative: no-op
  EXPECT_EQ(cuda::current_device(), 1);
  cuda::set_device(Device("cuda:0"));
  EXPECT_EQ(cuda::current_device(), 0);
}

TEST_P(CudaApi, DeviceOfFollowsTheTensor) {
  if (cuda::device_count() < 2) GTEST_SKIP() << "needs two devices";
  Tensor t = ones({1}, TensorOptions().device("cuda:1"));
  {
    cuda::device_of block(t);
    EXPECT_EQ(cuda::current_device(), 1);
  }
  EXPECT_EQ(cuda::current_device(), 0);
  {
    cuda::device_of block(ones({1}));  // cpu tensor: no-op
    EXPECT_EQ(cuda::current_device(), 0);
  }
}

TEST_P(CudaApi, DeviceArgumentsFollowPyTorchRules) {
  try {
    cuda::set_device(Device("cuda"));
    FAIL();
  } catch (const ValueError& e) {
    EXPECT_STREQ(e.what(), "Expected a torch.device with a specified index or an integer, but got:cuda");
  }
  try {
    cuda::get_device_name(Device("cpu"));
    FAIL();
  } catch (const ValueError& e) {
    EXPECT_STREQ(e.what(), "Expected a cuda device, but got: cpu");
  }
  EXPECT_EQ(cuda::get_device_name("cuda"), cuda::get_device_name(0));
}

TEST_P(CudaApi, PropertiesNameCapabilityMemory) {
  const cuda::DeviceProperties p = cuda::get_device_properties(0);
  EXPECT_FALSE(p.name.empty());
  EXPECT_EQ(cuda::get_device_name(0), p.name);
  EXPECT_GT(p.total_memory, 0u);
  EXPECT_GT(p.multi_processor_count, 0);
  EXPECT_EQ(cuda::get_device_capability(0), std::make_pair(p.major, p.minor));
  std::ostringstream ss;
  ss << p;
  EXPECT_EQ(ss.str().rfind("_CudaDeviceProperties(name='" + p.name + "', major=", 0), 0u) << ss.str();
  EXPECT_THROW(cuda::get_device_properties(99), DeviceError);
  auto [free_bytes, total_bytes] = cuda::mem_get_info(0);
  EXPECT_EQ(total_bytes, p.total_memory);
  EXPECT_LE(free_bytes, total_bytes);
  cuda::synchronize(0);
  cuda::synchronize();
  if (GetParam() == ctorch::testing::Backend::Emulated) {
    EXPECT_NE(p.name.find("emulated"), std::string::npos) << p.name;
  }
}

TEST_P(CudaApi, PeerAccessIsAnswered) {
  if (cuda::device_count() < 2) GTEST_SKIP() << "needs two devices";
  EXPECT_FALSE(cuda::can_device_access_peer(0, 0));  // CUDA answers false for the same device
  EXPECT_THROW(cuda::can_device_access_peer(0, 9), DeviceError);
  if (GetParam() == ctorch::testing::Backend::Emulated) {
    // The emulated default is "peer=all"; an explicit matrix is answered per direction.
    EXPECT_TRUE(cuda::can_device_access_peer(0, 1));
    EXPECT_TRUE(cuda::can_device_access_peer(1, 0));
    cuda::EmulationConfig config;
    config.devices = 2;
    config.peer_access = std::vector<std::pair<int, int>>{{1, 0}};
    cuda::emulate(config);
    EXPECT_FALSE(cuda::can_device_access_peer(0, 1));
    EXPECT_TRUE(cuda::can_device_access_peer(1, 0));
    cuda::emulate(2);
  }
}

// Where PyTorch and libtorch read -1 as "the current device" (a torch.cuda.device(-1) block or
// c10's DeviceGuard), ctorch does too; where PyTorch checks the index, -1 keeps its error.
TEST_P(CudaApi, MinusOneMeansTheCurrentDeviceWherePyTorchSaysSo) {
  if (cuda::device_count() < 2) GTEST_SKIP() << "needs two devices";
  cuda::device block(1);
  Tensor t = ones({256}, TensorOptions().device("cuda:1"));
  (void)(t * 2);
  EXPECT_NO_THROW(cuda::synchronize(-1));
  EXPECT_EQ(cuda::current_stream(-1), cuda::current_stream(1));
  EXPECT_EQ(cuda::default_stream(-1), cuda::default_stream(1));
  EXPECT_EQ(cuda::Stream(-1).device(), Device("cuda:1"));
  EXPECT_EQ(cuda::mem_get_info(-1).second, cuda::mem_get_info(1).second);
  const int64_t before = cuda::memory_allocated(1);
  void* p = cuda::caching_allocator_alloc(1024, -1);
  EXPECT_EQ(cuda::memory_allocated(1) - before, 1024);
  cuda::caching_allocator_delete(p);
  EXPECT_EQ(cuda::get_rng_state(-1).equal(cuda::get_rng_state(1)), true);
  // PyTorch: "Invalid device argument -1: did you call init?" and AssertionError("Invalid device id").
  EXPECT_NE(ctorch::testing::error_of([] { cuda::memory_allocated(-1); }).find("Invalid device argument -1"),
            std::string::npos);
  EXPECT_EQ(ctorch::testing::error_of([] { cuda::get_device_properties(-1); }), "Invalid device id");
  EXPECT_EQ(cuda::current_device(), 1);
}
