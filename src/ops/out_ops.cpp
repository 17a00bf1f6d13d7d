// Ops that write into a caller-provided output tensor (PyTorch's out= variants).
#include "ctorch/ops.h"
#include "ops/elementwise.h"
#include "ops/launch.h"

namespace ctorch::inline api {
namespace {

// TensorIterator accepts a 0-dim cpu input beside operands on another device (inputs only).
Tensor on_device_of(const Tensor& input, const Tensor& out) {
  return input.dim() == 0 && input.is_cpu() && !out.is_cpu() ? input.to(out.device()) : input;
}

Tensor& binary_out(kernels::BinaryOp op, Tensor& out, const Tensor& a_in, const Tensor& b_in,
                   const ops::OpArgs& args) {
  CTORCH_CHECK(out.is_cpu() || !(a_in.dim() == 0 && a_in.is_cpu() && b_in.dim() == 0 && b_in.is_cpu()),
               "Trying to pass too many CPU scalars to non-CPU kernel! (out= is on ", out.device(),
               "; both inputs are 0-dim tensors on cpu, at most one may be)");
  const Tensor a = on_device_of(a_in, out), b = on_device_of(b_in, out);
  const Device device = ops::common_device({&out, &a, &b});
  const ScalarType common = result_type(a, b);
  CTORCH_CHECK(can_cast(common, out.dtype()), "result type ", scalar_type_cpp_name(common),
               " can't be cast to the desired output type ", scalar_type_cpp_name(out.dtype()));
  const DimVector shape = broadcast_shapes(a.sizes(), b.sizes());
  CTORCH_CHECK(IntArrayRef(shape) == out.sizes(), "out= tensor has shape ", out.sizes(),
               " but the result has shape ", IntArrayRef(shape), " (ctorch does not resize out= tensors)");
  // TensorIterator's checks: out may not overlap itself, nor partially overlap an input.
  ops::check_no_internal_overlap(out);
  ops::check_no_partial_overlap(out, a);
  ops::check_no_partial_overlap(out, b);
  if (common != out.dtype()) {
    out.copy_(ops::binary_op(op, a, b, args));
    return out;
  }
  const Tensor ac = a.to(common), bc = b.to(common);
  if (out.numel() == 0) return out;
  kernels::ElementwisePlan plan = ops::make_plan(out, {&ac, &bc});
  char* data[kernels::kMaxOperands];
  ops::plan_data(data, out, {&ac, &bc});
  ops::launch_binary(op, common, ops::ScalarOperand::None, plan, data, args, device,
                     CTORCH_OPERANDS({out, "out", true, true}, {ac, "self"}, {bc, "other"}));
  out.impl()->storage()->bump_version();
  return out;
}

}  // namespace

Tensor& add_out(Tensor& out, const Tensor& a, const Tensor& b, const Scalar& alpha) {
  ops::OpArgs args;
  args.alpha = alpha;
  return binary_out(kernels::BinaryOp::Add, out, a, b, args);
}

Tensor& mul_out(Tensor& out, const Tensor& a, const Tensor& b) {
  return binary_out(kernels::BinaryOp::Mul, out, a, b, {});
}

}  // namespace ctorch::api
