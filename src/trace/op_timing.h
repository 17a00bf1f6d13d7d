// The tracer's view of the op boundary (ops/op_observer.h): host spans for copies between host
// and device, and, on runtimes whose streams the host cannot watch (real CUDA), each kernel an op
// launches bracketed by timing events (Note [Event-timed device tasks] in event_timed_task.h).
// The emulated runtime reports its kernels through the task hooks (hooks.h) instead.
#pragma once

namespace ctorch::impl {
class DeviceRuntime;
}

namespace ctorch::tracing {

/// With `on`, kernels ops launch on `runtime`'s streams are timed by events while the tracer
/// records (the real CUDA backend registers itself; off for every runtime by default).
void time_kernels_by_events(const impl::DeviceRuntime* runtime, bool on) noexcept;

/// Starts observing the op boundary (the tracer's start()).
void start_op_timing();
/// Stops observing it (the tracer's stop()).
void stop_op_timing() noexcept;

}  // namespace ctorch::tracing
