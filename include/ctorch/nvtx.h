// ctorch::cuda::nvtx (torch.cuda.nvtx): named ranges and marks for profilers. Built with CUDA,
// every call also goes to NVTX3 (seen by Nsight Systems); always, ranges are counted per thread
// and recorded by the built-in tracer (ctorch/cuda_trace.h).
#pragma once

#include <cstdint>
#include <string>

namespace ctorch::cuda::nvtx {

/// Marks an instant named `msg`.
void mark(const std::string& msg);
/// Starts a nested range on the calling thread; returns its zero-based depth.
int range_push(const std::string& msg);
/// Ends the calling thread's innermost range; returns its depth, or -1 when none is open (as NVTX).
int range_pop();
/// Starts a range that may end on another thread; returns its handle.
uint64_t range_start(const std::string& msg);
/// Ends the range of `range_id` (an unknown or already ended handle is ignored, as NVTX does).
void range_end(uint64_t range_id);
/// True when NVTX calls reach the NVTX3 library (a build with CUDA).
bool has_nvtx() noexcept;

/// A range for the scope: range_push(msg) now, range_pop() at exit (torch.cuda.nvtx.range).
class range {  // NOLINT(readability-identifier-naming): torch.cuda.nvtx.range
 public:
  /// Pushes `msg`.
  explicit range(const std::string& msg) { range_push(msg); }
  ~range() { range_pop(); }
  range(const range&) = delete;
  range& operator=(const range&) = delete;
};

}  // namespace ctorch::cuda::nvtx
