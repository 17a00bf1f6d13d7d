// CUDA_VISIBLE_DEVICES applied to emulated devices: the configured devices are physical, the
// variable selects and orders the visible ones, which keep their physical identity.
#include <gtest/gtest.h>

#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

#include "ctorch/ctorch.h"
#include "ctorch/emulation.h"

using namespace ctorch;

namespace {

// Sets CUDA_VISIBLE_DEVICES for one test and restores the previous value (and two plain
// emulated devices) afterwards.
class EmulatedVisibleDevices : public ::testing::Test {
 protected:
  void SetUp() override {
    if (const char* v = std::getenv("CUDA_VISIBLE_DEVICES")) saved_ = v;
  }
  void TearDown() override {
    if (saved_) {
      setenv("CUDA_VISIBLE_DEVICES", saved_->c_str(), 1);
    } else {
      unsetenv("CUDA_VISIBLE_DEVICES");
    }
    cuda::emulate(2);
  }
  static std::vector<std::string> physical_uuids(int n) {
    unsetenv("CUDA_VISIBLE_DEVICES");
    cuda::emulate(n);
    std::vector<std::string> out;
    for (int i = 0; i < n; ++i) out.push_back(cuda::get_device_properties(i).uuid);
    return out;
  }

 private:
  std::optional<std::string> saved_;
};

}  // namespace

TEST_F(EmulatedVisibleDevices, OrdinalsSelectAndReorderPhysicalDevices) {
  const std::vector<std::string> uuid = physical_uuids(4);
  ASSERT_NE(uuid[0], uuid[2]);
  setenv("CUDA_VISIBLE_DEVICES", "2,0", 1);
  cuda::emulate(4);
  ASSERT_EQ(cuda::device_count(), 2);
  EXPECT_EQ(cuda::get_device_properties(0).uuid, uuid[2]);
  EXPECT_EQ(cuda::get_device_properties(1).uuid, uuid[0]);
  EXPECT_EQ(cuda::get_device_properties(0).pci_bus_id, 3);
  // Tensors live on the visible numbering.
  Tensor t = ones({3}, TensorOptions().device("cuda:1"));
  EXPECT_EQ(t.device(), Device("cuda:1"));
  EXPECT_EQ(t.cpu().sum().item<float>(), 3.0f);
  EXPECT_THROW(ones({1}, TensorOptions().device("cuda:2")), Error);
}

TEST_F(EmulatedVisibleDevices, ListStopsAtTheFirstInvalidOrRepeatedOrdinal) {
  const std::pair<const char*, int> cases[] = {
      {"1,7,0", 1}, {"0,1,-1,2", 2}, {"1,1", 0}, {"", 0}, {"3,2,1,0", 4}, {"0,foo,1", 1}, {"9", 0},
  };
  for (auto [value, count] : cases) {
    SCOPED_TRACE(value);
    setenv("CUDA_VISIBLE_DEVICES", value, 1);
    cuda::emulate(4);
    EXPECT_EQ(cuda::device_count(), count);
    EXPECT_EQ(cuda::is_available(), count > 0);
  }
}

TEST_F(EmulatedVisibleDevices, UuidPrefixesMatchExactlyOneDevice) {
  const std::vector<std::string> uuid = physical_uuids(3);
  setenv("CUDA_VISIBLE_DEVICES", (uuid[1].substr(0, 12) + "," + uuid[0]).c_str(), 1);
  cuda::emulate(3);
  ASSERT_EQ(cuda::device_count(), 2);
  EXPECT_EQ(cuda::get_device_properties(0).uuid, uuid[1]);
  EXPECT_EQ(cuda::get_device_properties(1).uuid, uuid[0]);
  // "GPU-" matches every device: ambiguous, so nothing from there on is visible.
  setenv("CUDA_VISIBLE_DEVICES", "GPU-", 1);
  cuda::emulate(3);
  EXPECT_EQ(cuda::device_count(), 0);
}

TEST_F(EmulatedVisibleDevices, PeerMatrixIsRenumbered) {
  cuda::EmulationConfig config;
  config.devices = 3;
  config.peer_access = std::vector<std::pair<int, int>>{{0, 2}};  // physical 0 may read physical 2
  setenv("CUDA_VISIBLE_DEVICES", "2,0", 1);
  cuda::emulate(config);
  ASSERT_EQ(cuda::device_count(), 2);
  EXPECT_TRUE(cuda::can_device_access_peer(1, 0));
  EXPECT_FALSE(cuda::can_device_access_peer(0, 1));
}
