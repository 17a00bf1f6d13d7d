// AutogradMeta: the autograd state a TensorImpl carries once it takes part in a graph.
#pragma once

#include <memory>
#include <mutex>
#include <vector>

#include "ctorch/autograd_node.h"
#include "ctorch/tensor.h"

namespace ctorch::autograd {

/// Per-tensor autograd state (TensorImpl::autograd_meta). requires_grad lives on the impl itself.
struct AutogradMeta {
  Tensor grad;                              ///< the accumulated gradient (leaves, retain_grad)
  std::shared_ptr<Node> grad_fn;            ///< the producing node; null for leaves
  std::weak_ptr<Node> grad_accumulator;     ///< a leaf's AccumulateGrad, made on first use
  uint32_t output_nr = 0;                   ///< which output of grad_fn
  bool retains_grad = false;                ///< retain_grad() was called (non-leaf)
  bool is_view = false;                     ///< made as a view while recording
  /// Hooks on a leaf's gradient (non-leaf hooks live on grad_fn as pre-hooks).
  std::vector<std::pair<unsigned, GradHook>> hooks;
  std::mutex mutex;                         ///< guards grad_accumulator creation and hooks
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
