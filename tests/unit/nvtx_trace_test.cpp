// torch.cuda.nvtx bookkeeping and the Chrome-trace tracer on emulated devices.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <thread>
#include <vector>

#include "ctorch/ctorch.h"
#include "device/device_test.h"
#include "device/stream_test_util.h"
#include "unit/json_lite.h"

namespace ctorch::testing {
namespace {

namespace nvtx = cuda::nvtx;

TEST(NvtxTest, PushPopReturnDepths) {
  EXPECT_EQ(nvtx::range_pop(), -1) << "nothing open: NVTX's error value";
  EXPECT_EQ(nvtx::range_push("outer"), 0);
  EXPECT_EQ(nvtx::range_push("inner"), 1);
  EXPECT_EQ(nvtx::range_pop(), 1);
  EXPECT_EQ(nvtx::range_pop(), 0);
  EXPECT_EQ(nvtx::range_pop(), -1);
  {
    nvtx::range r("scoped");
    EXPECT_EQ(nvtx::range_push("nested"), 1);
    EXPECT_EQ(nvtx::range_pop(), 1);
  }
  EXPECT_EQ(nvtx::range_push("again"), 0) << "the RAII range popped itself";
  EXPECT_EQ(nvtx::range_pop(), 0);
  nvtx::mark("a mark");
}

TEST(NvtxTest, DepthIsPerThreadAndStartEndCrossesThreads) {
  EXPECT_EQ(nvtx::range_push("main"), 0);
  int other_depth = -5;
  std::thread([&] { other_depth = nvtx::range_push("other"); nvtx::range_pop(); }).join();
  EXPECT_EQ(other_depth, 0);
  EXPECT_EQ(nvtx::range_pop(), 0);
  const uint64_t a = nvtx::range_start("a"), b = nvtx::range_start("b");
  EXPECT_NE(a, b);
  std::thread([&] { nvtx::range_end(a); }).join();
  nvtx::range_end(b);
  nvtx::range_end(b);       // already ended: ignored
  nvtx::range_end(999999);  // unknown: ignored
}

// Checks the trace-event format: required fields, known phases, X with dur, B/E matched per
// thread in time order, b/e matched by id; returns the events that are not metadata.
std::vector<json::Value> validate_trace(const std::string& text) {
  const json::Value root = json::parse(text);
  EXPECT_TRUE(root.is_object());
  EXPECT_TRUE(root.has("traceEvents"));
  std::vector<json::Value> events;
  std::map<std::pair<double, double>, std::vector<std::string>> open;  // (pid, tid) -> B names
  std::map<double, std::string> async_open;
  std::vector<json::Value> all = root["traceEvents"].array();
  std::stable_sort(all.begin(), all.end(), [](const json::Value& a, const json::Value& b) {
    return a["ts"].number() < b["ts"].number();
  });
  for (const json::Value& e : all) {
    for (const char* key : {"ph", "ts", "pid", "tid", "name"}) {
      EXPECT_TRUE(e.has(key)) << "event without " << key;
      if (!e.has(key)) return events;
    }
    EXPECT_TRUE(e["name"].is_string());
    EXPECT_TRUE(e["ts"].is_number());
    EXPECT_GE(e["ts"].number(), 0.0);
    const std::string ph = e["ph"].string();
    const auto track = std::make_pair(e["pid"].number(), e["tid"].number());
    if (ph == "M") continue;
    events.push_back(e);
    if (ph == "X") {
      EXPECT_TRUE(e.has("dur") && e["dur"].number() >= 0.0) << e["name"].string();
    } else if (ph == "B") {
      open[track].push_back(e["name"].string());
    } else if (ph == "E") {
      EXPECT_FALSE(open[track].empty()) << "E without B";
      if (!open[track].empty()) {
        EXPECT_EQ(e["name"].string(), open[track].back());
        open[track].pop_back();
      }
    } else if (ph == "b") {
      EXPECT_TRUE(e.has("id"));
      async_open[e["id"].number()] = e["name"].string();
    } else if (ph == "e") {
      EXPECT_EQ(async_open.count(e["id"].number()), 1u) << "e without b";
      async_open.erase(e["id"].number());
    } else if (ph == "i") {
      EXPECT_TRUE(e.has("s"));
    } else {
      ADD_FAILURE() << "unexpected phase " << ph;
    }
  }
  for (const auto& [track, names] : open) EXPECT_TRUE(names.empty()) << "B without E";
  EXPECT_TRUE(async_open.empty()) << "b without e";
  return events;
}

int count(const std::vector<json::Value>& events, const std::string& ph, const std::string& cat, double pid = -1) {
  int n = 0;
  for (const json::Value& e : events) {
    if (e["ph"].string() != ph) continue;
    if (!cat.empty() && (!e.has("cat") || e["cat"].string() != cat)) continue;
    if (pid >= 0 && e["pid"].number() != pid) continue;
    ++n;
  }
  return n;
}

TEST(TraceTest, RecordsStreamsTasksEventsAndRangesAsChromeTraceJson) {
  use_emulated_devices(2);
  cuda::set_device(0);
  cuda::synchronize(0);
  cuda::trace::start();
  EXPECT_TRUE(cuda::trace::is_tracing());
  const uint64_t async_range = nvtx::range_start("cross-thread \"range\"");
  {
    nvtx::range r("step");
    const cuda::Stream side(0);
    Tensor a = full({1024}, 1.0, TensorOptions().device("cuda:0"));
    side.wait_stream(cuda::current_stream());
    Tensor b;
    Gate gate;
    gate.block(side);  // holds the side stream, so the default stream below gets a real wait task
    {
      auto block = cuda::stream(side);
      b = a.mul(2.0);
    }
    cuda::current_stream().wait_stream(side);
    gate.open();
    nvtx::mark("copy back");
    EXPECT_EQ(b.sum().item<double>(), 2048.0);
    nvtx::range_push("left open");
  }
  std::thread([&] { nvtx::range_end(async_range); }).join();
  cuda::synchronize(0);
  cuda::trace::stop();
  EXPECT_FALSE(cuda::trace::is_tracing());
  const std::string text = cuda::trace::json();
  nvtx::range_pop();  // "left open" (closed in the trace at stop())
  Tensor after = ones({4}, TensorOptions().device("cuda:0"));
  cuda::synchronize(0);
  EXPECT_EQ(cuda::trace::json(), text) << "nothing recorded after stop()";

  const std::vector<json::Value> events = validate_trace(text);
  EXPECT_GE(count(events, "X", "kernel", 1), 2) << "fill and mul on cuda:0";
  EXPECT_GE(count(events, "X", "copy", 1), 1) << "the D2H copy of item()";
  EXPECT_GE(count(events, "X", "record_event", 1), 1);
  EXPECT_GE(count(events, "X", "wait_event", 1), 1);
  EXPECT_GE(count(events, "B", "nvtx", 0), 2);
  EXPECT_EQ(count(events, "b", "nvtx", 0), 1);
  EXPECT_EQ(count(events, "i", "nvtx", 0), 1);
  EXPECT_GE(count(events, "X", "host", 0), 1) << "memcpy_and_sync / synchronize on the host";
  // Streams are serial: tasks on one stream never overlap.
  std::map<double, std::vector<std::pair<double, double>>> by_stream;
  std::set<double> tids;
  for (const json::Value& e : events) {
    if (e["ph"].string() != "X" || e["pid"].number() != 1) continue;
    by_stream[e["tid"].number()].push_back({e["ts"].number(), e["ts"].number() + e["dur"].number()});
    tids.insert(e["tid"].number());
  }
  EXPECT_GE(tids.size(), 2u) << "the default stream and the side stream";
  for (auto& [tid, spans] : by_stream) {
    std::sort(spans.begin(), spans.end());
    for (size_t i = 1; i < spans.size(); ++i) EXPECT_LE(spans[i - 1].second, spans[i].first + 1e-3);
  }
  EXPECT_NE(text.find("\"process_name\""), std::string::npos);
  EXPECT_NE(text.find("\"default stream\""), std::string::npos);
  EXPECT_NE(text.find("cross-thread \\\"range\\\""), std::string::npos) << "names are escaped";

  const std::string path = ::testing::TempDir() + "ctorch_trace_test.json";
  cuda::trace::save(path);
  std::ifstream in(path);
  std::stringstream saved;
  saved << in.rdbuf();
  EXPECT_EQ(saved.str(), text);
  std::remove(path.c_str());
  EXPECT_THROW(cuda::trace::save("/nonexistent-dir/trace.json"), Error);

  cuda::trace::start();  // a new trace starts empty
  cuda::trace::stop();
  EXPECT_TRUE(validate_trace(cuda::trace::json()).empty());
}

}  // namespace
}  // namespace ctorch::testing
