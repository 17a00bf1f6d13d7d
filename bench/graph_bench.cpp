// CUDA graphs on an emulated device: an MLP 784-256-256-10 forward plus a cross-entropy loss
// (log_softmax against a one-hot target: ctorch's nll_loss makes a pageable host-to-device copy,
// refused during capture; batch 32, no autograd) run eagerly against the same step captured once and replayed. Reported: the
// calling thread's time per step (the drain between batches is not timed). On emulated devices
// the kernels run on the host either way, so the win is host overhead only (docs/cuda_graphs.md).
// Usage: ctorch_graph_bench [--benchmark_filter=...]
#include <benchmark/benchmark.h>

#include <cstdio>
#include <map>
#include <string>

#include <ctorch/ctorch.h>

namespace {

using ctorch::Tensor;

constexpr int kBatch = 32;
constexpr int kStepsPerBatch = 16;

struct Mlp {
  Tensor w1, b1, w2, b2, w3, b3, x, onehot;
  Mlp() {
    const auto on = ctorch::TensorOptions().device("cuda:0");
    w1 = ctorch::randn({256, 784}, on) * 0.03;
    b1 = ctorch::zeros({256}, on);
    w2 = ctorch::randn({256, 256}, on) * 0.06;
    b2 = ctorch::zeros({256}, on);
    w3 = ctorch::randn({10, 256}, on) * 0.06;
    b3 = ctorch::zeros({10}, on);
    x = ctorch::randn({kBatch, 784}, on);
    onehot = ctorch::zeros({kBatch, 10}, on);
    onehot.select(1, 3).fill_(1.0);
  }
  Tensor step() const {
    namespace F = ctorch::nn::functional;
    Tensor h = F::linear(x, w1, b1).relu();
    h = F::linear(h, w2, b2).relu();
    return (F::log_softmax(F::linear(h, w3, b3), 1) * onehot).sum().neg() / kBatch;
  }
};

template <class Step>
void time_steps(benchmark::State& s, Step&& step) {
  ctorch::cuda::synchronize();
  for (auto _ : s) {
    for (int i = 0; i < kStepsPerBatch; ++i) step();
    s.PauseTiming();
    ctorch::cuda::synchronize();
    s.ResumeTiming();
  }
  s.SetItemsProcessed(s.iterations() * kStepsPerBatch);
}

void eager(benchmark::State& s) {
  ctorch::NoGradGuard no_grad;
  Mlp m;
  Tensor loss;
  time_steps(s, [&] { loss = m.step(); });
}

void replay(benchmark::State& s) {
  ctorch::NoGradGuard no_grad;
  Mlp m;
  Tensor loss;
  {  // warm-up on a side stream, as PyTorch's docs ask
    ctorch::cuda::Stream side;
    side.wait_stream(ctorch::cuda::current_stream());
    auto block = ctorch::cuda::stream(side);
    for (int i = 0; i < 3; ++i) loss = m.step();
    ctorch::cuda::current_stream().wait_stream(side);
  }
  ctorch::cuda::CUDAGraph g;
  {
    ctorch::cuda::graph scope(g);
    loss = m.step();
  }
  time_steps(s, [&] { g.replay(); });
}

class Collector : public benchmark::ConsoleReporter {
 public:
  void ReportRuns(const std::vector<Run>& runs) override {
    ConsoleReporter::ReportRuns(runs);
    for (const Run& r : runs) {
      if (r.run_type != Run::RT_Iteration && r.aggregate_name != "median") continue;
      if (r.counters.count("items_per_second")) ns[r.run_name.function_name] = 1e9 / r.counters.at("items_per_second");
    }
  }
  std::map<std::string, double> ns;
};

}  // namespace

int main(int argc, char** argv) {
  if (!ctorch::cuda::is_emulated()) ctorch::cuda::emulate(1);
  // Fixed iterations: only the calling thread is timed, so a time budget would let the cheap replays
  // queue (and the untimed drains run) for minutes.
  benchmark::RegisterBenchmark("mlp_step/eager", eager)->Unit(benchmark::kMicrosecond)->Iterations(300);
  benchmark::RegisterBenchmark("mlp_step/graph_replay", replay)->Unit(benchmark::kMicrosecond)->Iterations(300);
  benchmark::Initialize(&argc, argv);
  Collector c;
  benchmark::RunSpecifiedBenchmarks(&c);
  if (c.ns.count("mlp_step/eager") && c.ns.count("mlp_step/graph_replay")) {
    const double e = c.ns["mlp_step/eager"], r = c.ns["mlp_step/graph_replay"];
    std::printf("\ncalling thread per MLP step: eager %.1f us, replay %.1f us: %.1fx less (goal >= 5x)\n", e / 1e3,
                r / 1e3, e / r);
  }
}
