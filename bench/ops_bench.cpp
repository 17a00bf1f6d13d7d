// ctorch vs libtorch on the same operations, in one run. Each ctorch benchmark is registered
// next to its libtorch twin, and a table of time ratios (libtorch / ctorch) closes the run.
// Usage: ctorch_bench [--benchmark_filter=...] [--benchmark_min_time=...]
#include <benchmark/benchmark.h>

#include <cstring>
#include <iostream>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include <ctorch/ctorch.h>

#include "ratio_reporter.h"

#ifdef CTORCH_BENCH_LIBTORCH
#include <torch/torch.h>
#endif

namespace {

constexpr int64_t kBig = 16 * 1024 * 1024;  // 16M floats = 64 MiB per tensor

// ---- ctorch -------------------------------------------------------------------------------
void ct_add_small(benchmark::State& s) {
  auto a = ctorch::ones({1}), b = ctorch::ones({1});
  for (auto _ : s) benchmark::DoNotOptimize(a + b);
}
void ct_add_inplace_small(benchmark::State& s) {
  auto a = ctorch::ones({1}), b = ctorch::ones({1});
  for (auto _ : s) a.add_(b);
}
void ct_empty_small(benchmark::State& s) {
  for (auto _ : s) benchmark::DoNotOptimize(ctorch::empty({1}));
}
void ct_view_small(benchmark::State& s) {
  auto a = ctorch::ones({4});
  for (auto _ : s) benchmark::DoNotOptimize(a.view({2, 2}));
}
void ct_sum_small(benchmark::State& s) {
  auto a = ctorch::ones({1});
  for (auto _ : s) benchmark::DoNotOptimize(a.sum());
}
void ct_add_big(benchmark::State& s) {
  auto a = ctorch::ones({kBig}), b = ctorch::ones({kBig});
  for (auto _ : s) benchmark::DoNotOptimize(a + b);
  s.SetBytesProcessed(s.iterations() * kBig * 4 * 3);
}
void ct_add_big_inplace(benchmark::State& s) {
  auto a = ctorch::ones({kBig}), b = ctorch::ones({kBig});
  for (auto _ : s) a.add_(b);
  s.SetBytesProcessed(s.iterations() * kBig * 4 * 3);
}
void ct_add_big_out(benchmark::State& s) {
  auto a = ctorch::ones({kBig}), b = ctorch::ones({kBig}), out = ctorch::empty({kBig});
  for (auto _ : s) ctorch::add_out(out, a, b);
  s.SetBytesProcessed(s.iterations() * kBig * 4 * 3);
}
void ct_sum_big(benchmark::State& s) {
  auto a = ctorch::ones({kBig});
  for (auto _ : s) benchmark::DoNotOptimize(a.sum());
  s.SetBytesProcessed(s.iterations() * kBig * 4);
}
void ct_matmul(benchmark::State& s) {
  const int64_t n = s.range(0);
  auto a = ctorch::rand({n, n}), b = ctorch::rand({n, n});
  for (auto _ : s) benchmark::DoNotOptimize(a.matmul(b));
  s.counters["GFLOP/s"] = benchmark::Counter(2.0 * n * n * n, benchmark::Counter::kIsIterationInvariantRate);
}

// The machine's memory bandwidth: STREAM triad a = b + 3 c over 16M floats on all threads, in
// memory from the same allocator as the tensors (huge pages), so only the loop differs.
void stream_triad(benchmark::State& s) {
  auto ta = ctorch::empty({kBig}), tb = ctorch::full({kBig}, 1.0), tc = ctorch::full({kBig}, 2.0);
  float *a = ta.data_ptr<float>(), *b = tb.data_ptr<float>(), *c = tc.data_ptr<float>();
  const int threads = ctorch::get_num_threads();
  for (auto _ : s) {
    std::vector<std::thread> pool;
    for (int t = 0; t < threads; ++t) {
      pool.emplace_back([&, t] {
        const int64_t lo = kBig * t / threads, hi = kBig * (t + 1) / threads;
        for (int64_t i = lo; i < hi; ++i) a[i] = b[i] + 3.0f * c[i];
      });
    }
    for (auto& th : pool) th.join();
    benchmark::DoNotOptimize(a);
  }
  s.SetBytesProcessed(s.iterations() * kBig * 4 * 3);
}

#ifdef CTORCH_BENCH_LIBTORCH
// ---- libtorch -----------------------------------------------------------------------------
void lt_add_small(benchmark::State& s) {
  auto a = torch::ones({1}), b = torch::ones({1});
  for (auto _ : s) benchmark::DoNotOptimize(a + b);
}
void lt_add_inplace_small(benchmark::State& s) {
  auto a = torch::ones({1}), b = torch::ones({1});
  for (auto _ : s) a.add_(b);
}
void lt_empty_small(benchmark::State& s) {
  for (auto _ : s) benchmark::DoNotOptimize(torch::empty({1}));
}
void lt_view_small(benchmark::State& s) {
  auto a = torch::ones({4});
  for (auto _ : s) benchmark::DoNotOptimize(a.view({2, 2}));
}
void lt_sum_small(benchmark::State& s) {
  auto a = torch::ones({1});
  for (auto _ : s) benchmark::DoNotOptimize(a.sum());
}
void lt_add_big(benchmark::State& s) {
  auto a = torch::ones({kBig}), b = torch::ones({kBig});
  for (auto _ : s) benchmark::DoNotOptimize(a + b);
  s.SetBytesProcessed(s.iterations() * kBig * 4 * 3);
}
void lt_add_big_inplace(benchmark::State& s) {
  auto a = torch::ones({kBig}), b = torch::ones({kBig});
  for (auto _ : s) a.add_(b);
  s.SetBytesProcessed(s.iterations() * kBig * 4 * 3);
}
void lt_add_big_out(benchmark::State& s) {
  auto a = torch::ones({kBig}), b = torch::ones({kBig}), out = torch::empty({kBig});
  for (auto _ : s) torch::add_out(out, a, b);
  s.SetBytesProcessed(s.iterations() * kBig * 4 * 3);
}
void lt_sum_big(benchmark::State& s) {
  auto a = torch::ones({kBig});
  for (auto _ : s) benchmark::DoNotOptimize(a.sum());
  s.SetBytesProcessed(s.iterations() * kBig * 4);
}
void lt_matmul(benchmark::State& s) {
  const int64_t n = s.range(0);
  auto a = torch::rand({n, n}), b = torch::rand({n, n});
  for (auto _ : s) benchmark::DoNotOptimize(a.matmul(b));
  s.counters["GFLOP/s"] = benchmark::Counter(2.0 * n * n * n, benchmark::Counter::kIsIterationInvariantRate);
}
#endif

// Pairs in registration order: ctorch first, then libtorch.
struct Pair {
  const char* name;
  void (*ct)(benchmark::State&);
#ifdef CTORCH_BENCH_LIBTORCH
  void (*lt)(benchmark::State&);
#endif
  int64_t arg;
};

#ifdef CTORCH_BENCH_LIBTORCH
#define CTORCH_PAIR_(name, arg) Pair{#name, ct_##name, lt_##name, arg}
#else
#define CTORCH_PAIR_(name, arg) Pair{#name, ct_##name, arg}
#endif

const Pair kPairs[] = {
    CTORCH_PAIR_(add_small, -1),       CTORCH_PAIR_(add_inplace_small, -1), CTORCH_PAIR_(empty_small, -1),
    CTORCH_PAIR_(view_small, -1),      CTORCH_PAIR_(sum_small, -1),         CTORCH_PAIR_(add_big, -1),
    CTORCH_PAIR_(add_big_inplace, -1), CTORCH_PAIR_(add_big_out, -1),       CTORCH_PAIR_(sum_big, -1),
    CTORCH_PAIR_(matmul, 256),         CTORCH_PAIR_(matmul, 1024),          CTORCH_PAIR_(matmul, 2048),
};


}  // namespace

int main(int argc, char** argv) {
  for (const Pair& p : kPairs) {
    std::string suffix = p.arg > 0 ? "/" + std::to_string(p.arg) : "";
    auto* b = benchmark::RegisterBenchmark(("ctorch/" + std::string(p.name)).c_str(), p.ct);
    if (p.arg > 0) b->Arg(p.arg);
    b->Unit(benchmark::kMicrosecond)->UseRealTime();
#ifdef CTORCH_BENCH_LIBTORCH
    auto* l = benchmark::RegisterBenchmark(("libtorch/" + std::string(p.name)).c_str(), p.lt);
    if (p.arg > 0) l->Arg(p.arg);
    l->Unit(benchmark::kMicrosecond)->UseRealTime();
#endif
  }
  benchmark::RegisterBenchmark("machine/stream_triad", stream_triad)->Unit(benchmark::kMicrosecond)->UseRealTime();
  benchmark::Initialize(&argc, argv);
#ifdef CTORCH_BENCH_LIBTORCH
  torch::set_num_threads(ctorch::get_num_threads());
#endif
  ctorch_bench::RatioReporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);

  std::cout << "\nthreads: " << ctorch::get_num_threads() << "\n";
  std::printf("%-22s %14s %14s %10s\n", "operation", "ctorch", "libtorch", "speedup");
  for (const Pair& p : kPairs) {
    std::string suffix = p.arg > 0 ? "/" + std::to_string(p.arg) : "";
    auto ct = reporter.times_.find("ctorch/" + std::string(p.name) + suffix);
    auto lt = reporter.times_.find("libtorch/" + std::string(p.name) + suffix);
    if (ct == reporter.times_.end()) continue;
    if (lt == reporter.times_.end()) {
      std::printf("%-22s %11.3f us %14s %10s\n", (p.name + suffix).c_str(), ct->second, "-", "-");
    } else {
      std::printf("%-22s %11.3f us %11.3f us %9.2fx\n", (p.name + suffix).c_str(), ct->second, lt->second,
                  lt->second / ct->second);
    }
  }
  auto triad = reporter.bw_.find("machine/stream_triad");
  if (triad != reporter.bw_.end()) std::printf("STREAM triad: %.1f GB/s\n", triad->second / 1e9);
  for (const char* name : {"ctorch/add_big", "ctorch/add_big_inplace", "ctorch/add_big_out", "ctorch/sum_big"}) {
    auto it = reporter.bw_.find(name);
    if (it != reporter.bw_.end()) std::printf("%-24s %.1f GB/s\n", name, it->second / 1e9);
  }
  return 0;
}
