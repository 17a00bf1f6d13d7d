// conv2d and conv_transpose2d on every backend against the generic path in float64 on the cpu (Note
// [Convolution]): on the cpu, float32 runs oneDNN's forward and both backward passes; on an emulated
// device the im2col + GEMM path walks the device's kernels; on a real GPU cuDNN runs them (Note
// [cuDNN convolution]; float32, float64 and float16, under each backends::cudnn switch). Geometries
// cover stride, padding, dilation, groups, no bias, a negative oneDNN right padding (which falls
// back), an empty batch and transposed output padding (beyond the stride cuDNN falls back); the
// transposed op is checked as conv2d's adjoint.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include "ctorch/backends.h"
#include "ctorch/conv.h"
#include "ctorch/pooling.h"
#include "ctorch/factories.h"
#include "ctorch/ops.h"
#include "ctorch/random.h"
#include "device/device_test.h"

namespace ctorch::testing {
namespace {

struct Geometry {
  std::string name;
  std::vector<int64_t> input, weight;
  std::vector<int64_t> stride, padding, dilation;
  int64_t groups;
  bool bias;
  bool transposed = false;
  std::vector<int64_t> output_padding = {0};
};

const std::vector<Geometry>& geometries() {
  static const std::vector<Geometry> all = {
      {"plain_3x3", {2, 3, 7, 6}, {4, 3, 3, 3}, {1}, {0}, {1}, 1, true},
      {"stride_padding_dilation", {2, 2, 9, 8}, {3, 2, 3, 2}, {2, 1}, {1, 2}, {2, 1}, 1, false},
      {"groups", {2, 4, 6, 6}, {6, 2, 3, 3}, {1}, {1}, {1}, 2, true},
      {"mnist_5x5", {3, 1, 28, 28}, {10, 1, 5, 5}, {1}, {0}, {1}, 1, true},
      {"negative_right_padding", {2, 3, 6, 6}, {2, 3, 1, 1}, {2}, {0}, {1}, 1, true},
      {"empty_batch", {0, 3, 5, 5}, {4, 3, 3, 3}, {1}, {1}, {1}, 1, true},
      // Transposed: weight [C, OC / groups, KH, KW]; DCGAN's generator layers among them.
      {"transposed_dcgan_1x1_to_4x4", {3, 8, 1, 1}, {8, 5, 4, 4}, {1}, {0}, {1}, 1, false, true},
      {"transposed_dcgan_stride2", {2, 6, 7, 7}, {6, 4, 4, 4}, {2}, {1}, {1}, 1, false, true},
      {"transposed_output_padding", {2, 4, 5, 4}, {4, 3, 3, 3}, {2}, {1}, {1}, 1, true, true, {1}},
      {"transposed_groups_dilation", {2, 4, 5, 5}, {4, 3, 3, 2}, {1, 2}, {1, 0}, {2, 1}, 2, true, true},
      // An output padding >= stride (allowed below the dilation): rows no window reads.
      {"transposed_output_padding_beyond_stride", {1, 2, 4, 4}, {2, 3, 2, 2}, {1}, {0}, {3}, 1, true, true, {2}},
  };
  return all;
}

class Conv : public DeviceTest {};

// Restores the backends::cudnn switches a test changes.
class CudnnFlags {
 public:
  CudnnFlags()
      : tf32_(backends::cudnn::allow_tf32()),
        enabled_(backends::cudnn::enabled()),
        benchmark_(backends::cudnn::benchmark()),
        deterministic_(backends::cudnn::deterministic()) {}
  ~CudnnFlags() {
    backends::cudnn::set_allow_tf32(tf32_);
    backends::cudnn::set_enabled(enabled_);
    backends::cudnn::set_benchmark(benchmark_);
    backends::cudnn::set_deterministic(deterministic_);
  }

 private:
  bool tf32_, enabled_, benchmark_, deterministic_;
};

// The float64 cpu inputs of `g`: x, w and (when g.bias) b.
std::vector<Tensor> inputs_of(const Geometry& g) {
  manual_seed(3);
  const Tensor x64 = randn(g.input, TensorOptions().dtype(kDouble));
  const Tensor w64 = randn(g.weight, TensorOptions().dtype(kDouble));
  const int64_t out_channels = g.transposed ? g.weight[1] * g.groups : g.weight[0];
  return {x64, w64, g.bias ? randn({out_channels}, TensorOptions().dtype(kDouble)) : Tensor()};
}

// The op of `g` on `device` in `dtype` from the float64 `inputs`, then backward from a fixed random
// gradient: output, grad input, grad weight (and grad bias).
std::vector<Tensor> run_conv(const Geometry& g, const std::vector<Tensor>& inputs, ScalarType dtype, Device device) {
  const Tensor x = inputs[0].to(device, dtype).detach().requires_grad_();
  const Tensor w = inputs[1].to(device, dtype).detach().requires_grad_();
  const Tensor b = g.bias ? inputs[2].to(device, dtype).detach().requires_grad_() : Tensor();
  const Tensor out = g.transposed ? conv_transpose2d(x, w, b, g.stride, g.padding, g.output_padding, g.groups,
                                                     g.dilation)
                                  : conv2d(x, w, b, g.stride, g.padding, g.dilation, g.groups);
  manual_seed(4);
  const Tensor seed = randn(out.sizes(), TensorOptions().dtype(kDouble)).to(device, dtype);
  if (out.numel() > 0) (out * seed).sum().backward();
  std::vector<Tensor> r{out.detach()};
  for (const Tensor& t : {x, w, b}) {
    if (t.defined()) r.push_back(t.grad().defined() ? t.grad() : zeros_like(t));
  }
  return r;
}

// `got` (on `device`, in `dtype`) against the float64 cpu results `want`.
void expect_close(const std::vector<Tensor>& got, const std::vector<Tensor>& want, Device device, ScalarType dtype,
                  double rtol, double atol) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    SCOPED_TRACE("result " + std::to_string(i) + " (output, grad input, grad weight, grad bias)");
    EXPECT_EQ(got[i].device(), device);
    EXPECT_EQ(got[i].dtype(), dtype);
    EXPECT_EQ(got[i].sizes(), want[i].sizes());
    EXPECT_TRUE(got[i].cpu().to(kDouble).allclose(want[i], rtol, atol));
  }
}

TEST_P(Conv, Float32MatchesTheFloat64GenericPath) {
  const CudnnFlags restore;
  backends::cudnn::set_allow_tf32(false);  // cuDNN's default TF32 misses 1e-4 (PyTorch's tests turn it off too)
  for (const Geometry& g : geometries()) {
    SCOPED_TRACE(g.name);
    const std::vector<Tensor> inputs = inputs_of(g);
    expect_close(run_conv(g, inputs, kFloat, device()), run_conv(g, inputs, kDouble, Device(DeviceType::CPU)), device(),
                 kFloat, 1e-4, 1e-4);
  }
}

// float64 and float16 under each cuDNN switch (they only change what a real GPU runs: cuDNN's
// algorithm choice, or im2col + GEMM when disabled). float16 transposed convolutions are not a cpu op.
TEST_P(Conv, Float64AndFloat16MatchUnderEveryCudnnSwitch) {
  const CudnnFlags restore;
  const std::vector<std::string> names = {"plain_3x3", "stride_padding_dilation", "groups", "transposed_dcgan_stride2"};
  struct Switches {
    bool enabled, benchmark, deterministic;
  };
  for (const Switches sw : {Switches{true, false, false}, Switches{true, true, false}, Switches{true, false, true},
                            Switches{true, true, true}, Switches{false, false, false}}) {
    backends::cudnn::set_enabled(sw.enabled);
    backends::cudnn::set_benchmark(sw.benchmark);
    backends::cudnn::set_deterministic(sw.deterministic);
    for (const Geometry& g : geometries()) {
      if (std::find(names.begin(), names.end(), g.name) == names.end()) continue;
      SCOPED_TRACE(g.name + (sw.enabled ? "" : " cudnn disabled") + (sw.benchmark ? " benchmark" : "") +
                   (sw.deterministic ? " deterministic" : ""));
      const std::vector<Tensor> inputs = inputs_of(g);
      const std::vector<Tensor> want = run_conv(g, inputs, kDouble, Device(DeviceType::CPU));
      expect_close(run_conv(g, inputs, kDouble, device()), want, device(), kDouble, 1e-9, 1e-9);
      if (!g.transposed) expect_close(run_conv(g, inputs, kHalf, device()), want, device(), kHalf, 2e-2, 5e-2);
    }
  }
}

// conv_transpose2d is conv2d's adjoint: <conv2d(x, w), y> = <x, conv_transpose2d(y, w)> for every x, y.
TEST_P(Conv, TransposedIsTheAdjointOfConv2d) {
  manual_seed(6);
  const TensorOptions f64 = on_device(kDouble);
  const Tensor x = randn({2, 4, 10, 8}, f64), w = randn({6, 2, 3, 2}, f64);
  const Tensor y = conv2d(x, w, {}, {2, 1}, {1, 1}, {1, 2}, 2);
  const Tensor v = randn(y.sizes(), f64);
  const Tensor back = conv_transpose2d(v, w, {}, {2, 1}, {1, 1}, {0}, 2, {1, 2});
  EXPECT_EQ(back.sizes(), IntArrayRef({2, 4, 9, 8}));  // the row stride 2 drops is what output_padding restores
  const Tensor back_full = conv_transpose2d(v, w, {}, {2, 1}, {1, 1}, {1, 0}, 2, {1, 2});
  ASSERT_EQ(back_full.sizes(), x.sizes());
  EXPECT_NEAR((y * v).sum().item<double>(), (x * back_full).sum().item<double>(), 1e-9);
  const Tensor out = conv_transpose2d(v.to(kFloat).requires_grad_(), w.to(kFloat));
  EXPECT_EQ(out.grad_fn()->name(), "ConvolutionBackward0");
  EXPECT_EQ(conv_transpose1d(randn({2, 3, 5}, f64), randn({3, 4, 3}, f64), {}, {2}, {1}, {1}).sizes(),
            IntArrayRef({2, 4, 10}));
}

TEST_P(Conv, NodeIsConvolutionBackward) {
  const Tensor x = ones({1, 2, 4, 4}, on_device()).requires_grad_();
  const Tensor out = conv2d(x, ones({3, 2, 3, 3}, on_device()));
  EXPECT_EQ(out.grad_fn()->name(), "ConvolutionBackward0");
  EXPECT_EQ(out.sizes(), IntArrayRef({1, 3, 2, 2}));
  EXPECT_EQ(out.cpu().flatten()[0].item<float>(), 18.0f);
}

TEST_P(Conv, ErrorsNameWhatWasExpectedAndChangeNothing) {
  const Tensor x = zeros({2, 3, 8, 8}, on_device());
  EXPECT_THROW(conv2d(x, zeros({4, 2, 3, 3}, on_device())), Error);
  EXPECT_THROW(conv2d(x, zeros({4, 3, 3, 3}, on_device(kDouble))), Error);
  EXPECT_THROW(conv2d(x.to(kBool), zeros({4, 3, 3, 3}, on_device(kBool))), Error);
  EXPECT_THROW(conv2d(x, zeros({4, 3, 3, 3}, on_device()), {}, {0}), Error);
  EXPECT_THROW(conv2d(x, zeros({4, 3, 9, 9}, on_device())), Error);
  if (is_cuda()) EXPECT_THROW(conv2d(x, zeros({4, 3, 3, 3})), DeviceError);
  try {
    conv2d(x, zeros({4, 3, 3, 3}, on_device()), zeros({3}, on_device()));
    FAIL() << "a bias of the wrong size was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("expected bias to be 1-dimensional with 4 elements, but got bias of size [3]"),
              std::string::npos)
        << e.what();
  }
}

TEST_P(Conv, TransposedErrorsArePyTorchs) {
  const Tensor x = zeros({2, 4, 5, 5}, on_device()), w = zeros({4, 3, 3, 3}, on_device());
  auto text = [](const std::function<void()>& f) {
    try {
      f();
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  auto starts = [](const std::string& got, const std::string& want) { return got.rfind(want, 0) == 0; };
  EXPECT_PRED2(starts, text([&] { conv_transpose2d(x, w, {}, {1}, {0}, {1}); }),
               "output padding must be smaller than either stride or dilation, but got output_padding_height: 1 "
               "output_padding_width: 1 stride_height: 1 stride_width: 1 dilation_height: 1 dilation_width: 1");
  EXPECT_PRED2(starts, text([&] { conv_transpose2d(zeros({2, 3, 5, 5}, on_device()), w); }),
               "Given transposed=1, weight of size [4, 3, 3, 3], expected input[2, 3, 5, 5] to have 4 channels, but "
               "got 3 channels instead");
  EXPECT_PRED2(starts, text([&] { conv_transpose2d(x, w, zeros({4}, on_device())); }),
               "Given transposed=1, weight of size [4, 3, 3, 3], expected bias to be 1-dimensional with 3 elements, "
               "but got bias of size [4] instead");
  EXPECT_PRED2(starts, text([&] { conv_transpose2d(x, w, {}, {1}, {4}); }),
               "Given input size per channel: (5 x 5). Calculated output size per channel: (-1 x -1). Output size is "
               "too small");
  EXPECT_PRED2(starts, text([&] { conv_transpose2d(x, w, {}, {2}, {0}, {-1}); }),
               "negative output_padding is not supported");
  EXPECT_PRED2(starts, text([&] { conv_transpose2d(zeros({4, 5}, on_device()), w); }),
               "Expected 3D (unbatched) or 4D (batched) input to conv_transpose2d, but got input of size: [4, 5]");
  EXPECT_THROW(conv_transpose2d(x.to(kInt), w.to(kInt)), Error);
}

TEST_P(Conv, MaxPoolFloat32MatchesFloat64AndPropagatesNaN) {
  manual_seed(5);
  const Tensor x64 = randn({2, 3, 9, 8}, TensorOptions().dtype(kDouble));
  auto pool = [](const Tensor& x) { return max_pool2d_with_indices(x, {3, 2}, {2, 2}, {1, 1}, {1, 2}, true); };
  const auto [want, want_at] = pool(x64);
  const Tensor x = x64.to(device(), kFloat).requires_grad_();
  const auto [got, got_at] = pool(x);
  EXPECT_TRUE(got.detach().cpu().equal(want.to(kFloat)));
  EXPECT_TRUE(got_at.cpu().equal(want_at));
  got.sum().backward();
  const Tensor counts = zeros({6, 72}, TensorOptions().dtype(kDouble)).scatter_add(1, want_at.reshape({6, -1}),
                                                                                   ones({6, want_at.numel() / 6}, TensorOptions().dtype(kDouble)));
  EXPECT_TRUE(x.grad().cpu().to(kDouble).equal(counts.view({2, 3, 9, 8})));
  // A NaN in a window is its maximum (PyTorch's rule).
  const Tensor nan = tensor(std::vector<float>{1, NAN, 3, 2}).view({1, 1, 2, 2}).to(device());
  const auto [v, at] = max_pool2d_with_indices(nan, {2});
  EXPECT_TRUE(std::isnan(v.cpu().item<float>()));
  EXPECT_EQ(at.cpu().item<int64_t>(), 1);
}

CTORCH_INSTANTIATE_DEVICE_TESTS(Conv);

}  // namespace
}  // namespace ctorch::testing
