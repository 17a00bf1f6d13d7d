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

void gemm(ScalarType dtype, bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, const Scalar& alpha,
          const void* a, int64_t lda, int64_t stride_a, const void* b, int64_t ldb, int64_t stride_b,
          const Scalar& beta, void* c, int64_t ldc, int64_t stride_c, int64_t batch, Stream stream) {
  const int64_t es = element_size(dtype);
  // Bytes a strided batch of row-major matrices spans: (batch-1)*stride + (rows-1)*ld + cols.
  auto extent = [&](int64_t rows, int64_t cols, int64_t ld, int64_t stride) -> size_t {
    if (batch == 0 || rows == 0 || cols == 0) return 0;
    return static_cast<size_t>(((batch - 1) * stride + (rows - 1) * ld + cols) * es);
  };
  const DeviceIndex dev = stream.device().index();
  const bool reads_ab = k > 0 && !(alpha.to_double() == 0.0);
  const void* ha = reads_ab ? instance().translate(a, extent(trans_a ? k : m, trans_a ? m : k, lda, stride_a), dev) : a;
  const void* hb = reads_ab ? instance().translate(b, extent(trans_b ? n : k, trans_b ? k : n, ldb, stride_b), dev) : b;
  void* hc = instance().translate(c, extent(m, n, ldc, stride_c), dev);
  instance().enqueue(
      stream,
      [=] {
        ops::cpu_kernels().gemm(dtype, trans_a, trans_b, m, n, k, alpha, ha, lda, stride_a, hb, ldb, stride_b, beta, hc,
                                ldc, stride_c, batch, kCpuStream);
      },
      "gemm");
}

void reduce(kernels::ReduceOp op, ScalarType in, ScalarType out, const kernels::ReducePlan& plan, char* const* data,
            const kernels::ReduceArgs& args, Stream stream) {
  const DeviceIndex dev = stream.device().index();
  int64_t in_extent = element_size(in), out_elems = 1;
  for (int d = 0; d < plan.nkept; ++d) {
    in_extent += (plan.kept_size[d] - 1) * plan.kept_in[d];
    out_elems += (plan.kept_size[d] - 1) * plan.kept_out[d];
  }
  for (int d = 0; d < plan.nred; ++d) in_extent += (plan.red_size[d] - 1) * plan.red_in[d];
  const bool empty_out = plan.numel_out == 0;
  const bool empty_in = empty_out || plan.numel_reduce == 0;
  char* host[3] = {nullptr, nullptr, nullptr};
  if (data[0] && !empty_out) host[0] = static_cast<char*>(instance().translate(data[0], out_elems * element_size(out), dev));
  if (data[1] && !empty_in) host[1] = static_cast<char*>(instance().translate(data[1], in_extent, dev));
  const bool has_index = op == kernels::ReduceOp::ArgMax || op == kernels::ReduceOp::ArgMin;
  if (has_index && data[2] && !empty_out) host[2] = static_cast<char*>(instance().translate(data[2], out_elems * 8, dev));
  if (data[0] && !host[0]) host[0] = data[0];
  if (data[1] && !host[1]) host[1] = data[1];
  if (has_index && data[2] && !host[2]) host[2] = data[2];
  instance().enqueue(
      stream,
      [=] {
        char* d[3] = {host[0], host[1], host[2]};
        ops::cpu_kernels().reduce(op, in, out, plan, d, args, kCpuStream);
      },
      "reduce");
}

void softmax(ScalarType dtype, bool log, const kernels::SoftmaxPlan& plan, char* const* data, Stream stream) {
  const size_t bytes = static_cast<size_t>(plan.outer * plan.dim_size * plan.inner * element_size(dtype));
  const DeviceIndex dev = stream.device().index();
  char* out = bytes ? static_cast<char*>(instance().translate(data[0], bytes, dev)) : data[0];
  char* in = bytes ? static_cast<char*>(instance().translate(data[1], bytes, dev)) : data[1];
  instance().enqueue(
      stream,
      [=] {
        char* d[2] = {out, in};
        ops::cpu_kernels().softmax(dtype, log, plan, d, kCpuStream);
      },
      log ? "log_softmax" : "softmax");
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
      .gemm = gemm,
      .reduce = reduce,
      .softmax = softmax,
  };
  return table;
}

namespace {
// Ops on emulated devices find this table through the runtime they run on; CTORCH_EMULATED_CUDA
// is consulted before the real CUDA backend (Note [Runtime selection]).
const bool registered = (ops::register_kernels(&instance(), &kernels()),
                         impl::register_runtime_factory(DeviceType::CUDA, 0, &runtime_from_environment), true);
}  // namespace

}  // namespace ctorch::backends::emulated
