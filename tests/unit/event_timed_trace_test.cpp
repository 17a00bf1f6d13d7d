// Event-timed device tasks (trace/event_timed_task.h), the tracer's path for real CUDA, run on an
// emulated device, whose own task hooks record the same tasks: the two records must agree.
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <string>
#include <thread>
#include <vector>

#include "backends/emulated/runtime.h"
#include "ctorch/ctorch.h"
#include "device/device_test.h"
#include "device/stream_test_util.h"
#include "ops/kernel_table.h"
#include "runtime/device_runtime.h"
#include "trace/event_timed_task.h"
#include "runtime/task_hooks.h"
#include "unit/json_lite.h"

namespace ctorch::testing {
namespace {

// The complete ("X") events of the trace named `name`; `by_events` selects the event-timed ones.
std::vector<json::Value> spans(const std::string& trace, const std::string& name, bool by_events) {
  std::vector<json::Value> out;
  const json::Value root = json::parse(trace);
  for (const json::Value& e : root["traceEvents"].array()) {
    if (e["ph"].string() != "X" || e["name"].string() != name) continue;
    const bool timed = e.has("args") && e["args"].has("timed_by");
    if (timed == by_events) out.push_back(e);
  }
  return out;
}

void sleep_ms(int ms) { std::this_thread::sleep_for(std::chrono::milliseconds(ms)); }

TEST(EventTimedTaskTest, PlacesTheTaskWhereTheStreamRanIt) {
  use_emulated_devices(1);
  cuda::synchronize(0);
  impl::DeviceRuntime& rt = impl::require_runtime(DeviceType::CUDA);
  const cuda::Stream side(0);
  cuda::trace::start();
  const auto t0 = std::chrono::steady_clock::now();
  Gate gate;
  gate.block(side);
  {
    tracing::EventTimedTask timed(rt, side.unwrap(), impl::TaskKind::Kernel, "timed sleep");
    backends::emulated::instance().enqueue(side.unwrap(), [] { sleep_ms(30); }, "sleep");
  }
  sleep_ms(40);  // the task is queued but held: its start event must not carry the enqueue time
  const double opened_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  gate.open();
  side.synchronize();
  cuda::trace::stop();
  const std::string trace = cuda::trace::json();

  const std::vector<json::Value> timed = spans(trace, "timed sleep", true), hooked = spans(trace, "sleep", false);
  ASSERT_EQ(timed.size(), 1u) << trace;
  ASSERT_EQ(hooked.size(), 1u) << trace;
  const json::Value& t = timed[0];
  EXPECT_EQ(t["pid"].number(), 1) << "cuda:0's row";
  EXPECT_EQ(t["tid"].number(), static_cast<double>(side.unwrap().id())) << "the stream's row";
  EXPECT_EQ(t["cat"].string(), "kernel");
  EXPECT_GE(t["dur"].number(), 29e3) << "the 30 ms task, in microseconds";
  EXPECT_GE(t["ts"].number(), opened_ms * 1e3 - 2e3) << "started when the gate opened, not when queued";
  // The emulated runtime's own record of the same task: the event pair brackets it. Bounds are
  // loose because thread wake-ups under load (sanitizer builds, -j2) add milliseconds.
  const json::Value& h = hooked[0];
  EXPECT_NEAR(t["ts"].number(), h["ts"].number(), 25e3);
  EXPECT_GE(t["dur"].number(), h["dur"].number() - 2e3) << "the pair's end event runs after the task";
  EXPECT_LE(t["dur"].number(), h["dur"].number() + 100e3);
}

TEST(EventTimedTaskTest, RecordsNothingWhenNotTracingAndLeavesNoEventsBehind) {
  use_emulated_devices(1);
  impl::DeviceRuntime& rt = impl::require_runtime(DeviceType::CUDA);
  const cuda::Stream s(0);
  {
    tracing::EventTimedTask timed(rt, s.unwrap(), impl::TaskKind::Copy, "untraced");
  }
  cuda::trace::start();
  {
    tracing::EventTimedTask timed(rt, s.unwrap(), impl::TaskKind::Copy, "traced");
  }
  cuda::trace::stop();
  const std::string trace = cuda::trace::json();
  EXPECT_TRUE(spans(trace, "untraced", true).empty());
  ASSERT_EQ(spans(trace, "traced", true).size(), 1u);
  EXPECT_EQ(spans(trace, "traced", true)[0]["cat"].string(), "copy");
  // Every event (pairs and the anchor) was destroyed at stop(): the emulated runtime can be
  // reconfigured, which it refuses while events are alive.
  EXPECT_NO_THROW(use_emulated_devices(2));
}

// The runtime-level hook real CUDA copies use (runtime/task_hooks.h) reaches the same timing.
TEST(EventTimedTaskTest, TimedDeviceTaskIsTimedWhileTracing) {
  use_emulated_devices(1);
  impl::DeviceRuntime& rt = impl::require_runtime(DeviceType::CUDA);
  const cuda::Stream s(0);
  {
    impl::TimedDeviceTask timed(rt, s.unwrap(), impl::TaskKind::Copy, "untraced copy");
  }
  cuda::trace::start();
  {
    impl::TimedDeviceTask timed(rt, s.unwrap(), impl::TaskKind::Memset, "traced memset");
  }
  cuda::trace::stop();
  {
    impl::TimedDeviceTask timed(rt, s.unwrap(), impl::TaskKind::Copy, "after stop");
  }
  const std::string trace = cuda::trace::json();
  EXPECT_TRUE(spans(trace, "untraced copy", true).empty());
  EXPECT_TRUE(spans(trace, "after stop", true).empty());
  ASSERT_EQ(spans(trace, "traced memset", true).size(), 1u);
  EXPECT_EQ(spans(trace, "traced memset", true)[0]["cat"].string(), "memset");
  EXPECT_NO_THROW(use_emulated_devices(2));
}

// The op boundary's path (trace/op_timing.h): kernels ops launch on a runtime marked with
// impl::set_tasks_timed_by_events are bracketed by events, as the real backend's are.
struct EventTimedRuntime {
  impl::DeviceRuntime& rt = impl::require_runtime(DeviceType::CUDA);
  EventTimedRuntime() { impl::set_tasks_timed_by_events(&rt, true); }
  ~EventTimedRuntime() { impl::set_tasks_timed_by_events(&rt, false); }
};

TEST(EventTimedTaskTest, OpBoundaryTimesKernelsOfARegisteredRuntime) {
  use_emulated_devices(1);
  EventTimedRuntime timed_runtime;
  const TensorOptions cuda0 = TensorOptions().device("cuda:0");
  Tensor a = arange(6, cuda0).to(kFloat);  // before tracing: untraced
  cuda::synchronize(0);
  cuda::trace::start();
  Tensor b = a.mul(3.0).exp();
  Tensor c = b.sum();
  Tensor d = c.view({1});  // views launch nothing: no record
  const double value = c.item<double>();
  cuda::trace::stop();
  double expected = 0;
  for (int i = 0; i < 6; ++i) expected += std::exp(3.0 * i);
  EXPECT_NEAR(value, expected, expected * 1e-6);
  const std::string trace = cuda::trace::json();
  for (const char* name : {"mul", "exp", "reduce"}) {
    const std::vector<json::Value> timed = spans(trace, name, true), hooked = spans(trace, name, false);
    ASSERT_EQ(timed.size(), 1u) << name << " in " << trace;
    ASSERT_EQ(hooked.size(), 1u) << name;
    EXPECT_EQ(timed[0]["tid"].number(), hooked[0]["tid"].number()) << name;
    EXPECT_NEAR(timed[0]["ts"].number(), hooked[0]["ts"].number(), 25e3) << name;
  }
  EXPECT_TRUE(spans(trace, "view", true).empty());
  EXPECT_LE(spans(trace, "mul", true)[0]["ts"].number(), spans(trace, "exp", true)[0]["ts"].number());
  EXPECT_LE(spans(trace, "exp", true)[0]["ts"].number(), spans(trace, "reduce", true)[0]["ts"].number());
  // Not registered: nothing is timed by events.
  impl::set_tasks_timed_by_events(&timed_runtime.rt, false);
  cuda::trace::start();
  Tensor e = a.mul(2.0);
  cuda::synchronize(0);
  cuda::trace::stop();
  EXPECT_TRUE(spans(cuda::trace::json(), "mul", true).empty());
  EXPECT_EQ(spans(cuda::trace::json(), "mul", false).size(), 1u);
}

}  // namespace
}  // namespace ctorch::testing
