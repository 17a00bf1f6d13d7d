// torch.cuda.make_graphed_callables: functions and nn modules whose forward and backward replay
// CUDA graphs captured once (docs/cuda_graphs.md). A frontend over ctorch/cuda_graph.h and autograd.
#pragma once

#include <functional>
#include <optional>
#include <vector>

#include "ctorch/cuda_graph.h"
#include "ctorch/tensor.h"

namespace ctorch::nn {
class Module;
}

namespace ctorch::cuda {

/// A callable from tensors to tensors (Python's `func(*args)` with flat tensor arguments and results).
using TensorFunction = std::function<std::vector<Tensor>(const std::vector<Tensor>&)>;

/// One callable to graph: a function, or a module's forward (its parameters join the graphed
/// inputs, and the graphs replay only while the module's training flag is as it was at capture).
struct GraphableCallable {
  /// A plain function.
  GraphableCallable(TensorFunction f) : fn(std::move(f)) {}  // NOLINT: implicit, as Python's callables
  /// `forward` of `m`; `m` must outlive the graphed callable.
  GraphableCallable(nn::Module& m, TensorFunction forward) : fn(std::move(forward)), module(&m) {}
  TensorFunction fn;             ///< what to capture
  nn::Module* module = nullptr;  ///< its module, if any
};

/// Graphs each callable (PyTorch's order: warm-up of `num_warmup_iters` forward+backward passes on
/// a side stream, forward graphs 1..N, then backward graphs N..1, all in one memory pool: `pool`
/// or a new graph_pool_handle()). `sample_args[i]` become callable i's static inputs. Each result
/// copies its arguments into the static inputs (unless they are those tensors), replays the
/// forward graph and returns the static outputs detached, with a GraphedBackward node that copies
/// the incoming gradients into static gradient outputs and replays the backward graph (no double
/// backward). The returned gradients are static memory, as PyTorch's.
std::vector<TensorFunction> make_graphed_callables(const std::vector<GraphableCallable>& callables,
                                                   const std::vector<std::vector<Tensor>>& sample_args,
                                                   int num_warmup_iters = 3, bool allow_unused_input = false,
                                                   std::optional<MempoolId> pool = std::nullopt);

/// One callable (Python's non-tuple form).
TensorFunction make_graphed_callables(const GraphableCallable& callable, const std::vector<Tensor>& sample_args,
                                      int num_warmup_iters = 3, bool allow_unused_input = false,
                                      std::optional<MempoolId> pool = std::nullopt);

}  // namespace ctorch::cuda
