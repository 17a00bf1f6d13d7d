// What the emulated CUDA devices cost: kernel enqueue on the calling thread, tiny-kernel
// throughput on one stream, host<->device copy bandwidth from pinned and pageable memory against
// memcpy, and the overhead of an op on an emulated device over the same op on the cpu.
// Usage: ctorch_emulated_bench [--benchmark_filter=...]
#include <benchmark/benchmark.h>

#include <cstring>
#include <iostream>
#include <map>
#include <string>
#include <vector>

#include <ctorch/ctorch.h>
#include <ctorch/emulation.h>

#include "tiny_launch.h"

namespace {

using ctorch::Device;
using ctorch::Tensor;
using ctorch::TensorOptions;

constexpr int64_t kCopyBytes = int64_t{64} << 20;  // large copies: 64 MiB
constexpr int kBatch = ctorch_bench::kLaunchBatch;  // ops enqueued between synchronizations

const Device kCuda("cuda:0");

// Enqueue cost: the calling thread's time per `a.add_(b)` on 1-element tensors, measured with
// the clock paused around the synchronization that drains each batch.
void enqueue_tiny_kernel(benchmark::State& s) { ctorch_bench::time_tiny_launches(s); }

// Throughput: the same ops including the time the stream worker needs to run them.
void tiny_kernel_throughput(benchmark::State& s) {
  Tensor a = ctorch::ones({1}, TensorOptions().device(kCuda)), b = ctorch::ones({1}, TensorOptions().device(kCuda));
  ctorch::cuda::synchronize();
  for (auto _ : s) {
    for (int i = 0; i < kBatch; ++i) a.add_(b);
    ctorch::cuda::synchronize();
  }
  s.SetItemsProcessed(s.iterations() * kBatch);
}

// One synchronous op end to end (`c = a + b`, then wait), on the emulated device and on the cpu.
void op_roundtrip(benchmark::State& s, Device device) {
  Tensor a = ctorch::ones({1}, TensorOptions().device(device)), b = ctorch::ones({1}, TensorOptions().device(device));
  for (auto _ : s) {
    Tensor c = a + b;
    if (device.is_cuda()) ctorch::cuda::synchronize();
    benchmark::DoNotOptimize(c);
  }
}
void op_roundtrip_cuda(benchmark::State& s) { op_roundtrip(s, kCuda); }
void op_roundtrip_cpu(benchmark::State& s) { op_roundtrip(s, Device("cpu")); }

// The reference: memcpy between two warm cpu tensors' buffers (huge pages) of the copy size.
void host_memcpy(benchmark::State& s) {
  Tensor src = ctorch::ones({kCopyBytes}, ctorch::kByte), dst = ctorch::zeros({kCopyBytes}, ctorch::kByte);
  for (auto _ : s) {
    std::memcpy(dst.data_ptr(), src.data_ptr(), kCopyBytes);
    benchmark::DoNotOptimize(dst.data_ptr());
  }
  s.SetBytesProcessed(s.iterations() * kCopyBytes);
}

// Host to device and back, from pinned (non_blocking, then synchronize) or pageable memory.
void copy(benchmark::State& s, bool to_device, bool pinned) {
  TensorOptions host_options = TensorOptions().dtype(ctorch::kByte).pinned_memory(pinned);
  Tensor host = ctorch::ones({kCopyBytes}, host_options);
  Tensor dev = ctorch::ones({kCopyBytes}, TensorOptions().dtype(ctorch::kByte).device(kCuda));
  ctorch::cuda::synchronize();
  for (auto _ : s) {
    if (to_device) {
      dev.copy_(host, /*non_blocking=*/pinned);
    } else {
      host.copy_(dev, /*non_blocking=*/pinned);
    }
    ctorch::cuda::synchronize();
  }
  s.SetBytesProcessed(s.iterations() * kCopyBytes);
}
void h2d_pinned(benchmark::State& s) { copy(s, true, true); }
void h2d_pageable(benchmark::State& s) { copy(s, true, false); }
void d2h_pinned(benchmark::State& s) { copy(s, false, true); }
void d2h_pageable(benchmark::State& s) { copy(s, false, false); }

class Collector : public benchmark::ConsoleReporter {
 public:
  void ReportRuns(const std::vector<Run>& runs) override {
    ConsoleReporter::ReportRuns(runs);
    for (const Run& r : runs) {
      if (r.run_type != Run::RT_Iteration && r.aggregate_name != "median") continue;
      std::string name = r.run_name.str();
      if (auto at = name.find("/real_time"); at != std::string::npos) name.erase(at);
      time_ns[name] = r.GetAdjustedRealTime();
      if (r.counters.count("bytes_per_second")) bw[name] = r.counters.at("bytes_per_second");
      if (r.counters.count("items_per_second")) items[name] = r.counters.at("items_per_second");
    }
  }
  std::map<std::string, double> time_ns, bw, items;
};

}  // namespace

int main(int argc, char** argv) {
  if (!ctorch::cuda::is_emulated()) ctorch::cuda::emulate(1);
  auto reg = [](const char* name, void (*f)(benchmark::State&)) {
    return benchmark::RegisterBenchmark(name, f)->Unit(benchmark::kNanosecond);
  };
  reg("enqueue_tiny_kernel", enqueue_tiny_kernel);
  reg("tiny_kernel_throughput", tiny_kernel_throughput)->UseRealTime();
  reg("op_roundtrip/cuda", op_roundtrip_cuda)->UseRealTime();
  reg("op_roundtrip/cpu", op_roundtrip_cpu)->UseRealTime();
  reg("copy/memcpy", host_memcpy)->UseRealTime()->Unit(benchmark::kMicrosecond);
  reg("copy/h2d_pinned", h2d_pinned)->UseRealTime()->Unit(benchmark::kMicrosecond);
  reg("copy/h2d_pageable", h2d_pageable)->UseRealTime()->Unit(benchmark::kMicrosecond);
  reg("copy/d2h_pinned", d2h_pinned)->UseRealTime()->Unit(benchmark::kMicrosecond);
  reg("copy/d2h_pageable", d2h_pageable)->UseRealTime()->Unit(benchmark::kMicrosecond);
  benchmark::Initialize(&argc, argv);
  Collector c;
  benchmark::RunSpecifiedBenchmarks(&c);

  std::cout << "\nemulated device: " << ctorch::cuda::get_device_name(0) << "\n";
  if (c.items.count("enqueue_tiny_kernel")) {
    std::printf("enqueue per tiny kernel (calling thread): %8.1f ns   (goal < 1000 ns)\n",
                1e9 / c.items["enqueue_tiny_kernel"]);
  }
  if (c.items.count("tiny_kernel_throughput")) {
    std::printf("tiny kernels on one stream:              %8.2f M/s\n", c.items["tiny_kernel_throughput"] / 1e6);
  }
  if (c.time_ns.count("op_roundtrip/cuda") && c.time_ns.count("op_roundtrip/cpu")) {
    std::printf("c = a + b, then synchronize: emulated %.0f ns, cpu %.0f ns (overhead %.0f ns)\n",
                c.time_ns["op_roundtrip/cuda"], c.time_ns["op_roundtrip/cpu"],
                c.time_ns["op_roundtrip/cuda"] - c.time_ns["op_roundtrip/cpu"]);
  }
  const double memcpy_bw = c.bw.count("copy/memcpy") ? c.bw["copy/memcpy"] : 0;
  for (const char* name : {"copy/h2d_pinned", "copy/h2d_pageable", "copy/d2h_pinned", "copy/d2h_pageable"}) {
    if (!c.bw.count(name) || memcpy_bw == 0) continue;
    std::printf("%-18s %6.1f GB/s = %5.1f%% of memcpy (%.1f GB/s)\n", name, c.bw[name] / 1e9,
                100.0 * c.bw[name] / memcpy_bw, memcpy_bw / 1e9);
  }
  return 0;
}
