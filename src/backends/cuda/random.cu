// KernelTable::random on CUDA: PyTorch's distribution kernels as grid-stride kernels over the
// single-source functions of kernels/random_functors.h (the shared table's random slot over
// CudaLauncher), so every value equals the one the emulated devices compute (Note [CUDA RNG
// determinism contract]).
//
// Build note: compile this file without --use_fast_math (IEEE division and sqrt, no
// flush-to-zero). -fmad=false is recommended but not required: the functors never let a product
// feed an addition (Note [Contraction-proof arithmetic] in kernels/random_math.h).
#include <cassert>

#include "backends/cuda/launch.cuh"
#include "kernels/dropout_functors.h"
#include "kernels/random_functors.h"

namespace ctorch::inline api::backends::cuda {

namespace {

// distribution_elementwise_grid_stride_kernel: thread t runs its whole grid-stride loop.
template <class Sampler, class T>
__global__ void distribution_kernel(int64_t numel, int64_t threads, kernels::PhiloxArgs philox, Sampler sampler,
                                    kernels::PlanWriter<T> writer) {
  const int64_t t = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  uint64_t seed = 0, offset = 0;
  philox.unpack(&seed, &offset);
  kernels::distribution_thread(t, numel, threads, seed, offset, sampler, writer);
}

// bernoulli_tensor_cuda_kernel: four elements per thread; PyTorch's device-side assert on p.
template <class T, class P>
__global__ void bernoulli_tensor_kernel(int64_t numel, kernels::PhiloxArgs philox,
                                        const __grid_constant__ kernels::ElementwisePlan plan, char* out,
                                        const char* p, bool contiguous) {
  const int64_t t = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (t * kernels::kBernoulliTensorPerThread >= numel) return;
  uint64_t seed = 0, offset = 0;
  philox.unpack(&seed, &offset);
  if (!kernels::bernoulli_tensor_thread<T, P>(t, numel, seed, offset, plan, out, p, contiguous)) {
    __assert_fail("0 <= p && p <= 1", __FILE__, static_cast<unsigned int>(__LINE__), __func__);
  }
}

// fused_dropout_kernel / fused_dropout_kernel_vec: thread t runs its whole loop.
template <class T>
__global__ void fused_dropout_kernel(int64_t numel, int64_t threads, int vec, kernels::PhiloxArgs philox,
                                     kernels::random_acc_t<T> keep, const T* in, T* out, bool* mask) {
  const int64_t t = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  uint64_t seed = 0, offset = 0;
  philox.unpack(&seed, &offset);
  kernels::fused_dropout_thread<T>(t, numel, threads, vec, seed, offset, keep, in, out, mask);
}

}  // namespace

template <class T>
void CudaLauncher::fused_dropout(const kernels::RandomLaunch& l, const kernels::ElementwisePlan& plan,
                                 char* const* data, const kernels::PhiloxArgs& philox, const kernels::RandomArgs& args,
                                 Stream s) {
  ScopedDevice guard(s.device().index());
  fused_dropout_kernel<T><<<static_cast<unsigned int>(l.grid), static_cast<unsigned int>(l.block), 0, native_stream(s)>>>(
      plan.numel, l.threads, static_cast<int>(args.base), philox, static_cast<kernels::random_acc_t<T>>(args.a),
      reinterpret_cast<const T*>(data[2]), reinterpret_cast<T*>(data[0]), reinterpret_cast<bool*>(data[1]));
  CTORCH_CUDA_CHECK(cudaGetLastError());
}

template <class Sampler>
void CudaLauncher::distribution(const kernels::RandomLaunch& l, const kernels::ElementwisePlan& plan,
                                char* const* data, const kernels::PhiloxArgs& philox, const Sampler& sampler,
                                Stream s) {
  using T = typename Sampler::value_type;
  ScopedDevice guard(s.device().index());
  distribution_kernel<Sampler, T>
      <<<static_cast<unsigned int>(l.grid), static_cast<unsigned int>(l.block), 0, native_stream(s)>>>(
          plan.numel, l.threads, philox, sampler, kernels::PlanWriter<T>{plan, data[0], plan.is_contiguous()});
  CTORCH_CUDA_CHECK(cudaGetLastError());
}

template <class T, class P>
void CudaLauncher::bernoulli_tensor(const kernels::ElementwisePlan& plan, char* const* data,
                                    const kernels::PhiloxArgs& philox, Stream s) {
  ScopedDevice guard(s.device().index());
  const kernels::RandomLaunch l = kernels::bernoulli_tensor_launch(plan.numel);
  bernoulli_tensor_kernel<T, P>
      <<<static_cast<unsigned int>(l.grid), static_cast<unsigned int>(l.block), 0, native_stream(s)>>>(
          plan.numel, philox, plan, data[0], data[1], plan.is_contiguous());
  CTORCH_CUDA_CHECK(cudaGetLastError());
}

void random(kernels::RandomOp op, ScalarType dtype, const kernels::ElementwisePlan& plan, char* const* data,
            const kernels::PhiloxArgs& philox, const kernels::RandomArgs& args, int sm_count, int max_threads_per_sm,
            Stream stream) {
  CudaTable::random(op, dtype, plan, data, philox, args, sm_count, max_threads_per_sm, stream);
}

}  // namespace ctorch::api::backends::cuda
