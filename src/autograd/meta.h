// AutogradMeta: the autograd state a TensorImpl carries once it takes part in a graph.
#pragma once

#include <atomic>
#include <memory>
#include <mutex>
#include <vector>

#include "ctorch/autograd_node.h"
#include "ctorch/tensor.h"

namespace ctorch::autograd {

/// Per-tensor autograd state (TensorImpl::autograd_meta). requires_grad lives on the impl itself.
/// Attached once and never replaced (Note [Autograd meta is attached once], ctorch/tensor_impl.h);
/// a hook that must not keep it alive holds weak_from_this().
///
/// Note [Thread safety of autograd state] (PyTorch's Note [Thread Safety on Autograd Node])
/// Several threads may run backward passes that reach the same leaf at once (Hogwild training,
/// DataParallel replicas). `mutex` is the one lock of a tensor's autograd state: every write of
/// `grad` during backward (AccumulateGrad, the retain_grad hook), the creation of the accumulator,
/// `hooks` and `retains_grad` take it. grad_fn, output_nr and view_base are set while recording, by the
/// thread that made the tensor, before any other thread can see it; a stale view's grad_fn is
/// regenerated under `mutex` (current_grad_fn). Reading `grad` while a backward
/// writes it is the caller's race, as in PyTorch. A FormulaNode's saved tensors are guarded by its
/// own mutex (apply and release_variables).
struct AutogradMeta : std::enable_shared_from_this<AutogradMeta> {
  Tensor grad;                              ///< the accumulated gradient (leaves, retain_grad); `mutex`
  std::shared_ptr<Node> grad_fn;            ///< the producing node; null for leaves
  std::weak_ptr<Node> grad_accumulator;     ///< a leaf's AccumulateGrad, made on first use; `mutex`
  uint32_t output_nr = 0;                   ///< which output of grad_fn
  bool retains_grad = false;                ///< retain_grad() was called (non-leaf); `mutex`
  unsigned retain_grad_hook = 0;            ///< the key of retain_grad's pre-hook on grad_fn
  /// A differentiable view's root base (never itself a view): an in-place write into the view
  /// rebases the base's history (copy_slices.h). Undefined for tensors that are not such views.
  Tensor view_base;
  /// The storage version at which the view's grad_fn was set; another value means its base (or a
  /// view of it) was written in place since and grad_fn is regenerated from the base's history.
  std::atomic<uint32_t> view_version{0};
  /// Hooks on a leaf's gradient (non-leaf hooks live on grad_fn as pre-hooks); `mutex`.
  std::vector<std::pair<unsigned, GradHook>> hooks;
  std::mutex mutex;                         ///< guards grad, grad_accumulator, retains_grad and hooks
};

/// The tensor's autograd state, or nullptr.
inline AutogradMeta* meta_of(const Tensor& t) { return t.defined() ? t.impl()->autograd_meta() : nullptr; }

/// `t`'s grad_fn (null for leaves), regenerated first when `t` is a view whose storage was written
/// in place since it was set (PyTorch's grad_fn of a DifferentiableViewMeta).
const std::shared_ptr<Node>& current_grad_fn(const Tensor& t, AutogradMeta& meta);

/// Makes `view` a differentiable view of `base` (or of `base`'s own base).
void make_view_of(const Tensor& view, const Tensor& base);

/// The tensor's autograd state, created when missing.
AutogradMeta& materialize_meta(const Tensor& t);

/// Where a gradient for `t` goes: (grad_fn, output_nr), a leaf's accumulator, or an invalid edge.
Edge gradient_edge(const Tensor& t);

/// The AccumulateGrad node of leaf `t` (made once; the leaf holds it weakly).
std::shared_ptr<Node> grad_accumulator(const Tensor& t);

/// Makes `dst` take `src`'s data and place in the graph (libtorch's set_history, for module
/// replicas whose members alias `dst`): `src`'s grad_fn when it has one, else a leaf that requires
/// grad as `src` does.
void adopt(const Tensor& dst, const Tensor& src);
/// Adds retain_grad's hook (fills .grad) on meta.grad_fn.
void install_retain_grad_hook(AutogradMeta& meta);
/// Makes `fn`, recorded for an in-place write, the tensor's grad_fn; retain_grad's hook moves to it
/// (the tensor's .grad is the gradient of its newest value, as in PyTorch).
void set_inplace_history(AutogradMeta& meta, std::shared_ptr<Node> fn);
/// A fresh key for a hook.
unsigned next_hook_key();

}  // namespace ctorch::autograd
