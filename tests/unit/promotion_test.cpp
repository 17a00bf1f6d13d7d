// Type promotion (torch.promote_types, torch.result_type, torch.can_cast) and broadcasting,
// checked against PyTorch 1.13's tables and categories.
#include <gtest/gtest.h>

#include <string>

#include "ctorch/ctorch.h"

using namespace ctorch;

namespace {

constexpr ScalarType kOrder[kNumScalarTypes] = {kUInt8, kInt8,  kInt16,  kInt32, kInt64,    kHalf,
                                                kFloat, kDouble, kBool, kBFloat16, kComplexFloat, kComplexDouble};

template <class F>
std::string error_message(F&& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

// Restores the default dtype when a test changes it.
struct DefaultDtypeGuard {
  ScalarType saved = get_default_dtype();
  ~DefaultDtypeGuard() { set_default_dtype(saved); }
};

}  // namespace

TEST(PromoteTypes, MatchesC10TableForEveryPair) {
  // torch.promote_types(row, column) from PyTorch 1.13, in kOrder.
  const ScalarType expected[kNumScalarTypes][kNumScalarTypes] = {
      {kUInt8, kInt16, kInt16, kInt32, kInt64, kHalf, kFloat, kDouble, kUInt8, kBFloat16, kComplexFloat, kComplexDouble},
      {kInt16, kInt8, kInt16, kInt32, kInt64, kHalf, kFloat, kDouble, kInt8, kBFloat16, kComplexFloat, kComplexDouble},
      {kInt16, kInt16, kInt16, kInt32, kInt64, kHalf, kFloat, kDouble, kInt16, kBFloat16, kComplexFloat, kComplexDouble},
      {kInt32, kInt32, kInt32, kInt32, kInt64, kHalf, kFloat, kDouble, kInt32, kBFloat16, kComplexFloat, kComplexDouble},
      {kInt64, kInt64, kInt64, kInt64, kInt64, kHalf, kFloat, kDouble, kInt64, kBFloat16, kComplexFloat, kComplexDouble},
      {kHalf, kHalf, kHalf, kHalf, kHalf, kHalf, kFloat, kDouble, kHalf, kFloat, kComplexFloat, kComplexDouble},
      {kFloat, kFloat, kFloat, kFloat, kFloat, kFloat, kFloat, kDouble, kFloat, kFloat, kComplexFloat, kComplexDouble},
      {kDouble, kDouble, kDouble, kDouble, kDouble, kDouble, kDouble, kDouble, kDouble, kDouble, kComplexDouble, kComplexDouble},
      {kUInt8, kInt8, kInt16, kInt32, kInt64, kHalf, kFloat, kDouble, kBool, kBFloat16, kComplexFloat, kComplexDouble},
      {kBFloat16, kBFloat16, kBFloat16, kBFloat16, kBFloat16, kFloat, kFloat, kDouble, kBFloat16, kBFloat16, kComplexFloat, kComplexDouble},
      {kComplexFloat, kComplexFloat, kComplexFloat, kComplexFloat, kComplexFloat, kComplexFloat, kComplexFloat, kComplexDouble, kComplexFloat, kComplexFloat, kComplexFloat, kComplexDouble},
      {kComplexDouble, kComplexDouble, kComplexDouble, kComplexDouble, kComplexDouble, kComplexDouble, kComplexDouble, kComplexDouble, kComplexDouble, kComplexDouble, kComplexDouble, kComplexDouble},
  };
  for (int i = 0; i < kNumScalarTypes; ++i) {
    for (int j = 0; j < kNumScalarTypes; ++j) {
      EXPECT_EQ(promote_types(kOrder[i], kOrder[j]), expected[i][j]) << kOrder[i] << " with " << kOrder[j];
    }
  }
}

TEST(CanCast, MatchesPyTorchTable) {
  // torch.can_cast(row, column): no casts down a category (float to int, anything to bool).
  const bool expected[kNumScalarTypes][kNumScalarTypes] = {
      {1, 1, 1, 1, 1, 1, 1, 1, 0, 1, 1, 1}, {1, 1, 1, 1, 1, 1, 1, 1, 0, 1, 1, 1}, {1, 1, 1, 1, 1, 1, 1, 1, 0, 1, 1, 1},
      {1, 1, 1, 1, 1, 1, 1, 1, 0, 1, 1, 1}, {1, 1, 1, 1, 1, 1, 1, 1, 0, 1, 1, 1}, {0, 0, 0, 0, 0, 1, 1, 1, 0, 1, 1, 1},
      {0, 0, 0, 0, 0, 1, 1, 1, 0, 1, 1, 1}, {0, 0, 0, 0, 0, 1, 1, 1, 0, 1, 1, 1}, {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1},
      {0, 0, 0, 0, 0, 1, 1, 1, 0, 1, 1, 1}, {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1}, {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1},
  };
  for (int i = 0; i < kNumScalarTypes; ++i) {
    for (int j = 0; j < kNumScalarTypes; ++j) {
      EXPECT_EQ(can_cast(kOrder[i], kOrder[j]), expected[i][j]) << kOrder[i] << " to " << kOrder[j];
    }
  }
}

TEST(ResultType, WrappedNumbersOnlyCountByCategory) {
  // A Python number never widens a tensor of its own category.
  EXPECT_EQ(result_type(tensor({1}), 1.5), kFloat);                      // int tensor + float: default float
  EXPECT_EQ(result_type(tensor({1}, kUInt8), 1000), kUInt8);             // uint8 + int stays uint8
  EXPECT_EQ(result_type(tensor({true}), 1), kLong);                      // bool + int: int64
  EXPECT_EQ(result_type(tensor({true}), true), kBool);
  EXPECT_EQ(result_type(tensor({true}), 1.5), kFloat);
  EXPECT_EQ(result_type(tensor({1.0}, kHalf), 1.5), kHalf);
  EXPECT_EQ(result_type(tensor({1}, kInt8), 100000), kInt8);
  EXPECT_EQ(result_type(tensor({1.0}, kDouble), 1), kDouble);
  EXPECT_EQ(result_type(1.5, tensor({1}, kInt16)), kFloat);
  EXPECT_EQ(result_type(tensor(1, kInt32), 1), kInt);                    // 0-dim int32 + int: int32
  EXPECT_EQ(result_type(tensor(1, kInt32), 1.5), kFloat);
  EXPECT_EQ(result_type(tensor(true), 1), kLong);
  EXPECT_EQ(result_type(tensor(1.0, kHalf), 1.5), kHalf);
  EXPECT_EQ(result_type(tensor(1.0, kDouble), 1), kDouble);
}

TEST(ResultType, ZeroDimTensorsCountByCategoryBelowDimensionedOnes) {
  EXPECT_EQ(result_type(tensor({1}, kInt32), tensor(1, kInt64)), kInt);
  EXPECT_EQ(result_type(tensor({1.0}, kHalf), tensor(1.0, kDouble)), kHalf);
  // A 0-dim tensor of a higher category promotes with its own width: int32 + 0-dim float64 is float64.
  EXPECT_EQ(result_type(tensor({1}, kInt32), tensor(1.0, kDouble)), kDouble);
  EXPECT_EQ(result_type(tensor({1}, kInt32), tensor(1.0, kHalf)), kHalf);
  EXPECT_EQ(result_type(tensor({1}, kInt16), tensor(1.0, kHalf)), kHalf);
  EXPECT_EQ(result_type(tensor({1}, kUInt8), tensor(1, kInt8)), kUInt8);
  EXPECT_EQ(result_type(tensor({true}), tensor(1, kUInt8)), kUInt8);
  EXPECT_EQ(result_type(tensor({1}), tensor(true)), kLong);
  EXPECT_EQ(result_type(tensor({1.0}, kBFloat16), tensor(1.0, kHalf)), kBFloat16);
  // Between tensors of the same kind (both 0-dim or both dimensioned) the table applies.
  EXPECT_EQ(result_type(tensor(1, kInt8), tensor(1, kInt16)), kShort);
  EXPECT_EQ(result_type(tensor({1.0}, kBFloat16), tensor({1.0}, kHalf)), kFloat);
  EXPECT_EQ(result_type(tensor({1.0}), tensor({1.0}, kDouble)), kDouble);
  EXPECT_EQ(result_type(tensor({1}, kInt8), tensor({1}, kUInt8)), kShort);
}

TEST(ResultType, TwoScalars) {
  EXPECT_EQ(result_type(Scalar(1), Scalar(2)), kLong);
  EXPECT_EQ(result_type(Scalar(1), Scalar(2.5)), kFloat);
  EXPECT_EQ(result_type(Scalar(true), Scalar(2)), kLong);
  EXPECT_EQ(result_type(Scalar(true), Scalar(false)), kBool);
}

TEST(ResultType, FloatNumbersFollowTheDefaultDtype) {
  DefaultDtypeGuard guard;
  set_default_dtype(kDouble);
  EXPECT_EQ(result_type(tensor({1}), 1.5), kDouble);
  EXPECT_EQ(result_type(tensor({1.0f}, kFloat), 1.5), kFloat);  // a float tensor keeps its width
  EXPECT_EQ(result_type(Scalar(1), Scalar(2.5)), kDouble);
  EXPECT_EQ((tensor({1}) + 0.5).dtype(), kDouble);
  EXPECT_EQ((tensor({1}) / tensor({2})).dtype(), kDouble);
  EXPECT_EQ(tensor({1}).exp().dtype(), kDouble);
  EXPECT_THROW(set_default_dtype(kInt), Error);
  EXPECT_EQ(get_default_dtype(), kDouble);
}

TEST(ResultType, DrivesOpOutputDtypes) {
  EXPECT_EQ((tensor({1}, kUInt8) + 300).dtype(), kUInt8);
  EXPECT_EQ((tensor({1}, kUInt8) + 300).item<int64_t>(), 45);  // 300 wraps to 44 as uint8
  EXPECT_EQ((tensor({1}, kInt32) + tensor(5)).dtype(), kInt);
  EXPECT_EQ((tensor({1}, kInt32) + tensor(0.5, kDouble)).dtype(), kDouble);
  EXPECT_EQ((tensor({1.0}, kHalf) * tensor(3.0, kDouble)).dtype(), kHalf);
  EXPECT_EQ((tensor({true}) + true).dtype(), kBool);
  EXPECT_EQ((tensor({true}) * 2).dtype(), kLong);
  EXPECT_EQ((tensor({1}, kInt8) * tensor({1}, kUInt8)).dtype(), kShort);
}

TEST(BroadcastShapes, ComputesPyTorchShapes) {
  EXPECT_EQ(IntArrayRef(broadcast_shapes({2, 1, 3}, {4, 1})), IntArrayRef({2, 4, 3}));
  EXPECT_EQ(IntArrayRef(broadcast_shapes({}, {3})), IntArrayRef({3}));
  EXPECT_EQ(IntArrayRef(broadcast_shapes({0, 1}, {1, 5})), IntArrayRef({0, 5}));
  EXPECT_EQ(IntArrayRef(broadcast_shapes({1}, {0})), IntArrayRef({0}));
  EXPECT_EQ(IntArrayRef(broadcast_shapes({5, 4}, {5, 4})), IntArrayRef({5, 4}));
}

TEST(BroadcastShapes, IncompatibleShapesNameTheOutputDimension) {
  EXPECT_EQ(error_message([] { broadcast_shapes({2, 3}, {2, 4}); }),
            "The size of tensor a (3) must match the size of tensor b (4) at non-singleton dimension 1");
  EXPECT_EQ(error_message([] { broadcast_shapes({3}, {4}); }),
            "The size of tensor a (3) must match the size of tensor b (4) at non-singleton dimension 0");
  EXPECT_EQ(error_message([] { broadcast_shapes({5, 2, 3}, {4, 1}); }),
            "The size of tensor a (2) must match the size of tensor b (4) at non-singleton dimension 1");
  // The last mismatching dim is reported (at::infer_size walks from the end).
  EXPECT_EQ(error_message([] { broadcast_shapes({2, 4}, {3, 5}); }),
            "The size of tensor a (4) must match the size of tensor b (5) at non-singleton dimension 1");
  EXPECT_EQ(error_message([] { broadcast_shapes({0}, {2}); }),
            "The size of tensor a (0) must match the size of tensor b (2) at non-singleton dimension 0");
}
