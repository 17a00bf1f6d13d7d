#include "ctorch/scalar.h"

#include <ostream>

#include "ctorch/error.h"

namespace ctorch::inline api {

ScalarType Scalar::type() const {
  switch (kind_) {
    case Kind::Bool: return kBool;
    case Kind::Int: return kInt64;
    case Kind::Double: return get_default_dtype();
  }
  return kInt64;
}

Scalar Scalar::operator-() const {
  CTORCH_CHECK(kind_ != Kind::Bool,
               "Negation, the `-` operator, on a bool tensor is not supported. If you are trying "
               "to invert a mask, use the `~` or `logical_not()` operator instead.");
  return kind_ == Kind::Double ? Scalar(-d_) : Scalar(-i_);
}

std::ostream& operator<<(std::ostream& os, const Scalar& s) {
  switch (s.kind()) {
    case Scalar::Kind::Bool: return os << (s.to_bool() ? "True" : "False");
    case Scalar::Kind::Int: return os << s.to_long();
    case Scalar::Kind::Double: return os << s.to_double();
  }
  return os;
}

}  // namespace ctorch::api
