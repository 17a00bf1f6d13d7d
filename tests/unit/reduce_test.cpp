// Reductions, softmax and whole-tensor comparisons against straightforward double-precision references,
// over every dim combination of 3-d tensors in contiguous, permuted, gapped and expanded layouts.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "ctorch/ctorch.h"

using namespace ctorch;

namespace {

const double kNaN = std::numeric_limits<double>::quiet_NaN();
const double kInf = std::numeric_limits<double>::infinity();

// Deterministic values in [-1, 1) (a small LCG; the tests do not depend on the random module).
std::vector<double> random_values(int64_t n, uint64_t seed, bool integers = false) {
  std::vector<double> v(static_cast<size_t>(n));
  uint64_t s = seed * 6364136223846793005ULL + 1442695040888963407ULL;
  for (auto& x : v) {
    s = s * 6364136223846793005ULL + 1442695040888963407ULL;
    const double u = static_cast<double>(s >> 11) / 9007199254740992.0;
    x = integers ? std::floor(u * 7) - 3 : 2 * u - 1;
  }
  return v;
}

// A strided view over a 1-d storage, and the values the reference reads through it.
struct View {
  std::vector<int64_t> sizes, strides;
  int64_t offset = 0;
  std::vector<double> storage;

  int64_t numel() const {
    int64_t n = 1;
    for (int64_t s : sizes) n *= s;
    return n;
  }
  double at(const std::vector<int64_t>& idx) const {
    int64_t off = offset;
    for (size_t d = 0; d < idx.size(); ++d) off += idx[d] * strides[d];
    return storage[static_cast<size_t>(off)];
  }
  Tensor make(ScalarType dtype) const {
    return tensor(storage, TensorOptions().dtype(kDouble)).to(dtype).as_strided(sizes, strides, offset);
  }
};

// The four layouts of a 3-d shape: contiguous, permuted (dim 1 fastest, dim 2 slowest), gapped
// (every other element of a wider buffer, offset 1) and expanded (dim 1 has stride 0).
std::vector<View> layouts(int64_t a, int64_t b, int64_t c, uint64_t seed, bool integers = false) {
  std::vector<View> out;
  auto with_storage = [&](View v, int64_t n) {
    v.storage = random_values(n, seed++, integers);
    out.push_back(v);
  };
  with_storage(View{{a, b, c}, {b * c, c, 1}, 0, {}}, a * b * c);
  with_storage(View{{a, b, c}, {b, 1, a * b}, 0, {}}, a * b * c);
  with_storage(View{{a, b, c}, {b * c * 2, c * 2, 2}, 1, {}}, a * b * c * 2 + 1);
  with_storage(View{{a, b, c}, {c, 0, 1}, 0, {}}, a * c);
  return out;
}

// Reference: fn over the reduced elements (row-major order) of each output, outputs in row-major order.
std::vector<double> reference(const View& v, const std::vector<bool>& reduced,
                              const std::function<double(const std::vector<double>&)>& fn) {
  const size_t nd = v.sizes.size();
  std::vector<int64_t> kept_dims, red_dims;
  for (size_t d = 0; d < nd; ++d) (reduced[d] ? red_dims : kept_dims).push_back(static_cast<int64_t>(d));
  auto count = [&](const std::vector<int64_t>& dims) {
    int64_t n = 1;
    for (int64_t d : dims) n *= v.sizes[d];
    return n;
  };
  auto unravel = [&](int64_t linear, const std::vector<int64_t>& dims, std::vector<int64_t>& idx) {
    for (size_t i = dims.size(); i-- > 0;) {
      idx[dims[i]] = linear % v.sizes[dims[i]];
      linear /= v.sizes[dims[i]];
    }
  };
  std::vector<double> result;
  std::vector<int64_t> idx(nd, 0);
  for (int64_t o = 0; o < count(kept_dims); ++o) {
    unravel(o, kept_dims, idx);
    std::vector<double> vals;
    for (int64_t r = 0; r < count(red_dims); ++r) {
      unravel(r, red_dims, idx);
      vals.push_back(v.at(idx));
    }
    result.push_back(fn(vals));
  }
  return result;
}

std::vector<int64_t> expected_shape(const View& v, const std::vector<bool>& reduced, bool keepdim) {
  std::vector<int64_t> s;
  for (size_t d = 0; d < v.sizes.size(); ++d) {
    if (!reduced[d]) s.push_back(v.sizes[d]);
    else if (keepdim) s.push_back(1);
  }
  return s;
}

// Every dim list of a 3-d tensor ({} means all dims), with the mask it reduces.
std::vector<std::pair<std::vector<int64_t>, std::vector<bool>>> dim_lists() {
  return {{{}, {true, true, true}},      {{0}, {true, false, false}},    {{1}, {false, true, false}},
          {{-1}, {false, false, true}},  {{0, 1}, {true, true, false}},  {{0, 2}, {true, false, true}},
          {{2, 1}, {false, true, true}}, {{0, -2, 2}, {true, true, true}}};
}

double ref_sum(const std::vector<double>& x) {
  double s = 0;
  for (double v : x) s += v;
  return s;
}
double ref_abs_sum(const std::vector<double>& x) {
  double s = 0;
  for (double v : x) s += std::fabs(v);
  return s;
}
double ref_mean(const std::vector<double>& x) { return ref_sum(x) / static_cast<double>(x.size()); }
double ref_var(const std::vector<double>& x, int64_t correction) {
  const double m = ref_mean(x);
  double s = 0;
  for (double v : x) s += (v - m) * (v - m);
  return s / std::max<double>(0, static_cast<double>(x.size()) - static_cast<double>(correction));
}

// Elementwise comparison; tolerance scales with `scale` (e.g. the sum of magnitudes of each output).
void expect_close(const Tensor& got, const std::vector<double>& want, double rtol, double atol,
                  const std::string& what, const std::vector<double>& scale = {}) {
  const std::vector<double> g = got.to_vector<double>();
  ASSERT_EQ(g.size(), want.size()) << what;
  for (size_t i = 0; i < g.size(); ++i) {
    if (std::isnan(want[i])) {
      EXPECT_TRUE(std::isnan(g[i])) << what << " at " << i << ": got " << g[i] << ", want nan";
      continue;
    }
    const double tol = atol + rtol * (scale.empty() ? std::fabs(want[i]) : scale[i]);
    EXPECT_NEAR(g[i], want[i], tol) << what << " at " << i;
  }
}

std::string message_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

std::vector<int64_t> shape_of(const Tensor& t) { return t.sizes().vec(); }

}  // namespace

// ---- sum, mean, prod ----------------------------------------------------------------------------------

TEST(ReduceSum, EveryDimListEveryLayout) {
  for (const View& v : layouts(5, 6, 7, 1)) {
    for (const auto& [dims, mask] : dim_lists()) {
      for (bool keepdim : {false, true}) {
        const std::string what = "sum dims=" + std::to_string(dims.size()) + " keepdim=" + std::to_string(keepdim);
        for (ScalarType dt : {kFloat, kDouble}) {
          Tensor got = v.make(dt).sum(dims, keepdim);
          EXPECT_EQ(got.dtype(), dt);
          EXPECT_EQ(shape_of(got), expected_shape(v, mask, keepdim)) << what;
          expect_close(got, reference(v, mask, ref_sum), dt == kFloat ? 1e-6 : 1e-13, 1e-12, what,
                       reference(v, mask, ref_abs_sum));
        }
      }
    }
  }
}

TEST(ReduceSum, IntegersAndBoolAccumulateAsInt64) {
  for (const View& v : layouts(4, 5, 3, 7, /*integers=*/true)) {
    for (const auto& [dims, mask] : dim_lists()) {
      for (ScalarType dt : {kInt8, kUInt8, kInt16, kInt32, kInt64}) {
        if (dt == kUInt8) continue;  // negative values
        Tensor got = v.make(dt).sum(dims);
        EXPECT_EQ(got.dtype(), kLong);
        expect_close(got, reference(v, mask, ref_sum), 0, 0, "int sum");
      }
      Tensor b = v.make(kDouble).gt(0).sum(dims);
      EXPECT_EQ(b.dtype(), kLong);
      expect_close(b, reference(v, mask, [](const std::vector<double>& x) {
                     double n = 0;
                     for (double e : x) n += e > 0;
                     return n;
                   }), 0, 0, "bool sum");
    }
  }
  // int8 values that overflow int8 but not int64.
  Tensor big = full({1000}, 100, kInt8);
  EXPECT_EQ(big.sum().item<int64_t>(), 100000);
  EXPECT_EQ(tensor({true, true, false}).sum().item<int64_t>(), 2);
}

TEST(ReduceSum, DtypeArgument) {
  Tensor t = tensor({1, 2, 3}, kInt32);
  Tensor f = t.sum(kFloat);
  EXPECT_EQ(f.dtype(), kFloat);
  EXPECT_EQ(f.item<double>(), 6.0);
  Tensor d = tensor({0.1f, 0.2f}, kFloat).sum(kDouble);
  EXPECT_EQ(d.dtype(), kDouble);
  EXPECT_EQ(d.item<double>(), static_cast<double>(0.1f) + static_cast<double>(0.2f));
  Tensor h = tensor({1.5, 2.5}, kHalf).sum({0}, false, kFloat);
  EXPECT_EQ(h.dtype(), kFloat);
  EXPECT_EQ(h.item<double>(), 4.0);
  EXPECT_EQ(tensor({1.0, 2.0}).sum(kInt32).dtype(), kInt32);
}

TEST(ReduceSum, HalfAndBFloat16AccumulateInFloat) {
  // 4096 ones: a half accumulator would stop at 2048.
  for (ScalarType dt : {kHalf, kBFloat16}) {
    Tensor t = full({4096}, 1.0, dt);
    Tensor s = t.sum();
    EXPECT_EQ(s.dtype(), dt);
    EXPECT_EQ(s.item<double>(), 4096.0);
    EXPECT_EQ(t.mean().item<double>(), 1.0);
  }
}

TEST(ReduceSum, LargeFloatSumIsAccurate) {
  // 10M copies of 0.1f: sequential float summation would be off by percents.
  const int64_t n = 10 * 1000 * 1000;
  Tensor t = full({n}, 0.1, kFloat);
  const double want = static_cast<double>(n) * static_cast<double>(0.1f);
  EXPECT_NEAR(t.sum().item<double>(), want, want * 1e-6);
  EXPECT_NEAR(t.mean().item<double>(), static_cast<double>(0.1f), 1e-7);
  // The same along rows and across rows.
  Tensor m = t.as_strided({2500, 4000}, {4000, 1});
  expect_close(m.sum({0}), std::vector<double>(4000, 2500 * static_cast<double>(0.1f)), 1e-6, 0, "outer");
  expect_close(m.sum({1}), std::vector<double>(2500, 4000 * static_cast<double>(0.1f)), 1e-6, 0, "inner");
  Tensor tall = t.as_strided({n / 2, 2}, {2, 1});
  expect_close(tall.sum({0}), std::vector<double>(2, n / 2 * static_cast<double>(0.1f)), 1e-6, 0, "tall");
}

TEST(ReduceSum, ResultsDoNotDependOnThreadCount) {
  const int saved = get_num_threads();
  const std::vector<double> vals = random_values(3 * 1000 * 1000, 11);
  Tensor t = tensor(vals, kFloat);
  std::vector<std::vector<float>> results;
  for (int threads : {1, 2, 3}) {
    set_num_threads(threads);
    std::vector<float> r;
    r.push_back(t.sum().item<float>());
    r.push_back(t.as_strided({1000, 3000}, {3000, 1}).sum({0}).to_vector<float>()[17]);
    r.push_back(t.as_strided({3, 1000000}, {1000000, 1}).sum({1}).to_vector<float>()[2]);
    r.push_back(t.as_strided({1000000, 3}, {3, 1}).sum({0}).to_vector<float>()[1]);
    r.push_back(t.var().item<float>());
    results.push_back(r);
  }
  set_num_threads(saved);
  EXPECT_EQ(results[0], results[1]);
  EXPECT_EQ(results[0], results[2]);
}

TEST(ReduceSum, StreamedPathsAreBitIdentical) {
  // Rows reduced four at a time (one tree per row, leaves interleaved) equal rows reduced alone
  // (whose first chunk reads its four quarters together): both are the same fixed tree.
  const std::vector<double> vals = random_values(6 * 40000, 17);
  Tensor m = tensor(vals, kFloat).view({6, 40000});
  const std::vector<float> rows = m.sum({1}).to_vector<float>();
  for (int64_t r = 0; r < 6; ++r) EXPECT_EQ(rows[r], m[r].sum().item<float>()) << r;
  Tensor wide = empty({6, 80000}, kFloat);
  Tensor gapped = wide.slice(1, 0, std::nullopt, 2);
  gapped.copy_(m);
  EXPECT_FALSE(gapped.is_contiguous());
  // A strided copy takes the one-accumulator path: same values up to rounding, same argmax.
  EXPECT_TRUE(gapped.sum({1}).allclose(m.sum({1}), 1e-5, 1e-4));
  const std::vector<int64_t> idx = m.argmax(1).to_vector<int64_t>();
  EXPECT_EQ(gapped.argmax(1).to_vector<int64_t>(), idx);
}

TEST(ReduceSum, ManyShapes) {
  // Sizes around the cpu backend's leaf, chunk and tile boundaries, both reduction directions.
  for (auto [rows, cols] : std::vector<std::pair<int64_t, int64_t>>{
           {1, 1}, {1, 33}, {33, 1}, {7, 1025}, {1025, 7}, {3, 70000}, {70000, 3}, {600, 600}, {2, 40000}}) {
    View v{{rows, cols}, {cols, 1}, 0, random_values(rows * cols, rows * 31 + cols)};
    for (auto mask : std::vector<std::vector<bool>>{{true, false}, {false, true}, {true, true}}) {
      std::vector<int64_t> dims;
      for (int64_t d = 0; d < 2; ++d) {
        if (mask[d]) dims.push_back(d);
      }
      const std::string what = std::to_string(rows) + "x" + std::to_string(cols);
      Tensor t = v.make(kFloat);
      expect_close(t.sum(dims), reference(v, mask, ref_sum), 1e-6, 1e-9, what, reference(v, mask, ref_abs_sum));
      if (dims.size() == 1) {
        auto [values, indices] = t.max(dims[0]);
        expect_close(values, reference(v, mask, [](const std::vector<double>& x) {
                       double m = x[0];
                       for (double e : x) m = std::max(m, e);
                       return m;
                     }), 1e-6, 0, what + " max");
      }
    }
  }
}

TEST(ReduceMean, ValuesShapesAndDtypes) {
  for (const View& v : layouts(3, 4, 5, 21)) {
    for (const auto& [dims, mask] : dim_lists()) {
      for (bool keepdim : {false, true}) {
        Tensor got = v.make(kDouble).mean(dims, keepdim);
        EXPECT_EQ(shape_of(got), expected_shape(v, mask, keepdim));
        expect_close(got, reference(v, mask, ref_mean), 1e-13, 1e-15, "mean");
      }
    }
  }
  EXPECT_EQ(tensor({1.0, 2.0}, kHalf).mean().dtype(), kHalf);
  Tensor i = tensor({1, 2, 4});
  EXPECT_NEAR(i.mean(kFloat).item<double>(), 7.0 / 3.0, 1e-6);
  EXPECT_EQ(message_of([&] { i.mean(); }),
            "mean(): could not infer output dtype. Input dtype must be either a floating point or complex dtype. "
            "Got: Long");
  EXPECT_EQ(message_of([&] { tensor({1.0}).mean(kInt32); }),
            "mean(): could not infer output dtype. Optional dtype must be either a floating point or complex "
            "dtype. Got: Int");
}

TEST(ReduceProd, SingleDimAndAll) {
  for (const View& v : layouts(3, 4, 5, 31)) {
    for (int64_t d = 0; d < 3; ++d) {
      std::vector<bool> mask(3, false);
      mask[d] = true;
      for (bool keepdim : {false, true}) {
        Tensor got = v.make(kDouble).prod(d, keepdim);
        EXPECT_EQ(shape_of(got), expected_shape(v, mask, keepdim));
        expect_close(got, reference(v, mask, [](const std::vector<double>& x) {
                       double p = 1;
                       for (double e : x) p *= e;
                       return p;
                     }), 1e-12, 1e-300, "prod");
      }
    }
  }
  Tensor i = tensor({2, 3, 4}, kInt32);
  EXPECT_EQ(i.prod().dtype(), kLong);
  EXPECT_EQ(i.prod().item<int64_t>(), 24);
  EXPECT_EQ(tensor({true, false}).prod().dtype(), kLong);
  EXPECT_EQ(tensor({1.5, 2.0}).prod(kDouble).item<double>(), 3.0);
  EXPECT_EQ(tensor({{1, 2}, {3, 4}}).prod(-1).to_vector<int64_t>(), (std::vector<int64_t>{2, 12}));
}

// ---- max, min, argmax, argmin -------------------------------------------------------------------------

namespace {

// First index of the largest (or smallest) value; NaN wins at its first occurrence.
double ref_arg(const std::vector<double>& x, bool is_max) {
  size_t best = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    if (std::isnan(x[i])) return static_cast<double>(i);
    if (is_max ? x[i] > x[best] : x[i] < x[best]) best = i;
  }
  return static_cast<double>(best);
}
double ref_extreme(const std::vector<double>& x, bool is_max) { return x[static_cast<size_t>(ref_arg(x, is_max))]; }

}  // namespace

TEST(ReduceMaxMin, AllReduceEveryLayoutAndDtype) {
  for (const View& v : layouts(4, 5, 6, 41, /*integers=*/true)) {
    const std::vector<bool> all(3, true);
    for (ScalarType dt : {kFloat, kDouble, kInt32, kInt64, kInt8, kInt16, kHalf, kBFloat16}) {
      Tensor t = v.make(dt);
      EXPECT_EQ(t.max().dtype(), dt);
      EXPECT_EQ(t.max().dim(), 0);
      expect_close(t.max(), reference(v, all, [](auto& x) { return ref_extreme(x, true); }), 0, 0, "max");
      expect_close(t.min(), reference(v, all, [](auto& x) { return ref_extreme(x, false); }), 0, 0, "min");
    }
  }
  EXPECT_TRUE(tensor({false, true}).max().item<bool>());
  EXPECT_FALSE(tensor({false, true}).min().item<bool>());
  EXPECT_EQ(tensor({3, 255, 7}, kUInt8).max().item<int64_t>(), 255);
}

TEST(ReduceMaxMin, WithDimReturnsValuesAndFirstIndices) {
  for (const View& v : layouts(4, 5, 6, 51, /*integers=*/true)) {  // small integers: many ties
    for (int64_t d = -3; d < 3; ++d) {
      std::vector<bool> mask(3, false);
      mask[(d + 3) % 3] = true;
      for (bool keepdim : {false, true}) {
        for (ScalarType dt : {kFloat, kInt64, kHalf}) {
          auto [values, indices] = v.make(dt).max(d, keepdim);
          EXPECT_EQ(values.dtype(), dt);
          EXPECT_EQ(indices.dtype(), kLong);
          EXPECT_EQ(shape_of(values), expected_shape(v, mask, keepdim));
          EXPECT_EQ(shape_of(indices), expected_shape(v, mask, keepdim));
          expect_close(values, reference(v, mask, [](auto& x) { return ref_extreme(x, true); }), 0, 0, "max values");
          expect_close(indices, reference(v, mask, [](auto& x) { return ref_arg(x, true); }), 0, 0, "max indices");
          auto [mv, mi] = v.make(dt).min(d, keepdim);
          expect_close(mv, reference(v, mask, [](auto& x) { return ref_extreme(x, false); }), 0, 0, "min values");
          expect_close(mi, reference(v, mask, [](auto& x) { return ref_arg(x, false); }), 0, 0, "min indices");
        }
      }
    }
  }
  auto [bv, bi] = tensor({{false, true}, {true, true}}).max(1);
  EXPECT_EQ(bv.dtype(), kBool);
  EXPECT_EQ(bi.to_vector<int64_t>(), (std::vector<int64_t>{1, 0}));
}

TEST(ReduceArgMax, FlattenedAndPerDim) {
  for (const View& v : layouts(4, 5, 6, 61, /*integers=*/true)) {
    Tensor t = v.make(kFloat);
    const std::vector<bool> all(3, true);
    expect_close(t.argmax(), reference(v, all, [](auto& x) { return ref_arg(x, true); }), 0, 0, "argmax");
    expect_close(t.argmin(), reference(v, all, [](auto& x) { return ref_arg(x, false); }), 0, 0, "argmin");
    EXPECT_EQ(t.argmax().dtype(), kLong);
    EXPECT_EQ(shape_of(t.argmax(std::nullopt, true)), (std::vector<int64_t>{1, 1, 1}));
    for (int64_t d = 0; d < 3; ++d) {
      std::vector<bool> mask(3, false);
      mask[d] = true;
      expect_close(t.argmax(d), reference(v, mask, [](auto& x) { return ref_arg(x, true); }), 0, 0, "argmax d");
      expect_close(t.argmin(d, true), reference(v, mask, [](auto& x) { return ref_arg(x, false); }), 0, 0,
                   "argmin d");
      EXPECT_EQ(shape_of(t.argmin(d, true)), expected_shape(v, mask, true));
    }
  }
  EXPECT_EQ(tensor({1, 5, 5, 2}).argmax().item<int64_t>(), 1);
  EXPECT_EQ(tensor({3, 1, 1, 2}).argmin().item<int64_t>(), 1);
  EXPECT_EQ(tensor(3.5).argmax(0).item<int64_t>(), 0);
}

TEST(ReduceMaxMin, NaNPropagatesAndItsIndexWins) {
  Tensor t = tensor({1.0, kNaN, 7.0, kNaN, -2.0});
  EXPECT_TRUE(std::isnan(t.max().item<double>()));
  EXPECT_TRUE(std::isnan(t.min().item<double>()));
  EXPECT_EQ(t.argmax().item<int64_t>(), 1);
  EXPECT_EQ(t.argmin().item<int64_t>(), 1);
  auto [v, i] = t.max(0);
  EXPECT_TRUE(std::isnan(v.item<double>()));
  EXPECT_EQ(i.item<int64_t>(), 1);
  // NaN in a long row (vectorized leaf with several accumulators) and across rows.
  std::vector<double> vals = random_values(5000, 3);
  vals[4321] = kNaN;
  vals[4999] = kNaN;
  Tensor big = tensor(vals, kFloat);
  EXPECT_TRUE(std::isnan(big.max().item<double>()));
  EXPECT_EQ(big.argmax().item<int64_t>(), 4321);
  EXPECT_EQ(big.argmin().item<int64_t>(), 4321);
  Tensor m = big.as_strided({1000, 5}, {5, 1});
  auto [cv, ci] = m.max(0);
  EXPECT_EQ(ci.to_vector<int64_t>()[1], 864);  // element 4321
  EXPECT_EQ(ci.to_vector<int64_t>()[4], 999);  // element 4999
  EXPECT_TRUE(std::isnan(cv.to_vector<double>()[4]));
  EXPECT_FALSE(std::isnan(cv.to_vector<double>()[0]));
  EXPECT_TRUE(std::isnan(tensor({kNaN, 1.0}).sum().item<double>()));
  // inf is not NaN.
  EXPECT_EQ(tensor({1.0, kInf, -kInf}).max().item<double>(), kInf);
  EXPECT_EQ(tensor({1.0, kInf, -kInf}).argmin().item<int64_t>(), 2);
  EXPECT_EQ(tensor({-kInf, -kInf}).argmax().item<int64_t>(), 0);
}

TEST(ReduceMaxMin, EmptyInputsAndErrors) {
  Tensor e = empty({0}, kFloat);
  EXPECT_EQ(message_of([&] { e.max(); }),
            "max(): Expected reduction dim to be specified for input.numel() == 0. Specify the reduction dim with "
            "the 'dim' argument.");
  EXPECT_TRUE(contains(message_of([&] { e.min(); }), "min(): Expected reduction dim to be specified"));
  EXPECT_THROW(e.argmax(), IndexError);
  EXPECT_EQ(message_of([&] { e.argmax(); }), "argmax(): Expected reduction dim to be specified for input.numel() == 0.");
  EXPECT_EQ(message_of([&] { e.argmin(); }), "argmin(): Expected reduction dim to be specified for input.numel() == 0.");
  Tensor e2 = empty({0, 3}, kFloat);
  EXPECT_THROW(e2.max(0), IndexError);
  EXPECT_EQ(message_of([&] { e2.max(0); }), "max(): Expected reduction dim 0 to have non-zero size.");
  EXPECT_EQ(message_of([&] { e2.argmin(-2); }), "argmin(): Expected reduction dim 0 to have non-zero size.");
  auto [v, i] = e2.max(1);
  EXPECT_EQ(shape_of(v), (std::vector<int64_t>{0}));
  EXPECT_EQ(shape_of(i), (std::vector<int64_t>{0}));
  EXPECT_EQ(shape_of(e2.argmax(1, true)), (std::vector<int64_t>{0, 1}));
  Tensor t = tensor({{1.0, 2.0}});
  EXPECT_THROW(t.max(2), IndexError);
  EXPECT_EQ(message_of([&] { t.max(2); }), "Dimension out of range (expected to be in range of [-2, 1], but got 2)");
  EXPECT_THROW(tensor({true}).argmax(), TypeError);
  EXPECT_EQ(message_of([&] { tensor({true}).argmax(); }), "\"argmax_cpu\" not implemented for 'Bool'");
  auto [sv, si] = tensor(4.0).max(-1);
  EXPECT_EQ(sv.item<double>(), 4.0);
  EXPECT_EQ(si.item<int64_t>(), 0);
  EXPECT_EQ(si.dim(), 0);
}

// ---- all, any -----------------------------------------------------------------------------------------

TEST(ReduceAllAny, ValuesDimsAndDtypes) {
  for (const View& v : layouts(3, 4, 5, 71, /*integers=*/true)) {
    for (ScalarType dt : {kFloat, kInt32, kBool, kInt8}) {
      Tensor t = v.make(dt);
      const std::vector<bool> all(3, true);
      auto ref_all = [](const std::vector<double>& x) {
        for (double e : x) {
          if (e == 0) return 0.0;
        }
        return 1.0;
      };
      auto ref_any = [](const std::vector<double>& x) {
        for (double e : x) {
          if (e != 0) return 1.0;
        }
        return 0.0;
      };
      EXPECT_EQ(t.all().dtype(), kBool);
      expect_close(t.all(), reference(v, all, ref_all), 0, 0, "all");
      expect_close(t.any(), reference(v, all, ref_any), 0, 0, "any");
      for (int64_t d = 0; d < 3; ++d) {
        std::vector<bool> mask(3, false);
        mask[d] = true;
        expect_close(t.all(d), reference(v, mask, ref_all), 0, 0, "all d");
        expect_close(t.any(d, true), reference(v, mask, ref_any), 0, 0, "any d");
        EXPECT_EQ(shape_of(t.any(d, true)), expected_shape(v, mask, true));
      }
    }
  }
  // uint8 keeps uint8 (PyTorch's all/any uint8 compatibility).
  Tensor u = tensor({0, 3}, kUInt8);
  EXPECT_EQ(u.any().dtype(), kUInt8);
  EXPECT_EQ(u.any().item<int64_t>(), 1);
  EXPECT_EQ(u.all().item<int64_t>(), 0);
  EXPECT_TRUE(tensor({kNaN}).all().item<bool>());
  EXPECT_TRUE(empty({0}).all().item<bool>());
  EXPECT_FALSE(empty({0}).any().item<bool>());
  EXPECT_EQ(shape_of(empty({2, 0}).any(1)), (std::vector<int64_t>{2}));
  EXPECT_EQ(empty({2, 0}).all(1).to_vector<int64_t>(), (std::vector<int64_t>{1, 1}));
}

// ---- norm, var, std -------------------------------------------------------------------------------------

TEST(ReduceNorm, OrdersDimsAndLayouts) {
  auto ref_norm = [](double p) {
    return [p](const std::vector<double>& x) {
      if (p == kInf || p == -kInf) {
        double r = std::fabs(x[0]);
        for (double e : x) r = p > 0 ? std::max(r, std::fabs(e)) : std::min(r, std::fabs(e));
        return r;
      }
      if (p == 0) {
        double n = 0;
        for (double e : x) n += e != 0;
        return n;
      }
      double s = 0;
      for (double e : x) s += std::pow(std::fabs(e), p);
      return std::pow(s, 1 / p);
    };
  };
  for (const View& v : layouts(3, 4, 5, 81)) {
    for (double p : {2.0, 1.0, 0.0, kInf, -kInf, 3.0, 0.5, -1.5}) {
      for (const auto& [dims, mask] : dim_lists()) {
        for (ScalarType dt : {kFloat, kDouble}) {
          Tensor t = v.make(dt);
          Tensor got = dims.empty() ? t.norm(p) : t.norm(p, dims, true);
          EXPECT_EQ(got.dtype(), dt);
          if (!dims.empty()) EXPECT_EQ(shape_of(got), expected_shape(v, mask, true));
          expect_close(got, reference(v, mask, ref_norm(p)), dt == kFloat ? 2e-5 : 1e-12, 1e-12,
                       "norm p=" + std::to_string(p));
        }
      }
    }
  }
  EXPECT_NEAR(tensor({3.0, 4.0}).norm().item<double>(), 5.0, 1e-12);
  EXPECT_NEAR(tensor({3.0, 4.0}, kHalf).norm().item<double>(), 5.0, 1e-3);
  EXPECT_EQ(tensor({3.0, 4.0}).norm(2, {}).item<double>(), 5.0);
  EXPECT_TRUE(std::isnan(tensor({1.0, kNaN}).norm(kInf).item<double>()));
  EXPECT_TRUE(std::isnan(tensor({1.0, kNaN}).norm(2).item<double>()));
}

TEST(ReduceNorm, EmptyAndErrors) {
  EXPECT_EQ(empty({0}).norm().item<double>(), 0.0);
  EXPECT_EQ(empty({0}).norm(1).item<double>(), 0.0);
  EXPECT_EQ(message_of([] { empty({0}).norm(kInf); }),
            "linalg.vector_norm cannot compute the inf norm on an empty tensor because the operation does not have "
            "an identity");
  EXPECT_EQ(message_of([] { empty({0, 2}).norm(-3); }),
            "linalg.vector_norm cannot compute the -3 norm on an empty tensor because the operation does not have "
            "an identity");
  EXPECT_EQ(shape_of(empty({0, 2}).norm(kInf, {1})), (std::vector<int64_t>{0}));
  EXPECT_TRUE(contains(message_of([] { empty({0, 2}).norm(kInf, {0}); }), "on the dimension 0"));
  EXPECT_EQ(message_of([] { tensor({1, 2}).norm(); }),
            "linalg.vector_norm: Expected a floating point or complex tensor as input. Got Long");
}

TEST(ReduceVar, CorrectionsDimsLayouts) {
  for (const View& v : layouts(3, 4, 5, 91)) {
    for (const auto& [dims, mask] : dim_lists()) {
      for (int64_t correction : {0, 1, 2}) {
        for (bool keepdim : {false, true}) {
          Tensor t = v.make(kDouble);
          const std::optional<IntArrayRef> d = dims.empty() ? std::nullopt : std::optional<IntArrayRef>(dims);
          Tensor var = t.var(d, correction, keepdim);
          EXPECT_EQ(shape_of(var), expected_shape(v, mask, keepdim));
          const std::vector<double> want = reference(v, mask, [&](auto& x) { return ref_var(x, correction); });
          expect_close(var, want, 1e-12, 1e-14, "var");
          std::vector<double> sd = want;
          for (double& s : sd) s = std::sqrt(s);
          expect_close(t.std(d, correction, keepdim), sd, 1e-12, 1e-14, "std");
          expect_close(v.make(kFloat).var(d, correction, keepdim), want, 1e-5, 1e-7, "float var");
        }
      }
    }
  }
}

TEST(ReduceVar, EdgeCases) {
  EXPECT_TRUE(std::isnan(tensor({3.0}).var().item<double>()));
  EXPECT_EQ(tensor({3.0}).var(std::nullopt, 0).item<double>(), 0.0);
  EXPECT_TRUE(std::isinf(tensor({1.0, 2.0}).var(std::nullopt, 2).item<double>()));
  EXPECT_TRUE(std::isnan(empty({0}).var().item<double>()));
  EXPECT_TRUE(std::isnan(empty({0}).std().item<double>()));
  EXPECT_EQ(shape_of(empty({0, 3}).var(std::vector<int64_t>{0})), (std::vector<int64_t>{3}));
  EXPECT_NEAR(tensor({1.0, 2.0, 3.0, 4.0}, kDouble).std().item<double>(), std::sqrt(5.0 / 3.0), 1e-15);
  EXPECT_EQ(tensor({2.0, 2.0}, kHalf).var().dtype(), kHalf);
  // Offset data: Welford stays accurate where sum-of-squares would cancel.
  Tensor shifted = tensor(std::vector<double>{1e8 + 1, 1e8 + 2, 1e8 + 3, 1e8 + 4}, kDouble);
  EXPECT_NEAR(shifted.var().item<double>(), 5.0 / 3.0, 1e-9);
  EXPECT_EQ(message_of([] { tensor({1, 2}).var(); }), "std and var only support floating point and complex dtypes");
  EXPECT_EQ(message_of([] { tensor({1, 2}).std(); }), "std and var only support floating point and complex dtypes");
}

// ---- softmax ------------------------------------------------------------------------------------------

TEST(ReduceSoftmax, EveryDimEveryLayout) {
  for (const View& v : layouts(3, 4, 5, 101)) {
    for (int64_t d = -3; d < 3; ++d) {
      const int64_t dim = (d + 3) % 3;
      for (ScalarType dt : {kFloat, kDouble, kBFloat16, kHalf}) {
        Tensor t = v.make(dt);
        Tensor sm = t.softmax(d);
        Tensor lsm = t.log_softmax(d);
        EXPECT_EQ(sm.dtype(), dt);
        EXPECT_EQ(shape_of(sm), v.sizes);
        // Reference: element-wise over the logical layout.
        std::vector<double> want_sm, want_lsm;
        std::vector<int64_t> idx(3);
        for (idx[0] = 0; idx[0] < 3; ++idx[0]) {
          for (idx[1] = 0; idx[1] < 4; ++idx[1]) {
            for (idx[2] = 0; idx[2] < 5; ++idx[2]) {
              std::vector<int64_t> j = idx;
              double mx = -kInf, sum = 0;
              for (j[dim] = 0; j[dim] < v.sizes[dim]; ++j[dim]) mx = std::max(mx, v.at(j));
              for (j[dim] = 0; j[dim] < v.sizes[dim]; ++j[dim]) sum += std::exp(v.at(j) - mx);
              want_sm.push_back(std::exp(v.at(idx) - mx) / sum);
              want_lsm.push_back(v.at(idx) - mx - std::log(sum));
            }
          }
        }
        // Half and bfloat16 round the input and the output; the reference uses the unrounded input.
        const bool low = dt == kHalf || dt == kBFloat16;
        const double tol = dt == kDouble ? 1e-13 : 1e-6;
        expect_close(sm, want_sm, low ? 4e-2 : tol, low ? 4e-3 : tol, "softmax");
        expect_close(lsm, want_lsm, low ? 4e-2 : tol, low ? 4e-2 : tol, "log_softmax");
      }
    }
  }
}

TEST(ReduceSoftmax, DtypeArgumentLargeRowsAndEdgeCases) {
  Tensor i = tensor({1, 2, 3});
  Tensor s = i.softmax(0, kFloat);
  EXPECT_EQ(s.dtype(), kFloat);
  EXPECT_NEAR(s.to_vector<double>()[2], std::exp(2.0) / (1 + std::exp(1.0) + std::exp(2.0)), 1e-6);
  EXPECT_EQ(tensor({1.0f, 2.0f}, kFloat).log_softmax(0, kDouble).dtype(), kDouble);
  EXPECT_THROW(i.softmax(0), TypeError);
  EXPECT_EQ(message_of([&] { i.softmax(0); }), "\"softmax_lastdim_kernel_impl\" not implemented for 'Long'");
  EXPECT_EQ(message_of([&] { tensor({{1, 2}}).log_softmax(0); }), "\"softmax_kernel_impl\" not implemented for 'Long'");
  EXPECT_EQ(message_of([&] { tensor({{1}, {2}}).softmax(0); }), "\"softmax_kernel_impl\" not implemented for 'Long'");
  EXPECT_EQ(message_of([&] { tensor({1, 2}).log_softmax(0); }),
            "\"log_softmax_lastdim_kernel_impl\" not implemented for 'Long'");
  EXPECT_EQ(message_of([&] { tensor(1).softmax(0); }), "\"softmax_lastdim_kernel_impl\" not implemented for 'Long'");
  EXPECT_THROW(tensor({1.0}).softmax(1), IndexError);
  // Large values do not overflow; a row of -inf gives NaN, as in PyTorch.
  Tensor big = tensor({1000.0, 1000.0});
  EXPECT_EQ(big.softmax(0).to_vector<double>(), (std::vector<double>{0.5, 0.5}));
  EXPECT_TRUE(std::isnan(tensor({-kInf, -kInf}).softmax(0).to_vector<double>()[0]));
  EXPECT_EQ(tensor(2.0).softmax(0).item<double>(), 1.0);
  EXPECT_EQ(tensor(2.0).log_softmax(-1).item<double>(), 0.0);
  EXPECT_EQ(shape_of(empty({0, 3}).softmax(1)), (std::vector<int64_t>{0, 3}));
  // Long rows and a wide inner dim (tiles of the non-last-dim kernel).
  const std::vector<double> vals = random_values(3 * 700, 5);
  Tensor t = tensor(vals, kFloat).as_strided({3, 700}, {700, 1});
  expect_close(t.softmax(1).sum({1}), {1, 1, 1}, 1e-5, 1e-6, "rows");
  expect_close(t.softmax(0).sum({0}), std::vector<double>(700, 1.0), 1e-5, 1e-6, "cols");
  expect_close(t.log_softmax(0).exp().sum({0}), std::vector<double>(700, 1.0), 1e-5, 1e-6, "log cols");
}

// ---- dims and shapes ----------------------------------------------------------------------------------

TEST(ReduceDims, WrappingDuplicatesAndErrors) {
  Tensor t = tensor({{1.0, 2.0}, {3.0, 4.0}});
  EXPECT_EQ(t.sum({-1}).to_vector<double>(), (std::vector<double>{3, 7}));
  EXPECT_EQ(t.sum({0, 1}).item<double>(), 10.0);
  EXPECT_EQ(t.sum(IntArrayRef()).item<double>(), 10.0);
  EXPECT_EQ(shape_of(t.sum(IntArrayRef(), true)), (std::vector<int64_t>{1, 1}));
  EXPECT_EQ(message_of([&] { t.sum({0, -2}); }), "dim 0 appears multiple times in the list of dims");
  EXPECT_THROW(t.sum({2}), IndexError);
  EXPECT_EQ(message_of([&] { t.sum({-3}); }), "Dimension out of range (expected to be in range of [-2, 1], but got -3)");
  EXPECT_THROW(t.prod(5), IndexError);
  EXPECT_THROW(t.all(2), IndexError);
  EXPECT_THROW(t.norm(2, {3}), IndexError);
  EXPECT_THROW(t.var(std::vector<int64_t>{1, 1}), Error);
  // 0-dim tensors accept dim 0 and -1.
  Tensor s = tensor(5.0);
  EXPECT_EQ(s.sum({0}).item<double>(), 5.0);
  EXPECT_EQ(s.sum({-1}, true).dim(), 0);
  EXPECT_EQ(s.sum().item<double>(), 5.0);
  EXPECT_EQ(s.max().item<double>(), 5.0);
  EXPECT_THROW(s.sum({1}), IndexError);
  // Size-1 and expanded dims.
  Tensor col = tensor({{1.0}, {2.0}, {3.0}});
  EXPECT_EQ(col.sum({1}).to_vector<double>(), (std::vector<double>{1, 2, 3}));
  EXPECT_EQ(shape_of(col.sum({1}, true)), (std::vector<int64_t>{3, 1}));
  Tensor expanded = tensor({1.0, 2.0}).as_strided({3, 2}, {0, 1});
  EXPECT_EQ(expanded.sum({0}).to_vector<double>(), (std::vector<double>{3, 6}));
}

TEST(ReduceDims, EmptyTensorsGiveIdentities) {
  EXPECT_EQ(empty({0}).sum().item<double>(), 0.0);
  EXPECT_EQ(empty({0}, kInt32).sum().dtype(), kLong);
  EXPECT_EQ(empty({0}).prod().item<double>(), 1.0);
  EXPECT_TRUE(std::isnan(empty({0}).mean().item<double>()));
  Tensor e = empty({2, 0, 3});
  EXPECT_EQ(e.sum({1}).to_vector<double>(), std::vector<double>(6, 0.0));
  EXPECT_EQ(shape_of(e.sum({1}, true)), (std::vector<int64_t>{2, 1, 3}));
  EXPECT_EQ(e.prod(1).to_vector<double>(), std::vector<double>(6, 1.0));
  EXPECT_EQ(shape_of(e.sum({0})), (std::vector<int64_t>{0, 3}));
  EXPECT_TRUE(std::isnan(e.mean({1}).to_vector<double>()[0]));
  EXPECT_EQ(e.norm(2, {1}).to_vector<double>(), std::vector<double>(6, 0.0));
}

TEST(ReduceDims, FailedCallsChangeNothing) {
  Tensor t = tensor({1, 2, 3});
  const uint32_t version = t._version();
  EXPECT_THROW(t.mean(), Error);
  EXPECT_THROW(t.sum({0, 0}), Error);
  EXPECT_THROW(t.softmax(0), TypeError);
  EXPECT_EQ(t._version(), version);
  EXPECT_EQ(t.to_vector<int64_t>(), (std::vector<int64_t>{1, 2, 3}));
}

// ---- equal, allclose, isclose ----------------------------------------------------------------------------

TEST(ReduceEqual, SizesValuesDtypes) {
  Tensor a = tensor({{1.0, 2.0}, {3.0, 4.0}});
  EXPECT_TRUE(a.equal(tensor({{1.0, 2.0}, {3.0, 4.0}})));
  EXPECT_FALSE(a.equal(tensor({{1.0, 2.0}, {3.0, 5.0}})));
  EXPECT_FALSE(a.equal(tensor({1.0, 2.0, 3.0, 4.0})));
  EXPECT_FALSE(a.equal(tensor({{1.0, 2.0}})));  // broadcastable but different sizes
  EXPECT_TRUE(equal(empty({0}), empty({0})));
  EXPECT_FALSE(tensor({kNaN}).equal(tensor({kNaN})));
  // A non-contiguous view equals its contiguous copy.
  Tensor tr = a.as_strided({2, 2}, {1, 2});
  EXPECT_TRUE(tr.equal(tensor({{1.0, 3.0}, {2.0, 4.0}})));
  // Different dtypes compare in the promoted dtype (libtorch 1.13).
  EXPECT_TRUE(a.equal(tensor({{1, 2}, {3, 4}})));
  EXPECT_FALSE(tensor({1.5}).equal(tensor({1})));
  EXPECT_TRUE(tensor({1.0}, kDouble).equal(tensor({true})));
  EXPECT_TRUE(tensor({1, 2}, kUInt8).equal(tensor({1, 2}, kInt8)));
}

TEST(ReduceIsClose, ToleranceNaNAndIntegers) {
  Tensor a = tensor({1.0, 2.0, kNaN, kInf, -kInf, 1e-9});
  Tensor b = tensor({1.0 + 1e-6, 2.1, kNaN, kInf, kInf, 0.0});
  EXPECT_EQ(isclose(a, b).to_vector<int64_t>(), (std::vector<int64_t>{1, 0, 0, 1, 0, 1}));
  EXPECT_EQ(isclose(a, b, 1e-5, 1e-8, true).to_vector<int64_t>(), (std::vector<int64_t>{1, 0, 1, 1, 0, 1}));
  EXPECT_EQ(isclose(a, b, 0, 0).to_vector<int64_t>(), (std::vector<int64_t>{0, 0, 0, 1, 0, 0}));
  EXPECT_EQ(isclose(a, b).dtype(), kBool);
  EXPECT_FALSE(a.allclose(b));
  EXPECT_FALSE(allclose(tensor({1.0, kNaN}), tensor({1.0, kNaN})));
  EXPECT_TRUE(allclose(tensor({1.0, kNaN}), tensor({1.0, kNaN}), 1e-5, 1e-8, true));
  EXPECT_TRUE(tensor({100.0}).allclose(tensor({100.0009})));
  EXPECT_FALSE(tensor({100.0}).allclose(tensor({100.002})));
  // Integers compare in the default float dtype; uint8 differences do not wrap.
  EXPECT_EQ(isclose(tensor({0, 200}, kUInt8), tensor({1, 200}, kUInt8), 0, 1.5).to_vector<int64_t>(),
            (std::vector<int64_t>{1, 1}));
  EXPECT_EQ(isclose(tensor({0, 200}, kUInt8), tensor({3, 200}, kUInt8), 0, 1.5).to_vector<int64_t>(),
            (std::vector<int64_t>{0, 1}));
  EXPECT_TRUE(tensor({true, false}).allclose(tensor({true, false})));
  // Broadcasting.
  EXPECT_TRUE(tensor({{1.0, 1.0}, {1.0, 1.0}}).allclose(tensor({1.0})));
  EXPECT_EQ(message_of([] { isclose(tensor({1.0}), tensor({1})); }), "Float did not match Long");
  EXPECT_EQ(message_of([] { isclose(tensor({1.0}), tensor({1.0}), -1); }),
            "rtol must be greater than or equal to zero, but got -1");
  EXPECT_EQ(message_of([] { isclose(tensor({1.0}), tensor({1.0}), 1e-5, -0.5); }),
            "atol must be greater than or equal to zero, but got -0.5");
}

// ---- views from the shape ops ----------------------------------------------------------------------------

TEST(ReduceViews, MatchTheirContiguousCopies) {
  const std::vector<double> vals = random_values(4 * 6 * 10, 123);
  Tensor base = tensor(vals, kFloat).view({4, 6, 10});
  const std::vector<Tensor> views = {base.transpose(0, 2), base.permute({1, 2, 0}),
                                     base.slice(2, 1, std::nullopt, 3), base.select(1, 2),
                                     base.narrow(0, 1, 2).expand({3, 2, 6, 10})};
  for (const Tensor& v : views) {
    const Tensor c = v.contiguous();
    ASSERT_FALSE(v.is_contiguous());
    for (int64_t d = 0; d < v.dim(); ++d) {
      EXPECT_TRUE(v.sum({d}).allclose(c.sum({d}), 1e-6, 1e-6));
      const std::vector<int64_t> two = {d, d == v.dim() - 1 ? 0 : -1};
      EXPECT_TRUE(v.sum(two, true).allclose(c.sum(two, true), 1e-6, 1e-6)) << d;
      EXPECT_TRUE(v.mean({d}).allclose(c.mean({d})));
      EXPECT_TRUE(std::get<0>(v.max(d)).equal(std::get<0>(c.max(d))));
      EXPECT_TRUE(std::get<1>(v.min(d, true)).equal(std::get<1>(c.min(d, true))));
      EXPECT_TRUE(v.argmax(d).equal(c.argmax(d)));
      EXPECT_TRUE(v.prod(d).allclose(c.prod(d)));
      EXPECT_TRUE(v.norm(3, {d}).allclose(c.norm(3, {d})));
      EXPECT_TRUE(v.var(std::vector<int64_t>{d}).allclose(c.var(std::vector<int64_t>{d}), 1e-5, 1e-6));
      EXPECT_TRUE(v.gt(0).any(d).equal(c.gt(0).any(d)));
      EXPECT_TRUE(v.softmax(d).allclose(c.softmax(d)));
      EXPECT_TRUE(v.log_softmax(d).allclose(c.log_softmax(d)));
    }
    EXPECT_TRUE(v.sum().allclose(c.sum(), 1e-6));
    EXPECT_EQ(v.argmin().item<int64_t>(), c.argmin().item<int64_t>());
    EXPECT_TRUE(v.equal(c));
  }
}

TEST(ReduceVar, ASingleIntegerDimIsKeptByValue) {
  // t.var(0) once built std::optional<IntArrayRef> from a temporary that died inside optional's
  // constructor (PyTorch's TensorTest.StdDimension caught it).
  const Tensor x = arange(12.0).reshape({4, 3});
  EXPECT_EQ(x.var(0).numel(), 3);
  EXPECT_EQ(x.std(0, /*correction=*/1).numel(), 3);
  EXPECT_TRUE(var(x, 1).allclose(x.var(IntArrayRef({1}))));
  const auto [v, m] = var_mean(x, 0);
  EXPECT_TRUE(m.allclose(x.mean(IntArrayRef({0}))));
  EXPECT_TRUE(v.allclose(x.var(IntArrayRef({0}))));
  EXPECT_EQ(std::get<1>(std_mean(x, std::nullopt, 1, /*keepdim=*/true)).sizes(), IntArrayRef({1, 1}));
}
