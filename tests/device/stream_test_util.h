// Helpers for stream and event tests on emulated devices: a gate that holds a stream until the
// test opens it, so orderings can be checked deterministically.
#pragma once

#include <future>
#include <utility>

#include "backends/emulated/runtime.h"
#include "ctorch/cuda_stream.h"
#include "ctorch/error.h"
#include "runtime/device_runtime.h"

namespace ctorch::testing {

/// Blocks emulated streams until open(); opens at destruction so a failing test cannot hang.
class Gate {
 public:
  Gate() = default;
  Gate(const Gate&) = delete;
  Gate& operator=(const Gate&) = delete;
  ~Gate() { open(); }

  /// Queues a task on `s` that waits for open(); throws when the cuda runtime is not emulated.
  void block(Stream s) {
    auto* rt = dynamic_cast<backends::emulated::EmulatedRuntime*>(&impl::require_runtime(DeviceType::CUDA));
    CTORCH_CHECK(rt != nullptr, "Gate needs emulated devices");
    std::shared_future<void> f = future_;
    rt->enqueue(s, [f] { f.wait(); }, "gate");
  }
  /// As block(Stream).
  void block(const cuda::Stream& s) { block(s.unwrap()); }
  /// Releases every blocked stream.
  void open() {
    if (opened_) return;
    opened_ = true;
    promise_.set_value();
  }

 private:
  std::promise<void> promise_;
  std::shared_future<void> future_ = promise_.get_future().share();
  bool opened_ = false;
};

}  // namespace ctorch::testing
