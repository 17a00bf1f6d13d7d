// Streams, events and the stream sanitizer on an emulated device: event record + query, the
// cost of entering and leaving a stream block, and the sanitizer's overhead per kernel launch
// (the calling thread's time per `a.add_(b)` on 1-element tensors, with and without it).
// Usage: ctorch_stream_bench [--benchmark_filter=...]
#include <benchmark/benchmark.h>

#include <cstdio>
#include <map>
#include <string>

#include <ctorch/ctorch.h>
#include <ctorch/cuda_event.h>
#include <ctorch/cuda_sanitizer.h>
#include <ctorch/cuda_stream.h>
#include <ctorch/emulation.h>

#include "tiny_launch.h"

namespace {

using ctorch::Tensor;
using ctorch::TensorOptions;


// Event.record() then Event.query() on an idle stream.
void event_record_query(benchmark::State& s) {
  ctorch::cuda::Event e;
  ctorch::cuda::synchronize();
  for (auto _ : s) {
    e.record();
    benchmark::DoNotOptimize(e.query());
  }
}

// Entering and leaving `with torch.cuda.stream(side):`.
void stream_switch(benchmark::State& s) {
  const ctorch::cuda::Stream side;
  for (auto _ : s) {
    ctorch::cuda::StreamContext block(side);
    benchmark::ClobberMemory();
  }
}

// The calling thread's time per tiny kernel launch; the drain between batches is not timed.
void launch(benchmark::State& s, bool sanitized) {
  if (sanitized) ctorch::cuda::enable_cuda_sanitizer();
  ctorch_bench::time_tiny_launches(s);
  ctorch::cuda::disable_cuda_sanitizer();
}
void launch_plain(benchmark::State& s) { launch(s, false); }
void launch_sanitized(benchmark::State& s) { launch(s, true); }

class Collector : public benchmark::ConsoleReporter {
 public:
  void ReportRuns(const std::vector<Run>& runs) override {
    ConsoleReporter::ReportRuns(runs);
    for (const Run& r : runs) {
      if (r.run_type != Run::RT_Iteration && r.aggregate_name != "median") continue;
      const std::string name = r.run_name.str();
      ns[name] = r.counters.count("items_per_second") ? 1e9 / r.counters.at("items_per_second")
                                                      : r.GetAdjustedCPUTime();
    }
  }
  std::map<std::string, double> ns;
};

}  // namespace

int main(int argc, char** argv) {
  if (!ctorch::cuda::is_emulated()) ctorch::cuda::emulate(1);
  auto reg = [](const char* name, void (*f)(benchmark::State&)) {
    return benchmark::RegisterBenchmark(name, f)->Unit(benchmark::kNanosecond);
  };
  reg("event_record_query", event_record_query);
  reg("stream_switch", stream_switch);
  reg("launch/plain", launch_plain);
  reg("launch/sanitized", launch_sanitized);
  benchmark::Initialize(&argc, argv);
  Collector c;
  benchmark::RunSpecifiedBenchmarks(&c);
  std::printf("\nevent record + query: %.0f ns\nstream block enter + leave: %.0f ns\n", c.ns["event_record_query"],
              c.ns["stream_switch"]);
  if (c.ns.count("launch/plain") && c.ns.count("launch/sanitized")) {
    std::printf("launch: %.0f ns plain, %.0f ns with the sanitizer: %.2fx (goal < 2x)\n", c.ns["launch/plain"],
                c.ns["launch/sanitized"], c.ns["launch/sanitized"] / c.ns["launch/plain"]);
  }
}
