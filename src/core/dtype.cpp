#include "ctorch/dtype.h"

#include <atomic>
#include <ostream>

#include "ctorch/error.h"

namespace ctorch::inline api {

const char* type_meta_name(ScalarType t) {
  switch (t) {
    case kUInt8: return "unsigned char";
    case kInt8: return "signed char";
    case kInt16: return "short int";
    case kInt32: return "int";
    case kInt64: return "long int";
    case kFloat16: return "c10::Half";
    case kFloat32: return "float";
    case kFloat64: return "double";
    case kBool: return "bool";
    case kBFloat16: return "c10::BFloat16";
    case kComplexFloat: return "c10::complex<float>";
    case kComplexDouble: return "c10::complex<double>";
  }
  return "?";
}

const char* scalar_type_name(ScalarType t) {
  static const char* names[] = {"uint8", "int8",    "int16", "int32", "int64",
                                "float16", "float32", "float64", "bool", "bfloat16", "complex64", "complex128"};
  return names[static_cast<int>(t)];
}

const char* scalar_type_cpp_name(ScalarType t) {
  static const char* names[] = {"Byte", "Char",   "Short",  "Int",  "Long",
                                "Half", "Float", "Double", "Bool", "BFloat16", "ComplexFloat", "ComplexDouble"};
  return names[static_cast<int>(t)];
}

std::string dtype_name(ScalarType t) { return std::string("torch.") + scalar_type_name(t); }

std::ostream& operator<<(std::ostream& os, ScalarType t) { return os << dtype_name(t); }

// Same table as c10's promoteTypes, derived by rule: bool < unsigned/signed ints < floats;
// uint8 with a signed type widens to the next signed type that holds both; float16 with
// bfloat16 gives float32.
ScalarType promote_types(ScalarType a, ScalarType b) {
  if (a == b) return a;
  if (is_complex(a) || is_complex(b)) {
    // Complex wins the category; the parts are as wide as the widest floating operand
    // (complex64 with float64 gives complex128, as c10's table).
    const bool wide = a == kComplexDouble || b == kComplexDouble || a == kFloat64 || b == kFloat64;
    return wide ? kComplexDouble : kComplexFloat;
  }
  if (a == kBool) return b;
  if (b == kBool) return a;
  const bool fa = is_floating_point(a), fb = is_floating_point(b);
  if (fa && fb) {
    if ((a == kFloat16 && b == kBFloat16) || (a == kBFloat16 && b == kFloat16)) return kFloat32;
    return element_size(a) >= element_size(b) ? a : b;
  }
  if (fa) return a;
  if (fb) return b;
  // both integral
  if (a == kUInt8 || b == kUInt8) {
    ScalarType other = a == kUInt8 ? b : a;
    return other == kInt8 ? kInt16 : other;
  }
  return element_size(a) >= element_size(b) ? a : b;
}

bool can_cast(ScalarType from, ScalarType to) {
  if (is_complex(from) && !is_complex(to)) return false;
  if (is_floating_point(from) && is_integral(to, true)) return false;
  if (from != kBool && to == kBool) return false;
  return true;
}

namespace {
std::atomic<ScalarType> g_default_dtype{kFloat32};
}

ScalarType get_default_dtype() { return g_default_dtype.load(std::memory_order_relaxed); }

void set_default_dtype(ScalarType t) {
  CTORCH_CHECK_TYPE(t == kFloat32 || t == kFloat64,
                    "only floating-point types are supported as the default type");
  g_default_dtype.store(t, std::memory_order_relaxed);
}

}  // namespace ctorch::api
