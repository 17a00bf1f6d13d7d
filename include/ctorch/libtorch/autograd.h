// libtorch's autograd extras over ctorch::autograd: make_variable, the UndefinedGrad node (its
// outputs' gradients come back undefined), at::native::is_nonzero, and c10::Warning with its
// WarnAlways guard (torch.set_warn_always).
#pragma once

#include <string>
#include <utility>

#include "ctorch/autograd_function.h"
#include "ctorch/warning.h"

namespace torch::autograd {

/// `data` without history, requiring grad when asked (libtorch's make_variable).
inline ::ctorch::Tensor make_variable(const ::ctorch::Tensor& data, bool requires_grad = false) {
  ::ctorch::Tensor v = data.detach();
  if (requires_grad) v.requires_grad_(true);
  return v;
}

/// Passes its inputs through; backward gives them undefined gradients (libtorch's UndefinedGrad).
struct UndefinedGrad {
  /// The inputs, recorded through a node named UndefinedGradBackward.
  ::ctorch::autograd::variable_list apply(::ctorch::autograd::variable_list&& inputs) const {
    ::ctorch::autograd::CustomFunctionCall call;
    call.name = "UndefinedGradBackward";
    call.inputs = inputs;
    for (size_t i = 0; i < inputs.size(); ++i) call.input_positions.push_back(i);
    call.num_arguments = inputs.size();
    call.forward = [&inputs](::ctorch::autograd::AutogradContext* ctx) {
      ctx->set_materialize_grads(false);
      return inputs;
    };
    call.backward = [](::ctorch::autograd::AutogradContext*, ::ctorch::autograd::variable_list grads) {
      return ::ctorch::autograd::variable_list(grads.size());
    };
    return call.run();
  }
};

}  // namespace torch::autograd

namespace at::native {
/// The truth of a one-element tensor ("Boolean value of Tensor with more than one value is ambiguous").
inline bool is_nonzero(const ::ctorch::Tensor& t) {
  CTORCH_CHECK(t.numel() == 1, t.numel() == 0 ? "Boolean value of Tensor with no values is ambiguous"
                                              : "Boolean value of Tensor with more than one value is ambiguous");
  return t.item<double>() != 0;
}
}  // namespace at::native

namespace c10 {
/// A warning's text (c10::Warning), with the guard that makes warn-once warnings always show.
class Warning {
 public:
  /// Turns torch.set_warn_always on (or off) for a scope.
  class WarnAlways {
   public:
    explicit WarnAlways(bool setting = true) : previous_(::ctorch::is_warn_always_enabled()) {
      ::ctorch::set_warn_always(setting);
    }
    ~WarnAlways() { ::ctorch::set_warn_always(previous_); }
    WarnAlways(const WarnAlways&) = delete;
    WarnAlways& operator=(const WarnAlways&) = delete;

   private:
    bool previous_;
  };
  /// A warning with text `msg`.
  explicit Warning(std::string msg) : msg_(std::move(msg)) {}
  /// The text.
  const std::string& msg() const { return msg_; }

 private:
  std::string msg_;
};
}  // namespace c10
