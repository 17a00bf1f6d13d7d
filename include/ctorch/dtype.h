// ScalarType: the element types, their names, sizes and PyTorch's promotion rules.
#pragma once

#include <complex>
#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>

#include "ctorch/half.h"

namespace ctorch::inline api {

/// Element types (torch.dtype). Values are ctorch's own; names follow PyTorch.
enum class ScalarType : int8_t {
  UInt8 = 0,
  Int8,
  Int16,
  Int32,
  Int64,
  Float16,
  Float32,
  Float64,
  Bool,
  BFloat16,
  ComplexFloat,
  ComplexDouble,
};
/// Number of scalar types.
inline constexpr int kNumScalarTypes = 12;

inline constexpr ScalarType kUInt8 = ScalarType::UInt8;
inline constexpr ScalarType kByte = ScalarType::UInt8;
inline constexpr ScalarType kInt8 = ScalarType::Int8;
inline constexpr ScalarType kChar = ScalarType::Int8;
inline constexpr ScalarType kInt16 = ScalarType::Int16;
inline constexpr ScalarType kShort = ScalarType::Int16;
inline constexpr ScalarType kInt32 = ScalarType::Int32;
inline constexpr ScalarType kInt = ScalarType::Int32;
inline constexpr ScalarType kInt64 = ScalarType::Int64;
inline constexpr ScalarType kLong = ScalarType::Int64;
inline constexpr ScalarType kFloat16 = ScalarType::Float16;
inline constexpr ScalarType kHalf = ScalarType::Float16;
inline constexpr ScalarType kFloat32 = ScalarType::Float32;
inline constexpr ScalarType kFloat = ScalarType::Float32;
inline constexpr ScalarType kFloat64 = ScalarType::Float64;
inline constexpr ScalarType kDouble = ScalarType::Float64;
inline constexpr ScalarType kBool = ScalarType::Bool;
inline constexpr ScalarType kBFloat16 = ScalarType::BFloat16;
inline constexpr ScalarType kComplexFloat = ScalarType::ComplexFloat;
inline constexpr ScalarType kComplex64 = ScalarType::ComplexFloat;
inline constexpr ScalarType kComplexDouble = ScalarType::ComplexDouble;
inline constexpr ScalarType kComplex128 = ScalarType::ComplexDouble;

/// Bytes per element.
inline constexpr int64_t element_size(ScalarType t) {
  constexpr int8_t sizes[] = {1, 1, 2, 4, 8, 2, 4, 8, 1, 2, 8, 16};
  return sizes[static_cast<int>(t)];
}
/// complex64, complex128.
inline constexpr bool is_complex(ScalarType t) { return t == kComplexFloat || t == kComplexDouble; }
/// The real type of a complex type's parts (complex64 -> float32); other types map to themselves.
inline constexpr ScalarType to_real_value_type(ScalarType t) {
  return t == kComplexFloat ? kFloat32 : t == kComplexDouble ? kFloat64 : t;
}
/// The complex type with parts of real type `t` (float32 -> complex64, float64 -> complex128,
/// float16/bfloat16 -> complex64: ctorch has no complex32); complex types map to themselves.
inline constexpr ScalarType to_complex_type(ScalarType t) {
  return t == kFloat64 || t == kComplexDouble ? kComplexDouble : kComplexFloat;
}
/// float16, bfloat16, float32, float64 (complex types are not floating point, as in PyTorch).
inline constexpr bool is_floating_point(ScalarType t) {
  return t == kFloat16 || t == kFloat32 || t == kFloat64 || t == kBFloat16;
}
/// Integer types, with or without bool.
inline constexpr bool is_integral(ScalarType t, bool include_bool) {
  return (t >= kUInt8 && t <= kInt64) || (include_bool && t == kBool);
}
/// Python-style name: "torch.float32".
std::string dtype_name(ScalarType t);
/// Short name: "float32", "int64", "bool".
const char* scalar_type_name(ScalarType t);
/// libtorch's C++ name: "Float", "Long", "Bool", "Half", "BFloat16".
const char* scalar_type_cpp_name(ScalarType t);
/// caffe2::TypeMeta's name, which some of PyTorch's messages print: "float", "long int", "c10::Half".
const char* type_meta_name(ScalarType t);
/// Prints dtype_name().
std::ostream& operator<<(std::ostream& os, ScalarType t);

/// torch.promote_types: the smallest type both `a` and `b` convert to without losing category.
ScalarType promote_types(ScalarType a, ScalarType b);
/// torch.can_cast: false when casting would go down a category (float to int, int to bool).
bool can_cast(ScalarType from, ScalarType to);

/// The default floating dtype (torch.get_default_dtype), float32 unless changed.
ScalarType get_default_dtype();
/// torch.set_default_dtype; only float32 and float64 are accepted, as in PyTorch.
void set_default_dtype(ScalarType t);

/// Maps a C++ element type to its ScalarType.
template <class T>
struct CppTypeToScalarType;
#define CTORCH_MAP_TYPE_(T, S) \
  template <>                  \
  struct CppTypeToScalarType<T> { static constexpr ScalarType value = S; };
CTORCH_MAP_TYPE_(uint8_t, kUInt8)
CTORCH_MAP_TYPE_(int8_t, kInt8)
CTORCH_MAP_TYPE_(int16_t, kInt16)
CTORCH_MAP_TYPE_(int32_t, kInt32)
CTORCH_MAP_TYPE_(int64_t, kInt64)
CTORCH_MAP_TYPE_(Half, kFloat16)
CTORCH_MAP_TYPE_(float, kFloat32)
CTORCH_MAP_TYPE_(double, kFloat64)
CTORCH_MAP_TYPE_(bool, kBool)
CTORCH_MAP_TYPE_(BFloat16, kBFloat16)
CTORCH_MAP_TYPE_(std::complex<float>, kComplexFloat)
CTORCH_MAP_TYPE_(std::complex<double>, kComplexDouble)
#undef CTORCH_MAP_TYPE_

/// ScalarType of C++ type T.
template <class T>
inline constexpr ScalarType scalar_type_of = CppTypeToScalarType<T>::value;

}  // namespace ctorch::api
