// KernelTable::binary on CUDA: the shared table's binary slot (backends/kernel_table.h) instantiated
// over CudaLauncher.
#include "backends/cuda/launch.cuh"

namespace ctorch::inline api::backends::cuda {

void binary(kernels::BinaryOp op, ScalarType dtype, ops::ScalarOperand side, const kernels::ElementwisePlan& plan,
            char* const* data, const ops::OpArgs& args, Stream stream) {
  CudaTable::binary(op, dtype, side, plan, data, args, stream);
}

}  // namespace ctorch::api::backends::cuda
