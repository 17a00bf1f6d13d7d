// Custom differentiable operations (torch.autograd.Function; libtorch's torch::autograd::Function<T>):
// T supplies `static Out forward(AutogradContext*, Args...)` (Out: Tensor or variable_list) and
// `static variable_list backward(AutogradContext*, variable_list grad_outputs)` returning one
// gradient per forward argument (undefined for non-tensor arguments); T::apply(args...) runs
// forward without recording and makes each differentiable output's grad_fn a node that calls backward.
#pragma once

#include <cstddef>
#include <functional>
#include <initializer_list>
#include <memory>
#include <string>
#include <tuple>
#include <type_traits>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "ctorch/autograd_node.h"
#include "ctorch/serialization.h"

namespace ctorch::autograd {

/// A half-open range [first, second) of forward argument indices (libtorch's IndexRange).
using IndexRange = std::pair<size_t, size_t>;

/// What forward hands to backward (torch.autograd.function.FunctionCtx; libtorch's AutogradContext).
class AutogradContext {
 public:
  /// Keeps tensors (inputs or outputs of forward) for backward; a later in-place change of one makes
  /// backward raise PyTorch's "modified by an inplace operation" error.
  void save_for_backward(variable_list to_save);
  /// The tensors save_for_backward kept, in order (PyTorch's error after they were freed or modified).
  variable_list get_saved_variables() const;
  /// Declares inputs forward modified in place: they are outputs of this function afterwards.
  void mark_dirty(const variable_list& inputs);
  /// Declares outputs that get no gradient (integer outputs never do).
  void mark_non_differentiable(const variable_list& outputs);
  /// Whether backward receives zeros for outputs that got no gradient (default) or undefined tensors.
  void set_materialize_grads(bool value) { materialize_grads_ = value; }
  /// Whether tensor argument `index` of forward (counting every argument) needs a gradient (in backward:
  /// whether the running backward or grad() needs it).
  bool needs_input_grad(size_t index) const;
  /// Whether any argument in the ranges needs a gradient.
  bool needs_input_grad(std::initializer_list<IndexRange> ranges) const {
    for (const IndexRange& r : ranges) {
      for (size_t i = r.first; i < r.second; ++i) {
        if (needs_input_grad(i)) return true;
      }
    }
    return false;
  }
  /// Other values for backward (numbers, strings, tensors...): ctx.constant = 5.5 in Python.
  std::unordered_map<std::string, IValue> saved_data;

 private:
  friend struct CustomFunctionCall;
  friend class CustomNode;
  variable_list to_save_;
  std::vector<std::pair<Tensor, bool>> saved_;  // (tensor, is an output), after forward
  std::vector<uint32_t> saved_versions_;
  std::vector<uint32_t> saved_output_nrs_;
  std::weak_ptr<Node> node_;
  std::unordered_set<const TensorImpl*> dirty_, non_differentiable_;
  std::vector<bool> needs_input_grad_;
  std::vector<int> input_of_argument_;  // argument position -> tensor input (next edge), -1 for others
  bool materialize_grads_ = true;
  bool released_ = false;
};

/// One call of a custom function, type-erased: what Function<T>::apply hands to the library.
struct CustomFunctionCall {
  std::string name;                       ///< the node's name (T's class name)
  variable_list inputs;                   ///< the tensor arguments
  std::vector<size_t> input_positions;    ///< where each sits among forward's arguments
  size_t num_arguments = 0;               ///< forward's arguments after the context (a tensor list: one per tensor)
  std::function<variable_list(AutogradContext*)> forward;
  std::function<variable_list(AutogradContext*, variable_list)> backward;
  /// Runs forward without recording, then records one node for the differentiable outputs.
  variable_list run();
};

/// T's class name, demangled ("LinearFunction").
std::string demangled_name(const char* mangled);

/// The base of a custom function (libtorch's torch::autograd::Function<T>).
template <class T>
struct Function {
  /// Runs T::forward on `args` and records T::backward for its outputs; returns what forward returns.
  template <class... Args>
  static auto apply(Args&&... args) {
    using Out = decltype(T::forward(static_cast<AutogradContext*>(nullptr), std::forward<Args>(args)...));
    static_assert(std::is_same_v<Out, Tensor> || std::is_same_v<Out, variable_list>,
                  "a custom function's forward returns a Tensor or a variable_list");
    CustomFunctionCall call;
    call.name = demangled_name(typeid(T).name());
    size_t position = 0;
    // Every tensor is one input; a tensor list counts one per element (libtorch's extract_vars).
    auto collect = [&](const auto& a) {
      using A = std::decay_t<decltype(a)>;
      if constexpr (std::is_convertible_v<A, const Tensor&>) {
        call.inputs.push_back(a);
        call.input_positions.push_back(position++);
      } else if constexpr (std::is_convertible_v<A, ArrayRef<Tensor>>) {  // variable_list, TensorList
        for (const Tensor& t : ArrayRef<Tensor>(a)) {
          call.inputs.push_back(t);
          call.input_positions.push_back(position++);
        }
      } else {
        ++position;
      }
    };
    (collect(args), ...);
    call.num_arguments = position;
    auto refs = std::forward_as_tuple(args...);
    call.forward = [&refs](AutogradContext* ctx) -> variable_list {
      if constexpr (std::is_same_v<Out, Tensor>) {
        return {std::apply([ctx](auto&... a) { return T::forward(ctx, a...); }, refs)};
      } else {
        return std::apply([ctx](auto&... a) { return T::forward(ctx, a...); }, refs);
      }
    };
    call.backward = [](AutogradContext* ctx, variable_list grads) { return T::backward(ctx, std::move(grads)); };
    variable_list out = call.run();
    if constexpr (std::is_same_v<Out, Tensor>) {
      return out.at(0);
    } else {
      return out;
    }
  }
};

}  // namespace ctorch::autograd
