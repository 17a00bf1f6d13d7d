// autograd::Node and Edge: the recorded graph that backward() walks (torch.autograd.graph.Node).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "ctorch/grad_mode.h"
#include "ctorch/stream.h"
#include "ctorch/tensor.h"

namespace ctorch::autograd {

class Node;

/// Tensors passed between nodes (libtorch's variable_list).
using variable_list = std::vector<Tensor>;

/// One input of a backward node: the node and which of its inputs (a forward output's position).
struct Edge {
  std::shared_ptr<Node> function;  ///< null: the forward input needs no gradient
  uint32_t input_nr = 0;           ///< which gradient input of `function`
  /// True when the edge leads somewhere.
  bool is_valid() const { return function != nullptr; }
};

/// What a gradient flowing into an input must look like: the forward input's shape, dtype and device.
struct InputMetadata {
  DimVector sizes;
  ScalarType dtype = kFloat;
  Device device{DeviceType::CPU};
  /// `t`'s shape, dtype and device (the defaults for an undefined tensor).
  static InputMetadata of(const Tensor& t) {
    if (!t.defined()) return {};
    return {DimVector(t.sizes()), t.dtype(), t.device()};
  }
};

/// A hook on the gradient of one forward output: returns a replacement, or an undefined tensor to keep it.
using GradHook = std::function<Tensor(const Tensor&)>;

/// A backward function: from the gradients of its forward outputs to those of its forward inputs.
class Node : public std::enable_shared_from_this<Node> {
 public:
  Node();
  virtual ~Node();
  Node(const Node&) = delete;
  Node& operator=(const Node&) = delete;

  /// PyTorch's class name of the node ("MulBackward0", "torch::autograd::AccumulateGrad").
  virtual std::string name() const = 0;
  /// Gradients of the forward inputs (one per next edge) from those of the forward outputs.
  virtual variable_list apply(variable_list&& grads) = 0;
  /// Frees the saved tensors (after a backward without retain_graph).
  virtual void release_variables() {}
  /// Runs the hooks registered on this node's inputs; returns the gradients they leave.
  virtual variable_list run_pre_hooks(variable_list grads);

  /// Where the gradients of the forward inputs go (grad_fn.next_functions).
  const std::vector<Edge>& next_edges() const { return next_edges_; }
  /// Number of gradient inputs (forward outputs).
  uint32_t num_inputs() const { return num_inputs_; }
  /// Number of gradient outputs (forward inputs).
  uint32_t num_outputs() const { return static_cast<uint32_t>(next_edges_.size()); }
  /// Creation order; backward runs later nodes first.
  uint64_t sequence_nr() const { return sequence_nr_; }
  /// The stream the forward ran on (cuda nodes), where backward runs this node.
  const std::optional<Stream>& stream() const { return stream_; }
  /// A short description of the forward call, kept while anomaly mode is on.
  const std::string& forward_trace() const { return forward_trace_; }

  /// Adds a hook on gradient input `input_nr` (Tensor::register_hook on a non-leaf); returns its key.
  unsigned add_pre_hook(uint32_t input_nr, GradHook hook);
  /// Removes the hook with `key` (a no-op when absent).
  void remove_pre_hook(unsigned key);

  // Set while recording (autograd/recorder.cpp); not for users.
  std::vector<Edge> next_edges_;
  std::vector<InputMetadata> input_metadata_;  ///< one per next edge
  uint32_t num_inputs_ = 1;
  std::optional<Stream> stream_;
  std::string forward_trace_;
  std::vector<std::string> anomaly_parents_;  ///< traces of the nodes whose backward created this one

 protected:
  /// Fits `grad` (gradient for forward input `i`) to its metadata: sums broadcast dims, casts, moves.
  Tensor fit(const Tensor& grad, size_t i) const;

  uint64_t sequence_nr_;
  struct PreHook {
    unsigned key;
    uint32_t input_nr;
    GradHook fn;
  };
  std::vector<PreHook> pre_hooks_;
  std::mutex hooks_mutex_;
};

}  // namespace ctorch::autograd
