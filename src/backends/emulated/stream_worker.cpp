// StreamWorker: a thread per emulated stream. See stream_worker.h for the contract.
#include "backends/emulated/stream_worker.h"

#include <chrono>
#include <exception>
#include <utility>

namespace ctorch::inline api::backends::emulated {
namespace {

thread_local StreamWorker* t_current_worker = nullptr;

// Serializes tasks that run inline after shutdown (process exit), keeping them in one order.
std::mutex& inline_mutex() {
  static auto* m = new std::mutex();  // leaked: used during static destruction
  return *m;
}

// Note [Spin before block]: waking a thread blocked on a condition variable costs a futex
// system call on each side and, on an idle virtual machine, tens of microseconds of wake-up
// latency. A worker that has just run a task polls for the next one, and a host thread waiting
// for a ticket polls for it, for up to kSpin before blocking: back-to-back launches and
// synchronizations of short work then never sleep, while idle streams still block.
constexpr auto kSpin = std::chrono::microseconds(30);

// Polls `ready` until it returns true or kSpin has passed.
template <class Ready>
bool spin_until(const Ready& ready) {
  const auto deadline = std::chrono::steady_clock::now() + kSpin;
  for (;;) {
    for (int i = 0; i < 64; ++i) {
      if (ready()) return true;
      __builtin_ia32_pause();
    }
    if (std::chrono::steady_clock::now() >= deadline) return ready();
  }
}

}  // namespace

StreamWorker::StreamWorker(std::string label, WorkerOptions options)
    : label_(std::move(label)), options_(options),
      rng_(options.seed ^ std::hash<std::string>{}(label_)) {}

StreamWorker::~StreamWorker() {
  // Owners drain the queue first (EmulatedRuntime does), so this only waits for the thread to
  // notice stop_. A thread detached by shutdown() is left alone: its object is never destroyed.
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  work_cv_.notify_all();
  if (thread_.joinable()) {
    if (thread_.get_id() == std::this_thread::get_id()) {
      thread_.detach();
    } else {
      thread_.join();
    }
  }
}

StreamWorker* StreamWorker::current() noexcept { return t_current_worker; }

Ticket StreamWorker::enqueue(std::function<void()> fn, std::string site, bool always_run, uint8_t activity) {
  std::unique_lock<std::mutex> lock(mu_);
  if (stop_) {
    // After shutdown (process exit): run on the caller, in order, as a synchronous stream.
    lock.unlock();
    std::lock_guard<std::mutex> serial(inline_mutex());
    lock.lock();
    const bool skip = sticky_ticket_ != 0 && !always_run;
    lock.unlock();
    Task task{std::move(fn), std::move(site), always_run, activity};
    std::string error;
    const bool ok = skip || run(task, &error);
    lock.lock();
    ++submitted_;
    finish_locked(ok, task.site, error);
    return submitted_;
  }
  queue_.push_back(Task{std::move(fn), std::move(site), always_run, activity});
  queued_mirror_.store(queue_.size(), std::memory_order_release);
  const Ticket ticket = ++submitted_;
  if (!started_) {
    started_ = true;
    thread_ = std::thread([this] { loop(); });
  }
  lock.unlock();
  work_cv_.notify_one();
  return ticket;
}

Ticket StreamWorker::submitted() const {
  std::lock_guard<std::mutex> lock(mu_);
  return submitted_;
}

bool StreamWorker::done(Ticket t) const {
  std::lock_guard<std::mutex> lock(mu_);
  return completed_ >= t;
}

bool StreamWorker::idle() const {
  std::lock_guard<std::mutex> lock(mu_);
  return completed_ >= submitted_;
}

void StreamWorker::wait(Ticket t) const {
  if (spin_until([&] { return completed_mirror_.load(std::memory_order_acquire) >= t; })) return;
  std::unique_lock<std::mutex> lock(mu_);
  if (completed_ >= t) return;
  ++waiters_;
  done_cv_.wait(lock, [&] { return completed_ >= t; });
  --waiters_;
}

bool StreamWorker::sticky_error(Ticket t, std::string* message) const {
  std::lock_guard<std::mutex> lock(mu_);
  if (sticky_ticket_ == 0 || sticky_ticket_ > t) return false;
  if (message) *message = sticky_message_;
  return true;
}

int StreamWorker::next_delay_us() {
  uint64_t z = (rng_ += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return static_cast<int>((z ^ (z >> 31)) % 2001);
}

bool StreamWorker::run(Task& task, std::string* error) {
  DeviceActivity* meters = task.activity != kActivityNone ? options_.activity : nullptr;
  if (meters) meters->begin(task.activity, steady_now_ns());
  bool ok = false;
  try {
    task.fn();
    ok = true;
  } catch (const std::exception& e) {
    *error = e.what();
  } catch (...) {
    *error = "unknown exception (not derived from std::exception)";
  }
  if (meters) meters->end(task.activity, steady_now_ns());
  return ok;
}

void StreamWorker::finish_locked(bool ok, const std::string& site, const std::string& error) {
  ++completed_;
  completed_mirror_.store(completed_, std::memory_order_release);
  if (!ok && sticky_ticket_ == 0) {
    sticky_ticket_ = completed_;
    sticky_message_.assign(error);
    sticky_message_.append("\n(asynchronous error on ").append(label_).append(" in '").append(site);
    sticky_message_.append("'; later work on this stream is skipped)");
  }
  if (waiters_ > 0) done_cv_.notify_all();
}

void StreamWorker::loop() {
  t_current_worker = this;
  std::unique_lock<std::mutex> lock(mu_);
  for (;;) {
    if (queue_.empty() && !stop_) {
      lock.unlock();
      spin_until([&] { return queued_mirror_.load(std::memory_order_acquire) > 0; });
      lock.lock();
    }
    work_cv_.wait(lock, [&] { return stop_ || !queue_.empty(); });
    if (stop_) break;
    Task task = std::move(queue_.front());
    queue_.pop_front();
    queued_mirror_.store(queue_.size(), std::memory_order_release);
    const bool skip = sticky_ticket_ != 0 && !task.always_run;
    lock.unlock();
    std::string error;
    bool ok = true;
    if (!skip) {
      if (options_.reorder) std::this_thread::sleep_for(std::chrono::microseconds(next_delay_us()));
      ok = run(task, &error);
    }
    task.fn = nullptr;  // destroy the captures outside the lock
    lock.lock();
    finish_locked(ok, task.site, error);
  }
  // Shutdown: queued tasks are dropped (their captures destroyed outside the lock).
  std::deque<Task> dropped;
  dropped.swap(queue_);
  completed_ += dropped.size();
  completed_mirror_.store(completed_, std::memory_order_release);
  queued_mirror_.store(0, std::memory_order_release);
  exited_ = true;
  done_cv_.notify_all();
  lock.unlock();
  dropped.clear();
}

void StreamWorker::shutdown(std::chrono::milliseconds timeout) noexcept {
  std::unique_lock<std::mutex> lock(mu_);
  if (stop_) return;
  stop_ = true;
  if (!started_) return;
  work_cv_.notify_all();
  ++waiters_;
  const bool exited = done_cv_.wait_for(lock, timeout, [&] { return exited_; });
  --waiters_;
  lock.unlock();
  if (thread_.get_id() == std::this_thread::get_id()) {
    thread_.detach();  // a task is shutting down its own worker (exit() called from a task)
  } else if (exited) {
    thread_.join();
  } else {
    // A task is blocked (e.g. on a latch nobody releases). Leave it, and count its queue as done
    // so that later waits (raw_free during static destruction) do not hang on it.
    thread_.detach();
    std::deque<Task> dropped;
    lock.lock();
    dropped.swap(queue_);
    completed_ = submitted_;
    completed_mirror_.store(completed_, std::memory_order_release);
    queued_mirror_.store(0, std::memory_order_release);
    done_cv_.notify_all();
    lock.unlock();
  }
}

}  // namespace ctorch::api::backends::emulated
