// Tensor::resize_ and alias on every device: growing keeps the bytes and moves every view of the
// storage to the new memory; shrinking keeps the storage; PyTorch's errors.
#include <gtest/gtest.h>

#include "ctorch/ctorch.h"
#include "device/device_test.h"
#include "test_util.h"

namespace ctorch::testing {
namespace {

class Resize : public DeviceTest {};

TEST_P(Resize, GrowsInPlaceForEveryView) {
  Tensor t = arange(6, on_device());
  Tensor view = t.view({2, 3});
  t.resize_({4, 4});
  EXPECT_EQ(t.sizes(), IntArrayRef({4, 4}));
  EXPECT_EQ(t.strides(), IntArrayRef({4, 1}));
  EXPECT_TRUE(equal(t.flatten().narrow(0, 0, 6).cpu(), arange(6)));  // kept bytes
  t.fill_(7);
  EXPECT_EQ(view.sum().item<float>(), 42.0f);  // the view shares the grown storage
  t.resize_({3});
  EXPECT_EQ(t.numel(), 3);
  EXPECT_EQ(t.sum().item<float>(), 21.0f);
  Tensor e = empty({0}, on_device());
  e.resize_({2, 0, 5});
  EXPECT_EQ(e.numel(), 0);
  e.resize_({5});
  e.fill_(1);
  EXPECT_EQ(e.sum().item<float>(), 5.0f);
}

TEST_P(Resize, KeepsTheOffsetAndRefusesWhatPyTorchRefuses) {
  Tensor base = arange(10, on_device());
  Tensor tail = base.narrow(0, 4, 3);  // offset 4
  tail.resize_({8});
  EXPECT_EQ(tail.storage_offset(), 4);
  EXPECT_TRUE(equal(tail.narrow(0, 0, 6).cpu(), arange(4, 10)));
  Tensor w = ones({2}, on_device()).requires_grad_(true);
  EXPECT_EQ(error_of([&] { w.resize_({4}); }), "cannot resize variables that require grad");
  EXPECT_EQ(w.numel(), 2);
  Tensor x = ones({2}, on_device());
  EXPECT_NE(error_of([&] { x.resize_({-1}); }).find("negative dimension -1"), std::string::npos);
  EXPECT_EQ(x.numel(), 2);
}

TEST_P(Resize, AliasSharesMemoryAndHistory) {
  const Tensor a = ones({2, 2}, on_device()).requires_grad_(true);
  const Tensor b = a.alias();
  EXPECT_FALSE(b.is_same(a));
  EXPECT_EQ(b.data_ptr(), a.data_ptr());
  EXPECT_EQ(b.grad_fn()->name(), "AliasBackward0");
  (b * 3).sum().backward();
  EXPECT_TRUE(equal(a.grad().cpu(), full({2, 2}, 3.0f)));
  EXPECT_TRUE(equal(max(tensor({1.0f, 5.0f}, on_device()), tensor({3.0f, 2.0f}, on_device())).cpu(), tensor({3.0f, 5.0f})));
  EXPECT_TRUE(equal(min(tensor({1.0f, 5.0f}, on_device()), tensor({3.0f, 2.0f}, on_device())).cpu(), tensor({1.0f, 2.0f})));
}

CTORCH_INSTANTIATE_DEVICE_TESTS(Resize);

}  // namespace
}  // namespace ctorch::testing
