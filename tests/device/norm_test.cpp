// batch_norm and layer_norm on every backend against the generic path in float64 on the cpu (Note
// [Batch normalization], Note [Layer normalization]): on the cpu, float32 runs oneDNN's forward
// (training and inference) and backward; on an emulated device the reductions and scale-and-shift
// walk the device's kernels. The running statistics' update and PyTorch's checks are compared too;
// layer_norm's float64 values against python3-torch 1.13.1's.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "ctorch/factories.h"
#include "ctorch/normalization.h"
#include "ctorch/ops.h"
#include "ctorch/random.h"
#include "device/device_test.h"
#include "test_util.h"

namespace ctorch::testing {
namespace {

struct Case {
  std::string name;
  std::vector<int64_t> input;
  bool training, affine, bias;
};

// float32 results on `device` against the float64 generic path's, one by one (`names` lists them).
void expect_close(const std::vector<Tensor>& got, const std::vector<Tensor>& want, Device device, const char* names) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    SCOPED_TRACE("result " + std::to_string(i) + " " + names);
    EXPECT_EQ(got[i].device(), device);
    EXPECT_EQ(got[i].sizes(), want[i].sizes());
    EXPECT_TRUE(got[i].cpu().to(kDouble).allclose(want[i], 1e-4, 1e-4));
  }
}

class BatchNorm : public DeviceTest {};

TEST_P(BatchNorm, Float32MatchesTheFloat64GenericPath) {
  const std::vector<Case> cases = {
      {"training_4d", {4, 3, 5, 6}, true, true, true},
      {"training_no_affine", {5, 2, 7}, true, false, false},
      {"training_weight_without_bias", {3, 4, 2, 2}, true, true, false},
      {"eval_4d", {4, 3, 5, 6}, false, true, true},
      {"training_2d", {6, 5}, true, true, true},
  };
  for (const Case& k : cases) {
    SCOPED_TRACE(k.name);
    manual_seed(7);
    const TensorOptions f64 = TensorOptions().dtype(kDouble);
    const Tensor x64 = randn(k.input, f64) * 3 + 1;
    const int64_t c = k.input[1];
    const Tensor w64 = randn({c}, f64), b64 = randn({c}, f64);
    const Tensor rm64 = randn({c}, f64), rv64 = rand({c}, f64) + 0.5;
    auto run = [&](ScalarType dtype, Device device) {
      const Tensor x = x64.to(device, dtype).detach().requires_grad_();
      const Tensor w = k.affine ? w64.to(device, dtype).detach().requires_grad_() : Tensor();
      const Tensor b = k.bias ? b64.to(device, dtype).detach().requires_grad_() : Tensor();
      const Tensor rm = rm64.to(device, dtype).clone(), rv = rv64.to(device, dtype).clone();  // updated in place
      const Tensor out = batch_norm(x, w, b, rm, rv, k.training, 0.2, 1e-5);
      manual_seed(8);
      const Tensor seed = randn(out.sizes(), f64).to(device, dtype);
      (out * seed).sum().backward();
      std::vector<Tensor> r{out.detach(), x.grad(), rm, rv};
      if (w.defined()) r.push_back(w.grad());
      if (b.defined()) r.push_back(b.grad());
      return r;
    };
    expect_close(run(kFloat, device()), run(kDouble, Device(DeviceType::CPU)), device(),
                 "(output, grad input, running mean, running var, grad w, grad b)");
  }
}

TEST_P(BatchNorm, NodeAndStatisticsArePyTorchs) {
  const Tensor x = tensor(std::vector<float>{1, 2, 3, 4, 5, 6}).view({3, 2}).to(device()).requires_grad_();
  const Tensor rm = zeros({2}, on_device()), rv = ones({2}, on_device());
  const Tensor out = batch_norm(x, {}, {}, rm, rv, true, 0.1, 1e-5);
  EXPECT_EQ(out.grad_fn()->name(), "NativeBatchNormBackward0");
  // Batch means 3 and 4, variances 8/3 (biased) and 4 (unbiased, which the running variance takes).
  EXPECT_TRUE(rm.cpu().allclose(tensor(std::vector<float>{0.3f, 0.4f})));
  EXPECT_TRUE(rv.cpu().allclose(tensor(std::vector<float>{0.9f + 0.4f, 0.9f + 0.4f})));
  EXPECT_NEAR(out.cpu()[0][0].item<float>(), -2 / std::sqrt(8.0f / 3 + 1e-5f), 1e-5);
}

TEST_P(BatchNorm, ErrorsArePyTorchsAndChangeNothing) {
  const Tensor x = ones({4, 3, 2}, on_device());
  const Tensor rm = zeros({3}, on_device());
  EXPECT_EQ(error_of([&] { batch_norm(x, ones({2}, on_device()), {}, {}, {}, true, 0.1, 1e-5); }),
            "weight should contain 3 elements not 2");
  EXPECT_EQ(error_of([&] { batch_norm(x, {}, {}, zeros({4}, on_device()), ones({3}, on_device()), true, 0.1, 1e-5); }),
            "running_mean should contain 3 elements not 4");
  EXPECT_EQ(error_of([&] { batch_norm(ones({1, 3}, on_device()), {}, {}, rm, ones({3}, on_device()), true, 0.1, 1e-5); }),
            "Expected more than 1 value per channel when training, got input size [1, 3]");
  EXPECT_TRUE(rm.cpu().equal(zeros({3})));  // unchanged by the failed calls
  if (is_cuda()) EXPECT_THROW(batch_norm(x, ones({3}), {}, {}, {}, true, 0.1, 1e-5), DeviceError);
}

CTORCH_INSTANTIATE_DEVICE_TESTS(BatchNorm);

class LayerNorm : public DeviceTest {};

TEST_P(LayerNorm, Float32MatchesTheFloat64GenericPath) {
  struct LnCase {
    std::string name;
    std::vector<int64_t> input, normalized;
    bool weight, bias;
  };
  const std::vector<LnCase> cases = {
      {"last_dim_affine", {4, 6, 10}, {10}, true, true},
      {"two_dims_no_affine", {3, 5, 8}, {5, 8}, false, false},
      {"weight_without_bias", {7, 12}, {12}, true, false},
      {"bias_without_weight", {2, 3, 4}, {4}, false, true},
  };
  for (const LnCase& k : cases) {
    SCOPED_TRACE(k.name);
    manual_seed(9);
    const TensorOptions f64 = TensorOptions().dtype(kDouble);
    const Tensor x64 = randn(k.input, f64) * 2 + 0.5, w64 = randn(k.normalized, f64), b64 = randn(k.normalized, f64);
    const Tensor seed64 = randn(k.input, f64);
    auto run = [&](ScalarType dtype, Device device) {
      const Tensor x = x64.to(device, dtype).detach().requires_grad_();
      const Tensor w = k.weight ? w64.to(device, dtype).detach().requires_grad_() : Tensor();
      const Tensor b = k.bias ? b64.to(device, dtype).detach().requires_grad_() : Tensor();
      const Tensor out = layer_norm(x, k.normalized, w, b, 1e-5);
      EXPECT_EQ(out.grad_fn()->name(), "NativeLayerNormBackward0");
      (out * seed64.to(device, dtype)).sum().backward();
      std::vector<Tensor> r{out.detach(), x.grad()};
      if (w.defined()) r.push_back(w.grad());
      if (b.defined()) r.push_back(b.grad());
      return r;
    };
    expect_close(run(kFloat, device()), run(kDouble, Device(DeviceType::CPU)), device(),
                 "(output, grad input, grad w, grad b)");
  }
}

TEST_P(LayerNorm, ValuesAndGradientsArePyTorchs) {
  // python3-torch 1.13.1: x = arange(24.).view(2, 3, 4).sin(), w = linspace(0.5, 2, 12), b = linspace(-1, 1, 12)
  // (float64, [3, 4]), F.layer_norm(x, [3, 4], w, b) backward of arange(24.).view(2, 3, 4).cos()
  const TensorOptions f64 = on_device(kDouble);
  const Tensor x = arange(0, 24, f64).view({2, 3, 4}).sin().detach().requires_grad_();
  const Tensor w = linspace(0.5, 2, 12, f64).view({3, 4}).detach().requires_grad_();
  const Tensor b = linspace(-1, 1, 12, f64).view({3, 4}).detach().requires_grad_();
  const Tensor y = layer_norm(x, {3, 4}, w, b);
  y.backward(arange(0, 24, f64).view({2, 3, 4}).cos());
  auto first6 = [](const Tensor& t) { return t.detach().cpu().reshape({-1}).narrow(0, 0, 6); };
  const auto near = [](const Tensor& got, std::vector<double> want) {
    EXPECT_TRUE(got.allclose(tensor(want), 1e-9, 1e-9)) << got.repr();
  };
  near(first6(y), {-1.0242554835, -0.0909733569, 0.3208737369, -0.3170253944, -1.4435456643, -1.7526119221});
  near(first6(x.grad()), {0.9148940243, 0.6031320968, -0.3461759236, -1.0822768238, -0.6788288758, 0.7849667071});
  near(first6(w.grad()), {-0.7644424414, 1.1089079784, -0.3281328305, -0.8151947824, 1.1985240715, 0.0044390581});
  near(first6(b.grad()), {1.8438539587, 1.4477490873, -0.2794096183, -1.7496804095, -1.6113031012, 0.0084988474});
}

TEST_P(LayerNorm, ErrorsArePyTorchs) {
  const Tensor x = ones({2, 3, 4}, on_device());
  EXPECT_EQ(error_of([&] { layer_norm(x, {4, 3}); }),
            "Given normalized_shape=[4, 3], expected input with shape [*, 4, 3], but got input of size[2, 3, 4]");
  EXPECT_EQ(error_of([&] { layer_norm(x, {3, 4}, ones({4}, on_device())); }),
            "Expected weight to be of same shape as normalized_shape, but got weight of shape [4] and "
            "normalized_shape = [3, 4]");
  EXPECT_EQ(error_of([&] { layer_norm(x, {}); }),
            "Expected normalized_shape to be at least 1-dimensional, i.e., containing at least one element, but got "
            "normalized_shape = []");
}

CTORCH_INSTANTIATE_DEVICE_TESTS(LayerNorm);

}  // namespace
}  // namespace ctorch::testing
