// The loop GEMM on CUDA (the shared table's gemm_loop over CudaLauncher): integers and bool, which
// cuBLAS has no GEMM for, and k == 0 / alpha == 0 for every dtype (C = beta * C without reading A or
// B). One thread per output element, grid-stride over batch * m * n (Note [Elementwise launch
// shape]), each running kernels::gemm_loop_element, the function the emulated walker runs; the
// arithmetic is kernels/gemm_math.h's. Simple and exact, not fast.
#include "backends/cuda/launch.cuh"
#include "kernels/gemm_math.h"

namespace ctorch::inline api::backends::cuda {

namespace {

template <class T, class A>
__global__ void gemm_loop_kernel(kernels::GemmGeometry g, const T* a, const T* b, T* c, A alpha, A beta,
                                 kernels::LaunchConfig cfg) {
  const int64_t total = g.batch * g.m * g.n;
  const int64_t stride = cfg.stride();
  for (int64_t idx = cfg.first(blockIdx.x, threadIdx.x); idx < total; idx += stride) {
    kernels::gemm_loop_element<T, A>(g, a, b, c, alpha, beta, idx);
  }
}

}  // namespace

template <class T, class A>
void CudaLauncher::gemm_loop(const kernels::GemmGeometry& g, const T* a, const T* b, T* c, A alpha, A beta,
                             Stream s) {
  ScopedDevice guard(s.device().index());
  const int64_t total = g.batch * g.m * g.n;
  const kernels::LaunchConfig cfg = kernels::elementwise_launch_config(
      std::min(total, kernels::kMaxElementsPerLaunch), device_limits(s.device().index()));
  gemm_loop_kernel<T, A><<<cfg.grid, cfg.block, 0, native_stream(s)>>>(g, a, b, c, alpha, beta, cfg);
  CTORCH_CUDA_CHECK(cudaGetLastError());
}

void gemm(ScalarType dtype, bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, const Scalar& alpha,
          const void* a, int64_t lda, int64_t stride_a, const void* b, int64_t ldb, int64_t stride_b,
          const Scalar& beta, void* c, int64_t ldc, int64_t stride_c, int64_t batch, Stream stream) {
  CudaTable::gemm(dtype, trans_a, trans_b, m, n, k, alpha, a, lda, stride_a, b, ldb, stride_b, beta, c, ldc,
                  stride_c, batch, stream);
}

void gemm_loop(ScalarType dtype, const kernels::GemmGeometry& g, const Scalar& alpha, const void* a, const void* b,
               const Scalar& beta, void* c, Stream stream) {
  CudaTable::gemm_loop(dtype, g, alpha, a, b, beta, c, stream);
}

}  // namespace ctorch::api::backends::cuda
