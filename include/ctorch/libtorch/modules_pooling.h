// libtorch 1.13's pooling, unpooling, padding and fold holders: torch::nn::MaxPool{1,2,3}d,
// AvgPool{1,2,3}d, AdaptiveMaxPool/AdaptiveAvgPool{1,2,3}d, LPPool{1,2}d, MaxUnpool{1,2,3}d,
// ReflectionPad/ReplicationPad/ConstantPad{1,2,3}d, ZeroPad2d, Fold and Unfold, each with its options
// (`->options`) and libtorch's pretty_print; the computation is the native F:: function.
#pragma once

#include <optional>
#include <ostream>
#include <sstream>
#include <tuple>

#include "ctorch/libtorch/functional_layers.h"
#include "ctorch/libtorch/modules_common.h"
#include "ctorch/libtorch/nn.h"  // ModuleHolder, TORCH_MODULE (nn.h includes this header at its end)

namespace torch::nn {

namespace layers_detail {
/// One number when every value agrees (what a layer built from an int prints), else a tuple.
template <size_t D>
std::string int_or_tuple(const ExpandingArray<D>& a) {
  for (size_t i = 1; i < D; ++i)
    if ((*a)[i] != (*a)[0]) return py_tuple(*a);
  return std::to_string((*a)[0]);
}
/// Output sizes as Python prints them: "(4, None)".
template <class A>
std::string optional_tuple(const A& a) {
  std::vector<std::string> parts;
  for (const auto& v : *a) {
    if constexpr (std::is_same_v<std::decay_t<decltype(v)>, int64_t>) {
      parts.push_back(std::to_string(v));
    } else {
      parts.push_back(v ? std::to_string(*v) : "None");
    }
  }
  if (parts.size() == 1) return parts[0];
  std::string s = "(";
  for (size_t i = 0; i < parts.size(); ++i) s += (i ? ", " : "") + parts[i];
  return s + ")";
}
constexpr const char* dim_name(size_t d) { return d == 1 ? "1d" : d == 2 ? "2d" : "3d"; }
}  // namespace layers_detail

/// libtorch's MaxPool{1,2,3}dImpl: forward and forward_with_indices.
template <size_t D, class Derived>
class MaxPoolImpl : public layers_detail::LayerCloneable<Derived> {
 public:
  MaxPoolImpl(ExpandingArray<D> kernel_size) : MaxPoolImpl(MaxPoolOptions<D>(kernel_size)) {}  // NOLINT
  explicit MaxPoolImpl(const MaxPoolOptions<D>& options_)
      : layers_detail::LayerCloneable<Derived>(std::string("MaxPool") + layers_detail::dim_name(D)),
        options(options_) {}
  void reset() override {}
  Tensor forward(const Tensor& input) override { return std::get<0>(forward_with_indices(input)); }
  /// The maxima and their flat positions in each input plane.
  std::tuple<Tensor, Tensor> forward_with_indices(const Tensor& input) {
    return ::ctorch::nn::functional::max_pool_with_indices<D>(input, options);
  }
  void pretty_print(std::ostream& stream) const {
    stream << std::boolalpha << "torch::nn::" << this->name() << "(kernel_size=" << options.kernel_size()
           << ", stride=" << options.stride() << ", padding=" << options.padding()
           << ", dilation=" << options.dilation() << ", ceil_mode=" << options.ceil_mode() << ")";
  }
  std::string extra_repr() const override {
    using namespace layers_detail;  // NOLINT(google-build-using-namespace)
    return "kernel_size=" + int_or_tuple(options.kernel_size()) + ", stride=" + int_or_tuple(options.stride()) +
           ", padding=" + int_or_tuple(options.padding()) + ", dilation=" + int_or_tuple(options.dilation()) +
           ", ceil_mode=" + py_bool(options.ceil_mode());
  }
  MaxPoolOptions<D> options;
};

/// libtorch's AvgPool{1,2,3}dImpl.
template <size_t D, class Derived>
class AvgPoolImpl : public layers_detail::LayerCloneable<Derived> {
 public:
  AvgPoolImpl(ExpandingArray<D> kernel_size) : AvgPoolImpl(AvgPoolOptions<D>(kernel_size)) {}  // NOLINT
  explicit AvgPoolImpl(const AvgPoolOptions<D>& options_)
      : layers_detail::LayerCloneable<Derived>(std::string("AvgPool") + layers_detail::dim_name(D)),
        options(options_) {}
  void reset() override {}
  Tensor forward(const Tensor& input) override { return ::ctorch::nn::functional::avg_pool<D>(input, options); }
  void pretty_print(std::ostream& stream) const {
    stream << "torch::nn::" << this->name() << "(kernel_size=" << options.kernel_size()
           << ", stride=" << options.stride() << ", padding=" << options.padding() << ")";
  }
  std::string extra_repr() const override {
    using namespace layers_detail;  // NOLINT(google-build-using-namespace)
    return "kernel_size=" + int_or_tuple(options.kernel_size()) + ", stride=" + int_or_tuple(options.stride()) +
           ", padding=" + int_or_tuple(options.padding());
  }
  AvgPoolOptions<D> options;
};

/// libtorch's AdaptiveMaxPool{1,2,3}dImpl: forward and forward_with_indices.
template <size_t D, class output_size_t, class Derived>
class AdaptiveMaxPoolImpl : public layers_detail::LayerCloneable<Derived> {
 public:
  AdaptiveMaxPoolImpl(output_size_t output_size)  // NOLINT
      : AdaptiveMaxPoolImpl(AdaptiveMaxPoolOptions<output_size_t>(output_size)) {}
  explicit AdaptiveMaxPoolImpl(const AdaptiveMaxPoolOptions<output_size_t>& options_)
      : layers_detail::LayerCloneable<Derived>(std::string("AdaptiveMaxPool") + layers_detail::dim_name(D)),
        options(options_) {}
  void reset() override {}
  Tensor forward(const Tensor& input) override { return std::get<0>(forward_with_indices(input)); }
  /// The maxima and their flat positions in each input plane.
  std::tuple<Tensor, Tensor> forward_with_indices(const Tensor& input) {
    return ::ctorch::nn::functional::adaptive_max_poolnd_with_indices(
        D, input, ::ctorch::nn::functional::libtorch_detail::adaptive(options.output_size()));
  }
  void pretty_print(std::ostream& stream) const {
    stream << "torch::nn::" << this->name() << "(output_size=" << options.output_size() << ")";
  }
  std::string extra_repr() const override {
    return "output_size=" + layers_detail::optional_tuple(options.output_size());
  }
  AdaptiveMaxPoolOptions<output_size_t> options;
};

/// libtorch's AdaptiveAvgPool{1,2,3}dImpl.
template <size_t D, class output_size_t, class Derived>
class AdaptiveAvgPoolImpl : public layers_detail::LayerCloneable<Derived> {
 public:
  AdaptiveAvgPoolImpl(output_size_t output_size)  // NOLINT
      : AdaptiveAvgPoolImpl(AdaptiveAvgPoolOptions<output_size_t>(output_size)) {}
  explicit AdaptiveAvgPoolImpl(const AdaptiveAvgPoolOptions<output_size_t>& options_)
      : layers_detail::LayerCloneable<Derived>(std::string("AdaptiveAvgPool") + layers_detail::dim_name(D)),
        options(options_) {}
  void reset() override {}
  Tensor forward(const Tensor& input) override {
    return ::ctorch::nn::functional::adaptive_avg_poolnd(
        D, input, ::ctorch::nn::functional::libtorch_detail::adaptive(options.output_size()));
  }
  void pretty_print(std::ostream& stream) const {
    stream << "torch::nn::" << this->name() << "(output_size=" << options.output_size() << ")";
  }
  std::string extra_repr() const override {
    return "output_size=" + layers_detail::optional_tuple(options.output_size());
  }
  AdaptiveAvgPoolOptions<output_size_t> options;
};

/// libtorch's LPPool{1,2}dImpl.
template <size_t D, class Derived>
class LPPoolImpl : public layers_detail::LayerCloneable<Derived> {
 public:
  LPPoolImpl(double norm_type, ExpandingArray<D> kernel_size) : LPPoolImpl(LPPoolOptions<D>(norm_type, kernel_size)) {}
  explicit LPPoolImpl(const LPPoolOptions<D>& options_)
      : layers_detail::LayerCloneable<Derived>(std::string("LPPool") + layers_detail::dim_name(D)), options(options_) {}
  void reset() override {}
  Tensor forward(const Tensor& input) override {
    return ::ctorch::nn::functional::lp_poolnd(D, input, options.norm_type(), *options.kernel_size(), *options.stride(),
                                               options.ceil_mode());
  }
  void pretty_print(std::ostream& stream) const {
    stream << std::boolalpha << "torch::nn::" << this->name() << "(norm_type=" << options.norm_type()
           << ", kernel_size=" << options.kernel_size() << ", stride=" << options.stride()
           << ", ceil_mode=" << options.ceil_mode() << ")";
  }
  std::string extra_repr() const override {
    using namespace layers_detail;  // NOLINT(google-build-using-namespace)
    return "norm_type=" + py_float(options.norm_type()) + ", kernel_size=" + int_or_tuple(options.kernel_size()) +
           ", stride=" + int_or_tuple(options.stride()) + ", ceil_mode=" + py_bool(options.ceil_mode());
  }
  LPPoolOptions<D> options;
};

/// libtorch's MaxUnpool{1,2,3}dImpl: forward(input, indices, output_size).
template <size_t D, class Derived>
class MaxUnpoolImpl : public layers_detail::LayerCloneable<Derived, ::ctorch::nn::Module> {
 public:
  MaxUnpoolImpl(ExpandingArray<D> kernel_size) : MaxUnpoolImpl(MaxUnpoolOptions<D>(kernel_size)) {}  // NOLINT
  explicit MaxUnpoolImpl(const MaxUnpoolOptions<D>& options_)
      : layers_detail::LayerCloneable<Derived, ::ctorch::nn::Module>(std::string("MaxUnpool") +
                                                                     layers_detail::dim_name(D)),
        options(options_) {}
  void reset() override {}
  /// `input` written at `indices` into zeros of the default (or the given) output size.
  Tensor forward(const Tensor& input, const Tensor& indices,
                 const std::optional<std::vector<int64_t>>& output_size = std::nullopt) {
    return ::ctorch::nn::functional::max_unpoolnd(D, input, indices, *options.kernel_size(), *options.stride(),
                                                  *options.padding(), output_size);
  }
  void pretty_print(std::ostream& stream) const {
    stream << "torch::nn::" << this->name() << "(kernel_size=" << options.kernel_size()
           << ", stride=" << options.stride() << ", padding=" << options.padding() << ")";
  }
  std::string extra_repr() const override {
    using namespace layers_detail;  // NOLINT(google-build-using-namespace)
    return "kernel_size=" + int_or_tuple(options.kernel_size()) + ", stride=" + int_or_tuple(options.stride()) +
           ", padding=" + int_or_tuple(options.padding());
  }
  MaxUnpoolOptions<D> options;
};

#define CTORCH_TORCH_POOL(Name, Base, ...)                  \
  class Name##Impl : public Base<__VA_ARGS__, Name##Impl> { \
   public:                                                  \
    using Base<__VA_ARGS__, Name##Impl>::Base;              \
  };                                                        \
  TORCH_MODULE(Name)
CTORCH_TORCH_POOL(MaxPool1d, MaxPoolImpl, 1);
CTORCH_TORCH_POOL(MaxPool2d, MaxPoolImpl, 2);
CTORCH_TORCH_POOL(MaxPool3d, MaxPoolImpl, 3);
CTORCH_TORCH_POOL(AvgPool1d, AvgPoolImpl, 1);
CTORCH_TORCH_POOL(AvgPool2d, AvgPoolImpl, 2);
CTORCH_TORCH_POOL(AvgPool3d, AvgPoolImpl, 3);
CTORCH_TORCH_POOL(AdaptiveMaxPool1d, AdaptiveMaxPoolImpl, 1, ExpandingArray<1>);
CTORCH_TORCH_POOL(AdaptiveMaxPool2d, AdaptiveMaxPoolImpl, 2, ExpandingArrayWithOptionalElem<2>);
CTORCH_TORCH_POOL(AdaptiveMaxPool3d, AdaptiveMaxPoolImpl, 3, ExpandingArrayWithOptionalElem<3>);
CTORCH_TORCH_POOL(AdaptiveAvgPool1d, AdaptiveAvgPoolImpl, 1, ExpandingArray<1>);
CTORCH_TORCH_POOL(AdaptiveAvgPool2d, AdaptiveAvgPoolImpl, 2, ExpandingArrayWithOptionalElem<2>);
CTORCH_TORCH_POOL(AdaptiveAvgPool3d, AdaptiveAvgPoolImpl, 3, ExpandingArrayWithOptionalElem<3>);
CTORCH_TORCH_POOL(LPPool1d, LPPoolImpl, 1);
CTORCH_TORCH_POOL(LPPool2d, LPPoolImpl, 2);
CTORCH_TORCH_POOL(MaxUnpool1d, MaxUnpoolImpl, 1);
CTORCH_TORCH_POOL(MaxUnpool2d, MaxUnpoolImpl, 2);
CTORCH_TORCH_POOL(MaxUnpool3d, MaxUnpoolImpl, 3);

/// libtorch's FractionalMaxPool{2,3}dImpl: forward and forward_with_indices.
template <size_t D, class Derived>
class FractionalMaxPoolImpl : public layers_detail::LayerCloneable<Derived> {
 public:
  FractionalMaxPoolImpl(ExpandingArray<D> kernel_size)  // NOLINT
      : FractionalMaxPoolImpl(FractionalMaxPoolOptions<D>(kernel_size)) {}
  explicit FractionalMaxPoolImpl(FractionalMaxPoolOptions<D> options_)
      : layers_detail::LayerCloneable<Derived>(std::string("FractionalMaxPool") + layers_detail::dim_name(D)),
        options(std::move(options_)) {
    reset();
  }
  void reset() override {
    if (options._random_samples().defined()) this->register_buffer("_random_samples", options._random_samples());
    CTORCH_CHECK(options.output_size() || options.output_ratio(), this->name(),
                 " requires specifying either an output size, or a pooling ratio");
    CTORCH_CHECK(!(options.output_size() && options.output_ratio()),
                 "only one of output_size and output_ratio may be specified");
    if (options.output_ratio()) {
      for (double r : **options.output_ratio())
        CTORCH_CHECK(0 < r && r < 1, "output_ratio must be between 0 and 1 (got ", *options.output_ratio(), ")");
    }
  }
  Tensor forward(const Tensor& input) override { return std::get<0>(forward_with_indices(input)); }
  /// The maxima and their flat positions in each input plane.
  std::tuple<Tensor, Tensor> forward_with_indices(const Tensor& input) {
    return ::ctorch::nn::functional::fractional_max_pool_with_indices<D>(input, options);
  }
  void pretty_print(std::ostream& stream) const { stream << "torch::nn::" << this->name() << "()"; }
  FractionalMaxPoolOptions<D> options;
};

CTORCH_TORCH_POOL(FractionalMaxPool2d, FractionalMaxPoolImpl, 2);
CTORCH_TORCH_POOL(FractionalMaxPool3d, FractionalMaxPoolImpl, 3);
#undef CTORCH_TORCH_POOL

/// A padding layer: F::pad with a fixed mode ("reflect", "replicate" or "constant").
template <size_t P, class Options, class Derived>
class PadImpl : public layers_detail::LayerCloneable<Derived> {
 public:
  PadImpl(const Options& options_, std::string name, const char* mode)
      : layers_detail::LayerCloneable<Derived>(std::move(name)), options(options_), mode_(mode) {}
  void reset() override {}
  Tensor forward(const Tensor& input) override {
    double value = 0;
    if constexpr (requires(const Options& o) { o.value(); }) value = options.value();
    return ::ctorch::nn::functional::pad(input, *options.padding(), mode_, value);
  }
  void pretty_print(std::ostream& stream) const {
    stream << "torch::nn::" << this->name() << "(padding=" << options.padding();
    if constexpr (requires(const Options& o) { o.value(); }) stream << ", value=" << options.value();
    stream << ")";
  }
  std::string extra_repr() const override {
    std::string s = layers_detail::py_tuple(*options.padding());
    if constexpr (requires(const Options& o) { o.value(); }) {
      std::ostringstream os;
      os << ", value=" << options.value();
      s += os.str();
    }
    return s;
  }
  Options options;

 private:
  const char* mode_;
};

#define CTORCH_TORCH_PAD(Name, D, Options, mode)                                             \
  class Name##Impl : public PadImpl<D * 2, Options, Name##Impl> {                            \
   public:                                                                                   \
    Name##Impl(ExpandingArray<D * 2> padding) : Name##Impl(Options(padding)) {} /* NOLINT */ \
    explicit Name##Impl(const Options& options_) : PadImpl(options_, #Name, mode) {}         \
  };                                                                                         \
  TORCH_MODULE(Name)
CTORCH_TORCH_PAD(ReflectionPad1d, 1, ReflectionPad1dOptions, "reflect");
CTORCH_TORCH_PAD(ReflectionPad2d, 2, ReflectionPad2dOptions, "reflect");
CTORCH_TORCH_PAD(ReflectionPad3d, 3, ReflectionPad3dOptions, "reflect");
CTORCH_TORCH_PAD(ReplicationPad1d, 1, ReplicationPad1dOptions, "replicate");
CTORCH_TORCH_PAD(ReplicationPad2d, 2, ReplicationPad2dOptions, "replicate");
CTORCH_TORCH_PAD(ReplicationPad3d, 3, ReplicationPad3dOptions, "replicate");
CTORCH_TORCH_PAD(ZeroPad2d, 2, ZeroPad2dOptions, "constant");
#undef CTORCH_TORCH_PAD

#define CTORCH_TORCH_CONSTANT_PAD(D)                                                                     \
  class ConstantPad##D##dImpl : public PadImpl<D * 2, ConstantPad##D##dOptions, ConstantPad##D##dImpl> { \
   public:                                                                                               \
    ConstantPad##D##dImpl(ExpandingArray<D * 2> padding, double value)                                   \
        : ConstantPad##D##dImpl(ConstantPad##D##dOptions(padding, value)) {}                             \
    explicit ConstantPad##D##dImpl(const ConstantPad##D##dOptions& options_)                             \
        : PadImpl(options_, "ConstantPad" #D "d", "constant") {}                                         \
  };                                                                                                     \
  TORCH_MODULE(ConstantPad##D##d)
CTORCH_TORCH_CONSTANT_PAD(1);
CTORCH_TORCH_CONSTANT_PAD(2);
CTORCH_TORCH_CONSTANT_PAD(3);
#undef CTORCH_TORCH_CONSTANT_PAD

/// libtorch's FoldImpl: columns summed back into an image.
class FoldImpl : public layers_detail::LayerCloneable<FoldImpl> {
 public:
  FoldImpl(ExpandingArray<2> output_size, ExpandingArray<2> kernel_size)
      : FoldImpl(FoldOptions(output_size, kernel_size)) {}
  explicit FoldImpl(const FoldOptions& options_) : LayerCloneable("Fold"), options(options_) {}
  void reset() override {}
  Tensor forward(const Tensor& input) override { return ::ctorch::nn::functional::fold(input, options); }
  void pretty_print(std::ostream& stream) const {
    stream << "torch::nn::Fold(output_size=" << options.output_size() << ", kernel_size=" << options.kernel_size()
           << ", dilation=" << options.dilation() << ", padding=" << options.padding()
           << ", stride=" << options.stride() << ")";
  }
  std::string extra_repr() const override {
    using namespace layers_detail;  // NOLINT(google-build-using-namespace)
    return "output_size=" + int_or_tuple(options.output_size()) +
           ", kernel_size=" + int_or_tuple(options.kernel_size()) + ", dilation=" + int_or_tuple(options.dilation()) +
           ", padding=" + int_or_tuple(options.padding()) + ", stride=" + int_or_tuple(options.stride());
  }
  FoldOptions options;
};
TORCH_MODULE(Fold);

/// libtorch's UnfoldImpl: the sliding blocks of an image as columns.
class UnfoldImpl : public layers_detail::LayerCloneable<UnfoldImpl> {
 public:
  UnfoldImpl(ExpandingArray<2> kernel_size) : UnfoldImpl(UnfoldOptions(kernel_size)) {}  // NOLINT
  explicit UnfoldImpl(const UnfoldOptions& options_) : LayerCloneable("Unfold"), options(options_) {}
  void reset() override {}
  Tensor forward(const Tensor& input) override { return ::ctorch::nn::functional::unfold(input, options); }
  void pretty_print(std::ostream& stream) const {
    stream << "torch::nn::Unfold(kernel_size=" << options.kernel_size() << ", dilation=" << options.dilation()
           << ", padding=" << options.padding() << ", stride=" << options.stride() << ")";
  }
  std::string extra_repr() const override {
    using namespace layers_detail;  // NOLINT(google-build-using-namespace)
    return "kernel_size=" + int_or_tuple(options.kernel_size()) + ", dilation=" + int_or_tuple(options.dilation()) +
           ", padding=" + int_or_tuple(options.padding()) + ", stride=" + int_or_tuple(options.stride());
  }
  UnfoldOptions options;
};
TORCH_MODULE(Unfold);

}  // namespace torch::nn
