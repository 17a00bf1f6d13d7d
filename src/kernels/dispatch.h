// Type dispatch with a generic lambda: dispatch_all(dtype, "op", [&](auto tag) { using T = ...; }).
#pragma once

#include "ctorch/dtype.h"
#include "ctorch/error.h"

namespace ctorch::inline api::kernels {

/// Carries a C++ element type into a generic lambda.
template <class T>
struct TypeTag {
  using type = T;
};

/// Calls f(TypeTag<T>{}) for the C++ type of `t` (the ten real dtypes; complex ones throw TypeError
/// "\"op\" not implemented for 'ComplexFloat'" as PyTorch's dispatch does).
template <class F>
decltype(auto) dispatch_all(ScalarType t, const char* op, F&& f) {
  switch (t) {
    case ScalarType::UInt8: return f(TypeTag<uint8_t>{});
    case ScalarType::Int8: return f(TypeTag<int8_t>{});
    case ScalarType::Int16: return f(TypeTag<int16_t>{});
    case ScalarType::Int32: return f(TypeTag<int32_t>{});
    case ScalarType::Int64: return f(TypeTag<int64_t>{});
    case ScalarType::Float16: return f(TypeTag<Half>{});
    case ScalarType::Float32: return f(TypeTag<float>{});
    case ScalarType::Float64: return f(TypeTag<double>{});
    case ScalarType::Bool: return f(TypeTag<bool>{});
    case ScalarType::BFloat16: return f(TypeTag<BFloat16>{});
    case ScalarType::ComplexFloat:
    case ScalarType::ComplexDouble: break;  // complex ops are composed in ops/complex_ops.cpp
  }
  CTORCH_CHECK_TYPE(false, "\"", op, "\" not implemented for '", scalar_type_cpp_name(t), "'");
}

/// Like dispatch_all, but only for floating dtypes; other dtypes throw TypeError naming `op`.
template <class F>
decltype(auto) dispatch_floating(ScalarType t, const char* op, F&& f) {
  switch (t) {
    case ScalarType::Float16: return f(TypeTag<Half>{});
    case ScalarType::Float32: return f(TypeTag<float>{});
    case ScalarType::Float64: return f(TypeTag<double>{});
    case ScalarType::BFloat16: return f(TypeTag<BFloat16>{});
    default: break;
  }
  CTORCH_CHECK_TYPE(false, "\"", op, "\" not implemented for '", scalar_type_cpp_name(t), "'");
}

/// Like dispatch_all without bool (arithmetic on numbers).
template <class F>
decltype(auto) dispatch_numeric(ScalarType t, const char* op, F&& f) {
  CTORCH_CHECK_TYPE(t != ScalarType::Bool, "\"", op, "\" not implemented for 'Bool'");
  return dispatch_all(t, op, std::forward<F>(f));
}

/// The type arithmetic is done in: float for half and bfloat16, T otherwise.
template <class T>
struct OpMath {
  using type = T;
};
template <>
struct OpMath<Half> {
  using type = float;
};
template <>
struct OpMath<BFloat16> {
  using type = float;
};
template <class T>
using opmath_t = typename OpMath<T>::type;

}  // namespace ctorch::api::kernels
