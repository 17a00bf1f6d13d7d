// The tracer's op observer: Note in op_timing.h.
#include "trace/op_timing.h"

#include <atomic>

#include "ops/op_observer.h"
#include "runtime/device_runtime.h"
#include "trace/event_timed_task.h"
#include "trace/tracer.h"

namespace ctorch::tracing {
namespace {

constexpr int kMaxTimedRuntimes = 4;
std::atomic<const impl::DeviceRuntime*> g_timed[kMaxTimedRuntimes];

bool timed_by_events(const impl::DeviceRuntime* runtime) noexcept {
  for (const auto& slot : g_timed) {
    if (slot.load(std::memory_order_acquire) == runtime) return true;
  }
  return false;
}

// Names follow the emulated launchers: the op's name for unary and binary ops, else the family.
const char* task_name(const ops::OpCall& call) noexcept {
  const bool named = call.family == ops::OpFamily::Unary || call.family == ops::OpFamily::Binary;
  return named ? call.name : ops::op_family_name(call.family);
}

class OpTimer final : public ops::OpObserver {
 public:
  uint64_t before(const ops::OpCall& call) override {
    if (!tracing()) return 0;
    if (call.family == ops::OpFamily::Transfer) {
      return call.site ? reinterpret_cast<uint64_t>(new HostSpan(call.site)) : 0;
    }
    if (call.family == ops::OpFamily::View || call.stream.device().is_cpu()) return 0;
    impl::DeviceRuntime* rt = impl::runtime_for(call.stream.device().type());
    if (rt == nullptr || !timed_by_events(rt)) return 0;
    return reinterpret_cast<uint64_t>(new EventTimedTask(*rt, call.stream, TaskKind::Kernel, task_name(call)));
  }

  void after(const ops::OpCall& call, uint64_t token, bool launched) noexcept override {
    if (token == 0) return;
    if (call.family == ops::OpFamily::Transfer) {
      delete reinterpret_cast<HostSpan*>(token);
      return;
    }
    auto* task = reinterpret_cast<EventTimedTask*>(token);
    if (!launched) task->cancel();
    delete task;
  }

  void on_sync(ops::SyncKind, const void*, Stream) noexcept override {}
};

OpTimer& op_timer() {
  static OpTimer* timer = new OpTimer;  // never destroyed (Note [Op observers])
  return *timer;
}

}  // namespace

void time_kernels_by_events(const impl::DeviceRuntime* runtime, bool on) noexcept {
  for (auto& slot : g_timed) {
    const impl::DeviceRuntime* expected = on ? nullptr : runtime;
    if (on && slot.load(std::memory_order_relaxed) == runtime) return;
    if (slot.compare_exchange_strong(expected, on ? runtime : nullptr)) return;
  }
}

void start_op_timing() { ops::add_op_observer(&op_timer()); }

void stop_op_timing() noexcept { ops::remove_op_observer(&op_timer()); }

}  // namespace ctorch::tracing
