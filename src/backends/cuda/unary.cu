// KernelTable::unary on CUDA: the shared table's unary slot (backends/kernel_table.h) instantiated
// over CudaLauncher (one .cu per op family, so nvcc builds them in parallel).
#include "backends/cuda/launch.cuh"

namespace ctorch::inline api::backends::cuda {

void unary(kernels::UnaryOp op, ScalarType dtype, const kernels::ElementwisePlan& plan, char* const* data,
           const ops::OpArgs& args, Stream stream) {
  CudaTable::unary(op, dtype, plan, data, args, stream);
}

}  // namespace ctorch::api::backends::cuda
