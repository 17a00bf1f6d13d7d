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
//   intra-op pool.
// - Block-per-output reductions and softmax: Note [Reduction grid]: per output, thread t's fold
//   (the same function the CUDA kernel runs), then the block tree step by step, so the result is
//   the GPU's value, rounding included. Blocks are spread over the intra-op pool.
// - GEMM: integers and bool walk the loop GEMM's grid (gemm_loop.cu); floating dtypes, which run
//   cuBLAS on a GPU, run the cpu backend's OpenBLAS product instead (cuBLAS's summation order is
//   not public): emulated float matmul equals cpu matmul, not a GPU's.
// - Random: the CUDA random kernels' threads (Note [Distribution grid]), as the cpu walker does.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>

#include "backends/cpu/launch.h"
#include "backends/cpu/parallel.h"
#include "backends/emulated/runtime.h"
#include "backends/kernel_table.h"
#include "kernels/elementwise_loop.h"
#include "kernels/gemm_math.h"
#include "kernels/launch_config.h"
#include "kernels/reduce_grid.h"

namespace ctorch::backends::emulated {

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

/// Calls visit(element) for every element of a grid-stride launch over [0, n) with `cfg`, in
/// rounds, blocks and threads (Note [Emulated grid walk]); visits of one round may run in parallel.
template <class Visit>
void walk_grid(int64_t numel, kernels::DeviceLimits limits, const Visit& visit) {
  for (int64_t begin = 0; begin < numel; begin += kernels::kMaxElementsPerLaunch) {
    const kernels::LaunchConfig cfg =
        kernels::elementwise_launch_config(std::min(numel - begin, kernels::kMaxElementsPerLaunch), limits);
    const int64_t stride = cfg.stride();
    const int64_t rounds = (static_cast<int64_t>(cfg.n) + stride - 1) / stride;
    const int64_t units = rounds * cfg.grid;  // one block's threads in one round
    const int64_t grain = std::max<int64_t>(1, cpu::kElementwiseGrain / cfg.block);
    cpu::parallel_for(0, units, grain, [&](int64_t u0, int64_t u1) {
      for (int64_t u = u0; u < u1; ++u) {
        const int64_t round = u / cfg.grid;
        const auto block = static_cast<uint32_t>(u % cfg.grid);
        for (uint32_t t = 0; t < cfg.block; ++t) {
          const int64_t i = round * stride + cfg.first(block, t);
          if (i < static_cast<int64_t>(cfg.n)) visit(begin + i);
        }
      }
    });
  }
}

/// Runs one block-per-row launch `l` over `rows` rows: row(b, shared, row) for block b's rows
/// b, b + grid, ..., with `shared` holding l.block accumulators; blocks spread over the pool.
template <class Acc, class Row>
void walk_blocks(int64_t rows, const kernels::ReduceLaunch& l, const Row& row) {
  const int64_t work_per_block = std::max<int64_t>(1, rows / std::max<uint32_t>(1, l.grid)) * l.block;
  const int64_t grain = std::max<int64_t>(1, cpu::kElementwiseGrain / work_per_block);
  cpu::parallel_for(0, l.grid, grain, [&](int64_t b0, int64_t b1) {
    const std::unique_ptr<Acc[]> shared(new Acc[l.block]);
    for (int64_t b = b0; b < b1; ++b) {
      for (int64_t r = b; r < rows; r += l.grid) row(shared.get(), r);
    }
  });
}

/// The block tree of Note [Reduction grid] over shared[0, block), step by step as the GPU runs it.
template <class Acc, class Combine>
void block_tree(Acc* shared, uint32_t block, const Combine& combine) {
  for (uint32_t s = block / 2; s > 0; s /= 2) {
    for (uint32_t t = 0; t < s; ++t) kernels::block_tree_step(shared, t, s, combine);
  }
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
          const bool contiguous = plan.is_contiguous();
          walk_grid(plan.numel, device_limits(device), [&](int64_t i) {
            kernels::elementwise_element<Out, In...>(plan, host.ptr, i, contiguous, f);
          });
        },
        name);
  }

  static void copy_bytes(char* dst, const char* src, int64_t bytes, Stream s);

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
                           char* const* data, uint64_t seed, uint64_t offset, const Sampler& sampler, Stream s) {
    const HostOperands host = translate_operands(plan, data, s);
    instance().enqueue(
        s,
        [launch, plan, host, seed, offset, sampler] {
          char* d[kernels::kMaxOperands] = {host.ptr[0], host.ptr[1], host.ptr[2], host.ptr[3]};
          cpu::CpuLauncher::distribution(launch, plan, d, seed, offset, sampler, host_stream());
        },
        "random");
  }

  template <class T, class P>
  static void bernoulli_tensor(const kernels::ElementwisePlan& plan, char* const* data, uint64_t seed,
                               uint64_t offset, Stream s) {
    const HostOperands host = translate_operands(plan, data, s);
    instance().enqueue(
        s,
        [plan, host, seed, offset] {
          char* d[kernels::kMaxOperands] = {host.ptr[0], host.ptr[1], host.ptr[2], host.ptr[3]};
          cpu::CpuLauncher::bernoulli_tensor<T, P>(plan, d, seed, offset, host_stream());
        },
        "random");
  }

 private:
  // Host pointers of a reduction's values (0), input (1) and indices (2) outputs; null stays null.
  static void translate_reduce(const kernels::ReducePlan& plan, char* const* data, size_t in_size,
                               size_t out_size, bool indexed, Stream s, char** host);

  template <class T, class Out, class Op>
  static void walk_reduce(const kernels::ReducePlan& plan, char* values, const char* input, int64_t* indices,
                          const Op& op, kernels::DeviceLimits limits) {
    using acc_t = typename Op::acc_t;
    const kernels::ReduceLaunch l = kernels::reduce_launch(plan, limits);
    if (l.thread_per_output) {
      // One thread per output, grid-stride over every output as the CUDA kernel's 64-bit loop.
      walk_grid(plan.numel_out, limits, [&](int64_t o) {
        int64_t in_off = 0, out_off = 0;
        plan.kept_offsets(o, &in_off, &out_off);
        kernels::reduce_store<Out>(op, values, indices, out_off, kernels::reduce_fold<T, Op>(plan, op, input + in_off, 0, 1));
      });
      return;
    }
    walk_blocks<acc_t>(plan.numel_out, l, [&](acc_t* shared, int64_t o) {
      int64_t in_off = 0, out_off = 0;
      plan.kept_offsets(o, &in_off, &out_off);
      for (uint32_t t = 0; t < l.block; ++t) shared[t] = kernels::reduce_fold<T, Op>(plan, op, input + in_off, t, l.block);
      block_tree(shared, l.block, kernels::OpCombine<Op>{op});
      kernels::reduce_store<Out>(op, values, indices, out_off, shared[0]);
    });
  }

  template <class T, bool Log>
  static void walk_softmax(const kernels::SoftmaxPlan& plan, const T* in, T* out, kernels::DeviceLimits limits) {
    using A = kernels::opmath_t<T>;
    const int64_t rows = plan.outer * plan.inner;
    const kernels::ReduceLaunch l = kernels::block_per_row_launch(rows, plan.dim_size, limits);
    walk_blocks<A>(rows, l, [&](A* shared, int64_t row) {
      const int64_t base = kernels::softmax_row_base(plan, row);
      for (uint32_t t = 0; t < l.block; ++t) shared[t] = kernels::softmax_fold_max(plan, in + base, t, l.block);
      block_tree(shared, l.block, kernels::SoftmaxMax<A>{});
      const A mx = shared[0];
      for (uint32_t t = 0; t < l.block; ++t) shared[t] = kernels::softmax_fold_sum(plan, in + base, mx, t, l.block);
      block_tree(shared, l.block, kernels::SoftmaxSum<A>{});
      const A sum = shared[0];
      for (uint32_t t = 0; t < l.block; ++t) kernels::softmax_write<T, Log>(plan, in + base, out + base, mx, sum, t, l.block);
    });
  }
};

}  // namespace ctorch::backends::emulated
