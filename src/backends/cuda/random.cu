// KernelTable::random on CUDA: PyTorch's distribution kernels as grid-stride kernels over the
// single-source functions of kernels/random_functors.h, so every value equals the one the cpu
// backend computes for the emulated devices (Note [CUDA RNG determinism contract]).
//
// Build note: compile this file without --use_fast_math (IEEE division and sqrt, no
// flush-to-zero). -fmad=false is recommended but not required: the functors never let a product
// feed an addition (Note [Contraction-proof arithmetic] in kernels/random_math.h).
#include <cassert>
#include <type_traits>

#include <cuda_runtime.h>

#include "backends/cuda/check.h"
#include "backends/cuda/kernels.h"
#include "backends/cuda/stream.h"
#include "kernels/random_functors.h"
#include "ops/kernel_table.h"

namespace ctorch::backends::cuda {

namespace {

using kernels::ElementwisePlan;
using kernels::RandomLaunch;
using kernels::RandomOp;

// distribution_elementwise_grid_stride_kernel: thread t runs its whole grid-stride loop.
template <class Sampler, class T>
__global__ void distribution_kernel(int64_t numel, int64_t threads, uint64_t seed, uint64_t offset, Sampler sampler,
                                    kernels::PlanWriter<T> writer) {
  const int64_t t = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  kernels::distribution_thread(t, numel, threads, seed, offset, sampler, writer);
}

// bernoulli_tensor_cuda_kernel: four elements per thread; PyTorch's device-side assert on p.
template <class T, class P>
__global__ void bernoulli_tensor_kernel(int64_t numel, uint64_t seed, uint64_t offset, ElementwisePlan plan,
                                        char* out, const char* p, bool contiguous) {
  const int64_t t = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (t * kernels::kBernoulliTensorPerThread >= numel) return;
  if (!kernels::bernoulli_tensor_thread<T, P>(t, numel, seed, offset, plan, out, p, contiguous)) {
    __assert_fail("0 <= p && p <= 1", __FILE__, static_cast<unsigned int>(__LINE__), __func__);
  }
}

}  // namespace

void random(RandomOp op, ScalarType dtype, const ElementwisePlan& plan, char* const* data, uint64_t seed,
            uint64_t offset, const kernels::RandomArgs& args, int sm_count, int max_threads_per_sm, Stream s) {
  const int64_t n = plan.numel;
  if (n <= 0) return;
  ScopedDevice guard(s.device().index());
  const cudaStream_t stream = native_stream(s);
  const bool contiguous = plan.is_contiguous();
  if (op == RandomOp::BernoulliTensor) {
    const RandomLaunch l = kernels::bernoulli_tensor_launch(n);
    kernels::visit_bernoulli_tensor(dtype, [&](auto out_tag, auto p_tag) {
      using T = typename decltype(out_tag)::type;
      using P = typename decltype(p_tag)::type;
      bernoulli_tensor_kernel<T, P><<<static_cast<unsigned int>(l.grid), static_cast<unsigned int>(l.block), 0,
                                      stream>>>(n, seed, offset, plan, data[0], data[1], contiguous);
      CTORCH_CUDA_CHECK(cudaGetLastError());
    });
    return;
  }
  const RandomLaunch l = kernels::distribution_launch(n, sm_count, max_threads_per_sm);
  kernels::visit_sampler(op, dtype, args, [&](const auto& sampler) {
    using S = std::decay_t<decltype(sampler)>;
    using T = typename S::value_type;
    distribution_kernel<S, T><<<static_cast<unsigned int>(l.grid), static_cast<unsigned int>(l.block), 0, stream>>>(
        n, l.threads, seed, offset, sampler, kernels::PlanWriter<T>{plan, data[0], contiguous});
    CTORCH_CUDA_CHECK(cudaGetLastError());
  });
}

}  // namespace ctorch::backends::cuda
