// In-place writes into views: PyTorch's CopySlices node and differentiable views.
//
// Note [In-place on views]
// - A view made while recording (a gradient-table entry with is_view, a custom function returning
//   an input) is a differentiable view: its AutogradMeta holds its root base (meta.h view_base).
//   set_item tracks its view too when the value written requires grad (x[i] = y).
// - An in-place op on such a view records its node `fn` as on any tensor, then wraps it: the base's
//   grad_fn becomes CopySlices(fn), which takes the base's gradient, runs fn on the view's part of
//   it and puts fn's gradient for the view's old value back into that part; fn's gradients for the
//   other operands pass through.
// - The view's grad_fn becomes AsStridedBackward0 over the base's new history. Every other view of
//   that storage regenerates its grad_fn the same way when next used, since the write bumped the
//   storage's version (current_grad_fn).
#pragma once

#include <memory>
#include <mutex>

#include "ctorch/autograd_node.h"
#include "ctorch/tensor.h"

namespace ctorch::autograd {

/// A tensor's place in its storage (PyTorch's TensorGeometry).
struct Geometry {
  DimVector sizes, strides;
  int64_t storage_offset = 0;
  /// `t`'s geometry.
  static Geometry of(const Tensor& t) { return {DimVector(t.sizes()), DimVector(t.strides()), t.storage_offset()}; }
};

/// The base's grad_fn after an in-place op `fn` wrote into one of its views (torch::autograd::CopySlices).
class CopySlices final : public Node {
 public:
  /// Wraps `fn`, recorded for a write into `view` of `base`: edge 0 goes to the base's history, the
  /// others are fn's.
  CopySlices(const Tensor& base, const Tensor& view, std::shared_ptr<Node> fn);
  std::string name() const override { return "torch::autograd::CopySlices"; }
  variable_list apply(variable_list&& grads) override;
  void release_variables() override;

 private:
  Geometry base_, view_;
  std::shared_ptr<Node> fn_;
  std::mutex mutex_;  ///< guards fn_ (apply and release_variables may run in several threads)
};

/// Gives `view`'s base the history of `fn`, just recorded for an in-place write into `view`, and
/// `view` an AsStridedBackward0 grad_fn over it (Note [In-place on views]).
void rebase_history(const Tensor& view, std::shared_ptr<Node> fn);

}  // namespace ctorch::autograd
