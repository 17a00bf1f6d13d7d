// The CUDA elementwise launcher: a grid-stride kernel over an ElementwisePlan passed by value.
// The cuda twin of backends/cpu/launch.h, with the same conversion rules: functors see opmath
// values (float for half and bfloat16) and their result is cast to the output's storage type.
// Launch shape: Note [Elementwise launch shape] in kernels/launch_config.h.
#pragma once

#include <algorithm>
#include <cstdint>
#include <utility>

#include <cuda_runtime.h>

#include "backends/cuda/check.h"
#include "backends/cuda/stream.h"
#include "ctorch/error.h"
#include "kernels/dispatch.h"
#include "kernels/elementwise_plan.h"
#include "kernels/launch_config.h"

namespace ctorch::backends::cuda {

/// Operand base pointers, passed to kernels by value (operand 0 is the output).
struct OperandPointers {
  char* ptr[kernels::kMaxOperands];
};

namespace detail {

template <class Out, class... In, class F, size_t... I>
__device__ __forceinline__ void apply(char* out, char* const* in, const F& f, std::index_sequence<I...>) {
  using kernels::opmath_t;
  *reinterpret_cast<Out*>(out) =
      static_cast<Out>(f(static_cast<opmath_t<In>>(*reinterpret_cast<const In*>(in[I]))...));
}

// One out-of-line copy per translation unit instead of one inlined copy per kernel: the int64
// index math is most of a kernel's code, and ptxas time grows with code size.
__device__ __noinline__ inline void plan_offsets(const kernels::ElementwisePlan& plan, int64_t linear,
                                                 int64_t* offsets) {
  plan.offsets(linear, offsets);
}

// Elements [begin, begin + cfg.n) of `plan`; `contiguous` selects flat indexing (plan.is_contiguous()).
// (nvcc wants the pack last in a variadic __global__ template.)
template <class F, class Out, class... In>
__global__ void elementwise_kernel(const __grid_constant__ kernels::ElementwisePlan plan, OperandPointers data,
                                   int64_t begin, kernels::LaunchConfig cfg, bool contiguous, F f) {
  constexpr int kInputs = sizeof...(In);
  const uint32_t stride = cfg.stride();
  uint32_t i = cfg.first(blockIdx.x, threadIdx.x);
  char* in[kInputs > 0 ? kInputs : 1];
  if (contiguous) {
    constexpr int64_t sizes[] = {static_cast<int64_t>(sizeof(In))..., 0};
    for (; i < cfg.n; i += stride) {
      const int64_t linear = begin + i;
      for (int k = 0; k < kInputs; ++k) in[k] = data.ptr[k + 1] + linear * sizes[k];
      apply<Out, In...>(data.ptr[0] + linear * static_cast<int64_t>(sizeof(Out)), in, f,
                        std::index_sequence_for<In...>{});
    }
  } else {
    int64_t offsets[kernels::kMaxOperands];
    for (; i < cfg.n; i += stride) {
      plan_offsets(plan, begin + i, offsets);
      for (int k = 0; k < kInputs; ++k) in[k] = data.ptr[k + 1] + offsets[k + 1];
      apply<Out, In...>(data.ptr[0] + offsets[0], in, f, std::index_sequence_for<In...>{});
    }
  }
}

}  // namespace detail

/// out = f(in...) over `plan` on `stream` (the current device's stream); Out and In are storage
/// types, f is a trivially copyable CTORCH_HD functor taking opmath values. Asynchronous.
template <class Out, class... In, class F>
void launch_elementwise(const kernels::ElementwisePlan& plan, char* const* data, const F& f, cudaStream_t stream) {
  static_assert(sizeof...(In) + 1 <= kernels::kMaxOperands, "too many operands");
  CTORCH_INTERNAL_ASSERT(plan.noperands == static_cast<int>(sizeof...(In)) + 1, "plan has ", plan.noperands,
                         " operands, the kernel ", sizeof...(In) + 1);
  if (plan.numel <= 0) return;
  int device = 0;
  CTORCH_CUDA_CHECK(cudaGetDevice(&device));
  const kernels::DeviceLimits limits = device_limits(static_cast<DeviceIndex>(device));
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

}  // namespace ctorch::backends::cuda
