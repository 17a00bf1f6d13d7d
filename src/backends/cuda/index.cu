// KernelTable::index_gather / index_scatter on CUDA: the shared table's slots over CudaLauncher,
// with the launcher's index_elementwise (Note [Index plan]). Gathers and assigning scatters are
// grid-stride kernels of the elementwise launch shape; accumulating scatters run one thread in
// plan order, deterministic and slow (PyTorch sorts the indices instead; not done here).
#include "backends/cuda/launch.cuh"

namespace ctorch::inline api::backends::cuda {

namespace {

template <class F>
__global__ void index_kernel(const __grid_constant__ kernels::IndexPlan plan, IndexPointers data, int64_t begin,
                             kernels::LaunchConfig cfg, F f) {
  const uint32_t stride = cfg.stride();
  for (uint32_t i = cfg.first(blockIdx.x, threadIdx.x); i < cfg.n; i += stride) {
    kernels::index_element(plan, data.ptr, begin + i, f);
  }
}

template <class F>
__global__ void index_sequential_kernel(const __grid_constant__ kernels::IndexPlan plan, IndexPointers data, F f) {
  for (int64_t i = 0; i < plan.numel; ++i) kernels::index_element(plan, data.ptr, i, f);
}

}  // namespace

template <class F>
void CudaLauncher::index_elementwise(const kernels::IndexPlan& plan, char* const* data, const F& f, bool sequential,
                                     const char*, Stream s) {
  if (plan.numel <= 0) return;
  ScopedDevice guard(s.device().index());
  const cudaStream_t stream = native_stream(s);
  IndexPointers ptrs{};
  for (int k = 0; k < plan.noperands(); ++k) ptrs.ptr[k] = data[k];
  if (sequential) {
    index_sequential_kernel<F><<<1, 1, 0, stream>>>(plan, ptrs, f);
    CTORCH_CUDA_CHECK(cudaGetLastError());
    return;
  }
  const kernels::DeviceLimits limits = device_limits(s.device().index());
  for (int64_t begin = 0; begin < plan.numel; begin += kernels::kMaxElementsPerLaunch) {
    const int64_t n = std::min(plan.numel - begin, kernels::kMaxElementsPerLaunch);
    const kernels::LaunchConfig cfg = kernels::elementwise_launch_config(n, limits);
    index_kernel<F><<<cfg.grid, cfg.block, 0, stream>>>(plan, ptrs, begin, cfg, f);
    CTORCH_CUDA_CHECK(cudaGetLastError());
  }
}

void index_gather(ScalarType dtype, const kernels::IndexPlan& plan, char* const* data, Stream stream) {
  CudaTable::index_gather(dtype, plan, data, stream);
}

void index_scatter(ScalarType dtype, bool accumulate, const Scalar& alpha, const kernels::IndexPlan& plan,
                   char* const* data, Stream stream) {
  CudaTable::index_scatter(dtype, accumulate, alpha, plan, data, stream);
}

}  // namespace ctorch::api::backends::cuda
