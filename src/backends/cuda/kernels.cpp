// The CUDA backend's kernel table: one entry per op family, each defined in its .cu file, served
// timed by events while the tracer records (trace/event_timed_kernels.h).
#include "backends/cuda/kernels.h"

#include "trace/event_timed_kernels.h"

namespace ctorch::backends::cuda {
namespace {

const ops::KernelTable& untimed_kernels() {
  static const ops::KernelTable table{
      .unary = unary,
      .binary = binary,
      .cast_copy = cast_copy,
      .fill = fill,
      .where = where,
      .gemm = gemm,
      .reduce = reduce,
      .softmax = softmax,
      .random = random,
  };
  return table;
}

}  // namespace

const ops::KernelTable& kernels() { return tracing::event_timed_kernels<&untimed_kernels>(); }

}  // namespace ctorch::backends::cuda
