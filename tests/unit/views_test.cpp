// View ops (view, reshape, permute, transpose, squeeze, expand, narrow, slice, select, split, ...)
// and basic indexing (index / index_put_): values, geometry, storage sharing, PyTorch's errors.
#include <gtest/gtest.h>

#include <functional>
#include <limits>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "ctorch/ctorch.h"
#include "test_util.h"

using namespace ctorch;

namespace {

using V = std::vector<int64_t>;

V vec(IntArrayRef a) { return a.vec(); }

using ::ctorch::testing::error_of;

// 0, 1, ..., n-1 as int64 with the given shape.
Tensor iota(IntArrayRef shape) {
  int64_t n = 1;
  for (int64_t s : shape) n *= s;
  return arange(n).view(shape);
}

bool shares_storage(const Tensor& a, const Tensor& b) { return a.impl()->storage().get() == b.impl()->storage().get(); }

// Elements of range(len) selected by Python's slice(start, stop, step), step > 0. As in
// at::slice, a start of INT64_MAX means "default" (0).
V python_slice(int64_t len, std::optional<int64_t> start, std::optional<int64_t> stop, int64_t step) {
  if (start == std::numeric_limits<int64_t>::max()) start = std::nullopt;
  auto clamp = [&](std::optional<int64_t> v, int64_t dflt) {
    if (!v) return dflt;
    int64_t x = *v;
    if (x < 0) x += len;
    if (x < 0) x = 0;
    if (x > len) x = len;
    return x;
  };
  const int64_t b = clamp(start, 0), e = clamp(stop, len);
  V out;
  for (int64_t i = b; i < e; i += step) out.push_back(i);
  return out;
}

}  // namespace

// ---- view -----------------------------------------------------------------------------------

TEST(View, SharesStorageAndVersion) {
  Tensor base = arange(6);
  Tensor v = base.view({2, 3});
  EXPECT_EQ(vec(v.sizes()), (V{2, 3}));
  EXPECT_EQ(vec(v.strides()), (V{3, 1}));
  EXPECT_TRUE(v.is_contiguous());
  EXPECT_FALSE(v.is_same(base));
  EXPECT_TRUE(shares_storage(v, base));
  EXPECT_EQ(v.data_ptr(), base.data_ptr());
  EXPECT_EQ(v.to_vector<int64_t>(), (V{0, 1, 2, 3, 4, 5}));
  const uint32_t version = base._version();
  v.fill_(7);
  EXPECT_EQ(base.to_vector<int64_t>(), (V{7, 7, 7, 7, 7, 7}));
  EXPECT_GT(base._version(), version);
  EXPECT_EQ(base._version(), v._version());
}

TEST(View, InfersMinusOne) {
  Tensor t = arange(24);
  EXPECT_EQ(vec(t.view({-1, 4}).sizes()), (V{6, 4}));
  EXPECT_EQ(vec(t.view({2, -1, 3}).sizes()), (V{2, 4, 3}));
  EXPECT_EQ(vec(t.view({2, -1, 3}).strides()), (V{12, 3, 1}));
  EXPECT_EQ(vec(t.view(-1).sizes()), (V{24}));
  EXPECT_EQ(vec(t.view({1, -1, 1}).sizes()), (V{1, 24, 1}));
}

TEST(View, ShapeErrors) {
  Tensor t = arange(6);
  EXPECT_EQ(error_of<Error>([&] { t.view({2, 5}); }), "shape '[2, 5]' is invalid for input of size 6");
  EXPECT_EQ(error_of<Error>([&] { t.view({4, -1}); }), "shape '[4, -1]' is invalid for input of size 6");
  EXPECT_EQ(error_of<Error>([&] { t.view({-1, -1}); }), "only one dimension can be inferred");
  EXPECT_EQ(error_of<Error>([&] { t.view({-2, 3}); }), "invalid shape dimension -2");
  Tensor e = zeros({0, 3});
  EXPECT_EQ(error_of<Error>([&] { e.view({-1, 0}); }),
            "cannot reshape tensor of 0 elements into shape [-1, 0] because the unspecified dimension size -1 can "
            "be any value and is ambiguous");
  EXPECT_EQ(vec(e.view({3, -1}).sizes()), (V{3, 0}));
}

TEST(View, StrideCompatibilityRule) {
  const std::string msg =
      "view size is not compatible with input tensor's size and stride (at least one dimension spans across two "
      "contiguous subspaces). Use .reshape(...) instead.";
  Tensor t = iota({2, 3}).t();  // sizes [3, 2], strides [1, 3]
  EXPECT_EQ(error_of<Error>([&] { t.view(-1); }), msg);
  EXPECT_EQ(error_of<Error>([&] { t.view({2, 3}); }), msg);
  // Splitting or keeping each dim, and adding size-1 dims, is fine.
  Tensor ok = t.view({3, 1, 2});
  EXPECT_EQ(vec(ok.strides()), (V{1, 6, 3}));
  EXPECT_EQ(ok.to_vector<int64_t>(), t.to_vector<int64_t>());

  // Column slice: the two dims are separate chunks; the last one can be split.
  Tensor base = iota({3, 4});
  Tensor s = base.slice(1, 0, 2);  // sizes [3, 2], strides [4, 1]
  EXPECT_EQ(error_of<Error>([&] { s.view(6); }), msg);
  Tensor s2 = s.view({3, 2, 1});
  EXPECT_EQ(vec(s2.strides()), (V{4, 1, 1}));
  EXPECT_EQ(s2.storage_offset(), 0);
  // Row slice of a contiguous tensor stays contiguous and merges.
  Tensor r = base.slice(0, 1, 3).view(-1);
  EXPECT_EQ(r.storage_offset(), 4);
  EXPECT_EQ(r.to_vector<int64_t>(), (V{4, 5, 6, 7, 8, 9, 10, 11}));

  // An expanded tensor splits its stride-0 dim.
  Tensor ex = arange(3).expand({4, 3});
  Tensor ev = ex.view({2, 2, 3});
  EXPECT_EQ(vec(ev.strides()), (V{0, 0, 1}));
  EXPECT_EQ(error_of<Error>([&] { ex.view(12); }), msg);

  // Merging dims that are contiguous with each other but not with the rest.
  Tensor p = iota({2, 3, 4}).permute({1, 0, 2});  // sizes [3,2,4] strides [4,12,1]
  EXPECT_EQ(error_of<Error>([&] { p.view({6, 4}); }), msg);
  Tensor q = iota({2, 3, 4}).slice(2, 0, 2);  // sizes [2,3,2] strides [12,4,1]
  Tensor qv = q.view({6, 2});
  EXPECT_EQ(vec(qv.strides()), (V{4, 1}));
  EXPECT_EQ(qv.to_vector<int64_t>(), q.to_vector<int64_t>());
}

TEST(View, ZeroDimAndEmpty) {
  Tensor s = tensor(5.0);
  Tensor v = s.view({1, 1});
  EXPECT_EQ(vec(v.sizes()), (V{1, 1}));
  EXPECT_EQ(vec(v.strides()), (V{1, 1}));
  EXPECT_EQ(v.dim(), 2);
  EXPECT_EQ(s.view(-1).numel(), 1);
  Tensor back = v.view({});
  EXPECT_EQ(back.dim(), 0);
  EXPECT_EQ(back.item<double>(), 5.0);

  Tensor e = empty_strided({0, 3}, {1, 7});
  EXPECT_EQ(vec(e.view({0, 3}).strides()), (V{1, 7}));  // same shape keeps strides
  EXPECT_EQ(vec(e.view({3, 0, 2}).strides()), (V{2, 2, 1}));
}

TEST(View, ViewsOfATensorThatRequiresGradRecordTheirHistory) {
  Tensor x = zeros({2, 3}).requires_grad_(true);
  Tensor other = zeros({3, 2});
  Tensor v = x.view_as(other);
  EXPECT_EQ(vec(v.sizes()), (V{3, 2}));
  EXPECT_TRUE(shares_storage(v, x));
  EXPECT_TRUE(v.requires_grad());  // as PyTorch: a view of a tensor that requires grad is a non-leaf
  EXPECT_EQ(v.grad_fn()->name(), "ViewBackward0");
  EXPECT_EQ(x.t().grad_fn()->name(), "TBackward0");
  EXPECT_EQ(x.index({0}).grad_fn()->name(), "SelectBackward0");
  EXPECT_EQ(x.reshape(-1).grad_fn()->name(), "ViewBackward0");
  NoGradGuard no_grad;
  EXPECT_FALSE(x.view_as(other).requires_grad());
  EXPECT_FALSE(x.t().requires_grad());
}

// ---- reshape -----------------------------------------------------------------------------------

TEST(View, ReshapeViewsWhenPossible) {
  Tensor base = iota({2, 3});
  Tensor r = base.reshape({3, 2});
  EXPECT_TRUE(shares_storage(r, base));
  EXPECT_EQ(vec(r.strides()), (V{2, 1}));
  // Non-contiguous but viewable: still a view with the computed strides.
  Tensor t = base.t();  // [3,2] strides [1,3]
  Tensor rv = t.reshape({3, 1, 2});
  EXPECT_TRUE(shares_storage(rv, base));
  EXPECT_EQ(vec(rv.strides()), (V{1, 6, 3}));
}

TEST(View, ReshapeCopiesWhenNeeded) {
  Tensor base = iota({2, 3});
  Tensor t = base.t();
  Tensor r = t.reshape(-1);
  EXPECT_FALSE(shares_storage(r, base));
  EXPECT_TRUE(r.is_contiguous());
  EXPECT_EQ(r.to_vector<int64_t>(), (V{0, 3, 1, 4, 2, 5}));
  r.fill_(0);
  EXPECT_EQ(base.to_vector<int64_t>(), (V{0, 1, 2, 3, 4, 5}));
  EXPECT_EQ(error_of<Error>([&] { t.reshape({4, 2}); }), "shape '[4, 2]' is invalid for input of size 6");
  Tensor ra = t.reshape_as(zeros({2, 3}));
  EXPECT_EQ(vec(ra.sizes()), (V{2, 3}));
  EXPECT_EQ(ra.to_vector<int64_t>(), (V{0, 3, 1, 4, 2, 5}));
  // Free function.
  EXPECT_EQ(vec(reshape(base, {6}).sizes()), (V{6}));
}

// ---- permute / transpose / t ----------------------------------------------------------------

TEST(View, Permute) {
  Tensor base = iota({2, 3, 4});
  Tensor p = base.permute({2, 0, 1});
  EXPECT_EQ(vec(p.sizes()), (V{4, 2, 3}));
  EXPECT_EQ(vec(p.strides()), (V{1, 12, 4}));
  EXPECT_FALSE(p.is_contiguous());
  EXPECT_TRUE(shares_storage(p, base));
  EXPECT_EQ(p.index({1, 1, 2}).item<int64_t>(), base.index({1, 2, 1}).item<int64_t>());
  EXPECT_EQ(vec(base.permute({-1, 0, -2}).sizes()), (V{4, 2, 3}));
  EXPECT_EQ(vec(permute(base, {1, 0, 2}).sizes()), (V{3, 2, 4}));
  EXPECT_EQ(tensor(1.0).permute({}).dim(), 0);
}

TEST(View, PermuteErrors) {
  Tensor t = zeros({2, 3});
  EXPECT_EQ(error_of<Error>([&] { t.permute({0, 1, 2}); }),
            "permute(sparse_coo): number of dimensions in the tensor input does not match the length of the desired "
            "ordering of dimensions i.e. input.dim() = 2 is not equal to len(dims) = 3");
  EXPECT_EQ(error_of<Error>([&] { tensor(1.0).permute({-1}); }),
            "permute(sparse_coo): number of dimensions in the tensor input does not match the length of the desired "
            "ordering of dimensions i.e. input.dim() = 0 is not equal to len(dims) = 1");
  EXPECT_EQ(error_of<Error>([&] { t.permute({1, -1}); }), "permute(): duplicate dims are not allowed.");
  EXPECT_EQ(error_of<IndexError>([&] { t.permute({0, 2}); }),
            "Dimension out of range (expected to be in range of [-2, 1], but got 2)");
}

TEST(View, Transpose) {
  Tensor base = iota({2, 3, 4});
  Tensor tr = base.transpose(0, 2);
  EXPECT_EQ(vec(tr.sizes()), (V{4, 3, 2}));
  EXPECT_EQ(vec(tr.strides()), (V{1, 4, 12}));
  EXPECT_FALSE(tr.is_contiguous());
  EXPECT_EQ(tr.data_ptr(), base.data_ptr());
  EXPECT_EQ(vec(base.transpose(-1, 1).sizes()), (V{2, 4, 3}));
  Tensor same = base.transpose(1, -2);
  EXPECT_FALSE(same.is_same(base));
  EXPECT_EQ(vec(same.strides()), vec(base.strides()));
  EXPECT_EQ(error_of<IndexError>([&] { base.transpose(0, 3); }),
            "Dimension out of range (expected to be in range of [-3, 2], but got 3)");
  EXPECT_EQ(vec(transpose(base, 0, 1).sizes()), (V{3, 2, 4}));
}

TEST(View, T) {
  Tensor m = iota({2, 3});
  Tensor mt = m.t();
  EXPECT_EQ(vec(mt.sizes()), (V{3, 2}));
  EXPECT_EQ(mt.to_vector<int64_t>(), (V{0, 3, 1, 4, 2, 5}));
  Tensor v = arange(3);
  EXPECT_EQ(vec(v.t().sizes()), (V{3}));
  EXPECT_FALSE(v.t().is_same(v));
  EXPECT_EQ(tensor(2.0).t().dim(), 0);
  EXPECT_EQ(error_of<Error>([&] { zeros({2, 3, 4}).t(); }),
            "t() expects a tensor with <= 2 dimensions, but self is 3D");
}

// ---- squeeze / unsqueeze ------------------------------------------------------------------------

TEST(View, Squeeze) {
  Tensor base = zeros({1, 3, 1, 2});
  Tensor s = base.squeeze();
  EXPECT_EQ(vec(s.sizes()), (V{3, 2}));
  EXPECT_EQ(vec(s.strides()), (V{2, 1}));
  EXPECT_TRUE(shares_storage(s, base));
  EXPECT_EQ(vec(base.squeeze(2).sizes()), (V{1, 3, 2}));
  EXPECT_EQ(vec(base.squeeze(-4).sizes()), (V{3, 1, 2}));
  Tensor kept = base.squeeze(1);  // size 3: unchanged, new impl
  EXPECT_EQ(vec(kept.sizes()), (V{1, 3, 1, 2}));
  EXPECT_FALSE(kept.is_same(base));
  EXPECT_EQ(tensor(1.0).squeeze(0).dim(), 0);
  EXPECT_EQ(tensor(1.0).squeeze().dim(), 0);
  EXPECT_EQ(ones({1, 1}).squeeze().dim(), 0);
  EXPECT_EQ(error_of<IndexError>([&] { base.squeeze(4); }),
            "Dimension out of range (expected to be in range of [-4, 3], but got 4)");
  EXPECT_EQ(vec(squeeze(base).sizes()), (V{3, 2}));
}

TEST(View, Unsqueeze) {
  Tensor base = iota({2, 3});
  Tensor a = base.unsqueeze(0);
  EXPECT_EQ(vec(a.sizes()), (V{1, 2, 3}));
  EXPECT_EQ(vec(a.strides()), (V{6, 3, 1}));
  Tensor b = base.unsqueeze(1);
  EXPECT_EQ(vec(b.sizes()), (V{2, 1, 3}));
  EXPECT_EQ(vec(b.strides()), (V{3, 3, 1}));
  Tensor c = base.unsqueeze(-1);
  EXPECT_EQ(vec(c.sizes()), (V{2, 3, 1}));
  EXPECT_EQ(vec(c.strides()), (V{3, 1, 1}));
  EXPECT_TRUE(c.is_contiguous());
  EXPECT_EQ(vec(tensor(1.0).unsqueeze(0).sizes()), (V{1}));
  EXPECT_EQ(vec(tensor(1.0).unsqueeze(-1).strides()), (V{1}));
  EXPECT_EQ(error_of<IndexError>([&] { base.unsqueeze(3); }),
            "Dimension out of range (expected to be in range of [-3, 2], but got 3)");
  EXPECT_EQ(vec(unsqueeze(base, 2).sizes()), (V{2, 3, 1}));
}

// ---- expand ---------------------------------------------------------------------------------------

TEST(View, Expand) {
  Tensor base = tensor({1.0, 2.0, 3.0});
  Tensor e = base.expand({2, 3});
  EXPECT_EQ(vec(e.sizes()), (V{2, 3}));
  EXPECT_EQ(vec(e.strides()), (V{0, 1}));
  EXPECT_EQ(e.data_ptr(), base.data_ptr());
  EXPECT_FALSE(e.is_contiguous());
  EXPECT_EQ(e.to_vector<float>(), (std::vector<float>{1, 2, 3, 1, 2, 3}));
  Tensor col = tensor({{1.0}, {2.0}});  // [2, 1]
  Tensor ec = col.expand({3, -1, 4});
  EXPECT_EQ(vec(ec.sizes()), (V{3, 2, 4}));
  EXPECT_EQ(vec(ec.strides()), (V{0, 1, 0}));
  EXPECT_EQ(ec.to_vector<float>()[5], 2.0f);
  // Expanding to the same shape keeps strides; a 0-dim tensor expands anywhere.
  EXPECT_EQ(vec(col.expand({2, 1}).strides()), (V{1, 1}));
  Tensor s = tensor(7.0).expand({2, 2});
  EXPECT_EQ(vec(s.strides()), (V{0, 0}));
  EXPECT_EQ(s.to_vector<float>(), (std::vector<float>{7, 7, 7, 7}));
  Tensor ea = base.expand_as(zeros({4, 3}));
  EXPECT_EQ(vec(ea.sizes()), (V{4, 3}));
}

TEST(View, ExpandErrors) {
  Tensor base = tensor({1.0, 2.0, 3.0});
  EXPECT_EQ(error_of<Error>([&] { base.expand({2, 4}); }),
            "The expanded size of the tensor (4) must match the existing size (3) at non-singleton dimension 1.  "
            "Target sizes: [2, 4].  Tensor sizes: [3]");
  EXPECT_EQ(error_of<Error>([&] { base.expand({-1, 3}); }),
            "The expanded size of the tensor (-1) isn't allowed in a leading, non-existing dimension 0");
  EXPECT_EQ(error_of<Error>([&] { zeros({3, 1}).expand({3}); }),
            "expand(torch.FloatTensor{[3, 1]}, size=[3]): the number of sizes provided (1) must be greater or equal "
            "to the number of dimensions in the tensor (2)");
  EXPECT_EQ(error_of<Error>([&] { arange(3).expand({}); }),
            "expand(torch.LongTensor{[3]}, size=[]): the number of sizes provided (0) must be greater or equal to "
            "the number of dimensions in the tensor (1)");
  EXPECT_EQ(error_of<Error>([&] { zeros({1}).expand({-2}); }), "Trying to create tensor with negative dimension -2: [-2]");
}

// ---- flatten -----------------------------------------------------------------------------------------

TEST(View, Flatten) {
  Tensor base = iota({2, 3, 4});
  Tensor f = base.flatten();
  EXPECT_EQ(vec(f.sizes()), (V{24}));
  EXPECT_TRUE(shares_storage(f, base));
  EXPECT_EQ(vec(base.flatten(1).sizes()), (V{2, 12}));
  EXPECT_EQ(vec(base.flatten(0, 1).sizes()), (V{6, 4}));
  EXPECT_EQ(vec(base.flatten(-2, -1).sizes()), (V{2, 12}));
  EXPECT_TRUE(base.flatten(1, 1).is_same(base));  // PyTorch returns self
  Tensor s = tensor(3.0).flatten();
  EXPECT_EQ(vec(s.sizes()), (V{1}));
  // Non-viewable: copies.
  Tensor t = base.transpose(0, 2);
  Tensor ft = t.flatten();
  EXPECT_FALSE(shares_storage(ft, base));
  EXPECT_EQ(ft.to_vector<int64_t>(), t.contiguous().to_vector<int64_t>());
  // Empty dims stay explicit.
  EXPECT_EQ(vec(zeros({0, 1, 3, 0}).flatten(1, 2).sizes()), (V{0, 3, 0}));
  EXPECT_EQ(error_of<Error>([&] { base.flatten(2, 1); }),
            "flatten() has invalid args: start_dim cannot come after end_dim");
  EXPECT_EQ(error_of<IndexError>([&] { base.flatten(3); }),
            "Dimension out of range (expected to be in range of [-3, 2], but got 3)");
  EXPECT_EQ(vec(flatten(base, 0, 1).sizes()), (V{6, 4}));
}

// ---- narrow / slice / select ----------------------------------------------------------------------

TEST(View, Narrow) {
  Tensor base = iota({4, 3});
  Tensor n = base.narrow(0, 1, 2);
  EXPECT_EQ(vec(n.sizes()), (V{2, 3}));
  EXPECT_EQ(n.storage_offset(), 3);
  EXPECT_EQ(n.data_ptr<int64_t>(), base.data_ptr<int64_t>() + 3);
  EXPECT_EQ(n.to_vector<int64_t>(), (V{3, 4, 5, 6, 7, 8}));
  Tensor c = base.narrow(-1, -2, 2);
  EXPECT_EQ(c.to_vector<int64_t>(), (V{1, 2, 4, 5, 7, 8, 10, 11}));
  EXPECT_EQ(vec(c.strides()), (V{3, 1}));
  EXPECT_EQ(vec(base.narrow(0, 4, 0).sizes()), (V{0, 3}));  // start == size is valid
  n.fill_(-1);
  EXPECT_EQ(base.to_vector<int64_t>()[3], -1);
}

TEST(View, NarrowErrors) {
  Tensor base = iota({4, 3});
  EXPECT_EQ(error_of<Error>([&] { base.narrow(0, 3, 2); }), "start (3) + length (2) exceeds dimension size (4).");
  EXPECT_EQ(error_of<Error>([&] { base.narrow(0, -1, 2); }), "start (3) + length (2) exceeds dimension size (4).");
  EXPECT_EQ(error_of<Error>([&] { base.narrow(0, 0, -1); }), "start (0) + length (-1) exceeds dimension size (4).");
  EXPECT_EQ(error_of<IndexError>([&] { base.narrow(0, 5, 0); }),
            "Dimension out of range (expected to be in range of [-4, 3], but got 5)");
  EXPECT_EQ(error_of<Error>([&] { tensor(1.0).narrow(0, 0, 1); }), "narrow() cannot be applied to a 0-dim tensor.");
  EXPECT_EQ(error_of<IndexError>([&] { base.narrow(2, 0, 1); }),
            "Dimension out of range (expected to be in range of [-2, 1], but got 2)");
}

TEST(View, SliceFollowsPythonRules) {
  const int64_t n = 5;
  Tensor base = arange(n);
  const std::vector<std::optional<int64_t>> bounds = {std::nullopt, -7, -5, -3, -1, 0, 1, 2, 4, 5, 6, 100,
                                                      std::numeric_limits<int64_t>::min(),
                                                      std::numeric_limits<int64_t>::max()};
  for (auto start : bounds) {
    for (auto stop : bounds) {
      for (int64_t step : {1, 2, 3, 7}) {
        Tensor s = base.slice(0, start, stop, step);
        const V expected = python_slice(n, start, stop, step);
        ASSERT_EQ(s.to_vector<int64_t>(), expected)
            << "start=" << start.value_or(-999) << " stop=" << stop.value_or(-999) << " step=" << step;
        ASSERT_EQ(s.size(0), static_cast<int64_t>(expected.size()));
        if (!expected.empty()) ASSERT_EQ(s.storage_offset(), expected.front());
      }
    }
  }
}

TEST(View, SliceGeometryAndErrors) {
  Tensor base = iota({3, 6});
  Tensor s = base.slice(1, 1, std::nullopt, 2);
  EXPECT_EQ(vec(s.sizes()), (V{3, 3}));
  EXPECT_EQ(vec(s.strides()), (V{6, 2}));
  EXPECT_EQ(s.storage_offset(), 1);
  EXPECT_FALSE(s.is_contiguous());
  EXPECT_EQ(s.to_vector<int64_t>(), (V{1, 3, 5, 7, 9, 11, 13, 15, 17}));
  Tensor whole = base.slice();
  EXPECT_FALSE(whole.is_same(base));
  EXPECT_TRUE(whole.is_contiguous());
  s.fill_(0);
  EXPECT_EQ(base.to_vector<int64_t>()[1], 0);
  EXPECT_EQ(error_of<Error>([&] { base.slice(0, 0, 2, 0); }), "slice step must be positive");
  EXPECT_EQ(error_of<Error>([&] { base.slice(0, 0, 2, -1); }), "slice step must be positive");
  EXPECT_EQ(error_of<IndexError>([&] { tensor(1.0).slice(0, 0, 1); }), "slice() cannot be applied to a 0-dim tensor.");
  EXPECT_EQ(error_of<IndexError>([&] { base.slice(2); }),
            "Dimension out of range (expected to be in range of [-2, 1], but got 2)");
}

TEST(View, Select) {
  Tensor base = iota({2, 3});
  Tensor r = base.select(0, 1);
  EXPECT_EQ(vec(r.sizes()), (V{3}));
  EXPECT_EQ(r.storage_offset(), 3);
  EXPECT_EQ(r.to_vector<int64_t>(), (V{3, 4, 5}));
  Tensor c = base.select(1, -1);
  EXPECT_EQ(vec(c.strides()), (V{3}));
  EXPECT_EQ(c.to_vector<int64_t>(), (V{2, 5}));
  EXPECT_EQ(base[1][2].item<int64_t>(), 5);
  EXPECT_EQ(base[-1].to_vector<int64_t>(), (V{3, 4, 5}));
  EXPECT_EQ(base[0][0].dim(), 0);
  base[0][1].fill_(42);
  EXPECT_EQ(base.to_vector<int64_t>()[1], 42);
  EXPECT_EQ(error_of<IndexError>([&] { arange(3).select(0, 5); }),
            "select(): index 5 out of range for tensor of size [3] at dimension 0");
  EXPECT_EQ(error_of<IndexError>([&] { base.select(-1, -4); }),
            "select(): index -4 out of range for tensor of size [2, 3] at dimension 1");
  EXPECT_EQ(error_of<IndexError>([&] { arange(3)[3]; }),
            "select(): index 3 out of range for tensor of size [3] at dimension 0");
  EXPECT_EQ(error_of<IndexError>([&] { tensor(1.0).select(0, 0); }), "select() cannot be applied to a 0-dim tensor.");
  EXPECT_EQ(error_of<IndexError>([&] { base.select(2, 0); }),
            "Dimension out of range (expected to be in range of [-2, 1], but got 2)");
}

// ---- chunk / split / unbind ------------------------------------------------------------------------

TEST(View, Chunk) {
  Tensor base = arange(5);
  auto parts = base.chunk(3);
  ASSERT_EQ(parts.size(), 3u);
  EXPECT_EQ(parts[0].to_vector<int64_t>(), (V{0, 1}));
  EXPECT_EQ(parts[1].to_vector<int64_t>(), (V{2, 3}));
  EXPECT_EQ(parts[2].to_vector<int64_t>(), (V{4}));
  EXPECT_EQ(parts[2].storage_offset(), 4);
  EXPECT_TRUE(shares_storage(parts[1], base));
  EXPECT_EQ(arange(6).chunk(4).size(), 3u);  // PyTorch may return fewer chunks
  EXPECT_EQ(arange(2).chunk(5).size(), 2u);
  auto cols = iota({2, 4}).chunk(2, -1);
  ASSERT_EQ(cols.size(), 2u);
  EXPECT_EQ(cols[1].to_vector<int64_t>(), (V{2, 3, 6, 7}));
  auto empties = zeros({0, 2}).chunk(3);
  ASSERT_EQ(empties.size(), 3u);
  for (const Tensor& e : empties) EXPECT_EQ(vec(e.sizes()), (V{0, 2}));
  EXPECT_EQ(chunk(base, 5).size(), 5u);
  EXPECT_EQ(error_of<Error>([&] { base.chunk(0); }), "chunk expects `chunks` to be greater than 0, got: 0");
  EXPECT_EQ(error_of<Error>([&] { tensor(1.0).chunk(2); }), "chunk expects at least a 1-dimensional tensor");
  EXPECT_EQ(error_of<IndexError>([&] { base.chunk(2, 1); }),
            "Dimension out of range (expected to be in range of [-1, 0], but got 1)");
}

TEST(View, SplitBySize) {
  Tensor base = iota({5, 2});
  auto parts = base.split(2);
  ASSERT_EQ(parts.size(), 3u);
  EXPECT_EQ(vec(parts[0].sizes()), (V{2, 2}));
  EXPECT_EQ(vec(parts[2].sizes()), (V{1, 2}));
  EXPECT_EQ(parts[2].to_vector<int64_t>(), (V{8, 9}));
  EXPECT_EQ(base.split(10).size(), 1u);
  auto cols = base.split(1, 1);
  ASSERT_EQ(cols.size(), 2u);
  EXPECT_EQ(cols[1].to_vector<int64_t>(), (V{1, 3, 5, 7, 9}));
  EXPECT_EQ(zeros({0}).split(0).size(), 1u);
  EXPECT_EQ(split(base, 4).size(), 2u);
  EXPECT_EQ(error_of<Error>([&] { base.split(0); }),
            "split_size can only be 0 if dimension size is 0, but got dimension size of 5");
  EXPECT_EQ(error_of<Error>([&] { base.split(-1); }), "split expects split_size be non-negative, but got split_size=-1");
  EXPECT_EQ(error_of<Error>([&] { tensor(1.0).split(1); }), "split expects at least a 1-dimensional tensor");
}

TEST(View, SplitWithSizes) {
  Tensor base = arange(6);
  auto parts = base.split(IntArrayRef({1, 0, 3, 2}));
  ASSERT_EQ(parts.size(), 4u);
  EXPECT_EQ(parts[0].to_vector<int64_t>(), (V{0}));
  EXPECT_EQ(parts[1].numel(), 0);
  EXPECT_EQ(parts[2].to_vector<int64_t>(), (V{1, 2, 3}));
  EXPECT_EQ(parts[3].to_vector<int64_t>(), (V{4, 5}));
  EXPECT_EQ(parts[3].storage_offset(), 4);
  Tensor m = iota({2, 3});
  auto cols = m.split(IntArrayRef({2, 1}), -1);
  EXPECT_EQ(cols[0].to_vector<int64_t>(), (V{0, 1, 3, 4}));
  EXPECT_EQ(error_of<Error>([&] { arange(3).split(IntArrayRef({1, 1})); }),
            "split_with_sizes expects split_sizes to sum exactly to 3 (input tensor's size at dimension 0), but got "
            "split_sizes=[1, 1]");
  EXPECT_EQ(error_of<Error>([&] { m.split(IntArrayRef({1, 1}), -1); }),
            "split_with_sizes expects split_sizes to sum exactly to 3 (input tensor's size at dimension -1), but got "
            "split_sizes=[1, 1]");
  EXPECT_EQ(error_of<Error>([&] { arange(3).split(IntArrayRef({2, 2})); }),
            "start (2) + length (2) exceeds dimension size (3).");
  EXPECT_EQ(error_of<Error>([&] { arange(3).split(IntArrayRef({4, -1})); }),
            "start (0) + length (4) exceeds dimension size (3).");
  EXPECT_EQ(error_of<Error>([&] { arange(3).split(IntArrayRef({-1, 4})); }),
            "split_with_sizes expects split_sizes have only non-negative entries, but got split_sizes=[-1, 4]");
}

TEST(View, Unbind) {
  Tensor base = iota({2, 3});
  auto rows = base.unbind();
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[1].to_vector<int64_t>(), (V{3, 4, 5}));
  auto cols = base.unbind(-1);
  ASSERT_EQ(cols.size(), 3u);
  EXPECT_EQ(vec(cols[2].sizes()), (V{2}));
  EXPECT_EQ(cols[2].to_vector<int64_t>(), (V{2, 5}));
  EXPECT_EQ(cols[2].storage_offset(), 2);
  EXPECT_TRUE(zeros({0, 3}).unbind().empty());
  EXPECT_EQ(error_of<IndexError>([&] { tensor(1.0).unbind(); }), "dimension specified as 0 but tensor has no dimensions");
  EXPECT_EQ(error_of<IndexError>([&] { base.unbind(2); }),
            "Dimension out of range (expected to be in range of [-2, 1], but got 2)");
}

// ---- index (Tensor.__getitem__) -----------------------------------------------------------------

TEST(Index, Integers) {
  Tensor base = iota({2, 3});
  Tensor r = base.index({1});
  EXPECT_EQ(r.to_vector<int64_t>(), (V{3, 4, 5}));
  EXPECT_TRUE(shares_storage(r, base));
  EXPECT_EQ(base.index({-1, -1}).item<int64_t>(), 5);
  EXPECT_EQ(base.index({0, 2}).dim(), 0);
  EXPECT_EQ(error_of<IndexError>([&] { arange(3).index({5}); }), "index 5 is out of bounds for dimension 0 with size 3");
  EXPECT_EQ(error_of<IndexError>([&] { arange(3).index({-4}); }),
            "index -4 is out of bounds for dimension 0 with size 3");
  // The dimension reported is the position in the index list.
  EXPECT_EQ(error_of<IndexError>([&] { base.index({None, 0, 5}); }),
            "index 5 is out of bounds for dimension 2 with size 3");
  EXPECT_EQ(error_of<IndexError>([&] { base.index({0, 0, 0}); }), "too many indices for tensor of dimension 2");
  EXPECT_EQ(error_of<IndexError>([&] { tensor(1.0).index({0}); }),
            "invalid index of a 0-dim tensor. Use `tensor.item()` in Python or `tensor.item<T>()` in C++ to convert a "
            "0-dim tensor to a number");
}

TEST(Index, Slices) {
  Tensor base = iota({4, 5});
  Tensor s = base.index({Slice(1, 3), Slice(None, None, 2)});
  EXPECT_EQ(vec(s.sizes()), (V{2, 3}));
  EXPECT_EQ(vec(s.strides()), (V{5, 2}));
  EXPECT_EQ(s.storage_offset(), 5);
  EXPECT_EQ(s.to_vector<int64_t>(), (V{5, 7, 9, 10, 12, 14}));
  EXPECT_EQ(base.index({Slice(-2)}).to_vector<int64_t>()[0], 10);
  EXPECT_EQ(vec(base.index({Slice(10, 20)}).sizes()), (V{0, 5}));
  EXPECT_EQ(vec(base.index({Slice(), 1}).sizes()), (V{4}));
  EXPECT_EQ(base.index({Slice(), 1}).to_vector<int64_t>(), (V{1, 6, 11, 16}));
  Tensor whole = base.index({Slice()});
  EXPECT_FALSE(whole.is_same(base));
  EXPECT_EQ(whole.data_ptr(), base.data_ptr());
  EXPECT_EQ(error_of<ValueError>([&] { base.index({Slice(None, None, 0)}); }), "slice step cannot be zero");
  EXPECT_EQ(error_of<ValueError>([&] { base.index({Slice(None, None, -1)}); }), "step must be greater than zero");
  EXPECT_EQ(error_of<ValueError>([&] { base.index({0, Slice(None, None, -2)}); }), "step must be greater than zero");
  EXPECT_EQ(error_of<IndexError>([&] { base.index({Slice(), Slice(), Slice()}); }),
            "too many indices for tensor of dimension 2");
}

TEST(Index, NoneAndEllipsis) {
  Tensor base = iota({2, 3, 4});
  EXPECT_EQ(vec(base.index({None}).sizes()), (V{1, 2, 3, 4}));
  Tensor e = base.index({Ellipsis});
  EXPECT_FALSE(e.is_same(base));
  EXPECT_TRUE(shares_storage(e, base));
  EXPECT_EQ(vec(e.sizes()), (V{2, 3, 4}));
  Tensor last = base.index({Ellipsis, 1});
  EXPECT_EQ(vec(last.sizes()), (V{2, 3}));
  EXPECT_EQ(last.to_vector<int64_t>(), (V{1, 5, 9, 13, 17, 21}));
  EXPECT_EQ(vec(base.index({0, Ellipsis}).sizes()), (V{3, 4}));
  EXPECT_EQ(vec(base.index({None, Ellipsis, None}).sizes()), (V{1, 2, 3, 4, 1}));
  EXPECT_EQ(vec(base.index({1, None, Slice(1), Ellipsis, None, 2}).sizes()), (V{1, 2, 1}));
  EXPECT_EQ(base.index({1, None, Slice(1), Ellipsis, None, 2}).to_vector<int64_t>(), (V{18, 22}));
  EXPECT_EQ(vec(base.index({Slice(), None, 0}).sizes()), (V{2, 1, 4}));
  Tensor u = base.index({None, None});
  EXPECT_EQ(vec(u.sizes()), (V{1, 1, 2, 3, 4}));
  // Tensor::index is libtorch's method (Python has x[()] instead): an empty list is an error.
  EXPECT_EQ(error_of([&] { base.index({}); }), "Passing an empty index list to Tensor::index() is not valid syntax");
  EXPECT_EQ(error_of([&] { base.index_put_({}, 1); }),
            "Passing an empty index list to Tensor::index_put_() is not valid syntax");
  // 0-dim tensors accept None and Ellipsis.
  Tensor s = tensor(3.0);
  EXPECT_EQ(vec(s.index({None}).sizes()), (V{1}));
  EXPECT_EQ(s.index({Ellipsis}).dim(), 0);
  EXPECT_EQ(error_of<IndexError>([&] { s.index({None, 0}); }), "too many indices for tensor of dimension 0");
}

TEST(Index, ResultIsAWritableView) {
  Tensor base = zeros({3, 4});
  Tensor v = base.index({Slice(1), Slice(None, None, 3)});
  v.fill_(1);
  EXPECT_EQ(base.to_vector<float>(), (std::vector<float>{0, 0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1}));
}

// ---- index_put_ (Tensor.__setitem__) ---------------------------------------------------------------

TEST(Index, PutTensorSameShape) {
  Tensor base = zeros({2, 3});
  const uint32_t version = base._version();
  Tensor& ret = base.index_put_({1}, tensor({1.0, 2.0, 3.0}));
  EXPECT_EQ(&ret, &base);
  EXPECT_EQ(base.to_vector<float>(), (std::vector<float>{0, 0, 0, 1, 2, 3}));
  EXPECT_GT(base._version(), version);
}

TEST(Index, PutBroadcastsAndConverts) {
  Tensor base = zeros({3, 4}, TensorOptions().dtype(kInt32));
  base.index_put_({Slice(), Slice(1, 3)}, tensor({{7}, {8}, {9}}));  // [3,1] -> [3,2]
  EXPECT_EQ(base.to_vector<int32_t>(), (std::vector<int32_t>{0, 7, 7, 0, 0, 8, 8, 0, 0, 9, 9, 0}));
  // Leading 1s of the value are stripped (numpy rule): [1,1,4] into a [4] row.
  base.index_put_({0}, tensor({{{1, 2, 3, 4}}}));
  EXPECT_EQ(base.index({0}).to_vector<int32_t>(), (std::vector<int32_t>{1, 2, 3, 4}));
  // Float values are converted to the destination dtype.
  base.index_put_({2, Ellipsis}, tensor({1.5, 2.5, 3.5, 4.5}));
  EXPECT_EQ(base.index({2}).to_vector<int32_t>(), (std::vector<int32_t>{1, 2, 3, 4}));
  // A 0-dim tensor value fills.
  base.index_put_({Ellipsis, -1}, tensor(5));
  EXPECT_EQ(base.index({Slice(), 3}).to_vector<int32_t>(), (std::vector<int32_t>{5, 5, 5}));
  base.index_put_({None}, tensor(0));
  EXPECT_EQ(base.to_vector<int32_t>(), std::vector<int32_t>(12, 0));
}

TEST(Index, PutScalar) {
  Tensor base = zeros({2, 3});
  const uint32_t version = base._version();
  base.index_put_({Slice(), 0}, 4.5);
  EXPECT_EQ(base.to_vector<float>(), (std::vector<float>{4.5, 0, 0, 4.5, 0, 0}));
  EXPECT_GT(base._version(), version);
  base.index_put_({1, 2}, 9);
  EXPECT_EQ(base.to_vector<float>()[5], 9.0f);
  base.index_put_({Ellipsis}, -1);
  EXPECT_EQ(base.to_vector<float>(), std::vector<float>(6, -1.0f));
  Tensor ints = zeros({3}, TensorOptions().dtype(kInt64));
  ints.index_put_({Slice(1)}, 2.7);  // converted to self's dtype
  EXPECT_EQ(ints.to_vector<int64_t>(), (V{0, 2, 2}));
  Tensor s = tensor(1.0);
  s.index_put_({Ellipsis}, 3.0);
  EXPECT_EQ(s.item<double>(), 3.0);
}

TEST(Index, PutOverlappingSource) {
  // PyTorch 1.13: x[1:] = x[:2] raises the partial-overlap error and changes nothing.
  Tensor base = iota({3, 2});
  EXPECT_THROW(base.index_put_({Slice(1)}, base.index({Slice(None, 2)})), Error);
  EXPECT_EQ(base.to_vector<int64_t>(), (V{0, 1, 2, 3, 4, 5}));
  base.index_put_({Slice(1)}, base.index({Slice(None, 2)}).clone());
  EXPECT_EQ(base.to_vector<int64_t>(), (V{0, 1, 0, 1, 2, 3}));
}

TEST(Index, FailedPutModifiesNothing) {
  Tensor base = iota({2, 3});
  const V before = base.to_vector<int64_t>();
  const uint32_t version = base._version();
  EXPECT_EQ(error_of<Error>([&] { base.index_put_({0}, tensor({1, 2})); }),
            "The expanded size of the tensor (3) must match the existing size (2) at non-singleton dimension 0.  "
            "Target sizes: [3].  Tensor sizes: [2]");
  EXPECT_EQ(error_of<Error>([&] { base.index_put_({0}, tensor({{1, 2, 3}, {4, 5, 6}})); }),
            "expand(torch.LongTensor{[2, 3]}, size=[3]): the number of sizes provided (1) must be greater or equal to "
            "the number of dimensions in the tensor (2)");
  EXPECT_EQ(error_of<IndexError>([&] { base.index_put_({1, 3}, tensor(1)); }),
            "index 3 is out of bounds for dimension 1 with size 3");
  EXPECT_EQ(error_of<IndexError>([&] { base.index_put_({0, 0, 0}, 1); }), "too many indices for tensor of dimension 2");
  EXPECT_EQ(error_of<ValueError>([&] { base.index_put_({Slice(None, None, -1)}, 1); }),
            "step must be greater than zero");
  EXPECT_EQ(base.to_vector<int64_t>(), before);
  EXPECT_EQ(base._version(), version);
}

TEST(Index, BooleansAddASizeOneOrAnEmptyDim) {
  Tensor base = iota({2, 3});
  EXPECT_EQ(vec(base.index({true}).sizes()), (V{1, 2, 3}));
  EXPECT_EQ(vec(base.index({false}).sizes()), (V{0, 2, 3}));
  EXPECT_EQ(vec(base.index({0, true, Slice()}).sizes()), (V{1, 3}));
  EXPECT_EQ(base.index({0, true, Slice()}).to_vector<int64_t>(), (V{0, 1, 2}));
  EXPECT_EQ(vec(base.index({Ellipsis, false}).sizes()), (V{2, 3, 0}));
  base.index_put_({1, true}, 7);  // writes all of row 1
  EXPECT_EQ(base.index({1}).to_vector<int64_t>(), (V{7, 7, 7}));
  base.index_put_({0, false}, 9);  // writes nothing
  EXPECT_EQ(base.index({0}).to_vector<int64_t>(), (V{0, 1, 2}));
}

TEST(Index, LibtorchIndexValues) {
  // "..." is Ellipsis; other text is PyTorch's ValueError. Slices read back libtorch's bounds.
  const std::vector<TensorIndex> indices = {None, "...", Ellipsis, 0, true, Slice(1, None, 2)};
  EXPECT_TRUE(indices[1].is_ellipsis());
  EXPECT_TRUE(indices[4].is_boolean() && indices[4].boolean());
  EXPECT_EQ(indices[5].slice().stop(), INDEX_MAX);
  std::ostringstream os;
  os << ArrayRef<TensorIndex>(indices);
  EXPECT_EQ(os.str(), "(None, ..., ..., 0, true, 1:9223372036854775807:2)");
  EXPECT_EQ(error_of<ValueError>([] { TensorIndex bad(".."); }),
            "Expected \"...\" to represent an ellipsis index, but got \"..\"");
  EXPECT_EQ(Slice(None, None, -1).start(), INDEX_MAX);
  EXPECT_EQ(Slice(None, None, -1).stop(), INDEX_MIN);
  Tensor base = iota({4});
  EXPECT_EQ(base.index(ArrayRef<TensorIndex>(indices.data() + 5, 1)).to_vector<int64_t>(), (V{1, 3}));
}

TEST(Index, AssigningToATemporaryWritesThrough) {
  Tensor base = iota({2, 2});
  base[0][1] = 5;  // rvalue assignment fills, as t[0][1] = 5 in Python and libtorch
  base[1] = tensor({8, 9});
  EXPECT_EQ(base.to_vector<int64_t>(), (V{0, 5, 8, 9}));
  Tensor handle = base;
  handle = tensor({1});  // an lvalue handle is rebound, the data stays
  EXPECT_EQ(base.to_vector<int64_t>(), (V{0, 5, 8, 9}));
}
