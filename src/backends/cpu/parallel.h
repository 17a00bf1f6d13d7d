// The cpu backend's intra-op thread pool: parallel_for over index ranges.
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>

namespace ctorch::inline api::backends::cpu {

/// Runs task(i) for i in [0, n_tasks) on the pool (the caller takes part); serial when nested.
void run_tasks(int64_t n_tasks, const std::function<void(int64_t)>& task);
/// Threads in use (ctorch::get_num_threads()).
int num_threads();
/// True on a pool worker (nested parallel regions run serially).
bool in_parallel_region();

/// Calls f(begin_i, end_i) over chunks of at least `grain` elements covering [begin, end).
template <class F>
void parallel_for(int64_t begin, int64_t end, int64_t grain, const F& f) {
  const int64_t n = end - begin;
  if (n <= 0) return;
  const int threads = num_threads();
  if (n <= grain || threads <= 1 || in_parallel_region()) {
    f(begin, end);
    return;
  }
  const int64_t tasks = std::min<int64_t>(threads, (n + grain - 1) / grain);
  const int64_t chunk = (n + tasks - 1) / tasks;
  run_tasks(tasks, [&](int64_t t) {
    const int64_t b = begin + t * chunk;
    const int64_t e = std::min(end, b + chunk);
    if (b < e) f(b, e);
  });
}

}  // namespace ctorch::api::backends::cpu
