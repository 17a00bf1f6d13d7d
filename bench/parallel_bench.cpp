// Several devices: torch.cuda.comm bandwidth between emulated devices next to memcpy of the same
// bytes, and the cost DataParallel adds to an MLP 784-256-256-10 batch-256 SGD step (the replicate
// alone, and the whole step on 1, 2 and 4 devices). Emulated devices share this machine's cores, so
// the step on N devices measures overhead, not speed-up.
// Sizes are MiB. Run: ctorch_parallel_bench --benchmark_repetitions=3 --benchmark_report_aggregates_only=true
#include <benchmark/benchmark.h>

#include <cstring>
#include <vector>

#include "ctorch/ctorch.h"

using namespace ctorch;

namespace {


void ensure_devices(int n) {
  if (!cuda::is_emulated() || cuda::device_count() < n) cuda::emulate(4);
}

Device dev(int i) { return Device(DeviceType::CUDA, static_cast<DeviceIndex>(i)); }

void BM_Memcpy(benchmark::State& state) {
  const int64_t kBytes = state.range(0) << 20, kFloats = kBytes / 4;  // MiB of float32
  std::vector<char> src(kBytes, 1), dst(kBytes);
  for (auto _ : state) {
    std::memcpy(dst.data(), src.data(), kBytes);
    benchmark::DoNotOptimize(dst.data());
  }
  state.SetBytesProcessed(state.iterations() * kBytes);
}
BENCHMARK(BM_Memcpy)->Arg(4)->Arg(16)->Arg(64)->UseRealTime();

void BM_Broadcast(benchmark::State& state) {
  const int64_t kBytes = state.range(0) << 20, kFloats = kBytes / 4;  // MiB of float32
  ensure_devices(2);
  const Tensor src = ones({kFloats}, TensorOptions().device(dev(0)));
  for (auto _ : state) {
    auto out = cuda::comm::broadcast(src, {0, 1});
    cuda::synchronize(1);
  }
  state.SetBytesProcessed(state.iterations() * kBytes);  // bytes moved to the one other device
}
BENCHMARK(BM_Broadcast)->Arg(4)->Arg(16)->Arg(64)->UseRealTime();

void BM_Scatter(benchmark::State& state) {
  const int64_t kBytes = state.range(0) << 20, kFloats = kBytes / 4;  // MiB of float32
  ensure_devices(2);
  const Tensor src = ones({kFloats}, TensorOptions().device(dev(0)));
  for (auto _ : state) {
    auto out = cuda::comm::scatter(src, {1, 0});  // the first half moves, the second is a view
    cuda::synchronize(1);
  }
  state.SetBytesProcessed(state.iterations() * kBytes / 2);
}
BENCHMARK(BM_Scatter)->Arg(4)->Arg(16)->Arg(64)->UseRealTime();

void BM_Gather(benchmark::State& state) {
  const int64_t kBytes = state.range(0) << 20, kFloats = kBytes / 4;  // MiB of float32
  ensure_devices(2);
  const std::vector<Tensor> parts = {ones({kFloats / 2}, TensorOptions().device(dev(0))),
                                     ones({kFloats / 2}, TensorOptions().device(dev(1)))};
  for (auto _ : state) {
    Tensor out = cuda::comm::gather(parts, 0, dev(0));
    cuda::synchronize(0);
  }
  state.SetBytesProcessed(state.iterations() * kBytes);  // both halves are copied into the result
}
BENCHMARK(BM_Gather)->Arg(4)->Arg(16)->Arg(64)->UseRealTime();

std::shared_ptr<nn::Sequential> make_mlp() {
  return std::make_shared<nn::Sequential>(std::initializer_list<std::shared_ptr<nn::UnaryModule>>{
      std::make_shared<nn::Linear>(784, 256), std::make_shared<nn::ReLU>(), std::make_shared<nn::Linear>(256, 256),
      std::make_shared<nn::ReLU>(), std::make_shared<nn::Linear>(256, 10)});
}

void BM_Replicate(benchmark::State& state) {
  ensure_devices(4);
  const int n = static_cast<int>(state.range(0));
  manual_seed(0);
  auto net = make_mlp();
  net->to(dev(0));
  std::vector<cuda::DeviceArg> ids;
  for (int i = 0; i < n; ++i) ids.emplace_back(i);
  for (auto _ : state) {
    auto replicas = nn::parallel::replicate(net, ids);
    for (int i = 0; i < n; ++i) cuda::synchronize(i);
  }
}
BENCHMARK(BM_Replicate)->Arg(2)->Arg(4)->UseRealTime()->Unit(benchmark::kMicrosecond);

void BM_MlpStep(benchmark::State& state) {
  ensure_devices(4);
  const int n = static_cast<int>(state.range(0));
  manual_seed(0);
  auto net = make_mlp();
  net->to(dev(0));
  std::shared_ptr<nn::UnaryModule> model = net;
  if (n > 1) {
    std::vector<cuda::DeviceArg> ids;
    for (int i = 0; i < n; ++i) ids.emplace_back(i);
    model = std::make_shared<nn::DataParallel>(net, ids);
  }
  optim::SGD opt(net->parameters(), optim::SGDOptions(0.01).momentum(0.9));
  const Tensor x = randn({256, 784}).to(dev(0));
  const Tensor y = randint(0, 10, {256}).to(dev(0));
  for (auto _ : state) {
    opt.zero_grad();
    const Tensor loss = nn::functional::cross_entropy(model->forward(x), y);
    loss.backward();
    opt.step();
    for (int i = 0; i < n; ++i) cuda::synchronize(i);
  }
}
BENCHMARK(BM_MlpStep)->Arg(1)->Arg(2)->Arg(4)->UseRealTime()->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
