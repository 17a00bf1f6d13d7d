// Device tasks timed by pairs of timing events, for runtimes whose stream work the host cannot
// observe (real CUDA). The emulated runtime reports its tasks through the task hooks (runtime/task_hooks.h);
// a real GPU runs them out of sight, so each traced kernel or copy is bracketed by two events and
// the tracer turns the pairs into device-task records when it stops.
//
// Note [Event-timed device tasks]
// - While the tracer records, EventTimedTask records a timing event on the task's stream before
//   the task is queued and another after it; the pair is kept until trace::stop().
// - Nothing synchronizes while recording. stop() waits for each pair's end event, then ties each
//   device's clock to the host's once: it records an anchor event after the device's last timed
//   task and waits for it, so anchor time ~ the host time right after the wait. Each task becomes
//   an "X" record starting elapsed(start, anchor) before the anchor and lasting elapsed(start,
//   end), on the row of its stream (as emulated tasks are).
// - Pairs whose stream failed (sticky error) are dropped. Every event, anchors included, is
//   destroyed by stop(), so none outlives the session (the emulated runtime refuses to be
//   reconfigured while events live). A task queued after stop() began is dropped.
// - Costs nothing while the tracer is off (one atomic load).
#pragma once

#include <cstdint>

#include "ctorch/stream.h"
#include "runtime/task_hooks.h"

namespace ctorch::inline api::impl {
class DeviceRuntime;
}

namespace ctorch::inline api::tracing {

/// Brackets one task queued on `stream` with timing events while the tracer records (RAII: the
/// task is queued during the object's lifetime). Never throws; a failure drops the record.
class EventTimedTask {
 public:
  /// Records the start event on `stream` of `runtime` when tracing; `name` must outlive stop().
  EventTimedTask(impl::DeviceRuntime& runtime, Stream stream, impl::TaskKind kind, const char* name) noexcept;
  /// Records the end event and keeps the pair for stop().
  ~EventTimedTask();
  /// Drops the record (the task was not queued after all).
  void cancel() noexcept;
  EventTimedTask(const EventTimedTask&) = delete;
  EventTimedTask& operator=(const EventTimedTask&) = delete;

 private:
  impl::DeviceRuntime* runtime_ = nullptr;  // null when not tracing
  Stream stream_;
  impl::TaskKind kind_;
  const char* name_;
  void* start_ = nullptr;
};

/// Starts keeping pairs (dropping any left from an earlier session); called by the tracer's start().
void open_event_timed_tasks() noexcept;
/// Turns every kept pair into a device-task record (waiting for its end event), then destroys the
/// pairs and anchors; called by the tracer's stop() while it still records.
void resolve_event_timed_tasks() noexcept;

}  // namespace ctorch::api::tracing
