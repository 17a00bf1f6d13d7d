// torch.cat / torch.stack: values, shapes, dtype promotion, legacy empty skipping, PyTorch's errors.
#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

#include "ctorch/ctorch.h"
#include "test_util.h"

using namespace ctorch;

namespace {

using V = std::vector<int64_t>;

V vec(IntArrayRef a) { return a.vec(); }

using ::ctorch::testing::error_of;

Tensor iota(IntArrayRef shape, int64_t start = 0) {
  int64_t n = 1;
  for (int64_t s : shape) n *= s;
  return arange(start, start + n).view(shape);
}

bool shares_storage(const Tensor& a, const Tensor& b) { return a.impl()->storage().get() == b.impl()->storage().get(); }

// A cuda-device tensor that is never dereferenced (enough for device checks without a runtime).
Tensor fake_cuda(std::vector<float>& host) {
  return from_blob(host.data(), {static_cast<int64_t>(host.size())}, TensorOptions().dtype(kFloat).device(Device("cuda:0")));
}

}  // namespace

TEST(ShapeCat, AlongDim0) {
  Tensor a = iota({2, 3});
  Tensor b = iota({1, 3}, 10);
  Tensor c = cat({a, b});
  EXPECT_EQ(vec(c.sizes()), (V{3, 3}));
  EXPECT_TRUE(c.is_contiguous());
  EXPECT_EQ(c.dtype(), kLong);
  EXPECT_EQ(c.to_vector<int64_t>(), (V{0, 1, 2, 3, 4, 5, 10, 11, 12}));
  EXPECT_FALSE(shares_storage(c, a));
  c.fill_(0);
  EXPECT_EQ(a.to_vector<int64_t>(), (V{0, 1, 2, 3, 4, 5}));
  // A single tensor gives a copy.
  Tensor single = cat({a});
  EXPECT_FALSE(shares_storage(single, a));
  EXPECT_EQ(single.to_vector<int64_t>(), a.to_vector<int64_t>());
}

TEST(ShapeCat, AlongInnerDims) {
  Tensor a = iota({2, 3});
  Tensor b = iota({2, 2}, 10);
  Tensor c = cat({a, b}, 1);
  EXPECT_EQ(vec(c.sizes()), (V{2, 5}));
  EXPECT_EQ(c.to_vector<int64_t>(), (V{0, 1, 2, 10, 11, 3, 4, 5, 12, 13}));
  EXPECT_EQ(cat({a, b}, -1).to_vector<int64_t>(), c.to_vector<int64_t>());
  Tensor x = iota({2, 2, 2});
  Tensor y = cat({x, x, x}, 2);
  EXPECT_EQ(vec(y.sizes()), (V{2, 2, 6}));
  EXPECT_EQ(y.index({1, 1}).to_vector<int64_t>(), (V{6, 7, 6, 7, 6, 7}));
}

TEST(ShapeCat, NonContiguousInputs) {
  Tensor a = iota({3, 2}).t();                        // [2, 3], transposed
  Tensor b = iota({2, 6}, 100).slice(1, 0, 6, 2);     // [2, 3], strided
  Tensor e = tensor({7, 8}).view({2, 1}).expand({2, 3});  // stride 0
  Tensor c = cat({a, b, e}, 0);
  EXPECT_EQ(vec(c.sizes()), (V{6, 3}));
  EXPECT_EQ(c.to_vector<int64_t>(), (V{0, 2, 4, 1, 3, 5, 100, 102, 104, 106, 108, 110, 7, 7, 7, 8, 8, 8}));
  Tensor d = cat({a, b, e}, 1);
  EXPECT_EQ(vec(d.sizes()), (V{2, 9}));
  EXPECT_EQ(d.to_vector<int64_t>(), (V{0, 2, 4, 100, 102, 104, 7, 7, 7, 1, 3, 5, 106, 108, 110, 8, 8, 8}));
}

TEST(ShapeCat, LargeContiguousMatchesElementwise) {
  const int64_t rows = 257, cols = 129;
  Tensor a = iota({rows, cols});
  Tensor b = iota({rows, 31}, 1000000);
  Tensor c = cat({a, b}, 1);
  ASSERT_EQ(vec(c.sizes()), (V{rows, cols + 31}));
  const V cv = c.to_vector<int64_t>();
  for (int64_t r = 0; r < rows; r += 17) {
    for (int64_t k = 0; k < cols + 31; ++k) {
      const int64_t expected = k < cols ? r * cols + k : 1000000 + r * 31 + (k - cols);
      ASSERT_EQ(cv[r * (cols + 31) + k], expected) << r << "," << k;
    }
  }
  Tensor d = cat({a, a, a});
  EXPECT_EQ(vec(d.sizes()), (V{3 * rows, cols}));
  EXPECT_EQ(d.narrow(0, 2 * rows, rows).to_vector<int64_t>(), a.to_vector<int64_t>());
}

TEST(ShapeCat, PromotesDtypes) {
  Tensor i = tensor({1, 2});
  Tensor f = tensor({0.5, 1.5});
  Tensor c = cat({i, f});
  EXPECT_EQ(c.dtype(), kFloat);
  EXPECT_EQ(c.to_vector<float>(), (std::vector<float>{1, 2, 0.5, 1.5}));
  EXPECT_EQ(cat({i.to(kInt32), i}).dtype(), kLong);
  EXPECT_EQ(cat({i.to(kUInt8), i.to(kInt8)}).dtype(), kInt16);
  EXPECT_EQ(cat({i.to(kBool), i.to(kBool)}).dtype(), kBool);
  EXPECT_EQ(cat({f.to(kHalf), f.to(kBFloat16)}).dtype(), kFloat);
  EXPECT_EQ(cat({f.to(kDouble), i.to(kInt32), f}).dtype(), kDouble);
  Tensor b = cat({i.to(kBool), i});
  EXPECT_EQ(b.dtype(), kLong);
  EXPECT_EQ(b.to_vector<int64_t>(), (V{1, 1, 1, 2}));
}

TEST(ShapeCat, LegacySkipsOneDimEmpty) {
  Tensor x = iota({2, 3});
  Tensor e = empty({0});
  Tensor c = cat({x, e, iota({1, 3}, 6)});
  EXPECT_EQ(vec(c.sizes()), (V{3, 3}));
  // The skipped float tensor still takes part in type promotion.
  EXPECT_EQ(c.dtype(), kFloat);
  EXPECT_EQ(c.to_vector<float>(), (std::vector<float>{0, 1, 2, 3, 4, 5, 6, 7, 8}));
  // dim wraps against the first non-skipped tensor.
  EXPECT_EQ(vec(cat({e, x}, -1).sizes()), (V{2, 3}));
  EXPECT_EQ(vec(cat({e.to(kLong), x}, 1).sizes()), (V{2, 3}));
  // All skipped: a [0] tensor of the promoted dtype.
  Tensor all_empty = cat({empty({0}, TensorOptions().dtype(kInt32)), empty({0}, TensorOptions().dtype(kDouble))});
  EXPECT_EQ(vec(all_empty.sizes()), (V{0}));
  EXPECT_EQ(all_empty.dtype(), kDouble);
  // Other empty shapes are not skipped.
  EXPECT_EQ(vec(cat({zeros({0, 3}), ones({2, 3})}).sizes()), (V{2, 3}));
  EXPECT_EQ(vec(cat({zeros({2, 0}), ones({2, 3})}, 1).sizes()), (V{2, 3}));
  EXPECT_EQ(vec(cat({zeros({2, 0}), zeros({2, 0})}, 1).sizes()), (V{2, 0}));
  EXPECT_EQ(error_of<Error>([&] { cat({zeros({0, 3}), ones({2, 4})}); }),
            "Sizes of tensors must match except in dimension 0. Expected size 3 but got size 4 for tensor number 1 in "
            "the list.");
}

TEST(ShapeCat, Errors) {
  EXPECT_EQ(error_of<Error>([&] { cat({}); }), "torch.cat(): expected a non-empty list of Tensors");
  EXPECT_EQ(error_of<Error>([&] { cat({arange(2), tensor(1)}); }),
            "zero-dimensional tensor (at position 1) cannot be concatenated");
  EXPECT_EQ(error_of<Error>([&] { cat({zeros({2, 3}), zeros({3, 3})}, 1); }),
            "Sizes of tensors must match except in dimension 1. Expected size 2 but got size 3 for tensor number 1 in "
            "the list.");
  EXPECT_EQ(error_of<Error>([&] { cat({zeros({2, 3}), zeros({2, 3}), zeros({2, 4})}); }),
            "Sizes of tensors must match except in dimension 0. Expected size 3 but got size 4 for tensor number 2 in "
            "the list.");
  EXPECT_EQ(error_of<Error>([&] { cat({zeros({2, 3}), zeros({3})}); }),
            "Tensors must have same number of dimensions: got 2 and 1");
  EXPECT_EQ(error_of<IndexError>([&] { cat({zeros({2, 3}), zeros({2, 3})}, 2); }),
            "Dimension out of range (expected to be in range of [-2, 1], but got 2)");
}

TEST(ShapeCat, DeviceMismatch) {
  std::vector<float> host(2, 0.0f);
  Tensor g = fake_cuda(host);
  EXPECT_EQ(error_of<Error>([&] { cat({zeros({2}), g}); }),
            "Expected all tensors to be on the same device, but found at least two devices, cpu and cuda:0! (when "
            "checking argument for argument tensors in method wrapper_cat)");
  EXPECT_EQ(error_of<Error>([&] { cat({g, zeros({3})}); }),
            "Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cpu! (when "
            "checking argument for argument tensors in method wrapper_cat)");
  EXPECT_EQ(error_of<Error>([&] { stack({g, zeros({2})}); }),
            "Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cpu! (when "
            "checking argument for argument tensors in method wrapper_cat)");
}

TEST(ShapeStack, NewDim) {
  Tensor a = tensor({1, 2, 3});
  Tensor b = tensor({4, 5, 6});
  Tensor s0 = stack({a, b});
  EXPECT_EQ(vec(s0.sizes()), (V{2, 3}));
  EXPECT_EQ(s0.to_vector<int64_t>(), (V{1, 2, 3, 4, 5, 6}));
  Tensor s1 = stack({a, b}, 1);
  EXPECT_EQ(vec(s1.sizes()), (V{3, 2}));
  EXPECT_TRUE(s1.is_contiguous());
  EXPECT_EQ(s1.to_vector<int64_t>(), (V{1, 4, 2, 5, 3, 6}));
  EXPECT_EQ(stack({a, b}, -1).to_vector<int64_t>(), s1.to_vector<int64_t>());
  EXPECT_EQ(vec(stack({a, b}, -2).sizes()), (V{2, 3}));
  Tensor m = iota({2, 3});
  Tensor s = stack({m, m.add(10)}, 1);
  EXPECT_EQ(vec(s.sizes()), (V{2, 2, 3}));
  EXPECT_EQ(s.index({1, 1}).to_vector<int64_t>(), (V{13, 14, 15}));
  EXPECT_FALSE(shares_storage(s, m));
}

TEST(ShapeStack, ScalarsEmptiesAndPromotion) {
  Tensor s = stack({tensor(1.0), tensor(2.0), tensor(3.0)});
  EXPECT_EQ(vec(s.sizes()), (V{3}));
  EXPECT_EQ(s.to_vector<float>(), (std::vector<float>{1, 2, 3}));
  Tensor e = stack({empty({0}), empty({0})});
  EXPECT_EQ(vec(e.sizes()), (V{2, 0}));
  Tensor p = stack({tensor({1, 2}), tensor({0.5, 1.5})});
  EXPECT_EQ(p.dtype(), kFloat);
  EXPECT_EQ(p.to_vector<float>(), (std::vector<float>{1, 2, 0.5, 1.5}));
}

TEST(ShapeStack, Errors) {
  EXPECT_EQ(error_of<Error>([&] { stack({}); }), "stack expects a non-empty TensorList");
  EXPECT_EQ(error_of<Error>([&] { stack({zeros({2}), zeros({3})}); }),
            "stack expects each tensor to be equal size, but got [2] at entry 0 and [3] at entry 1");
  EXPECT_EQ(error_of<Error>([&] { stack({zeros({2}), zeros({2}), zeros({1, 2})}); }),
            "stack expects each tensor to be equal size, but got [2] at entry 0 and [1, 2] at entry 2");
  EXPECT_EQ(error_of<IndexError>([&] { stack({zeros({2}), zeros({2})}, 2); }),
            "Dimension out of range (expected to be in range of [-2, 1], but got 2)");
}
