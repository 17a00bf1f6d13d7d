// Helpers for stream and event tests on emulated devices: a gate that holds a stream until the
// test opens it, so orderings can be checked deterministically.
#pragma once

#include <future>
#include <utility>

#include "backends/emulated/runtime.h"
#include "ctorch/cuda_stream.h"

namespace ctorch::testing {

/// Blocks streams (emulated only) until open(); opens at destruction so a failing test cannot hang.
class Gate {
 public:
  /// Queues a task on `s` that waits for open().
  void block(const cuda::Stream& s) {
    std::shared_future<void> f = future_;
    backends::emulated::instance().enqueue(s.unwrap(), [f] { f.wait(); }, "gate");
  }
  /// Releases every blocked stream.
  void open() {
    if (opened_) return;
    opened_ = true;
    promise_.set_value();
  }
  ~Gate() { open(); }

 private:
  std::promise<void> promise_;
  std::shared_future<void> future_ = promise_.get_future().share();
  bool opened_ = false;
};

}  // namespace ctorch::testing
