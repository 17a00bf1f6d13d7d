// Elementwise ops (binary, unary, comparison, logical, where, clamp) against PyTorch 1.13:
// values and dtypes, every error path (type, message, and that a failed call changes nothing),
// reduced-precision rounding, strided and aliased operands, empty and 0-dim tensors, and
// tensors large enough to run on the thread pool. Bit patterns come from PyTorch 1.13.1.
#include "unit/elementwise_test_util.h"

using namespace ctorch;
using namespace elementwise_test;


// ---- arithmetic ----------------------------------------------------------------------------------

TEST(ElementwiseArith, AddSubMulValuesAndDtypes) {
  Tensor a = tensor({{1, 2, 3}, {4, 5, 6}});
  Tensor b = tensor({10, 20, 30});
  EXPECT_EQ(longs(a + b), (std::vector<int64_t>{11, 22, 33, 14, 25, 36}));
  EXPECT_EQ(longs(a - b), (std::vector<int64_t>{-9, -18, -27, -6, -15, -24}));
  EXPECT_EQ(longs(a * b), (std::vector<int64_t>{10, 40, 90, 40, 100, 180}));
  EXPECT_EQ((a + b).dtype(), kLong);
  EXPECT_EQ((a + b).sizes(), IntArrayRef({2, 3}));
  Tensor f = tensor({0.5, 1.5, -2.0});
  EXPECT_EQ((b + f).dtype(), kFloat);
  EXPECT_EQ(floats(b + f), (std::vector<float>{10.5f, 21.5f, 28.0f}));
  EXPECT_EQ(floats(b * 0.5), (std::vector<float>{5, 10, 15}));
  EXPECT_EQ((b * 0.5).dtype(), kFloat);
  EXPECT_EQ(longs(b - 1), (std::vector<int64_t>{9, 19, 29}));
  // Scalar on the left.
  EXPECT_EQ(longs(1 - b), (std::vector<int64_t>{-9, -19, -29}));
  EXPECT_EQ(longs(2 * b), (std::vector<int64_t>{20, 40, 60}));
  EXPECT_EQ(longs(5 + b), (std::vector<int64_t>{15, 25, 35}));
  EXPECT_EQ(floats(60 / b), (std::vector<float>{6, 3, 2}));
  EXPECT_EQ((60 / b).dtype(), kFloat);
  EXPECT_EQ(floats(1.5 - f), (std::vector<float>{1.0f, 0.0f, 3.5f}));
  // Free functions.
  EXPECT_EQ(longs(ctorch::add(b, b, 3)), (std::vector<int64_t>{40, 80, 120}));
  EXPECT_EQ(longs(ctorch::sub(b, b, 2)), (std::vector<int64_t>{-10, -20, -30}));
  EXPECT_EQ(longs(ctorch::mul(b, b)), (std::vector<int64_t>{100, 400, 900}));
}

TEST(ElementwiseArith, BoolArithmetic) {
  Tensor t = tensor({true, false});
  Tensor f = tensor({true, true});
  EXPECT_EQ(bools(t + t), (std::vector<uint8_t>{1, 0}));
  EXPECT_EQ(bools(t * f), (std::vector<uint8_t>{1, 0}));
  EXPECT_EQ(bools(tensor({false, false}).add(t, 2)), (std::vector<uint8_t>{1, 0}));
  EXPECT_EQ(bools(t.add(t, true)), (std::vector<uint8_t>{1, 0}));
  EXPECT_EQ((t + 1).dtype(), kLong);
  EXPECT_EQ(longs(t + 1), (std::vector<int64_t>{2, 1}));
  EXPECT_EQ((t * 1.5).dtype(), kFloat);
}

TEST(ElementwiseArith, IntegerOverflowWrapsAround) {
  EXPECT_EQ(longs(tensor({INT64_MAX}) + 1), (std::vector<int64_t>{INT64_MIN}));
  EXPECT_EQ(longs(tensor({int64_t{1} << 62}) * 4), (std::vector<int64_t>{0}));
  EXPECT_EQ(values<int32_t>(tensor({INT32_MAX}, kInt) + 1), (std::vector<int32_t>{INT32_MIN}));
  EXPECT_EQ(values<int32_t>(-tensor({INT32_MIN}, kInt)), (std::vector<int32_t>{INT32_MIN}));
  EXPECT_EQ(values<int8_t>(tensor({100}, kInt8) + tensor({100}, kInt8)), (std::vector<int8_t>{-56}));
  EXPECT_EQ(values<uint8_t>(tensor({1}, kUInt8) - 2), (std::vector<uint8_t>{255}));
  EXPECT_EQ(values<uint8_t>(-tensor({1, 0}, kUInt8)), (std::vector<uint8_t>{255, 0}));
  EXPECT_EQ(values<int8_t>(tensor({1}, kInt8).add(tensor({1}, kInt8), 100)), (std::vector<int8_t>{101}));
  EXPECT_EQ(values<int8_t>(tensor({0}, kInt8) + 1000), (std::vector<int8_t>{-24}));  // the scalar wraps
  EXPECT_EQ(longs(tensor({int64_t{1} << 62, 3}).pow(3)), (std::vector<int64_t>{0, 27}));
}

TEST(ElementwiseArith, AlphaScalesTheSecondOperand) {
  EXPECT_EQ(longs(tensor({1, 2}).add(tensor({10, 20}), 3)), (std::vector<int64_t>{31, 62}));
  EXPECT_EQ(longs(tensor({1, 2}).sub(tensor({10, 20}), 2)), (std::vector<int64_t>{-19, -38}));
  EXPECT_EQ(longs(tensor({1, 2}).add(5, -2)), (std::vector<int64_t>{-9, -8}));
  EXPECT_EQ(floats(tensor({1.0, 2.0}).add(tensor({1.0, 1.0}), 0.5)), (std::vector<float>{1.5f, 2.5f}));
  // A float alpha is fine when the computation is floating, even for an integer self.
  Tensor r = tensor({1}).add(tensor({1.5}), 2.5);
  EXPECT_EQ(r.dtype(), kFloat);
  EXPECT_EQ(floats(r), (std::vector<float>{4.75f}));
  Tensor s = tensor({1}).add_(tensor({2}), 3);
  EXPECT_EQ(longs(s), (std::vector<int64_t>{7}));
}

TEST(ElementwiseArith, AlphaErrors) {
  const std::string float_alpha = "For integral input tensors, argument alpha must not be a floating point number.";
  const std::string bool_alpha = "Boolean alpha only supported for Boolean results.";
  EXPECT_EQ(error_of([] { tensor({1}).add(1, 2.5); }), float_alpha);
  EXPECT_EQ(error_of([] { tensor({1}).add(tensor({1}), 2.5); }), float_alpha);
  EXPECT_EQ(error_of([] { tensor({1}).sub(tensor({1}), 0.5); }), float_alpha);
  EXPECT_EQ(error_of([] { tensor({true}).add(tensor({true}), 0.5); }), float_alpha);
  EXPECT_EQ(error_of([] { tensor({1}).add(1, true); }), bool_alpha);
  EXPECT_EQ(error_of([] { tensor({1.0}).add(1, true); }), bool_alpha);
  EXPECT_EQ(error_of([] { tensor({1}, kInt8).add(tensor({1}, kInt8), 1000); }),
            "value cannot be converted to type int8_t without overflow");
  EXPECT_EQ(error_of([] { tensor({1.0}, kHalf).add(tensor({1.0}, kHalf), 1e6); }),
            "value cannot be converted to type at::Half without overflow");
  Tensor a = tensor({1, 2});
  const uint32_t v = a._version();
  EXPECT_EQ(error_of([&] { a.add_(tensor({1, 1}), 1.5); }), float_alpha);
  EXPECT_EQ(error_of([&] { a.sub_(1, 0.5); }), float_alpha);
  EXPECT_EQ(longs(a), (std::vector<int64_t>{1, 2}));
  EXPECT_EQ(a._version(), v);
}

TEST(ElementwiseArith, SubtractionRejectsBool) {
  const std::string two = "Subtraction, the `-` operator, with two bool tensors is not supported. Use the `^` or "
                          "`logical_xor()` operator instead.";
  const std::string one = "Subtraction, the `-` operator, with a bool tensor is not supported. If you are trying to "
                          "invert a mask, use the `~` or `logical_not()` operator instead.";
  Tensor b = tensor({true, false});
  EXPECT_EQ(error_of([&] { b - b; }), two);
  EXPECT_EQ(error_of([&] { b - true; }), two);
  EXPECT_EQ(error_of([&] { b - 1; }), one);
  EXPECT_EQ(error_of([&] { tensor({1}) - b; }), one);
  EXPECT_EQ(error_of([&] { tensor({1}) - true; }), one);
  EXPECT_EQ(error_of([&] { 1 - b; }), one);
  EXPECT_EQ(error_of([&] { tensor({1.5}).sub_(tensor({true})); }), one);
  EXPECT_EQ(bools(b), (std::vector<uint8_t>{1, 0}));
}

TEST(ElementwiseArith, TrueDivisionPromotesIntegers) {
  Tensor r = tensor({7, -7, 7, -7, 0, 5}) / tensor({2, 2, -2, -2, 3, 3});
  EXPECT_EQ(r.dtype(), kFloat);
  EXPECT_EQ(floats(r), (std::vector<float>{3.5f, -3.5f, -3.5f, 3.5f, 0.0f, 5.0f / 3.0f}));
  EXPECT_EQ((tensor({true}) / tensor({true})).dtype(), kFloat);
  EXPECT_EQ((tensor({1}, kUInt8) / 2).dtype(), kFloat);
  EXPECT_EQ((tensor({1.0}, kHalf) / 2).dtype(), kHalf);
  EXPECT_EQ((tensor({1.0}, kDouble) / tensor({2})).dtype(), kDouble);
  // Division by zero follows IEEE for floats, and integers divide as floats.
  expect_same_floats(floats(tensor({1.0, -1.0, 0.0}) / 0), {kInf, -kInf, kNaN});
  expect_same_floats(floats(tensor({1, -1, 0}) / 0), {kInf, -kInf, kNaN});
  expect_same_floats(floats(tensor({1.0, -1.0}) / tensor({0.0, -0.0})), {kInf, kInf});
}

TEST(ElementwiseArith, RoundingModes) {
  Tensor a = tensor({7, -7, 7, -7, 0, 5});
  Tensor b = tensor({2, 2, -2, -2, 3, 3});
  EXPECT_EQ(a.div(b, "trunc").dtype(), kLong);
  EXPECT_EQ(longs(a.div(b, "trunc")), (std::vector<int64_t>{3, -3, -3, 3, 0, 1}));
  EXPECT_EQ(longs(a.div(b, "floor")), (std::vector<int64_t>{3, -4, -4, 3, 0, 1}));
  EXPECT_EQ(longs(tensor({7, -7}).div(2, "floor")), (std::vector<int64_t>{3, -4}));
  EXPECT_EQ(values<uint8_t>(tensor({7, 255}, kUInt8).div(2, "floor")), (std::vector<uint8_t>{3, 127}));
  Tensor fa = tensor({7.5, -7.5, 7.5, -7.5, 0.0, 0.5});
  Tensor fb = tensor({2.0, 2.0, -2.0, -2.0, 3.0, -3.0});
  expect_same_floats(floats(fa.div(fb, "trunc")), {3, -3, -3, 3, 0.0f, -0.0f});
  expect_same_floats(floats(fa.div(fb, "floor")), {3, -4, -4, 3, 0.0f, -1.0f});
  expect_same_floats(floats(tensor({7, -7}).div(2.5, "floor")), {2, -3});
  EXPECT_EQ(tensor({7, -7}).div(2.5, "floor").dtype(), kFloat);
  // Floating division by zero with a rounding mode keeps IEEE results.
  Tensor z = zeros({5});
  expect_same_floats(floats(tensor({5.0, -5.0, 1.0, 0.0, -1.0}).div(z, "floor")), {kInf, -kInf, kInf, kNaN, -kInf});
  expect_same_floats(floats(tensor({5.0, -5.0, 1.0, 0.0, -1.0}).div(z, "trunc")), {kInf, -kInf, kInf, kNaN, -kInf});
  // In place.
  Tensor c = tensor({7, -7});
  c.div_(2, "floor");
  EXPECT_EQ(longs(c), (std::vector<int64_t>{3, -4}));
  c.div_(tensor({2, 2}), "trunc");
  EXPECT_EQ(longs(c), (std::vector<int64_t>{1, -2}));
}

TEST(ElementwiseArith, RoundingModeErrors) {
  EXPECT_EQ(error_of([] { tensor({1}).div(2, "bad"); }),
            "div expected rounding_mode to be one of None, 'trunc', or 'floor' but found 'bad'");
  EXPECT_EQ(error_of([] { tensor({1}).div(tensor({2}), "round"); }),
            "div expected rounding_mode to be one of None, 'trunc', or 'floor' but found 'round'");
  EXPECT_EQ(error_of([] { tensor({true}).div(tensor({true}), "floor"); }),
            "\"div_floor_cpu\" not implemented for 'Bool'");
  EXPECT_EQ(error_of([] { tensor({true}).div(tensor({true}), "trunc"); }),
            "\"div_trunc_cpu\" not implemented for 'Bool'");
  EXPECT_EQ(error_of([] { tensor({true}).remainder(tensor({true})); }), "\"remainder_cpu\" not implemented for 'Bool'");
}

TEST(ElementwiseArith, IntegerDivisionByZeroRaises) {
  EXPECT_EQ(error_of([] { tensor({1}).div(0, "trunc"); }), "ZeroDivisionError");
  EXPECT_EQ(error_of([] { tensor({1, 2}).div(tensor({1, 0}), "floor"); }), "ZeroDivisionError");
  EXPECT_EQ(error_of([] { tensor({1}).remainder(0); }), "ZeroDivisionError");
  EXPECT_EQ(error_of([] { tensor({1}).remainder(tensor({0})); }), "ZeroDivisionError");
  // The scalar is converted to the computation dtype first: 256 is 0 as int8.
  EXPECT_EQ(error_of([] { tensor({1, 2}, kInt8).remainder(256); }), "ZeroDivisionError");
  EXPECT_EQ(error_of([] { tensor({1, 2}, kInt8).div(256, "floor"); }), "ZeroDivisionError");
  EXPECT_EQ(error_of([] { tensor({1}, kUInt8).div(tensor({0}, kUInt8), "floor"); }), "ZeroDivisionError");
  // A failed in-place division leaves the tensor and its version alone.
  Tensor a = tensor({5, 6});
  const uint32_t v = a._version();
  EXPECT_EQ(error_of([&] { a.div_(tensor({1, 0}), "floor"); }), "ZeroDivisionError");
  EXPECT_EQ(error_of([&] { a.remainder_(0); }), "ZeroDivisionError");
  EXPECT_EQ(longs(a), (std::vector<int64_t>{5, 6}));
  EXPECT_EQ(a._version(), v);
  // Floating remainder by zero is NaN.
  expect_same_floats(floats(tensor({5.0, -5.0, 1.0, 0.0, -1.0}).remainder(0.0)), {kNaN, kNaN, kNaN, kNaN, kNaN});
}

TEST(ElementwiseArith, RemainderTakesTheSignOfTheDivisor) {
  EXPECT_EQ(longs(tensor({5, -5, 5, -5, 6, 0}).remainder(tensor({3, 3, -3, -3, 3, -3}))),
            (std::vector<int64_t>{2, 1, -1, -2, 0, 0}));
  EXPECT_EQ(longs(tensor({5, -5}).remainder(3)), (std::vector<int64_t>{2, 1}));
  expect_same_floats(floats(tensor({5.5, -5.5, 5.5, -5.5, 6.0, -0.0}).remainder(tensor({3.0, 3.0, -3.0, -3.0, 3.0, 3.0}))),
                     {2.5f, 0.5f, -0.5f, -2.5f, 0.0f, -0.0f});
  expect_same_floats(floats(tensor({5, -5}).remainder(-2.5)), {0.0f, -0.0f});
  EXPECT_EQ(tensor({5, -5}).remainder(-2.5).dtype(), kFloat);
  Tensor a = tensor({-7, 7});
  a.remainder_(4);
  EXPECT_EQ(longs(a), (std::vector<int64_t>{1, 3}));
  EXPECT_EQ(error_of([] { tensor({1}).remainder_(1.5); }), kCastLong);
}

TEST(ElementwisePow, ValuesAndDtypes) {
  EXPECT_EQ(longs(tensor({2, 3}).pow(2)), (std::vector<int64_t>{4, 9}));
  EXPECT_EQ(tensor({2, 3}).pow(2).dtype(), kLong);
  EXPECT_EQ(values<int32_t>(tensor({1, 2}, kInt).pow(tensor(2))), (std::vector<int32_t>{1, 4}));
  EXPECT_EQ(tensor({2, 3}).pow(0.5).dtype(), kFloat);
  EXPECT_EQ(floats(tensor({3}, kInt8).pow(2.0)), (std::vector<float>{9.0f}));
  EXPECT_EQ(floats(tensor({1.0, 2.0}).pow(tensor({2, 3}))), (std::vector<float>{1, 8}));
  EXPECT_EQ(floats(tensor({1, 2}).pow(tensor({2.0, 3.0}))), (std::vector<float>{1, 8}));
  EXPECT_EQ(longs(tensor({1, 2}).pow(true)), (std::vector<int64_t>{1, 2}));
  EXPECT_EQ(longs(tensor({5, -5}).pow(0)), (std::vector<int64_t>{1, 1}));
  // Tensor exponents may be negative integers: 1 for base 1, +-1 for base -1, else 0.
  EXPECT_EQ(longs(tensor({2, -3, 0, 1, -1}).pow(tensor({-2, -1, -1, -5, -3}))), (std::vector<int64_t>{0, 0, 0, 1, -1}));
  expect_same_floats(floats(tensor({0.0, -1.0}).pow(tensor({-1.0, 0.5}))), {kInf, kNaN});
  // Scalar base.
  EXPECT_EQ(longs(ctorch::pow(2, tensor({1, 2}))), (std::vector<int64_t>{2, 4}));
  EXPECT_EQ(longs(ctorch::pow(-2, tensor({-2, 3}))), (std::vector<int64_t>{0, -8}));
  EXPECT_EQ(floats(ctorch::pow(2.5, tensor({2}))), (std::vector<float>{6.25f}));
  EXPECT_EQ(ctorch::pow(2.5, tensor({2})).dtype(), kFloat);
  EXPECT_EQ(longs(ctorch::pow(true, tensor({-2, 3}))), (std::vector<int64_t>{1, 1}));
  Tensor one = ctorch::pow(1, tensor({1.5, kNaN}));
  EXPECT_EQ(one.dtype(), kFloat);
  EXPECT_EQ(floats(one), (std::vector<float>{1, 1}));
  EXPECT_EQ(floats(tensor({kNaN}).pow(0)), (std::vector<float>{1}));
  Tensor h = ctorch::pow(2, tensor({0.5}, kHalf));
  EXPECT_EQ(h.dtype(), kHalf);
  EXPECT_EQ(bits16(h), (std::vector<uint16_t>{0x3da8}));  // 1.4141 in float16
}

TEST(ElementwisePow, IntegerNegativeScalarExponentsAreErrors) {
  const std::string msg = "Integers to negative integer powers are not allowed.";
  EXPECT_EQ(error_of([] { tensor({2}).pow(-1); }), msg);
  EXPECT_EQ(error_of([] { tensor({2}, kUInt8).pow(-1); }), msg);
  EXPECT_EQ(error_of([] { tensor({true}).pow(-1); }), msg);
  EXPECT_EQ(floats(tensor({3}).pow(-1.0)), (std::vector<float>{1.0f / 3.0f}));
  Tensor a = tensor({2, 3});
  EXPECT_EQ(error_of([&] { a.pow_(-2); }), msg);
  EXPECT_EQ(error_of([] { tensor({3}, kInt8).pow(300); }), "value cannot be converted to type int8_t without overflow");
  EXPECT_EQ(error_of([] { tensor({3.0}, kHalf).pow(1e6); }), "value cannot be converted to type at::Half without overflow");
  // pow_ with a promoting exponent fails PyTorch's output dtype check.
  EXPECT_EQ(error_of([&] { a.pow_(0.5); }), "Found dtype Long but expected Float");
  EXPECT_EQ(error_of([] { tensor({true}).pow_(2); }), "Found dtype Bool but expected Long");
  EXPECT_EQ(error_of([&] { a.pow_(tensor({0.5})); }), kCastLong);
  EXPECT_EQ(longs(a), (std::vector<int64_t>{2, 3}));
  a.pow_(3);
  EXPECT_EQ(longs(a), (std::vector<int64_t>{8, 27}));
}

TEST(ElementwiseMinMax, MaximumAndMinimumPropagateNaN) {
  Tensor a = tensor({1.0, kNaN, 3.0});
  Tensor b = tensor({kNaN, 2.0, -1.0});
  expect_same_floats(floats(a.maximum(b)), {kNaN, kNaN, 3.0f});
  expect_same_floats(floats(a.minimum(b)), {kNaN, kNaN, -1.0f});
  expect_same_floats(floats(ctorch::maximum(b, a)), {kNaN, kNaN, 3.0f});
  Tensor m = tensor({1, 5}).maximum(tensor({3.5, 2.0}));
  EXPECT_EQ(m.dtype(), kFloat);
  EXPECT_EQ(floats(m), (std::vector<float>{3.5f, 5.0f}));
  EXPECT_EQ(longs(tensor({1, 5}).minimum(tensor({3, 2}))), (std::vector<int64_t>{1, 2}));
  EXPECT_EQ(bools(tensor({true, false}).maximum(tensor({false, false}))), (std::vector<uint8_t>{1, 0}));
  EXPECT_EQ(bools(tensor({true, false}).minimum(tensor({true, true}))), (std::vector<uint8_t>{1, 0}));
  EXPECT_EQ(longs(tensor({{1}, {4}}).maximum(tensor({2, 3}))), (std::vector<int64_t>{2, 3, 4, 4}));
}

// ---- comparison and logical ops -----------------------------------------------------------------

TEST(ElementwiseCompare, TensorAndScalarFormsGiveBool) {
  Tensor a = tensor({1, 2, 3});
  Tensor b = tensor({3, 2, 1});
  EXPECT_EQ(bools(a == b), (std::vector<uint8_t>{0, 1, 0}));
  EXPECT_EQ(bools(a != b), (std::vector<uint8_t>{1, 0, 1}));
  EXPECT_EQ(bools(a < b), (std::vector<uint8_t>{1, 0, 0}));
  EXPECT_EQ(bools(a <= b), (std::vector<uint8_t>{1, 1, 0}));
  EXPECT_EQ(bools(a > b), (std::vector<uint8_t>{0, 0, 1}));
  EXPECT_EQ(bools(a >= b), (std::vector<uint8_t>{0, 1, 1}));
  EXPECT_EQ(bools(a == 2), (std::vector<uint8_t>{0, 1, 0}));
  EXPECT_EQ(bools(a.ne(2)), (std::vector<uint8_t>{1, 0, 1}));
  EXPECT_EQ(bools(a.lt(2)), (std::vector<uint8_t>{1, 0, 0}));
  EXPECT_EQ(bools(a.le(2)), (std::vector<uint8_t>{1, 1, 0}));
  EXPECT_EQ(bools(a.gt(2)), (std::vector<uint8_t>{0, 0, 1}));
  EXPECT_EQ(bools(a.ge(2)), (std::vector<uint8_t>{0, 1, 1}));
  EXPECT_EQ(bools(ctorch::eq(a, b)), (std::vector<uint8_t>{0, 1, 0}));
  // Promotion before comparing: 2 == 2.5 is false, not 2 == 2.
  EXPECT_EQ(bools(tensor({2, 3}) == 2.5), (std::vector<uint8_t>{0, 0}));
  EXPECT_EQ(bools(tensor({2, 3}) < 2.5), (std::vector<uint8_t>{1, 0}));
  // uint8 with a negative number: the number wraps to the tensor's dtype first (-1 is 255).
  EXPECT_EQ(bools(tensor({0, 5, 255}, kUInt8) < -1), (std::vector<uint8_t>{1, 1, 0}));
  EXPECT_EQ(bools(tensor({0, 5, 255}, kUInt8) == 256), (std::vector<uint8_t>{1, 0, 0}));
  // NaN compares unequal to everything.
  EXPECT_EQ(bools(tensor({1.0, kNaN}) < tensor({2.0, 1.0})), (std::vector<uint8_t>{1, 0}));
  EXPECT_EQ(bools(tensor({1.0, kNaN}) != tensor({1.0, kNaN})), (std::vector<uint8_t>{0, 1}));
  EXPECT_EQ(bools(tensor({1.0, kNaN}) == tensor({1.0, kNaN})), (std::vector<uint8_t>{1, 0}));
  // Broadcasting.
  Tensor g = tensor({{1}, {3}}) >= tensor({1, 2, 3});
  EXPECT_EQ(g.sizes(), IntArrayRef({2, 3}));
  EXPECT_EQ(bools(g), (std::vector<uint8_t>{1, 0, 0, 1, 1, 1}));
  EXPECT_EQ((tensor({1.0}, kHalf) < tensor({2}, kInt8)).dtype(), kBool);
}

TEST(ElementwiseLogical, AnyDtypeGivesBool) {
  Tensor a = tensor({0, 1, 2, 0});
  Tensor b = tensor({0.0, 0.0, 3.5, 1.0});
  EXPECT_EQ(bools(a.logical_and(b)), (std::vector<uint8_t>{0, 0, 1, 0}));
  EXPECT_EQ(bools(a.logical_or(b)), (std::vector<uint8_t>{0, 1, 1, 1}));
  EXPECT_EQ(bools(a.logical_xor(b)), (std::vector<uint8_t>{0, 1, 0, 1}));
  EXPECT_EQ(bools(tensor({0.0, -0.0, 2.0, kNaN}).logical_not()), (std::vector<uint8_t>{1, 1, 0, 0}));
  EXPECT_EQ(bools(!tensor({true, false})), (std::vector<uint8_t>{0, 1}));
  EXPECT_EQ(bools(tensor({true, false}) && tensor({true, true})), (std::vector<uint8_t>{1, 0}));
  EXPECT_EQ(bools(tensor({true, false}) || tensor({false, false})), (std::vector<uint8_t>{1, 0}));
  EXPECT_EQ(bools(ctorch::logical_xor(tensor({1, 0}, kInt8), tensor({{1}, {0}}, kUInt8))),
            (std::vector<uint8_t>{0, 1, 1, 0}));
}

// ---- where -----------------------------------------------------------------------------------------

TEST(ElementwiseWhere, BroadcastsAndPromotes) {
  Tensor w = where(tensor({{true}, {false}}), tensor({1, 2, 3}), tensor({10.5}));
  EXPECT_EQ(w.dtype(), kFloat);
  EXPECT_EQ(w.sizes(), IntArrayRef({2, 3}));
  EXPECT_EQ(floats(w), (std::vector<float>{1, 2, 3, 10.5f, 10.5f, 10.5f}));
  EXPECT_EQ(longs(where(tensor({true, false, true}), tensor({1, 2, 3}), tensor({-1, -2, -3}))),
            (std::vector<int64_t>{1, -2, 3}));
  EXPECT_EQ(where(tensor({true}), tensor({1}, kInt8), tensor({1}, kUInt8)).dtype(), kShort);
  EXPECT_EQ(where(tensor({true}), tensor({1}, kInt), tensor(2)).dtype(), kInt);  // 0-dim: category only
  // uint8 conditions are accepted (deprecated in PyTorch).
  EXPECT_EQ(longs(where(tensor({1, 0}, kUInt8), tensor({1}), tensor({2}))), (std::vector<int64_t>{1, 2}));
}

TEST(ElementwiseWhere, ScalarOperandsPromoteAsWrappedNumbers) {
  Tensor c = tensor({true, false});
  Tensor h = where(c, 2, tensor({1.5, 2.5}, kHalf));
  EXPECT_EQ(h.dtype(), kHalf);
  EXPECT_EQ(floats(h), (std::vector<float>{2.0f, 2.5f}));
  Tensor f = where(c, 2.5, tensor({1, 2}, kInt));
  EXPECT_EQ(f.dtype(), kFloat);
  EXPECT_EQ(floats(f), (std::vector<float>{2.5f, 2.0f}));
  Tensor i = where(c, tensor({1, 2}, kInt), 7);
  EXPECT_EQ(i.dtype(), kInt);
  EXPECT_EQ(values<int32_t>(i), (std::vector<int32_t>{1, 7}));
  Tensor l = where(c, tensor({true, true}), 2);
  EXPECT_EQ(l.dtype(), kLong);
  EXPECT_EQ(longs(l), (std::vector<int64_t>{1, 2}));
  Tensor ss = where(c, 1.5, 2);
  EXPECT_EQ(ss.dtype(), kFloat);
  EXPECT_EQ(floats(ss), (std::vector<float>{1.5f, 2.0f}));
  EXPECT_EQ(where(c, 1, 2).dtype(), kLong);
  EXPECT_EQ(where(c, true, false).dtype(), kBool);
  EXPECT_EQ(bools(where(c, true, false)), (std::vector<uint8_t>{1, 0}));
  EXPECT_EQ(error_of([&] { where(c, 1000, tensor({1, 2}, kInt8)); }),
            "value cannot be converted to type int8_t without overflow");
}

TEST(ElementwiseWhere, ConditionMustBeBool) {
  EXPECT_EQ(error_of([] { where(tensor({1.0, 0.0}), tensor({1}), tensor({2})); }),
            "where expected condition to be a boolean tensor, but got a tensor with dtype Float");
  EXPECT_EQ(error_of([] { where(tensor({1, 0}), tensor({1}), tensor({2})); }),
            "where expected condition to be a boolean tensor, but got a tensor with dtype Long");
  EXPECT_EQ(error_of([] { where(tensor({true, false, true}), tensor({1, 2}), tensor({2})); }),
            "The size of tensor a (3) must match the size of tensor b (2) at non-singleton dimension 0");
}

// ---- clamp -----------------------------------------------------------------------------------------

TEST(ElementwiseClamp, BoundsAndNaN) {
  Tensor x = tensor({-3.0, 0.5, 2.0, kNaN});
  expect_same_floats(floats(x.clamp(-1, 1)), {-1.0f, 0.5f, 1.0f, kNaN});
  expect_same_floats(floats(x.clamp(0)), {0.0f, 0.5f, 2.0f, kNaN});
  expect_same_floats(floats(x.clamp(std::nullopt, 0)), {-3.0f, 0.0f, 0.0f, kNaN});
  expect_same_floats(floats(x.clamp_min(0)), {0.0f, 0.5f, 2.0f, kNaN});
  expect_same_floats(floats(x.clamp_max(0)), {-3.0f, 0.0f, 0.0f, kNaN});
  expect_same_floats(floats(ctorch::clamp(x, -1, 1)), {-1.0f, 0.5f, 1.0f, kNaN});
  // min > max: everything becomes max.
  EXPECT_EQ(floats(tensor({-3.0, 0.5, 2.0}).clamp(2, 1)), (std::vector<float>{1, 1, 1}));
  // A NaN bound: both bounds given fills with NaN; a lone NaN bound is ignored.
  expect_same_floats(floats(x.clamp(kNaN, 1)), {kNaN, kNaN, kNaN, kNaN});
  expect_same_floats(floats(x.clamp(0, kNaN)), {kNaN, kNaN, kNaN, kNaN});
  expect_same_floats(floats(x.clamp(kNaN)), {-3.0f, 0.5f, 2.0f, kNaN});
  expect_same_floats(floats(x.clamp(std::nullopt, kNaN)), {-3.0f, 0.5f, 2.0f, kNaN});
  // -0.0 passes a zero bound unchanged.
  expect_same_floats(floats(tensor({-0.0}).clamp(0)), {-0.0f});
  // Integers.
  EXPECT_EQ(longs(tensor({-5, 0, 5}).clamp(-2, 3)), (std::vector<int64_t>{-2, 0, 3}));
  EXPECT_EQ(tensor({-5, 0, 5}).clamp(-2, 3).dtype(), kLong);
  EXPECT_EQ(values<uint8_t>(tensor({0, 100, 255}, kUInt8).clamp(50)), (std::vector<uint8_t>{50, 100, 255}));
  EXPECT_EQ(floats(tensor({1.0, 70000.0}, kHalf).clamp(std::nullopt, 60000)), (std::vector<float>{1.0f, 60000.0f}));
}

TEST(ElementwiseClamp, FloatBoundsPromoteIntegerTensors) {
  Tensor r = tensor({-3, 0, 2}).clamp(-0.5, 1.5);
  EXPECT_EQ(r.dtype(), kFloat);
  EXPECT_EQ(floats(r), (std::vector<float>{-0.5f, 0.0f, 1.5f}));
  EXPECT_EQ(floats(tensor({1, 2}).clamp_max(0.5)), (std::vector<float>{0.5f, 0.5f}));
  EXPECT_EQ(tensor({1, 2}).clamp_min(0.5).dtype(), kFloat);
  // A bool tensor with an int bound becomes int64.
  Tensor b = tensor({true, false}).clamp(0);
  EXPECT_EQ(b.dtype(), kLong);
  EXPECT_EQ(longs(b), (std::vector<int64_t>{1, 0}));
  EXPECT_EQ(longs(tensor({true}).clamp_min(1)), (std::vector<int64_t>{1}));
  // A floating tensor keeps its dtype whatever the bounds.
  EXPECT_EQ(tensor({1.0}, kHalf).clamp(0.5, 2).dtype(), kHalf);
  EXPECT_EQ(tensor({1.0}, kDouble).clamp(0, 2).dtype(), kDouble);
}

TEST(ElementwiseClamp, Errors) {
  EXPECT_EQ(error_of([] { tensor({1.0}).clamp(std::nullopt, std::nullopt); }),
            "torch.clamp: At least one of 'min' or 'max' must not be None");
  EXPECT_EQ(error_of([] { tensor({true}).clamp(true, true); }), "\"clamp_scalar_cpu\" not implemented for 'Bool'");
  EXPECT_EQ(error_of([] { tensor({true}).clamp(true); }), "\"clamp_min_cpu\" not implemented for 'Bool'");
  EXPECT_EQ(error_of([] { tensor({true}).clamp_min(true); }), "\"clamp_min_cpu\" not implemented for 'Bool'");
  EXPECT_EQ(error_of([] { tensor({true}).clamp_max(true); }), "\"clamp_max_scalar_cpu\" not implemented for 'Bool'");
  EXPECT_EQ(error_of([] { tensor({1, 2}, kInt8).clamp(0, 1000); }),
            "value cannot be converted to type int8_t without overflow");
  EXPECT_EQ(error_of([] { tensor({5}, kInt).clamp(-(int64_t{1} << 40), 3); }),
            "value cannot be converted to type int without overflow");
  // In place: a promoting bound cannot be cast back (PyTorch names self's dtype by its C++ type).
  Tensor a = tensor({1, 2});
  const uint32_t v = a._version();
  EXPECT_EQ(error_of([&] { a.clamp_(0.5); }), "result type Float can't be cast to the desired output type long int");
  EXPECT_EQ(error_of([] { tensor({1}, kUInt8).clamp_(0.5); }),
            "result type Float can't be cast to the desired output type unsigned char");
  EXPECT_EQ(error_of([] { tensor({1}, kInt8).clamp_(0.5); }),
            "result type Float can't be cast to the desired output type signed char");
  EXPECT_EQ(error_of([] { tensor({1}, kShort).clamp_(0.5); }),
            "result type Float can't be cast to the desired output type short int");
  EXPECT_EQ(error_of([] { tensor({1}, kInt).clamp_(0.5); }),
            "result type Float can't be cast to the desired output type int");
  EXPECT_EQ(error_of([] { tensor({true}).clamp_(0.5); }),
            "result type Float can't be cast to the desired output type bool");
  EXPECT_EQ(error_of([] { tensor({true}).clamp_(1); }),
            "result type Long can't be cast to the desired output type bool");
  EXPECT_EQ(longs(a), (std::vector<int64_t>{1, 2}));
  EXPECT_EQ(a._version(), v);
}

TEST(ElementwiseClamp, InPlace) {
  Tensor a = tensor({-3.0, 0.5, 2.0});
  const uint32_t v = a._version();
  a.clamp_(-1, 1);
  EXPECT_EQ(floats(a), (std::vector<float>{-1.0f, 0.5f, 1.0f}));
  EXPECT_EQ(a._version(), v + 1);
  a.clamp_(kNaN, 1);
  expect_same_floats(floats(a), {kNaN, kNaN, kNaN});
  EXPECT_EQ(a._version(), v + 2);
  Tensor i = tensor({-5, 5});
  i.clamp_(0, 3);
  EXPECT_EQ(longs(i), (std::vector<int64_t>{0, 3}));
}

// ---- unary ops -------------------------------------------------------------------------------------

TEST(ElementwiseUnary, FloatingOpsPromoteIntegersToTheDefaultDtype) {
  EXPECT_EQ(tensor({0, 1, 2}).exp().dtype(), kFloat);
  expect_near_floats(floats(tensor({0, 1, 2}).exp()), {1.0, 2.718281828459045, 7.38905609893065});
  expect_near_floats(floats(tensor({1, 2}).log()), {0.0, 0.6931471805599453});
  expect_near_floats(floats(tensor({4, 2}).sqrt()), {2.0, 1.4142135623730951});
  expect_near_floats(floats(tensor({4, 0}).rsqrt()), {0.5, INFINITY});
  expect_near_floats(floats(tensor({0, 1}).sin()), {0.0, 0.8414709848078965});
  expect_near_floats(floats(tensor({0, 1}).cos()), {1.0, 0.5403023058681398});
  expect_near_floats(floats(tensor({true, false}).sigmoid()), {0.7310585786300049, 0.5});
  expect_near_floats(floats(tensor({0.5, -20.0}).tanh()), {0.46211715726000974, -1.0});
  expect_near_floats(floats(tensor({-1.0, 0.0}).log()), {NAN, -INFINITY});
  expect_near_floats(floats(tensor({-1.0}).sqrt()), {NAN});
  for (ScalarType t : {kUInt8, kInt8, kInt16, kInt32, kInt64, kBool}) {
    Tensor x = ones({2}, TensorOptions(t));
    EXPECT_EQ(x.exp().dtype(), kFloat) << t;
    EXPECT_EQ(x.sigmoid().dtype(), kFloat) << t;
    EXPECT_EQ(x.rsqrt().dtype(), kFloat) << t;
  }
  EXPECT_EQ(tensor({1.0}, kHalf).exp().dtype(), kHalf);
  EXPECT_EQ(tensor({1.0}, kDouble).sin().dtype(), kDouble);
  EXPECT_NEAR(tensor({1.0}, kDouble).exp().item<double>(), 2.718281828459045, 1e-15);
  EXPECT_EQ(ctorch::exp(tensor({0})).item<float>(), 1.0f);
}

TEST(ElementwiseUnary, InPlaceFloatingOpsRejectIntegers) {
  Tensor a = tensor({1, 2});
  const uint32_t v = a._version();
  EXPECT_EQ(error_of([&] { a.exp_(); }), kCastLong);
  EXPECT_EQ(error_of([&] { a.sqrt_(); }), kCastLong);
  EXPECT_EQ(error_of([&] { a.sigmoid_(); }), kCastLong);
  EXPECT_EQ(error_of([] { tensor({true}).exp_(); }), "result type Float can't be cast to the desired output type Bool");
  EXPECT_EQ(longs(a), (std::vector<int64_t>{1, 2}));
  EXPECT_EQ(a._version(), v);
  Tensor f = tensor({0.0, 1.0});
  f.exp_();
  expect_near_floats(floats(f), {1.0, 2.718281828459045});
  EXPECT_EQ(f._version(), 1u);
}

TEST(ElementwiseUnary, RoundingOps) {
  expect_same_floats(floats(tensor({-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 0.49999997, 1e20}).round()),
                     {-2.0f, -2.0f, -0.0f, 0.0f, 2.0f, 2.0f, 0.0f, 1e20f});
  expect_same_floats(floats(tensor({-1.5, 1.5, -0.0}).floor()), {-2.0f, 1.0f, -0.0f});
  expect_same_floats(floats(tensor({-1.5, 1.5, -0.5}).ceil()), {-1.0f, 2.0f, -0.0f});
  // Integers are returned unchanged, in their own dtype.
  EXPECT_EQ(longs(tensor({3, -4}).round()), (std::vector<int64_t>{3, -4}));
  EXPECT_EQ(tensor({3}, kInt8).floor().dtype(), kInt8);
  EXPECT_EQ(values<int8_t>(tensor({3, -4}, kInt8).ceil()), (std::vector<int8_t>{3, -4}));
  // Half to even in float16 too.
  EXPECT_EQ(floats(tensor({0.5, 1.5, 2.5}, kHalf).round()), (std::vector<float>{0, 2, 2}));
  EXPECT_EQ(error_of([] { tensor({true}).floor(); }), "\"floor_vml_cpu\" not implemented for 'Bool'");
  EXPECT_EQ(error_of([] { tensor({true}).ceil(); }), "\"ceil_vml_cpu\" not implemented for 'Bool'");
  EXPECT_EQ(error_of([] { tensor({true}).round(); }), "\"round_vml_cpu\" not implemented for 'Bool'");
  EXPECT_EQ(error_of([] { tensor({true}).round_(); }), "\"round_vml_cpu\" not implemented for 'Bool'");
  Tensor r = tensor({2.5, 3.5});
  r.round_();
  EXPECT_EQ(floats(r), (std::vector<float>{2, 4}));
}

TEST(ElementwiseUnary, SignAbsNegRelu) {
  expect_same_floats(floats(tensor({-2.0, -0.0, 0.0, 3.0, kNaN}).sign()), {-1.0f, 0.0f, 0.0f, 1.0f, 0.0f});
  EXPECT_EQ(longs(tensor({-2, 0, 3}).sign()), (std::vector<int64_t>{-1, 0, 1}));
  EXPECT_EQ(bools(tensor({true, false}).sign()), (std::vector<uint8_t>{1, 0}));
  expect_same_floats(floats(tensor({-2.0, -0.0, kNaN}).abs()), {2.0f, 0.0f, kNaN});
  EXPECT_EQ(values<int8_t>(tensor({-2, 3}, kInt8).abs()), (std::vector<int8_t>{2, 3}));
  EXPECT_EQ(values<int8_t>(tensor({-128}, kInt8).abs()), (std::vector<int8_t>{-128}));
  EXPECT_EQ(error_of([] { tensor({true}).abs(); }), "\"abs_cpu\" not implemented for 'Bool'");
  EXPECT_EQ(longs(-tensor({1, -2})), (std::vector<int64_t>{-1, 2}));
  EXPECT_EQ(longs(ctorch::neg(tensor({3}))), (std::vector<int64_t>{-3}));
  const std::string neg_bool = "Negation, the `-` operator, on a bool tensor is not supported. If you are trying to "
                               "invert a mask, use the `~` or `logical_not()` operator instead.";
  EXPECT_EQ(error_of([] { -tensor({true}); }), neg_bool);
  Tensor b = tensor({true});
  EXPECT_EQ(error_of([&] { b.neg_(); }), neg_bool);
  // relu is clamp_min(0): NaN and -0.0 pass through; integers stay integers.
  expect_same_floats(floats(tensor({-1.0, -0.0, 0.5, kNaN}).relu()), {0.0f, -0.0f, 0.5f, kNaN});
  EXPECT_EQ(longs(tensor({-1, 2}).relu()), (std::vector<int64_t>{0, 2}));
  EXPECT_EQ(tensor({-1, 2}, kInt16).relu().dtype(), kShort);
  EXPECT_EQ(error_of([] { tensor({true}).relu(); }), "Boolean inputs not supported for relu");
  Tensor r = tensor({-1.0, 2.0});
  r.relu_();
  EXPECT_EQ(floats(r), (std::vector<float>{0, 2}));
  Tensor n = tensor({-1.0, 2.0});
  n.abs_();
  n.neg_();
  EXPECT_EQ(floats(n), (std::vector<float>{-1, -2}));
  n.sign_();
  EXPECT_EQ(floats(n), (std::vector<float>{-1, -1}));
}

// ---- in-place forms ------------------------------------------------------------------------------

TEST(ElementwiseInPlace, ResultMustBeCastableToSelf) {
  Tensor a = tensor({1, 2, 3});
  const uint32_t v = a._version();
  EXPECT_EQ(error_of([&] { a.add_(tensor({1.5, 1.5, 1.5})); }), kCastLong);
  EXPECT_EQ(error_of([&] { a.add_(0.5); }), kCastLong);
  EXPECT_EQ(error_of([&] { a.mul_(0.5); }), kCastLong);
  EXPECT_EQ(error_of([&] { a.div_(2); }), kCastLong);
  EXPECT_EQ(error_of([&] { a /= tensor({2, 2, 2}); }), kCastLong);
  EXPECT_EQ(error_of([] { tensor({true}).add_(1); }), "result type Long can't be cast to the desired output type Bool");
  EXPECT_EQ(error_of([] { tensor({1.0}, kHalf).add_(tensor({1.0}).to(kInt)).item(); }), "no error");
  EXPECT_EQ(longs(a), (std::vector<int64_t>{1, 2, 3}));
  EXPECT_EQ(a._version(), v);
  // Castable promotions compute in the wider type and convert back.
  Tensor f = tensor({1.0, 2.0});
  f.add_(tensor({0.25, 0.5}, kDouble));
  EXPECT_EQ(f.dtype(), kFloat);
  EXPECT_EQ(floats(f), (std::vector<float>{1.25f, 2.5f}));
  EXPECT_EQ(f._version(), 1u);
  Tensor i = tensor({1, 2}, kInt);
  i.add_(tensor({INT64_C(10000000000), 1}));
  EXPECT_EQ(values<int32_t>(i), (std::vector<int32_t>{1410065409, 3}));  // computed in int64, then wrapped
  Tensor d = tensor({7, 9});
  d.div_(2, "floor");
  EXPECT_EQ(longs(d), (std::vector<int64_t>{3, 4}));
  Tensor g = tensor({1.0, 2.0});
  g *= 3;
  g -= 1;
  g /= 2;
  g += tensor({1.0, 1.0});
  EXPECT_EQ(floats(g), (std::vector<float>{2.0f, 3.5f}));
  EXPECT_EQ(g._version(), 4u);
}

TEST(ElementwiseInPlace, OutputCannotBroadcast) {
  Tensor f = zeros({3});
  const uint32_t v = f._version();
  EXPECT_EQ(error_of([&] { f.add_(ones({2, 3})); }), "output with shape [3] doesn't match the broadcast shape [2, 3]");
  // The shape is checked before the dtype, as in TensorIterator.
  Tensor l = zeros({3}, kLong);
  EXPECT_EQ(error_of([&] { l.add_(ones({2, 3})); }), "output with shape [3] doesn't match the broadcast shape [2, 3]");
  EXPECT_EQ(error_of([&] { l.add_(ones({4})); }),
            "The size of tensor a (3) must match the size of tensor b (4) at non-singleton dimension 0");
  Tensor s = zeros({});
  EXPECT_EQ(error_of([&] { s.mul_(ones({2})); }), "output with shape [] doesn't match the broadcast shape [2]");
  EXPECT_EQ(floats(f), (std::vector<float>{0, 0, 0}));
  EXPECT_EQ(f._version(), v);
  f.add_(ones({1}), 2);
  EXPECT_EQ(floats(f), (std::vector<float>{2, 2, 2}));
  f.add_(ones({}));
  EXPECT_EQ(floats(f), (std::vector<float>{3, 3, 3}));
}

TEST(ElementwiseBroadcast, IncompatibleShapesFail) {
  EXPECT_EQ(error_of([] { ones({2, 3}) + ones({2, 4}); }),
            "The size of tensor a (3) must match the size of tensor b (4) at non-singleton dimension 1");
  EXPECT_EQ(error_of([] { tensor({1, 2, 3}) * tensor({1, 2, 3, 4}); }),
            "The size of tensor a (3) must match the size of tensor b (4) at non-singleton dimension 0");
  EXPECT_EQ(error_of([] { ones({2, 3}) == ones({3, 2}); }),
            "The size of tensor a (3) must match the size of tensor b (2) at non-singleton dimension 1");
  Tensor r = ones({2, 1, 3}) + ones({4, 1});
  EXPECT_EQ(r.sizes(), IntArrayRef({2, 4, 3}));
  EXPECT_EQ(floats(r), std::vector<float>(24, 2.0f));
}

// ---- reduced precision -----------------------------------------------------------------------------
