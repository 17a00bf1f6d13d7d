// Host walkers of the thread and block functors (Note [Thread functors] in kernels/thread_functors.h),
// shared by the cpu launcher and the emulated one (which runs them on its stream's worker).
#pragma once

#include <algorithm>
#include <cstdint>

#include "backends/cpu/parallel.h"
#include "kernels/reduce_grid.h"
#include "kernels/thread_functors.h"

// Hidden in libctorch: these templates are instantiated per op and dtype.
#ifndef __CUDACC__
#pragma GCC visibility push(hidden)
#endif

namespace ctorch::inline api::backends::cpu {

/// The block tree of Note [Reduction grid] over shared[0, block), step by step as the GPU runs it.
template <class Acc, class Combine>
void block_tree(Acc* shared, uint32_t block, const Combine& combine) {
  for (uint32_t s = block / 2; s > 0; s /= 2) {
    for (uint32_t t = 0; t < s; ++t) kernels::block_tree_step(shared, t, s, combine);
  }
}

/// Runs f(i) for every thread i of a thread functor, chunks over the intra-op pool.
template <class F>
void walk_threads(const F& f) {
  const int64_t n = f.threads();
  parallel_for(0, n, 4096, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) f(i);
  });
}

/// Runs every block of a block functor as the GPU does (per-thread folds in order, the block tree,
/// finish, apply); blocks spread over the intra-op pool.
template <class F>
void walk_blocks_of(const F& f) {
  using Acc = typename F::Acc;
  constexpr int64_t threads = kernels::kBlockThreads;
  const int64_t extent = f.extent(), apply_extent = f.apply_extent();
  const int64_t work = std::max<int64_t>(1, extent + apply_extent);
  parallel_for(0, f.blocks(), std::max<int64_t>(1, 32768 / work), [&](int64_t b0, int64_t b1) {
    Acc shared[threads];
    for (int64_t b = b0; b < b1; ++b) {
      for (int64_t t = 0; t < threads; ++t) shared[t] = f.init();
      // Round by round: thread t's elements are still folded in its own order.
      for (int64_t base = 0; base < extent; base += threads) {
        const int64_t live = std::min(threads, extent - base);
        for (int64_t t = 0; t < live; ++t) shared[t] = f.fold(shared[t], b, base + t);
      }
      block_tree(shared, threads, [&](const Acc& x, const Acc& y) { return f.combine(x, y); });
      const auto post = f.finish(b, shared[0], true);
      for (int64_t e = 0; e < apply_extent; ++e) f.apply(b, e, post);
    }
  });
}

}  // namespace ctorch::api::backends::cpu

#ifndef __CUDACC__
#pragma GCC visibility pop
#endif
