// The layer families of nn_functional_layers.h (padding, 1-d/3-d convolution and pooling, fold,
// normalization, distances, resampling, embedding bags): values against python3-torch (two checksums
// per output, from tests/unit/nn_layers_extra_test.cpp's inputs run through torch.nn.functional),
// gradients against finite differences, and PyTorch's error texts.
#include <gtest/gtest.h>

#include <cmath>

#include "ctorch/ctorch.h"

using namespace ctorch;
namespace F = ctorch::nn::functional;

namespace {

const TensorOptions kF64 = TensorOptions().dtype(kDouble);

// sin(0.37 * arange) in the given shape: distinct, signed values.
Tensor ar(IntArrayRef shape) {
  int64_t n = 1;
  for (int64_t s : shape) n *= s;
  return (arange(n, kF64) * 0.37).sin().reshape(shape);
}

// Two checksums of `t` (the sum, and the index-weighted mean) against PyTorch's.
void check(const char* name, const Tensor& t, int64_t numel, double s1, double s2) {
  SCOPED_TRACE(name);
  const Tensor d = t.detach().to(kDouble).flatten();
  ASSERT_EQ(d.numel(), numel);
  const double sum = d.sum().item<double>();
  const double weighted = (d * arange(d.numel(), kF64)).sum().item<double>() / static_cast<double>(numel);
  EXPECT_NEAR(sum, s1, 1e-6 * (1 + std::abs(s1)));
  EXPECT_NEAR(weighted, s2, 1e-6 * (1 + std::abs(s2)));
}

Tensor unpool2d() {
  auto [v, i] = F::max_poolnd_with_indices(2, ar({1, 2, 4, 4}), {2});
  return F::max_unpoolnd(2, v, i, {2}, {}, {0}, std::vector<int64_t>{5, 5});
}

}  // namespace

TEST(NnLayersExtra, ValuesMatchPyTorch) {
  const Tensor x = ar({1, 2, 3, 4});
  const Tensor xi = ar({2, 4, 4, 5, 3});
  const Tensor grid = ar({2, 3, 4, 2}) * 1.3;
  const Tensor samples = tensor({{{0.3, 0.8}, {0.55, 0.1}}}, kF64);
  Tensor rm = zeros({3}, kF64), rv = ones({3}, kF64);
  check("pad_reflect", F::pad(x, {2, 1, 1, 2}, "reflect"), 84, 20.48124409, 3.243011606);
  check("pad_replicate", F::pad(x, {3, 0, 0, 2}, "replicate"), 70, 18.06351736, 12.39693217);
  check("pad_circular", F::pad(x, {1, 2, 2, 1}, "circular"), 84, 16.03947113, 3.4929782);
  check("pad_constant", F::pad(x, {1, -1, 2, 0}, "constant", 2.5), 40, 58.27615203, 23.33697057);
  check("conv3d", F::conv3d(xi, ar({6, 2, 3, 2, 2}), ar({6}), {1, 2, 1}, {1, 0, 1}, {1, 1, 2}, 2), 288, 196.1374991,
        111.3680308);
  check("conv_t3d",
        F::conv_transpose3d(xi, ar({4, 3, 3, 2, 2}), ar({6}), {2, 1, 2}, {1, 0, 1}, {1, 0, 1}, 2, {1, 2, 1}), 3360,
        2174.815575, 1246.185335);
  check("maxpool3d", std::get<0>(F::max_poolnd_with_indices(3, xi, {2, 3, 2}, {2, 2, 1}, {1, 1, 0}, {1}, true)), 144,
        85.81172688, 42.3261044);
  check("maxpool3d_idx", std::get<1>(F::max_poolnd_with_indices(3, xi, {2, 3, 2}, {2, 2, 1}, {1, 1, 0}, {1}, true)),
        144, 4256, 2215.652778);
  check("avgpool3d", F::avg_pool3d(xi, {2, 3, 2}, {2, 2, 1}, {1, 1, 0}, true, false), 144, 0.754749411, -0.07020226769);
  check("avgpool3d_inc", F::avg_pool3d(xi, {2}, {2}, {1}, true), 144, 0.305134041, -0.01938847403);
  check("amax2d", std::get<0>(F::adaptive_max_poolnd_with_indices(2, ar({2, 3, 7, 5}), {3, 4})), 72, 62.8048321,
        30.37707665);
  check("amax2d_idx", std::get<1>(F::adaptive_max_poolnd_with_indices(2, ar({2, 3, 7, 5}), {3, 4})), 72, 1150,
        611.6944444);
  check("aavg3d", F::adaptive_avg_poolnd(3, xi, {3, 2, 2}), 96, 1.134035213, -0.1235657085);
  check("lp2d", F::lp_poolnd(2, ar({1, 2, 5, 5}).abs(), 1.5, {2, 3}, {2, 1}), 12, 24.74778379, 11.43468158);
  check("unpool2d", unpool2d(), 50, 3.822433951, 1.455279892);
  check("unfold", F::unfold(ar({2, 3, 5, 4}), {2, 3}, {1}, {1, 0}, {2, 1}), 216, 0.04129818829, -3.84486496);
  check("fold", F::fold(F::unfold(ar({2, 3, 5, 4}), {2, 3}, {1}, {1, 0}, {2, 1}), {5, 4}, {2, 3}, {1}, {1, 0}, {2, 1}),
        120, 0.04129818829, -4.026947114);
  check("inorm", F::instance_norm(ar({2, 3, 4, 5}), rm, rv, ar({3}), ar({3}) + 1, true, 0.2), 120, 161.4361337,
        84.47493088);
  check("inorm_rm", rm, 3, 0.0001344086266, 0.00184314232);
  check("inorm_rv", rv, 3, 2.706782966, 0.9019938609);
  check("gnorm", F::group_norm(ar({2, 6, 3, 2}), 3, ar({6}), ar({6}) + 1, 1e-3), 72, 117.4916514, 62.46917595);
  check("lrn", F::local_response_norm(ar({2, 5, 3, 3}), 3, 0.1, 0.6, 1.5), 90, 2.345524526, 0.3292507043);
  check("lrn5", F::local_response_norm(ar({2, 5, 3, 2, 2}), 2), 120, 0.02687925455, -2.619866401);
  check("cos", F::cosine_similarity(ar({3, 4}), ar({3, 4}) * 0.5 + 0.1, 1), 3, 2.913610616, 0.9502910194);
  check("pdist", F::pairwise_distance(ar({3, 4}), ar({3, 4}) + 0.3, 3), 3, 1.428656185, 0.4762187282);
  check("pdist2", F::pdist(ar({5, 3}), 1.5), 10, 21.26580541, 10.44887838);
  check("bilinear", F::bilinear(ar({4, 3}), ar({4, 2}), ar({5, 3, 2}), ar({5})), 20, 14.88611646, 6.986397259);
  check("normalize", F::normalize(ar({3, 4}), 1, 0), 12, 2.501116205, 0.5191931992);
  check("interp_bilinear",
        F::interpolate(ar({1, 2, 3, 4}), std::vector<int64_t>{5, 7}, std::nullopt, "bilinear", false), 70, 14.56697032,
        6.676920601);
  check("interp_bilinear_ac",
        F::interpolate(ar({1, 2, 3, 4}), std::nullopt, std::vector<double>{1.7}, "bilinear", true), 60, 13.61789394,
        6.031533036);
  check("interp_bicubic", F::interpolate(ar({1, 2, 3, 4}), std::vector<int64_t>{6, 5}, std::nullopt, "bicubic", false),
        60, 12.06491723, 5.719588915);
  check("interp_nearest", F::interpolate(ar({1, 2, 3}), std::vector<int64_t>{7}), 14, 8.673214839, 5.456472951);
  check("interp_area", F::interpolate(ar({1, 2, 5, 7}), std::vector<int64_t>{3, 4}, std::nullopt, "area"), 24,
        -0.7295387778, -1.013567865);
  check("interp_trilinear", F::interpolate(xi, std::nullopt, std::vector<double>{1.5, 0.5, 2.0}, "trilinear"), 576,
        1.280193164, -5.788373375);
  check("aa_bilinear",
        F::interpolate(ar({1, 2, 9, 11}), std::vector<int64_t>{4, 5}, std::nullopt, "bilinear", std::nullopt,
                       std::nullopt, true),
        40, 0.1310577418, -0.01661690177);
  check("aa_bicubic",
        F::interpolate(ar({1, 2, 9, 11}), std::vector<int64_t>{4, 13}, std::nullopt, "bicubic", false, std::nullopt,
                       true),
        104, 0.3854203712, -0.006839711103);
  check(
      "aa_bilinear_ac",
      F::interpolate(ar({1, 2, 9, 11}), std::nullopt, std::vector<double>{0.45}, "bilinear", true, std::nullopt, true),
      32, -0.08046252447, -0.03586073321);
  check("nearest_exact", F::interpolate(ar({1, 2, 9, 11}), std::vector<int64_t>{4, 5}, std::nullopt, "nearest-exact"),
        40, -2.939343959, -1.856180937);
  check("grid_bilinear_refl", F::grid_sample(ar({2, 2, 4, 5}), grid, "bilinear", "reflection", false), 48, 11.03527131,
        2.421048955);
  check("grid_nearest_zero", F::grid_sample(ar({2, 2, 4, 5}), grid, "nearest", "zeros", true), 48, 8.378700682,
        2.842574407);
  check("grid_border", F::grid_sample(ar({2, 2, 4, 5}), grid, "bilinear", "border", true), 48, 9.435056039,
        2.557135367);
  check("affine", F::affine_grid(ar({2, 2, 3}), {2, 1, 3, 4}, false), 48, 12.1859112, 0.7841517283);
  check("ebag", F::embedding_bag(tensor({1, 2, 4, 5, 4, 3, 2, 9}), ar({10, 3}), tensor({0, 4}), "mean"), 6,
        -1.171880628, -0.8999263527);
  check("ebag_max", F::embedding_bag(tensor({{1, 2, 4}, {5, 4, 3}}), ar({10, 3}), Tensor(), "max"), 6, 2.31712115,
        0.1616010367);
  const Tensor bag_ids = tensor({1, 2, 4, 5, 4, 3, 2, 9});
  check("ebag_weighted",
        F::embedding_bag(bag_ids, ar({10, 3}), tensor({0, 3, 3, 8}), "sum", arange(8.0, kF64) / 4, true, 4), 9,
        -4.067628728169032, -3.64601923839981);
  check("ebag_padding", F::embedding_bag(bag_ids, ar({10, 3}), tensor({0, 3, 3}), "mean", Tensor(), false, 4), 9,
        1.342143793409267, -0.4653365100077045);
  const Tensor grid3 = ar({2, 3, 2, 4, 3}) * 1.3;
  check("grid3d_bilinear", F::grid_sample(ar({2, 2, 3, 4, 5}), grid3, "bilinear", "zeros", false), 96,
        -0.07959067323561972, -0.6695678999307897);
  check("grid3d_nearest", F::grid_sample(ar({2, 2, 3, 4, 5}), grid3, "nearest", "reflection", true), 96,
        -0.1697108349591604, -3.464977415586894);
  check("grid3d_border", F::grid_sample(ar({2, 2, 3, 4, 5}), grid3, "bilinear", "border", true), 96, 0.5684679021140255,
        -1.646149949333962);
  check("onehot", F::one_hot(tensor({{0, 2}, {1, 3}}), 5), 20, 4, 1.8);
  check("pshuffle", F::pixel_shuffle(ar({1, 8, 2, 3}), 2), 48, 1.878289818, -1.01567185);
  check("punshuffle", F::pixel_unshuffle(ar({1, 2, 4, 6}), 2), 48, 1.878289818, -1.4503341);
  check("fmp2d",
        std::get<0>(F::fractional_max_poolnd_with_indices(2, ar({1, 2, 7, 6}), {2}, std::vector<int64_t>{3, 4},
                                                          std::nullopt, samples)),
        24, 17.5739838, 7.698082921);
  check("fmp2d_idx",
        std::get<1>(F::fractional_max_poolnd_with_indices(2, ar({1, 2, 7, 6}), {2}, std::vector<int64_t>{3, 4},
                                                          std::nullopt, samples)),
        24, 469, 257);
}

TEST(NnLayersExtra, GradientsMatchFiniteDifferences) {
  manual_seed(3);
  const Tensor x = rand({1, 2, 3, 4}, kF64).requires_grad_();
  const Tensor v = rand({1, 2, 3, 3, 2}, kF64).requires_grad_();
  const Tensor w = rand({2, 1, 2, 2, 2}, kF64).requires_grad_();
  EXPECT_TRUE(autograd::gradcheck(
      [](const autograd::variable_list& in) {
        const Tensor a = F::pad(in[0], {2, 1, 1, 2}, "reflect").sin().sum() +
                         F::pad(in[0], {1, 2, 0, 1}, "circular").pow(2).sum() +
                         F::interpolate(in[0], std::vector<int64_t>{4, 7}, std::nullopt, "bicubic").sin().sum() +
                         F::group_norm(in[0], 2).sin().sum() + F::pdist(in[0].reshape({3, 8}), 1.5).sum() +
                         F::local_response_norm(in[0], 2).sum();
        return autograd::variable_list{a};
      },
      {x}));
  EXPECT_TRUE(autograd::gradcheck(
      [](const autograd::variable_list& in) {
        const Tensor a = F::conv3d(in[0], in[1], Tensor(), {1}, {1, 0, 1}, {1}, 2).sin().sum() +
                         F::conv_transpose3d(in[0], in[1], Tensor(), {2, 1, 1}, {0}, {1, 0, 0}, 2).sin().sum() +
                         F::avg_pool3d(in[0], {2}, {1}, {1}, false, false).pow(2).sum() +
                         F::max_pool3d(in[0] * 2, {2, 2, 1}).sum() + F::instance_norm(in[0]).sin().sum();
        return autograd::variable_list{a};
      },
      {v, w}));
  const Tensor g = (rand({1, 2, 3, 2}, kF64) * 1.6 - 0.8).requires_grad_();
  EXPECT_TRUE(autograd::gradcheck(
      [](const autograd::variable_list& in) {
        return autograd::variable_list{
            F::grid_sample(in[0], in[1], "bilinear", "border", false).sin().sum() +
            F::fold(F::unfold(in[0], {2, 2}, {1}, {1}), {3, 4}, {2, 2}, {1}, {1}).pow(2).sum()};
      },
      {x, g}));
}

TEST(NnLayersExtra, ErrorsAsPyTorch) {
  const Tensor x = ar({1, 1, 3});
  try {
    F::pad(x, {3, 0}, "reflect");
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("Padding size should be less than the corresponding input dimension"),
              std::string::npos);
  }
  EXPECT_THROW(F::conv_padding_mode(ar({1, 2, 5}), ar({2, 2, 3}), Tensor(), {2}, "same", {1}, 1), Error);
  try {
    F::unfold(ar({1, 5, 2}), {2});
    FAIL() << "expected an error";
  } catch (const NotImplementedError& e) {
    EXPECT_NE(std::string(e.what()).find("Input Error: Only 4D input Tensors are supported (got 3D)"),
              std::string::npos);
  }
  EXPECT_THROW(F::affine_grid(ar({2, 2, 3}), {-1, 1, 2, 2}, std::nullopt), Error);
  try {
    F::affine_grid(ones({1, 2, 3}, kInt), {1, 1, 2, 2}, std::nullopt);
    FAIL() << "expected an error";
  } catch (const ValueError& e) {
    EXPECT_STREQ(e.what(), "Expected theta to have floating point type, but got torch.int32");
  }
  EXPECT_THROW(F::pdist(ar({2, 2, 2})), Error);
}

// Tensor.repeat (affine_grid's tests tile theta with it) and the % operator (one_hot's).
TEST(NnLayersExtra, TensorRepeatAndRemainderOperator) {
  const Tensor x = arange(6.0, kF64).reshape({2, 3}).requires_grad_();
  const Tensor y = x.repeat({2, 1, 2});
  EXPECT_EQ(y.sizes(), IntArrayRef({2, 2, 6}));
  // torch.arange(6.).reshape(2, 3).repeat(2, 1, 2).flatten()[:14]
  EXPECT_TRUE(
      y.flatten().slice(0, 0, 14).equal(tensor({0., 1., 2., 0., 1., 2., 3., 4., 5., 3., 4., 5., 0., 1.}, kF64)));
  (y * y).sum().backward();
  EXPECT_TRUE(x.grad().equal(x.detach() * 8));  // four copies of each element
  EXPECT_TRUE((arange(7) % 3).equal(tensor({0, 1, 2, 0, 1, 2, 0}, kLong)));
  try {
    x.repeat({2});
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(),
                 "Number of dimensions of repeat dims can not be smaller than number of dimensions of tensor");
  }
}
