// Unary elementwise Tensor methods and clamp.
#include <cmath>

#include "core/scalar_convert.h"
#include "ctorch/factories.h"
#include "ctorch/ops.h"
#include "kernels/dispatch.h"
#include "ops/elementwise.h"

namespace ctorch::inline api {

using kernels::UnaryOp;
using ops::unary_op;
using ops::unary_op_;

#define CTORCH_UNARY_(NAME, OP, TO_FLOAT)                                                  \
  Tensor Tensor::NAME() const { return unary_op(UnaryOp::OP, *this, TO_FLOAT); }           \
  Tensor& Tensor::NAME##_() { return unary_op_(UnaryOp::OP, *this, TO_FLOAT); }
// Ops whose PyTorch cpu kernel has no bool instantiation; `kernel` is the name it reports.
#define CTORCH_UNARY_NO_BOOL_(NAME, OP, KERNEL)                                            \
  Tensor Tensor::NAME() const {                                                            \
    CTORCH_CHECK_TYPE(dtype() != kBool, "\"" KERNEL "\" not implemented for 'Bool'");       \
    return unary_op(UnaryOp::OP, *this, false);                                            \
  }                                                                                        \
  Tensor& Tensor::NAME##_() {                                                              \
    CTORCH_CHECK_TYPE(dtype() != kBool, "\"" KERNEL "\" not implemented for 'Bool'");       \
    return unary_op_(UnaryOp::OP, *this, false);                                           \
  }
CTORCH_UNARY_NO_BOOL_(abs, Abs, "abs_cpu")
CTORCH_UNARY_NO_BOOL_(floor, Floor, "floor_vml_cpu")
CTORCH_UNARY_NO_BOOL_(ceil, Ceil, "ceil_vml_cpu")
CTORCH_UNARY_NO_BOOL_(round, Round, "round_vml_cpu")
#undef CTORCH_UNARY_NO_BOOL_
CTORCH_UNARY_(exp, Exp, true)
CTORCH_UNARY_(log, Log, true)
CTORCH_UNARY_(sqrt, Sqrt, true)
CTORCH_UNARY_(rsqrt, Rsqrt, true)
CTORCH_UNARY_(sin, Sin, true)
CTORCH_UNARY_(cos, Cos, true)
CTORCH_UNARY_(tanh, Tanh, true)
CTORCH_UNARY_(sigmoid, Sigmoid, true)
CTORCH_UNARY_(erf, Erf, true)
CTORCH_UNARY_(log1p, Log1p, true)
CTORCH_UNARY_(sign, Sign, false)
#undef CTORCH_UNARY_

Tensor Tensor::neg() const {
  CTORCH_CHECK(dtype() != kBool,
               "Negation, the `-` operator, on a bool tensor is not supported. If you are trying to invert a "
               "mask, use the `~` or `logical_not()` operator instead.");
  return unary_op(UnaryOp::Neg, *this, false);
}
Tensor& Tensor::neg_() {
  CTORCH_CHECK(dtype() != kBool,
               "Negation, the `-` operator, on a bool tensor is not supported. If you are trying to invert a "
               "mask, use the `~` or `logical_not()` operator instead.");
  return unary_op_(UnaryOp::Neg, *this, false);
}
Tensor Tensor::relu() const {
  CTORCH_CHECK(dtype() != kBool, "Boolean inputs not supported for relu");
  return unary_op(UnaryOp::Relu, *this, false);
}
Tensor& Tensor::relu_() {
  CTORCH_CHECK(dtype() != kBool, "Boolean inputs not supported for relu");
  return unary_op_(UnaryOp::Relu, *this, false);
}
Tensor Tensor::logical_not() const {
  Tensor out = unary_op(UnaryOp::LogicalNot, to(kBool), false);
  return out;
}

namespace {


// at::clamp's manual type promotion: a floating self keeps its dtype; otherwise the bounds take
// part as wrapped numbers (an integer tensor with a float bound gives the default float dtype).
ScalarType clamp_dtype(const Tensor& t, const std::optional<Scalar>& min, const std::optional<Scalar>& max) {
  CTORCH_CHECK(min || max, "torch.clamp: At least one of 'min' or 'max' must not be None");
  if (is_floating_point(t.dtype())) return t.dtype();
  ScalarType dtype = t.dtype();
  if (min) dtype = result_type(t, *min);
  if (max) dtype = promote_types(dtype, result_type(t, *max));
  return dtype;
}

bool is_nan(const std::optional<Scalar>& s) { return s && s->is_floating_point() && std::isnan(s->to_double()); }

// Bounds for the kernel, checked against `dtype` as PyTorch's min_.to<scalar_t>() is.
ops::OpArgs clamp_args(ScalarType dtype, const std::optional<Scalar>& min, const std::optional<Scalar>& max) {
  CTORCH_CHECK_TYPE(dtype != kBool, "\"",
                    min && max ? "clamp_scalar_cpu" : min ? "clamp_min_cpu" : "clamp_max_scalar_cpu",
                    "\" not implemented for 'Bool'");
  kernels::dispatch_all(dtype, "clamp", [&](auto tag) {
    using T = typename decltype(tag)::type;
    if (min) (void)detail::checked_convert<T>(*min);
    if (max) (void)detail::checked_convert<T>(*max);
  });
  ops::OpArgs a;
  const bool fl = is_floating_point(dtype);
  a.lo = min ? *min : (fl ? Scalar(-INFINITY) : Scalar(INT64_MIN));
  a.hi = max ? *max : (fl ? Scalar(INFINITY) : Scalar(INT64_MAX));
  return a;
}

}  // namespace

Tensor Tensor::clamp(std::optional<Scalar> min, std::optional<Scalar> max) const {
  const ScalarType dtype = clamp_dtype(*this, min, max);
  if (min && max && (is_nan(min) || is_nan(max))) {  // PyTorch fills with NaN when a bound is NaN
    Tensor out = ops::empty_output(sizes(), TensorOptions().dtype(dtype).device(device()), {this});
    ops::fill_into(out, NAN);
    return out;
  }
  const ops::OpArgs args = clamp_args(dtype, min, max);
  return unary_op(UnaryOp::Clamp, to(dtype), false, args);
}
Tensor& Tensor::clamp_(std::optional<Scalar> min, std::optional<Scalar> max) {
  const ScalarType dtype = clamp_dtype(*this, min, max);
  CTORCH_CHECK(dtype == this->dtype(), "result type ", scalar_type_cpp_name(dtype),
               " can't be cast to the desired output type ", type_meta_name(this->dtype()));
  if (min && max && (is_nan(min) || is_nan(max))) {
    ops::check_no_internal_overlap(*this);
    return fill_(NAN);
  }
  return unary_op_(UnaryOp::Clamp, *this, false, clamp_args(dtype, min, max));
}
Tensor Tensor::clamp_min(const Scalar& min) const { return clamp(min, std::nullopt); }
Tensor Tensor::clamp_max(const Scalar& max) const { return clamp(std::nullopt, max); }

}  // namespace ctorch::api
