// KernelTable::cast_copy, fill and where on CUDA: the shared table's slots (backends/kernel_table.h)
// instantiated over CudaLauncher; a same-dtype contiguous copy is a cudaMemcpyAsync.
#include "backends/cuda/launch.cuh"

namespace ctorch::inline api::backends::cuda {

void cast_copy(ScalarType dst, ScalarType src, const kernels::ElementwisePlan& plan, char* const* data,
               Stream stream) {
  CudaTable::cast_copy(dst, src, plan, data, stream);
}

void fill(ScalarType dtype, const kernels::ElementwisePlan& plan, char* const* data, const Scalar& value,
          Stream stream) {
  CudaTable::fill(dtype, plan, data, value, stream);
}

void where(ScalarType dtype, const kernels::ElementwisePlan& plan, char* const* data, Stream stream) {
  CudaTable::where(dtype, plan, data, stream);
}

}  // namespace ctorch::api::backends::cuda
