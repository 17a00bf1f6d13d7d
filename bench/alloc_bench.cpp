// The device caching allocator on an emulated device (src/memory/caching_allocator.h):
// - Replay/<trace>: every allocation trace in the trace directory (libtorch training runs, format
//   in its README) replayed through the allocator. The first replay starts from an empty cache
//   and reports peak_reserved/peak_allocated and the raw allocator calls it needed; the timed
//   loop replays the trace again and again (warm cache), ns_per_op = wall time per alloc or free.
//   Replay/ uses the device's allocator (PYTORCH_CUDA_ALLOC_CONF applies; by default PyTorch's
//   native fixed-segment policy); ReplayExpandable/ an allocator of its own on the same device with
//   expandable_segments:True (pages mapped into reserved ranges, Note [Expandable segments]).
//   bound_2MiB_pages is the lowest reserved/allocated any allocator can reach at the driver's
//   2 MiB mapping granularity (peak rounded up to whole pages).
// Each benchmark runs 5 repetitions; read the _median rows.
// - CacheHit: malloc+free of one 4 KiB block on one stream (always served from the cache).
// - Churn: threads on their own streams allocating and freeing random sizes (1 KiB..4 MiB) with
//   64 live blocks each, all on one device allocator.
// Trace directory: --trace_dir=DIR, else $CTORCH_ALLOC_TRACES, else the compiled-in default.
// Usage: ctorch_alloc_bench [--trace_dir=DIR] [--benchmark_filter=...]
#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include <ctorch/ctorch.h>
#include <ctorch/emulation.h>

#include "memory/device_allocator.h"
#include "runtime/current.h"
#include "runtime/device_runtime.h"

#ifndef CTORCH_ALLOC_TRACE_DIR
#define CTORCH_ALLOC_TRACE_DIR "../shared/data/alloc_traces"
#endif

namespace {

using ctorch::memory::Block;
using ctorch::memory::CachingAllocator;

std::vector<ctorch::Stream> streams;  // one per churn thread, created in main

struct Op {
  bool alloc;
  uint32_t id;
  size_t size;
};

struct Trace {
  std::string name;
  std::vector<Op> ops;
  uint32_t ids = 0;
};

Trace load_trace(const std::filesystem::path& path) {
  Trace t;
  t.name = path.stem().string();
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);  // header op,id,size
  while (std::getline(in, line)) {
    if (line.size() < 5) continue;
    Op op;
    op.alloc = line[0] == 'a';
    const size_t c1 = line.find(',', 2);
    op.id = static_cast<uint32_t>(std::stoul(line.substr(2, c1 - 2)));
    op.size = std::stoull(line.substr(c1 + 1));
    t.ids = std::max(t.ids, op.id + 1);
    t.ops.push_back(op);
  }
  return t;
}

CachingAllocator& device_allocator() { return ctorch::memory::cuda_caching_allocator(0); }

// An allocator with expandable segments over the same emulated device (created in main).
std::unique_ptr<ctorch::memory::RawBackend> expandable_backend;
std::unique_ptr<CachingAllocator> expandable_allocator;

ctorch::Stream main_stream() { return ctorch::impl::current_stream(ctorch::Device(ctorch::DeviceType::CUDA, 0)); }

void replay(CachingAllocator& a, const Trace& t, std::vector<Block*>& live, ctorch::Stream s) {
  for (const Op& op : t.ops) {
    if (op.alloc) {
      live[op.id] = a.malloc(op.size, s);
    } else {
      a.free(live[op.id]);
      live[op.id] = nullptr;
    }
  }
}

void bm_replay(benchmark::State& state, const Trace& t, CachingAllocator& a) {
  const ctorch::Stream s = main_stream();
  std::vector<Block*> live(t.ids, nullptr);
  // Cold replay from an empty cache: memory efficiency and raw calls.
  a.empty_cache();
  a.reset_peak_stats();
  a.reset_accumulated_stats();
  replay(a, t, live, s);
  const auto st = a.stats();
  const auto all = static_cast<size_t>(ctorch::memory::StatType::kAggregate);
  const double peak_reserved = static_cast<double>(st.reserved_bytes[all].peak);
  const double peak_allocated = static_cast<double>(st.allocated_bytes[all].peak);
  const auto raw_calls = static_cast<double>(st.num_device_alloc + st.num_device_free);
  const auto t0 = std::chrono::steady_clock::now();
  for (auto _ : state) replay(a, t, live, s);  // warm cache
  const double ns = std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - t0).count();
  state.counters["ns_per_op"] = ns / (static_cast<double>(state.iterations()) * static_cast<double>(t.ops.size()));
  state.counters["ops"] = static_cast<double>(t.ops.size());
  state.counters["reserved_over_allocated"] = peak_reserved / peak_allocated;
  // The best any allocator can do when device memory is mapped in 2 MiB units (the CUDA driver's
  // granularity): the peak rounded up to whole 2 MiB pages, over the peak.
  const double page = 2.0 * (1 << 20);
  state.counters["bound_2MiB_pages"] = std::ceil(peak_allocated / page) * page / peak_allocated;
  state.counters["peak_allocated_MiB"] = peak_allocated / (1 << 20);
  state.counters["raw_calls_cold"] = raw_calls;
  const auto after = a.stats();
  state.counters["raw_calls_warm"] =
      static_cast<double>(after.num_device_alloc + after.num_device_free) - raw_calls;
  a.empty_cache();
}

void bm_cache_hit(benchmark::State& state) {
  CachingAllocator& a = device_allocator();
  const ctorch::Stream s = main_stream();
  a.free(a.malloc(4096, s));
  for (auto _ : state) {
    Block* b = a.malloc(4096, s);
    benchmark::DoNotOptimize(b);
    a.free(b);
  }
  state.SetItemsProcessed(state.iterations());
}

void bm_churn(benchmark::State& state) {
  CachingAllocator& a = device_allocator();
  std::mt19937_64 rng(static_cast<uint64_t>(state.thread_index()) * 7919 + 1);
  std::vector<Block*> live(64, nullptr);
  for (auto _ : state) {
    const ctorch::Stream s = streams[static_cast<size_t>(state.thread_index()) % streams.size()];
    for (int i = 0; i < 256; ++i) {
      Block*& slot = live[rng() % live.size()];
      if (slot) {
        a.free(slot);
        slot = nullptr;
      } else {
        const size_t size = size_t{1024} << (rng() % 13);  // 1 KiB .. 4 MiB
        slot = a.malloc(size + rng() % 1024, s);
      }
    }
  }
  for (Block* b : live) {
    if (b) a.free(b);
  }
  state.SetItemsProcessed(state.iterations() * 256);
}

std::string trace_dir(int* argc, char** argv) {
  std::string dir = CTORCH_ALLOC_TRACE_DIR;
  if (const char* env = std::getenv("CTORCH_ALLOC_TRACES")) dir = env;
  int out = 1;
  for (int i = 1; i < *argc; ++i) {
    if (std::strncmp(argv[i], "--trace_dir=", 12) == 0) {
      dir = argv[i] + 12;
    } else {
      argv[out++] = argv[i];
    }
  }
  *argc = out;
  return dir;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string dir = trace_dir(&argc, argv);
  ctorch::cuda::emulate(1);  // one 8 GiB emulated device
  ctorch::cuda::init();
  ctorch::impl::DeviceRuntime& rt = ctorch::impl::require_runtime(ctorch::DeviceType::CUDA);
  for (int i = 0; i < 4; ++i) streams.push_back(rt.create_stream(0, 0));
  expandable_backend = ctorch::memory::make_runtime_backend(&rt, 0);
  expandable_allocator = std::make_unique<CachingAllocator>(
      0, expandable_backend.get(), ctorch::memory::parse_allocator_config("expandable_segments:True"));
  std::vector<std::filesystem::path> files;
  if (std::filesystem::is_directory(dir)) {
    for (const auto& e : std::filesystem::directory_iterator(dir)) {
      if (e.path().extension() == ".csv") files.push_back(e.path());
    }
  }
  std::sort(files.begin(), files.end());
  if (files.empty()) std::cerr << "alloc_bench: no traces (*.csv) in '" << dir << "'\n";
  static std::vector<Trace> traces;
  traces.reserve(files.size());
  for (const auto& f : files) traces.push_back(load_trace(f));
  for (const Trace& t : traces) {
    benchmark::RegisterBenchmark(("Replay/" + t.name).c_str(),
                                 [&t](benchmark::State& s) { bm_replay(s, t, device_allocator()); })
        ->Unit(benchmark::kMicrosecond)
        ->Repetitions(5)
        ->ReportAggregatesOnly(true);
    benchmark::RegisterBenchmark(("ReplayExpandable/" + t.name).c_str(),
                                 [&t](benchmark::State& s) { bm_replay(s, t, *expandable_allocator); })
        ->Unit(benchmark::kMicrosecond)
        ->Repetitions(5)
        ->ReportAggregatesOnly(true);
  }
  benchmark::RegisterBenchmark("CacheHit", bm_cache_hit)->Repetitions(5)->ReportAggregatesOnly(true);
  benchmark::RegisterBenchmark("Churn", bm_churn)->ThreadRange(1, 4)->UseRealTime()->Repetitions(5)->ReportAggregatesOnly(true);
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  expandable_allocator.reset();
  return 0;
}
