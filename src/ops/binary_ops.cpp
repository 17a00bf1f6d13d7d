// Binary elementwise Tensor methods: arithmetic, comparison, logical ops and where.
#include "ctorch/factories.h"
#include "ctorch/ops.h"
#include "ops/elementwise.h"

namespace ctorch {

using kernels::BinaryOp;
using ops::binary_op;
using ops::binary_op_;
using ops::OpArgs;
using ops::ScalarOperand;

namespace {

OpArgs with_alpha(const Scalar& alpha, const Tensor& t, const char* op) {
  CTORCH_CHECK(!(alpha.is_floating_point() && is_integral(t.dtype(), true)),
               "For integral input tensors, argument alpha must not be a floating point number.");
  OpArgs a;
  a.alpha = alpha;
  (void)op;
  return a;
}

BinaryOp div_op(const std::optional<std::string>& mode) {
  if (!mode) return BinaryOp::Div;
  if (*mode == "trunc") return BinaryOp::DivTrunc;
  if (*mode == "floor") return BinaryOp::DivFloor;
  CTORCH_CHECK_VALUE(false, "div expected rounding_mode to be one of None, 'trunc', or 'floor' but found '", *mode,
                     "'");
}

}  // namespace

Tensor Tensor::add(const Tensor& o, const Scalar& alpha) const {
  return binary_op(BinaryOp::Add, *this, o, with_alpha(alpha, *this, "add"));
}
Tensor Tensor::add(const Scalar& o, const Scalar& alpha) const {
  return binary_op(BinaryOp::Add, *this, o, ScalarOperand::Rhs, with_alpha(alpha, *this, "add"));
}
Tensor& Tensor::add_(const Tensor& o, const Scalar& alpha) {
  return binary_op_(BinaryOp::Add, *this, o, with_alpha(alpha, *this, "add_"));
}
Tensor& Tensor::add_(const Scalar& o, const Scalar& alpha) {
  return binary_op_(BinaryOp::Add, *this, o, with_alpha(alpha, *this, "add_"));
}
Tensor Tensor::sub(const Tensor& o, const Scalar& alpha) const {
  return binary_op(BinaryOp::Sub, *this, o, with_alpha(alpha, *this, "sub"));
}
Tensor Tensor::sub(const Scalar& o, const Scalar& alpha) const {
  return binary_op(BinaryOp::Sub, *this, o, ScalarOperand::Rhs, with_alpha(alpha, *this, "sub"));
}
Tensor& Tensor::sub_(const Tensor& o, const Scalar& alpha) {
  return binary_op_(BinaryOp::Sub, *this, o, with_alpha(alpha, *this, "sub_"));
}
Tensor& Tensor::sub_(const Scalar& o, const Scalar& alpha) {
  return binary_op_(BinaryOp::Sub, *this, o, with_alpha(alpha, *this, "sub_"));
}
Tensor Tensor::mul(const Tensor& o) const { return binary_op(BinaryOp::Mul, *this, o); }
Tensor Tensor::mul(const Scalar& o) const { return binary_op(BinaryOp::Mul, *this, o, ScalarOperand::Rhs); }
Tensor& Tensor::mul_(const Tensor& o) { return binary_op_(BinaryOp::Mul, *this, o); }
Tensor& Tensor::mul_(const Scalar& o) { return binary_op_(BinaryOp::Mul, *this, o); }
Tensor Tensor::div(const Tensor& o, std::optional<std::string> mode) const {
  return binary_op(div_op(mode), *this, o);
}
Tensor Tensor::div(const Scalar& o, std::optional<std::string> mode) const {
  return binary_op(div_op(mode), *this, o, ScalarOperand::Rhs);
}
Tensor& Tensor::div_(const Tensor& o, std::optional<std::string> mode) { return binary_op_(div_op(mode), *this, o); }
Tensor& Tensor::div_(const Scalar& o, std::optional<std::string> mode) { return binary_op_(div_op(mode), *this, o); }
Tensor Tensor::remainder(const Tensor& o) const { return binary_op(BinaryOp::Remainder, *this, o); }
Tensor Tensor::remainder(const Scalar& o) const {
  return binary_op(BinaryOp::Remainder, *this, o, ScalarOperand::Rhs);
}
Tensor& Tensor::remainder_(const Tensor& o) { return binary_op_(BinaryOp::Remainder, *this, o); }
Tensor& Tensor::remainder_(const Scalar& o) { return binary_op_(BinaryOp::Remainder, *this, o); }

namespace {

void check_int_pow(const Tensor& base, const Tensor* exp_t, const Scalar* exp_s) {
  if (!is_integral(base.dtype(), false)) return;
  bool negative = false;
  if (exp_s) {
    negative = exp_s->is_integral(false) && exp_s->to_long() < 0;
  } else if (is_integral(exp_t->dtype(), false)) {
    negative = ops::has_nonzero(exp_t->lt(0));
  }
  CTORCH_CHECK(!negative, "Integers to negative integer powers are not allowed.");
}

}  // namespace

Tensor Tensor::pow(const Tensor& e) const {
  check_int_pow(*this, &e, nullptr);
  return binary_op(BinaryOp::Pow, *this, e);
}
Tensor Tensor::pow(const Scalar& e) const {
  check_int_pow(*this, nullptr, &e);
  return binary_op(BinaryOp::Pow, *this, e, ScalarOperand::Rhs);
}
Tensor& Tensor::pow_(const Tensor& e) {
  check_int_pow(*this, &e, nullptr);
  return binary_op_(BinaryOp::Pow, *this, e);
}
Tensor& Tensor::pow_(const Scalar& e) {
  check_int_pow(*this, nullptr, &e);
  return binary_op_(BinaryOp::Pow, *this, e);
}
Tensor pow(const Scalar& self, const Tensor& exponent) {
  return binary_op(BinaryOp::Pow, exponent, self, ScalarOperand::Lhs);
}
Tensor Tensor::maximum(const Tensor& o) const { return binary_op(BinaryOp::Maximum, *this, o); }
Tensor Tensor::minimum(const Tensor& o) const { return binary_op(BinaryOp::Minimum, *this, o); }

#define CTORCH_COMPARE_(NAME, OP)                                                                    \
  Tensor Tensor::NAME(const Tensor& o) const { return binary_op(BinaryOp::OP, *this, o); }           \
  Tensor Tensor::NAME(const Scalar& o) const {                                                       \
    return binary_op(BinaryOp::OP, *this, o, ScalarOperand::Rhs);                                    \
  }
CTORCH_COMPARE_(eq, Eq)
CTORCH_COMPARE_(ne, Ne)
CTORCH_COMPARE_(lt, Lt)
CTORCH_COMPARE_(le, Le)
CTORCH_COMPARE_(gt, Gt)
CTORCH_COMPARE_(ge, Ge)
#undef CTORCH_COMPARE_

Tensor Tensor::logical_and(const Tensor& o) const { return binary_op(BinaryOp::LogicalAnd, *this, o); }
Tensor Tensor::logical_or(const Tensor& o) const { return binary_op(BinaryOp::LogicalOr, *this, o); }
Tensor Tensor::logical_xor(const Tensor& o) const { return binary_op(BinaryOp::LogicalXor, *this, o); }

Tensor operator+(const Scalar& a, const Tensor& b) { return b.add(a); }
Tensor operator-(const Scalar& a, const Tensor& b) { return binary_op(BinaryOp::Sub, b, a, ScalarOperand::Lhs); }
Tensor operator*(const Scalar& a, const Tensor& b) { return b.mul(a); }
Tensor operator/(const Scalar& a, const Tensor& b) { return binary_op(BinaryOp::Div, b, a, ScalarOperand::Lhs); }

Tensor where(const Tensor& condition, const Tensor& x, const Tensor& y) {
  const Device device = ops::common_device({&condition, &x, &y});
  CTORCH_CHECK_TYPE(condition.dtype() == kBool || condition.dtype() == kUInt8,
                    "where expected condition to be a boolean tensor, but got a tensor with dtype ",
                    scalar_type_cpp_name(condition.dtype()));
  const ScalarType dtype = result_type(x, y);
  const DimVector shape = broadcast_shapes(broadcast_shapes(condition.sizes(), x.sizes()), y.sizes());
  const Tensor c = condition.to(kBool), xc = x.to(dtype), yc = y.to(dtype);
  Tensor out = empty(shape, TensorOptions().dtype(dtype).device(device));
  if (out.numel() == 0) return out;
  kernels::ElementwisePlan plan = ops::make_plan(out, {&c, &xc, &yc});
  char* data[kernels::kMaxOperands];
  ops::plan_data(data, out, {&c, &xc, &yc});
  ops::kernels_for(device).where(dtype, plan, data, Stream::default_stream(device));
  return out;
}

namespace {
// A scalar operand of where() becomes a 0-dim tensor so that it takes part in promotion as a
// wrapped number would: its category counts, its width does not.
Tensor scalar_like(const Scalar& s, const Tensor& other) {
  ScalarType t = s.type();
  if (promote_types(t, other.dtype()) == other.dtype() ||
      (is_floating_point(other.dtype()) && !s.is_floating_point()) ||
      (is_integral(other.dtype(), false) && s.is_integral(false))) {
    t = other.dtype();
  }
  return full({}, s, TensorOptions().dtype(t).device(other.device()));
}
}  // namespace

Tensor where(const Tensor& condition, const Scalar& x, const Tensor& y) {
  return where(condition, scalar_like(x, y), y);
}
Tensor where(const Tensor& condition, const Tensor& x, const Scalar& y) {
  return where(condition, x, scalar_like(y, x));
}
Tensor where(const Tensor& condition, const Scalar& x, const Scalar& y) {
  const ScalarType t = result_type(x, y);
  return where(condition, full({}, x, TensorOptions().dtype(t).device(condition.device())),
               full({}, y, TensorOptions().dtype(t).device(condition.device())));
}

}  // namespace ctorch
