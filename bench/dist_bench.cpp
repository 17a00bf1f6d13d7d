// torch.distributed on loopback: all_reduce (SUM, float32) of 1 MB .. 64 MB between 2 ranks that are
// threads of this process (Gloo over TCP on 127.0.0.1), next to a memcpy of the same size.
// Bandwidth is the tensor's size over the time of one call (PyTorch's "algbw").
// Usage: ctorch_dist_bench [--benchmark_filter=...]
#include <benchmark/benchmark.h>

#include <cstring>
#include <filesystem>
#include <memory>
#include <thread>
#include <unistd.h>
#include <vector>

#include <ctorch/ctorch.h>

namespace {

namespace dist = ctorch::distributed;

std::vector<std::shared_ptr<dist::ProcessGroup>> g_groups;  // rank r's group, made in main

void make_groups() {
  auto master = std::make_shared<dist::TCPStore>("127.0.0.1", 0, 2, true, std::chrono::seconds(30), false);
  g_groups.resize(2);
  std::thread peer([&] {
    auto store = std::make_shared<dist::TCPStore>("127.0.0.1", master->port(), 2, false, std::chrono::seconds(30));
    g_groups[1] = dist::new_gloo_group(store, 1, 2, std::chrono::seconds(60), "bench");
  });
  g_groups[0] = dist::new_gloo_group(master, 0, 2, std::chrono::seconds(60), "bench");
  peer.join();
}

// Both threads run the same number of iterations: each is a rank issuing the same collectives.
void all_reduce(benchmark::State& s) {
  const int64_t bytes = s.range(0);
  const auto& pg = g_groups[static_cast<size_t>(s.thread_index())];
  ctorch::Tensor t = ctorch::ones({bytes / 4});
  pg->barrier()->wait();
  for (auto _ : s) pg->all_reduce(t)->wait();
  if (s.thread_index() == 0) s.SetBytesProcessed(s.iterations() * bytes);
}
BENCHMARK(all_reduce)->RangeMultiplier(4)->Range(1 << 20, 64 << 20)->Threads(2)->UseRealTime();

void memcpy_same_size(benchmark::State& s) {
  const auto bytes = static_cast<size_t>(s.range(0));
  std::vector<char> a(bytes, 1), b(bytes);
  for (auto _ : s) {
    std::memcpy(b.data(), a.data(), bytes);
    benchmark::ClobberMemory();
  }
  s.SetBytesProcessed(s.iterations() * static_cast<int64_t>(bytes));
}
BENCHMARK(memcpy_same_size)->RangeMultiplier(4)->Range(1 << 20, 64 << 20)->UseRealTime();

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  make_groups();
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  g_groups.clear();
  return 0;
}
