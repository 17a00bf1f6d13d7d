// The two kernel shapes of the pooling and normalization kernels (kernels/pool_functors.h,
// kernels/norm_functors.h), which every launcher runs (backends/kernel_table.h: L::threads and
// L::blocks).
//
// Note [Thread functors]
// - A thread functor F is one thread of a grid-stride launch: F::threads() threads, thread i runs
//   f(i) and writes only its own outputs, so any schedule gives the same values (cpu: a parallel
//   loop; emulated: the grid walk; CUDA: a grid-stride kernel).
// - A block functor F is one block of kBlockThreads threads per unit of work (a channel, a row):
//   F::blocks() blocks. Thread t folds elements t, t + kBlockThreads, ... of [0, F::extent()) into
//   its accumulator (F::fold from F::init()); the block combines the accumulators with the tree of
//   Note [Reduction grid] (F::combine); every thread derives F::Post from the total (F::finish;
//   thread 0 with write = true also stores the block's results); then the block's threads run
//   F::apply on the elements [0, F::apply_extent()). The host walkers keep each thread's fold order
//   and the tree's steps, so cpu, emulated and CUDA give the same values; apply's order cannot
//   matter (each element is written once).
// - F::visit_buffers(v) names every device pointer with its element count, v(pointer, count), so
//   the emulated launcher can check and translate them (null pointers are optional operands).
#pragma once

#include <cstdint>

#include "ctorch/macros.h"

namespace ctorch::inline api::kernels {

/// Threads per block of a block functor (Note [Thread functors]).
inline constexpr int kBlockThreads = 256;

/// Welford's running mean and sum of squared deviations over `n` values, in A.
template <class A>
struct Welford {
  A mean = A(0);
  A m2 = A(0);
  int64_t n = 0;
  /// This accumulator with x added.
  CTORCH_HD Welford add(A x) const {
    const int64_t n1 = n + 1;
    const A delta = x - mean;
    const A mean1 = mean + delta / static_cast<A>(n1);
    return Welford{mean1, m2 + delta * (x - mean1), n1};
  }
  /// Two accumulators merged (Chan et al.).
  CTORCH_HD static Welford merge(const Welford& a, const Welford& b) {
    if (a.n == 0) return b;
    if (b.n == 0) return a;
    const int64_t n = a.n + b.n;
    const A delta = b.mean - a.mean;
    const A nb_over_n = static_cast<A>(b.n) / static_cast<A>(n);
    return Welford{a.mean + delta * nb_over_n, a.m2 + b.m2 + delta * delta * static_cast<A>(a.n) * nb_over_n, n};
  }
};

}  // namespace ctorch::api::kernels
