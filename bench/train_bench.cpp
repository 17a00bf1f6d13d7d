// Training workloads, ctorch vs libtorch in one run: the recorded add, 1,000 full-batch SGD steps
// of the seed's 1 -> 1 linear regression, and one SGD step of an MLP 784-256-256-10 at batch 64.
// A table of time ratios (libtorch / ctorch) closes the run.
// Usage: ctorch_train_bench [--benchmark_filter=...] [--benchmark_repetitions=N]
#include <benchmark/benchmark.h>

#include <cstdio>
#include <map>
#include <string>

#include <ctorch/ctorch.h>

#include "ratio_reporter.h"

#ifdef CTORCH_BENCH_LIBTORCH
#include <torch/torch.h>
#endif

namespace {

constexpr int kRegressionSteps = 1000;
constexpr int64_t kRegressionPoints = 100;

// ---- ctorch ---------------------------------------------------------------------------------
void ct_recorded_add(benchmark::State& s) {
  auto a = ctorch::ones({1}).requires_grad_(), b = ctorch::ones({1}).requires_grad_();
  for (auto _ : s) benchmark::DoNotOptimize(a + b);
}

void ct_linear_regression(benchmark::State& s) {
  using namespace ctorch;
  manual_seed(0);
  const Tensor x = linspace(-1, 1, kRegressionPoints).unsqueeze(1);
  const Tensor y = x * 2 + 1;
  for (auto _ : s) {
    nn::Linear model(1, 1);
    optim::SGD opt(model.parameters(), optim::SGDOptions(0.1));
    for (int i = 0; i < kRegressionSteps; ++i) {
      opt.zero_grad();
      nn::functional::mse_loss(model(x), y).backward();
      opt.step();
    }
    benchmark::DoNotOptimize(model.weight.data_ptr());
  }
}

void ct_mlp_step(benchmark::State& s) {
  using namespace ctorch;
  manual_seed(0);
  auto net = std::make_shared<nn::Sequential>(std::initializer_list<std::shared_ptr<nn::UnaryModule>>{
      std::make_shared<nn::Linear>(784, 256), std::make_shared<nn::ReLU>(), std::make_shared<nn::Linear>(256, 256),
      std::make_shared<nn::ReLU>(), std::make_shared<nn::Linear>(256, 10)});
  optim::SGD opt(net->parameters(), optim::SGDOptions(0.01));
  const Tensor x = rand({64, 784});
  const Tensor target = randint(0, 10, {64});
  for (auto _ : s) {
    opt.zero_grad();
    nn::functional::cross_entropy((*net)(x), target).backward();
    opt.step();
  }
}

#ifdef CTORCH_BENCH_LIBTORCH
// ---- libtorch -------------------------------------------------------------------------------
void lt_recorded_add(benchmark::State& s) {
  auto a = torch::ones({1}).requires_grad_(), b = torch::ones({1}).requires_grad_();
  for (auto _ : s) benchmark::DoNotOptimize(a + b);
}

void lt_linear_regression(benchmark::State& s) {
  torch::manual_seed(0);
  const torch::Tensor x = torch::linspace(-1, 1, kRegressionPoints).unsqueeze(1);
  const torch::Tensor y = x * 2 + 1;
  for (auto _ : s) {
    torch::nn::Linear model(1, 1);
    torch::optim::SGD opt(model->parameters(), torch::optim::SGDOptions(0.1));
    for (int i = 0; i < kRegressionSteps; ++i) {
      opt.zero_grad();
      torch::nn::functional::mse_loss(model(x), y).backward();
      opt.step();
    }
    benchmark::DoNotOptimize(model->weight.data_ptr());
  }
}

void lt_mlp_step(benchmark::State& s) {
  torch::manual_seed(0);
  torch::nn::Sequential net(torch::nn::Linear(784, 256), torch::nn::ReLU(), torch::nn::Linear(256, 256),
                            torch::nn::ReLU(), torch::nn::Linear(256, 10));
  torch::optim::SGD opt(net->parameters(), torch::optim::SGDOptions(0.01));
  const torch::Tensor x = torch::rand({64, 784});
  const torch::Tensor target = torch::randint(0, 10, {64});
  for (auto _ : s) {
    opt.zero_grad();
    torch::nn::functional::cross_entropy(net->forward(x), target).backward();
    opt.step();
  }
}
#endif

struct Pair {
  const char* name;
  void (*ct)(benchmark::State&);
  void (*lt)(benchmark::State&);
};

#ifdef CTORCH_BENCH_LIBTORCH
#define CTORCH_PAIR_(name) Pair{#name, ct_##name, lt_##name}
#else
#define CTORCH_PAIR_(name) Pair{#name, ct_##name, nullptr}
#endif

const Pair kPairs[] = {CTORCH_PAIR_(recorded_add), CTORCH_PAIR_(linear_regression), CTORCH_PAIR_(mlp_step)};


}  // namespace

int main(int argc, char** argv) {
  for (const Pair& p : kPairs) {
    benchmark::RegisterBenchmark(("ctorch/" + std::string(p.name)).c_str(), p.ct)
        ->Unit(benchmark::kMicrosecond)
        ->UseRealTime();
    if (p.lt != nullptr) {
      benchmark::RegisterBenchmark(("libtorch/" + std::string(p.name)).c_str(), p.lt)
          ->Unit(benchmark::kMicrosecond)
          ->UseRealTime();
    }
  }
  benchmark::Initialize(&argc, argv);
#ifdef CTORCH_BENCH_LIBTORCH
  torch::set_num_threads(ctorch::get_num_threads());
#endif
  ctorch_bench::RatioReporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  std::printf("\nthreads: %d\n%-20s %14s %14s %10s\n", ctorch::get_num_threads(), "workload", "ctorch", "libtorch",
              "speedup");
  for (const Pair& p : kPairs) {
    auto ct = reporter.times_.find("ctorch/" + std::string(p.name));
    auto lt = reporter.times_.find("libtorch/" + std::string(p.name));
    if (ct == reporter.times_.end()) continue;
    if (lt == reporter.times_.end()) {
      std::printf("%-20s %11.3f us %14s %10s\n", p.name, ct->second, "-", "-");
    } else {
      std::printf("%-20s %11.3f us %11.3f us %9.2fx\n", p.name, ct->second, lt->second, lt->second / ct->second);
    }
  }
  return 0;
}
