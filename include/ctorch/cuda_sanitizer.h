// The CUDA stream sanitizer (torch.cuda._sanitizer, "CSAN"): finds kernels and copies on
// different streams that touch the same memory without synchronization, whatever the timing.
// Turned on by CTORCH_CUDA_SANITIZER=1 (or TORCH_CUDA_SANITIZER=1) in the environment, or by
// enable_cuda_sanitizer(); CTORCH_CUDA_SANITIZER=stacks also records C++ stack traces. Works on emulated and real CUDA: it watches ctorch's own calls, above
// the runtime. See docs/streams.md.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ctorch/error.h"
#include "ctorch/stream.h"

namespace ctorch::cuda {

/// Base class of the errors the sanitizer reports (torch.cuda._sanitizer.SynchronizationError).
class SynchronizationError : public Error {
  using Error::Error;
};

/// Two accesses to one allocation on different streams, neither ordered before the other
/// (torch.cuda._sanitizer.UnsynchronizedAccessError). what() is the full report.
class UnsynchronizedAccessError : public SynchronizationError {
 public:
  /// A report of the race on allocation `data_ptr` between `previous` and `current` access.
  UnsynchronizedAccessError(const std::string& report, uintptr_t data_ptr, ::ctorch::Stream current_stream,
                            std::string current_op, ::ctorch::Stream previous_stream, std::string previous_op,
                            bool previous_in_freed_block)
      : SynchronizationError(report),
        data_ptr(data_ptr),
        current_stream(current_stream),
        current_op(std::move(current_op)),
        previous_stream(previous_stream),
        previous_op(std::move(previous_op)),
        previous_in_freed_block(previous_in_freed_block) {}

  uintptr_t data_ptr;                ///< the allocation (storage data pointer) both accesses touch
  ::ctorch::Stream current_stream;   ///< the stream of the access being launched
  std::string current_op;            ///< its kernel ("add", "copy_", ...)
  ::ctorch::Stream previous_stream;  ///< the stream of the earlier, unordered access
  std::string previous_op;           ///< its kernel
  bool previous_in_freed_block;      ///< the earlier access was to a freed tensor whose block was reused
};

/// What a launch with races throws, after printing each report to stderr
/// (torch.cuda._sanitizer.CUDASanitizerErrors). The racing kernel is not launched.
class CUDASanitizerErrors : public Error {
 public:
  /// Wraps `errors` (at least one); what() is "detected N errors".
  explicit CUDASanitizerErrors(std::vector<UnsynchronizedAccessError> errors);
  /// The races found.
  const std::vector<UnsynchronizedAccessError>& errors() const { return errors_; }

 private:
  std::vector<UnsynchronizedAccessError> errors_;
};

/// Starts checking every CUDA kernel and copy from now on (torch.cuda._sanitizer.enable_cuda_sanitizer);
/// `stack_traces` also records each launch's C++ stack for the reports (about 10x slower launches).
void enable_cuda_sanitizer(bool stack_traces = false);
/// Stops checking and forgets all tracked accesses (a ctorch addition, for tests and benchmarks).
void disable_cuda_sanitizer();
/// True while the sanitizer is on.
bool is_cuda_sanitizer_enabled() noexcept;

}  // namespace ctorch::cuda
