// libtorch's C++ frontend over ctorch::nn and ctorch::optim: module holders (`torch::nn::Linear`
// used through `->`), the *Impl classes with their Options, TORCH_MODULE, and the free functions
// training code calls (torch::relu, torch::nll_loss, ...). Everything forwards to the native API.
// torch::save/load: libtorch/serialize.h. Not here yet: AnyModule, Embedding/LayerNorm holders.
#pragma once

#include <initializer_list>
#include <memory>
#include <tuple>
#include <type_traits>
#include <utility>

#include "ctorch/ctorch.h"

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
namespace utils = ::ctorch::nn::utils;

/// Owns a module through a shared pointer and forwards calls to it (libtorch's ModuleHolder).
template <class Contained>
class ModuleHolder {
 public:
  using ContainedType = Contained;
  /// An empty holder (`torch::nn::Linear fc{nullptr}`), filled later by assignment.
  ModuleHolder(std::nullptr_t) {}  // NOLINT: libtorch's implicit form
  /// A module built from `args` (Contained's constructor).
  template <class Head, class... Tail>
    requires(!std::is_same_v<std::decay_t<Head>, ModuleHolder> && !std::is_same_v<std::decay_t<Head>, std::nullptr_t> &&
             std::is_constructible_v<Contained, Head, Tail...>)
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
  LinearOptions options;
};
TORCH_MODULE(Linear);

/// libtorch's ExpandingArray<2>: one value for both sides, or {h, w}.
struct ExpandingArray2 {
  ExpandingArray2(int64_t v) : value{v, v} {}  // NOLINT: implicit, as libtorch's
  ExpandingArray2(std::initializer_list<int64_t> v) {  // NOLINT
    CTORCH_CHECK_VALUE(v.size() == 2, "Expected 2 values, but got ", v.size());
    value = {*v.begin(), *(v.begin() + 1)};
  }
  ::ctorch::nn::Pair2 value;
};

/// torch::nn::Conv2dOptions(in, out, kernel_size).stride(s).padding(p).dilation(d).groups(g).bias(b).
struct Conv2dOptions {
  Conv2dOptions(int64_t in_channels, int64_t out_channels, ExpandingArray2 kernel_size)
      : in_channels_(in_channels), out_channels_(out_channels), kernel_size_(kernel_size), stride_(1), padding_(0),
        dilation_(1), groups_(1), bias_(true) {}
  CTORCH_NN_ARG(int64_t, in_channels)
  CTORCH_NN_ARG(int64_t, out_channels)
  CTORCH_NN_ARG(ExpandingArray2, kernel_size)
  CTORCH_NN_ARG(ExpandingArray2, stride)
  CTORCH_NN_ARG(ExpandingArray2, padding)
  CTORCH_NN_ARG(ExpandingArray2, dilation)
  CTORCH_NN_ARG(int64_t, groups)
  CTORCH_NN_ARG(bool, bias)
};

/// libtorch's Conv2dImpl: ctorch's Conv2d (zero padding) with its options.
class Conv2dImpl : public ::ctorch::nn::Conv2d {
  CTORCH_MODULE_REPLICABLE(Conv2dImpl)

 public:
  Conv2dImpl(int64_t in_channels, int64_t out_channels, ExpandingArray2 kernel_size)
      : Conv2dImpl(Conv2dOptions(in_channels, out_channels, kernel_size)) {}
  explicit Conv2dImpl(const Conv2dOptions& o)
      : ::ctorch::nn::Conv2d(o.in_channels(), o.out_channels(), o.kernel_size().value, o.stride().value,
                             o.padding().value, o.dilation().value, o.bias(), o.groups()),
        options(o) {}
  Conv2dOptions options;
};
TORCH_MODULE(Conv2d);

/// torch::nn::ConvTranspose2dOptions(in, out, kernel_size).stride(s).padding(p).output_padding(op)
/// .groups(g).bias(b).dilation(d).
struct ConvTranspose2dOptions {
  ConvTranspose2dOptions(int64_t in_channels, int64_t out_channels, ExpandingArray2 kernel_size)
      : in_channels_(in_channels), out_channels_(out_channels), kernel_size_(kernel_size), stride_(1), padding_(0),
        output_padding_(0), groups_(1), bias_(true), dilation_(1) {}
  CTORCH_NN_ARG(int64_t, in_channels)
  CTORCH_NN_ARG(int64_t, out_channels)
  CTORCH_NN_ARG(ExpandingArray2, kernel_size)
  CTORCH_NN_ARG(ExpandingArray2, stride)
  CTORCH_NN_ARG(ExpandingArray2, padding)
  CTORCH_NN_ARG(ExpandingArray2, output_padding)
  CTORCH_NN_ARG(int64_t, groups)
  CTORCH_NN_ARG(bool, bias)
  CTORCH_NN_ARG(ExpandingArray2, dilation)
};

/// libtorch's ConvTranspose2dImpl: ctorch's ConvTranspose2d with its options; forward takes an
/// optional output size.
class ConvTranspose2dImpl : public ::ctorch::nn::ConvTranspose2d {
  CTORCH_MODULE_REPLICABLE(ConvTranspose2dImpl)

 public:
  ConvTranspose2dImpl(int64_t in_channels, int64_t out_channels, ExpandingArray2 kernel_size)
      : ConvTranspose2dImpl(ConvTranspose2dOptions(in_channels, out_channels, kernel_size)) {}
  explicit ConvTranspose2dImpl(const ConvTranspose2dOptions& o)
      : ::ctorch::nn::ConvTranspose2d(o.in_channels(), o.out_channels(), o.kernel_size().value, o.stride().value,
                                      o.padding().value, o.output_padding().value, o.groups(), o.bias(),
                                      o.dilation().value),
        options(o) {}
  /// The transposed convolution (with the output padding that gives `output_size`, when given).
  Tensor forward(const Tensor& input, const std::optional<IntArrayRef>& output_size = std::nullopt) {
    return output_size ? ::ctorch::nn::ConvTranspose2d::forward(input, *output_size)
                       : ::ctorch::nn::ConvTranspose2d::forward(input);
  }
  ConvTranspose2dOptions options;
};
TORCH_MODULE(ConvTranspose2d);

/// torch::nn::AvgPool2dOptions(kernel_size).stride(s).padding(p).ceil_mode(c).count_include_pad(b)
/// .divisor_override(d); the stride defaults to the kernel size.
struct AvgPool2dOptions {
  AvgPool2dOptions(ExpandingArray2 kernel_size)  // NOLINT: implicit, as libtorch's
      : kernel_size_(kernel_size), stride_(kernel_size), padding_(0), ceil_mode_(false), count_include_pad_(true) {}
  CTORCH_NN_ARG(ExpandingArray2, kernel_size)
  CTORCH_NN_ARG(ExpandingArray2, stride)
  CTORCH_NN_ARG(ExpandingArray2, padding)
  CTORCH_NN_ARG(bool, ceil_mode)
  CTORCH_NN_ARG(bool, count_include_pad)
  CTORCH_NN_ARG(std::optional<int64_t>, divisor_override)
};

/// libtorch's AvgPool2dImpl: ctorch's AvgPool2d with its options.
class AvgPool2dImpl : public ::ctorch::nn::AvgPool2d {
  CTORCH_MODULE_REPLICABLE(AvgPool2dImpl)

 public:
  explicit AvgPool2dImpl(ExpandingArray2 kernel_size) : AvgPool2dImpl(AvgPool2dOptions(kernel_size)) {}
  explicit AvgPool2dImpl(const AvgPool2dOptions& o)
      : ::ctorch::nn::AvgPool2d(o.kernel_size().value, o.stride().value, o.padding().value, o.ceil_mode(),
                                o.count_include_pad(), o.divisor_override()),
        options(o) {}
  AvgPool2dOptions options;
};
TORCH_MODULE(AvgPool2d);

/// torch::nn::AdaptiveAvgPool2dOptions(output_size) (both sizes given: libtorch's optional elements,
/// which keep an input size, are not supported).
struct AdaptiveAvgPool2dOptions {
  AdaptiveAvgPool2dOptions(ExpandingArray2 output_size) : output_size_(output_size) {}  // NOLINT: implicit
  CTORCH_NN_ARG(ExpandingArray2, output_size)
};

/// libtorch's AdaptiveAvgPool2dImpl: ctorch's AdaptiveAvgPool2d with its options.
class AdaptiveAvgPool2dImpl : public ::ctorch::nn::AdaptiveAvgPool2d {
  CTORCH_MODULE_REPLICABLE(AdaptiveAvgPool2dImpl)

 public:
  explicit AdaptiveAvgPool2dImpl(ExpandingArray2 output_size)
      : AdaptiveAvgPool2dImpl(AdaptiveAvgPool2dOptions(output_size)) {}
  explicit AdaptiveAvgPool2dImpl(const AdaptiveAvgPool2dOptions& o)
      : ::ctorch::nn::AdaptiveAvgPool2d(o.output_size().value), options(o) {}
  AdaptiveAvgPool2dOptions options;
};
TORCH_MODULE(AdaptiveAvgPool2d);

/// torch::nn::BatchNormOptions(num_features).eps(e).momentum(m).affine(a).track_running_stats(t).
struct BatchNormOptions {
  BatchNormOptions(int64_t num_features)  // NOLINT: implicit, as libtorch's
      : num_features_(num_features), eps_(1e-5), momentum_(0.1), affine_(true), track_running_stats_(true) {}
  CTORCH_NN_ARG(int64_t, num_features)
  CTORCH_NN_ARG(double, eps)
  CTORCH_NN_ARG(std::optional<double>, momentum)
  CTORCH_NN_ARG(bool, affine)
  CTORCH_NN_ARG(bool, track_running_stats)
};
/// torch::nn::BatchNorm1dOptions.
using BatchNorm1dOptions = BatchNormOptions;
/// torch::nn::BatchNorm2dOptions.
using BatchNorm2dOptions = BatchNormOptions;

/// libtorch's BatchNorm1dImpl / BatchNorm2dImpl: ctorch's batch normalization with its options
/// (a momentum of nullopt, a cumulative average, is not supported).
template <class Native>
class BatchNormImplT : public Native {
 public:
  explicit BatchNormImplT(const BatchNormOptions& o)
      : Native(o.num_features(), o.eps(), momentum_of(o), o.affine(), o.track_running_stats()), options(o) {}
  BatchNormOptions options;

 private:
  static double momentum_of(const BatchNormOptions& o) {
    CTORCH_CHECK_NOT_IMPLEMENTED(o.momentum().has_value(),
                                 "BatchNorm with momentum=None (a cumulative moving average) is not implemented");
    return *o.momentum();
  }
};
/// libtorch's BatchNorm1dImpl.
class BatchNorm1dImpl : public BatchNormImplT<::ctorch::nn::BatchNorm1d> {
  CTORCH_MODULE_REPLICABLE(BatchNorm1dImpl)

 public:
  using BatchNormImplT::BatchNormImplT;
};
TORCH_MODULE(BatchNorm1d);
/// libtorch's BatchNorm2dImpl.
class BatchNorm2dImpl : public BatchNormImplT<::ctorch::nn::BatchNorm2d> {
  CTORCH_MODULE_REPLICABLE(BatchNorm2dImpl)

 public:
  using BatchNormImplT::BatchNormImplT;
};
TORCH_MODULE(BatchNorm2d);

/// torch::nn::DropoutOptions(p).
struct DropoutOptions {
  DropoutOptions(double p = 0.5) : p_(p) {}  // NOLINT: implicit, as libtorch's
  CTORCH_NN_ARG(double, p)
};
/// libtorch's DropoutImpl.
class DropoutImpl : public ::ctorch::nn::Dropout {
  CTORCH_MODULE_REPLICABLE(DropoutImpl)

 public:
  explicit DropoutImpl(const DropoutOptions& o = {}) : ::ctorch::nn::Dropout(o.p()) {}
  explicit DropoutImpl(double p) : ::ctorch::nn::Dropout(p) {}
};
TORCH_MODULE(Dropout);

/// torch::nn::Dropout2dOptions(p) (libtorch's alias of DropoutOptions).
using Dropout2dOptions = DropoutOptions;
/// libtorch's Dropout2dImpl: whole channels zeroed in training.
class Dropout2dImpl : public ::ctorch::nn::Dropout2d {
  CTORCH_MODULE_REPLICABLE(Dropout2dImpl)

 public:
  explicit Dropout2dImpl(const Dropout2dOptions& o = {}) : ::ctorch::nn::Dropout2d(o.p()) {}
  explicit Dropout2dImpl(double p) : ::ctorch::nn::Dropout2d(p) {}
};
TORCH_MODULE(Dropout2d);

/// torch::nn::FeatureDropoutOptions(p).
using FeatureDropoutOptions = DropoutOptions;
/// libtorch's FeatureDropoutImpl (the MNIST example's conv2_drop): feature_dropout in training.
class FeatureDropoutImpl : public ::ctorch::nn::Dropout2d {
  CTORCH_MODULE_REPLICABLE(FeatureDropoutImpl)

 public:
  explicit FeatureDropoutImpl(const FeatureDropoutOptions& o = {}) : ::ctorch::nn::Dropout2d(o.p()) {}
  explicit FeatureDropoutImpl(double p) : ::ctorch::nn::Dropout2d(p) {}
  Tensor forward(const Tensor& input) override {
    return ::ctorch::nn::functional::feature_dropout(input, p, is_training());
  }
};
TORCH_MODULE(FeatureDropout);

/// libtorch's FlattenImpl (start_dim 1, end_dim -1).
class FlattenImpl : public ::ctorch::nn::Flatten {
  CTORCH_MODULE_REPLICABLE(FlattenImpl)
};
TORCH_MODULE(Flatten);

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

 private:
  Function function_;
};
TORCH_MODULE(Functional);

/// libtorch's SequentialImpl: built from holders or shared pointers of one-tensor modules.
class SequentialImpl : public ::ctorch::nn::Sequential {
  CTORCH_MODULE_REPLICABLE(SequentialImpl)

 public:
  SequentialImpl() = default;
  /// The given layers in order.
  template <class... Layers>
    requires(sizeof...(Layers) > 0)
  explicit SequentialImpl(Layers&&... layers) {
    (push_back(std::forward<Layers>(layers)), ...);
  }
  using ::ctorch::nn::Sequential::push_back;
  /// Appends the module a holder owns.
  template <class Holder>
    requires requires(const Holder& h) { h.ptr(); }
  void push_back(const Holder& holder) {
    ::ctorch::nn::Sequential::push_back(holder.ptr());
  }
};
TORCH_MODULE(Sequential);

#undef CTORCH_NN_ARG
}  // namespace torch::nn

namespace torch::autograd {
using namespace ::ctorch::autograd;  // NOLINT(google-build-using-namespace): backward, grad, Node, gradcheck
/// libtorch's Variable is a Tensor.
using Variable = ::ctorch::Tensor;
/// libtorch's tensor_list (custom functions' backward).
using tensor_list = variable_list;
}  // namespace torch::autograd

namespace torch::optim {
using namespace ::ctorch::optim;  // NOLINT(google-build-using-namespace): SGD, Adam, options, schedulers
}  // namespace torch::optim

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
/// torch::binary_cross_entropy(input, target) (mean).
inline Tensor binary_cross_entropy(const Tensor& input, const Tensor& target) {
  return ::ctorch::nn::functional::binary_cross_entropy(input, target);
}
}  // namespace torch

#include "ctorch/libtorch/functional_activation.h"
#include "ctorch/libtorch/functional_loss.h"
#include "ctorch/libtorch/modules_activation.h"
#include "ctorch/libtorch/modules_loss.h"
