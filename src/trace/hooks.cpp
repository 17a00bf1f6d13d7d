// Task observer registry: a fixed array of atomics, read without locks on every enqueue.
#include "trace/hooks.h"

#include <array>
#include <atomic>
#include <mutex>
#include <utility>

#include "ctorch/error.h"

namespace ctorch::tracing {
namespace {

constexpr int kMaxObservers = 4;
std::array<std::atomic<TaskObserver*>, kMaxObservers> g_observers{};
std::atomic<int> g_count{0};
std::mutex g_mu;  // serializes add/remove

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

}  // namespace ctorch::tracing
