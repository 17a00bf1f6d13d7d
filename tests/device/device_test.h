// Device-generic tests: written once, instantiated for cpu, emulated cuda and real cuda
// (PyTorch's instantiate_device_type_tests, Kokkos's TEST_EXECSPACE). Real-cuda instances skip
// when no GPU is present; emulated instances configure two emulated devices.
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "ctorch/ctorch.h"
#include "ctorch/emulation.h"

namespace ctorch::testing {

/// Which backend a test instance runs on.
enum class Backend { Cpu, Emulated, Cuda };

/// Parameter name for test names: cpu, emulated, cuda.
inline std::string backend_name(const ::testing::TestParamInfo<Backend>& info) {
  switch (info.param) {
    case Backend::Cpu: return "cpu";
    case Backend::Emulated: return "emulated";
    case Backend::Cuda: return "cuda";
  }
  return "unknown";
}

/// Ensures `n` emulated cuda devices are configured (reconfiguring only when needed).
inline void use_emulated_devices(int n) {
  if (!cuda::is_emulated() || cuda::device_count() != n) cuda::emulate(n);
}

/// Fixture giving each test its device.
class DeviceTest : public ::testing::TestWithParam<Backend> {
 protected:
  void SetUp() override {
    switch (GetParam()) {
      case Backend::Cpu:
        device_ = Device(DeviceType::CPU);
        break;
      case Backend::Emulated:
        use_emulated_devices(2);
        device_ = Device(DeviceType::CUDA, 0);
        break;
      case Backend::Cuda:
        if (cuda::is_emulated() || cuda::device_count() == 0) GTEST_SKIP() << "no real CUDA device";
        device_ = Device(DeviceType::CUDA, 0);
        break;
    }
  }
  /// The device under test.
  Device device() const { return device_; }
  /// Options on the device under test.
  TensorOptions on_device(ScalarType dtype = kFloat) const { return TensorOptions().dtype(dtype).device(device_); }
  /// True for cuda instances (emulated or real).
  bool is_cuda() const { return device_.is_cuda(); }

 private:
  Device device_ = Device(DeviceType::CPU);
};

}  // namespace ctorch::testing

/// Instantiates a DeviceTest-derived suite for every backend.
#define CTORCH_INSTANTIATE_DEVICE_TESTS(Suite)                                                                 \
  INSTANTIATE_TEST_SUITE_P(, Suite,                                                                           \
                           ::testing::Values(::ctorch::testing::Backend::Cpu, ::ctorch::testing::Backend::Emulated, \
                                             ::ctorch::testing::Backend::Cuda),                                \
                           ::ctorch::testing::backend_name)
/// Instantiates a suite for the cuda backends only (emulated and real).
#define CTORCH_INSTANTIATE_CUDA_TESTS(Suite)                                                                   \
  INSTANTIATE_TEST_SUITE_P(, Suite,                                                                           \
                           ::testing::Values(::ctorch::testing::Backend::Emulated, ::ctorch::testing::Backend::Cuda), \
                           ::ctorch::testing::backend_name)
