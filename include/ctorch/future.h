// ctorch::Future (torch.futures.Future): the result of asynchronous work, a list of tensors or an
// error, with callbacks chained by then(). Work::get_future() returns one (c10d's Work::getFuture).
#pragma once

#include <condition_variable>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <vector>

#include "ctorch/tensor.h"

namespace ctorch::inline api {

/// A value (a list of tensors) or an error that becomes available later; thread-safe.
class Future : public std::enable_shared_from_this<Future> {
 public:
  /// Blocks until completed; rethrows the error it completed with, else returns the value.
  const std::vector<Tensor>& wait();
  /// The value of a completed future (rethrows its error); Error when it has not completed.
  const std::vector<Tensor>& value();
  /// True once completed, with a value or with an error (Future.done()).
  bool completed() const;
  /// True when completed with an error.
  bool has_error() const;
  /// A future completed with fn(*this) once this one completes: fn runs at once when this one has
  /// completed, else on the thread that completes it (a process group's worker: fn must not wait for
  /// collectives of that group). An error fn throws completes the returned future with that error.
  /// The future must be owned by a shared_ptr.
  std::shared_ptr<Future> then(std::function<std::vector<Tensor>(Future&)> fn);
  /// Completes with `value` and runs the callbacks (Future.set_result); Error when already completed.
  void mark_completed(std::vector<Tensor> value);
  /// Completes with `error` and runs the callbacks (Future.set_exception); Error when already completed.
  void set_error(std::exception_ptr error);

 private:
  void complete(std::vector<Tensor> value, std::exception_ptr error);

  mutable std::mutex mutex_;
  std::condition_variable cv_;
  bool completed_ = false;                          // guarded by mutex_
  std::vector<Tensor> value_;                       // guarded by mutex_; constant once completed
  std::exception_ptr error_;                        // guarded by mutex_; constant once completed
  std::vector<std::function<void()>> callbacks_;    // guarded by mutex_; run once, at completion
};

}  // namespace ctorch::api
