// Binary elementwise Tensor methods: arithmetic, comparison, logical ops and where.
#include "ctorch/factories.h"
#include "ctorch/ops.h"
#include "ops/elementwise.h"
#include "ops/grad_hook.h"
#include "ops/launch.h"

namespace ctorch::inline api {

using kernels::BinaryOp;
using ops::binary_op;
using ops::binary_op_;
using ops::OpArgs;
using ops::ScalarOperand;

namespace {

// alpha is checked against the computation dtype by the op layer (at::native::alpha_check).
OpArgs with_alpha(const Scalar& alpha, const Tensor& t, const char* op) {
  OpArgs a;
  a.alpha = alpha;
  (void)t;
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

// Numpy compatibility check of pow(Tensor, Scalar): integral (or bool) base, negative integral
// exponent. Tensor exponents are not checked: powi gives 0, 1 or -1 for them, as in PyTorch.
void check_int_pow(const Tensor& base, const Scalar& e) {
  CTORCH_CHECK(!(is_integral(base.dtype(), true) && e.is_integral(true) && e.to_long() < 0),
               "Integers to negative integer powers are not allowed.");
}

}  // namespace

Tensor Tensor::pow(const Tensor& e) const { return binary_op(BinaryOp::Pow, *this, e); }
Tensor Tensor::pow(const Scalar& e) const {
  check_int_pow(*this, e);
  return binary_op(BinaryOp::Pow, *this, e, ScalarOperand::Rhs);
}
Tensor& Tensor::pow_(const Tensor& e) { return binary_op_(BinaryOp::Pow, *this, e); }
Tensor& Tensor::pow_(const Scalar& e) {
  check_int_pow(*this, e);
  // pow_(Scalar) computes into self directly; a promoting exponent fails PyTorch's dtype check.
  const ScalarType common = result_type(*this, e);
  CTORCH_CHECK(common == dtype(), "Found dtype ", scalar_type_cpp_name(dtype()), " but expected ",
               scalar_type_cpp_name(common));
  return binary_op_(BinaryOp::Pow, *this, e);
}
Tensor pow(const Scalar& self, const Tensor& exponent) {
  if (self.to_double() == 1.0 && !self.is_bool()) {  // 1 ** anything is 1, NaN included
    return full(exponent.sizes(), 1, TensorOptions().dtype(result_type(self, exponent)).device(exponent.device()));
  }
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
  if (ops::needs_grad({&x, &y})) [[unlikely]] {
    return ops::recorded(
        ops::GradFn::Where, {&condition, &x, &y}, [&] { return where(condition, x, y); }, [](ops::GradArgs&) {});
  }
  const Device device = ops::common_device({&condition, &x, &y});
  CTORCH_CHECK_TYPE(condition.dtype() == kBool || condition.dtype() == kUInt8,
                    "where expected condition to be a boolean tensor, but got a tensor with dtype ",
                    scalar_type_cpp_name(condition.dtype()));
  const ScalarType dtype = result_type(x, y);
  const DimVector shape = broadcast_shapes(broadcast_shapes(condition.sizes(), x.sizes()), y.sizes());
  const Tensor c = condition.to(kBool), xc = x.to(dtype), yc = y.to(dtype);
  Tensor out = ops::empty_output(shape, TensorOptions().dtype(dtype).device(device), {&condition, &x, &y});
  if (out.numel() == 0) return out;
  kernels::ElementwisePlan plan = ops::make_plan(out, {&c, &xc, &yc});
  char* data[kernels::kMaxOperands];
  ops::plan_data(data, out, {&c, &xc, &yc});
  ops::launch_where(dtype, plan, data, device,
                    CTORCH_OPERANDS({out, nullptr, true, true}, {c, "condition"}, {xc, "self"}, {yc, "other"}));
  return out;
}

namespace {
// A scalar operand of where() becomes a 0-dim tensor of the promoted dtype (at::scalar_tensor,
// whose fill checks the value fits).
Tensor scalar_like(const Scalar& s, const Tensor& other) {
  return full({}, s, TensorOptions().dtype(result_type(other, s)).device(other.device()));
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

}  // namespace ctorch::api
