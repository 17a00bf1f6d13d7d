// SavedVariable: a tensor a backward formula keeps, with the version it had when saved.
#pragma once

#include <memory>
#include <optional>

#include "ctorch/autograd_node.h"
#include "ctorch/tensor.h"

namespace ctorch::autograd {

struct AutogradMeta;

/// PyTorch's ERR_BACKWARD_TWICE: a graph's saved values were freed by an earlier backward.
inline constexpr const char* kBackwardTwice =
    "Trying to backward through the graph a second time (or directly access saved tensors after they have already "
    "been freed). Saved intermediate values of the graph are freed when you call .backward() or autograd.grad(). "
    "Specify retain_graph=True if you need to backward through the graph a second time or if you need to access "
    "saved tensors after calling backward.";

/// A saved input or output of a recorded op (torch's SavedVariable).
class SavedVariable {
 public:
  SavedVariable() = default;
  /// Saves `t`; an output of the recording node is kept without its history (no reference cycle).
  /// `version` is the one a later read expects (default: t's version now).
  SavedVariable(const Tensor& t, bool is_output, std::optional<uint32_t> version = std::nullopt);
  /// Saves `t`, an operand of an in-place op that shares the written storage, with the `version`
  /// before the write: reading it raises PyTorch's error. Its history is held weakly, for that
  /// error's text only (a strong reference could close a cycle through the written tensor's node).
  static SavedVariable overwritten(const Tensor& t, uint32_t version);

  /// The saved tensor; throws PyTorch's error when it was released or modified in place since.
  /// An output gets `owner` as its grad_fn again when the graph is being differentiated (create_graph).
  Tensor unpack(const std::shared_ptr<Node>& owner, const char* node_name) const;
  /// Drops the tensor (backward without retain_graph).
  void reset();
  /// True when something was saved.
  bool defined() const { return saved_; }

 private:
  Tensor data_;
  std::weak_ptr<AutogradMeta> alias_meta_;  ///< overwritten(): the operand's autograd state
  uint32_t version_ = 0;
  uint32_t output_nr_ = 0;
  bool is_output_ = false;
  bool saved_ = false;
  bool released_ = false;
};

}  // namespace ctorch::autograd
