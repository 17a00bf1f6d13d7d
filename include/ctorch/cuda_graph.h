// CUDA graphs: torch.cuda.CUDAGraph, torch.cuda.graph, graph_pool_handle and
// is_current_stream_capturing (docs/cuda_graphs.md). Work queued on a capturing stream is
// recorded, not run; replay() runs it again on the current stream, reading and writing the same
// memory (keep static inputs and outputs, refill inputs in place). Emulated and real CUDA.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>

#include "ctorch/cuda_stream.h"

namespace ctorch::cuda {

/// A private memory pool's id (PyTorch's MempoolId_t): (capture id, 0) or (0, handle id).
using MempoolId = std::pair<uint64_t, uint64_t>;

/// Which threads may not make potentially unsafe CUDA calls while a capture runs (cudaStreamCaptureMode).
enum class CaptureErrorMode {
  global,         ///< no thread ("global", the default)
  thread_local_,  ///< the capturing thread ("thread_local")
  relaxed,        ///< nobody ("relaxed")
};

/// Parses "global", "thread_local" or "relaxed"; throws ValueError otherwise.
CaptureErrorMode capture_error_mode(const std::string& name);

/// torch.cuda.graph_pool_handle(): a new pool id (0, n), n counting from 1, for graphs to share.
MempoolId graph_pool_handle();

/// torch.cuda.is_current_stream_capturing(): true when the current stream of the current device
/// captures (false, creating no context, when CUDA is not initialized).
bool is_current_stream_capturing();

/// torch.cuda.CUDAGraph: one captured graph. Not copyable; the destructor resets it.
class CUDAGraph {
 public:
  /// An empty graph.
  CUDAGraph();
  /// reset().
  ~CUDAGraph();
  CUDAGraph(const CUDAGraph&) = delete;
  CUDAGraph& operator=(const CUDAGraph&) = delete;

  /// Starts capturing the current stream (not the default stream) into this graph; allocations
  /// on it come from `pool` (shared with the graphs that pass the same id) or a new pool.
  void capture_begin(MempoolId pool = {}, CaptureErrorMode mode = CaptureErrorMode::global);
  /// Ends the capture (on the stream it began on) and instantiates the graph.
  void capture_end();
  /// Runs the captured work on the current stream, after advancing the CUDA generator.
  void replay();
  /// Frees the graph and drops its use of the memory pool (tensors made during capture keep
  /// their memory). Never throws.
  void reset() noexcept;
  /// The memory pool id, to share with another graph's capture_begin.
  MempoolId pool() const;
  /// Keeps the captured graph for debug_dump().
  void enable_debug_mode();
  /// Writes the graph (debug mode) to `path` (cudaGraphDebugDotPrint; a dot file on emulated devices).
  void debug_dump(const std::string& path);

 private:
  struct State;
  State* state_;
};

/// torch.cuda.graph(cuda_graph, pool, stream, capture_error_mode): a scope that captures into
/// `graph`. Entering synchronizes the device, empties the cache, makes `stream` (default: one
/// side stream shared by all graph scopes) current and begins the capture; leaving ends it and
/// restores the stream. When the capture cannot end while an exception unwinds, the unwinding
/// exception wins (the graph stays reset).
class graph {
 public:
  /// Enters the scope.
  explicit graph(CUDAGraph& cuda_graph, std::optional<MempoolId> pool = std::nullopt,
                 std::optional<Stream> stream = std::nullopt, const std::string& capture_error_mode = "global");
  /// Ends the capture and leaves the scope.
  ~graph() noexcept(false);
  graph(const graph&) = delete;
  graph& operator=(const graph&) = delete;

 private:
  CUDAGraph& graph_;
  std::optional<StreamContext> context_;
  int uncaught_;
};

}  // namespace ctorch::cuda
