// Checked Scalar conversions (c10::checked_convert): the conversions PyTorch applies when a
// Python number becomes a kernel constant (fill_ values, clamp bounds, alpha, pow exponents,
// range factory bounds). Out-of-range values throw "value cannot be converted to type int8_t
// without overflow"; infinities and NaN pass for floating targets.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "ctorch/error.h"
#include "ctorch/scalar.h"

namespace ctorch::inline api::detail {

/// The C++ type name c10 prints in overflow messages ("int8_t", "int", "at::Half").
template <class T>
constexpr const char* checked_type_name() {
  if constexpr (std::is_same_v<T, uint8_t>) return "uint8_t";
  else if constexpr (std::is_same_v<T, int8_t>) return "int8_t";
  else if constexpr (std::is_same_v<T, int16_t>) return "int16_t";
  else if constexpr (std::is_same_v<T, int32_t>) return "int";
  else if constexpr (std::is_same_v<T, int64_t>) return "int64_t";
  else if constexpr (std::is_same_v<T, Half>) return "at::Half";
  else if constexpr (std::is_same_v<T, BFloat16>) return "at::BFloat16";
  else if constexpr (std::is_same_v<T, float>) return "float";
  else if constexpr (std::is_same_v<T, double>) return "double";
  else return "bool";
}

/// Largest finite value of T as a double (65504 for Half).
template <class T>
constexpr double checked_max() {
  if constexpr (std::is_same_v<T, Half>) return 65504.0;
  else if constexpr (std::is_same_v<T, BFloat16>) return 3.3895313892515355e38;
  else return static_cast<double>(std::numeric_limits<T>::max());
}

/// True when `s` does not fit T under c10's overflow rules.
template <class T>
bool overflows(const Scalar& s) {
  if constexpr (std::is_same_v<T, bool>) {
    return false;  // any number converts to bool
  } else {
    if (s.is_bool()) return false;
    constexpr bool floating = !std::is_integral_v<T>;
    constexpr double hi = checked_max<T>();
    constexpr double lo = floating ? -hi : static_cast<double>(std::numeric_limits<T>::lowest());
    if (s.is_floating_point()) {
      const double d = s.to_double();
      if constexpr (floating) {
        if (std::isinf(d) || std::isnan(d)) return false;
      } else {
        if (std::isnan(d)) return true;
      }
      // 2^63 itself does not fit int64 (c10 lets it through into undefined behaviour).
      return d < lo || d > hi || (sizeof(T) == 8 && !floating && d >= hi);
    }
    const int64_t i = s.to_long();
    if constexpr (std::is_unsigned_v<T>) {
      // Negative integers may wrap (uint8: -255..255 are accepted), as in c10.
      constexpr uint64_t max = std::numeric_limits<T>::max();
      return (i > 0 && static_cast<uint64_t>(i) > max) || (i < 0 && -static_cast<uint64_t>(i) > max);
    } else if constexpr (floating) {
      return static_cast<double>(i) < lo || static_cast<double>(i) > hi;
    } else {
      return i < static_cast<int64_t>(std::numeric_limits<T>::lowest()) ||
             i > static_cast<int64_t>(std::numeric_limits<T>::max());
    }
  }
}

/// `s` converted to T; throws PyTorch's overflow error naming `type_name` when it does not fit.
template <class T>
T checked_convert(const Scalar& s, const char* type_name = checked_type_name<T>()) {
  CTORCH_CHECK(!overflows<T>(s), "value cannot be converted to type ", type_name, " without overflow");
  if constexpr (std::is_same_v<T, bool>) {
    return s.to_bool();
  } else if constexpr (std::is_integral_v<T>) {
    return s.is_floating_point() ? static_cast<T>(s.to_double()) : static_cast<T>(s.to_long());
  } else if constexpr (std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>) {
    return T(static_cast<float>(s.to_double()));
  } else {
    return static_cast<T>(s.to_double());
  }
}

}  // namespace ctorch::api::detail
