// libtorch-style code compiles against <ctorch/torch.h> and behaves the same.
#include <gtest/gtest.h>

#include "ctorch/torch.h"

TEST(TorchCompat, LibtorchSpellingsCompile) {
  torch::Tensor a = torch::ones({2, 3}, torch::TensorOptions().dtype(torch::kFloat32));
  torch::Tensor b = torch::zeros({2, 3}, torch::dtype(torch::kFloat));
  torch::Tensor c = a + b * 2;
  EXPECT_EQ(c.sizes(), torch::IntArrayRef({2, 3}));
  EXPECT_EQ(c.scalar_type(), torch::kFloat);
  torch::Device d(torch::kCPU);
  EXPECT_TRUE(c.device() == d);
  c10::Device d2("cpu");
  EXPECT_EQ(d2.type(), c10::DeviceType::CPU);
  EXPECT_EQ(at::kCPU, torch::kCPU);
  EXPECT_FALSE(torch::cuda::is_available() && torch::cuda::device_count() == 0);
}
