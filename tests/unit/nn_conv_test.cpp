// Conv2d and 2-d pooling: values against a direct loop, gradients against finite differences.
#include <gtest/gtest.h>

#include "ctorch/ctorch.h"

using namespace ctorch;

namespace {

// out[n][o][y][x] = b[o] + sum_{c,i,j} in[n][c][y*s-p+i][x*s-p+j] * w[o][c][i][j] (zero outside).
std::vector<double> direct_conv(const Tensor& in, const Tensor& w, const Tensor& b, int64_t s, int64_t p) {
  const auto iv = in.to_vector<double>(), wv = w.to_vector<double>(), bv = b.to_vector<double>();
  const int64_t n = in.size(0), c = in.size(1), h = in.size(2), wd = in.size(3);
  const int64_t oc = w.size(0), k = w.size(2);
  const int64_t oh = (h + 2 * p - k) / s + 1, ow = (wd + 2 * p - k) / s + 1;
  std::vector<double> out;
  for (int64_t ni = 0; ni < n; ++ni)
    for (int64_t o = 0; o < oc; ++o)
      for (int64_t y = 0; y < oh; ++y)
        for (int64_t x = 0; x < ow; ++x) {
          double acc = bv[static_cast<size_t>(o)];
          for (int64_t ci = 0; ci < c; ++ci)
            for (int64_t i = 0; i < k; ++i)
              for (int64_t j = 0; j < k; ++j) {
                const int64_t yy = y * s - p + i, xx = x * s - p + j;
                if (yy < 0 || yy >= h || xx < 0 || xx >= wd) continue;
                acc += iv[static_cast<size_t>(((ni * c + ci) * h + yy) * wd + xx)] *
                       wv[static_cast<size_t>(((o * c + ci) * k + i) * k + j)];
              }
          out.push_back(acc);
        }
  return out;
}

TEST(NnConv, Conv2dMatchesADirectLoop) {
  manual_seed(0);
  nn::Conv2d conv(2, 3, /*kernel_size=*/3, /*stride=*/2, /*padding=*/1);
  conv.to(kDouble);
  const Tensor x = rand({2, 2, 5, 6}, TensorOptions().dtype(kDouble));
  const Tensor y = conv(x);
  EXPECT_EQ(y.sizes(), (std::vector<int64_t>{2, 3, 3, 3}));
  const std::vector<double> want = direct_conv(x, conv.weight.detach(), conv.bias.detach(), 2, 1);
  const std::vector<double> got = y.contiguous().to_vector<double>();
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], want[i], 1e-12) << i;
  EXPECT_EQ(conv.repr(), "Conv2d(2, 3, kernel_size=(3, 3), stride=(2, 2), padding=(1, 1))");
  EXPECT_THROW(conv(rand({1, 3, 5, 5}, TensorOptions().dtype(kDouble))), Error);  // wrong channel count
}

TEST(NnConv, GradientsMatchFiniteDifferences) {
  const TensorOptions f64 = TensorOptions().dtype(kDouble);
  manual_seed(1);
  const Tensor x = rand({1, 2, 4, 4}, f64).requires_grad_();
  const Tensor w = rand({2, 2, 2, 2}, f64).requires_grad_();
  const Tensor b = rand({2}, f64).requires_grad_();
  EXPECT_TRUE(autograd::gradcheck(
      [](const autograd::variable_list& v) {
        return autograd::variable_list{nn::functional::conv2d(v[0], v[1], v[2], {1, 1}, {1, 1}).sin().sum()};
      },
      {x, w, b}));
  EXPECT_TRUE(autograd::gradcheck(
      [](const autograd::variable_list& v) {
        return autograd::variable_list{nn::functional::avg_pool2d(v[0], {2, 2}, {1, 1}, {1, 1}).pow(2).sum() +
                                       nn::functional::max_pool2d(v[0] * 3, {2, 2}).sum()};
      },
      {x}));
}

TEST(NnConv, PoolingValues) {
  const Tensor x = arange(16.0).reshape({1, 1, 4, 4});
  EXPECT_TRUE(nn::MaxPool2d(2)(x).equal(tensor({{{{5.f, 7.f}, {13.f, 15.f}}}})));
  EXPECT_TRUE(nn::AvgPool2d(2)(x).equal(tensor({{{{2.5f, 4.5f}, {10.5f, 12.5f}}}})));
  // Padding: -inf for max, zeros counted for the average (count_include_pad).
  EXPECT_TRUE(nn::MaxPool2d(2, 2, 1)(x)[0][0][0].equal(tensor({0.f, 2.f, 3.f})));
  EXPECT_NEAR(nn::AvgPool2d(2, 2, 1)(x)[0][0][0][0].item<double>(), 0.0 / 4, 1e-7);
  EXPECT_EQ(nn::MaxPool2d(2).repr(), "MaxPool2d(kernel_size=2, stride=2, padding=0, dilation=1, ceil_mode=False)");
  EXPECT_THROW(nn::MaxPool2d(2, 2, 2)(x), Error);  // pad more than half the kernel
}

TEST(NnConv, OutputIsContiguousSoViewWorks) {
  // PyTorch's conv2d returns a contiguous tensor: models flatten it with view (parallel.cpp's
  // DataParallelNumericalEquivalence does x.view({-1, 8})).
  manual_seed(0);
  nn::Conv2d conv(2, 2, 2);
  const Tensor y = conv(ones({16, 2, 3, 3}));
  EXPECT_TRUE(y.is_contiguous());
  EXPECT_EQ(y.view({-1, 8}).sizes(), IntArrayRef({16, 8}));
}

}  // namespace
