// The cpu launcher (CpuLauncher, the Launcher of backends/kernel_table.h): runs single-source
// functors over an ElementwisePlan with a chunked parallel loop (inner loops over dense operands use
// plain indexing so the compiler vectorizes), reductions and softmax with reduce.h, the GEMM with
// blas.cpp, and the CUDA random kernels' threads walked on the host (bit-identical values).
#pragma once

#include <cstdint>
#include <cstring>
#include <tuple>
#include <utility>

#include <atomic>

#include "backends/cpu/blas.h"
#include "backends/cpu/fft.h"
#include "backends/cpu/functor_walk.h"
#include "backends/cpu/jit.h"
#include "backends/cpu/parallel.h"
#include "backends/kernel_table.h"
#include "ctorch/error.h"
#include "kernels/dispatch.h"
#include "kernels/elementwise_plan.h"
#include "kernels/index_plan.h"
#include "kernels/random_functors.h"

// Hidden in libctorch: these templates are instantiated per op and dtype, and exporting each
// instantiation would add thousands of dynamic symbols for the loader to resolve at startup.
#ifndef __CUDACC__
#pragma GCC visibility push(hidden)
#endif

namespace ctorch::inline api::backends::cpu {

/// Elements per parallel chunk for elementwise loops.
inline constexpr int64_t kElementwiseGrain = 32768;

namespace detail {

template <class Out, class... In, class F, size_t... I>
inline void inner_loop(char* const* data, const int64_t* strides, int64_t n, const F& f,
                       std::index_sequence<I...>) {
  using kernels::opmath_t;
  char* out = data[0];
  const int64_t so = strides[0];
  bool dense = so == static_cast<int64_t>(sizeof(Out)) &&
               ((strides[I + 1] == static_cast<int64_t>(sizeof(In))) && ...);
  if (dense) {
    Out* o = reinterpret_cast<Out*>(out);
    std::tuple<const In*...> in{reinterpret_cast<const In*>(data[I + 1])...};
    for (int64_t i = 0; i < n; ++i) {
      o[i] = static_cast<Out>(f(static_cast<opmath_t<In>>(std::get<I>(in)[i])...));
    }
    return;
  }
  for (int64_t i = 0; i < n; ++i) {
    Out* o = reinterpret_cast<Out*>(out + i * so);
    *o = static_cast<Out>(
        f(static_cast<opmath_t<In>>(*reinterpret_cast<const In*>(data[I + 1] + i * strides[I + 1]))...));
  }
}

}  // namespace detail

/// Walks linear indices [begin, end) of `plan`, calling loop(ptrs, inner_strides, n) per inner run.
template <class Loop>
void for_each_run(const kernels::ElementwisePlan& plan, char* const* base, int64_t begin, int64_t end,
                  const Loop& loop) {
  const int nop = plan.noperands;
  char* ptrs[kernels::kMaxOperands];
  if (plan.ndim <= 1) {
    int64_t inner[kernels::kMaxOperands];
    for (int k = 0; k < nop; ++k) {
      inner[k] = plan.ndim == 0 ? 0 : plan.strides[k][0];
      ptrs[k] = base[k] + begin * inner[k];
    }
    loop(ptrs, inner, end - begin);
    return;
  }
  int64_t idx[kernels::kMaxDims];
  int64_t linear = begin;
  for (int d = 0; d < plan.ndim; ++d) {
    idx[d] = linear % plan.shape[d];
    linear /= plan.shape[d];
  }
  int64_t inner[kernels::kMaxOperands];
  for (int k = 0; k < nop; ++k) inner[k] = plan.strides[k][0];
  int64_t pos = begin;
  while (pos < end) {
    for (int k = 0; k < nop; ++k) {
      int64_t off = 0;
      for (int d = 0; d < plan.ndim; ++d) off += idx[d] * plan.strides[k][d];
      ptrs[k] = base[k] + off;
    }
    int64_t n = std::min(plan.shape[0] - idx[0], end - pos);
    loop(ptrs, inner, n);
    pos += n;
    idx[0] += n;
    for (int d = 0; d + 1 < plan.ndim && idx[d] >= plan.shape[d]; ++d) {
      idx[d] = 0;
      ++idx[d + 1];
    }
  }
}

/// out = f(in...) over the plan; Out and In are storage types, f sees opmath values.
template <class Out, class... In, class F>
void launch_elementwise(const kernels::ElementwisePlan& plan, char* const* data, const F& f) {
  parallel_for(0, plan.numel, kElementwiseGrain, [&](int64_t b, int64_t e) {
    for_each_run(plan, data, b, e, [&](char* const* ptrs, const int64_t* strides, int64_t n) {
      detail::inner_loop<Out, In...>(ptrs, strides, n, f, std::index_sequence_for<In...>{});
    });
  });
}

/// Defined in reduce.h: reduction functor Op over a plan (T input storage type, Out the output's).
template <class T, class Out, class Op>
void run_reduction(const kernels::ReducePlan& plan, char* const* data, const Op& op);
/// Defined in reduce.h: (log_)softmax over a plan.
template <class T, bool Log>
void run_softmax(const kernels::SoftmaxPlan& plan, char* const* data);

/// The cpu Launcher: synchronous on the calling thread, fanned out over the intra-op pool.
struct CpuLauncher {
  static constexpr Arithmetic kArithmetic = Arithmetic::Cpu;

  template <class Out, class... In, class F>
  static void elementwise(const kernels::ElementwisePlan& plan, char* const* data, const F& f, const char*, Stream) {
    launch_elementwise<Out, In...>(plan, data, f);
  }

  /// A thread functor (Note [Thread functors]) over the intra-op pool.
  template <class F>
  static void threads(const F& f, const char*, Stream) {
    walk_threads(f);
  }

  /// A block functor, blocks over the intra-op pool.
  template <class F>
  static void blocks(const F& f, const char*, Stream) {
    walk_blocks_of(f);
  }

  static void copy_bytes(char* dst, const char* src, int64_t bytes, Stream) {
    parallel_for(0, bytes, kElementwiseGrain * 8, [&](int64_t b, int64_t e) {
      std::memcpy(dst + b, src + b, static_cast<size_t>(e - b));
    });
  }

  template <class T, class Out, class Op>
  static void reduce(const kernels::ReducePlan& plan, char* const* data, const Op& op, Stream) {
    run_reduction<T, Out>(plan, data, op);
  }

  template <class T, bool Log>
  static void softmax(const kernels::SoftmaxPlan& plan, char* const* data, Stream) {
    run_softmax<T, Log>(plan, data);
  }

  static void gemm(ScalarType dtype, const kernels::GemmGeometry& g, const Scalar& alpha, const void* a,
                   const void* b, const Scalar& beta, void* c, Stream) {
    cpu::gemm(dtype, g, alpha, a, b, beta, c);
  }

  /// Every thread of the CUDA distribution grid, spread over the pool; threads are independent (each
  /// owns its Philox subsequence), so the split cannot change a value.
  template <class Sampler>
  static void distribution(const kernels::RandomLaunch& launch, const kernels::ElementwisePlan& plan,
                           char* const* data, const kernels::PhiloxArgs& philox, const Sampler& sampler, Stream) {
    using T = typename Sampler::value_type;
    uint64_t seed = 0, offset = 0;
    philox.unpack(&seed, &offset);
    const int64_t n = plan.numel;
    const kernels::PlanWriter<T> writer{plan, data[0], plan.is_contiguous()};
    parallel_for(0, launch.threads, thread_grain(n, launch.threads), [&](int64_t b, int64_t e) {
      for (int64_t t = b; t < e; ++t) kernels::distribution_thread(t, n, launch.threads, seed, offset, sampler, writer);
    });
  }

  /// The bernoulli(p tensor) kernel's threads; PyTorch's device-side assert on p becomes an error.
  template <class T, class P>
  static void bernoulli_tensor(const kernels::ElementwisePlan& plan, char* const* data,
                               const kernels::PhiloxArgs& philox, Stream) {
    uint64_t seed = 0, offset = 0;
    philox.unpack(&seed, &offset);
    const int64_t n = plan.numel;
    const int64_t threads = (n + kernels::kBernoulliTensorPerThread - 1) / kernels::kBernoulliTensorPerThread;
    const bool contiguous = plan.is_contiguous();
    std::atomic<bool> valid{true};
    parallel_for(0, threads, kElementwiseGrain / kernels::kBernoulliTensorPerThread, [&](int64_t b, int64_t e) {
      bool ok = true;
      for (int64_t t = b; t < e; ++t) {
        ok = kernels::bernoulli_tensor_thread<T, P>(t, n, seed, offset, plan, data[0], data[1], contiguous) && ok;
      }
      if (!ok) valid.store(false, std::memory_order_relaxed);
    });
    CTORCH_CHECK(valid.load(), "CUDA error: device-side assert triggered (bernoulli: Assertion `0 <= p && p <= 1` "
                 "failed)");
  }

  /// The fused dropout kernel's threads (Note [Fused dropout]): data[0] output, data[1] mask, data[2] input.
  template <class T>
  static void fused_dropout(const kernels::RandomLaunch& launch, const kernels::ElementwisePlan& plan,
                            char* const* data, const kernels::PhiloxArgs& philox, const kernels::RandomArgs& args,
                            Stream) {
    uint64_t seed = 0, offset = 0;
    philox.unpack(&seed, &offset);
    const int64_t n = plan.numel;
    const auto keep = static_cast<kernels::random_acc_t<T>>(args.a);
    const int vec = static_cast<int>(args.base);
    T* out = reinterpret_cast<T*>(data[0]);
    bool* mask = reinterpret_cast<bool*>(data[1]);
    const T* in = reinterpret_cast<const T*>(data[2]);
    parallel_for(0, launch.threads, thread_grain(n, launch.threads), [&](int64_t b, int64_t e) {
      for (int64_t t = b; t < e; ++t) {
        kernels::fused_dropout_thread<T>(t, n, launch.threads, vec, seed, offset, keep, in, out, mask);
      }
    });
  }

  /// f(indexed, dense) per element of an IndexPlan: in plan order on the calling thread when
  /// `sequential` (accumulating scatters: deterministic), else chunked over the pool.
  template <class F>
  static void index_elementwise(const kernels::IndexPlan& plan, char* const* data, const F& f, bool sequential,
                                const char*, Stream) {
    if (sequential) {
      for (int64_t i = 0; i < plan.numel; ++i) kernels::index_element(plan, data, i, f);
      return;
    }
    parallel_for(0, plan.numel, kElementwiseGrain, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) kernels::index_element(plan, data, i, f);
    });
  }

  /// A jiterator kernel compiled by the system compiler (jit.h).
  static const ops::JitKernel* jit_compile(const ops::JitSpec& spec, Device) { return host_jit_compile(spec); }

  /// A jiterator kernel over the plan, chunked over the pool.
  static void jit(const ops::JitKernel& kernel, const kernels::JitPlan& plan, char* const* data,
                  const ops::JitValue* extra, int, Stream) {
    parallel_for(0, plan.numel, kElementwiseGrain,
                 [&](int64_t b, int64_t e) { run_host_jit(kernel, plan, data, extra, b, e); });
  }

  /// The batched FFT through FFTW on the calling thread (fft.cpp).
  static void fft(const kernels::FftPlan& plan, const void* in, void* out, Stream) { cpu::fft(plan, in, out); }

 private:
  // Threads per parallel chunk so that a chunk writes about kElementwiseGrain elements.
  static int64_t thread_grain(int64_t numel, int64_t threads) {
    const int64_t per_thread = (numel + threads - 1) / threads;
    return std::max<int64_t>(1, kElementwiseGrain / std::max<int64_t>(1, per_thread));
  }
};

}  // namespace ctorch::api::backends::cpu

#ifndef __CUDACC__
#pragma GCC visibility pop
#endif
