// memory_summary on a device, memory_snapshot, the allocation history and its JSON form, on a
// fresh emulated device (statistics start at zero).
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "ctorch/cuda_memory.h"
#include "ctorch/cuda_memory_snapshot.h"
#include "ctorch/emulation.h"
#include "ctorch/torch.h"
#include "device/stream_test_util.h"
#include "runtime/current.h"
#include "runtime/device_runtime.h"

namespace ctorch {
namespace {

constexpr size_t kMiB = 1024 * 1024;

// One fresh emulated device of 64 MiB per test; history off again afterwards.
class MemoryHistory : public ::testing::Test {
 protected:
  void SetUp() override {
    if (cuda::device_count() > 0 && !cuda::is_emulated()) GTEST_SKIP() << "a real CUDA runtime is in use";
    cuda::EmulationConfig c;
    c.devices = 1;
    c.memory = 64 * kMiB;
    cuda::emulate(c);
  }
  void TearDown() override {
    if (!cuda::is_emulated()) return;
    cuda::memory::record_memory_history(std::nullopt, std::nullopt, "all", SIZE_MAX, /*clear_history=*/true);
    cuda::emulate(2);
  }
};

// Rendered by PyTorch's memory_summary code (Python) from the statistics this sequence must give:
// a 4000-byte block (small pool, 2 MiB segment), a 3 MiB + 4 byte block (large pool, 20 MiB
// segment split), the small block freed, empty_cache (the small segment goes back).
const char* const kSequenceSummary = R"(|===========================================================================|
|                  PyTorch CUDA memory summary, device ID 0                 |
|---------------------------------------------------------------------------|
|            CUDA OOMs: 0            |        cudaMalloc retries: 0         |
|===========================================================================|
|        Metric         | Cur Usage  | Peak Usage | Tot Alloc  | Tot Freed  |
|---------------------------------------------------------------------------|
| Allocated memory      |   3072 KiB |   3076 KiB |   3076 KiB |   4096 B   |
|       from large pool |   3072 KiB |   3072 KiB |   3072 KiB |      0 B   |
|       from small pool |      0 KiB |      4 KiB |      4 KiB |   4096 B   |
|---------------------------------------------------------------------------|
| Active memory         |   3072 KiB |   3076 KiB |   3076 KiB |   4096 B   |
|       from large pool |   3072 KiB |   3072 KiB |   3072 KiB |      0 B   |
|       from small pool |      0 KiB |      4 KiB |      4 KiB |   4096 B   |
|---------------------------------------------------------------------------|
| Requested memory      |   3072 KiB |   3075 KiB |   3075 KiB |   4000 B   |
|       from large pool |   3072 KiB |   3072 KiB |   3072 KiB |      0 B   |
|       from small pool |      0 KiB |      3 KiB |      3 KiB |   4000 B   |
|---------------------------------------------------------------------------|
| GPU reserved memory   |  20480 KiB |  22528 KiB |  22528 KiB |   2048 KiB |
|       from large pool |  20480 KiB |  20480 KiB |  20480 KiB |      0 KiB |
|       from small pool |      0 KiB |   2048 KiB |   2048 KiB |   2048 KiB |
|---------------------------------------------------------------------------|
| Non-releasable memory |  17407 KiB |  19451 KiB |  19451 KiB |   2044 KiB |
|       from large pool |  17407 KiB |  17407 KiB |  17407 KiB |      0 KiB |
|       from small pool |      0 KiB |   2044 KiB |   2044 KiB |   2044 KiB |
|---------------------------------------------------------------------------|
| Allocations           |       1    |       2    |       2    |       1    |
|       from large pool |       1    |       1    |       1    |       0    |
|       from small pool |       0    |       1    |       1    |       1    |
|---------------------------------------------------------------------------|
| Active allocs         |       1    |       2    |       2    |       1    |
|       from large pool |       1    |       1    |       1    |       0    |
|       from small pool |       0    |       1    |       1    |       1    |
|---------------------------------------------------------------------------|
| GPU reserved segments |       1    |       2    |       2    |       1    |
|       from large pool |       1    |       1    |       1    |       0    |
|       from small pool |       0    |       1    |       1    |       1    |
|---------------------------------------------------------------------------|
| Non-releasable allocs |       1    |       2    |       2    |       1    |
|       from large pool |       1    |       1    |       1    |       0    |
|       from small pool |       0    |       1    |       1    |       1    |
|---------------------------------------------------------------------------|
| Oversize allocations  |       0    |       0    |       0    |       0    |
|---------------------------------------------------------------------------|
| Oversize GPU segments |       0    |       0    |       0    |       0    |
|===========================================================================|
)";

TEST_F(MemoryHistory, SummaryOfAKnownSequenceMatchesPyTorch) {
  void* small = cuda::caching_allocator_alloc(4000, 0);
  void* large = cuda::caching_allocator_alloc(3 * kMiB + 4, 0);
  cuda::caching_allocator_delete(small);
  cuda::empty_cache();
  EXPECT_EQ(cuda::memory_summary(0), kSequenceSummary);
  const std::string abbreviated = cuda::memory_summary(0, true);
  EXPECT_EQ(abbreviated.find("from large pool"), std::string::npos);
  EXPECT_NE(abbreviated.find("| Allocated memory      |   3072 KiB |   3076 KiB |   3076 KiB |   4096 B   |"),
            std::string::npos)
      << abbreviated;
  cuda::caching_allocator_delete(large);
}

TEST_F(MemoryHistory, SnapshotListsSegmentsAndBlocks) {
  void* small = cuda::caching_allocator_alloc(4000, 0);
  void* large = cuda::caching_allocator_alloc(3 * kMiB + 4, 0);
  const auto segs = cuda::memory_snapshot();
  ASSERT_EQ(segs.size(), 2u);
  EXPECT_LT(segs[0].address, segs[1].address);
  const cuda::SegmentInfo& s = segs[0].is_large ? segs[1] : segs[0];
  const cuda::SegmentInfo& l = segs[0].is_large ? segs[0] : segs[1];
  EXPECT_FALSE(s.is_large);
  EXPECT_EQ(s.total_size, 2 * kMiB);
  EXPECT_EQ(s.allocated_size, 4096u);
  EXPECT_EQ(s.requested_size, 4000u);
  EXPECT_EQ(s.stream, impl::current_stream(Device(DeviceType::CUDA, 0)).id());
  ASSERT_EQ(s.blocks.size(), 2u);
  EXPECT_EQ(s.blocks[0].address, reinterpret_cast<uintptr_t>(small));
  EXPECT_EQ(s.blocks[0].state, cuda::BlockState::kActiveAllocated);
  EXPECT_EQ(s.blocks[1].state, cuda::BlockState::kInactive);
  EXPECT_EQ(s.blocks[1].size, 2 * kMiB - 4096);
  EXPECT_EQ(l.total_size, 20 * kMiB);
  EXPECT_EQ(l.blocks[0].size, 3 * kMiB + 512);
  EXPECT_EQ(l.blocks[0].requested_size, 3 * kMiB + 4);
  EXPECT_EQ(l.address, reinterpret_cast<uintptr_t>(large));
  EXPECT_TRUE(l.blocks[0].frames.empty());  // no history: no frames
  cuda::caching_allocator_delete(small);
  cuda::caching_allocator_delete(large);
  for (const auto& seg : cuda::memory_snapshot()) {
    EXPECT_EQ(seg.allocated_size, 0u);
    for (const auto& b : seg.blocks) EXPECT_EQ(b.state, cuda::BlockState::kInactive);
  }
}

TEST_F(MemoryHistory, PendingFreeWhileAnotherStreamStillUsesTheBlock) {
  impl::DeviceRuntime& rt = impl::require_runtime(DeviceType::CUDA);
  const Stream side = rt.create_stream(0, 0);
  testing::Gate gate;
  gate.block(side);
  {
    Tensor t = empty({256}, TensorOptions().device(Device(DeviceType::CUDA, 0)));
    t.record_stream(side);
  }
  auto state_of_first_block = [] {
    const auto segs = cuda::memory_snapshot();
    return segs.empty() ? cuda::BlockState::kInactive : segs[0].blocks[0].state;
  };
  EXPECT_EQ(state_of_first_block(), cuda::BlockState::kActivePendingFree);
  EXPECT_EQ(cuda::memory_snapshot()[0].active_size, 1024u);
  gate.open();
  rt.synchronize_stream(side);
  void* p = cuda::caching_allocator_alloc(512, 0);  // malloc polls the events first
  EXPECT_EQ(cuda::memory_snapshot()[0].active_size, 512u);
  cuda::caching_allocator_delete(p);
  EXPECT_EQ(state_of_first_block(), cuda::BlockState::kInactive);
}

std::vector<std::string> actions(const std::vector<cuda::TraceEntry>& trace) {
  std::vector<std::string> out;
  for (const auto& e : trace) out.emplace_back(cuda::trace_action_name(e.action));
  return out;
}

bool has_frame_containing(const std::vector<cuda::Frame>& frames, const std::string& text) {
  for (const auto& f : frames) {
    if (f.name.find(text) != std::string::npos) return true;
  }
  return false;
}

TEST_F(MemoryHistory, TraceRecordsEveryActionWithFrames) {
  cuda::memory::record_memory_history("all");
  const Stream stream = impl::current_stream(Device(DeviceType::CUDA, 0));
  void* p = cuda::caching_allocator_alloc(1000, 0);
  cuda::caching_allocator_delete(p);
  cuda::empty_cache();
  const cuda::MemorySnapshot snap = cuda::memory::snapshot();
  ASSERT_EQ(snap.device_traces.size(), 1u);
  const auto& trace = snap.device_traces[0];
  EXPECT_EQ(actions(trace), (std::vector<std::string>{"segment_alloc", "alloc", "free_requested", "free_completed",
                                                      "segment_free", "snapshot"}));
  ASSERT_EQ(trace.size(), 6u);
  EXPECT_EQ(trace[1].addr, reinterpret_cast<uintptr_t>(p));
  EXPECT_EQ(trace[1].size, 1000u);
  EXPECT_EQ(trace[1].stream, stream.id());
  EXPECT_EQ(trace[0].size, 2 * kMiB);
  EXPECT_EQ(trace[0].addr, reinterpret_cast<uintptr_t>(p));
  EXPECT_EQ(trace[2].size, 1000u);
  EXPECT_EQ(trace[4].size, 2 * kMiB);
  EXPECT_LE(trace[0].time_us, trace[5].time_us);
  EXPECT_GT(trace[0].time_us, 1600000000LL * 1000000);  // microseconds since the epoch
  // Frames of the allocation name the API that allocated (libctorch exports its symbols).
  EXPECT_TRUE(has_frame_containing(trace[1].frames, "caching_allocator_alloc")) << trace[1].frames.size();
  EXPECT_TRUE(has_frame_containing(trace[2].frames, "caching_allocator_delete"));
  EXPECT_TRUE(trace[4].frames.empty());
  EXPECT_TRUE(snap.segments.empty());
}

TEST_F(MemoryHistory, LiveBlocksKeepTheirAllocationFrames) {
  cuda::memory::record_memory_history("state");
  void* p = cuda::caching_allocator_alloc(1000, 0);
  const cuda::MemorySnapshot snap = cuda::memory::snapshot();
  EXPECT_TRUE(snap.device_traces[0].empty());  // "state": no trace
  ASSERT_EQ(snap.segments.size(), 1u);
  EXPECT_TRUE(has_frame_containing(snap.segments[0].blocks[0].frames, "caching_allocator_alloc"));
  EXPECT_TRUE(snap.segments[0].blocks[1].frames.empty());  // the free rest
  cuda::memory::record_memory_history(std::nullopt);
  EXPECT_TRUE(cuda::memory_snapshot()[0].blocks[0].frames.empty());  // dropped when disabled
  cuda::caching_allocator_delete(p);
}

TEST_F(MemoryHistory, TraceIsARingBufferOfMaxEntries) {
  cuda::memory::record_memory_history("all", "all", "all", /*max_entries=*/3);
  std::vector<void*> ptrs;
  for (int i = 1; i <= 5; ++i) ptrs.push_back(cuda::caching_allocator_alloc(512 * i, 0));
  const auto trace = cuda::memory::snapshot().device_traces[0];
  ASSERT_EQ(trace.size(), 3u);  // the newest three: alloc 2048, alloc 2560, snapshot
  EXPECT_EQ(trace[0].size, 2048u);
  EXPECT_EQ(trace[1].size, 2560u);
  EXPECT_EQ(trace[2].action, cuda::TraceAction::kSnapshot);
  cuda::memory::record_memory_history("all", "all", "all", 3, /*clear_history=*/true);
  EXPECT_EQ(cuda::memory::snapshot().device_traces[0].size(), 1u);  // only the new snapshot event
  cuda::memory::record_memory_history(std::nullopt);
  for (void* p : ptrs) cuda::caching_allocator_delete(p);
  EXPECT_EQ(cuda::memory::snapshot().device_traces[0].size(), 1u);  // nothing recorded while disabled
}

TEST_F(MemoryHistory, ReconfiguringTheDevicesDropsTheTraceButKeepsRecording) {
  cuda::memory::record_memory_history("all");
  cuda::caching_allocator_delete(cuda::caching_allocator_alloc(1000, 0));
  EXPECT_EQ(cuda::memory::snapshot().device_traces[0].size(), 5u);
  cuda::EmulationConfig c;
  c.devices = 1;
  c.memory = 32 * kMiB;
  cuda::emulate(c);  // the old trace names addresses of devices that are gone
  void* p = cuda::caching_allocator_alloc(1000, 0);
  EXPECT_EQ(actions(cuda::memory::snapshot().device_traces[0]),
            (std::vector<std::string>{"segment_alloc", "alloc", "snapshot"}));
  cuda::caching_allocator_delete(p);
}

TEST_F(MemoryHistory, OomIsRecordedWithTheDevicesFreeBytes) {
  cuda::memory::record_memory_history("all");
  EXPECT_THROW(cuda::caching_allocator_alloc(100 * kMiB, 0), OutOfMemoryError);
  const auto trace = cuda::memory::snapshot().device_traces[0];
  ASSERT_EQ(trace.size(), 2u);
  EXPECT_EQ(trace[0].action, cuda::TraceAction::kOom);
  EXPECT_EQ(trace[0].addr, 64 * kMiB);  // device_free
  EXPECT_EQ(trace[0].size, 100 * kMiB);
}

TEST_F(MemoryHistory, BadOptionsAreRejected) {
  EXPECT_THROW(cuda::memory::record_memory_history("everything"), ValueError);
  EXPECT_THROW(cuda::memory::record_memory_history("all", "some"), ValueError);
  EXPECT_THROW(cuda::memory::record_memory_history("all", "all", "cpp"), ValueError);
  void* p = cuda::caching_allocator_alloc(1000, 0);
  EXPECT_TRUE(cuda::memory::snapshot().device_traces[0].empty());  // still off
  cuda::caching_allocator_delete(p);
}

// Skips strings; returns false when brackets do not pair up.
bool balanced_json(const std::string& s) {
  std::string stack;
  bool in_string = false;
  for (size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (in_string) {
      if (c == '\\') ++i;
      else if (c == '"') in_string = false;
      continue;
    }
    if (c == '"') in_string = true;
    else if (c == '{' || c == '[') stack += c;
    else if (c == '}' || c == ']') {
      if (stack.empty() || stack.back() != (c == '}' ? '{' : '[')) return false;
      stack.pop_back();
    }
  }
  return stack.empty() && !in_string;
}

TEST_F(MemoryHistory, JsonHasPyTorchsShape) {
  cuda::memory::record_memory_history("all");
  void* p = cuda::caching_allocator_alloc(1000, 0);
  const std::string json = cuda::memory::snapshot_json(cuda::memory::snapshot());
  EXPECT_TRUE(balanced_json(json)) << json.substr(0, 400);
  EXPECT_EQ(json.rfind("{\"segments\":[{\"device\":0,\"address\":" + std::to_string(reinterpret_cast<uintptr_t>(p)) +
                           ",\"total_size\":2097152,\"allocated_size\":1024,\"active_size\":1024,\"requested_size\":1000,",
                       0),
            0u)
      << json.substr(0, 300);
  for (const char* key : {"\"segment_type\":\"small\"", "\"blocks\":[{\"address\":", "\"state\":\"active_allocated\"",
                          "\"state\":\"inactive\"", "\"device_traces\":[[{\"action\":\"segment_alloc\"",
                          "{\"action\":\"alloc\",\"addr\":", "\"action\":\"snapshot\"", "\"frames\":[{\"filename\":",
                          "\"allocator_settings\":{\"PYTORCH_CUDA_ALLOC_CONF\":", "\"roundup_power2_divisions\":{\"1\":0,"}) {
    EXPECT_NE(json.find(key), std::string::npos) << key;
  }
  const std::string path = ::testing::TempDir() + "ctorch_snapshot_" + std::to_string(::getpid()) + ".json";
  cuda::memory::dump_snapshot(path);
  std::ifstream f(path);
  std::stringstream ss;
  ss << f.rdbuf();
  EXPECT_TRUE(balanced_json(ss.str()));
  EXPECT_NE(ss.str().find("\"device_traces\":[["), std::string::npos);
  std::remove(path.c_str());
  EXPECT_THROW(cuda::memory::dump_snapshot("/nonexistent-dir/x/snapshot.json"), Error);
  cuda::caching_allocator_delete(p);
}

TEST_F(MemoryHistory, ListGpuProcessesReportsThisProcess) {
  EXPECT_EQ(cuda::list_gpu_processes(0), "GPU:0\nno processes are running");
  void* p = cuda::caching_allocator_alloc(1000, 0);
  char expected[128];
  std::snprintf(expected, sizeof expected, "GPU:0\nprocess %10d uses        2.000 MB GPU memory", static_cast<int>(::getpid()));
  EXPECT_EQ(cuda::list_gpu_processes(0), expected);
  cuda::caching_allocator_delete(p);
}

}  // namespace
}  // namespace ctorch
