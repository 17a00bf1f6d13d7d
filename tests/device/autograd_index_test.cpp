// Gradients of advanced indexing and the gather family, checked by finite differences on every device.
#include <gtest/gtest.h>

#include <functional>

#include "ctorch/ctorch.h"
#include "device/device_test.h"

namespace ctorch::testing {
namespace {

class AutogradIndex : public DeviceTest {
 protected:
  Tensor longs(std::vector<int64_t> v, IntArrayRef shape) const {
    return tensor(v).reshape(shape).to(device());
  }
  // gradcheck of a scalar function of one float64 3x4 input on the device.
  bool check(const std::function<Tensor(const Tensor&)>& fn) const {
    const Tensor x = arange(12.0, on_device(kDouble)).reshape({3, 4}).div(10).requires_grad_();
    return autograd::gradcheck([&](const autograd::variable_list& v) { return autograd::variable_list{fn(v[0])}; },
                               {x}, {1e-6, 1e-5, 1e-3, /*raise_exception=*/false});
  }
};

TEST_P(AutogradIndex, GradientsMatchFiniteDifferences) {
  const Tensor rows = longs({2, 0, 2}, {3});
  const Tensor cols = longs({0, 3, 1, 2, 2, 0}, {3, 2});
  const auto opts = on_device(kDouble);
  EXPECT_TRUE(check([&](const Tensor& v) { return v.index({rows}).sin().sum(); }));
  EXPECT_TRUE(check([&](const Tensor& v) { return v.index({Slice(), rows}).sin().sum(); }));
  EXPECT_TRUE(check([&](const Tensor& v) { return v.index_select(1, rows).cos().sum(); }));
  EXPECT_TRUE(check([&](const Tensor& v) { return v.gather(1, cols).pow(2).sum(); }));
  EXPECT_TRUE(check([&](const Tensor& v) { return v.masked_select(v.detach().gt(0.45)).exp().sum(); }));
  EXPECT_TRUE(check([&](const Tensor& v) { return zeros({3, 4}, opts).scatter_add(1, cols, v.narrow(1, 0, 2)).sin().sum(); }));
  EXPECT_TRUE(check([&](const Tensor& v) { return v.scatter(1, cols, v.narrow(1, 1, 2) * 3).sin().sum(); }));
  EXPECT_TRUE(check([&](const Tensor& v) { return zeros({5, 4}, opts).index_add(0, rows, v * 2, 0.5).tanh().sum(); }));
  EXPECT_TRUE(check([&](const Tensor& v) {
    Tensor p = v.clone();
    p.index_put_({std::optional<Tensor>(rows)}, v.sum(0) * 3, /*accumulate=*/true);
    return p.sin().sum();
  }));
  EXPECT_TRUE(check([&](const Tensor& v) {
    Tensor p = v.clone();
    p.index_put_({std::optional<Tensor>(longs({2, 0}, {2}))}, v.sum(0) * 3);
    return p.sin().sum();
  }));
  EXPECT_TRUE(check([&](const Tensor& v) { return v.masked_fill(v.detach().lt(0.35), 2.0).sin().sum(); }));
}

TEST_P(AutogradIndex, NodeNamesAndVersionBumps) {
  const Tensor x = ones({3, 4}, on_device()).requires_grad_();
  EXPECT_EQ(x.index({longs({0, 2}, {2})}).grad_fn()->name(), "IndexBackward0");
  EXPECT_EQ(x.gather(1, longs({0, 1, 1}, {3, 1})).grad_fn()->name(), "GatherBackward0");
  EXPECT_EQ(x.index_select(0, longs({1}, {1})).grad_fn()->name(), "IndexSelectBackward0");
  Tensor y = zeros({3, 4}, on_device());
  const uint32_t v0 = y._version();
  y.index_add_(0, longs({1}, {1}), ones({1, 4}, on_device()));
  y.scatter_add_(1, longs({0, 1, 1}, {3, 1}), ones({3, 1}, on_device()));
  y.index_put_({std::optional<Tensor>(longs({0}, {1}))}, ones({4}, on_device()));
  EXPECT_EQ(y._version(), v0 + 3);  // in-place index ops bump the version, as PyTorch's
}

CTORCH_INSTANTIATE_DEVICE_TESTS(AutogradIndex);

}  // namespace
}  // namespace ctorch::testing
