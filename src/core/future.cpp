// ctorch::Future (ctorch/future.h).
#include "ctorch/future.h"

#include "ctorch/error.h"

namespace ctorch::inline api {

const std::vector<Tensor>& Future::wait() {
  std::unique_lock<std::mutex> lock(mutex_);
  cv_.wait(lock, [&] { return completed_; });
  if (error_) std::rethrow_exception(error_);
  return value_;
}

const std::vector<Tensor>& Future::value() {
  std::lock_guard<std::mutex> lock(mutex_);
  CTORCH_CHECK(completed_, "Future::value() called before the future completed: call wait() first, or read the "
               "value in a callback of then()");
  if (error_) std::rethrow_exception(error_);
  return value_;
}

bool Future::completed() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return completed_;
}

bool Future::has_error() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return completed_ && error_ != nullptr;
}

std::shared_ptr<Future> Future::then(std::function<std::vector<Tensor>(Future&)> fn) {
  CTORCH_CHECK_VALUE(fn != nullptr, "Future::then: the callback is empty");
  auto child = std::make_shared<Future>();
  auto self = shared_from_this();
  auto run = [self, child, fn = std::move(fn)] {
    std::vector<Tensor> result;
    try {
      result = fn(*self);
    } catch (...) {
      child->set_error(std::current_exception());
      return;
    }
    child->mark_completed(std::move(result));
  };
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!completed_) {
      callbacks_.push_back(std::move(run));
      return child;
    }
  }
  run();
  return child;
}

void Future::mark_completed(std::vector<Tensor> value) { complete(std::move(value), nullptr); }

void Future::set_error(std::exception_ptr error) {
  CTORCH_CHECK_VALUE(error != nullptr, "Future::set_error: the error is null");
  complete({}, std::move(error));
}

void Future::complete(std::vector<Tensor> value, std::exception_ptr error) {
  std::vector<std::function<void()>> callbacks;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    CTORCH_CHECK(!completed_, "Attempting to mark a completed Future as complete again. Note that a Future can only "
                 "be marked completed once.");
    completed_ = true;
    value_ = std::move(value);
    error_ = std::move(error);
    callbacks.swap(callbacks_);
  }
  cv_.notify_all();
  for (auto& cb : callbacks) cb();  // outside the lock: a callback may read this future
}

}  // namespace ctorch::api
