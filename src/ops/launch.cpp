#include "ops/launch.h"

#include "ops/elementwise.h"
#include "runtime/current.h"

namespace ctorch::ops {

Stream stream_for(Device device) {
  if (device.is_cpu()) return Stream::default_stream(Device(DeviceType::CPU, 0));
  return impl::current_stream(device);
}

void launch_unary(kernels::UnaryOp op, ScalarType dtype, const kernels::ElementwisePlan& plan, char* const* data,
                  const OpArgs& args, Device device, std::initializer_list<OpOperand> operands) {
  launch_observed(OpFamily::Unary, op_name(op), device, operands, [&](const KernelTable& table, Stream stream) {
    table.unary(op, dtype, plan, data, args, stream);
  });
}

void launch_binary(kernels::BinaryOp op, ScalarType dtype, ScalarOperand side, const kernels::ElementwisePlan& plan,
                   char* const* data, const OpArgs& args, Device device, std::initializer_list<OpOperand> operands) {
  launch_observed(OpFamily::Binary, op_name(op), device, operands, [&](const KernelTable& table, Stream stream) {
    table.binary(op, dtype, side, plan, data, args, stream);
  });
}

void launch_where(ScalarType dtype, const kernels::ElementwisePlan& plan, char* const* data, Device device,
                  std::initializer_list<OpOperand> operands) {
  launch_observed(OpFamily::Where, "where", device, operands,
                  [&](const KernelTable& table, Stream stream) { table.where(dtype, plan, data, stream); });
}

void launch_copy(ScalarType dst, ScalarType src, const kernels::ElementwisePlan& plan, char* const* data,
                 Device device, std::initializer_list<OpOperand> operands) {
  launch_observed(OpFamily::Copy, "copy_", device, operands,
                  [&](const KernelTable& table, Stream stream) { table.cast_copy(dst, src, plan, data, stream); });
}

void launch_fill(ScalarType dtype, const kernels::ElementwisePlan& plan, char* const* data, const Scalar& value,
                 Device device, std::initializer_list<OpOperand> operands) {
  launch_observed(OpFamily::Fill, "fill_", device, operands,
                  [&](const KernelTable& table, Stream stream) { table.fill(dtype, plan, data, value, stream); });
}

void launch_reduce(const char* name, kernels::ReduceOp op, ScalarType in, ScalarType out,
                   const kernels::ReducePlan& plan, char* const* data, const kernels::ReduceArgs& args, Device device,
                   std::initializer_list<OpOperand> operands) {
  launch_observed(OpFamily::Reduce, name, device, operands, [&](const KernelTable& table, Stream stream) {
    table.reduce(op, in, out, plan, data, args, stream);
  });
}

void launch_softmax(const char* name, ScalarType dtype, bool log, const kernels::SoftmaxPlan& plan, char* const* data,
                    Device device, std::initializer_list<OpOperand> operands) {
  launch_observed(OpFamily::Softmax, name, device, operands,
                  [&](const KernelTable& table, Stream stream) { table.softmax(dtype, log, plan, data, stream); });
}

void observe_view(const char* name, const Tensor& self, const Tensor& view) {
  if (!observed()) return;
  const OpCall info{OpFamily::View, name, Stream::default_stream(Device(DeviceType::CPU, 0)),
                    {{self, "self"}, {view, nullptr, false, true}}};
  ObservedCall call(info);
  call.launched();
}

}  // namespace ctorch::ops
