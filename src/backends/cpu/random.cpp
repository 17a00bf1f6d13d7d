// KernelTable::random for the cpu backend: the CUDA random kernels' threads walked on the host
// with the same single-source functions (kernels/random_functors.h), spread over the intra-op
// pool. Threads are independent (each owns its Philox subsequence), so the split of threads over
// host workers cannot change a value. Used by the emulated backend, which enqueues it on streams.
#include "backends/cpu/random.h"

#include <algorithm>
#include <atomic>

#include "backends/cpu/launch.h"
#include "backends/cpu/parallel.h"
#include "ctorch/error.h"
#include "kernels/random_functors.h"

namespace ctorch::backends::cpu {

using kernels::ElementwisePlan;
using kernels::RandomArgs;
using kernels::RandomLaunch;
using kernels::RandomOp;

namespace {

// Threads per parallel chunk so that a chunk writes about kElementwiseGrain elements.
int64_t thread_grain(int64_t numel, int64_t threads) {
  const int64_t per_thread = (numel + threads - 1) / threads;
  return std::max<int64_t>(1, kElementwiseGrain / std::max<int64_t>(1, per_thread));
}

void bernoulli_tensor(ScalarType dtype, const ElementwisePlan& plan, char* const* data, uint64_t seed,
                      uint64_t offset) {
  const int64_t n = plan.numel;
  const int64_t threads = (n + kernels::kBernoulliTensorPerThread - 1) / kernels::kBernoulliTensorPerThread;
  const bool contiguous = plan.is_contiguous();
  std::atomic<bool> valid{true};
  kernels::visit_bernoulli_tensor(dtype, [&](auto out_tag, auto p_tag) {
    using T = typename decltype(out_tag)::type;
    using P = typename decltype(p_tag)::type;
    parallel_for(0, threads, kElementwiseGrain / kernels::kBernoulliTensorPerThread, [&](int64_t b, int64_t e) {
      bool ok = true;
      for (int64_t t = b; t < e; ++t) {
        ok = kernels::bernoulli_tensor_thread<T, P>(t, n, seed, offset, plan, data[0], data[1], contiguous) && ok;
      }
      if (!ok) valid.store(false, std::memory_order_relaxed);
    });
  });
  // PyTorch's CUDA_KERNEL_ASSERT(0 <= p && p <= 1): reported like a device-side assert.
  CTORCH_CHECK(valid.load(), "CUDA error: device-side assert triggered (bernoulli: Assertion `0 <= p && p <= 1` "
               "failed)");
}

}  // namespace

void random(RandomOp op, ScalarType dtype, const ElementwisePlan& plan, char* const* data, uint64_t seed,
            uint64_t offset, const RandomArgs& args, int sm_count, int max_threads_per_sm, Stream) {
  const int64_t n = plan.numel;
  if (n <= 0) return;
  if (op == RandomOp::BernoulliTensor) {
    bernoulli_tensor(dtype, plan, data, seed, offset);
    return;
  }
  const RandomLaunch launch = kernels::distribution_launch(n, sm_count, max_threads_per_sm);
  kernels::visit_sampler(op, dtype, args, [&](const auto& sampler) {
    using T = typename std::decay_t<decltype(sampler)>::value_type;
    const kernels::PlanWriter<T> writer{plan, data[0], plan.is_contiguous()};
    parallel_for(0, launch.threads, thread_grain(n, launch.threads), [&](int64_t b, int64_t e) {
      for (int64_t t = b; t < e; ++t) kernels::distribution_thread(t, n, launch.threads, seed, offset, sampler, writer);
    });
  });
}

}  // namespace ctorch::backends::cpu
