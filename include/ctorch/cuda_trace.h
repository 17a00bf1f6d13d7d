// ctorch::cuda::trace: a built-in tracer that records stream tasks (kernels, copies, memsets,
// event records and waits), host synchronizations and NVTX ranges, and writes Chrome
// trace-event JSON (open it in https://ui.perfetto.dev or chrome://tracing).
//
// Each stream of a device is a row. Emulated devices report every task as it runs; on real CUDA,
// kernels, copies and memsets are timed by events and placed when stop() waits for them. On
// emulated devices, synchronize before stop() to capture work still queued.
#pragma once

#include <string>

namespace ctorch::cuda::trace {

/// Clears earlier records and starts recording.
void start();
/// Stops recording (ranges still open are closed at this time).
void stop();
/// True while recording.
bool is_tracing() noexcept;
/// The records so far as Chrome trace-event JSON ({"traceEvents": [...]}).
std::string json();
/// Writes json() to `path`; throws ctorch::Error when the file cannot be written.
void save(const std::string& path);

}  // namespace ctorch::cuda::trace
