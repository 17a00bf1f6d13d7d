// Task hooks: the one place every task queued on an emulated stream passes through. Observers
// (the tracer; later the stream sanitizer) see each task when it is queued, when it starts and
// when it ends.
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

namespace ctorch::tracing {

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

}  // namespace ctorch::tracing
