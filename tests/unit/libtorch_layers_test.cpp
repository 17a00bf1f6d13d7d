// libtorch's layer holders over the native layer functions (libtorch/modules_*.h): clone rebuilds
// them through reset(), they chain in Sequential, print PyTorch's repr and libtorch's pretty_print.
#include <gtest/gtest.h>

#include <sstream>

#include "ctorch/torch.h"

TEST(LibtorchLayers, HoldersCloneChainAndPrint) {
  torch::nn::Conv3d conv(torch::nn::Conv3dOptions(2, 4, 3).padding(1).padding_mode(torch::kCircular));
  torch::nn::BatchNorm3d bn(4);
  auto copy = std::dynamic_pointer_cast<torch::nn::Conv3dImpl>(conv->clone());
  ASSERT_NE(copy, nullptr);
  EXPECT_TRUE(copy->weight.equal(conv->weight));
  EXPECT_NE(copy->weight.data_ptr(), conv->weight.data_ptr());
  EXPECT_EQ(copy->parameters().size(), 2u);
  auto bn_copy = std::dynamic_pointer_cast<torch::nn::BatchNorm3dImpl>(bn->clone());
  EXPECT_EQ(bn_copy->buffers().size(), 3u);

  torch::nn::Sequential seq(conv, bn, torch::nn::MaxPool3d(2), torch::nn::Flatten());
  EXPECT_EQ(seq->forward(torch::randn({2, 2, 4, 4, 4})).sizes(), torch::IntArrayRef({2, 32}));
  EXPECT_EQ(conv->repr(),
            "Conv3d(2, 4, kernel_size=(3, 3, 3), stride=(1, 1, 1), padding=(1, 1, 1), "
            "padding_mode=circular)");
  std::ostringstream os;
  conv->pretty_print(os);
  EXPECT_EQ(os.str(),
            "torch::nn::Conv3d(2, 4, kernel_size=[3, 3, 3], stride=[1, 1, 1], padding=[1, 1, 1], "
            "padding_mode=kCircular)");
}

TEST(LibtorchLayers, SamePaddingAndOptionErrors) {
  torch::nn::Conv1d same(torch::nn::Conv1dOptions(1, 1, 4).padding(torch::kSame).bias(false));
  EXPECT_EQ(same(torch::randn({1, 1, 7})).sizes(), torch::IntArrayRef({1, 1, 7}));
  EXPECT_THROW(torch::nn::Conv2d(torch::nn::Conv2dOptions(3, 2, 3).stride(2).padding(torch::kSame)), ctorch::Error);
  EXPECT_THROW(torch::nn::Dropout(1.5), ctorch::Error);
  EXPECT_THROW(torch::nn::FractionalMaxPool2d(torch::nn::FractionalMaxPool2dOptions(2)), ctorch::Error);
}

// The native reprs are Python's (values printed by python3-torch 1.13 for the same layers).
TEST(LibtorchLayers, ReprsArePythons) {
  using namespace torch::nn;  // NOLINT(google-build-using-namespace)
  EXPECT_EQ(EmbeddingBag(EmbeddingBagOptions(10, 2).mode(torch::kSum))->repr(), "EmbeddingBag(10, 2, mode=sum)");
  EXPECT_EQ(LayerNorm(LayerNormOptions({2, 2}))->repr(), "LayerNorm((2, 2), eps=1e-05, elementwise_affine=True)");
  EXPECT_EQ(LocalResponseNorm(2)->repr(), "LocalResponseNorm(2, alpha=0.0001, beta=0.75, k=1.0)");
  EXPECT_EQ(InstanceNorm2d(3)->repr(),
            "InstanceNorm2d(3, eps=1e-05, momentum=0.1, affine=False, track_running_stats=False)");
  EXPECT_EQ(Upsample(UpsampleOptions().scale_factor(std::vector<double>{2}).mode(torch::kBilinear))->repr(),
            "Upsample(scale_factor=2.0, mode=bilinear)");
  EXPECT_EQ(Fold(FoldOptions({4, 5}, 2))->repr(),
            "Fold(output_size=(4, 5), kernel_size=2, dilation=1, padding=0, stride=1)");
  EXPECT_EQ(Unflatten(1, std::vector<int64_t>{2, 3})->repr(), "Unflatten(dim=1, unflattened_size=(2, 3))");
}
