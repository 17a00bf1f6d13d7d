// StreamWorker: one emulated stream = one thread running a FIFO queue of tasks.
//
// Tasks get tickets 1, 2, 3, ... in enqueue order; a ticket is done once the worker has finished
// (or skipped) that task, so "all work queued so far" is the ticket submitted() returned. A task
// that throws makes the worker sticky: its message (with the task's site) is kept, later tasks
// are skipped unless marked always_run, and waiters learn about it through sticky_error(). The
// thread starts at the first enqueue. After shutdown() tasks run inline on the enqueuing thread.
#pragma once

#include <chrono>
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

#include "backends/emulated/activity.h"

namespace ctorch::inline api::backends::emulated {

/// Position of a task in its worker's queue; tickets start at 1, 0 means "no task".
using Ticket = uint64_t;

/// Per-worker debug options.
struct WorkerOptions {
  bool reorder = false;  // sleep 0-2 ms (random) before each task
  uint64_t seed = 0;     // seed of those sleeps
  DeviceActivity* activity = nullptr;  // the device's busy meters (Note [Emulated device activity])
};

/// A thread with a FIFO queue of tasks (see the file comment).
class StreamWorker {
 public:
  /// `label` names the stream in error messages ("emulated cuda:0 stream 3").
  StreamWorker(std::string label, WorkerOptions options);
  /// Stops and joins the thread after the running task; queued tasks are dropped.
  ~StreamWorker();
  StreamWorker(const StreamWorker&) = delete;
  StreamWorker& operator=(const StreamWorker&) = delete;

  /// Appends `fn`; returns its ticket. `always_run` tasks also run once the worker is sticky.
  /// `activity` (ActivityKind bits) says which busy meters its run time counts toward.
  Ticket enqueue(std::function<void()> fn, std::string site, bool always_run = false,
                 uint8_t activity = kActivityNone);
  /// Ticket of the last task enqueued (0 before any).
  Ticket submitted() const;
  /// True when task `t` (and every task before it) has finished or been skipped.
  bool done(Ticket t) const;
  /// True when every task enqueued so far is done.
  bool idle() const;
  /// Blocks until task `t` is done.
  void wait(Ticket t) const;
  /// Sticky error message of a failure at or before ticket `t` (false when there is none).
  bool sticky_error(Ticket t, std::string* message) const;
  /// Any sticky error.
  bool sticky_error(std::string* message) const { return sticky_error(~Ticket{0}, message); }
  /// The stream's label.
  const std::string& label() const { return label_; }
  /// Finishes the running task, drops the queued ones and joins the thread within `timeout`
  /// (detaches it when a task does not return in time). Later tasks run inline. Never throws.
  void shutdown(std::chrono::milliseconds timeout) noexcept;

  /// The worker whose thread is calling, or null on other threads.
  static StreamWorker* current() noexcept;

 private:
  struct Task {
    std::function<void()> fn;
    std::string site;
    bool always_run;
    uint8_t activity;
  };

  void loop();
  // Runs one task (outside the lock); returns false with `error` set when it threw.
  bool run(Task& task, std::string* error);
  // A delay in [0, 2000] microseconds for reorder mode.
  int next_delay_us();
  // Records the result of the task with ticket completed_ + 1. Caller holds mu_.
  void finish_locked(bool ok, const std::string& site, const std::string& error);

  const std::string label_;
  const WorkerOptions options_;
  uint64_t rng_;  // splitmix64 state of the reorder delays; used only by the worker thread

  // Lock-free mirrors for the short spins before blocking (Note [Spin before block]).
  std::atomic<Ticket> completed_mirror_{0};  // == completed_, stored under mu_
  std::atomic<size_t> queued_mirror_{0};     // == queue_.size(), stored under mu_

  mutable std::mutex mu_;
  // Everything below is guarded by mu_.
  mutable std::condition_variable work_cv_;  // the worker waits for tasks
  mutable std::condition_variable done_cv_;  // waiters wait for completed_
  std::deque<Task> queue_;
  Ticket submitted_ = 0;
  Ticket completed_ = 0;
  Ticket sticky_ticket_ = 0;  // first failed task, 0 when none
  std::string sticky_message_;
  mutable int waiters_ = 0;
  bool started_ = false;
  bool stop_ = false;    // shutdown requested: drop queued tasks, run new ones inline
  bool exited_ = false;  // the thread has left loop()
  std::thread thread_;
};

}  // namespace ctorch::api::backends::emulated
