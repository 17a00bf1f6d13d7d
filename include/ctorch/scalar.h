// Scalar: a number passed to ops (Python's int/float/bool), with its category kept.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <type_traits>

#include "ctorch/dtype.h"

namespace ctorch::inline api {

/// A bool, integer or floating value; its kind decides type promotion ("wrapped numbers").
class Scalar {
 public:
  enum class Kind : int8_t { Bool, Int, Double };

  /// 0 (an integer).
  Scalar() : kind_(Kind::Int), i_(0) {}
  /// A bool scalar.
  Scalar(bool v) : kind_(Kind::Bool), i_(v) {}  // NOLINT
  /// An integer scalar from any integer type.
  template <class T, std::enable_if_t<std::is_integral_v<T> && !std::is_same_v<T, bool>, int> = 0>
  Scalar(T v) : kind_(Kind::Int), i_(static_cast<int64_t>(v)) {}  // NOLINT
  /// A floating scalar.
  Scalar(double v) : kind_(Kind::Double), d_(v) {}  // NOLINT
  /// A floating scalar.
  Scalar(float v) : kind_(Kind::Double), d_(v) {}  // NOLINT
  /// A floating scalar from half precision.
  Scalar(Half v) : kind_(Kind::Double), d_(static_cast<float>(v)) {}  // NOLINT
  /// A floating scalar from bfloat16.
  Scalar(BFloat16 v) : kind_(Kind::Double), d_(static_cast<float>(v)) {}  // NOLINT

  Kind kind() const { return kind_; }
  bool is_bool() const { return kind_ == Kind::Bool; }
  bool is_integral(bool include_bool) const { return kind_ == Kind::Int || (include_bool && is_bool()); }
  bool is_floating_point() const { return kind_ == Kind::Double; }

  /// The value as double.
  double to_double() const { return kind_ == Kind::Double ? d_ : static_cast<double>(i_); }
  /// The value as int64 (truncating a double).
  int64_t to_long() const { return kind_ == Kind::Double ? static_cast<int64_t>(d_) : i_; }
  /// The value as bool (non-zero).
  bool to_bool() const { return kind_ == Kind::Double ? d_ != 0.0 : i_ != 0; }
  /// The value converted to T.
  template <class T>
  T to() const {
    if constexpr (std::is_same_v<T, bool>) {
      return to_bool();
    } else if constexpr (std::is_integral_v<T>) {
      return kind_ == Kind::Double ? static_cast<T>(d_) : static_cast<T>(i_);
    } else {
      return static_cast<T>(to_double());
    }
  }
  /// The dtype PyTorch gives this number as a tensor: bool, int64, or the default float dtype.
  ScalarType type() const;

  // libtorch's (c10::Scalar) spellings.
  double toDouble() const { return to<double>(); }      // NOLINT
  float toFloat() const { return to<float>(); }         // NOLINT
  int64_t toLong() const { return to<int64_t>(); }      // NOLINT
  int toInt() const { return to<int>(); }               // NOLINT
  int16_t toShort() const { return to<int16_t>(); }     // NOLINT
  int8_t toChar() const { return to<int8_t>(); }        // NOLINT
  uint8_t toByte() const { return to<uint8_t>(); }      // NOLINT
  bool toBool() const { return to<bool>(); }            // NOLINT
  Half toHalf() const { return Half(to<float>()); }     // NOLINT
  BFloat16 toBFloat16() const { return BFloat16(to<float>()); }  // NOLINT
  bool isFloatingPoint() const { return is_floating_point(); }  // NOLINT
  bool isIntegral(bool include_bool) const { return is_integral(include_bool); }  // NOLINT
  bool isBoolean() const { return is_bool(); }          // NOLINT
  bool isComplex() const { return false; }              // NOLINT: ctorch has no complex dtypes
  /// Negated value of the same kind (bool is rejected).
  Scalar operator-() const;

 private:
  Kind kind_;
  union {
    int64_t i_;
    double d_;
  };
};

/// Prints the value as Python would: 2, 2.5, True.
std::ostream& operator<<(std::ostream& os, const Scalar& s);

}  // namespace ctorch::api
