// The funnels of the op boundary: ops launch every kernel through these, one per op family
// (Note [Op observers] in op_observer.h). Each looks up the device's KernelTable, queues the
// kernel on the current stream of the device, and lets the observers see the call.
#pragma once

#include <initializer_list>
#include <utility>

#include "ctorch/tensor.h"
#include "ops/kernel_table.h"
#include "ops/op_observer.h"

namespace ctorch::ops {

/// The stream ops on `device` are enqueued on: the calling thread's current stream there.
Stream stream_for(Device device);

/// Runs `launch(kernels_for(device), stream)` as one call of `family` named `name`, seen by the observers.
template <class Launch>
void launch_observed(OpFamily family, const char* name, Device device, std::initializer_list<OpOperand> operands,
                     Launch&& launch) {
  const KernelTable& table = kernels_for(device);
  const Stream stream = stream_for(device);
  if (!observed()) [[likely]] {
    launch(table, stream);
    return;
  }
  const OpCall info{family, name, stream, operands};
  ObservedCall call(info);
  launch(table, stream);
  call.launched();
}

/// data[0] = op(data[1]) on `device` (KernelTable::unary).
void launch_unary(kernels::UnaryOp op, ScalarType dtype, const kernels::ElementwisePlan& plan, char* const* data,
                  const OpArgs& args, Device device, std::initializer_list<OpOperand> operands);
/// data[0] = op(data[1], data[2]) (or with the scalar operand on `side`) on `device` (KernelTable::binary).
void launch_binary(kernels::BinaryOp op, ScalarType dtype, ScalarOperand side, const kernels::ElementwisePlan& plan,
                   char* const* data, const OpArgs& args, Device device, std::initializer_list<OpOperand> operands);
/// data[0] = data[1] ? data[2] : data[3] on `device` (KernelTable::where).
void launch_where(ScalarType dtype, const kernels::ElementwisePlan& plan, char* const* data, Device device,
                  std::initializer_list<OpOperand> operands);
/// data[0] (dst) = data[1] (src) converted, on `device` (KernelTable::cast_copy), named "copy_".
void launch_copy(ScalarType dst, ScalarType src, const kernels::ElementwisePlan& plan, char* const* data,
                 Device device, std::initializer_list<OpOperand> operands);
/// data[0] = value on `device` (KernelTable::fill), named "fill_".
void launch_fill(ScalarType dtype, const kernels::ElementwisePlan& plan, char* const* data, const Scalar& value,
                 Device device, std::initializer_list<OpOperand> operands);
/// A reduction named `name` ("sum", "argmax", ...) on `device` (KernelTable::reduce).
void launch_reduce(const char* name, kernels::ReduceOp op, ScalarType in, ScalarType out,
                   const kernels::ReducePlan& plan, char* const* data, const kernels::ReduceArgs& args, Device device,
                   std::initializer_list<OpOperand> operands);
/// softmax or log_softmax named `name` on `device` (KernelTable::softmax).
void launch_softmax(const char* name, ScalarType dtype, bool log, const kernels::SoftmaxPlan& plan, char* const* data,
                    Device device, std::initializer_list<OpOperand> operands);

/// The gemm kernel of a backend (KernelTable::gemm's type).
using GemmKernel = decltype(KernelTable::gemm);

/// One matmul named `name` on `device`: `batches(gemm, stream)` calls the backend's gemm once per
/// batch block; the observers see the whole as one call.
template <class Batches>
void launch_gemm(const char* name, Device device, std::initializer_list<OpOperand> operands, Batches&& batches) {
  launch_observed(OpFamily::Gemm, name, device, operands,
                  [&](const KernelTable& table, Stream stream) { batches(table.gemm, stream); });
}

/// Samples of `op` named `name` into data[0] on `device` (KernelTable::random). `philox()` returns
/// the {seed, offset} pair and is called only once the observers let the launch happen, so a refused
/// call leaves the generator as it was.
template <class Philox>
void launch_random(const char* name, kernels::RandomOp op, ScalarType dtype, const kernels::ElementwisePlan& plan,
                   char* const* data, const kernels::RandomArgs& args, int sm_count, int max_threads_per_sm,
                   Device device, std::initializer_list<OpOperand> operands, Philox&& philox) {
  launch_observed(OpFamily::Random, name, device, operands, [&](const KernelTable& table, Stream stream) {
    const auto [seed, offset] = philox();
    table.random(op, dtype, plan, data, seed, offset, args, sm_count, max_threads_per_sm, stream);
  });
}

/// Runs `run()` on the calling thread as one cpu call of `family` named `name`, seen by the observers:
/// the funnel of ops whose cpu path is a host loop outside the kernel table (cpu random sampling).
template <class Run>
void run_on_host_observed(OpFamily family, const char* name, std::initializer_list<OpOperand> operands, Run&& run) {
  if (!observed()) [[likely]] {
    run();
    return;
  }
  const OpCall info{family, name, Stream::default_stream(Device(DeviceType::CPU, 0)), operands};
  ObservedCall call(info);
  run();
  call.launched();
}

/// Lets the observers see that `view` was made from `self` by `name` (no launch).
void observe_view(const char* name, const Tensor& self, const Tensor& view);

}  // namespace ctorch::ops
