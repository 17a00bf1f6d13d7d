// The test runner of PyTorch's C++ API tests (test/cpp/common/main.cpp), over ctorch: without
// CUDA the *_CUDA and *_MultiCUDA tests are filtered out, with one device the *_MultiCUDA ones.
// CTORCH_EMULATED_CUDA=2 gives two emulated devices, so all of them run.
#include <gtest/gtest.h>

#include <torch/cuda.h>

#include <iostream>
#include <string>

namespace {
std::string add_negative_flag(const std::string& flag) {
  std::string filter = ::testing::GTEST_FLAG(filter);
  if (filter.find('-') == std::string::npos) {
    filter.push_back('-');
  } else {
    filter.push_back(':');
  }
  filter += flag;
  return filter;
}
}  // namespace

int main(int argc, char* argv[]) {
  ::testing::InitGoogleTest(&argc, argv);
  if (!torch::cuda::is_available()) {
    std::cout << "CUDA not available. Disabling CUDA and MultiCUDA tests" << std::endl;
    ::testing::GTEST_FLAG(filter) = add_negative_flag("*_CUDA:*_MultiCUDA");
  } else if (torch::cuda::device_count() < 2) {
    std::cout << "Only one CUDA device detected. Disabling MultiCUDA tests" << std::endl;
    ::testing::GTEST_FLAG(filter) = add_negative_flag("*_MultiCUDA");
  }
  return RUN_ALL_TESTS();
}
