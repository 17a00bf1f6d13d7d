// mm, bmm, addmm, matmul and linear against a naive double-precision reference, for every dtype and
// layout; PyTorch 1.13's errors; the cpu gemm kernel's contract; OpenBLAS thread alignment.
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "ctorch/ctorch.h"
#include "ops/kernel_table.h"

using namespace ctorch;

namespace {

const ScalarType kAllDtypes[] = {kUInt8, kInt8, kInt16, kInt32, kInt64, kHalf, kFloat, kDouble, kBool, kBFloat16};

int64_t numel_of(IntArrayRef sizes) {
  int64_t n = 1;
  for (int64_t s : sizes) n *= s;
  return n;
}

// A contiguous tensor of `sizes` with small integer values (exact in every dtype and in every sum below).
Tensor make(IntArrayRef sizes, ScalarType dtype, uint32_t seed) {
  std::mt19937 gen(seed);
  const bool is_unsigned = dtype == kUInt8 || dtype == kBool;
  std::uniform_int_distribution<int> dist(is_unsigned ? 0 : -3, dtype == kBool ? 1 : 3);
  Tensor host = empty(sizes, TensorOptions(kDouble));
  double* p = host.data_ptr<double>();
  for (int64_t i = 0; i < host.numel(); ++i) p[i] = dist(gen);
  return host.to(dtype);
}

// `values` (row-major for `sizes`) written into a fresh buffer with the given strides, seen through as_strided.
Tensor with_strides(const Tensor& values, IntArrayRef strides, int64_t offset = 3) {
  const IntArrayRef sizes = values.sizes();
  int64_t extent = offset + 1;
  for (size_t i = 0; i < sizes.size(); ++i) extent += (sizes[i] - 1) * strides[i];
  Tensor base = full({extent}, 7, values.options());
  Tensor view = base.as_strided(sizes, strides, offset);
  view.copy_(values);
  return view;
}

// Strides of a tensor of `sizes` whose last two dims are stored transposed (column-major matrices).
std::vector<int64_t> transposed_strides(IntArrayRef sizes) {
  const size_t n = sizes.size();
  std::vector<int64_t> st(n);
  const int64_t rows = sizes[n - 2], cols = sizes[n - 1];
  st[n - 2] = 1;
  st[n - 1] = rows;
  int64_t s = rows * cols;
  for (size_t i = n - 2; i-- > 0;) {
    st[i] = s;
    s *= sizes[i];
  }
  return st;
}

// Strides with padded rows (leading dim cols + 5) and a padded batch.
std::vector<int64_t> padded_strides(IntArrayRef sizes) {
  const size_t n = sizes.size();
  std::vector<int64_t> st(n);
  st[n - 1] = 1;
  st[n - 2] = sizes[n - 1] + 5;
  int64_t s = sizes[n - 2] * st[n - 2] + 11;
  for (size_t i = n - 2; i-- > 0;) {
    st[i] = s;
    s *= sizes[i];
  }
  return st;
}

// Strides where neither matrix dim has unit stride (every other element): BLAS cannot read it directly.
std::vector<int64_t> gapped_strides(IntArrayRef sizes) {
  const size_t n = sizes.size();
  std::vector<int64_t> st(n);
  st[n - 1] = 2;
  st[n - 2] = 2 * sizes[n - 1] + 1;
  int64_t s = sizes[n - 2] * st[n - 2];
  for (size_t i = n - 2; i-- > 0;) {
    st[i] = s;
    s *= sizes[i];
  }
  return st;
}

struct Ref {
  std::vector<int64_t> shape;
  std::vector<double> values;
};

// torch.matmul in double, written independently of the library (1-D promotion, batch broadcasting).
Ref reference_matmul(const Tensor& a, const Tensor& b, bool logical = false) {
  const std::vector<double> av = a.to(kDouble).to_vector<double>(), bv = b.to(kDouble).to_vector<double>();
  std::vector<int64_t> as(a.sizes().begin(), a.sizes().end()), bs(b.sizes().begin(), b.sizes().end());
  const bool a_vec = as.size() == 1, b_vec = bs.size() == 1;
  if (a_vec) as.insert(as.begin(), 1);
  if (b_vec) bs.push_back(1);
  const int64_t m = as[as.size() - 2], k = as.back(), n = bs.back();
  EXPECT_EQ(k, bs[bs.size() - 2]);
  std::vector<int64_t> ab(as.begin(), as.end() - 2), bb(bs.begin(), bs.end() - 2);
  const size_t nb = std::max(ab.size(), bb.size());
  ab.insert(ab.begin(), nb - ab.size(), 1);
  bb.insert(bb.begin(), nb - bb.size(), 1);
  std::vector<int64_t> batch(nb);
  for (size_t i = 0; i < nb; ++i) batch[i] = std::max(ab[i], bb[i]);
  Ref r;
  r.shape = batch;
  if (!a_vec) r.shape.push_back(m);
  if (!b_vec) r.shape.push_back(n);
  const int64_t batches = numel_of(batch);
  r.values.assign(static_cast<size_t>(batches * m * n), 0.0);
  for (int64_t p = 0; p < batches; ++p) {
    int64_t rem = p, oa = 0, ob = 0, sa = 1, sb = 1;
    for (size_t i = nb; i-- > 0;) {
      const int64_t idx = rem % batch[i];
      rem /= batch[i];
      oa += (ab[i] == 1 ? 0 : idx) * sa;
      ob += (bb[i] == 1 ? 0 : idx) * sb;
      sa *= ab[i];
      sb *= bb[i];
    }
    for (int64_t i = 0; i < m; ++i) {
      for (int64_t j = 0; j < n; ++j) {
        double acc = 0;
        for (int64_t q = 0; q < k; ++q) {
          const double x = av[oa * m * k + i * k + q], y = bv[ob * k * n + q * n + j];
          acc = logical ? (acc != 0 || (x != 0 && y != 0)) : acc + x * y;
        }
        r.values[p * m * n + i * n + j] = acc;
      }
    }
  }
  return r;
}

// Checks `got` against the reference product of a and b (exact for the small integers of make()).
void expect_matches(const Tensor& got, const Tensor& a, const Tensor& b, const std::string& what) {
  const Ref r = reference_matmul(a, b, got.dtype() == kBool);
  ASSERT_EQ(got.sizes(), IntArrayRef(r.shape)) << what;
  EXPECT_EQ(got.dtype(), a.dtype()) << what;
  EXPECT_TRUE(got.is_contiguous()) << what;
  // The exact result stored in the dtype: integers wrap (through int64), half types round once.
  const Tensor exact = tensor(r.values, TensorOptions(kDouble));
  const Tensor stored = is_integral(got.dtype(), false) ? exact.to(kInt64).to(got.dtype()) : exact.to(got.dtype());
  const std::vector<double> v = got.to(kDouble).to_vector<double>(), e = stored.to(kDouble).to_vector<double>();
  for (size_t i = 0; i < v.size(); ++i) {
    ASSERT_EQ(v[i], e[i]) << what << " at flat index " << i << " (unrounded " << r.values[i] << ")";
  }
}

// Same sizes and the same values (compared in double).
bool same_values(const Tensor& a, const Tensor& b) {
  return a.sizes() == b.sizes() && a.to(kDouble).to_vector<double>() == b.to(kDouble).to_vector<double>();
}

std::string describe(ScalarType t) { return scalar_type_name(t); }

// The message of the ctorch::Error (exactly that class) thrown by f, or a marker when none or another type is thrown.
std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    if (typeid(e) != typeid(Error)) return std::string("wrong error class: ") + e.what();
    return e.what();
  } catch (...) {
    return "non-ctorch exception";
  }
  return "no error";
}

}  // namespace

// ---- values ---------------------------------------------------------------------------------------------

TEST(LinalgMm, MatchesReferenceForEveryDtype) {
  const std::vector<std::vector<int64_t>> shapes = {{5, 7, 3}, {1, 9, 4}, {6, 8, 1}, {1, 300, 1}, {70, 300, 260}};
  for (ScalarType dt : kAllDtypes) {
    for (const auto& s : shapes) {
      const Tensor a = make({s[0], s[1]}, dt, 1), b = make({s[1], s[2]}, dt, 2);
      expect_matches(a.mm(b), a, b, describe(dt) + " " + std::to_string(s[0]) + "x" + std::to_string(s[1]) + "x" +
                                       std::to_string(s[2]));
    }
  }
}

TEST(LinalgMm, TransposedPaddedAndGappedLayouts) {
  using Strides = std::function<std::vector<int64_t>(IntArrayRef)>;
  const std::vector<std::pair<const char*, Strides>> layouts = {
      {"contiguous", [](IntArrayRef s) { return std::vector<int64_t>{s[1], 1}; }},
      {"transposed", transposed_strides},
      {"padded", padded_strides},
      {"gapped", gapped_strides}};
  const std::vector<std::vector<int64_t>> shapes = {{9, 13, 11}, {1, 13, 11}, {9, 13, 1}, {1, 13, 1}, {65, 70, 80}};
  for (ScalarType dt : {kFloat, kDouble, kHalf, kBFloat16, kInt32, kBool}) {
    for (const auto& s : shapes) {
      const Tensor a0 = make({s[0], s[1]}, dt, 3), b0 = make({s[1], s[2]}, dt, 4);
      for (const auto& [la, fa] : layouts) {
        for (const auto& [lb, fb] : layouts) {
          const Tensor a = with_strides(a0, fa(a0.sizes())), b = with_strides(b0, fb(b0.sizes()));
          expect_matches(a.mm(b), a0, b0,
                         describe(dt) + " " + la + "@" + lb + " m=" + std::to_string(s[0]) + " n=" + std::to_string(s[2]));
        }
      }
    }
  }
}

TEST(LinalgMm, BroadcastStrideZeroOperands) {
  // Rows or columns that repeat one element (stride 0) are valid inputs; BLAS cannot read them directly.
  const Tensor row = make({6}, kFloat, 5), col = make({6}, kFloat, 6);
  const Tensor a = row.as_strided({4, 6}, {0, 1});  // every row the same
  const Tensor b = col.as_strided({6, 3}, {1, 0});  // every column the same
  expect_matches(a.mm(b), a.contiguous(), b.contiguous(), "stride-0 operands");
}

TEST(LinalgMm, HalfTypesAccumulateInFloat) {
  // 300 * 1.0078125 = 302.34: float accumulation then one rounding gives 302; summing in bfloat16 would stall.
  const Tensor a = full({1, 300}, 1.01, TensorOptions(kBFloat16)), b = ones({300, 1}, TensorOptions(kBFloat16));
  EXPECT_EQ(a.mm(b).item<double>(), 302.0);
  // Large enough for the widen-and-sgemm path: 1 + 2^-10 is exact in half, 2048 of them sum to 2050.
  const Tensor h = full({64, 2048}, 1.0 + 1.0 / 1024, TensorOptions(kHalf));
  const Tensor ones_h = ones({2048, 64}, TensorOptions(kHalf));
  const std::vector<double> v = h.mm(ones_h).to(kDouble).to_vector<double>();
  for (double x : v) ASSERT_EQ(x, 2050.0);
  // Same through the blocked loop (small volume).
  const Tensor h1 = full({1, 2048}, 1.0 + 1.0 / 1024, TensorOptions(kHalf));
  EXPECT_EQ(h1.mm(ones({2048, 1}, TensorOptions(kHalf))).item<double>(), 2050.0);
}

TEST(LinalgMm, IntegersWrapInTheirWidth) {
  // PyTorch: 200 * 2 * 3 = 1200 = 176 (mod 256); 100 * 2 * 3 = 600 = 88 (mod 256, as int8).
  EXPECT_EQ(full({1, 3}, 200, TensorOptions(kUInt8)).mm(full({3, 1}, 2, TensorOptions(kUInt8))).item<int64_t>(), 176);
  EXPECT_EQ(full({1, 3}, 100, TensorOptions(kInt8)).mm(full({3, 1}, 2, TensorOptions(kInt8))).item<int64_t>(), 88);
  EXPECT_EQ(full({1, 4}, 30000, TensorOptions(kInt16)).mm(full({4, 1}, 3, TensorOptions(kInt16))).item<int64_t>(),
            static_cast<int16_t>(360000 & 0xffff));
  const int64_t big = int64_t{1} << 20;
  EXPECT_EQ(full({1, 5}, big, TensorOptions(kInt32)).mm(full({5, 1}, big, TensorOptions(kInt32))).item<int64_t>(), 0);
  EXPECT_EQ(full({1, 3}, int64_t{1} << 62, TensorOptions(kInt64)).mm(full({3, 1}, 2, TensorOptions(kInt64))).item<int64_t>(),
            std::numeric_limits<int64_t>::min());
}

TEST(LinalgMm, BoolIsLogical) {
  const Tensor a = tensor({{1, 0, 0}, {0, 0, 0}, {1, 1, 0}}).to(kBool);
  const Tensor b = tensor({{0, 1}, {1, 1}, {1, 0}}).to(kBool);
  const Tensor c = a.mm(b);
  EXPECT_EQ(c.dtype(), kBool);
  EXPECT_EQ(c.to(kInt64).to_vector<int64_t>(), (std::vector<int64_t>{0, 1, 0, 0, 1, 1}));
}

TEST(LinalgMm, NaNPropagatesThroughZeros) {
  // As BLAS: 0 * NaN is NaN (no skipping of zero entries).
  const Tensor nan = full({2, 2}, std::nan(""));
  for (ScalarType dt : {kFloat, kDouble, kHalf}) {
    for (double v : zeros({2, 2}, TensorOptions(dt)).mm(nan.to(dt)).to(kDouble).to_vector<double>()) {
      EXPECT_TRUE(std::isnan(v)) << describe(dt);
    }
  }
}

TEST(LinalgBmm, MatchesReferenceWithBatchLayouts) {
  for (ScalarType dt : {kFloat, kDouble, kHalf, kInt64, kBool}) {
    for (const auto& s : std::vector<std::vector<int64_t>>{{4, 3, 5, 2}, {3, 1, 7, 1}, {2, 70, 40, 90}, {300, 4, 4, 4}}) {
      const Tensor a0 = make({s[0], s[1], s[2]}, dt, 7), b0 = make({s[0], s[2], s[3]}, dt, 8);
      expect_matches(a0.bmm(b0), a0, b0, describe(dt) + " contiguous");
      const Tensor at = with_strides(a0, transposed_strides(a0.sizes()));
      const Tensor bp = with_strides(b0, padded_strides(b0.sizes()));
      expect_matches(at.bmm(bp), a0, b0, describe(dt) + " transposed@padded");
      // Batch dim in the middle of memory: (b, m, k) stored as (m, b, k).
      const std::vector<int64_t> mid = {s[2], s[0] * s[2], 1};
      expect_matches(with_strides(a0, mid).bmm(with_strides(b0, gapped_strides(b0.sizes()))), a0, b0,
                     describe(dt) + " batch-in-middle@gapped");
    }
  }
}

TEST(LinalgMatmul, EveryShapeCase) {
  const std::vector<std::pair<std::vector<int64_t>, std::vector<int64_t>>> cases = {
      {{5}, {5}},                    // dot
      {{3, 5}, {5}},                 // mv
      {{5}, {5, 4}},                 // vector @ matrix
      {{3, 5}, {5, 4}},              // mm
      {{2, 3, 5}, {5}},              // folded mv
      {{5}, {2, 5, 4}},              // vector @ batch
      {{2, 3, 5}, {5, 4}},           // folded mm
      {{3, 5}, {2, 5, 4}},           // matrix @ batch
      {{2, 3, 5}, {2, 5, 4}},        // bmm
      {{2, 1, 3, 5}, {4, 5, 2}},     // broadcast batch
      {{1, 3, 5}, {6, 5, 2}},        // broadcast size-1 batch
      {{2, 2, 2, 5}, {5}},           // 4-D @ 1-D
      {{5}, {2, 2, 5, 3}},           // 1-D @ 4-D
      {{2, 1, 3, 1, 2, 3}, {1, 4, 1, 5, 3, 2}},  // 6-D broadcast
      {{3, 4, 70, 33}, {33, 65}},    // folded, several batch dims
  };
  for (ScalarType dt : {kFloat, kDouble, kBFloat16, kInt32}) {
    for (const auto& [sa, sb] : cases) {
      const Tensor a = make(sa, dt, 9), b = make(sb, dt, 10);
      std::string what = describe(dt) + " " + std::to_string(sa.size()) + "D@" + std::to_string(sb.size()) + "D";
      expect_matches(a.matmul(b), a, b, what);
      expect_matches(matmul(a, b), a, b, what + " (free function)");
      if (sa.size() >= 2 && sb.size() >= 2) {
        expect_matches(with_strides(a, transposed_strides(a.sizes())).matmul(with_strides(b, padded_strides(b.sizes()))),
                       a, b, what + " transposed@padded");
      }
    }
  }
  // 1-D @ 1-D is 0-dim.
  EXPECT_EQ(make({5}, kFloat, 1).matmul(make({5}, kFloat, 2)).dim(), 0);
}

TEST(LinalgMatmul, NonFoldableAndExpandedOperands) {
  // PyTorch's fold exception: a permuted 3-D left operand with a 2-D right operand goes through bmm.
  const Tensor a0 = make({2, 4, 3}, kFloat, 11);
  const Tensor a = with_strides(a0, {12, 1, 4});  // (2, 4, 3) stored as permute(0, 2, 1) of (2, 3, 4)
  const Tensor b = make({3, 5}, kFloat, 12);
  expect_matches(a.matmul(b), a0, b, "permuted @ matrix");
  // Batch strides that do not chain onto the rows (sliced batch) cannot fold; the product is still right.
  const Tensor big = make({6, 4, 3}, kFloat, 13);
  const Tensor sliced = big.as_strided({3, 4, 3}, {24, 3, 1});
  expect_matches(sliced.matmul(b), sliced.contiguous(), b, "sliced batch @ matrix");
  // An operand expanded along the batch (stride 0) is read in place.
  const Tensor m = make({4, 3}, kFloat, 14);
  const Tensor expanded = m.as_strided({5, 4, 3}, {0, 3, 1});
  const Tensor rhs = make({5, 3, 2}, kFloat, 15);
  expect_matches(expanded.matmul(rhs), expanded.contiguous(), rhs, "expanded @ batch");
  // Both operands broadcast along the same batch dim of size 1 vs 3.
  const Tensor l = make({3, 1, 4, 3}, kFloat, 16), r = make({1, 2, 3, 5}, kFloat, 17);
  expect_matches(l.matmul(r), l, r, "two-sided broadcast");
}

TEST(LinalgAddmm, BetaAlphaAndBroadcastSelf) {
  const Tensor m1 = make({4, 6}, kFloat, 20), m2 = make({6, 5}, kFloat, 21);
  const Ref r = reference_matmul(m1, m2);
  for (const Tensor& self : {make({4, 5}, kFloat, 22), make({5}, kFloat, 23), make({4, 1}, kFloat, 24),
                             full({}, 2.5), make({1, 5}, kFloat, 25)}) {
    for (auto [beta, alpha] : std::vector<std::pair<double, double>>{{1, 1}, {0.5, 2}, {0, 3}, {-1, 0.25}}) {
      const Tensor out = self.addmm(m1, m2, beta, alpha);
      ASSERT_EQ(out.sizes(), IntArrayRef({4, 5}));
      const std::vector<double> sv = self.to(kDouble).contiguous().to_vector<double>();
      const std::vector<double> got = out.to(kDouble).to_vector<double>();
      for (int64_t i = 0; i < 4; ++i) {
        for (int64_t j = 0; j < 5; ++j) {
          // self broadcast to (4, 5)
          double s = 0;
          if (self.dim() == 0) s = sv[0];
          else if (self.dim() == 1) s = sv[j];
          else s = sv[(self.size(0) == 1 ? 0 : i) * self.size(1) + (self.size(1) == 1 ? 0 : j)];
          const double expected = beta * s + alpha * r.values[i * 5 + j];
          EXPECT_NEAR(got[i * 5 + j], expected, 1e-5) << "beta " << beta << " alpha " << alpha;
        }
      }
    }
  }
  // The free function.
  EXPECT_TRUE(same_values(addmm(zeros({4, 5}), m1, m2), m1.mm(m2)));
}

TEST(LinalgAddmm, BetaZeroIgnoresSelfAndAlphaZeroIgnoresMatrices) {
  const Tensor nan_self = full({2, 5}, std::nan(""));
  for (ScalarType dt : {kFloat, kDouble, kHalf, kBFloat16}) {
    const Tensor m1 = ones({2, 3}, TensorOptions(dt)), m2 = ones({3, 5}, TensorOptions(dt));
    for (double v : nan_self.to(dt).addmm(m1, m2, 0).to(kDouble).to_vector<double>()) EXPECT_EQ(v, 3.0) << describe(dt);
    // k == 0 and beta == 0: zeros, even over NaN.
    for (double v : nan_self.to(dt).addmm(ones({2, 0}, TensorOptions(dt)), ones({0, 5}, TensorOptions(dt)), 0)
                        .to(kDouble).to_vector<double>()) {
      EXPECT_EQ(v, 0.0) << describe(dt);
    }
    // alpha == 0: NaN matrices are not read, result is beta * self (PyTorch/OpenBLAS).
    const Tensor nan_m = full({2, 2}, std::nan(""), TensorOptions(dt));
    for (double v : ones({2, 2}, TensorOptions(dt)).addmm(nan_m, nan_m, 1, 0).to(kDouble).to_vector<double>()) {
      EXPECT_EQ(v, 1.0) << describe(dt);
    }
  }
  // 1x1, 1xn and mx1 results (dot and gemv paths) too.
  for (auto [m, n] : std::vector<std::pair<int64_t, int64_t>>{{1, 1}, {1, 5}, {5, 1}}) {
    const Tensor out = full({m, n}, std::nan("")).addmm(ones({m, 3}), ones({3, n}), 0);
    for (double v : out.to_vector<double>()) EXPECT_EQ(v, 3.0) << m << "x" << n;
  }
}

TEST(LinalgAddmm, IntegerScalarsTruncate) {
  // PyTorch 1.13: addmm(int, beta=0.5, alpha=2.7) uses beta 0 and alpha 2; beta=1.5 is 1.
  const Tensor self = arange(10, TensorOptions(kInt32)).as_strided({2, 5}, {5, 1});
  const Tensor m1 = ones({2, 3}, TensorOptions(kInt32)), m2 = ones({3, 5}, TensorOptions(kInt32));
  EXPECT_EQ(self.addmm(m1, m2, 0.5, 2.7).to_vector<int32_t>(), std::vector<int32_t>(10, 6));
  EXPECT_EQ(self.addmm(m1, m2, 1.5, 1).to_vector<int32_t>(),
            (std::vector<int32_t>{3, 4, 5, 6, 7, 8, 9, 10, 11, 12}));
  // bool scalars on floats.
  EXPECT_EQ(ones({2, 5}).addmm(ones({2, 3}), ones({3, 5}), true, 3).to_vector<float>(), std::vector<float>(10, 10));
}

TEST(LinalgEmpty, ZeroSizedDims) {
  for (ScalarType dt : kAllDtypes) {
    const TensorOptions o(dt);
    EXPECT_EQ(ones({0, 3}, o).mm(ones({3, 5}, o)).sizes(), IntArrayRef({0, 5}));
    EXPECT_EQ(ones({2, 3}, o).mm(ones({3, 0}, o)).sizes(), IntArrayRef({2, 0}));
    const Tensor k0 = ones({2, 0}, o).mm(ones({0, 5}, o));
    ASSERT_EQ(k0.sizes(), IntArrayRef({2, 5}));
    for (double v : k0.to(kDouble).to_vector<double>()) EXPECT_EQ(v, 0.0) << describe(dt);
    for (double v : ones({2, 3, 0}, o).bmm(ones({2, 0, 4}, o)).to(kDouble).to_vector<double>()) EXPECT_EQ(v, 0.0);
    EXPECT_EQ(ones({0, 2, 3}, o).matmul(ones({3, 4}, o)).sizes(), IntArrayRef({0, 2, 4}));
    EXPECT_EQ(ones({2, 3}, o).matmul(ones({0, 3, 4}, o)).sizes(), IntArrayRef({0, 2, 4}));
    EXPECT_EQ(ones({2, 0, 3, 4}, o).matmul(ones({4, 5}, o)).sizes(), IntArrayRef({2, 0, 3, 5}));
    EXPECT_EQ(ones({0}, o).matmul(ones({0}, o)).item<double>(), 0.0);
    EXPECT_EQ(ones({0}, o).matmul(ones({0, 3}, o)).to(kDouble).to_vector<double>(), std::vector<double>(3, 0.0));
  }
  // addmm with k == 0: beta * self.
  const Tensor out = full({2, 5}, 3.0).addmm(ones({2, 0}), ones({0, 5}), 2, 5);
  EXPECT_EQ(out.to_vector<float>(), std::vector<float>(10, 6.0f));
  EXPECT_EQ(ones({5}).addmm(ones({0, 3}), ones({3, 5})).sizes(), IntArrayRef({0, 5}));
}

TEST(LinalgLinear, MatchesMatmulPlusBias) {
  const Tensor w = make({5, 4}, kFloat, 30), bias = make({5}, kFloat, 31);
  auto expected = [&](const Tensor& x, bool with_bias) {
    Tensor r = x.contiguous().matmul(w.contiguous().as_strided({4, 5}, {1, 4}).contiguous());
    return with_bias ? r + bias : r;
  };
  for (const auto& shape : std::vector<std::vector<int64_t>>{{4}, {3, 4}, {2, 3, 4}, {2, 2, 3, 4}}) {
    const Tensor x = make(shape, kFloat, 32);
    EXPECT_TRUE(same_values(linear(x, w, bias), expected(x, true))) << shape.size() << "-D with bias";
    EXPECT_TRUE(same_values(linear(x, w), expected(x, false))) << shape.size() << "-D without bias";
  }
  // Non-contiguous 3-D input takes the matmul path.
  const Tensor x0 = make({2, 3, 4}, kFloat, 33);
  const Tensor xt = with_strides(x0, transposed_strides(x0.sizes()));
  EXPECT_TRUE(same_values(linear(xt, w, bias), expected(x0, true)));
  // 1-D weight: a dot per row; 1-D input with 1-D weight and 0-dim bias.
  EXPECT_EQ(linear(ones({3, 4}), ones({4})).sizes(), IntArrayRef({3}));
  EXPECT_EQ(linear(ones({4}), ones({4}), full({}, 3.0)).item<double>(), 7.0);
  // Integer linear.
  const Tensor xi = make({2, 3, 4}, kInt32, 34), wi = make({5, 4}, kInt32, 35), bi = make({5}, kInt32, 36);
  EXPECT_TRUE(same_values(linear(xi, wi, bi), xi.matmul(wi.contiguous().as_strided({4, 5}, {1, 4})) + bi));
}

// ---- errors ---------------------------------------------------------------------------------------------

TEST(LinalgErrors, MmBmmAddmmMessages) {
  const TensorOptions d(kDouble);
  EXPECT_EQ(error_of([] { ones({2, 3, 4}).mm(ones({4, 5})); }), "self must be a matrix");
  EXPECT_EQ(error_of([] { ones({2, 3}).mm(ones({3})); }), "mat2 must be a matrix");
  EXPECT_EQ(error_of([] { ones({2, 3}).mm(ones({4, 5})); }), "mat1 and mat2 shapes cannot be multiplied (2x3 and 4x5)");
  EXPECT_EQ(error_of([&] { ones({2, 3}).mm(ones({3, 5}, d)); }), "expected scalar type Float but found Double");
  EXPECT_EQ(error_of([&] { ones({2, 3}, d).mm(ones({3, 5})); }), "expected scalar type Double but found Float");
  EXPECT_EQ(error_of([&] { ones({2, 3}).mm(ones({4, 5}, d)); }), "mat1 and mat2 shapes cannot be multiplied (2x3 and 4x5)");
  EXPECT_EQ(error_of([] { ones({2, 3}).bmm(ones({3, 5})); }), "batch1 must be a 3D tensor");
  EXPECT_EQ(error_of([] { ones({2, 2, 3}).bmm(ones({3, 5})); }), "batch2 must be a 3D tensor");
  EXPECT_EQ(error_of([] { ones({2, 2, 3}).bmm(ones({3, 3, 5})); }),
            "Expected size for first two dimensions of batch2 tensor to be: [2, 3] but got: [3, 3].");
  EXPECT_EQ(error_of([] { ones({2, 2, 3}).bmm(ones({2, 4, 5})); }),
            "Expected size for first two dimensions of batch2 tensor to be: [2, 3] but got: [2, 4].");
  EXPECT_EQ(error_of([&] { ones({2, 2, 3}).bmm(ones({2, 3, 5}, d)); }), "expected scalar type Float but found Double");
  EXPECT_EQ(error_of([] { ones({2, 5}).addmm(ones({2, 3}), ones({4, 5})); }),
            "mat1 and mat2 shapes cannot be multiplied (2x3 and 4x5)");
  EXPECT_EQ(error_of([] { ones({3}).addmm(ones({2, 3}), ones({3, 5})); }),
            "The expanded size of the tensor (5) must match the existing size (3) at non-singleton dimension 1.  "
            "Target sizes: [2, 5].  Tensor sizes: [3]");
  EXPECT_EQ(error_of([] { ones({1, 2, 5}).addmm(ones({2, 3}), ones({3, 5})); }),
            "expand(torch.FloatTensor{[1, 2, 5]}, size=[2, 5]): the number of sizes provided (2) must be greater or "
            "equal to the number of dimensions in the tensor (3)");
  EXPECT_EQ(error_of([&] { ones({2, 5}, d).addmm(ones({2, 3}), ones({3, 5})); }), "self and mat2 must have the same dtype");
  EXPECT_EQ(error_of([&] { ones({2, 5}).addmm(ones({2, 3}, d), ones({3, 5})); }), "mat1 and mat2 must have the same dtype");
  EXPECT_EQ(error_of([&] { ones({2, 5}).addmm(ones({2, 3}), ones({3, 5}, d)); }), "self and mat2 must have the same dtype");
  EXPECT_EQ(error_of([] { ones({2, 5}).addmm(ones({3}), ones({3, 5})); }), "mat1 must be a matrix, got 1-D tensor");
  EXPECT_EQ(error_of([] { ones({2, 5}).addmm(ones({2, 3}), ones({3})); }), "mat2 must be a matrix, got 1-D tensor");
}

TEST(LinalgErrors, MatmulMessagesFollowPyTorchDispatch) {
  const TensorOptions d(kDouble);
  EXPECT_EQ(error_of([] { full({}, 1.0).matmul(ones({3})); }),
            "both arguments to matmul need to be at least 1D, but they are 0D and 1D");
  EXPECT_EQ(error_of([] { ones({3}).matmul(full({}, 1.0)); }),
            "both arguments to matmul need to be at least 1D, but they are 1D and 0D");
  EXPECT_EQ(error_of([] { ones({3}).matmul(ones({4})); }),
            "inconsistent tensor size, expected tensor [3] and src [4] to have the same number of elements, but got 3 "
            "and 4 elements respectively");
  EXPECT_EQ(error_of([&] { ones({3}).matmul(ones({4}, d)); }),
            "dot : expected both vectors to have same dtype, but found Float and Double");
  EXPECT_EQ(error_of([] { ones({2, 3}).matmul(ones({4})); }), "size mismatch, got 2, 2x3,4");
  EXPECT_EQ(error_of([&] { ones({2, 3}).matmul(ones({3}, d)); }), "expected scalar type Float but found Double");
  EXPECT_EQ(error_of([] { ones({4}).matmul(ones({3, 5})); }), "mat1 and mat2 shapes cannot be multiplied (1x4 and 3x5)");
  EXPECT_EQ(error_of([&] { ones({3}).matmul(ones({3, 5}, d)); }), "expected scalar type Float but found Double");
  EXPECT_EQ(error_of([] { ones({2, 3, 4}).matmul(ones({5})); }), "size mismatch, got 6, 6x4,5");
  EXPECT_EQ(error_of([] { ones({2, 3, 4}).matmul(ones({5, 2})); }), "mat1 and mat2 shapes cannot be multiplied (6x4 and 5x2)");
  EXPECT_EQ(error_of([&] { ones({2, 3, 4}).matmul(ones({4, 2}, d)); }), "expected scalar type Float but found Double");
  EXPECT_EQ(error_of([&] { ones({2, 3}).matmul(ones({2, 3, 4}, d)); }), "expected scalar type Double but found Float");
  EXPECT_EQ(error_of([] { ones({5}).matmul(ones({2, 3, 4})); }), "size mismatch, got 8, 8x3,5");
  EXPECT_EQ(error_of([] { ones({2, 5}).matmul(ones({2, 3, 4})); }), "mat1 and mat2 shapes cannot be multiplied (8x3 and 5x2)");
  EXPECT_EQ(error_of([] { ones({2, 2, 5}).matmul(ones({2, 3, 4})); }),
            "Expected size for first two dimensions of batch2 tensor to be: [2, 5] but got: [2, 3].");
  EXPECT_EQ(error_of([] { ones({2, 2, 3}).matmul(ones({3, 3, 4})); }),
            "The size of tensor a (2) must match the size of tensor b (3) at non-singleton dimension 0");
  EXPECT_EQ(error_of([&] { ones({2, 2, 3}).matmul(ones({2, 3, 4}, d)); }), "expected scalar type Float but found Double");
  // The fold exception (permuted 3-D @ 2-D) reports through bmm, folded 4-D through mm, as PyTorch 1.13.
  const Tensor permuted = ones({2, 4, 3}).as_strided({2, 3, 4}, {12, 1, 3});
  EXPECT_EQ(error_of([&] { permuted.matmul(ones({5, 2})); }),
            "Expected size for first two dimensions of batch2 tensor to be: [2, 4] but got: [2, 5].");
  const Tensor permuted4 = ones({2, 4, 3, 2}).as_strided({2, 4, 2, 3}, {24, 6, 1, 2});
  EXPECT_EQ(error_of([&] { permuted4.matmul(ones({5, 2})); }), "mat1 and mat2 shapes cannot be multiplied (16x3 and 5x2)");
}

TEST(LinalgErrors, LinearMessages) {
  EXPECT_EQ(error_of([] { linear(ones({2, 3, 4}), ones({5, 3}), ones({5})); }),
            "mat1 and mat2 shapes cannot be multiplied (6x4 and 3x5)");
  EXPECT_EQ(error_of([] { linear(ones({3, 4}), ones({4}), full({}, 2.0)); }), "mat2 must be a matrix, got 1-D tensor");
  EXPECT_EQ(error_of([] { linear(ones({3, 4}), ones({5, 4}), ones({4})); }),
            "The expanded size of the tensor (5) must match the existing size (4) at non-singleton dimension 1.  "
            "Target sizes: [3, 5].  Tensor sizes: [4]");
  // PyTorch 1.13 flattens contiguous 3-D input into addmm, so a (3, 5) bias does not broadcast there.
  EXPECT_EQ(error_of([] { linear(ones({2, 3, 4}), ones({5, 4}), ones({3, 5})); }),
            "The expanded size of the tensor (6) must match the existing size (3) at non-singleton dimension 0.  "
            "Target sizes: [6, 5].  Tensor sizes: [3, 5]");
  EXPECT_EQ(error_of([] { linear(ones({2, 3, 4}), ones({5, 4}), ones({5}, TensorOptions(kDouble))); }),
            "self and mat2 must have the same dtype");
  EXPECT_EQ(error_of([] { linear(ones({2, 3, 4}), ones({5, 4}, TensorOptions(kDouble))); }),
            "expected scalar type Float but found Double");
  EXPECT_EQ(error_of([] { linear(ones({3, 4}), ones({2, 5, 4})); }),
            "t() expects a tensor with <= 2 dimensions, but self is 3D");
  EXPECT_EQ(error_of([] { linear(full({}, 1.0), ones({5, 4})); }),
            "both arguments to matmul need to be at least 1D, but they are 0D and 2D");
}

TEST(LinalgErrors, DeviceMismatch) {
  std::vector<float> host(6, 1.0f);
  const Tensor on_cuda = from_blob(host.data(), {2, 3}, TensorOptions(kFloat).device(Device("cuda:0")));
  const std::string expected =
      "Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cpu!";
  EXPECT_EQ(error_of([&] { ones({3, 2}).mm(on_cuda); }), expected);
  EXPECT_EQ(error_of([&] { on_cuda.matmul(ones({3})); }), expected);
  EXPECT_EQ(error_of([&] { ones({2, 2}).addmm(on_cuda, ones({3, 2})); }), expected);
  EXPECT_EQ(error_of([&] { ones({2, 2, 3}).bmm(on_cuda.as_strided({1, 2, 3}, {6, 3, 1})); }), expected);
}

TEST(LinalgErrors, NothingIsModifiedOnError) {
  Tensor self = full({2, 5}, 4.0), m1 = make({2, 3}, kFloat, 40), m2 = make({4, 5}, kFloat, 41);
  const Tensor self0 = self.clone(), m10 = m1.clone(), m20 = m2.clone();
  const uint32_t v_self = self._version(), v1 = m1._version(), v2 = m2._version();
  EXPECT_THROW(self.addmm(m1, m2), Error);
  EXPECT_THROW(m1.mm(m2), Error);
  EXPECT_THROW(m1.matmul(m2), Error);
  EXPECT_THROW(linear(m1, m2, self), Error);
  EXPECT_TRUE(same_values(self, self0) && same_values(m1, m10) && same_values(m2, m20));
  EXPECT_EQ(self._version(), v_self);
  EXPECT_EQ(m1._version(), v1);
  EXPECT_EQ(m2._version(), v2);
}

// ---- the kernel slot --------------------------------------------------------------------------------------

TEST(LinalgKernel, BetaZeroNeverReadsCAndAlphaZeroNeverReadsAB) {
  const ops::KernelTable& kt = ops::cpu_kernels();
  const Stream s = Stream::default_stream(Device("cpu"));
  // (m, n, k) covering gemm, gemv (row and column), dot, the blocked loop and the widening path.
  const std::vector<std::vector<int64_t>> shapes = {{3, 4, 5}, {1, 4, 5}, {3, 1, 5}, {1, 1, 5}, {70, 70, 70}};
  for (ScalarType dt : {kFloat, kDouble, kHalf, kBFloat16}) {
    for (const auto& sh : shapes) {
      const int64_t m = sh[0], n = sh[1], k = sh[2];
      const Tensor a = ones({m, k}, TensorOptions(dt)), b = ones({k, n}, TensorOptions(dt));
      Tensor c = full({m, n}, std::nan(""), TensorOptions(dt));
      kt.gemm(dt, false, false, m, n, k, 2, a.data_ptr(), k, 0, b.data_ptr(), n, 0, 0, c.data_ptr(), n, 0, 1, s);
      for (double v : c.to(kDouble).to_vector<double>()) ASSERT_EQ(v, 2.0 * k) << describe(dt) << " m=" << m << " n=" << n;
      const Tensor nan_a = full({m, k}, std::nan(""), TensorOptions(dt));
      c.fill_(3);
      kt.gemm(dt, false, false, m, n, k, 0, nan_a.data_ptr(), k, 0, nan_a.data_ptr(), n, 0, 2, c.data_ptr(), n, 0, 1, s);
      for (double v : c.to(kDouble).to_vector<double>()) ASSERT_EQ(v, 6.0) << describe(dt) << " alpha 0";
    }
  }
}

TEST(LinalgKernel, StridedBatchWithTransposes) {
  // Two batches of op(A) (2x3) @ op(B) (3x2) stored transposed, C with ldc 4 (padded), batch strides explicit.
  const Tensor a = make({2, 3, 2}, kFloat, 50);  // A_p stored 3x2 = (op(A_p))^T
  const Tensor b = make({2, 2, 3}, kFloat, 51);  // B_p stored 2x3 = (op(B_p))^T
  Tensor c = full({2, 2, 4}, -1.0);
  ops::cpu_kernels().gemm(kFloat, true, true, 2, 2, 3, 1, a.data_ptr(), 2, 6, b.data_ptr(), 3, 6, 0, c.data_ptr(), 4, 8,
                          2, Stream::default_stream(Device("cpu")));
  const Tensor at = a.as_strided({2, 2, 3}, {6, 1, 2}), bt = b.as_strided({2, 3, 2}, {6, 1, 3});
  const Tensor expected = at.bmm(bt);
  EXPECT_TRUE(same_values(c.as_strided({2, 2, 2}, {8, 4, 1}), expected));
  EXPECT_EQ(c.as_strided({2, 2, 2}, {8, 4, 1}, 2).to_vector<float>(), std::vector<float>(8, -1.0f));  // padding kept
}

// ---- threads ----------------------------------------------------------------------------------------------

TEST(LinalgThreads, OpenBlasFollowsCtorchThreadCount) {
  using GetThreads = int (*)();
  auto get = reinterpret_cast<GetThreads>(dlsym(RTLD_DEFAULT, "openblas_get_num_threads"));
  ASSERT_NE(get, nullptr);
  ones({64, 64}).mm(ones({64, 64}));
  EXPECT_EQ(get(), get_num_threads());
  const int before = get_num_threads();
  set_num_threads(1);
  EXPECT_EQ(get(), 1);
  expect_matches(make({80, 90}, kFloat, 60).mm(make({90, 70}, kFloat, 61)), make({80, 90}, kFloat, 60),
                 make({90, 70}, kFloat, 61), "one thread");
  set_num_threads(before);
  EXPECT_EQ(get(), before);
}

TEST(LinalgMatmul, ViewsFromShapeOps) {
  // The layouts that t(), transpose() and expand() produce are multiplied in place, with the same values.
  const Tensor a = make({6, 5}, kFloat, 70), b = make({4, 6}, kFloat, 71);
  expect_matches(a.t().mm(b.t()), a.t().contiguous(), b.t().contiguous(), "t() @ t()");
  const Tensor batch = make({3, 5, 4}, kDouble, 72);
  expect_matches(batch.transpose(1, 2).bmm(batch), batch.transpose(1, 2).contiguous(), batch, "transpose(1, 2) @ batch");
  const Tensor row = make({1, 4, 5}, kDouble, 73);
  expect_matches(row.expand({3, 4, 5}).bmm(batch), row.expand({3, 4, 5}).contiguous(), batch, "expand @ batch");
  expect_matches(a.matmul(make({5}, kFloat, 74).expand({5})), a, make({5}, kFloat, 74), "matrix @ vector");
}
