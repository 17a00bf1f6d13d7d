// Task hooks, at the runtime level so that runtimes and the observers above them (the tracer)
// meet without including each other:
// - observe_task: the one place every task queued on an emulated stream passes through; observers
//   see each task when it is queued, when it starts and when it ends.
// - TimedDeviceTask: work a runtime queues but cannot watch run (real CUDA copies and memsets),
//   bracketed by the registered DeviceTaskTimer (the tracer times it by events).
// - set_tasks_timed_by_events: marks such a runtime, so that the tracer also times the kernels
//   ops launch on it (trace/op_timing.h).
//
// Note [Task observers]
// Observers are registered for the rest of the process (they are never destroyed): a task queued
// while an observer was registered may call it after remove_task_observer(). Every method may
// run concurrently on many threads. A task that is skipped (its stream has a sticky error) or
// dropped at exit gets on_enqueue but neither on_begin nor on_end.
#pragma once

#include <cstdint>
#include <functional>

#include "ctorch/stream.h"

namespace ctorch::inline api::impl {
class DeviceRuntime;
}

namespace ctorch::inline api::impl {

/// What a stream task does.
enum class TaskKind : uint8_t { Kernel, Copy, Memset, RecordEvent, WaitEvent, Synchronize };

/// Name of a TaskKind ("kernel", "copy", ...).
const char* task_kind_name(TaskKind kind) noexcept;

/// One task being queued on a device stream.
struct TaskInfo {
  Stream stream;     ///< where it runs
  TaskKind kind;     ///< what it does
  const char* name;  ///< the op or site ("add", "copy_async"); valid only during on_enqueue
};

/// Watches stream tasks (see Note [Task observers]).
class TaskObserver {
 public:
  virtual ~TaskObserver() = default;
  /// On the queuing thread, before the task is queued; the result is passed to on_begin/on_end.
  virtual uint64_t on_enqueue(const TaskInfo& info) = 0;
  /// On the stream's thread, right before the task runs.
  virtual void on_begin(uint64_t token) noexcept = 0;
  /// On the stream's thread, right after the task ran; `ok` is false when it threw.
  virtual void on_end(uint64_t token, bool ok) noexcept = 0;
};

/// Registers `observer` (idempotent; at most 4 at a time); it must never be destroyed.
void add_task_observer(TaskObserver* observer);
/// Stops calling `observer` for tasks queued from now on.
void remove_task_observer(TaskObserver* observer) noexcept;
/// `task`, wrapped so that the registered observers see it; unchanged when there are none.
std::function<void()> observe_task(const TaskInfo& info, std::function<void()> task);

/// Times device work a runtime cannot watch (registered by the tracer while it records).
class DeviceTaskTimer {
 public:
  virtual ~DeviceTaskTimer() = default;
  /// Before a task of `kind` named `name` (a literal) is queued on `stream` of `runtime`; the
  /// result (0: not timed) goes to end().
  virtual uint64_t begin(DeviceRuntime& runtime, Stream stream, TaskKind kind, const char* name) noexcept = 0;
  /// After the task was queued.
  virtual void end(uint64_t token) noexcept = 0;
};

/// Registers the timer (null: none); it must never be destroyed.
void set_device_task_timer(DeviceTaskTimer* timer) noexcept;

/// Brackets one task queued on `stream` with the registered DeviceTaskTimer (RAII; nothing when none).
class TimedDeviceTask {
 public:
  /// Calls the timer's begin() (`name` must be a literal).
  TimedDeviceTask(DeviceRuntime& runtime, Stream stream, TaskKind kind, const char* name) noexcept;
  /// Calls the timer's end().
  ~TimedDeviceTask();
  TimedDeviceTask(const TimedDeviceTask&) = delete;
  TimedDeviceTask& operator=(const TimedDeviceTask&) = delete;

 private:
  DeviceTaskTimer* timer_ = nullptr;
  uint64_t token_ = 0;
};

/// Marks (or unmarks) `runtime` as one whose streams the host cannot watch (real CUDA): the tracer
/// then times the kernels ops launch on it by events. Unmarked runtimes report their tasks through
/// observe_task (emulated) or run them on the host (cpu).
void set_tasks_timed_by_events(const DeviceRuntime* runtime, bool on) noexcept;
/// True when `runtime` is marked by set_tasks_timed_by_events.
bool tasks_timed_by_events(const DeviceRuntime* runtime) noexcept;

}  // namespace ctorch::api::impl
