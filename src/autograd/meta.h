// AutogradMeta: the autograd state a TensorImpl carries once it takes part in a graph.
#pragma once

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
/// `hooks` and `retains_grad` take it. grad_fn, output_nr and is_view are set while recording, by the
/// thread that made the tensor, before any other thread can see it. Reading `grad` while a backward
/// writes it is the caller's race, as in PyTorch. A FormulaNode's saved tensors are guarded by its
/// own mutex (apply and release_variables).
struct AutogradMeta : std::enable_shared_from_this<AutogradMeta> {
  Tensor grad;                              ///< the accumulated gradient (leaves, retain_grad); `mutex`
  std::shared_ptr<Node> grad_fn;            ///< the producing node; null for leaves
  std::weak_ptr<Node> grad_accumulator;     ///< a leaf's AccumulateGrad, made on first use; `mutex`
  uint32_t output_nr = 0;                   ///< which output of grad_fn
  bool retains_grad = false;                ///< retain_grad() was called (non-leaf); `mutex`
  bool is_view = false;                     ///< made as a view while recording
  /// Hooks on a leaf's gradient (non-leaf hooks live on grad_fn as pre-hooks); `mutex`.
  std::vector<std::pair<unsigned, GradHook>> hooks;
  std::mutex mutex;                         ///< guards grad, grad_accumulator, retains_grad and hooks
};

/// The tensor's autograd state, or nullptr.
inline AutogradMeta* meta_of(const Tensor& t) { return t.defined() ? t.impl()->autograd_meta() : nullptr; }

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
/// A fresh key for a hook.
unsigned next_hook_key();

}  // namespace ctorch::autograd
