// avg_pool2d and adaptive_avg_pool2d on every backend (Note [Average pooling]) against a direct
// float64 loop written here from PyTorch's kernels (window bounds, pool_size / divide_factor rule,
// adaptive start/end indices): values and gradients for padding, ceil_mode, count_include_pad false,
// divisor_override, stride above and below the kernel, small (element views) and large (row sums)
// windows, non-divisible adaptive sizes and 3-d inputs;
// integer-valued float32 inputs equal the reference bit for bit, random ones within float32 rounding,
// and a cuda device equals the cpu. Also node names, dtypes, PyTorch's error texts and the layers.
#include <gtest/gtest.h>

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "ctorch/autograd.h"
#include "ctorch/factories.h"
#include "ctorch/nn_conv.h"
#include "ctorch/ops.h"
#include "ctorch/pooling.h"
#include "ctorch/random.h"
#include "device/device_test.h"
#include "test_util.h"

namespace ctorch::testing {
namespace {

struct AvgCase {
  std::string name;
  std::vector<int64_t> input;
  std::vector<int64_t> kernel, stride, padding;
  bool ceil_mode = false, count_include_pad = true;
  std::optional<int64_t> divisor_override;
};

const std::vector<AvgCase>& avg_cases() {
  static const std::vector<AvgCase> all = {
      {"k2", {2, 3, 8, 6}, {2}, {}, {0}},
      {"k3_s2_p1_ceil", {2, 2, 7, 8}, {3}, {2}, {1}, true},
      {"k3_s2_p1_ceil_exclude_pad", {2, 2, 7, 8}, {3}, {2}, {1}, true, false},
      {"k3x2_s1_p1_divisor", {1, 3, 5, 6}, {3, 2}, {1}, {1, 1}, false, true, 5},
      {"gaps_stride_above_kernel", {2, 2, 9, 10}, {2, 3}, {3, 4}, {1, 1}, true, false},
      {"ceil_overhang_no_pad", {1, 2, 6, 6}, {3}, {2}, {0}, true},
      {"unbatched", {3, 7, 5}, {3, 2}, {2, 1}, {1, 0}, true},
      {"negative_divisor", {1, 1, 4, 4}, {2}, {1}, {0}, false, true, -3},
      {"large_window_rows_then_columns", {2, 2, 9, 10}, {4, 3}, {2, 3}, {2, 1}, true},
  };
  return all;
}

// PyTorch's cpu kernel, in float64: out[o] = sum(window) / divide_factor (input [P, H, W]).
Tensor avg_reference(const Tensor& x, const AvgCase& c, int64_t oh, int64_t ow) {
  const Tensor xc = x.to(kDouble).contiguous().cpu();
  const int64_t h = xc.size(-2), w = xc.size(-1), planes = xc.numel() / (h * w);
  const int64_t kh = c.kernel[0], kw = c.kernel.back();
  const int64_t sh = c.stride.empty() ? kh : c.stride[0], sw = c.stride.empty() ? kw : c.stride.back();
  const int64_t ph = c.padding[0], pw = c.padding.back();
  const std::vector<double> in = xc.reshape({-1}).to_vector<double>();
  std::vector<double> out;
  for (int64_t p = 0; p < planes; ++p) {
    for (int64_t i = 0; i < oh; ++i) {
      for (int64_t j = 0; j < ow; ++j) {
        int64_t hs = i * sh - ph, ws = j * sw - pw;
        int64_t he = std::min(hs + kh, h + ph), we = std::min(ws + kw, w + pw);
        const int64_t pool_size = (he - hs) * (we - ws);
        hs = std::max<int64_t>(hs, 0), ws = std::max<int64_t>(ws, 0);
        he = std::min(he, h), we = std::min(we, w);
        double sum = 0;
        for (int64_t y = hs; y < he; ++y) {
          for (int64_t z = ws; z < we; ++z) sum += in[static_cast<size_t>((p * h + y) * w + z)];
        }
        const int64_t d = c.divisor_override ? *c.divisor_override : c.count_include_pad ? pool_size : (he - hs) * (we - ws);
        out.push_back(sum / static_cast<double>(d));
      }
    }
  }
  DimVector shape(x.sizes());
  shape[shape.size() - 2] = oh, shape[shape.size() - 1] = ow;
  return tensor(out).view(shape);
}

Tensor avg(const Tensor& x, const AvgCase& c) {
  return avg_pool2d(x, c.kernel, c.stride, c.padding, c.ceil_mode, c.count_include_pad, c.divisor_override);
}

// Integer values in [-8, 8) (exact sums in float32), float64 on the cpu.
Tensor small_integers(IntArrayRef shape) { return randint(-8, 8, shape, TensorOptions().dtype(kDouble)); }

class Pool : public DeviceTest {};

TEST_P(Pool, AvgPool2dMatchesTheDirectLoop) {
  manual_seed(3);
  for (const AvgCase& c : avg_cases()) {
    SCOPED_TRACE(c.name);
    const Tensor ints = small_integers(c.input);
    const Tensor got_ints = avg(ints.to(device(), kFloat), c);
    const Tensor want_ints = avg_reference(ints, c, got_ints.size(-2), got_ints.size(-1));
    EXPECT_TRUE(got_ints.cpu().equal(want_ints.to(kFloat))) << got_ints << want_ints;
    const Tensor x = randn(c.input, TensorOptions().dtype(kDouble));
    const Tensor want = avg_reference(x, c, got_ints.size(-2), got_ints.size(-1));
    EXPECT_TRUE(avg(x.to(device()), c).cpu().allclose(want, 1e-12, 1e-12));
    const Tensor got32 = avg(x.to(device(), kFloat), c);
    EXPECT_TRUE(got32.cpu().to(kDouble).allclose(want, 1e-5, 1e-6));
    if (is_cuda()) EXPECT_TRUE(got32.cpu().allclose(avg(x.to(kFloat), c), 1e-6, 1e-7));  // the cpu's result
  }
}

TEST_P(Pool, AvgPool2dGradientIsTheLoopsAdjoint) {
  manual_seed(4);
  for (const AvgCase& c : avg_cases()) {
    SCOPED_TRACE(c.name);
    const Tensor x = randn(c.input, on_device(kDouble)).requires_grad_();
    const Tensor out = avg(x, c);
    EXPECT_EQ(out.grad_fn()->name(), "AvgPool2DBackward0");
    const Tensor g = randn(out.sizes(), TensorOptions().dtype(kDouble));
    out.backward(g.to(device()));
    // <avg(e_k), g> for every input element e_k: the reference's adjoint, column by column.
    const Tensor basis = eye(x.numel(), std::nullopt, TensorOptions().dtype(kDouble));
    std::vector<double> want;
    for (int64_t k = 0; k < x.numel(); ++k) {
      const Tensor e = basis[k].view(c.input);
      want.push_back((avg_reference(e, c, out.size(-2), out.size(-1)) * g).sum().item<double>());
    }
    EXPECT_TRUE(x.grad().cpu().allclose(tensor(want).view(c.input), 1e-12, 1e-12));
  }
}

// PyTorch adaptive windows, rows [floor(i * H / OH), ceil((i + 1) * H / OH)), in float64 (in_float: the sums
// divided in float, as PyTorch for float32).
Tensor adaptive_reference(const Tensor& x, int64_t oh, int64_t ow, bool in_float = false) {
  const Tensor xc = x.to(kDouble).contiguous().cpu();
  const int64_t h = xc.size(-2), w = xc.size(-1), planes = xc.numel() / (h * w);
  const std::vector<double> in = xc.reshape({-1}).to_vector<double>();
  std::vector<double> out;
  for (int64_t p = 0; p < planes; ++p) {
    for (int64_t i = 0; i < oh; ++i) {
      for (int64_t j = 0; j < ow; ++j) {
        const int64_t hs = i * h / oh, he = ((i + 1) * h + oh - 1) / oh;
        const int64_t ws = j * w / ow, we = ((j + 1) * w + ow - 1) / ow;
        double sum = 0;
        for (int64_t y = hs; y < he; ++y) {
          for (int64_t z = ws; z < we; ++z) sum += in[static_cast<size_t>((p * h + y) * w + z)];
        }
        // PyTorch's kernels divide by the rows, then by the columns, in the accumulate type.
        const auto rows = static_cast<double>(he - hs), cols = static_cast<double>(we - ws);
        out.push_back(in_float ? static_cast<double>(static_cast<float>(sum) / static_cast<float>(rows) /
                                                     static_cast<float>(cols))
                               : sum / rows / cols);
      }
    }
  }
  DimVector shape(x.sizes());
  shape[shape.size() - 2] = oh, shape[shape.size() - 1] = ow;
  return tensor(out).view(shape);
}

struct AdaptiveCase {
  std::vector<int64_t> input, output;
};

TEST_P(Pool, AdaptiveAvgPool2dMatchesTheDirectLoopForwardAndBackward) {
  manual_seed(6);
  const std::vector<AdaptiveCase> all = {
      {{2, 3, 8, 6}, {4, 3}},   // divisible: avg_pool2d with kernel = stride = 2
      {{2, 3, 7, 5}, {3, 4}},   // overlapping windows of two sizes
      {{1, 2, 6, 5}, {3, 2}},   // rows divisible, columns not
      {{2, 4, 5}, {7, 8}},      // 3-d, output larger than the input
      {{2, 3, 9, 9}, {1, 1}},   // global pooling (a mean)
      {{1, 2, 5, 7}, {1, 3}},
      {{2, 3, 12, 10}, {1, 2}},  // divisible with windows of 60: row sums, then rows
  };
  for (const AdaptiveCase& c : all) {
    SCOPED_TRACE(::testing::PrintToString(c.input) + " -> " + ::testing::PrintToString(c.output));
    const int64_t oh = c.output[0], ow = c.output[1];
    const Tensor ints = small_integers(c.input);
    EXPECT_TRUE(adaptive_avg_pool2d(ints.to(device(), kFloat), c.output).cpu().equal(
        adaptive_reference(ints, oh, ow, /*in_float=*/oh * ow != 1).to(kFloat)));  // 1x1: a mean
    const Tensor x = randn(c.input, on_device(kDouble)).requires_grad_();
    const Tensor out = adaptive_avg_pool2d(x, c.output);
    EXPECT_EQ(out.device(), device());
    EXPECT_TRUE(out.detach().cpu().allclose(adaptive_reference(x.detach(), oh, ow), 1e-12, 1e-12));
    EXPECT_EQ(out.grad_fn()->name(), oh == 1 && ow == 1 ? "MeanBackward1" : "AdaptiveAvgPool2DBackward0");
    const Tensor g = randn(out.sizes(), TensorOptions().dtype(kDouble));
    out.backward(g.to(device()));
    const Tensor basis = eye(x.numel(), std::nullopt, TensorOptions().dtype(kDouble));
    std::vector<double> want;
    for (int64_t k = 0; k < x.numel(); ++k) {
      want.push_back((adaptive_reference(basis[k].view(c.input), oh, ow) * g).sum().item<double>());
    }
    EXPECT_TRUE(x.grad().cpu().allclose(tensor(want).view(c.input), 1e-12, 1e-12));
    if (is_cuda()) {
      const Tensor x32 = x.detach().to(kFloat);
      EXPECT_TRUE(adaptive_avg_pool2d(x32, c.output).cpu().allclose(adaptive_avg_pool2d(x32.cpu(), c.output), 1e-6,
                                                                      1e-7));
    }
  }
}

TEST_P(Pool, SecondDerivativesAndEmptyShapes) {
  const Tensor x = randn({1, 2, 6, 5}, on_device(kDouble)).requires_grad_();
  auto f = [](const autograd::variable_list& v) {
    return autograd::variable_list{avg_pool2d(v[0].pow(2), {3}, {1}, {1}, true, false) +
                                   adaptive_avg_pool2d(v[0], {6, 5}).pow(3)};
  };
  EXPECT_TRUE(autograd::gradgradcheck(f, {x}));
  // An empty batch and a zero output size give empty results with zero gradients.
  const Tensor e = zeros({0, 3, 4, 4}, on_device()).requires_grad_();
  EXPECT_EQ(avg_pool2d(e, {2}).sizes(), IntArrayRef({0, 3, 2, 2}));
  EXPECT_EQ(adaptive_avg_pool2d(e, {3, 2}).sizes(), IntArrayRef({0, 3, 3, 2}));
  const Tensor y = ones({1, 3, 4, 4}, on_device()).requires_grad_();
  const Tensor z = adaptive_avg_pool2d(y, {0, 2});
  EXPECT_EQ(z.sizes(), IntArrayRef({1, 3, 0, 2}));
  z.sum().backward();
  EXPECT_TRUE(y.grad().cpu().equal(zeros({1, 3, 4, 4})));
}

TEST_P(Pool, DtypesFollowPyTorch) {
  // int64 on the cpu: integer sums truncated toward zero, as PyTorch's kernel.
  const Tensor l = arange(-8, 8, TensorOptions().dtype(kLong)).view({1, 1, 4, 4});
  if (!is_cuda()) {
    EXPECT_TRUE(avg_pool2d(l, {3}, {1}, {1}).equal(
        tensor(std::vector<int64_t>{-2, -3, -2, -1, -2, -3, -2, -1, 0, 1, 2, 1, 1, 2, 2, 2}).view({1, 1, 4, 4})));
  }
  // bfloat16 sums in float and rounds once.
  const Tensor b = (arange(64, on_device(kDouble)) / 7).view({1, 1, 8, 8});
  EXPECT_TRUE(avg_pool2d(b.to(kBFloat16), {4}).cpu().equal(avg_pool2d(b, {4}).to(kBFloat16).cpu()));
  EXPECT_EQ(adaptive_avg_pool2d(b.to(kBFloat16), {3, 3}).dtype(), kBFloat16);
  EXPECT_EQ(error_of([&] { avg_pool2d(zeros({1, 1, 4, 4}, on_device(kInt)), {2}); }),
            "\"avg_pool2d\" not implemented for 'Int'");
  EXPECT_EQ(error_of([&] { adaptive_avg_pool2d(zeros({1, 1, 4, 4}, on_device(kLong)), {3, 3}); }),
            "\"adaptive_avg_pool2d\" not implemented for 'Long'");
}

TEST_P(Pool, ErrorsArePyTorchs) {
  const Tensor x = zeros({2, 3, 8, 8}, on_device());
  EXPECT_EQ(error_of([&] { avg_pool2d(x, {3, 3, 3}); }),
            "avg_pool2d: kernel_size must either be a single int, or a tuple of two ints");
  EXPECT_EQ(error_of([&] { avg_pool2d(x, {3}, {1, 2, 3}); }),
            "avg_pool2d: stride must either be omitted, a single int, or a tuple of two ints");
  EXPECT_EQ(error_of([&] { avg_pool2d(x, {3}, {}, {1, 1, 1}); }),
            "avg_pool2d: padding must either be a single int, or a tuple of two ints");
  EXPECT_EQ(error_of([&] { avg_pool2d(x, {3}, {}, {0}, false, true, 0); }), "divisor must be not zero");
  EXPECT_EQ(error_of([&] { avg_pool2d(x, {2}, {0}); }), "stride should not be zero");
  EXPECT_EQ(error_of([&] { avg_pool2d(x, {2}, {}, {-1}); }), "pad must be non-negative, but got pad: -1");
  EXPECT_EQ(error_of([&] { avg_pool2d(x, {3, 5}, {}, {1, 3}); }),
            "pad should be at most half of kernel size, but got pad=3 and kernel_size=5");
  EXPECT_EQ(error_of([&] { avg_pool2d(x, {-3}); }),
            "pad should be at most half of kernel size, but got pad=0 and kernel_size=-3");
  EXPECT_EQ(error_of([&] { avg_pool2d(x, {-1}); }), "kernel size should be greater than zero, but got kH: -1 kW: -1");
  EXPECT_EQ(error_of([&] { avg_pool2d(x, {2}, {-1}); }), "stride should be greater than zero, but got dH: -1 dW: -1");
  EXPECT_EQ(error_of([&] { avg_pool2d(zeros({2, 3, 2, 2}, on_device()), {3}); }),
            "Given input size: (3x2x2). Calculated output size: (3x0x0). Output size is too small");
  EXPECT_EQ(error_of([&] { avg_pool2d(zeros({1, 0, 8, 8}, on_device()), {2}); }),
            "Expected 3D or 4D (batch mode) tensor with optional 0 dim batch size for input, but got:[1, 0, 8, 8]");
  EXPECT_EQ(error_of([&] { avg_pool2d(zeros({2, 3, 4, 8, 8}, on_device()), {2}); }),
            "Expected 3D or 4D (batch mode) tensor with optional 0 dim batch size for input, but got:[2, 3, 4, 8, 8]");
  EXPECT_EQ(error_of<IndexError>([&] { avg_pool2d(zeros({8, 8}, on_device()), {2}); }),
            "Dimension out of range (expected to be in range of [-2, 1], but got -3)");

  EXPECT_EQ(error_of([&] { adaptive_avg_pool2d(x, {3, 2, 1}); }), "adaptive_avg_pool2d: output_size must be 2");
  EXPECT_EQ(error_of([&] { adaptive_avg_pool2d(x, {-1, 2}); }),
            "adaptive_avg_pool2d: elements of output_size must be greater than or equal to 0 but received {-1, 2}");
  EXPECT_EQ(error_of([&] { adaptive_avg_pool2d(zeros({8, 8}, on_device()), {2, 2}); }),
            "adaptive_avg_pool2d(): Expected 3D or 4D tensor, but got [8, 8]");
  EXPECT_EQ(error_of([&] { adaptive_avg_pool2d(zeros({1, 3, 0, 8}, on_device()), {2, 2}); }),
            "adaptive_avg_pool2d(): Expected input to have non-zero size for non-batch dimensions, but input has "
            "sizes [1, 3, 0, 8] with dimension 2 being empty");
  // Global pooling is PyTorch's mean shortcut, before the other checks: a 2-d input works.
  EXPECT_EQ(adaptive_avg_pool2d(ones({8, 8}, on_device()), {1, 1}).sizes(), IntArrayRef({1, 1}));
}

TEST_P(Pool, LayersComputeAndPrintAsPyTorchs) {
  const Tensor x = arange(2 * 5 * 5, on_device()).view({2, 1, 5, 5});
  nn::AvgPool2d pool(3, 2, 1, /*ceil_mode=*/true, /*count_include_pad=*/false);
  EXPECT_TRUE(pool(x).equal(avg_pool2d(x, {3}, {2}, {1}, true, false)));
  EXPECT_EQ(pool.repr(), "AvgPool2d(kernel_size=3, stride=2, padding=1)");
  EXPECT_EQ(nn::AvgPool2d(nn::Pair2{3, 2}, nn::Pair2{1, 1}, {1, 1}).repr(),
            "AvgPool2d(kernel_size=(3, 2), stride=1, padding=1)");
  EXPECT_TRUE(nn::AvgPool2d(2, std::nullopt, 0, false, true, 3)(x).equal(avg_pool2d(x, {2}, {}, {0}, false, true, 3)));
  nn::AdaptiveAvgPool2d adaptive(nn::Pair2{3, 2});
  EXPECT_TRUE(adaptive(x).equal(adaptive_avg_pool2d(x, {3, 2})));
  EXPECT_EQ(adaptive.repr(), "AdaptiveAvgPool2d(output_size=(3, 2))");
  EXPECT_EQ(nn::AdaptiveAvgPool2d(1).repr(), "AdaptiveAvgPool2d(output_size=1)");
  EXPECT_TRUE(nn::functional::avg_pool2d(x, {2, 2}).equal(avg_pool2d(x, {2})));
}

CTORCH_INSTANTIATE_DEVICE_TESTS(Pool);

}  // namespace
}  // namespace ctorch::testing
