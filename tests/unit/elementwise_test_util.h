// Helpers shared by the elementwise test files: value extraction, bit patterns, error capture.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "ctorch/ctorch.h"
#include "test_util.h"

using namespace ctorch;

namespace elementwise_test {

inline const float kNaN = std::numeric_limits<float>::quiet_NaN();
inline const float kInf = std::numeric_limits<float>::infinity();

using ::ctorch::testing::error_of;

template <class T>
std::vector<T> values(const Tensor& t) {
  return t.to_vector<T>();
}

inline std::vector<int64_t> longs(const Tensor& t) { return t.to_vector<int64_t>(); }
inline std::vector<float> floats(const Tensor& t) { return t.to_vector<float>(); }
inline std::vector<uint8_t> bools(const Tensor& t) {
  EXPECT_EQ(t.dtype(), kBool);
  return t.to_vector<uint8_t>();
}

inline uint32_t bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}

// Element-wise equality that treats NaN == NaN and tells -0.0 from +0.0.
inline void expect_same_floats(const std::vector<float>& got, const std::vector<float>& want) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    if (std::isnan(want[i])) {
      EXPECT_TRUE(std::isnan(got[i])) << "element " << i << " is " << got[i];
    } else {
      EXPECT_EQ(bits(got[i]), bits(want[i])) << "element " << i << ": got " << got[i] << ", want " << want[i];
    }
  }
}

inline void expect_near_floats(const std::vector<float>& got, const std::vector<double>& want, double rel = 1e-6) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    if (std::isnan(want[i])) {
      EXPECT_TRUE(std::isnan(got[i])) << "element " << i;
    } else if (std::isinf(want[i])) {
      EXPECT_EQ(got[i], want[i]) << "element " << i;
    } else {
      EXPECT_NEAR(got[i], want[i], rel * std::max(1.0, std::fabs(want[i]))) << "element " << i;
    }
  }
}

// A 1-d tensor of raw 16-bit patterns reinterpreted as `dtype` (float16 or bfloat16).
inline Tensor from_bits16(const uint16_t* p, int64_t n, ScalarType dtype) {
  std::vector<uint16_t> copy(p, p + n);
  Tensor raw = from_blob(copy.data(), {n}, TensorOptions(dtype));
  return raw.clone();
}

inline std::vector<uint16_t> bits16(const Tensor& t) {
  const Tensor c = t.contiguous();
  const auto* p = static_cast<const uint16_t*>(c.data_ptr());
  return std::vector<uint16_t>(p, p + c.numel());
}

inline std::vector<uint32_t> bits32(const Tensor& t) {
  const Tensor c = t.contiguous();
  const auto* p = static_cast<const uint32_t*>(c.data_ptr());
  return std::vector<uint32_t>(p, p + c.numel());
}

inline Tensor from_bits32(const uint32_t* p, int64_t n) {
  std::vector<uint32_t> copy(p, p + n);
  return from_blob(copy.data(), {n}, TensorOptions(kFloat)).clone();
}

// A transposed (non-contiguous) view of a fresh rows x cols tensor holding 0, 1, 2, ... (row-major).
inline Tensor transposed_iota(int64_t rows, int64_t cols, ScalarType dtype = kFloat) {
  Tensor base = arange(rows * cols, TensorOptions(dtype));
  return base.as_strided({cols, rows}, {1, cols});
}

inline const std::string kCastLong = "result type Float can't be cast to the desired output type Long";


}  // namespace elementwise_test
