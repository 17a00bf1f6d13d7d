// The tracer's observers of work it cannot see through the task hooks: the op boundary
// (ops/op_observer.h: host spans for copies between host and device, and each kernel an op launches
// on a runtime marked with impl::set_tasks_timed_by_events, bracketed by timing events), and the
// runtime's TimedDeviceTask (runtime/task_hooks.h: real CUDA copies and memsets). Timing by events:
// Note [Event-timed device tasks] in event_timed_task.h. The emulated runtime reports its tasks
// through observe_task instead.
#pragma once

namespace ctorch::inline api::tracing {

/// Starts observing (the tracer's start()).
void start_op_timing();
/// Stops observing (the tracer's stop()).
void stop_op_timing() noexcept;

}  // namespace ctorch::api::tracing
