// The CUDA launcher (CudaLauncher, the Launcher of backends/kernel_table.h): grid-stride kernels over
// the single-source functors. Elementwise launches follow Note [Elementwise launch shape]; each
// thread runs kernels::elementwise_element, the function the emulated walker runs for the same
// (block, thread). Reductions and softmax (reduce.cu), the loop GEMM (gemm_loop.cu) and the random
// kernels (random.cu) define their member templates in the .cu file that instantiates them.
// Every launch makes the stream's device current, launches on its cudaStream_t and checks the launch;
// none synchronizes.
#pragma once

#include <algorithm>
#include <cstdint>

#include <cuda_runtime.h>

#include "backends/cuda/check.h"
#include "backends/cuda/kernels.h"
#include "backends/cuda/stream.h"
#include "backends/kernel_table.h"
#include "ctorch/error.h"
#include "kernels/elementwise_loop.h"
#include "kernels/index_plan.h"
#include "kernels/launch_config.h"
#include "kernels/reduce_grid.h"

namespace ctorch::inline api::backends::cuda {

/// Operand base pointers, passed to kernels by value (operand 0 is the output).
struct OperandPointers {
  char* ptr[kernels::kMaxOperands];
};

/// IndexPlan operand pointers, passed to kernels by value.
struct IndexPointers {
  char* ptr[kernels::kMaxIndexOperands];
};

namespace detail {

// Elements [begin, begin + cfg.n) of `plan`; `contiguous` selects flat indexing (plan.is_contiguous()).
// (nvcc wants the pack last in a variadic __global__ template.)
template <class F, class Out, class... In>
__global__ void elementwise_kernel(const __grid_constant__ kernels::ElementwisePlan plan, OperandPointers data,
                                   int64_t begin, kernels::LaunchConfig cfg, bool contiguous, F f) {
  const uint32_t stride = cfg.stride();
  for (uint32_t i = cfg.first(blockIdx.x, threadIdx.x); i < cfg.n; i += stride) {
    kernels::elementwise_element<Out, In...>(plan, data.ptr, begin + i, contiguous, f);
  }
}

/// Shared-memory block tree of Note [Reduction grid] (blockDim.x a power of two): every thread passes its
/// value and gets the block's result.
template <class A, class Combine>
__device__ A block_tree(A v, A* shared, const Combine& combine) {
  const unsigned t = threadIdx.x;
  shared[t] = v;
  __syncthreads();
  for (unsigned s = blockDim.x / 2; s > 0; s /= 2) {
    kernels::block_tree_step(shared, t, s, combine);
    __syncthreads();
  }
  const A out = shared[0];
  __syncthreads();  // shared is reused by the next tree
  return out;
}

}  // namespace detail

/// The CUDA Launcher.
struct CudaLauncher {
  static constexpr Arithmetic kArithmetic = Arithmetic::Gpu;

  /// out = f(in...) over `plan`; f is a trivially copyable CTORCH_HD functor taking opmath values.
  template <class Out, class... In, class F>
  static void elementwise(const kernels::ElementwisePlan& plan, char* const* data, const F& f, const char*,
                          Stream s) {
    static_assert(sizeof...(In) + 1 <= kernels::kMaxOperands, "too many operands");
    CTORCH_INTERNAL_ASSERT(plan.noperands == static_cast<int>(sizeof...(In)) + 1, "plan has ", plan.noperands,
                           " operands, the kernel ", sizeof...(In) + 1);
    if (plan.numel <= 0) return;
    ScopedDevice guard(s.device().index());
    const cudaStream_t stream = native_stream(s);
    const kernels::DeviceLimits limits = device_limits(s.device().index());
    OperandPointers ptrs{};
    for (int k = 0; k < plan.noperands; ++k) ptrs.ptr[k] = data[k];
    const bool contiguous = plan.is_contiguous();
    for (int64_t begin = 0; begin < plan.numel; begin += kernels::kMaxElementsPerLaunch) {
      const int64_t n = std::min(plan.numel - begin, kernels::kMaxElementsPerLaunch);
      const kernels::LaunchConfig cfg = kernels::elementwise_launch_config(n, limits);
      detail::elementwise_kernel<F, Out, In...>
          <<<cfg.grid, cfg.block, 0, stream>>>(plan, ptrs, begin, cfg, contiguous, f);
      CTORCH_CUDA_CHECK(cudaGetLastError());
    }
  }

  /// A device-to-device cudaMemcpyAsync.
  static void copy_bytes(char* dst, const char* src, int64_t bytes, Stream s) {
    ScopedDevice guard(s.device().index());
    CTORCH_CUDA_CHECK(
        cudaMemcpyAsync(dst, src, static_cast<size_t>(bytes), cudaMemcpyDeviceToDevice, native_stream(s)));
  }

  /// reduce.cu: Note [Reduction grid].
  template <class T, class Out, class Op>
  static void reduce(const kernels::ReducePlan& plan, char* const* data, const Op& op, Stream s);
  /// reduce.cu: one block per softmax row.
  template <class T, bool Log>
  static void softmax(const kernels::SoftmaxPlan& plan, char* const* data, Stream s);
  /// blas.cpp: cuBLAS for the floating dtypes, the loop GEMM otherwise.
  static void gemm(ScalarType dtype, const kernels::GemmGeometry& g, const Scalar& alpha, const void* a,
                   const void* b, const Scalar& beta, void* c, Stream s) {
    blas_gemm(dtype, g, alpha, a, b, beta, c, s);
  }
  /// gemm_loop.cu: one thread per output element.
  template <class T, class A>
  static void gemm_loop(const kernels::GemmGeometry& g, const T* a, const T* b, T* c, A alpha, A beta, Stream s);
  /// random.cu: distribution_nullary_kernel.
  template <class Sampler>
  static void distribution(const kernels::RandomLaunch& launch, const kernels::ElementwisePlan& plan,
                           char* const* data, const kernels::PhiloxArgs& philox, const Sampler& sampler, Stream s);
  /// index.cu: f(indexed, dense) per element of an IndexPlan, grid-stride; `sequential` runs one
  /// thread in plan order (deterministic accumulation).
  template <class F>
  static void index_elementwise(const kernels::IndexPlan& plan, char* const* data, const F& f, bool sequential,
                                const char* name, Stream s);
  /// random.cu: the bernoulli(p tensor) kernel.
  template <class T, class P>
  static void bernoulli_tensor(const kernels::ElementwisePlan& plan, char* const* data,
                               const kernels::PhiloxArgs& philox, Stream s);
  /// pool_norm.cu: a thread functor (Note [Thread functors]), grid-stride.
  template <class F>
  static void threads(const F& f, const char* name, Stream s);
  /// pool_norm.cu: a block functor, one block of kernels::kBlockThreads threads per unit.
  template <class F>
  static void blocks(const F& f, const char* name, Stream s);
  /// random.cu: the fused dropout kernel (Note [Fused dropout]).
  template <class T>
  static void fused_dropout(const kernels::RandomLaunch& launch, const kernels::ElementwisePlan& plan,
                            char* const* data, const kernels::PhiloxArgs& philox, const kernels::RandomArgs& args,
                            Stream s);
};

/// The shared table's slots for CUDA.
using CudaTable = KernelTableOf<CudaLauncher>;

}  // namespace ctorch::api::backends::cuda
