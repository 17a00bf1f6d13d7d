#include "ops/op_observer.h"

#include <mutex>

#include "ctorch/error.h"

namespace ctorch::inline api::ops {
namespace {

// Registered observers: slots written under g_mutex, read by calls without it (each slot atomic).
std::mutex g_mutex;
std::atomic<OpObserver*> g_observers[kMaxOpObservers];

}  // namespace

const char* op_family_name(OpFamily family) noexcept {
  static constexpr const char* names[] = {"unary",   "binary", "where", "copy_",    "fill_", "reduce",
                                          "softmax", "gemm",   "random", "transfer", "view",    "index", "jiterator", "fft"};
  return names[static_cast<int>(family)];
}

void add_op_observer(OpObserver* observer) {
  std::lock_guard<std::mutex> lock(g_mutex);
  for (auto& slot : g_observers) {
    if (slot.load(std::memory_order_relaxed) == observer) return;
  }
  // Fill the first free slot after the last used one, so registration order is call order.
  int last = -1;
  for (int i = 0; i < kMaxOpObservers; ++i) {
    if (g_observers[i].load(std::memory_order_relaxed) != nullptr) last = i;
  }
  CTORCH_CHECK(last + 1 < kMaxOpObservers, "add_op_observer: at most ", kMaxOpObservers, " observers");
  g_observers[last + 1].store(observer, std::memory_order_release);
  g_num_op_observers.fetch_add(1, std::memory_order_relaxed);
}

void remove_op_observer(OpObserver* observer) noexcept {
  std::lock_guard<std::mutex> lock(g_mutex);
  int at = -1;
  for (int i = 0; i < kMaxOpObservers; ++i) {
    if (g_observers[i].load(std::memory_order_relaxed) == observer) at = i;
  }
  if (at < 0) return;
  // Keep the others in order, packed at the front.
  for (int i = at; i + 1 < kMaxOpObservers; ++i) {
    g_observers[i].store(g_observers[i + 1].load(std::memory_order_relaxed), std::memory_order_release);
  }
  g_observers[kMaxOpObservers - 1].store(nullptr, std::memory_order_release);
  g_num_op_observers.fetch_sub(1, std::memory_order_relaxed);
}

ObservedCall::ObservedCall(const OpCall& call) : call_(call) {
  for (auto& slot : g_observers) {
    OpObserver* o = slot.load(std::memory_order_acquire);
    if (o == nullptr) continue;
    try {
      tokens_[count_] = o->before(call);
    } catch (...) {
      for (int i = count_ - 1; i >= 0; --i) observers_[i]->after(call_, tokens_[i], false);
      count_ = 0;
      throw;
    }
    observers_[count_++] = o;
  }
}

ObservedCall::~ObservedCall() {
  for (int i = count_ - 1; i >= 0; --i) observers_[i]->after(call_, tokens_[i], launched_);
}

void notify_sync(SyncKind kind, const void* event, Stream stream) noexcept {
  for (auto& slot : g_observers) {
    if (OpObserver* o = slot.load(std::memory_order_acquire)) o->on_sync(kind, event, stream);
  }
}

}  // namespace ctorch::api::ops
