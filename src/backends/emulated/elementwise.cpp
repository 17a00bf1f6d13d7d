// The emulated backend's kernels: each slot checks and translates device pointers (an
// out-of-bounds or foreign pointer fails at launch, as a strict CUDA would at run time), then
// enqueues the cpu kernel on the emulated stream, where it runs asynchronously to the host.
#include "backends/emulated/runtime.h"
#include "ops/elementwise.h"
#include "ops/kernel_table.h"

namespace ctorch::backends::emulated {

using kernels::BinaryOp;
using kernels::ElementwisePlan;
using kernels::UnaryOp;
using ops::OpArgs;
using ops::ScalarOperand;

namespace {

// Bytes an operand's view spans from its base pointer (strides are never negative).
int64_t operand_extent(const ElementwisePlan& plan, int k) {
  if (plan.numel == 0) return 0;
  int64_t extent = plan.element_size[k];
  for (int d = 0; d < plan.ndim; ++d) extent += (plan.shape[d] - 1) * plan.strides[k][d];
  return extent;
}

// A plan with host-side (alias) pointers, ready to run on a stream worker.
struct Launch {
  ElementwisePlan plan;
  char* data[kernels::kMaxOperands];
};

Launch prepare(const ElementwisePlan& plan, char* const* data, Stream stream) {
  Launch l{plan, {}};
  for (int k = 0; k < plan.noperands; ++k) {
    l.data[k] = static_cast<char*>(
        instance().translate(data[k], static_cast<size_t>(operand_extent(plan, k)), stream.device().index()));
  }
  return l;
}

const Stream kCpuStream = Stream::default_stream(Device(DeviceType::CPU, 0));

void unary(UnaryOp op, ScalarType dtype, const ElementwisePlan& plan, char* const* data, const OpArgs& args,
           Stream stream) {
  Launch l = prepare(plan, data, stream);
  instance().enqueue(stream, [l, op, dtype, args] { ops::cpu_kernels().unary(op, dtype, l.plan, l.data, args, kCpuStream); },
                     ops::op_name(op));
}

void binary(BinaryOp op, ScalarType dtype, ScalarOperand side, const ElementwisePlan& plan, char* const* data,
            const OpArgs& args, Stream stream) {
  Launch l = prepare(plan, data, stream);
  instance().enqueue(
      stream, [l, op, dtype, side, args] { ops::cpu_kernels().binary(op, dtype, side, l.plan, l.data, args, kCpuStream); },
      ops::op_name(op));
}

void cast_copy(ScalarType dst, ScalarType src, const ElementwisePlan& plan, char* const* data, Stream stream) {
  Launch l = prepare(plan, data, stream);
  instance().enqueue(stream, [l, dst, src] { ops::cpu_kernels().cast_copy(dst, src, l.plan, l.data, kCpuStream); },
                     "copy_");
}

void fill(ScalarType dtype, const ElementwisePlan& plan, char* const* data, const Scalar& value, Stream stream) {
  Launch l = prepare(plan, data, stream);
  instance().enqueue(stream, [l, dtype, value] { ops::cpu_kernels().fill(dtype, l.plan, l.data, value, kCpuStream); },
                     "fill_");
}

void where(ScalarType dtype, const ElementwisePlan& plan, char* const* data, Stream stream) {
  Launch l = prepare(plan, data, stream);
  instance().enqueue(stream, [l, dtype] { ops::cpu_kernels().where(dtype, l.plan, l.data, kCpuStream); }, "where");
}

}  // namespace

/// The emulated backend's kernel table.
const ops::KernelTable& kernels() {
  static const ops::KernelTable table{
      .unary = unary,
      .binary = binary,
      .cast_copy = cast_copy,
      .fill = fill,
      .where = where,
  };
  return table;
}

namespace {
// Ops on emulated devices find this table through the runtime they run on.
const bool registered = (ops::register_kernels(&instance(), &kernels()), true);
}  // namespace

}  // namespace ctorch::backends::emulated
