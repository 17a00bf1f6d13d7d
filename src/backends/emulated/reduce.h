// The emulated launcher's reductions and softmax: the CUDA kernels of backends/cuda/reduce.cu walked
// on the host block by block (Note [Reduction grid]): per output, every thread's fold (the same
// function the kernel runs), then the block tree step by step, so results round as the GPU's do.
// The thread-per-output plan walks the elementwise grid over the outputs.
#pragma once

#include <cstdint>

#include "backends/emulated/grid_walk.h"
#include "kernels/reduce_grid.h"

// Hidden in libctorch: these templates are instantiated per op and dtype, and exporting each
// instantiation would add thousands of dynamic symbols for the loader to resolve at startup.
#ifndef __CUDACC__
#pragma GCC visibility push(hidden)
#endif

namespace ctorch::inline api::backends::emulated {

/// Note [Reduction grid] walked on the host: a reduction as the CUDA kernels compute it.
template <class T, class Out, class Op>
void walk_reduce(const kernels::ReducePlan& plan, char* values, const char* input, int64_t* indices,
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

/// The CUDA softmax kernel walked on the host.
template <class T, bool Log>
void walk_softmax(const kernels::SoftmaxPlan& plan, const T* in, T* out, kernels::DeviceLimits limits) {
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

}  // namespace ctorch::api::backends::emulated

#ifndef __CUDACC__
#pragma GCC visibility pop
#endif
