// The thread plumbing of a loader whose workers pull jobs from one queue (libtorch's DataLoader
// design): a blocking FIFO with an optional timeout (Queue), a job queue and a result queue that
// count the jobs in flight (DataShuttle), and sequencers that hand results out either as they
// arrive or in job order (OrderedSequencer). Header-only templates: any job and result types.
// Threading contract: Queue is safe from any threads; DataShuttle's push_job/pop_result/drain and
// in_flight_jobs belong to one consumer thread, pop_job/push_result to any worker threads; a
// sequencer belongs to the consumer thread.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <functional>
#include <mutex>
#include <optional>
#include <queue>
#include <utility>
#include <vector>

#include "ctorch/error.h"

namespace ctorch::data::detail {

/// A blocking FIFO queue shared by threads.
template <class T>
class Queue {
 public:
  /// Appends `value` and wakes one waiting pop().
  void push(T value) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      queue_.push(std::move(value));
    }
    cv_.notify_one();
  }

  /// Takes the oldest value, waiting for one; with a timeout, throws if none arrives in time.
  T pop(std::optional<std::chrono::milliseconds> timeout = std::nullopt) {
    std::unique_lock<std::mutex> lock(mutex_);
    const auto ready = [this] { return !queue_.empty(); };
    if (timeout) {
      CTORCH_CHECK(cv_.wait_for(lock, *timeout, ready),
                   "Timeout in DataLoader queue while waiting for next batch (timeout was ", timeout->count(), " ms)");
    } else {
      cv_.wait(lock, ready);
    }
    T value = std::move(queue_.front());
    queue_.pop();
    return value;
  }

  /// Drops every queued value; returns how many there were.
  size_t clear() {
    std::lock_guard<std::mutex> lock(mutex_);
    const size_t n = queue_.size();
    queue_ = std::queue<T>();
    return n;
  }

 private:
  std::mutex mutex_;
  std::condition_variable cv_;
  std::queue<T> queue_;
};

/// Jobs travel to workers and results back; the consumer knows how many are still in flight.
template <class Job, class Result>
class DataShuttle {
 public:
  /// Queues a job for the workers (consumer thread).
  void push_job(Job job) {
    new_jobs_.push(std::move(job));
    ++in_flight_jobs_;
  }
  /// Queues a worker's result (worker threads).
  void push_result(Result result) { results_.push(std::move(result)); }
  /// Takes the next job, waiting for one (worker threads).
  Job pop_job() { return new_jobs_.pop(); }
  /// The next result, or nullopt when no job is in flight (consumer thread); throws on timeout.
  std::optional<Result> pop_result(std::optional<std::chrono::milliseconds> timeout = std::nullopt) {
    if (in_flight_jobs_ == 0) return std::nullopt;
    Result result = results_.pop(timeout);
    --in_flight_jobs_;
    return result;
  }
  /// Cancels queued jobs and waits for the results of those already taken by workers.
  void drain() {
    in_flight_jobs_ -= new_jobs_.clear();
    while (in_flight_jobs_ > 0) (void)pop_result();
  }
  /// Jobs pushed whose results were not popped yet.
  size_t in_flight_jobs() const noexcept { return in_flight_jobs_; }

 private:
  Queue<Job> new_jobs_;
  Queue<Result> results_;
  size_t in_flight_jobs_ = 0;
};

namespace sequencers {

/// Produces the next result (nullopt: none left this epoch).
template <class Result>
using ResultProducer = std::function<std::optional<Result>()>;

/// Decides the order in which a loader hands out results (Result has a `sequence_number`).
template <class Result>
struct Sequencer {
  virtual ~Sequencer() = default;
  /// The next result to hand out, pulling from `next_result` as needed.
  virtual std::optional<Result> next(ResultProducer<Result> next_result) = 0;
};

/// Results in the order they arrive.
template <class Result>
struct NoSequencer final : Sequencer<Result> {
  /// The next result produced.
  std::optional<Result> next(ResultProducer<Result> next_result) override { return next_result(); }
};

/// Results in sequence-number order: early arrivals wait in a ring of `max_jobs` slots.
template <class Result>
struct OrderedSequencer : Sequencer<Result> {
  /// At most `max_jobs` results are in flight at once.
  explicit OrderedSequencer(size_t max_jobs) : buffer_(max_jobs) {}

  /// The result numbered next_sequence_number_, buffering any that arrive before it.
  std::optional<Result> next(ResultProducer<Result> next_result) override {
    if (auto& stored = buffer(next_sequence_number_)) {
      std::optional<Result> result = std::move(stored);
      stored.reset();
      ++next_sequence_number_;
      return result;
    }
    while (true) {
      std::optional<Result> result = next_result();
      if (!result) {
        CTORCH_INTERNAL_ASSERT(buffer_is_empty());
        return std::nullopt;
      }
      if (result->sequence_number == next_sequence_number_) {
        ++next_sequence_number_;
        return result;
      }
      auto& slot = buffer(result->sequence_number);
      CTORCH_INTERNAL_ASSERT(!slot.has_value());
      slot = std::move(result);
    }
  }

  /// The slot of sequence number `n`.
  std::optional<Result>& buffer(size_t n) {
    CTORCH_INTERNAL_ASSERT(!buffer_.empty());
    return buffer_.at(n % buffer_.size());
  }
  /// True when no result waits.
  bool buffer_is_empty() const {
    for (const auto& r : buffer_) {
      if (r.has_value()) return false;
    }
    return true;
  }

  size_t next_sequence_number_ = 0;           ///< The sequence number handed out next.
  std::vector<std::optional<Result>> buffer_;  ///< Results that arrived early, by sequence number modulo size.
};

}  // namespace sequencers
}  // namespace ctorch::data::detail
