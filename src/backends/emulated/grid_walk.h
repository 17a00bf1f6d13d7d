// The emulated launcher's grid walkers (Note [Emulated grid walk] in launch.h): the threads of an
// elementwise-shaped launch, and the blocks of a block-per-row launch with their shared memory.
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>

#include "backends/cpu/launch.h"
#include "backends/cpu/parallel.h"
#include "kernels/launch_config.h"
#include "kernels/reduce_grid.h"

// Hidden in libctorch: these templates are instantiated per op and dtype, and exporting each
// instantiation would add thousands of dynamic symbols for the loader to resolve at startup.
#ifndef __CUDACC__
#pragma GCC visibility push(hidden)
#endif

namespace ctorch::inline api::backends::emulated {

/// Calls visit_run(begin, end) for each block's threads of one round of a grid-stride launch over
/// [0, numel): the consecutive elements [first(b, 0), first(b, block)) of that round, in rounds and
/// blocks (Note [Emulated grid walk]); runs may be visited in parallel.
template <class VisitRun>
void walk_grid_runs(int64_t numel, kernels::DeviceLimits limits, const VisitRun& visit_run) {
  for (int64_t begin = 0; begin < numel; begin += kernels::kMaxElementsPerLaunch) {
    const kernels::LaunchConfig cfg =
        kernels::elementwise_launch_config(std::min(numel - begin, kernels::kMaxElementsPerLaunch), limits);
    const int64_t stride = cfg.stride();
    const int64_t rounds = (static_cast<int64_t>(cfg.n) + stride - 1) / stride;
    const int64_t units = rounds * cfg.grid;  // one block's threads in one round
    const int64_t grain = std::max<int64_t>(1, cpu::kElementwiseGrain / cfg.block);
    cpu::parallel_for(0, units, grain, [&](int64_t u0, int64_t u1) {
      for (int64_t u = u0; u < u1; ++u) {
        const int64_t first = u / cfg.grid * stride + cfg.first(static_cast<uint32_t>(u % cfg.grid), 0);
        const int64_t last = std::min<int64_t>(first + cfg.block, cfg.n);
        if (first < last) visit_run(begin + first, begin + last);
      }
    });
  }
}

/// Calls visit(element) for every element of a grid-stride launch over [0, n), thread by thread
/// (walk_grid_runs); visits may run in parallel.
template <class Visit>
void walk_grid(int64_t numel, kernels::DeviceLimits limits, const Visit& visit) {
  walk_grid_runs(numel, limits, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) visit(i);
  });
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

using cpu::block_tree;

}  // namespace ctorch::api::backends::emulated

#ifndef __CUDACC__
#pragma GCC visibility pop
#endif
