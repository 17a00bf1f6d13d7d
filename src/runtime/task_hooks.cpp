// Task observer registry: a fixed array of atomics, read without locks on every enqueue; the device
// task timer and the runtimes timed by events.
#include "runtime/task_hooks.h"

#include <array>
#include <atomic>
#include <mutex>
#include <utility>

#include "ctorch/error.h"

namespace ctorch::inline api::impl {
namespace {

constexpr int kMaxObservers = 4;
std::array<std::atomic<TaskObserver*>, kMaxObservers> g_observers{};
std::atomic<int> g_count{0};
std::mutex g_mu;  // serializes add/remove
std::atomic<DeviceTaskTimer*> g_timer{nullptr};
constexpr int kMaxTimedRuntimes = 4;
std::array<std::atomic<const DeviceRuntime*>, kMaxTimedRuntimes> g_timed_runtimes{};

}  // namespace

const char* task_kind_name(TaskKind kind) noexcept {
  switch (kind) {
    case TaskKind::Kernel: return "kernel";
    case TaskKind::Copy: return "copy";
    case TaskKind::Memset: return "memset";
    case TaskKind::RecordEvent: return "record_event";
    case TaskKind::WaitEvent: return "wait_event";
    case TaskKind::Synchronize: return "synchronize";
  }
  return "unknown";
}

void add_task_observer(TaskObserver* observer) {
  CTORCH_CHECK(observer != nullptr, "add_task_observer: null observer");
  std::lock_guard<std::mutex> lock(g_mu);
  for (auto& slot : g_observers) {
    if (slot.load() == observer) return;
  }
  for (auto& slot : g_observers) {
    if (slot.load() == nullptr) {
      slot.store(observer);
      g_count.fetch_add(1);
      return;
    }
  }
  CTORCH_CHECK(false, "add_task_observer: at most ", kMaxObservers, " observers");
}

void remove_task_observer(TaskObserver* observer) noexcept {
  std::lock_guard<std::mutex> lock(g_mu);
  for (auto& slot : g_observers) {
    if (slot.load() == observer) {
      slot.store(nullptr);
      g_count.fetch_sub(1);
    }
  }
}

std::function<void()> observe_task(const TaskInfo& info, std::function<void()> task) {
  if (g_count.load(std::memory_order_acquire) == 0) return task;
  struct Seen {
    TaskObserver* observer;
    uint64_t token;
  };
  std::array<Seen, kMaxObservers> seen{};
  int n = 0;
  for (auto& slot : g_observers) {
    if (TaskObserver* o = slot.load(std::memory_order_acquire)) seen[n++] = {o, o->on_enqueue(info)};
  }
  if (n == 0) return task;
  return [seen, n, task = std::move(task)] {
    for (int i = 0; i < n; ++i) seen[i].observer->on_begin(seen[i].token);
    try {
      task();
    } catch (...) {
      for (int i = 0; i < n; ++i) seen[i].observer->on_end(seen[i].token, false);
      throw;
    }
    for (int i = 0; i < n; ++i) seen[i].observer->on_end(seen[i].token, true);
  };
}

void set_device_task_timer(DeviceTaskTimer* timer) noexcept { g_timer.store(timer, std::memory_order_release); }

TimedDeviceTask::TimedDeviceTask(DeviceRuntime& runtime, Stream stream, TaskKind kind, const char* name) noexcept
    : timer_(g_timer.load(std::memory_order_acquire)) {
  if (timer_ != nullptr) token_ = timer_->begin(runtime, stream, kind, name);
}

TimedDeviceTask::~TimedDeviceTask() {
  if (timer_ != nullptr && token_ != 0) timer_->end(token_);
}

void set_tasks_timed_by_events(const DeviceRuntime* runtime, bool on) noexcept {
  std::lock_guard<std::mutex> lock(g_mu);
  for (auto& slot : g_timed_runtimes) {
    if (slot.load(std::memory_order_relaxed) == runtime) {
      if (!on) slot.store(nullptr, std::memory_order_release);
      return;
    }
  }
  if (!on) return;
  for (auto& slot : g_timed_runtimes) {
    if (slot.load(std::memory_order_relaxed) == nullptr) {
      slot.store(runtime, std::memory_order_release);
      return;
    }
  }
}

bool tasks_timed_by_events(const DeviceRuntime* runtime) noexcept {
  for (const auto& slot : g_timed_runtimes) {
    if (slot.load(std::memory_order_acquire) == runtime) return true;
  }
  return false;
}

}  // namespace ctorch::api::impl
