// FormulaNode: the backward node of one recorded call, running its gradient-table entry
// (derivatives.h) with the tensors that entry says to save.
#pragma once

#include <memory>
#include <mutex>

#include "autograd/derivatives.h"
#include "autograd/saved_variable.h"
#include "ctorch/autograd_node.h"

namespace ctorch::autograd {

/// The backward node of one recorded call: entry `derivative` with the op's parameters and saved tensors.
class FormulaNode final : public Node {
 public:
  FormulaNode(const Derivative& derivative, ops::GradArgs args, const char* name)
      : derivative_(derivative), args_(std::move(args)), name_(name) {}
  std::string name() const override { return name_; }
  variable_list apply(variable_list&& grads) override;
  void release_variables() override;

  /// Saves what the entry reads for the wanted gradients (inputs by position, the output as result).
  /// For an in-place op, `version_before` is the output's version before the write: an input that
  /// shares its storage is saved with it (reading it at backward raises PyTorch's error).
  void save(ArrayRef<const Tensor*> inputs, const Tensor& output, std::optional<uint32_t> version_before);
  /// The gradient-table entry this node runs.
  const Derivative& derivative() const { return derivative_; }

 private:
  friend class FormulaContext;
  Tensor unpack(const SavedVariable& v);

  const Derivative& derivative_;
  ops::GradArgs args_;
  const char* name_;
  SavedVariable inputs_[3], result_;
  /// Guards the saved tensors and args_: apply and release_variables may run in several threads
  /// (backward passes over a shared graph; Note [Thread safety of autograd state]).
  std::mutex mutex_;
};

}  // namespace ctorch::autograd
