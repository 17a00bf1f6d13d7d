// Tensor methods: to / copy_ / clone / contiguous / fill_ / zero_ / item / new_* / requires_grad_ /
// detach / data_ptr / version counter, and float16 / bfloat16 conversions bit for bit, against
// PyTorch 1.13.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "ctorch/ctorch.h"
#include "test_util.h"

using namespace ctorch;

namespace {

using ::ctorch::testing::error_of;

template <class T>
std::vector<T> raw(const Tensor& t) {
  const Tensor c = t.contiguous();
  const T* p = static_cast<const T*>(c.data_ptr());
  return std::vector<T>(p, p + c.numel());
}

template <class T, size_t N>
Tensor from_raw(const T (&bits)[N], ScalarType dtype) {
  std::vector<T> copy(bits, bits + N);
  return from_blob(copy.data(), {static_cast<int64_t>(N)}, TensorOptions(dtype)).clone();
}

template <class T, size_t N>
std::vector<T> vec(const T (&a)[N]) {
  return std::vector<T>(a, a + N);
}

bool is_nan_bits16(uint16_t h, bool bfloat) {
  return bfloat ? ((h & 0x7f80) == 0x7f80 && (h & 0x7f)) : ((h & 0x7c00) == 0x7c00 && (h & 0x3ff));
}

std::vector<int64_t> strides_of(const Tensor& t) { return t.strides().vec(); }

// Bit patterns from PyTorch 1.13.1.
const uint32_t kConvFloatBits[28] = {
    0x00000000, 0x80000000, 0x3f800000, 0xc0200000, 0x477fe000, 0x477fef00, 0x477ff000, 0x322bcc77, 0x33800000,
    0x33000000, 0x3300d959, 0x33c00000, 0x387fc000, 0x38800000, 0x3f801000, 0x3f803000, 0x3dcccccd, 0x3eaaaaab,
    0x7f800000, 0xff800000, 0x7fc00000, 0x49742400, 0xb727c5ac, 0x7f7fc99e, 0x000116c2, 0x3f808000, 0x3f818000,
    0x00010000
};
const uint16_t kConvHalfBits[28] = {
    0x0000, 0x8000, 0x3c00, 0xc100, 0x7bff, 0x7bff, 0x7c00, 0x0000, 0x0001, 0x0000, 0x0001, 0x0002, 0x03ff,
    0x0400, 0x3c00, 0x3c02, 0x2e66, 0x3555, 0x7c00, 0xfc00, 0x7e00, 0x7c00, 0x80a8, 0x7c00, 0x0000, 0x3c04,
    0x3c0c, 0x0000
};
const uint16_t kConvBF16Bits[28] = {
    0x0000, 0x8000, 0x3f80, 0xc020, 0x4780, 0x4780, 0x4780, 0x322c, 0x3380, 0x3300, 0x3301, 0x33c0, 0x3880,
    0x3880, 0x3f80, 0x3f80, 0x3dcd, 0x3eab, 0x7f80, 0xff80, 0xffff, 0x4974, 0xb728, 0x7f80, 0x0001, 0x3f80,
    0x3f82, 0x0001
};
const uint64_t kConvDoubleBits[6] = {
    0x3ff0040000000001, 0x3ff0020000000000, 0x3fb999999999999a, 0x40effdfffffffaa2, 0x01a56e1fc2f8f359,
    0x3e60000000000000
};
const uint16_t kConvDoubleHalfBits[6] = {0x3c01, 0x3c00, 0x2e66, 0x7c00, 0x0000, 0x0000};
const uint16_t kConvDoubleBF16Bits[6] = {0x3f80, 0x3f80, 0x3dcd, 0x4780, 0x0000, 0x3300};
const uint16_t kHalfPatterns[10] = {
    0x0001, 0x03ff, 0x0400, 0x7bff, 0x7c00, 0xfc00, 0x7e00, 0x8001, 0x3c00, 0x3555
};
const uint32_t kHalfPatternFloats[10] = {
    0x33800000, 0x387fc000, 0x38800000, 0x477fe000, 0x7f800000, 0xff800000, 0x7fc00000, 0xb3800000, 0x3f800000,
    0x3eaaa000
};
const uint16_t kBF16Patterns[9] = {0x0001, 0x007f, 0x0080, 0x7f7f, 0x7f80, 0xff80, 0x7fc0, 0x3f80, 0x3eab};
const uint32_t kBF16PatternFloats[9] = {
    0x00010000, 0x007f0000, 0x00800000, 0x7f7f0000, 0x7f800000, 0xff800000, 0x7fc00000, 0x3f800000, 0x3eab0000
};
const size_t kConvNaNIndex = 20;  // float('nan') in kConvFloatBits

}  // namespace

// ---- float16 / bfloat16 conversions -----------------------------------------------------------------------

TEST(HalfConversion, FloatToHalfRoundsToNearestEven) {
  const Tensor f = from_raw(kConvFloatBits, kFloat);
  const std::vector<uint16_t> got = raw<uint16_t>(f.to(kHalf));
  ASSERT_EQ(got.size(), std::size(kConvHalfBits));
  for (size_t i = 0; i < got.size(); ++i) {
    EXPECT_EQ(got[i], kConvHalfBits[i]) << "element " << i;
  }
  // Scalar conversions agree with the tensor ones.
  for (size_t i = 0; i < got.size(); ++i) {
    float v;
    std::memcpy(&v, &kConvFloatBits[i], 4);
    EXPECT_EQ(Half(v).x, kConvHalfBits[i]) << "element " << i;
  }
  EXPECT_EQ(Half(65519.0f).x, 0x7bff);  // below the midpoint to infinity
  EXPECT_EQ(Half(65520.0f).x, 0x7c00);
  EXPECT_EQ(Half(-std::numeric_limits<float>::quiet_NaN()).x & 0x7fff, 0x7e00);
}

TEST(HalfConversion, HalfToFloatIsExact) {
  const Tensor h = from_raw(kHalfPatterns, kHalf);
  EXPECT_EQ(raw<uint32_t>(h.to(kFloat)), vec(kHalfPatternFloats));
  for (size_t i = 0; i < std::size(kHalfPatterns); ++i) {
    const float f = Half::to_float(kHalfPatterns[i]);
    uint32_t u;
    std::memcpy(&u, &f, 4);
    EXPECT_EQ(u, kHalfPatternFloats[i]) << "element " << i;
  }
  // Every finite half survives a round trip through float.
  for (uint32_t x = 0; x < 0x10000; ++x) {
    const uint16_t h16 = static_cast<uint16_t>(x);
    if ((h16 & 0x7c00) == 0x7c00 && (h16 & 0x3ff)) continue;  // NaN
    EXPECT_EQ(Half(Half::to_float(h16)).x, h16) << std::hex << x;
  }
}

TEST(BFloat16Conversion, RoundsToNearestEven) {
  const Tensor f = from_raw(kConvFloatBits, kFloat);
  const std::vector<uint16_t> got = raw<uint16_t>(f.to(kBFloat16));
  for (size_t i = 0; i < got.size(); ++i) {
    if (i == kConvNaNIndex) {
      EXPECT_TRUE(is_nan_bits16(got[i], true));  // PyTorch's vector path writes 0xffff, its scalar path 0x7fc0
    } else {
      EXPECT_EQ(got[i], kConvBF16Bits[i]) << "element " << i;
    }
  }
  EXPECT_EQ(BFloat16(std::numeric_limits<float>::quiet_NaN()).x, 0x7fc0);
  const Tensor b = from_raw(kBF16Patterns, kBFloat16);
  EXPECT_EQ(raw<uint32_t>(b.to(kFloat)), vec(kBF16PatternFloats));
}

TEST(ReducedConversion, DoubleRoundsThroughFloat) {
  const Tensor d = from_raw(kConvDoubleBits, kDouble);
  EXPECT_EQ(raw<uint16_t>(d.to(kHalf)), vec(kConvDoubleHalfBits));
  EXPECT_EQ(raw<uint16_t>(d.to(kBFloat16)), vec(kConvDoubleBF16Bits));
}

TEST(ReducedConversion, BetweenHalfAndBFloat16AndIntegers) {
  const Tensor h = from_raw(kHalfPatterns, kHalf);
  const std::vector<uint16_t> hb = raw<uint16_t>(h.to(kBFloat16));
  const std::vector<uint16_t> want = {0x3380, 0x3880, 0x3880, 0x4780, 0x7f80, 0xff80, 0x7fc0, 0xb380, 0x3f80, 0x3eab};
  EXPECT_EQ(hb, want);
  const Tensor b = from_raw(kBF16Patterns, kBFloat16);
  EXPECT_EQ(raw<uint16_t>(b.to(kHalf)),
            (std::vector<uint16_t>{0x0000, 0x0000, 0x0000, 0x7c00, 0x7c00, 0xfc00, 0x7e00, 0x3c00, 0x3558}));
  EXPECT_EQ(tensor({1.5, -2.5, 300.7}, kHalf).to(kInt8).to_vector<int8_t>(), (std::vector<int8_t>{1, -2, 44}));
  EXPECT_EQ(tensor({-1.5, -2.5, 300.7}, kHalf).to(kUInt8).to_vector<uint8_t>(), (std::vector<uint8_t>{255, 254, 44}));
  EXPECT_EQ(tensor({2049, 65520}).to(kHalf).to_vector<float>(), (std::vector<float>{2048.0f, INFINITY}));
  EXPECT_EQ(tensor({0.5, -0.0, NAN}, kHalf).to(kBool).to_vector<uint8_t>(), (std::vector<uint8_t>{1, 0, 1}));
}

// ---- to() ---------------------------------------------------------------------------------------------------

TEST(TensorTo, ReturnsSelfWhenNothingChanges) {
  Tensor t = tensor({1.0, 2.0});
  EXPECT_TRUE(t.to(kFloat).is_same(t));
  EXPECT_TRUE(t.to(Device("cpu")).is_same(t));
  EXPECT_TRUE(t.to(Device("cpu"), kFloat).is_same(t));
  EXPECT_TRUE(t.to(TensorOptions()).is_same(t));
  EXPECT_TRUE(t.to(tensor({3.0})).is_same(t));
  EXPECT_TRUE(t.cpu().is_same(t));
  EXPECT_TRUE(t.contiguous().is_same(t));
  // copy=true always copies.
  Tensor c = t.to(kFloat, false, true);
  EXPECT_FALSE(c.is_same(t));
  EXPECT_NE(c.data_ptr(), t.data_ptr());
  EXPECT_EQ(c.to_vector<float>(), (std::vector<float>{1, 2}));
  c.fill_(0);
  EXPECT_EQ(t.to_vector<float>(), (std::vector<float>{1, 2}));
  EXPECT_FALSE(t.to(Device("cpu"), false, true).is_same(t));
  Tensor d = t.to(kDouble);
  EXPECT_EQ(d.dtype(), kDouble);
  EXPECT_EQ(t.to(tensor({1}, kInt)).dtype(), kInt);
  EXPECT_EQ(d._version(), 0u);
}

TEST(TensorTo, ConvertsValuesLikePyTorch) {
  Tensor f = tensor({1.7, -1.7, 2.5, -0.5});
  EXPECT_EQ(f.to(kLong).to_vector<int64_t>(), (std::vector<int64_t>{1, -1, 2, 0}));  // truncation
  EXPECT_EQ(f.to(kBool).to_vector<uint8_t>(), (std::vector<uint8_t>{1, 1, 1, 1}));
  EXPECT_EQ(tensor({0.0, -0.0, NAN, 1e-45}).to(kBool).to_vector<uint8_t>(), (std::vector<uint8_t>{0, 0, 1, 1}));
  EXPECT_EQ(tensor({1e-320}, kDouble).to(kBool).to_vector<uint8_t>(), (std::vector<uint8_t>{1}));
  EXPECT_EQ(tensor({256, 0, -1}).to(kBool).to_vector<uint8_t>(), (std::vector<uint8_t>{1, 0, 1}));
  EXPECT_EQ(tensor({true, false}).to(kFloat).to_vector<float>(), (std::vector<float>{1, 0}));
  // Out-of-range floats: uint8 goes through int64, int8/int16 keep the low bits of an int32.
  EXPECT_EQ(tensor({-1.5, -2.5, 300.7, -300.2}).to(kUInt8).to_vector<uint8_t>(), (std::vector<uint8_t>{255, 254, 44, 212}));
  EXPECT_EQ(tensor({-1.5, -2.5, 300.7, -300.2, 1e10}).to(kInt8).to_vector<int8_t>(),
            (std::vector<int8_t>{-1, -2, 44, -44, 0}));
  EXPECT_EQ(tensor({NAN, 1e10}).to(kShort).to_vector<int16_t>(), (std::vector<int16_t>{0, 0}));
  EXPECT_EQ(tensor({NAN, INFINITY}).to(kUInt8).to_vector<uint8_t>(), (std::vector<uint8_t>{0, 0}));
  // Integers narrow by wrapping.
  EXPECT_EQ(tensor({-1000, 300, 255, 256}).to(kUInt8).to_vector<uint8_t>(), (std::vector<uint8_t>{24, 44, 255, 0}));
  EXPECT_EQ(tensor({(int64_t{1} << 24) + 1}).to(kFloat).item<float>(), 16777216.0f);
}

TEST(TensorTo, PreservesDenseStridesAndInfersOthers) {
  // A dense permutation keeps its strides.
  Tensor p = zeros({24}).as_strided({4, 2, 3}, {1, 12, 4});
  EXPECT_EQ(strides_of(p.to(kInt)), (std::vector<int64_t>{1, 12, 4}));
  EXPECT_EQ(strides_of(p.clone()), (std::vector<int64_t>{1, 12, 4}));
  EXPECT_EQ(strides_of(p.contiguous()), (std::vector<int64_t>{6, 3, 1}));
  // Non-dense: dense strides in the same dim order (at::infer_dense_strides).
  Tensor sparse = zeros({24}).as_strided({6, 2}, {1, 12});
  EXPECT_EQ(strides_of(sparse.clone()), (std::vector<int64_t>{1, 6}));
  EXPECT_EQ(strides_of(sparse.to(kDouble)), (std::vector<int64_t>{1, 6}));
  Tensor gaps = zeros({20}).as_strided({2, 2, 3}, {10, 1, 3});
  EXPECT_EQ(strides_of(gaps.clone()), (std::vector<int64_t>{6, 1, 2}));
  Tensor expanded = zeros({3}).as_strided({3, 2}, {1, 0});
  EXPECT_EQ(strides_of(expanded.clone()), (std::vector<int64_t>{2, 1}));
  Tensor transposed = zeros({6}).as_strided({2, 3}, {1, 2});
  EXPECT_EQ(strides_of(transposed.clone()), (std::vector<int64_t>{1, 2}));
}

// ---- copy_ ------------------------------------------------------------------------------------------------------

TEST(TensorCopy, BroadcastsAndConverts) {
  Tensor dst = zeros({2, 3});
  dst.copy_(tensor({1, 2, 3}));
  EXPECT_EQ(dst.to_vector<float>(), (std::vector<float>{1, 2, 3, 1, 2, 3}));
  Tensor i = zeros({3}, kInt);
  i.copy_(tensor({1.7, -1.7, 2.5}));
  EXPECT_EQ(i.to_vector<int32_t>(), (std::vector<int32_t>{1, -1, 2}));
  // copy_ converts downwards freely (no can_cast check).
  Tensor b = zeros({2}, kBool);
  b.copy_(tensor({0.0, 0.5}));
  EXPECT_EQ(b.to_vector<uint8_t>(), (std::vector<uint8_t>{0, 1}));
  Tensor s = zeros({});
  s.copy_(tensor(4));
  EXPECT_EQ(s.item<float>(), 4.0f);
  // Into a non-contiguous view.
  Tensor base = zeros({6});
  base.as_strided({3}, {2}).copy_(tensor({1.0, 2.0, 3.0}));
  EXPECT_EQ(base.to_vector<float>(), (std::vector<float>{1, 0, 2, 0, 3, 0}));
  // From a transposed source.
  Tensor src = arange(6, TensorOptions(kFloat)).as_strided({3, 2}, {1, 3});
  Tensor d2 = empty({3, 2});
  d2.copy_(src);
  EXPECT_EQ(d2.to_vector<float>(), (std::vector<float>{0, 3, 1, 4, 2, 5}));
}

TEST(TensorCopy, ShapeErrorsChangeNothing) {
  Tensor d = tensor({1.0, 2.0});
  const uint32_t v = d._version();
  EXPECT_EQ(error_of([&] { d.copy_(ones({3})); }),
            "The size of tensor a (2) must match the size of tensor b (3) at non-singleton dimension 0");
  Tensor t = tensor({1.0, 2.0, 3.0});
  EXPECT_EQ(error_of([&] { t.copy_(ones({2, 3})); }), "output with shape [3] doesn't match the broadcast shape [2, 3]");
  EXPECT_EQ(d.to_vector<float>(), (std::vector<float>{1, 2}));
  EXPECT_EQ(d._version(), v);
}

TEST(TensorCopy, SelfAndAliasedCopies) {
  Tensor a = tensor({1.0, 2.0});
  const uint32_t v = a._version();
  a.copy_(a);
  EXPECT_EQ(a._version(), v + 1);  // still an in-place op
  a.copy_(a.detach());
  EXPECT_EQ(a.to_vector<float>(), (std::vector<float>{1, 2}));
  EXPECT_EQ(a._version(), v + 2);
  // Disjoint views of one storage.
  Tensor buf = arange(4, TensorOptions(kFloat));
  buf.as_strided({2}, {1}, 0).copy_(buf.as_strided({2}, {1}, 2));
  EXPECT_EQ(buf.to_vector<float>(), (std::vector<float>{2, 3, 2, 3}));
  // Interleaved views (too irregular for the overlap check) still copy correctly.
  Tensor w = arange(6, TensorOptions(kFloat));
  w.as_strided({3}, {2}, 0).copy_(w.as_strided({3}, {2}, 1));
  EXPECT_EQ(w.to_vector<float>(), (std::vector<float>{1, 1, 3, 3, 5, 5}));
}

// ---- clone / contiguous / detach ----------------------------------------------------------------------------------

TEST(TensorClone, IsADeepCopy) {
  Tensor a = tensor({{1, 2}, {3, 4}});
  Tensor c = a.clone();
  EXPECT_NE(c.data_ptr(), a.data_ptr());
  EXPECT_EQ(c.dtype(), kLong);
  EXPECT_EQ(c.to_vector<int64_t>(), a.to_vector<int64_t>());
  c.fill_(0);
  EXPECT_EQ(a.to_vector<int64_t>(), (std::vector<int64_t>{1, 2, 3, 4}));
  EXPECT_EQ(c._version(), 1u);
  EXPECT_EQ(a.clone()._version(), 0u);
  EXPECT_FALSE(a.to(kFloat).requires_grad_(true).clone().is_same(a));
}

TEST(TensorContiguous, CopiesOnlyWhenNeeded) {
  Tensor t = arange(6, TensorOptions(kFloat)).as_strided({3, 2}, {1, 3});
  Tensor c = t.contiguous();
  EXPECT_TRUE(c.is_contiguous());
  EXPECT_EQ(c.to_vector<float>(), (std::vector<float>{0, 3, 1, 4, 2, 5}));
  EXPECT_EQ(c._version(), 0u);
  EXPECT_TRUE(c.contiguous().is_same(c));
  // Size-1 dims may have any stride and still be contiguous.
  Tensor odd = zeros({3}).as_strided({3, 1}, {1, 7});
  EXPECT_TRUE(odd.is_contiguous());
  EXPECT_TRUE(odd.contiguous().is_same(odd));
}

TEST(TensorDetach, SharesStorageAndVersionButNotGrad) {
  Tensor a = tensor({1.0, 2.0}).requires_grad_(true);
  Tensor d = a.detach();
  EXPECT_FALSE(d.requires_grad());
  EXPECT_FALSE(d.is_same(a));
  EXPECT_EQ(d.data_ptr(), a.data_ptr());
  d.add_(1);
  EXPECT_EQ(a.to_vector<float>(), (std::vector<float>{2, 3}));
  EXPECT_EQ(a._version(), 1u);
  EXPECT_EQ(d._version(), 1u);
}

// ---- fill_ / zero_ ---------------------------------------------------------------------------------------------------

TEST(TensorFill, ScalarAndZeroDimValues) {
  Tensor t = empty({2, 2}, kInt);
  t.fill_(7);
  EXPECT_EQ(t.to_vector<int32_t>(), std::vector<int32_t>(4, 7));
  t.fill_(2.9);
  EXPECT_EQ(t.to_vector<int32_t>(), std::vector<int32_t>(4, 2));
  t.fill_(tensor(3.7));
  EXPECT_EQ(t.to_vector<int32_t>(), std::vector<int32_t>(4, 3));
  t.zero_();
  EXPECT_EQ(t.to_vector<int32_t>(), std::vector<int32_t>(4, 0));
  EXPECT_EQ(t._version(), 4u);
  Tensor b = zeros({2}, kBool);
  b.fill_(-1);
  EXPECT_EQ(b.to_vector<uint8_t>(), (std::vector<uint8_t>{1, 1}));
  b.fill_(0.5);
  EXPECT_EQ(b.to_vector<uint8_t>(), (std::vector<uint8_t>{1, 1}));
  Tensor view = zeros({6});
  view.as_strided({3}, {2}, 1).fill_(1);
  EXPECT_EQ(view.to_vector<float>(), (std::vector<float>{0, 1, 0, 1, 0, 1}));
  Tensor h = zeros({1}, kHalf);
  h.fill_(0.1);
  EXPECT_EQ(raw<uint16_t>(h), (std::vector<uint16_t>{0x2e66}));
}

TEST(TensorFill, ErrorsChangeNothing) {
  Tensor t = zeros({2}, kInt8);
  EXPECT_EQ(error_of([&] { t.fill_(1000); }), "value cannot be converted to type int8_t without overflow");
  EXPECT_EQ(error_of([&] { t.fill_(tensor(1000)); }), "value cannot be converted to type int8_t without overflow");
  Tensor f = zeros({2});
  EXPECT_EQ(error_of([&] { f.fill_(tensor({3.0})); }),
            "fill_ only supports 0-dimension value tensor but got tensor with 1 dimensions.");
  EXPECT_EQ(error_of([&] { f.fill_(1e300); }), "value cannot be converted to type float without overflow");
  EXPECT_EQ(t.to_vector<int8_t>(), (std::vector<int8_t>{0, 0}));
  EXPECT_EQ(t._version(), 0u);
  EXPECT_EQ(f._version(), 0u);
  Tensor e = zeros({0});
  e.fill_(1);
  EXPECT_EQ(e._version(), 1u);
}

// ---- item / data_ptr / size ------------------------------------------------------------------------------------------

TEST(TensorItem, ValuesAndErrors) {
  EXPECT_EQ(tensor(1.5).item().to_double(), 1.5);
  EXPECT_TRUE(tensor(1.5).item().is_floating_point());
  EXPECT_TRUE(tensor(3).item().is_integral(false));
  EXPECT_TRUE(tensor(true).item().is_bool());
  EXPECT_EQ(tensor({7}, kInt8).item<int64_t>(), 7);
  EXPECT_EQ(tensor({{2.5}}, kHalf).item<float>(), 2.5f);
  EXPECT_EQ(tensor({2.5}, kBFloat16).item<double>(), 2.5);
  EXPECT_EQ(tensor(300).item<uint8_t>(), 44);
  EXPECT_EQ(error_of([] { tensor({1, 2}).item(); }), "a Tensor with 2 elements cannot be converted to Scalar");
  EXPECT_EQ(error_of([] { zeros({0}).item(); }), "a Tensor with 0 elements cannot be converted to Scalar");
  EXPECT_EQ(error_of([] { zeros({2, 3}).item<float>(); }), "a Tensor with 6 elements cannot be converted to Scalar");
}

TEST(TensorDataPtr, TypedAccessChecksTheDtype) {
  Tensor f = tensor({1.0, 2.0});
  EXPECT_EQ(f.data_ptr<float>()[1], 2.0f);
  EXPECT_EQ(error_of([&] { f.data_ptr<int64_t>(); }), "expected scalar type Long but found Float");
  EXPECT_EQ(error_of([] { tensor({1}).data_ptr<float>(); }), "expected scalar type Float but found Long");
  EXPECT_EQ(error_of([] { tensor({true}).data_ptr<uint8_t>(); }), "expected scalar type Byte but found Bool");
  EXPECT_EQ(error_of([] { tensor({1.0}, kHalf).data_ptr<BFloat16>(); }), "expected scalar type BFloat16 but found Half");
  Tensor s = zeros({4}).as_strided({2}, {1}, 2);
  EXPECT_EQ(static_cast<char*>(s.data_ptr()) - static_cast<char*>(s.impl()->storage()->data()), 8);
}

TEST(TensorSize, DimsWrapAndZeroDimHasNone) {
  Tensor t = zeros({2, 3});
  EXPECT_EQ(t.size(-1), 3);
  EXPECT_EQ(t.stride(0), 3);
  EXPECT_EQ(error_of<IndexError>([&] { t.size(2); }), "Dimension out of range (expected to be in range of [-2, 1], but got 2)");
  EXPECT_EQ(error_of<IndexError>([&] { t.stride(-3); }),
            "Dimension out of range (expected to be in range of [-2, 1], but got -3)");
  EXPECT_EQ(error_of<IndexError>([] { tensor(1).size(0); }), "Dimension specified as 0 but tensor has no dimensions");
  EXPECT_EQ(error_of<IndexError>([] { tensor(1).stride(-1); }), "Dimension specified as -1 but tensor has no dimensions");
}

// ---- requires_grad_ -------------------------------------------------------------------------------------------------

TEST(TensorRequiresGrad, OnlyFloatingTensors) {
  Tensor f = tensor({1.0});
  EXPECT_TRUE(f.requires_grad_().requires_grad());
  EXPECT_FALSE(f.requires_grad_(false).requires_grad());
  EXPECT_TRUE(tensor({1.0}, kHalf).requires_grad_().requires_grad());
  const std::string msg = "only Tensors of floating point dtype can require gradients";
  Tensor i = tensor({1});
  EXPECT_EQ(error_of([&] { i.requires_grad_(); }), msg);
  EXPECT_EQ(error_of([] { tensor({true}).set_requires_grad(true); }), msg);
  EXPECT_FALSE(i.requires_grad());
  EXPECT_FALSE(i.requires_grad_(false).requires_grad());
}

// ---- version counter ------------------------------------------------------------------------------------------------

TEST(TensorVersion, InPlaceOpsBumpOnceAndViewsShareIt) {
  Tensor a = zeros({4});
  Tensor v = a.as_strided({2}, {2});
  EXPECT_EQ(a._version(), 0u);
  a.add_(1);
  EXPECT_EQ(a._version(), 1u);
  EXPECT_EQ(v._version(), 1u);
  v.mul_(2);
  EXPECT_EQ(a._version(), 2u);
  v.exp_();
  a.zero_();
  a.fill_(3);
  a.copy_(ones({4}));
  a.clamp_(0, 1);
  a.div_(tensor({1.0}, kDouble));  // promoted, computed out of place, copied back: still one bump
  EXPECT_EQ(a._version(), 8u);
  EXPECT_EQ(v._version(), 8u);
  // Out-of-place ops and conversions do not bump.
  Tensor b = a + 1;
  Tensor c = a.to(kDouble);
  Tensor d = a.clone();
  Tensor e = a.contiguous();
  EXPECT_EQ(a._version(), 8u);
  EXPECT_EQ(b._version(), 0u);
  // Failed in-place ops do not bump.
  EXPECT_THROW(a.add_(ones({2})), Error);
  EXPECT_THROW(tensor({1}).add_(0.5), Error);
  EXPECT_EQ(a._version(), 8u);
  // Writes through from_blob storage are counted too.
  float data[2] = {1, 2};
  Tensor blob = from_blob(data, {2});
  blob.neg_();
  EXPECT_EQ(blob._version(), 1u);
  EXPECT_EQ(data[0], -1.0f);
}
