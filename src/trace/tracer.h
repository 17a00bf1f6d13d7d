// The built-in tracer's recording side: what the frontend (NVTX, host synchronizations) reports.
// Device tasks reach it through the task hooks (runtime/task_hooks.h). Output: Chrome trace-event JSON
// (ctorch/cuda_trace.h).
#pragma once

#include <cstdint>
#include <string>

#include "ctorch/stream.h"
#include "runtime/task_hooks.h"

namespace ctorch::inline api::tracing {

/// True while ctorch::cuda::trace is recording.
bool tracing() noexcept;
/// Microseconds on the trace's clock (since start()).
double trace_now_us() noexcept;
/// A device task that ran on `stream` from `begin_us` for `dur_us` (trace clock), timed outside
/// the task hooks (event_timed_task.h); dropped when not recording.
void record_device_task(Stream stream, impl::TaskKind kind, const char* name, double begin_us, double dur_us) noexcept;

/// A span on the calling host thread ("X" event), recorded when tracing at construction.
class HostSpan {
 public:
  /// Starts a span named `name` (a string literal: it is kept by pointer).
  explicit HostSpan(const char* name) noexcept;
  ~HostSpan();
  HostSpan(const HostSpan&) = delete;
  HostSpan& operator=(const HostSpan&) = delete;

 private:
  const char* name_;
  double begin_us_ = -1;
};

/// nvtx range_push on the calling thread ("B").
void nvtx_push(const std::string& message);
/// nvtx range_pop on the calling thread ("E" of the innermost traced range).
void nvtx_pop();
/// nvtx range_start: an async range ("b") named by `id`.
void nvtx_start(uint64_t id, const std::string& message);
/// nvtx range_end ("e").
void nvtx_end(uint64_t id);
/// nvtx mark: an instant ("i").
void nvtx_mark(const std::string& message);

}  // namespace ctorch::api::tracing
