// Convolutional workloads, ctorch vs libtorch in one run, each library at its default thread
// settings (as a user runs it): conv2d forward at MNIST shapes (3x3 and 5x5 kernels, the first
// and second layers), conv2d forward + backward, one SGD step of a small conv net (two 3x3
// convolutions with ReLU, a linear layer, cross entropy, batch 64 of 1x28x28), dropout and max_pool2d forward
// + backward, avg_pool2d 2x2 with adaptive_avg_pool2d to 3x3 forward + backward, BatchNorm2d
// forward + backward in training, and one SGD step of PyTorch's MNIST example's Net (without its
// dropouts). With CTORCH_EMULATED_CUDA=1 the conv net step, the pooling and batch norm cases and the
// MNIST Net step also run on an emulated GPU (ctorch only). A table of time ratios (libtorch / ctorch; above 1 means ctorch is faster) closes the run.
// Usage: ctorch_conv_bench [--benchmark_filter=...] [--benchmark_repetitions=N]
#include <benchmark/benchmark.h>

#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include <ctorch/ctorch.h>

#include "ratio_reporter.h"

#ifdef CTORCH_BENCH_LIBTORCH
#include <torch/torch.h>
#endif

namespace {

/// One conv2d shape: input [N, C, H, W], weight [OC, C, K, K].
struct ConvShape {
  const char* name;
  int64_t n, c, h, oc, k;
};

const ConvShape kShapes[] = {
    {"conv3x3_1to32_28", 64, 1, 28, 32, 3},
    {"conv3x3_32to64_26", 64, 32, 26, 64, 3},
    {"conv5x5_1to10_28", 64, 1, 28, 10, 5},
    {"conv5x5_10to20_12", 64, 10, 12, 20, 5},
};

// ---- ctorch ---------------------------------------------------------------------------------
void ct_forward(benchmark::State& s, ConvShape c) {
  using namespace ctorch;
  manual_seed(0);
  const Tensor x = rand({c.n, c.c, c.h, c.h}), w = rand({c.oc, c.c, c.k, c.k}), b = rand({c.oc});
  for (auto _ : s) benchmark::DoNotOptimize(conv2d(x, w, b).data_ptr());
}

void ct_forward_backward(benchmark::State& s, ConvShape c) {
  using namespace ctorch;
  manual_seed(0);
  const Tensor x = rand({c.n, c.c, c.h, c.h}).requires_grad_(), w = rand({c.oc, c.c, c.k, c.k}).requires_grad_();
  const Tensor b = rand({c.oc}).requires_grad_();
  for (auto _ : s) {
    conv2d(x, w, b).sum().backward();
    x.mutable_grad() = Tensor();
    w.mutable_grad() = Tensor();
    b.mutable_grad() = Tensor();
  }
}

void ct_convnet_step_on(benchmark::State& s, ctorch::Device device) {
  using namespace ctorch;
  manual_seed(0);
  nn::Conv2d conv1(1, 32, 3), conv2(32, 64, 3);
  nn::Linear fc(64 * 24 * 24, 10);
  std::vector<Tensor> params;
  for (auto* m : std::initializer_list<nn::Module*>{&conv1, &conv2, &fc}) {
    m->to(device);
    for (const Tensor& p : m->parameters()) params.push_back(p);
  }
  optim::SGD opt(params, optim::SGDOptions(0.01).momentum(0.5));
  const Tensor x = rand({64, 1, 28, 28}).to(device);
  const Tensor target = randint(0, 10, {64}).to(device);
  for (auto _ : s) {
    opt.zero_grad();
    const Tensor h = conv2(conv1(x).relu()).relu().flatten(1);
    nn::functional::cross_entropy(fc(h), target).backward();
    opt.step();
    if (device.is_cuda()) ctorch::cuda::synchronize();  // time the work, not the launches
  }
}

void ct_max_pool_forward_backward(benchmark::State& s, ctorch::Device device) {
  using namespace ctorch;
  manual_seed(0);
  const Tensor x = rand({64, 32, 26, 26}).to(device).requires_grad_();
  for (auto _ : s) {
    max_pool2d(x, {2}).sum().backward();
    x.mutable_grad() = Tensor();
    if (device.is_cuda()) ctorch::cuda::synchronize();  // time the work, not the launches
  }
}

// Dropout (p = 0.5, training) forward + backward at the max-pool case's size.
void ct_dropout_forward_backward(benchmark::State& s) {
  using namespace ctorch;
  manual_seed(0);
  const Tensor x = rand({64, 32, 26, 26}).requires_grad_();
  for (auto _ : s) {
    nn::functional::dropout(x, 0.5, true).sum().backward();
    x.mutable_grad() = Tensor();
  }
}

// avg_pool2d 2x2 and a global adaptive average, forward + backward, at the max-pool case's size.
void ct_avg_pool_forward_backward(benchmark::State& s, ctorch::Device device) {
  using namespace ctorch;
  manual_seed(0);
  const Tensor x = rand({64, 32, 26, 26}).to(device).requires_grad_();
  for (auto _ : s) {
    (avg_pool2d(x, {2}).sum() + adaptive_avg_pool2d(x, {3, 3}).sum()).backward();
    x.mutable_grad() = Tensor();
    if (device.is_cuda()) ctorch::cuda::synchronize();  // time the work, not the launches
  }
}

// BatchNorm2d in training at a DCGAN generator's size: forward (batch statistics, running update)
// and backward to the input, weight and bias.
void ct_batch_norm_forward_backward(benchmark::State& s, ctorch::Device device) {
  using namespace ctorch;
  manual_seed(0);
  nn::BatchNorm2d bn(64);
  bn.to(device);
  const Tensor x = randn({64, 64, 14, 14}).to(device).requires_grad_();
  for (auto _ : s) {
    bn.forward(x).sum().backward();
    x.mutable_grad() = Tensor();
    if (device.is_cuda()) ctorch::cuda::synchronize();  // time the work, not the launches
  }
}

// PyTorch's MNIST example's Net without its dropouts: conv 5x5, max_pool 2, relu, conv 5x5, max_pool 2,
// relu, linear 320 -> 50, relu, linear 50 -> 10, log_softmax, nll_loss; SGD with momentum.
void ct_mnist_net_step(benchmark::State& s, ctorch::Device device) {
  using namespace ctorch;
  manual_seed(0);
  nn::Conv2d conv1(1, 10, 5), conv2(10, 20, 5);
  nn::Linear fc1(320, 50), fc2(50, 10);
  std::vector<Tensor> params;
  for (auto* m : std::initializer_list<nn::Module*>{&conv1, &conv2, &fc1, &fc2}) {
    m->to(device);
    for (const Tensor& p : m->parameters()) params.push_back(p);
  }
  optim::SGD opt(params, optim::SGDOptions(0.01).momentum(0.5));
  const Tensor x = rand({64, 1, 28, 28}).to(device);
  const Tensor target = randint(0, 10, {64}).to(device);
  for (auto _ : s) {
    opt.zero_grad();
    Tensor h = max_pool2d(conv1(x), {2}).relu();
    h = max_pool2d(conv2(h), {2}).relu().view({-1, 320});
    h = fc2(fc1(h).relu()).log_softmax(1);
    nn::functional::nll_loss(h, target).backward();
    opt.step();
    if (device.is_cuda()) ctorch::cuda::synchronize();  // time the work, not the launches
  }
}

#ifdef CTORCH_BENCH_LIBTORCH
// ---- libtorch -------------------------------------------------------------------------------
void lt_forward(benchmark::State& s, ConvShape c) {
  torch::manual_seed(0);
  torch::NoGradGuard no_grad;
  const torch::Tensor x = torch::rand({c.n, c.c, c.h, c.h}), w = torch::rand({c.oc, c.c, c.k, c.k});
  const torch::Tensor b = torch::rand({c.oc});
  for (auto _ : s) benchmark::DoNotOptimize(torch::conv2d(x, w, b).data_ptr());
}

void lt_forward_backward(benchmark::State& s, ConvShape c) {
  torch::manual_seed(0);
  const torch::Tensor x = torch::rand({c.n, c.c, c.h, c.h}).requires_grad_();
  const torch::Tensor w = torch::rand({c.oc, c.c, c.k, c.k}).requires_grad_(), b = torch::rand({c.oc}).requires_grad_();
  for (auto _ : s) {
    torch::conv2d(x, w, b).sum().backward();
    x.mutable_grad().reset();
    w.mutable_grad().reset();
    b.mutable_grad().reset();
  }
}

void lt_convnet_step(benchmark::State& s) {
  torch::manual_seed(0);
  torch::nn::Conv2d conv1(1, 32, 3), conv2(32, 64, 3);
  torch::nn::Linear fc(64 * 24 * 24, 10);
  std::vector<torch::Tensor> params;
  for (const auto& p : conv1->parameters()) params.push_back(p);
  for (const auto& p : conv2->parameters()) params.push_back(p);
  for (const auto& p : fc->parameters()) params.push_back(p);
  torch::optim::SGD opt(params, torch::optim::SGDOptions(0.01).momentum(0.5));
  const torch::Tensor x = torch::rand({64, 1, 28, 28});
  const torch::Tensor target = torch::randint(0, 10, {64});
  for (auto _ : s) {
    opt.zero_grad();
    const torch::Tensor h = conv2(conv1(x).relu()).relu().flatten(1);
    torch::nn::functional::cross_entropy(fc(h), target).backward();
    opt.step();
  }
}

void lt_max_pool_forward_backward(benchmark::State& s) {
  torch::manual_seed(0);
  const torch::Tensor x = torch::rand({64, 32, 26, 26}).requires_grad_();
  for (auto _ : s) {
    torch::max_pool2d(x, {2}).sum().backward();
    x.mutable_grad().reset();
  }
}

void lt_dropout_forward_backward(benchmark::State& s) {
  torch::manual_seed(0);
  const torch::Tensor x = torch::rand({64, 32, 26, 26}).requires_grad_();
  for (auto _ : s) {
    torch::dropout(x, 0.5, true).sum().backward();
    x.mutable_grad().reset();
  }
}

void lt_avg_pool_forward_backward(benchmark::State& s) {
  torch::manual_seed(0);
  const torch::Tensor x = torch::rand({64, 32, 26, 26}).requires_grad_();
  for (auto _ : s) {
    (torch::avg_pool2d(x, {2}).sum() + torch::adaptive_avg_pool2d(x, {3, 3}).sum()).backward();
    x.mutable_grad().reset();
  }
}

void lt_batch_norm_forward_backward(benchmark::State& s) {
  torch::manual_seed(0);
  torch::nn::BatchNorm2d bn(64);
  const torch::Tensor x = torch::randn({64, 64, 14, 14}).requires_grad_();
  for (auto _ : s) {
    bn->forward(x).sum().backward();
    x.mutable_grad().reset();
  }
}

void lt_mnist_net_step(benchmark::State& s) {
  torch::manual_seed(0);
  torch::nn::Conv2d conv1(1, 10, 5), conv2(10, 20, 5);
  torch::nn::Linear fc1(320, 50), fc2(50, 10);
  std::vector<torch::Tensor> params;
  for (const auto& p : conv1->parameters()) params.push_back(p);
  for (const auto& p : conv2->parameters()) params.push_back(p);
  for (const auto& p : fc1->parameters()) params.push_back(p);
  for (const auto& p : fc2->parameters()) params.push_back(p);
  torch::optim::SGD opt(params, torch::optim::SGDOptions(0.01).momentum(0.5));
  const torch::Tensor x = torch::rand({64, 1, 28, 28});
  const torch::Tensor target = torch::randint(0, 10, {64});
  for (auto _ : s) {
    opt.zero_grad();
    torch::Tensor h = torch::max_pool2d(conv1(x), {2}).relu();
    h = torch::max_pool2d(conv2(h), {2}).relu().view({-1, 320});
    h = fc2(fc1(h).relu()).log_softmax(1);
    torch::nll_loss(h, target).backward();
    opt.step();
  }
}
#endif

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> workloads;
  auto add = [&](const std::string& name, auto ct, auto lt) {
    workloads.push_back(name);
    benchmark::RegisterBenchmark(("ctorch/" + name).c_str(), ct)->Unit(benchmark::kMicrosecond)->UseRealTime();
#ifdef CTORCH_BENCH_LIBTORCH
    benchmark::RegisterBenchmark(("libtorch/" + name).c_str(), lt)->Unit(benchmark::kMicrosecond)->UseRealTime();
#else
    (void)lt;
#endif
  };
#ifdef CTORCH_BENCH_LIBTORCH
#define CTORCH_LT_(f) f
#define CTORCH_LT_SHAPE_(f, c) [c](benchmark::State& s) { f(s, c); }
#else
#define CTORCH_LT_(f) nullptr
#define CTORCH_LT_SHAPE_(f, c) nullptr
#endif
  for (const ConvShape& c : kShapes) {
    add(std::string("fwd_") + c.name, [c](benchmark::State& s) { ct_forward(s, c); },
        CTORCH_LT_SHAPE_(lt_forward, c));
    add(std::string("fwd_bwd_") + c.name, [c](benchmark::State& s) { ct_forward_backward(s, c); },
        CTORCH_LT_SHAPE_(lt_forward_backward, c));
  }
  using DeviceBench = void (*)(benchmark::State&, ctorch::Device);
  const auto on = [](DeviceBench f, ctorch::Device d) { return [f, d](benchmark::State& s) { f(s, d); }; };
  const ctorch::Device cpu(ctorch::DeviceType::CPU);
  add("convnet_sgd_step", on(ct_convnet_step_on, cpu), CTORCH_LT_(lt_convnet_step));
  add("max_pool2d_fwd_bwd_32x26", on(ct_max_pool_forward_backward, cpu), CTORCH_LT_(lt_max_pool_forward_backward));
  add("avg_pool2d_fwd_bwd_32x26", on(ct_avg_pool_forward_backward, cpu), CTORCH_LT_(lt_avg_pool_forward_backward));
  add("dropout_fwd_bwd_32x26", ct_dropout_forward_backward, CTORCH_LT_(lt_dropout_forward_backward));
  add("batch_norm2d_fwd_bwd_64x14", on(ct_batch_norm_forward_backward, cpu),
      CTORCH_LT_(lt_batch_norm_forward_backward));
  add("mnist_net_sgd_step", on(ct_mnist_net_step, cpu), CTORCH_LT_(lt_mnist_net_step));
  if (ctorch::cuda::is_available()) {  // CTORCH_EMULATED_CUDA=1: the same work on an emulated GPU
    const ctorch::Device gpu(ctorch::DeviceType::CUDA, 0);
    const std::pair<const char*, DeviceBench> on_gpu[] = {
        {"convnet_sgd_step_on_cuda0", ct_convnet_step_on},
        {"max_pool2d_fwd_bwd_32x26_on_cuda0", ct_max_pool_forward_backward},
        {"avg_pool2d_fwd_bwd_32x26_on_cuda0", ct_avg_pool_forward_backward},
        {"batch_norm2d_fwd_bwd_64x14_on_cuda0", ct_batch_norm_forward_backward},
        {"mnist_net_sgd_step_on_cuda0", ct_mnist_net_step},
    };
    for (const auto& [name, f] : on_gpu) {
      workloads.push_back(name);
      benchmark::RegisterBenchmark((std::string("ctorch/") + name).c_str(), on(f, gpu))
          ->Unit(benchmark::kMicrosecond)
          ->UseRealTime();
    }
  }
  benchmark::Initialize(&argc, argv);
  ctorch_bench::RatioReporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
#ifdef CTORCH_BENCH_LIBTORCH
  std::printf("\nthreads: ctorch %d, libtorch %d (each library's default)\n", ctorch::get_num_threads(),
              torch::get_num_threads());
#endif
  std::printf("%-28s %14s %14s %10s\n", "workload", "ctorch", "libtorch", "speedup");
  for (const std::string& name : workloads) {
    auto ct = reporter.times_.find("ctorch/" + name);
    auto lt = reporter.times_.find("libtorch/" + name);
    if (ct == reporter.times_.end()) continue;
    if (lt == reporter.times_.end()) {
      std::printf("%-28s %11.1f us %14s %10s\n", name.c_str(), ct->second, "-", "-");
    } else {
      std::printf("%-28s %11.1f us %11.1f us %9.2fx\n", name.c_str(), ct->second, lt->second, lt->second / ct->second);
    }
  }
  return 0;
}
