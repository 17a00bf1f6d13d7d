// The tracer's op and device-task timer: op_timing.h.
#include "trace/op_timing.h"

#include "ops/op_observer.h"
#include "runtime/device_runtime.h"
#include "runtime/task_hooks.h"
#include "trace/event_timed_task.h"
#include "trace/tracer.h"

namespace ctorch::inline api::tracing {
namespace {

// Names follow the emulated launchers: the op's name for unary and binary ops, else the family.
const char* task_name(const ops::OpCall& call) noexcept {
  const bool named = call.family == ops::OpFamily::Unary || call.family == ops::OpFamily::Binary ||
                     call.family == ops::OpFamily::Index || call.family == ops::OpFamily::Jit;
  return named ? call.name : ops::op_family_name(call.family);
}

class OpTimer final : public ops::OpObserver, public impl::DeviceTaskTimer {
 public:
  // --- ops::OpObserver ---
  uint64_t before(const ops::OpCall& call) override {
    if (!tracing()) return 0;
    if (call.family == ops::OpFamily::Transfer) {
      return call.site ? reinterpret_cast<uint64_t>(new HostSpan(call.site)) : 0;
    }
    if (call.family == ops::OpFamily::View || call.stream.device().is_cpu()) return 0;
    impl::DeviceRuntime* rt = impl::runtime_for(call.stream.device().type());
    if (rt == nullptr || !impl::tasks_timed_by_events(rt)) return 0;
    return reinterpret_cast<uint64_t>(new EventTimedTask(*rt, call.stream, impl::TaskKind::Kernel, task_name(call)));
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

  // --- impl::DeviceTaskTimer ---
  uint64_t begin(impl::DeviceRuntime& runtime, Stream stream, impl::TaskKind kind, const char* name) noexcept override {
    if (!tracing()) return 0;
    try {
      return reinterpret_cast<uint64_t>(new EventTimedTask(runtime, stream, kind, name));
    } catch (...) {  // out of memory: not timed
      return 0;
    }
  }

  void end(uint64_t token) noexcept override { delete reinterpret_cast<EventTimedTask*>(token); }
};

OpTimer& op_timer() {
  static OpTimer* timer = new OpTimer;  // never destroyed (Note [Op observers])
  return *timer;
}

}  // namespace

void start_op_timing() {
  ops::add_op_observer(&op_timer());
  impl::set_device_task_timer(&op_timer());
}

void stop_op_timing() noexcept {
  impl::set_device_task_timer(nullptr);
  ops::remove_op_observer(&op_timer());
}

}  // namespace ctorch::api::tracing
