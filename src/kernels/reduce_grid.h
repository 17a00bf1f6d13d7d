// The GPU's reduction and softmax grids, written once: the CUDA kernels (backends/cuda/reduce.cu)
// and the emulated walker of those kernels (backends/emulated/reduce.cpp) share the launch shape,
// the per-thread folds and the block tree, so emulated results round as the GPU's do.
//
// Note [Reduction grid]
// - Block per output (the default): output o is reduced by one block of `block` threads (a power
//   of two, 32..kReduceBlock); thread t folds positions t, t + block, ... in increasing order, then
//   the block combines the per-thread accumulators pairwise in shared memory: for s = block / 2,
//   block / 4, ..., 1, thread t < s sets acc[t] = combine(acc[t], acc[t + s]). Blocks walk the
//   outputs grid-stride (block b takes outputs b, b + grid, ...).
// - Thread per output: when the fastest input dim is kept ("across rows") and there are at least
//   kMinOutputsPerThreadMode outputs, the elementwise grid runs over the outputs and each thread
//   folds its output's positions in order.
// Float sums therefore differ from the cpu's (Note [Reduction order on cpu]) in the last bits;
// integers, min/max, the arg ops (index tie-breaking) and all/any are exact on both.
// Softmax: one block per (outer, inner) row: a block max, a block sum of exp(x - max), then the
// same final arithmetic as the cpu.
#pragma once

#include <cmath>
#include <cstdint>
#include <type_traits>

#include "ctorch/macros.h"
#include "kernels/convert.h"
#include "kernels/dispatch.h"
#include "kernels/launch_config.h"
#include "kernels/reduce_functors.h"
#include "kernels/reduce_plan.h"

namespace ctorch::inline api::kernels {

/// Threads of a block-per-output reduction at most (a power of two).
inline constexpr int kReduceBlock = 256;
/// Outputs a thread-per-output reduction needs before it is preferred.
inline constexpr int64_t kMinOutputsPerThreadMode = 4096;

/// The launch of one reduction (or softmax): thread-per-output, or `grid` blocks of `block` threads.
struct ReduceLaunch {
  bool thread_per_output = false;
  LaunchConfig config;  // thread-per-output: the elementwise launch over the outputs
  uint32_t grid = 0;    // block-per-output: blocks, each taking outputs grid-stride
  uint32_t block = 0;   // block-per-output: threads per block (a power of two)
};

/// At least a warp, at most kReduceBlock threads, no more than `n` positions need (a power of two).
CTORCH_HD constexpr uint32_t reduce_block_size(int64_t n) {
  uint32_t p = 1;
  while (p < n && p < static_cast<uint32_t>(kReduceBlock)) p *= 2;
  return p < 32 ? 32 : p;
}

/// Block-per-output shape for `rows` independent rows of `n` positions each.
CTORCH_HD constexpr ReduceLaunch block_per_row_launch(int64_t rows, int64_t n, DeviceLimits limits) {
  ReduceLaunch l;
  l.block = reduce_block_size(n);
  const int64_t per_sm = limits.max_threads_per_sm / static_cast<int64_t>(l.block);
  int64_t wave = static_cast<int64_t>(limits.sm_count) * (per_sm < 1 ? 1 : per_sm);
  if (wave <= 0) wave = kFallbackMaxBlocks;
  l.grid = static_cast<uint32_t>(rows < wave ? rows : wave);
  return l;
}

/// The launch of a reduction over `plan` (numel_out > 0) on a device with `limits`.
CTORCH_HD constexpr ReduceLaunch reduce_launch(const ReducePlan& plan, DeviceLimits limits) {
  if (!plan.fastest_reduced && plan.nkept > 0 && plan.numel_out >= kMinOutputsPerThreadMode) {
    ReduceLaunch l;
    l.thread_per_output = true;
    const int64_t n = plan.numel_out < kMaxElementsPerLaunch ? plan.numel_out : kMaxElementsPerLaunch;
    l.config = elementwise_launch_config(n, limits);
    return l;
  }
  return block_per_row_launch(plan.numel_out, plan.numel_reduce, limits);
}

/// Input element (storage type T) at `p`, converted to the reduction's input type.
template <class T, class Op>
CTORCH_HD typename Op::in_t reduce_load(const char* p) {
  return static_cast<typename Op::in_t>(static_cast<opmath_t<T>>(*reinterpret_cast<const T*>(p)));
}

/// Stores the projected accumulator of output `out_off` (and its index for the arg ops).
template <class Out, class Op>
CTORCH_HD void reduce_store(const Op& op, char* values, int64_t* indices, int64_t out_off,
                            const typename Op::acc_t& acc) {
  const auto v = op.project(acc);
  if constexpr (Op::kIndexed) {
    if (values) *reinterpret_cast<Out*>(values + out_off * static_cast<int64_t>(sizeof(Out))) = convert<Out>(v.value);
    if (indices) indices[out_off] = v.index;
  } else {
    *reinterpret_cast<Out*>(values + out_off * static_cast<int64_t>(sizeof(Out))) = convert<Out>(v);
  }
}

/// The fold of one thread: positions first, first + step, ... of the output whose input starts at `in`.
template <class T, class Op>
CTORCH_HD typename Op::acc_t reduce_fold(const ReducePlan& plan, const Op& op, const char* in, int64_t first,
                                         int64_t step) {
  typename Op::acc_t acc = op.identity();
  for (int64_t r = first; r < plan.numel_reduce; r += step) {
    acc = op.reduce(acc, reduce_load<T, Op>(in + plan.red_offset(r)), r);
  }
  return acc;
}

/// One step of the block tree: thread t < s combines its partial with thread t + s's.
template <class A, class Combine>
CTORCH_HD void block_tree_step(A* shared, uint32_t t, uint32_t s, const Combine& combine) {
  if (t < s) shared[t] = combine(shared[t], shared[t + s]);
}

/// Combines accumulators for a block tree.
template <class Op>
struct OpCombine {
  Op op;
  CTORCH_HD typename Op::acc_t operator()(const typename Op::acc_t& a, const typename Op::acc_t& b) const {
    return op.combine(a, b);
  }
};

/// Max of two softmax partials (NaN propagates).
template <class A>
struct SoftmaxMax {
  CTORCH_HD A operator()(A a, A b) const { return MaxOp<A>{}.combine(a, b); }
};
/// Sum of two softmax partials.
template <class A>
struct SoftmaxSum {
  CTORCH_HD A operator()(A a, A b) const { return a + b; }
};

/// A softmax row: base offset (elements) of row `row` and its stride along the softmax dim.
CTORCH_HD inline int64_t softmax_row_base(const SoftmaxPlan& plan, int64_t row) {
  return (row / plan.inner) * plan.dim_size * plan.inner + row % plan.inner;
}

/// Thread t's max over positions t, t + step, ... of a softmax row.
template <class T>
CTORCH_HD opmath_t<T> softmax_fold_max(const SoftmaxPlan& plan, const T* row, int64_t t, int64_t step) {
  using A = opmath_t<T>;
  const MaxOp<A> op;
  A mx = op.identity();
  for (int64_t i = t; i < plan.dim_size; i += step) mx = op.reduce(mx, static_cast<A>(row[i * plan.inner]), i);
  return mx;
}

/// Thread t's sum of exp(x - mx) over positions t, t + step, ... of a softmax row.
template <class T>
CTORCH_HD opmath_t<T> softmax_fold_sum(const SoftmaxPlan& plan, const T* row, opmath_t<T> mx, int64_t t,
                                       int64_t step) {
  using A = opmath_t<T>;
  A sum = 0;
  for (int64_t i = t; i < plan.dim_size; i += step) sum += std::exp(static_cast<A>(row[i * plan.inner]) - mx);
  return sum;
}

/// Writes positions t, t + step, ... of a softmax row given the row's max and sum.
template <class T, bool Log>
CTORCH_HD void softmax_write(const SoftmaxPlan& plan, const T* in, T* out, opmath_t<T> mx, opmath_t<T> sum,
                             int64_t t, int64_t step) {
  using A = opmath_t<T>;
  if constexpr (Log) {
    const A shift = mx + std::log(sum);
    for (int64_t i = t; i < plan.dim_size; i += step) {
      out[i * plan.inner] = static_cast<T>(static_cast<A>(in[i * plan.inner]) - shift);
    }
  } else {
    const A scale = A(1) / sum;
    for (int64_t i = t; i < plan.dim_size; i += step) {
      out[i * plan.inner] = static_cast<T>(std::exp(static_cast<A>(in[i * plan.inner]) - mx) * scale);
    }
  }
}

}  // namespace ctorch::api::kernels
