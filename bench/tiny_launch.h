// The launch-cost loop shared by the emulated and stream benchmarks: the calling thread's time
// per `a.add_(b)` on 1-element cuda tensors, with the clock paused around the synchronization
// that drains each batch.
#pragma once

#include <benchmark/benchmark.h>

#include <ctorch/ctorch.h>

namespace ctorch_bench {

/// Launches between synchronizations.
inline constexpr int kLaunchBatch = 256;

/// Times kLaunchBatch tiny `add_` launches per iteration on cuda:0; items = launches.
inline void time_tiny_launches(benchmark::State& s) {
  const auto on_cuda = ctorch::TensorOptions().device("cuda:0");
  ctorch::Tensor a = ctorch::ones({1}, on_cuda), b = ctorch::ones({1}, on_cuda);
  ctorch::cuda::synchronize();
  for (auto _ : s) {
    for (int i = 0; i < kLaunchBatch; ++i) a.add_(b);
    s.PauseTiming();
    ctorch::cuda::synchronize();
    s.ResumeTiming();
  }
  s.SetItemsProcessed(s.iterations() * kLaunchBatch);
}

}  // namespace ctorch_bench
