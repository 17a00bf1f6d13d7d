// libtorch's C++ frontend over ctorch::nn and ctorch::optim: module holders (`torch::nn::Linear`
// used through `->`), the *Impl classes with their Options, TORCH_MODULE, and the free functions
// training code calls (torch::relu, torch::nll_loss, ...). Everything forwards to the native API.
// torch::save/load: libtorch/serialize.h. Containers (Sequential, ModuleList, ModuleDict, AnyModule):
// libtorch/containers.h. The layer families (conv, pooling, padding, normalization, dropout,
// embedding, ...) are in libtorch/modules_*.h and functional_layers.h, included at the end.
#pragma once

#include <initializer_list>
#include <memory>
#include <ostream>
#include <tuple>
#include <type_traits>
#include <utility>

#include "ctorch/ctorch.h"
#include "ctorch/libtorch/any_value.h"

namespace torch::nn {
// Named one by one, not with a using-directive: the native layer classes (ctorch::nn::Linear) would
// collide with the holders below for code that says `using namespace torch::nn;`.
using ::ctorch::nn::Module;
using ::ctorch::nn::NamedTensors;
// torch::nn::functional holds libtorch's *FuncOptions forms (libtorch/functional_*.h) and sees the
// native functions through the using-directive; a name declared here hides the native overloads of
// that name from qualified calls (`F::elu(x, options)`).
namespace functional {
using namespace ::ctorch::nn::functional;  // NOLINT(google-build-using-namespace)
}  // namespace functional

/// Owns a module through a shared pointer and forwards calls to it (libtorch's ModuleHolder).
template <class Contained>
class ModuleHolder {
 public:
  using ContainedType = Contained;
  /// An empty holder (`torch::nn::Linear fc{nullptr}`), filled later by assignment.
  ModuleHolder(std::nullptr_t) {}  // NOLINT: libtorch's implicit form
  /// A module built from `args` (Contained's constructor).
  template <class Head, class... Tail>
    requires(!(std::is_base_of_v<ModuleHolder, std::decay_t<Head>> && sizeof...(Tail) == 0) &&
             !std::is_same_v<std::decay_t<Head>, std::nullptr_t> && std::is_constructible_v<Contained, Head, Tail...>)
  explicit ModuleHolder(Head&& head, Tail&&... tail)
      : impl_(std::make_shared<Contained>(std::forward<Head>(head), std::forward<Tail>(tail)...)) {}
  /// Wraps an existing module.
  ModuleHolder(std::shared_ptr<Contained> module) : impl_(std::move(module)) {}  // NOLINT
  /// Contained's default module.
  ModuleHolder()
    requires std::is_default_constructible_v<Contained>
      : impl_(std::make_shared<Contained>()) {}

  Contained* operator->() const { return get(); }
  Contained& operator*() const { return *get(); }
  /// The module (throws when empty).
  Contained* get() const {
    CTORCH_CHECK(impl_ != nullptr, "Accessing empty ModuleHolder");
    return impl_.get();
  }
  /// The shared pointer.
  const std::shared_ptr<Contained>& ptr() const { return impl_; }
  /// True when nothing is held.
  bool is_empty() const { return impl_ == nullptr; }
  /// Calls the module's forward.
  template <class... Args>
  auto operator()(Args&&... args) const {
    return get()->forward(std::forward<Args>(args)...);
  }
  /// The module's operator[] (a container's element).
  template <class Arg>
  decltype(auto) operator[](Arg&& arg) const {
    return (*get())[std::forward<Arg>(arg)];
  }

 private:
  std::shared_ptr<Contained> impl_;
};

}  // namespace torch::nn

/// Declares `Name` as the holder of `NameImpl` (libtorch's TORCH_MODULE).
#define TORCH_MODULE(Name)                                        \
  class Name : public ::torch::nn::ModuleHolder<Name##Impl> {     \
   public:                                                        \
    using ::torch::nn::ModuleHolder<Name##Impl>::ModuleHolder;    \
  }

namespace torch::nn {

/// A chainable option with a getter (libtorch's TORCH_ARG), for the options below.
#define CTORCH_NN_ARG(T, name)        \
 public:                              \
  auto& name(T value) {               \
    name##_ = value;                  \
    return *this;                     \
  }                                   \
  T name() const { return name##_; }  \
                                      \
 private:                             \
  T name##_;                          \
                                      \
 public:

/// torch::nn::LinearOptions(in, out).bias(false).
struct LinearOptions {
  LinearOptions(int64_t in_features, int64_t out_features) : in_features_(in_features), out_features_(out_features) {}
  CTORCH_NN_ARG(int64_t, in_features)
  CTORCH_NN_ARG(int64_t, out_features)
  bool bias_ = true;
  /// With or without a bias.
  LinearOptions& bias(bool b) {
    bias_ = b;
    return *this;
  }
  bool bias() const { return bias_; }
};

/// libtorch's LinearImpl: ctorch's Linear with its options.
class LinearImpl : public ::ctorch::nn::Linear {
  CTORCH_MODULE_REPLICABLE(LinearImpl)

 public:
  LinearImpl(int64_t in_features, int64_t out_features) : LinearImpl(LinearOptions(in_features, out_features)) {}
  explicit LinearImpl(const LinearOptions& o)
      : ::ctorch::nn::Linear(o.in_features(), o.out_features(), o.bias()), options(o) {}
  /// libtorch's `torch::nn::Linear(in_features=3, out_features=4, bias=true)`.
  void pretty_print(std::ostream& stream) const override {
    stream << "torch::nn::Linear(in_features=" << options.in_features() << ", out_features=" << options.out_features()
           << ", bias=" << (options.bias() ? "true" : "false") << ")";
  }
  LinearOptions options;
};
TORCH_MODULE(Linear);

/// libtorch's FunctionalImpl: a function of one tensor as a module without parameters; arguments
/// after the function are passed after the tensor (`Functional(torch::leaky_relu, 0.2)`).
class FunctionalImpl : public ::ctorch::nn::UnaryModule {
  CTORCH_MODULE_REPLICABLE(FunctionalImpl)

 public:
  /// The function the module applies.
  using Function = std::function<Tensor(Tensor)>;
  explicit FunctionalImpl(Function function) : UnaryModule("Functional"), function_(std::move(function)) {}
  /// `function(input, args...)`.
  template <class F, class Arg, class... Args>
  FunctionalImpl(F function, Arg arg, Args... args)
      : FunctionalImpl(Function([function, arg, args...](Tensor x) { return function(std::move(x), arg, args...); })) {}
  Tensor forward(const Tensor& input) override { return function_(input); }
  /// Writes "torch::nn::Functional()".
  void pretty_print(std::ostream& stream) const override { stream << "torch::nn::Functional()"; }

 private:
  Function function_;
};
TORCH_MODULE(Functional);


#undef CTORCH_NN_ARG
}  // namespace torch::nn

namespace torch::autograd {
using namespace ::ctorch::autograd;  // NOLINT(google-build-using-namespace): backward, grad, Node, gradcheck
/// libtorch's Variable is a Tensor.
using Variable = ::ctorch::Tensor;
/// libtorch's tensor_list (custom functions' backward).
using tensor_list = variable_list;
}  // namespace torch::autograd

// torch::optim: libtorch/optim.h.

namespace torch {
// The free functions of the C++ frontend that training code calls.
/// torch::relu(x).
inline Tensor relu(const Tensor& x) { return x.relu(); }
/// torch::sigmoid(x).
inline Tensor sigmoid(const Tensor& x) { return x.sigmoid(); }
/// torch::leaky_relu(x, negative_slope).
inline Tensor leaky_relu(const Tensor& x, double negative_slope = 0.01) {
  return ::ctorch::nn::functional::leaky_relu(x, negative_slope);
}
/// torch::tanh(x).
inline Tensor tanh(const Tensor& x) { return x.tanh(); }
/// torch::softmax(x, dim).
inline Tensor softmax(const Tensor& x, int64_t dim) { return x.softmax(dim); }
/// torch::log_softmax(x, dim).
inline Tensor log_softmax(const Tensor& x, int64_t dim) { return x.log_softmax(dim); }
/// torch::dropout(x, p, train).
inline Tensor dropout(const Tensor& x, double p, bool train) { return ::ctorch::nn::functional::dropout(x, p, train); }
/// torch::feature_dropout(x, p, train): whole channels.
inline Tensor feature_dropout(const Tensor& x, double p, bool train) {
  return ::ctorch::nn::functional::feature_dropout(x, p, train);
}
/// torch::mse_loss(input, target, reduction).
inline Tensor mse_loss(const Tensor& input, const Tensor& target, int64_t reduction = at::Reduction::Mean) {
  return ::ctorch::nn::functional::mse_loss(input, target, at::Reduction::name(reduction));
}
/// torch::l1_loss(input, target, reduction).
inline Tensor l1_loss(const Tensor& input, const Tensor& target, int64_t reduction = at::Reduction::Mean) {
  return ::ctorch::nn::functional::l1_loss(input, target, at::Reduction::name(reduction));
}
/// torch::smooth_l1_loss(input, target, reduction, beta).
inline Tensor smooth_l1_loss(const Tensor& input, const Tensor& target, int64_t reduction = at::Reduction::Mean,
                             double beta = 1.0) {
  return ::ctorch::nn::functional::smooth_l1_loss(input, target, at::Reduction::name(reduction), beta);
}
/// torch::nll_loss(input, target, weight, reduction, ignore_index).
inline Tensor nll_loss(const Tensor& input, const Tensor& target, const Tensor& weight = {},
                       int64_t reduction = at::Reduction::Mean, int64_t ignore_index = -100) {
  return ::ctorch::nn::functional::nll_loss(input, target, weight, ignore_index, at::Reduction::name(reduction));
}
/// torch::binary_cross_entropy(input, target, weight, reduction): ATen's, which squeezes input and target
/// (a [N, 1] input takes a [N] target); unreduced, the loss has the input's shape.
inline Tensor binary_cross_entropy(const Tensor& input, const Tensor& target, const Tensor& weight = {},
                                   int64_t reduction = at::Reduction::Mean) {
  const Tensor loss = ::ctorch::nn::functional::binary_cross_entropy(
      input.squeeze(), target.squeeze(), weight.defined() ? weight.squeeze() : weight, at::Reduction::name(reduction));
  return reduction == at::Reduction::None ? loss.view(input.sizes()) : loss;
}
}  // namespace torch

#include "ctorch/libtorch/containers.h"  // after ModuleHolder
#include "ctorch/libtorch/init.h"
#include "ctorch/libtorch/nn_utils.h"
// The layer families' options, functional forms and holders.
#include "ctorch/libtorch/aten_layers.h"
#include "ctorch/libtorch/functional_layers.h"
#include "ctorch/libtorch/modules_conv.h"
#include "ctorch/libtorch/modules_pooling.h"
#include "ctorch/libtorch/modules_layers.h"
#include "ctorch/libtorch/functional_activation.h"
#include "ctorch/libtorch/functional_loss.h"
#include "ctorch/libtorch/modules_activation.h"
#include "ctorch/libtorch/modules_loss.h"
