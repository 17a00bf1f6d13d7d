// Event-timed device tasks: Note [Event-timed device tasks] in event_timed_task.h.
#include "trace/event_timed_task.h"

#include <map>
#include <mutex>
#include <utility>
#include <vector>

#include "runtime/device_runtime.h"
#include "trace/tracer.h"

namespace ctorch::inline api::tracing {
namespace {

struct Pair {
  impl::DeviceRuntime* runtime;
  Stream stream;
  impl::TaskKind kind;
  const char* name;
  void* start;
  void* end;
};

std::mutex g_mu;      // guards the state below
bool g_open = false;  // between the tracer's start() and stop()
std::vector<Pair> g_pairs;

constexpr impl::EventFlags kTiming{true, false, false};

void destroy(impl::DeviceRuntime* rt, void* e) noexcept {
  if (e) rt->destroy_event(e);
}

// Takes the session's pairs out of the shared state; `open` says whether new pairs are kept.
std::vector<Pair> take(bool open) {
  std::lock_guard<std::mutex> lock(g_mu);
  g_open = open;
  return std::exchange(g_pairs, {});
}

void destroy_all(const std::vector<Pair>& pairs) noexcept {
  for (const Pair& p : pairs) {
    destroy(p.runtime, p.start);
    destroy(p.runtime, p.end);
  }
}

// Records the pairs of one device (all on `rt`, device of pairs[first].stream), timed against an
// anchor event recorded and waited for once their work is done.
void resolve_device(const std::vector<Pair>& pairs, const std::vector<size_t>& of_device) {
  std::vector<size_t> done;
  for (size_t i : of_device) {
    try {
      pairs[i].runtime->synchronize_event(pairs[i].end);
      done.push_back(i);
    } catch (...) {  // the stream failed: its task never ran
    }
  }
  if (done.empty()) return;
  const Pair& last = pairs[done.back()];
  impl::DeviceRuntime& rt = *last.runtime;
  void* anchor = rt.create_event(last.stream.device().index(), kTiming);
  try {
    rt.record_event(anchor, last.stream);
    rt.synchronize_event(anchor);
    const double anchor_us = trace_now_us();
    for (size_t i : done) {
      const Pair& p = pairs[i];
      const double begin_us = anchor_us - 1000.0 * rt.elapsed_ms(p.start, anchor);
      record_device_task(p.stream, p.kind, p.name, begin_us, 1000.0 * rt.elapsed_ms(p.start, p.end));
    }
  } catch (...) {  // the anchor's stream failed after the tasks: drop this device's records
  }
  rt.destroy_event(anchor);
}

}  // namespace

EventTimedTask::EventTimedTask(impl::DeviceRuntime& runtime, Stream stream, impl::TaskKind kind, const char* name) noexcept
    : stream_(stream), kind_(kind), name_(name) {
  if (!tracing()) return;
  try {
    start_ = runtime.create_event(stream.device().index(), kTiming);
    runtime.record_event(start_, stream);
    runtime_ = &runtime;
  } catch (...) {  // a failing stream is reported by the task itself; drop the record
    if (start_) runtime.destroy_event(start_);
    start_ = nullptr;
  }
}

EventTimedTask::~EventTimedTask() {
  if (runtime_ == nullptr) return;
  void* end = nullptr;
  try {
    end = runtime_->create_event(stream_.device().index(), kTiming);
    runtime_->record_event(end, stream_);
    std::lock_guard<std::mutex> lock(g_mu);
    if (g_open) {
      g_pairs.push_back({runtime_, stream_, kind_, name_, start_, end});
      return;
    }
  } catch (...) {
  }
  destroy(runtime_, start_);  // stopped meanwhile, or out of memory: drop the record
  destroy(runtime_, end);
}

void EventTimedTask::cancel() noexcept {
  if (runtime_ == nullptr) return;
  destroy(runtime_, start_);
  runtime_ = nullptr;
  start_ = nullptr;
}

void resolve_event_timed_tasks() noexcept {
  const std::vector<Pair> pairs = take(false);
  try {
    std::map<std::pair<impl::DeviceRuntime*, DeviceIndex>, std::vector<size_t>> by_device;
    for (size_t i = 0; i < pairs.size(); ++i) by_device[{pairs[i].runtime, pairs[i].stream.device().index()}].push_back(i);
    for (const auto& [device, of_device] : by_device) resolve_device(pairs, of_device);
  } catch (...) {  // out of memory: the remaining records are dropped
  }
  destroy_all(pairs);
}

void open_event_timed_tasks() noexcept { destroy_all(take(true)); }

}  // namespace ctorch::api::tracing
