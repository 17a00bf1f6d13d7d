// Unary elementwise Tensor methods and clamp.
#include "ctorch/ops.h"
#include "ops/elementwise.h"

namespace ctorch {

using kernels::UnaryOp;
using ops::unary_op;
using ops::unary_op_;

#define CTORCH_UNARY_(NAME, OP, TO_FLOAT)                                                  \
  Tensor Tensor::NAME() const { return unary_op(UnaryOp::OP, *this, TO_FLOAT); }           \
  Tensor& Tensor::NAME##_() { return unary_op_(UnaryOp::OP, *this, TO_FLOAT); }
CTORCH_UNARY_(abs, Abs, false)
CTORCH_UNARY_(exp, Exp, true)
CTORCH_UNARY_(log, Log, true)
CTORCH_UNARY_(sqrt, Sqrt, true)
CTORCH_UNARY_(rsqrt, Rsqrt, true)
CTORCH_UNARY_(sin, Sin, true)
CTORCH_UNARY_(cos, Cos, true)
CTORCH_UNARY_(tanh, Tanh, true)
CTORCH_UNARY_(sigmoid, Sigmoid, true)
CTORCH_UNARY_(floor, Floor, false)
CTORCH_UNARY_(ceil, Ceil, false)
CTORCH_UNARY_(round, Round, false)
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
  CTORCH_CHECK_TYPE(dtype() != kBool, "\"clamp_min_cpu\" not implemented for 'Bool'");
  return unary_op(UnaryOp::Relu, *this, false);
}
Tensor& Tensor::relu_() {
  CTORCH_CHECK_TYPE(dtype() != kBool, "\"clamp_min_cpu\" not implemented for 'Bool'");
  return unary_op_(UnaryOp::Relu, *this, false);
}
Tensor Tensor::logical_not() const {
  Tensor out = unary_op(UnaryOp::LogicalNot, to(kBool), false);
  return out;
}

namespace {

ops::OpArgs clamp_args(const Tensor& t, const std::optional<Scalar>& min, const std::optional<Scalar>& max) {
  CTORCH_CHECK(min || max, "torch.clamp: At least one of 'min' or 'max' must not be None");
  CTORCH_CHECK_TYPE(t.dtype() != kBool, "\"clamp_cpu\" not implemented for 'Bool'");
  ops::OpArgs a;
  const bool fl = is_floating_point(t.dtype());
  a.lo = min ? *min : (fl ? Scalar(-INFINITY) : Scalar(INT64_MIN));
  a.hi = max ? *max : (fl ? Scalar(INFINITY) : Scalar(INT64_MAX));
  return a;
}

}  // namespace

Tensor Tensor::clamp(std::optional<Scalar> min, std::optional<Scalar> max) const {
  // A floating bound on an integer tensor promotes the result, as in PyTorch.
  ScalarType dtype = this->dtype();
  if (min) dtype = result_type(*this, *min);
  if (max) dtype = promote_types(dtype, result_type(*this, *max));
  const Tensor in = to(dtype);
  return unary_op(UnaryOp::Clamp, in, false, clamp_args(in, min, max));
}
Tensor& Tensor::clamp_(std::optional<Scalar> min, std::optional<Scalar> max) {
  return unary_op_(UnaryOp::Clamp, *this, false, clamp_args(*this, min, max));
}
Tensor Tensor::clamp_min(const Scalar& min) const { return clamp(min, std::nullopt); }
Tensor Tensor::clamp_max(const Scalar& max) const { return clamp(std::nullopt, max); }

}  // namespace ctorch
