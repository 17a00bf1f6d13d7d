// The backward formulas of the recorded ops (ops/grad_hook.h's GradFn), as one node type.
#pragma once

#include <memory>
#include <mutex>

#include "autograd/saved_variable.h"
#include "ctorch/autograd_node.h"
#include "ops/grad_hook.h"

namespace ctorch::autograd {

/// The backward node of one recorded call: formula `fn` with the op's parameters and saved tensors.
class FormulaNode final : public Node {
 public:
  FormulaNode(ops::GradFn fn, ops::GradArgs args, const char* name) : fn_(fn), args_(std::move(args)), name_(name) {}
  std::string name() const override { return name_; }
  variable_list apply(variable_list&& grads) override;
  void release_variables() override;

  /// Saves what formula `fn` needs from the call (inputs by position, the output as `result`).
  void save(ArrayRef<const Tensor*> inputs, const Tensor& output);

 private:
  Tensor saved(const SavedVariable& v);
  variable_list unary(const Tensor& g);
  variable_list binary(const Tensor& g);
  variable_list reduction(const Tensor& g);
  variable_list gemm(const Tensor& g);
  variable_list shape(const Tensor& g);

  ops::GradFn fn_;
  ops::GradArgs args_;
  const char* name_;
  SavedVariable in0_, in1_, in2_, result_;
  bool released_ = false;
  /// Guards the saved tensors and args_: apply and release_variables may run in several threads
  /// (backward passes over a shared graph; Note [Thread safety of autograd state]).
  std::mutex mutex_;
};

/// PyTorch's node name for a recorded call ("MulBackward0").
const char* formula_name(ops::GradFn fn, const ops::GradArgs& args, ArrayRef<const Tensor*> inputs);

/// True when the in-place form of `fn` needs the value self had before the write.
bool formula_needs_original_self(ops::GradFn fn, const ops::GradArgs& args);

}  // namespace ctorch::autograd
