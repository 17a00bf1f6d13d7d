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

namespace using_both {
using namespace torch;  // NOLINT: as libtorch programs write it
using namespace at;     // NOLINT

TEST(TorchCompat, OneEntityPerNameAfterUsingNamespaces) {
  // kCPU, Tensor, ones and Device resolve to ctorch's own entities through torch, at and c10.
  Tensor t = ones({2, 2}, kCPU);
  EXPECT_EQ(t.device(), Device(kCPU));
  EXPECT_EQ(c10::str("x", 1, ", ", 2.5), "x1, 2.5");
  EXPECT_EQ(add(t, 1).sum().item().toDouble(), 8.0);
  EXPECT_EQ(div(t * 3, 2, "floor").sum().item().toLong(), 4);
  EXPECT_EQ(sub(t, 1).sum().item().toInt(), 0);
  EXPECT_EQ(mul(t, 2).sum().item().toFloat(), 8.0f);
  EXPECT_TRUE(Scalar(true).isBoolean());
  EXPECT_TRUE(Scalar(1.5).isFloatingPoint());
  EXPECT_TRUE(Scalar(3).isIntegral(false));
  EXPECT_EQ(Scalar(300).toByte(), static_cast<uint8_t>(300 & 0xff));
}

TEST(TorchCompat, VersionMacros) {
  EXPECT_EQ(TORCH_VERSION_MAJOR, 1);
  EXPECT_EQ(TORCH_VERSION_MINOR, 13);
  EXPECT_EQ(TORCH_VERSION_PATCH, 1);
  EXPECT_STREQ(TORCH_VERSION, "1.13.1");
}
}  // namespace using_both

TEST(TorchCompat, IrangeAndArrayRef) {
  int64_t sum = 0;
  for (const auto i : c10::irange(4)) sum += i;
  EXPECT_EQ(sum, 6);
  int count = 0;
  for (const auto i : c10::irange(5, int64_t{3})) count += static_cast<int>(i);
  EXPECT_EQ(count, 0);  // an empty range when end < begin
  const std::vector<int64_t> sizes = {2, 3};
  const at::ArrayRef<int64_t> ref(sizes);
  EXPECT_EQ(ref.slice(1).front(), 3);
  EXPECT_EQ(torch::ones(ref).sizes(), at::IntArrayRef({2, 3}));
  EXPECT_EQ(torch::empty(5, at::kDouble).sizes(), at::IntArrayRef({5}));
}
