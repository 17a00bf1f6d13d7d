// native_dropout (src/random/dropout.cpp, Note [Fused dropout]): one kernel draws the mask and
// scales the kept values; NativeDropoutBackward0 scales the gradient by the mask. On the cpu the
// values are PyTorch's (python3-torch 1.13.1, same seed); on CUDA devices the fused kernel's mask
// is checked against the bernoulli kernels that share its Philox mapping.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "ctorch/autograd.h"
#include "ctorch/dropout.h"
#include "ctorch/factories.h"
#include "ctorch/nn_functional.h"
#include "ctorch/ops.h"
#include "ctorch/random.h"
#include "device/device_test.h"
#include "test_util.h"

namespace ctorch::testing {
namespace {

class NativeDropout : public DeviceTest {
 protected:
  Tensor arange12(ScalarType dtype) const { return arange(1, 13, on_device(dtype)).view({3, 4}); }
  static std::vector<double> values(const Tensor& t) { return t.detach().cpu().to(kDouble).contiguous().view({-1}).to_vector<double>(); }
  // out == x * mask * scale exactly (the kernel's arithmetic in float).
  static void expect_scaled(const Tensor& x, const Tensor& out, const Tensor& mask, float scale) {
    ASSERT_EQ(mask.dtype(), kBool);
    const std::vector<double> xv = values(x), ov = values(out), mv = values(mask);
    for (size_t i = 0; i < xv.size(); ++i) {
      EXPECT_EQ(ov[i], mv[i] != 0 ? static_cast<double>(static_cast<float>(xv[i]) * scale) : 0.0) << "element " << i;
    }
  }
};

TEST_P(NativeDropout, KeepsAndScalesByOneMask) {
  manual_seed(3);
  const Tensor x = arange12(kFloat);
  auto [out, mask] = native_dropout(x, 0.3, true);
  EXPECT_EQ(out.device(), device());
  EXPECT_EQ(mask.sizes(), x.sizes());
  expect_scaled(x, out, mask, 1.0f / 0.7f);
  if (!is_cuda()) {  // python3-torch 1.13.1: torch.manual_seed(3); torch.native_dropout(x, 0.3, True)
    EXPECT_EQ(values(mask), (std::vector<double>{1, 1, 0, 1, 0, 1, 1, 1, 1, 0, 1, 1}));
    EXPECT_FLOAT_EQ(static_cast<float>(values(out)[0]), 1.4285714626312256f);
  }
  const Tensor many = ones({1000}, on_device(kFloat));
  const Tensor first = std::get<1>(native_dropout(many, 0.5, true));
  EXPECT_FALSE(std::get<1>(native_dropout(many, 0.5, true)).equal(first));  // the generator moved on
  manual_seed(3);
  auto [out3, mask3] = native_dropout(x, 0.3, true);
  EXPECT_TRUE(mask3.equal(mask));
  EXPECT_TRUE(out3.equal(out));
}

TEST_P(NativeDropout, DrawsAsTheBernoulliKernels) {
  const double keep = 0.6;
  for (int64_t n : {7, 8, 1000, 4096, 70001}) {
    manual_seed(11);
    const Tensor x = randn({n}, on_device(kFloat));
    manual_seed(5);
    auto [out, mask] = native_dropout(x, 1 - keep, true);
    manual_seed(5);
    Tensor expected;
    const bool vectorized = is_cuda() && n % 4 == 0;  // a fresh allocation is aligned: the vec4 kernel
    if (!is_cuda() || !vectorized) {
      // cpu: bernoulli_(keep)'s sequence; cuda, one element per lane: distribution_nullary_kernel's mapping
      expected = empty({n}, on_device(kFloat)).bernoulli_(keep);
    } else if (n <= 1000) {
      // vec4 with one draw per thread: thread t's curand4 serves elements 4t..4t+3, as bernoulli(p tensor)
      expected = bernoulli(full({n}, keep, on_device(kFloat)));
    } else {
      expect_scaled(x, out, mask, static_cast<float>(1.0 / static_cast<double>(static_cast<float>(keep))));
      const double kept = mask.to(kDouble).mean().item<double>();
      EXPECT_NEAR(kept, keep, 0.03) << n;
      continue;
    }
    EXPECT_TRUE(mask.equal(expected.to(kBool))) << "n = " << n;
    const float scale = is_cuda() ? static_cast<float>(1.0 / static_cast<double>(static_cast<float>(keep)))
                                  : 1.0f / static_cast<float>(keep);
    expect_scaled(x, out, mask, scale);
  }
}

TEST_P(NativeDropout, GradientIsTheMaskScaled) {
  // python3-torch 1.13.1: seed 3, F.dropout(x, 0.3) of x = arange(1, 13) (float64), backward of arange(12)
  const Tensor x = arange12(kDouble).requires_grad_();
  manual_seed(3);
  const Tensor y = nn::functional::dropout(x, 0.3, true);
  ASSERT_TRUE(y.grad_fn());
  EXPECT_EQ(y.grad_fn()->name(), "NativeDropoutBackward0");
  y.backward(arange(0, 12, on_device(kDouble)).view({3, 4}));
  const Tensor kept = (y != 0).to(kDouble);
  const std::vector<double> g = values(x.grad()), k = values(kept);
  for (size_t i = 0; i < g.size(); ++i) EXPECT_DOUBLE_EQ(g[i], k[i] * static_cast<double>(i) / 0.7) << i;
  if (!is_cuda()) {
    EXPECT_EQ(k, (std::vector<double>{1, 1, 0, 1, 0, 1, 1, 1, 1, 0, 1, 1}));
    EXPECT_DOUBLE_EQ(values(y)[11], 17.142857142857142);
  }
  // gradcheck and gradgradcheck with the draws fixed by reseeding before each evaluation
  const Tensor z = randn({2, 5}, on_device(kDouble)).requires_grad_();
  auto f = [](const autograd::variable_list& in) -> autograd::variable_list {
    manual_seed(21);
    return {std::get<0>(native_dropout(in[0], 0.4, true))};
  };
  EXPECT_TRUE(autograd::gradcheck(f, {z}));
  EXPECT_TRUE(autograd::gradgradcheck(f, {z}));
}

TEST_P(NativeDropout, EvalModeEmptyAndEdgeProbabilities) {
  const Tensor x = arange12(kFloat);
  auto [out, mask] = native_dropout(x, 0.5, false);
  EXPECT_TRUE(out.equal(x));
  EXPECT_NE(out.data_ptr(), x.data_ptr());
  EXPECT_TRUE(mask.all().item<bool>());
  auto [zero_out, zero_mask] = native_dropout(x, 1.0, true);
  EXPECT_EQ(zero_out.abs().sum().item<float>(), 0.0f);
  EXPECT_FALSE(zero_mask.any().item<bool>());
  auto [same, all] = native_dropout(x, 0.0, true);
  EXPECT_TRUE(same.equal(x));
  EXPECT_TRUE(all.all().item<bool>());
  const Tensor none = empty({0, 3}, on_device(kFloat));
  EXPECT_EQ(std::get<0>(native_dropout(none, 0.5, true)).numel(), 0);
  EXPECT_TRUE(nn::functional::dropout(x, 0.5, false).equal(x));
}

TEST_P(NativeDropout, BadArgumentsRaisePyTorchsErrors) {
  const Tensor x = arange12(kFloat);
  EXPECT_EQ(error_of<ValueError>([&] { (void)nn::functional::dropout(x, 1.5, true); }),
            "dropout probability has to be between 0 and 1, but got 1.5");
  EXPECT_EQ(error_of([&] { (void)native_dropout(x, 1.5, true); }), "bernoulli_ expects p to be in [0, 1], but got p=-0.5");
  EXPECT_EQ(error_of([&] { (void)native_dropout(ones({3}, on_device(kLong)), 0.5, true); }),
            "result type Float can't be cast to the desired output type Long");
  EXPECT_EQ(values(native_dropout_backward(ones({3}, on_device(kFloat)), tensor({1.0f, 0.0f, 1.0f}, on_device(kFloat)), 2.0)),
            (std::vector<double>{2, 0, 2}));  // 1.13 takes a mask of the gradient's dtype too
}

CTORCH_INSTANTIATE_DEVICE_TESTS(NativeDropout);

}  // namespace
}  // namespace ctorch::testing
