// In-place writes into views (Note [In-place on views], src/autograd/copy_slices.h): the base's
// history is rebased (CopySlices), the view's grad_fn becomes AsStridedBackward0, other views of
// the base regenerate theirs, and the refusals are PyTorch's. Expected values and texts are
// python3-torch 1.13.1's for the same programs (float64).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "ctorch/autograd.h"
#include "ctorch/factories.h"
#include "ctorch/indexing.h"
#include "ctorch/ops.h"
#include "device/device_test.h"
#include "test_util.h"

namespace ctorch::testing {
namespace {

using autograd::variable_list;

class InPlaceOnView : public DeviceTest {
 protected:
  // x = [[1, 2, 3], [4, 5, 6]], a leaf that requires grad.
  Tensor leaf_x() const {
    return tensor({1.0, 2.0, 3.0, 4.0, 5.0, 6.0}, on_device(kDouble)).view({2, 3}).detach().requires_grad_();
  }
  static std::string name_of(const Tensor& t) { return t.grad_fn() ? t.grad_fn()->name() : std::string("<leaf>"); }
  static void expect_values(const Tensor& got, const std::vector<double>& want) {
    ASSERT_TRUE(got.defined());
    const Tensor flat = got.detach().cpu().contiguous().view({-1});
    ASSERT_EQ(flat.numel(), static_cast<int64_t>(want.size()));
    for (size_t i = 0; i < want.size(); ++i) {
      EXPECT_NEAR(flat[static_cast<int64_t>(i)].item<double>(), want[i], 1e-9) << "element " << i;
    }
  }
};

TEST_P(InPlaceOnView, WriteIntoAViewRebasesTheBasesHistory) {
  const Tensor x = leaf_x();
  Tensor b = x * 1;
  Tensor v = b.select(0, 0).select(0, 1);  // a view of a view: its base is b
  EXPECT_TRUE(v.is_view());
  v.mul_(5);
  EXPECT_EQ(name_of(b), "torch::autograd::CopySlices");
  EXPECT_EQ(name_of(v), "AsStridedBackward0");
  b.sum().backward();
  expect_values(x.grad(), {1, 5, 1, 1, 1, 1});
  expect_values(b, {1, 10, 3, 4, 5, 6});
}

TEST_P(InPlaceOnView, ColumnIncrementKeepsTheGradientOfEveryElement) {
  const Tensor x = leaf_x();
  Tensor b = x * 1;
  b.index_put_({Slice(), 0}, full({}, 1.0, on_device(kDouble)) + b.select(1, 0));  // b[:, 0] = 1 + b[:, 0]
  Tensor c = x * 1;
  c.select(1, 0).add_(1);  // c[:, 0] += 1
  EXPECT_EQ(name_of(b), "torch::autograd::CopySlices");
  EXPECT_EQ(name_of(c), "torch::autograd::CopySlices");
  expect_values(b, {2, 2, 3, 5, 5, 6});
  expect_values(c, {2, 2, 3, 5, 5, 6});
  (b * c).sum().backward();
  expect_values(x.grad(), {4, 4, 6, 10, 10, 12});  // b + c
}

TEST_P(InPlaceOnView, AFormulaReadingTheOverwrittenValueGetsIt) {
  const Tensor x = leaf_x();
  Tensor b = x * 1;
  b.select(1, 0).sin_();  // sin_'s gradient reads the value before the write
  (b * b).sum().backward();
  expect_values(x.grad(), {std::sin(2.0), 4, 6, std::sin(8.0), 10, 12});
}

TEST_P(InPlaceOnView, OtherViewsOfTheBaseSeeTheWrite) {
  const Tensor x = leaf_x();
  Tensor b = x * 1;
  Tensor v1 = b.select(0, 0), v2 = b.select(0, 1);
  EXPECT_EQ(name_of(v2), "SelectBackward0");
  v1.mul_(3);
  EXPECT_EQ(name_of(v2), "AsStridedBackward0");  // regenerated: the storage was written
  (v2 * v1).sum().backward();
  expect_values(x.grad(), {12, 15, 18, 3, 6, 9});
}

TEST_P(InPlaceOnView, WritesThroughTransposedAndReshapedViews) {
  const Tensor x = leaf_x();
  Tensor b = x * 1;
  Tensor t = b.t();
  t.mul_(2);
  t.select(0, 0).add_(1);
  EXPECT_EQ(name_of(b), "torch::autograd::CopySlices");
  EXPECT_EQ(name_of(t), "AsStridedBackward0");
  Tensor flat = b.view({-1}).unsqueeze(0);
  flat.mul_(x.view({1, -1}));  // an operand that requires grad on its own
  expect_values(b, {3 * 1, 4 * 2, 6 * 3, 9 * 4, 10 * 5, 12 * 6});
  b.sum().backward();
  // d/dx of (2x + [1 on column 0]) * x = 4x + [1 on column 0]
  expect_values(x.grad(), {5, 8, 12, 17, 20, 24});
}

TEST_P(InPlaceOnView, SetItemRecordsAValueThatRequiresGradOnABaseThatDoesNot) {
  Tensor a = zeros({2, 3}, on_device(kDouble));
  const Tensor y = tensor({1.0, 2.0, 3.0}, on_device(kDouble)).detach().requires_grad_();
  a.index_put_({0}, y * 2);  // a[0] = y * 2
  EXPECT_TRUE(a.requires_grad());
  EXPECT_EQ(name_of(a), "torch::autograd::CopySlices");
  Tensor tail = a.index({Slice(), Slice(1, None)});
  tail.index_put_({tail > 0}, 7.0);  // a[:, 1:][a[:, 1:] > 0] = 7
  expect_values(a, {2, 7, 7, 0, 0, 0});
  (a * a).sum().backward();
  expect_values(y.grad(), {8, 0, 0});
}

TEST_P(InPlaceOnView, GradcheckAndGradgradcheckThroughCopySlices) {
  const Tensor x0 = tensor({0.3, -0.7, 1.1, 0.4, 0.9, -0.2}, on_device(kDouble)).view({2, 3}).detach();
  auto fn = [](const variable_list& in) -> variable_list {
    Tensor b = in[0] * 1;
    b.select(0, 0).mul_(in[0].select(0, 1));  // b[0] *= x[1]
    b.select(1, 2).exp_();
    return {b * b};
  };
  EXPECT_TRUE(autograd::gradcheck(fn, {x0.clone().requires_grad_()}));
  EXPECT_TRUE(autograd::gradgradcheck(fn, {x0.clone().requires_grad_()}));
}

TEST_P(InPlaceOnView, RefusalsArePyTorchs) {
  Tensor x = leaf_x();
  EXPECT_EQ(error_of([&] { x.select(0, 0).mul_(2); }),
            "a view of a leaf Variable that requires grad is being used in an in-place operation.");
  EXPECT_EQ(error_of([&] { x.mul_(2); }), "a leaf Variable that requires grad is being used in an in-place operation.");
  // A value read by a node after its storage was written through another view.
  Tensor b = x * 1;
  const Tensor v = b.select(1, 0);
  const Tensor w = v * v;
  b.add_(1);
  EXPECT_EQ(error_of([&] { w.sum().backward(); }),
            "one of the variables needed for gradient computation has been modified by an inplace operation: "
            "[torch." + std::string(is_cuda() ? "cuda." : "") + "DoubleTensor [2]], which is output 0 of "
            "AsStridedBackward0, is at version 1; expected version 0 instead. Hint: enable anomaly detection to find "
            "the operation that failed to compute its gradient, with torch.autograd.set_detect_anomaly(True).");
  // A failed write changes nothing.
  expect_values(x, {1, 2, 3, 4, 5, 6});
  EXPECT_EQ(x._version(), 0u);
}

TEST_P(InPlaceOnView, BackwardTwiceThroughCopySlicesIsRefused) {
  const Tensor x = leaf_x();
  Tensor b = x * 1;
  b.select(0, 1).mul_(2);
  const Tensor loss = b.sum();
  loss.backward();
  EXPECT_THAT(error_of([&] { loss.backward(); }),
              ::testing::HasSubstr("Trying to backward through the graph a second time"));
}

TEST_P(InPlaceOnView, RetainedGradientIsThatOfTheNewestValue) {
  // PyTorch's test/cpp/api/autograd.cpp HooksInplaceWithRetainsGrad: retain_grad follows the write.
  Tensor a = ones({5, 5}, on_device(kDouble)).requires_grad_().clone();
  int before = 0, after = 0;
  a.register_hook([&](const Tensor& g) { ++before; expect_values(g, std::vector<double>(25, 2.0)); });
  a.retain_grad();
  a.mul_(2);
  a.register_hook([&](const Tensor& g) { ++after; expect_values(g, std::vector<double>(25, 1.0)); });
  (a + 1).sum().backward();
  EXPECT_EQ(before, 1);
  EXPECT_EQ(after, 1);
  EXPECT_TRUE(a.retains_grad());
  expect_values(a.grad(), std::vector<double>(25, 1.0));
}

CTORCH_INSTANTIATE_DEVICE_TESTS(InPlaceOnView);

}  // namespace
}  // namespace ctorch::testing
