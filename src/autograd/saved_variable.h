// SavedVariable: a tensor a backward formula keeps, with the version it had when saved.
#pragma once

#include <memory>

#include "ctorch/autograd_node.h"
#include "ctorch/tensor.h"

namespace ctorch::autograd {

/// A saved input or output of a recorded op (torch's SavedVariable).
class SavedVariable {
 public:
  SavedVariable() = default;
  /// Saves `t`; an output of the recording node is kept without its history (no reference cycle).
  SavedVariable(const Tensor& t, bool is_output);

  /// The saved tensor; throws PyTorch's error when it was released or modified in place since.
  /// An output gets `owner` as its grad_fn again when the graph is being differentiated (create_graph).
  Tensor unpack(const std::shared_ptr<Node>& owner, const char* node_name) const;
  /// Drops the tensor (backward without retain_graph).
  void reset();
  /// True when something was saved.
  bool defined() const { return saved_; }

 private:
  Tensor data_;
  uint32_t version_ = 0;
  uint32_t output_nr_ = 0;
  bool is_output_ = false;
  bool saved_ = false;
  bool released_ = false;
};

}  // namespace ctorch::autograd
