// StreamGate: holds an emulated stream at a point until the test opens it, so work queued after
// it (copies, events) stays pending for as long as the test needs.
#pragma once

#include <future>

#include "backends/emulated/runtime.h"
#include "ctorch/error.h"
#include "runtime/device_runtime.h"

namespace ctorch::testing {

/// Blocks emulated streams until open() (or destruction).
class StreamGate {
 public:
  StreamGate() : future_(promise_.get_future().share()) {}
  ~StreamGate() { open(); }
  StreamGate(const StreamGate&) = delete;
  StreamGate& operator=(const StreamGate&) = delete;

  /// Queues a task on `s` that waits for open().
  void block(Stream s) {
    auto* rt = dynamic_cast<backends::emulated::EmulatedRuntime*>(&impl::require_runtime(DeviceType::CUDA));
    CTORCH_CHECK(rt != nullptr, "StreamGate needs emulated devices");
    std::shared_future<void> f = future_;
    rt->enqueue(s, [f] { f.wait(); }, "StreamGate");
  }
  /// Lets the blocked streams run.
  void open() {
    if (!opened_) promise_.set_value();
    opened_ = true;
  }

 private:
  std::promise<void> promise_;
  std::shared_future<void> future_;
  bool opened_ = false;
};

}  // namespace ctorch::testing
