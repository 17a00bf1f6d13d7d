// AccumulateGrad: the node at a leaf that adds incoming gradients into its .grad.
#pragma once

#include "ctorch/autograd_node.h"

namespace ctorch::autograd {

/// Adds the gradient it receives into its leaf's .grad (torch::autograd::AccumulateGrad).
class AccumulateGrad final : public Node {
 public:
  /// The accumulator of leaf `variable`.
  explicit AccumulateGrad(Tensor variable);
  std::string name() const override { return "torch::autograd::AccumulateGrad"; }
  variable_list apply(variable_list&& grads) override;
  /// The leaf's hooks run first (Tensor::register_hook on a leaf).
  variable_list run_pre_hooks(variable_list grads) override;
  /// The leaf.
  const Tensor& variable() const { return variable_; }

 private:
  Tensor variable_;
};

}  // namespace ctorch::autograd
