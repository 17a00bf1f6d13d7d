// Half (IEEE float16) and BFloat16 storage types; arithmetic happens in float.
#pragma once

#include <cstdint>
#include <cstring>

#include "ctorch/macros.h"

namespace ctorch::inline api {

namespace detail {
CTORCH_HD inline uint32_t float_bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}
CTORCH_HD inline float bits_float(uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}
}  // namespace detail

/// IEEE 754 binary16, round-to-nearest-even conversions (as c10::Half).
struct Half {
  uint16_t x = 0;
  Half() = default;
  /// Converts from float with round-to-nearest-even.
  CTORCH_HD Half(float f) : x(from_float(f)) {}  // NOLINT
  /// Converts to float exactly.
  CTORCH_HD operator float() const { return to_float(x); }  // NOLINT

  /// Raw bits to float.
  CTORCH_HD static float to_float(uint16_t h) {
    uint32_t sign = (h & 0x8000u) << 16;
    uint32_t exp = (h >> 10) & 0x1f;
    uint32_t mant = h & 0x3ff;
    uint32_t out;
    if (exp == 0) {
      if (mant == 0) {
        out = sign;
      } else {  // subnormal: normalise
        exp = 127 - 15 + 1;
        while ((mant & 0x400) == 0) {
          mant <<= 1;
          --exp;
        }
        mant &= 0x3ff;
        out = sign | (exp << 23) | (mant << 13);
      }
    } else if (exp == 0x1f) {
      out = sign | 0x7f800000u | (mant << 13);
    } else {
      out = sign | ((exp + 127 - 15) << 23) | (mant << 13);
    }
    return detail::bits_float(out);
  }
  /// Float to raw bits, round-to-nearest-even, overflow to inf, NaN kept quiet.
  CTORCH_HD static uint16_t from_float(float f) {
    uint32_t u = detail::float_bits(f);
    uint32_t sign = (u >> 16) & 0x8000u;
    uint32_t abs = u & 0x7fffffffu;
    if (abs > 0x7f800000u) return static_cast<uint16_t>(sign | 0x7e00u);
    if (abs >= 0x477ff000u) return static_cast<uint16_t>(sign | 0x7c00u);  // rounds to inf
    if (abs < 0x38800000u) {  // subnormal or zero in half
      // value = abs_float; half subnormal unit = 2^-24
      float af = detail::bits_float(abs);
      float scaled = af * 16777216.0f;  // 2^24, exact
      // round to nearest even integer
      uint32_t i = static_cast<uint32_t>(scaled);
      float rem = scaled - static_cast<float>(i);
      if (rem > 0.5f || (rem == 0.5f && (i & 1u))) ++i;
      return static_cast<uint16_t>(sign | i);
    }
    uint32_t mant_odd = (abs >> 13) & 1u;
    abs += 0xc8000fffu + mant_odd;  // rebias exponent (-112 << 23) and round
    return static_cast<uint16_t>(sign | (abs >> 13));
  }
};

/// bfloat16: the upper half of a float32, round-to-nearest-even (as c10::BFloat16).
struct BFloat16 {
  uint16_t x = 0;
  BFloat16() = default;
  /// Converts from float with round-to-nearest-even.
  CTORCH_HD BFloat16(float f) : x(from_float(f)) {}  // NOLINT
  /// Converts to float exactly.
  CTORCH_HD operator float() const { return detail::bits_float(static_cast<uint32_t>(x) << 16); }  // NOLINT

  /// Float to raw bits.
  CTORCH_HD static uint16_t from_float(float f) {
    uint32_t u = detail::float_bits(f);
    if ((u & 0x7fffffffu) > 0x7f800000u) return 0x7fc0;
    uint32_t rounding_bias = 0x7fffu + ((u >> 16) & 1u);
    return static_cast<uint16_t>((u + rounding_bias) >> 16);
  }
};

}  // namespace ctorch::api
