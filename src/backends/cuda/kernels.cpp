// The CUDA backend's kernel table: one entry per op family, each defined in its .cu file. While the
// tracer records, it times these kernels by events at the op boundary (trace/op_timing.h): the
// runtime marks itself with impl::set_tasks_timed_by_events.
#include "backends/cuda/kernels.h"

#include "backends/cuda/cudnn_conv.h"
#include "backends/cuda/jit.h"

namespace ctorch::inline api::backends::cuda {

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
      .random = random,
      .index_gather = index_gather,
      .index_scatter = index_scatter,
      .jit_compile = jit_compile,
      .jit = jit,
      .fft = fft,
      .conv2d = cudnn_conv2d,
      .conv_columns = conv_columns,
      .max_pool2d = max_pool2d,
      .avg_pool2d = avg_pool2d,
      .batch_norm = batch_norm,
      .layer_norm = layer_norm,
  };
  return table;
}

}  // namespace ctorch::api::backends::cuda
