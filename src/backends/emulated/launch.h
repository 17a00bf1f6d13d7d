// The emulated launcher (EmulatedLauncher, the Launcher of backends/kernel_table.h): runs the CUDA
// backend's kernels on the host by walking the grid the CUDA launcher computes, on the emulated
// stream's worker thread. Every launch first checks and translates its device pointers (an
// out-of-bounds or foreign pointer fails at launch, as a strict CUDA would at run time).
//
// Note [Emulated grid walk]
// - Elementwise (and the loop GEMM, the thread-per-output reduction): the launches and LaunchConfig
//   of Note [Elementwise launch shape]; thread (b, t) of launch j handles elements
//   j * kMaxElementsPerLaunch + first(b, t) + i * stride() while below n. The walker visits them
//   round by round (i), blocks and threads in order, so memory is touched in order; elements are
//   independent, so the order of visits cannot change a value. Rounds x blocks are spread over the
//   intra-op pool. A plain elementwise launch visits each block's threads of a round as one run of
//   consecutive elements, with the offsets advanced as the cpu loop does.
// - Block-per-output reductions and softmax: Note [Reduction grid]: per output, thread t's fold
//   (the same function the CUDA kernel runs), then the block tree step by step, so the result is
//   the GPU's value, rounding included. Blocks are spread over the intra-op pool.
// - GEMM: integers and bool walk the loop GEMM's grid (gemm_loop.cu); floating dtypes, which run
//   cuBLAS on a GPU, run the cpu backend's OpenBLAS product instead (cuBLAS's summation order is
//   not public): emulated float matmul equals cpu matmul, not a GPU's.
// - Random: the CUDA random kernels' threads (Note [Distribution grid]), as the cpu walker does.
// - Pooling and normalization (Note [Thread functors]): thread functors chunked over the intra-op
//   pool (independent threads); block functors block by block, each thread's fold in its order, then
//   the block tree step by step, as the CUDA kernel runs them.
// - Gather/scatter (Note [Index plan]): the elementwise grid; accumulating scatters run as the CUDA
//   backend's single thread, in plan order (deterministic).
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "backends/cpu/functor_walk.h"
#include "backends/cpu/launch.h"
#include "backends/cpu/parallel.h"
#include "backends/emulated/grid_walk.h"
#include "backends/emulated/reduce.h"
#include "backends/emulated/runtime.h"
#include "backends/kernel_table.h"
#include "kernels/elementwise_loop.h"
#include "kernels/gemm_math.h"
#include "kernels/index_plan.h"
#include "kernels/launch_config.h"

// Hidden in libctorch: these templates are instantiated per op and dtype, and exporting each
// instantiation would add thousands of dynamic symbols for the loader to resolve at startup.
#ifndef __CUDACC__
#pragma GCC visibility push(hidden)
#endif

namespace ctorch::inline api::backends::emulated {

/// The launch limits of emulated device `index` (its multiprocessors and threads per SM).
kernels::DeviceLimits device_limits(DeviceIndex index);

/// The cpu stream the host walkers run under (they ignore it).
Stream host_stream();

/// Host (alias) pointers of a plan's operands, checked against their device allocations.
struct HostOperands {
  char* ptr[kernels::kMaxOperands];
};
/// Translates the operands of `plan` for a kernel on `stream` (throws on a bad pointer).
HostOperands translate_operands(const kernels::ElementwisePlan& plan, char* const* data, Stream stream);

/// Host (alias) pointers of an IndexPlan's operands.
struct IndexOperands {
  char* ptr[kernels::kMaxIndexOperands];
};
/// Translates the operands of an IndexPlan (plan.extent bytes each) for a kernel on `stream`.
IndexOperands translate_index_operands(const kernels::IndexPlan& plan, char* const* data, Stream stream);

/// `philox` with its seed and offset pointers (device memory, when captured) translated for a kernel on `s`.
inline kernels::PhiloxArgs translate_philox(kernels::PhiloxArgs philox, Stream s) {
  if (philox.captured) {
    const DeviceIndex device = s.device().index();
    philox.seed_ptr = static_cast<const int64_t*>(instance().translate(philox.seed_ptr, sizeof(int64_t), device));
    philox.offset_ptr = static_cast<const int64_t*>(instance().translate(philox.offset_ptr, sizeof(int64_t), device));
  }
  return philox;
}

/// f with every device pointer it names (F::visit_buffers) checked and translated for a kernel on `s`.
template <class F>
F translate_buffers(F f, Stream s) {
  const DeviceIndex device = s.device().index();
  f.visit_buffers([&](auto*& p, int64_t count) {
    if (p == nullptr || count <= 0) return;
    using P = std::remove_reference_t<decltype(p)>;
    p = static_cast<P>(instance().translate(p, static_cast<size_t>(count) * sizeof(*p), device));
  });
  return f;
}

/// The emulated Launcher: translate, then enqueue the grid walk on the stream.
struct EmulatedLauncher {
  static constexpr Arithmetic kArithmetic = Arithmetic::Gpu;

  template <class Out, class... In, class F>
  static void elementwise(const kernels::ElementwisePlan& plan, char* const* data, const F& f, const char* name,
                          Stream s) {
    if (plan.numel <= 0) return;
    const HostOperands host = translate_operands(plan, data, s);
    const DeviceIndex device = s.device().index();
    instance().enqueue(
        s,
        [plan, host, f, device] {
          // A block's threads in one round cover consecutive elements: one run of the plan each
          // (the offsets advance instead of being recomputed per element; the values are the same).
          walk_grid_runs(plan.numel, device_limits(device), [&](int64_t b, int64_t e) {
            cpu::for_each_run(plan, host.ptr, b, e, [&](char* const* ptrs, const int64_t* strides, int64_t n) {
              cpu::detail::inner_loop<Out, In...>(ptrs, strides, n, f, std::index_sequence_for<In...>{});
            });
          });
        },
        name);
  }

  static void copy_bytes(char* dst, const char* src, int64_t bytes, Stream s);

  /// A thread functor (Note [Thread functors]): its threads are independent, so the host walk's
  /// schedule cannot change a value.
  template <class F>
  static void threads(const F& f, const char* name, Stream s) {
    if (f.threads() <= 0) return;
    instance().enqueue(s, [host = translate_buffers(f, s)] { cpu::walk_threads(host); }, name);
  }

  /// A block functor: each block's folds, tree and apply as the CUDA kernel runs them.
  template <class F>
  static void blocks(const F& f, const char* name, Stream s) {
    if (f.blocks() <= 0) return;
    instance().enqueue(s, [host = translate_buffers(f, s)] { cpu::walk_blocks_of(host); }, name);
  }

  template <class T, class Out, class Op>
  static void reduce(const kernels::ReducePlan& plan, char* const* data, const Op& op, Stream s) {
    if (plan.numel_out == 0) return;
    char* host[3];
    translate_reduce(plan, data, sizeof(T), sizeof(Out), Op::kIndexed, s, host);
    const DeviceIndex device = s.device().index();
    instance().enqueue(
        s, [plan, host0 = host[0], host1 = host[1], host2 = host[2], op, device] {
          walk_reduce<T, Out>(plan, host0, host1, reinterpret_cast<int64_t*>(host2), op, device_limits(device));
        },
        "reduce");
  }

  template <class T, bool Log>
  static void softmax(const kernels::SoftmaxPlan& plan, char* const* data, Stream s) {
    const size_t bytes = static_cast<size_t>(plan.outer * plan.dim_size * plan.inner) * sizeof(T);
    const DeviceIndex device = s.device().index();
    T* out = static_cast<T*>(instance().translate(data[0], bytes, device));
    const T* in = static_cast<const T*>(instance().translate(data[1], bytes, device));
    instance().enqueue(
        s, [plan, out, in, device] { walk_softmax<T, Log>(plan, in, out, device_limits(device)); },
        Log ? "log_softmax" : "softmax");
  }

  static void gemm(ScalarType dtype, const kernels::GemmGeometry& g, const Scalar& alpha, const void* a,
                   const void* b, const Scalar& beta, void* c, Stream s);

  /// The loop GEMM's grid (one thread per output element) over translated pointers.
  template <class T, class A>
  static void gemm_loop(const kernels::GemmGeometry& g, const T* a, const T* b, T* c, A alpha, A beta, Stream s) {
    const DeviceIndex device = s.device().index();
    instance().enqueue(
        s,
        [g, a, b, c, alpha, beta, device] {
          walk_grid(g.batch * g.m * g.n, device_limits(device),
                    [&](int64_t idx) { kernels::gemm_loop_element<T, A>(g, a, b, c, alpha, beta, idx); });
        },
        "gemm");
  }

  template <class Sampler>
  static void distribution(const kernels::RandomLaunch& launch, const kernels::ElementwisePlan& plan,
                           char* const* data, const kernels::PhiloxArgs& philox, const Sampler& sampler, Stream s) {
    const HostOperands host = translate_operands(plan, data, s);
    const kernels::PhiloxArgs args = translate_philox(philox, s);
    instance().enqueue(
        s,
        [launch, plan, host, args, sampler] {
          char* d[kernels::kMaxOperands] = {host.ptr[0], host.ptr[1], host.ptr[2], host.ptr[3]};
          cpu::CpuLauncher::distribution(launch, plan, d, args, sampler, host_stream());
        },
        "random");
  }

  template <class F>
  static void index_elementwise(const kernels::IndexPlan& plan, char* const* data, const F& f, bool sequential,
                                const char* name, Stream s) {
    if (plan.numel <= 0) return;
    IndexOperands host = translate_index_operands(plan, data, s);
    const DeviceIndex device = s.device().index();
    instance().enqueue(
        s,
        [plan, host, f, sequential, device] {
          if (sequential) {
            for (int64_t i = 0; i < plan.numel; ++i) kernels::index_element(plan, host.ptr, i, f);
            return;
          }
          walk_grid(plan.numel, device_limits(device),
                    [&](int64_t i) { kernels::index_element(plan, host.ptr, i, f); });
        },
        name);
  }

  template <class T, class P>
  static void bernoulli_tensor(const kernels::ElementwisePlan& plan, char* const* data,
                               const kernels::PhiloxArgs& philox, Stream s) {
    const HostOperands host = translate_operands(plan, data, s);
    const kernels::PhiloxArgs args = translate_philox(philox, s);
    instance().enqueue(
        s,
        [plan, host, args] {
          char* d[kernels::kMaxOperands] = {host.ptr[0], host.ptr[1], host.ptr[2], host.ptr[3]};
          cpu::CpuLauncher::bernoulli_tensor<T, P>(plan, d, args, host_stream());
        },
        "random");
  }

  template <class T>
  static void fused_dropout(const kernels::RandomLaunch& launch, const kernels::ElementwisePlan& plan,
                            char* const* data, const kernels::PhiloxArgs& philox, const kernels::RandomArgs& rargs,
                            Stream s) {
    const HostOperands host = translate_operands(plan, data, s);
    const kernels::PhiloxArgs args = translate_philox(philox, s);
    instance().enqueue(
        s,
        [launch, plan, host, args, rargs] {
          char* d[kernels::kMaxOperands] = {host.ptr[0], host.ptr[1], host.ptr[2], host.ptr[3]};
          cpu::CpuLauncher::fused_dropout<T>(launch, plan, d, args, rargs, host_stream());
        },
        "native_dropout");
  }

  /// A jiterator kernel: the host build of the code string (cpu/jit.h), as on cpu devices.
  static const ops::JitKernel* jit_compile(const ops::JitSpec& spec, Device) { return cpu::host_jit_compile(spec); }

  /// A jiterator kernel over the plan on the stream's worker (elements are independent: chunked
  /// over the intra-op pool like the grid walk's rounds).
  static void jit(const ops::JitKernel& kernel, const kernels::JitPlan& plan, char* const* data,
                  const ops::JitValue* extra, int nextra, Stream s);

  /// The batched FFT: an FFTW plan from the device's cufft_plan_cache (made on the calling thread, as
  /// cuFFT plans are), run on the stream's worker (fft.cpp).
  static void fft(const kernels::FftPlan& plan, const void* in, void* out, Stream s);

 private:
  // Host pointers of a reduction's values (0), input (1) and indices (2) outputs; null stays null.
  static void translate_reduce(const kernels::ReducePlan& plan, char* const* data, size_t in_size,
                               size_t out_size, bool indexed, Stream s, char** host);
};

}  // namespace ctorch::api::backends::emulated

#ifndef __CUDACC__
#pragma GCC visibility pop
#endif
