#include "ops/elementwise.h"

#include "ctorch/factories.h"
#include "ctorch/ops.h"

namespace ctorch::ops {

using kernels::BinaryOp;
using kernels::ElementwisePlan;
using kernels::UnaryOp;

int64_t wrap_dim(int64_t dim, int64_t ndim) {
  const int64_t n = ndim <= 0 ? 1 : ndim;  // a 0-dim tensor accepts dims -1 and 0
  CTORCH_CHECK_INDEX(dim >= -n && dim < n, "Dimension out of range (expected to be in range of [", -n, ", ",
                     n - 1, "], but got ", dim, ")");
  return dim < 0 ? dim + n : dim;
}

Device common_device(std::initializer_list<const Tensor*> tensors) {
  const Tensor* first = nullptr;
  for (const Tensor* t : tensors) {
    if (!first) {
      first = t;
    } else if (t->device() != first->device()) {
      // PyTorch names the first non-cpu device first.
      Device a = first->device(), b = t->device();
      if (a.is_cpu()) std::swap(a, b);
      CTORCH_CHECK(false, "Expected all tensors to be on the same device, but found at least two devices, ", a,
                   " and ", b, "!");
    }
  }
  return first ? first->device() : Device(DeviceType::CPU);
}

ElementwisePlan make_plan(const Tensor& out, std::initializer_list<const Tensor*> inputs) {
  ElementwisePlan p;
  p.noperands = 1 + static_cast<int>(inputs.size());
  p.numel = out.numel();
  // Fast path: every operand contiguous with out's shape is one flat dim.
  bool flat = out.is_contiguous();
  for (const Tensor* t : inputs) flat = flat && t->is_contiguous() && t->sizes() == out.sizes();
  if (flat) {
    p.ndim = 1;
    p.shape[0] = p.numel;
    p.strides[0][0] = p.element_size[0] = out.element_size();
    int j = 1;
    for (const Tensor* t : inputs) {
      p.strides[j][0] = p.element_size[j] = t->element_size();
      ++j;
    }
    return p;
  }
  const int64_t n = out.dim();
  const Tensor* ops[kernels::kMaxOperands];
  ops[0] = &out;
  int k = 1;
  for (const Tensor* t : inputs) ops[k++] = t;
  for (k = 0; k < p.noperands; ++k) p.element_size[k] = ops[k]->element_size();

  // Collect non-trivial dims fastest-first, then coalesce adjacent dims.
  int nd = 0;
  int64_t shape[64];
  int64_t strides[kernels::kMaxOperands][64];
  CTORCH_CHECK_NOT_IMPLEMENTED(n <= 64, "elementwise ops support at most 64 dims, got ", n);
  for (int64_t i = n - 1; i >= 0; --i) {
    const int64_t size = out.sizes()[i];
    if (size == 1) continue;
    shape[nd] = size;
    for (k = 0; k < p.noperands; ++k) {
      const Tensor& t = *ops[k];
      const int64_t j = i - (n - t.dim());
      const bool broadcast = j < 0 || t.sizes()[j] == 1;
      strides[k][nd] = broadcast ? 0 : t.strides()[j] * p.element_size[k];
    }
    ++nd;
  }
  int out_nd = 0;
  for (int d = 0; d < nd; ++d) {
    if (out_nd > 0) {
      bool can_merge = true;
      for (k = 0; k < p.noperands; ++k) {
        if (strides[k][d] != p.shape[out_nd - 1] * p.strides[k][out_nd - 1]) {
          can_merge = false;
          break;
        }
      }
      if (can_merge) {
        p.shape[out_nd - 1] *= shape[d];
        continue;
      }
    }
    CTORCH_CHECK_NOT_IMPLEMENTED(out_nd < kernels::kMaxDims, "elementwise ops support at most ",
                                 kernels::kMaxDims, " non-mergeable dims");
    p.shape[out_nd] = shape[d];
    for (k = 0; k < p.noperands; ++k) p.strides[k][out_nd] = strides[k][d];
    ++out_nd;
  }
  p.ndim = out_nd;
  return p;
}

void plan_data(char** data, const Tensor& out, std::initializer_list<const Tensor*> inputs) {
  data[0] = static_cast<char*>(out.data_ptr());
  int k = 1;
  for (const Tensor* t : inputs) data[k++] = static_cast<char*>(t->data_ptr());
}

bool has_nonzero(const Tensor& t) {
  for (uint8_t v : t.to_vector<uint8_t>()) {
    if (v) return true;
  }
  return false;
}

namespace {

// Division by zero of integers raises on cpu as in PyTorch ("ZeroDivisionError").
void check_integer_divisor(BinaryOp op, ScalarType dtype, const Tensor* divisor, const Scalar* scalar) {
  if (op != BinaryOp::DivTrunc && op != BinaryOp::DivFloor && op != BinaryOp::Remainder) return;
  if (!is_integral(dtype, true)) return;
  bool zero = scalar ? scalar->to_long() == 0 : has_nonzero(divisor->eq(0));
  CTORCH_CHECK(!zero, "ZeroDivisionError");
}

ScalarType compute_dtype(BinaryOp op, ScalarType common) {
  if (op == BinaryOp::Div && is_integral(common, true)) return get_default_dtype();
  return common;
}

void check_op_dtype(BinaryOp op, ScalarType dtype) {
  if (dtype != kBool) return;
  CTORCH_CHECK(op != BinaryOp::Sub,
               "Subtraction, the `-` operator, with two bool tensors is not supported. Use the `^` or "
               "`logical_xor()` operator instead.");
  CTORCH_CHECK_TYPE(op != BinaryOp::Remainder && op != BinaryOp::DivTrunc && op != BinaryOp::DivFloor,
                    "\"", op_name(op), "_cpu\" not implemented for 'Bool'");
}

}  // namespace

Tensor binary_op(BinaryOp op, const Tensor& a, const Tensor& b, const OpArgs& args) {
  Device device = common_device({&a, &b});
  const ScalarType common = compute_dtype(op, result_type(a, b));
  check_op_dtype(op, common);
  const DimVector shape = broadcast_shapes(a.sizes(), b.sizes());
  const Tensor ac = a.to(common), bc = b.to(common);
  check_integer_divisor(op, common, &bc, nullptr);
  Tensor out = empty(shape, TensorOptions().dtype(kernels::produces_bool(op) ? kBool : common).device(device));
  if (out.numel() == 0) return out;
  ElementwisePlan plan = make_plan(out, {&ac, &bc});
  char* data[kernels::kMaxOperands];
  plan_data(data, out, {&ac, &bc});
  kernels_for(device).binary(op, common, ScalarOperand::None, plan, data, args, Stream::default_stream(device));
  return out;
}

Tensor binary_op(BinaryOp op, const Tensor& t, const Scalar& s, ScalarOperand side, const OpArgs& args) {
  const ScalarType common = compute_dtype(op, result_type(t, s));
  check_op_dtype(op, common);
  const Tensor tc = t.to(common);
  if (side == ScalarOperand::Rhs) {
    check_integer_divisor(op, common, nullptr, &s);
  } else {
    check_integer_divisor(op, common, &tc, nullptr);
  }
  Tensor out = empty(t.sizes(), TensorOptions().dtype(kernels::produces_bool(op) ? kBool : common).device(t.device()));
  if (out.numel() == 0) return out;
  ElementwisePlan plan = make_plan(out, {&tc});
  char* data[kernels::kMaxOperands];
  plan_data(data, out, {&tc});
  OpArgs a = args;
  a.scalar = s;
  kernels_for(t.device()).binary(op, common, side, plan, data, a, Stream::default_stream(t.device()));
  return out;
}

namespace {

void check_inplace(BinaryOp op, const Tensor& self, ScalarType common, IntArrayRef other_shape) {
  const ScalarType result = kernels::produces_bool(op) ? kBool : common;
  CTORCH_CHECK(can_cast(result, self.dtype()), "result type ", scalar_type_cpp_name(result),
               " can't be cast to the desired output type ", scalar_type_cpp_name(self.dtype()));
  const DimVector shape = broadcast_shapes(self.sizes(), other_shape);
  CTORCH_CHECK(IntArrayRef(shape) == self.sizes(), "output with shape ", self.sizes(),
               " doesn't match the broadcast shape ", IntArrayRef(shape));
}

}  // namespace

Tensor& binary_op_(BinaryOp op, Tensor& self, const Tensor& b, const OpArgs& args) {
  Device device = common_device({&self, &b});
  const ScalarType common = compute_dtype(op, result_type(self, b));
  check_op_dtype(op, common);
  check_inplace(op, self, common, b.sizes());
  const ScalarType result = kernels::produces_bool(op) ? kBool : common;
  if (result != self.dtype()) {  // compute in the promoted type, then convert into self
    self.copy_(binary_op(op, self, b, args));
    return self;
  }
  const Tensor bc = b.to(common);
  check_integer_divisor(op, common, &bc, nullptr);
  if (self.numel() == 0) return self;
  const Tensor& ac = self;
  ElementwisePlan plan = make_plan(self, {&ac, &bc});
  char* data[kernels::kMaxOperands];
  plan_data(data, self, {&ac, &bc});
  kernels_for(device).binary(op, common, ScalarOperand::None, plan, data, args, Stream::default_stream(device));
  self.impl()->storage()->bump_version();
  return self;
}

Tensor& binary_op_(BinaryOp op, Tensor& self, const Scalar& s, const OpArgs& args) {
  const ScalarType common = compute_dtype(op, result_type(self, s));
  check_op_dtype(op, common);
  check_inplace(op, self, common, IntArrayRef());
  check_integer_divisor(op, common, nullptr, &s);
  const ScalarType result = kernels::produces_bool(op) ? kBool : common;
  if (result != self.dtype()) {
    self.copy_(binary_op(op, self, s, ScalarOperand::Rhs, args));
    return self;
  }
  if (self.numel() == 0) return self;
  const Tensor& in = self;
  ElementwisePlan plan = make_plan(self, {&in});
  char* data[kernels::kMaxOperands];
  plan_data(data, self, {&in});
  OpArgs a = args;
  a.scalar = s;
  kernels_for(self.device()).binary(op, common, ScalarOperand::Rhs, plan, data, a,
                                    Stream::default_stream(self.device()));
  self.impl()->storage()->bump_version();
  return self;
}

Tensor unary_op(UnaryOp op, const Tensor& t, bool to_float, const OpArgs& args) {
  ScalarType dtype = t.dtype();
  if (to_float && is_integral(dtype, true)) dtype = get_default_dtype();
  const Tensor in = t.to(dtype);
  Tensor out = empty(t.sizes(), TensorOptions().dtype(dtype).device(t.device()));
  if (out.numel() == 0) return out;
  ElementwisePlan plan = make_plan(out, {&in});
  char* data[kernels::kMaxOperands];
  plan_data(data, out, {&in});
  kernels_for(t.device()).unary(op, dtype, plan, data, args, Stream::default_stream(t.device()));
  return out;
}

Tensor& unary_op_(UnaryOp op, Tensor& t, bool to_float, const OpArgs& args) {
  if (to_float && is_integral(t.dtype(), true)) {
    CTORCH_CHECK(false, "result type ", scalar_type_cpp_name(get_default_dtype()),
                 " can't be cast to the desired output type ", scalar_type_cpp_name(t.dtype()));
  }
  if (t.numel() == 0) return t;
  const Tensor& in = t;
  ElementwisePlan plan = make_plan(t, {&in});
  char* data[kernels::kMaxOperands];
  plan_data(data, t, {&in});
  kernels_for(t.device()).unary(op, t.dtype(), plan, data, args, Stream::default_stream(t.device()));
  t.impl()->storage()->bump_version();
  return t;
}

const char* op_name(BinaryOp op) {
  static const char* names[] = {"add", "sub", "mul", "div", "div_trunc", "div_floor", "remainder",
                                "pow", "maximum", "minimum", "eq", "ne", "lt", "le", "gt", "ge",
                                "logical_and", "logical_or", "logical_xor"};
  return names[static_cast<int>(op)];
}

const char* op_name(UnaryOp op) {
  static const char* names[] = {"neg", "abs", "exp", "log", "sqrt", "rsqrt", "sin", "cos", "tanh",
                                "sigmoid", "relu", "floor", "ceil", "round", "sign", "logical_not",
                                "clamp", "identity"};
  return names[static_cast<int>(op)];
}

}  // namespace ctorch::ops
