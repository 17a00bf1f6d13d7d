// libtorch 1.13's normalization, dropout, embedding, distance, resampling and shape holders:
// torch::nn::BatchNorm{1,2,3}d, InstanceNorm{1,2,3}d, LayerNorm, GroupNorm, LocalResponseNorm,
// CrossMapLRN2d, Dropout{,2d,3d}, AlphaDropout, FeatureAlphaDropout, FeatureDropout, Embedding,
// EmbeddingBag, CosineSimilarity, PairwiseDistance, Upsample, PixelShuffle, PixelUnshuffle, Flatten,
// Unflatten, Identity and Bilinear, each with its options and libtorch's pretty_print; the
// computation is the native F:: function.
#pragma once

#include <cmath>
#include <ostream>
#include <sstream>

#include "ctorch/factories.h"
#include "ctorch/grad_mode.h"
#include "ctorch/libtorch/functional_layers.h"
#include "ctorch/libtorch/modules_common.h"
#include "ctorch/libtorch/nn.h"  // ModuleHolder, TORCH_MODULE (nn.h includes this header at its end)

namespace torch::nn {

namespace layers_detail {
/// A vector as libtorch prints an ArrayRef: "[2, 2]".
template <class T>
std::string list_str(const std::vector<T>& v) {
  std::ostringstream os;
  os << "[";
  for (size_t i = 0; i < v.size(); ++i) os << (i ? ", " : "") << v[i];
  os << "]";
  return os.str();
}
/// An input without its batch dim gets one for `f` (libtorch's handle_no_batch_input).
template <class F>
Tensor maybe_unbatched(const Tensor& input, int64_t batched_dims, F f) {
  if (input.dim() == batched_dims - 1) return f(input.unsqueeze(0)).squeeze(0);
  return f(input);
}
}  // namespace layers_detail

/// libtorch's NormImplBase for BatchNorm and InstanceNorm: weight/bias (affine) and running stats.
template <size_t D, class Derived, class Options>
class NormImplBase : public layers_detail::LayerCloneable<Derived> {
 public:
  NormImplBase(const Options& options_, std::string name)
      : layers_detail::LayerCloneable<Derived>(std::move(name)), options(options_) {
    reset();
  }
  void reset() override {
    if (options.affine()) {
      weight = this->register_parameter("weight", ::ctorch::empty({options.num_features()}));
      bias = this->register_parameter("bias", ::ctorch::empty({options.num_features()}));
    }
    if (options.track_running_stats()) {
      running_mean = this->register_buffer("running_mean", ::ctorch::zeros({options.num_features()}));
      running_var = this->register_buffer("running_var", ::ctorch::ones({options.num_features()}));
      num_batches_tracked = this->register_buffer("num_batches_tracked", ::ctorch::zeros({}, ::ctorch::kLong));
    }
    reset_parameters();
  }
  /// Zeroes the running mean and count, and sets the running variance to one.
  void reset_running_stats() {
    if (!options.track_running_stats()) return;
    ::ctorch::NoGradGuard no_grad;
    running_mean.zero_();
    running_var.fill_(1);
    num_batches_tracked.zero_();
  }
  /// reset_running_stats, then weight = 1 and bias = 0.
  void reset_parameters() {
    reset_running_stats();
    if (!options.affine()) return;
    ::ctorch::NoGradGuard no_grad;
    weight.fill_(1);
    bias.zero_();
  }
  Options options;
  Tensor weight, bias, running_mean, running_var, num_batches_tracked;
};

/// libtorch's BatchNorm{1,2,3}dImpl: batch statistics in training (updating the running ones with
/// momentum, or a cumulative average when momentum is nullopt), the running ones in eval.
template <size_t D, class Derived>
class BatchNormImpl : public NormImplBase<D, Derived, BatchNormOptions> {
 public:
  BatchNormImpl(int64_t num_features) : BatchNormImpl(BatchNormOptions(num_features)) {}  // NOLINT
  explicit BatchNormImpl(const BatchNormOptions& options_)
      : NormImplBase<D, Derived, BatchNormOptions>(options_, D == 1   ? "BatchNorm1d"
                                                             : D == 2 ? "BatchNorm2d"
                                                                      : "BatchNorm3d") {}
  Tensor forward(const Tensor& input) override {
    if constexpr (D == 1) {
      CTORCH_CHECK_VALUE(input.dim() == 2 || input.dim() == 3, "expected 2D or 3D input (got ", input.dim(),
                         "D input)");
    } else {
      CTORCH_CHECK_VALUE(input.dim() == static_cast<int64_t>(D) + 2, "expected ", D + 2, "D input (got ", input.dim(),
                         "D input)");
    }
    const auto& o = this->options;
    double factor = o.momentum().value_or(0.0);
    if (this->is_training() && o.track_running_stats() && this->num_batches_tracked.defined()) {
      ::ctorch::NoGradGuard no_grad;
      this->num_batches_tracked.add_(1);
      if (!o.momentum()) factor = 1.0 / this->num_batches_tracked.template item<double>();
    }
    return ::ctorch::nn::functional::batch_norm(input, this->running_mean, this->running_var, this->weight, this->bias,
                                                this->is_training() || !o.track_running_stats(), factor, o.eps());
  }
  void pretty_print(std::ostream& stream) const {
    const auto& o = this->options;
    stream << std::boolalpha << "torch::nn::" << this->name() << "(" << o.num_features() << ", eps=" << o.eps()
           << ", momentum=";
    if (o.momentum()) {
      stream << *o.momentum();
    } else {
      stream << "None";
    }
    stream << ", affine=" << o.affine() << ", track_running_stats=" << o.track_running_stats() << ")";
  }
  std::string extra_repr() const override {
    const auto& o = this->options;
    std::ostringstream os;
    os << o.num_features() << ", eps=" << o.eps() << ", momentum=";
    if (o.momentum()) {
      os << *o.momentum();
    } else {
      os << "None";
    }
    os << ", affine=" << layers_detail::py_bool(o.affine())
       << ", track_running_stats=" << layers_detail::py_bool(o.track_running_stats());
    return os.str();
  }
};

/// libtorch's InstanceNorm{1,2,3}dImpl: each (sample, channel) normalized over its spatial dims.
template <size_t D, class Derived>
class InstanceNormImpl : public NormImplBase<D, Derived, InstanceNormOptions> {
 public:
  InstanceNormImpl(int64_t num_features) : InstanceNormImpl(InstanceNormOptions(num_features)) {}  // NOLINT
  explicit InstanceNormImpl(const InstanceNormOptions& options_)
      : NormImplBase<D, Derived, InstanceNormOptions>(options_, D == 1   ? "InstanceNorm1d"
                                                                : D == 2 ? "InstanceNorm2d"
                                                                         : "InstanceNorm3d") {}
  Tensor forward(const Tensor& input) override {
    const auto n = static_cast<int64_t>(D);
    CTORCH_CHECK_VALUE(input.dim() == n + 1 || input.dim() == n + 2, "expected ", n + 1, "D or ", n + 2,
                       "D input (got ", input.dim(), "D input)");
    const auto& o = this->options;
    return layers_detail::maybe_unbatched(input, n + 2, [&](const Tensor& x) {
      return ::ctorch::nn::functional::instance_norm(x, this->running_mean, this->running_var, this->weight, this->bias,
                                                     this->is_training() || !o.track_running_stats(), o.momentum(),
                                                     o.eps());
    });
  }
  void pretty_print(std::ostream& stream) const {
    const auto& o = this->options;
    stream << std::boolalpha << "torch::nn::" << this->name() << "(" << o.num_features() << ", eps=" << o.eps()
           << ", momentum=" << o.momentum() << ", affine=" << o.affine()
           << ", track_running_stats=" << o.track_running_stats() << ")";
  }
  std::string extra_repr() const override {
    const auto& o = this->options;
    return std::to_string(o.num_features()) + ", eps=" + layers_detail::py_float(o.eps()) +
           ", momentum=" + layers_detail::py_float(o.momentum()) + ", affine=" + layers_detail::py_bool(o.affine()) +
           ", track_running_stats=" + layers_detail::py_bool(o.track_running_stats());
  }
};

#define CTORCH_TORCH_NORM(Name, Base, D)          \
  class Name##Impl : public Base<D, Name##Impl> { \
   public:                                        \
    using Base<D, Name##Impl>::Base;              \
  };                                              \
  TORCH_MODULE(Name)
CTORCH_TORCH_NORM(BatchNorm1d, BatchNormImpl, 1);
CTORCH_TORCH_NORM(BatchNorm2d, BatchNormImpl, 2);
CTORCH_TORCH_NORM(BatchNorm3d, BatchNormImpl, 3);
CTORCH_TORCH_NORM(InstanceNorm1d, InstanceNormImpl, 1);
CTORCH_TORCH_NORM(InstanceNorm2d, InstanceNormImpl, 2);
CTORCH_TORCH_NORM(InstanceNorm3d, InstanceNormImpl, 3);
#undef CTORCH_TORCH_NORM

/// libtorch's LayerNormImpl.
class LayerNormImpl : public layers_detail::LayerCloneable<LayerNormImpl> {
 public:
  LayerNormImpl(std::vector<int64_t> normalized_shape)
      : LayerNormImpl(LayerNormOptions(std::move(normalized_shape))) {}  // NOLINT
  explicit LayerNormImpl(LayerNormOptions options_) : LayerCloneable("LayerNorm"), options(std::move(options_)) {
    reset();
  }
  void reset() override {
    if (options.elementwise_affine()) {
      weight = register_parameter("weight", ::ctorch::ones(options.normalized_shape()));
      bias = register_parameter("bias", ::ctorch::zeros(options.normalized_shape()));
    }
  }
  /// weight = 1, bias = 0.
  void reset_parameters() {
    if (!options.elementwise_affine()) return;
    ::ctorch::NoGradGuard no_grad;
    weight.fill_(1);
    bias.zero_();
  }
  Tensor forward(const Tensor& input) override {
    return ::ctorch::nn::functional::layer_norm(input, options.normalized_shape(), weight, bias, options.eps());
  }
  void pretty_print(std::ostream& stream) const {
    stream << std::boolalpha << "torch::nn::LayerNorm(" << layers_detail::list_str(options.normalized_shape())
           << ", eps=" << options.eps() << ", elementwise_affine=" << options.elementwise_affine() << ")";
  }
  std::string extra_repr() const override {
    return layers_detail::py_tuple(options.normalized_shape()) + ", eps=" + layers_detail::py_float(options.eps()) +
           ", elementwise_affine=" + layers_detail::py_bool(options.elementwise_affine());
  }
  LayerNormOptions options;
  Tensor weight, bias;
};
TORCH_MODULE(LayerNorm);

/// libtorch's GroupNormImpl.
class GroupNormImpl : public layers_detail::LayerCloneable<GroupNormImpl> {
 public:
  GroupNormImpl(int64_t num_groups, int64_t num_channels) : GroupNormImpl(GroupNormOptions(num_groups, num_channels)) {}
  explicit GroupNormImpl(const GroupNormOptions& options_) : LayerCloneable("GroupNorm"), options(options_) { reset(); }
  void reset() override {
    if (options.affine()) {
      weight = register_parameter("weight", ::ctorch::ones({options.num_channels()}));
      bias = register_parameter("bias", ::ctorch::zeros({options.num_channels()}));
    }
  }
  Tensor forward(const Tensor& input) override {
    return ::ctorch::nn::functional::group_norm(input, options.num_groups(), weight, bias, options.eps());
  }
  void pretty_print(std::ostream& stream) const {
    stream << std::boolalpha << "torch::nn::GroupNorm(" << options.num_groups() << ", " << options.num_channels()
           << ", eps=" << options.eps() << ", affine=" << options.affine() << ")";
  }
  std::string extra_repr() const override {
    return std::to_string(options.num_groups()) + ", " + std::to_string(options.num_channels()) +
           ", eps=" + layers_detail::py_float(options.eps()) + ", affine=" + layers_detail::py_bool(options.affine());
  }
  GroupNormOptions options;
  Tensor weight, bias;
};
TORCH_MODULE(GroupNorm);

/// libtorch's LocalResponseNormImpl.
class LocalResponseNormImpl : public layers_detail::LayerCloneable<LocalResponseNormImpl> {
 public:
  LocalResponseNormImpl(int64_t size) : LocalResponseNormImpl(LocalResponseNormOptions(size)) {}  // NOLINT
  explicit LocalResponseNormImpl(const LocalResponseNormOptions& options_)
      : LayerCloneable("LocalResponseNorm"), options(options_) {}
  void reset() override {}
  Tensor forward(const Tensor& input) override { return ::ctorch::nn::functional::local_response_norm(input, options); }
  void pretty_print(std::ostream& stream) const {
    stream << "torch::nn::LocalResponseNorm(" << options.size() << ", alpha=" << options.alpha()
           << ", beta=" << options.beta() << ", k=" << options.k() << ")";
  }
  std::string extra_repr() const override {
    using layers_detail::py_float;
    return std::to_string(options.size()) + ", alpha=" + py_float(options.alpha()) +
           ", beta=" + py_float(options.beta()) + ", k=" + py_float(options.k());
  }
  LocalResponseNormOptions options;
};
TORCH_MODULE(LocalResponseNorm);

/// libtorch's CrossMapLRN2dImpl: x / (k + alpha / size * sum of x^2 over `size` channels)^beta.
class CrossMapLRN2dImpl : public layers_detail::LayerCloneable<CrossMapLRN2dImpl> {
 public:
  CrossMapLRN2dImpl(int64_t size) : CrossMapLRN2dImpl(CrossMapLRN2dOptions(size)) {}  // NOLINT
  explicit CrossMapLRN2dImpl(const CrossMapLRN2dOptions& options_)
      : LayerCloneable("CrossMapLRN2d"), options(options_) {}
  void reset() override {}
  Tensor forward(const Tensor& input) override {
    CTORCH_CHECK(input.dim() == 4, "CrossMapLRN2d: Expected input to be 4D, got ", input.dim(), "D instead.");
    return ::ctorch::nn::functional::local_response_norm(input, options.size(), options.alpha(), options.beta(),
                                                         static_cast<double>(options.k()));
  }
  void pretty_print(std::ostream& stream) const {
    stream << "torch::nn::CrossMapLRN2d(" << options.size() << ", alpha=" << options.alpha()
           << ", beta=" << options.beta() << ", k=" << options.k() << ")";
  }
  std::string extra_repr() const override {
    using layers_detail::py_float;
    return std::to_string(options.size()) + ", alpha=" + py_float(options.alpha()) +
           ", beta=" + py_float(options.beta()) + ", k=" + std::to_string(options.k());
  }
  CrossMapLRN2dOptions options;
};
TORCH_MODULE(CrossMapLRN2d);

/// libtorch's dropout holders: `Fn` is the native function applied in training.
template <class Derived>
class DropoutImplBase : public layers_detail::LayerCloneable<Derived> {
 public:
  DropoutImplBase(const DropoutOptions& options_, std::string name)
      : layers_detail::LayerCloneable<Derived>(std::move(name)), options(options_) {
    reset();
  }
  void reset() override {
    CTORCH_CHECK(options.p() >= 0. && options.p() <= 1., "dropout probability has to be between 0 and 1, but got ",
                 options.p());
  }
  void pretty_print(std::ostream& stream) const {
    stream << std::boolalpha << "torch::nn::" << this->name() << "(p=" << options.p()
           << ", inplace=" << options.inplace() << ")";
  }
  std::string extra_repr() const override {
    std::ostringstream os;
    os << "p=" << options.p() << ", inplace=" << layers_detail::py_bool(options.inplace());
    return os.str();
  }
  DropoutOptions options;

 protected:
  /// `y` written into `input` when inplace.
  Tensor finish(const Tensor& input, const Tensor& y) const {
    if (!options.inplace()) return y;
    Tensor x = input;
    return x.copy_(y);
  }
};

#define CTORCH_TORCH_DROPOUT(Name, call)                                                           \
  class Name##Impl : public DropoutImplBase<Name##Impl> {                                          \
   public:                                                                                         \
    explicit Name##Impl(const DropoutOptions& options_ = {}) : DropoutImplBase(options_, #Name) {} \
    explicit Name##Impl(double p) : Name##Impl(DropoutOptions(p)) {}                               \
    Tensor forward(const Tensor& input) override {                                                 \
      return finish(input, ::ctorch::nn::functional::call(input, options.p(), is_training()));     \
    }                                                                                              \
  };                                                                                               \
  TORCH_MODULE(Name)
CTORCH_TORCH_DROPOUT(Dropout, dropout);
CTORCH_TORCH_DROPOUT(Dropout2d, dropout2d);
CTORCH_TORCH_DROPOUT(Dropout3d, dropout3d);
CTORCH_TORCH_DROPOUT(AlphaDropout, alpha_dropout);
CTORCH_TORCH_DROPOUT(FeatureAlphaDropout, feature_alpha_dropout);
CTORCH_TORCH_DROPOUT(FeatureDropout, feature_dropout);
#undef CTORCH_TORCH_DROPOUT

/// libtorch's EmbeddingImpl: weight [num_embeddings, embedding_dim] from N(0, 1) (or options._weight),
/// the padding_idx row zero.
class EmbeddingImpl : public layers_detail::LayerCloneable<EmbeddingImpl> {
 public:
  EmbeddingImpl(int64_t num_embeddings, int64_t embedding_dim)
      : EmbeddingImpl(EmbeddingOptions(num_embeddings, embedding_dim)) {}
  explicit EmbeddingImpl(EmbeddingOptions options_) : LayerCloneable("Embedding"), options(std::move(options_)) {
    reset();
  }
  void reset() override {
    if (auto& p = options.padding_idx()) {
      if (*p > 0) {
        CTORCH_CHECK(*p < options.num_embeddings(), "Padding_idx must be within num_embeddings");
      } else if (*p < 0) {
        CTORCH_CHECK(*p >= -options.num_embeddings(), "Padding_idx must be within num_embedding");
        p = options.num_embeddings() + *p;
      }
    }
    if (!options._weight().defined()) {
      weight = register_parameter("weight", ::ctorch::empty({options.num_embeddings(), options.embedding_dim()}));
      reset_parameters();
    } else {
      CTORCH_CHECK(options._weight().sizes() == IntArrayRef({options.num_embeddings(), options.embedding_dim()}),
                   "Shape of _weight does not match num_embeddings and embedding_dim");
      weight = register_parameter("weight", options._weight());
    }
  }
  /// N(0, 1), the padding_idx row zero.
  void reset_parameters() {
    ::ctorch::NoGradGuard no_grad;
    weight.normal_();
    if (options.padding_idx()) weight.select(0, *options.padding_idx()).fill_(0);
  }
  Tensor forward(const Tensor& input) override {
    ::ctorch::nn::functional::EmbeddingFuncOptions f;
    f.padding_idx(options.padding_idx()).max_norm(options.max_norm()).norm_type(options.norm_type());
    return ::ctorch::nn::functional::embedding(input, weight, f);
  }
  void pretty_print(std::ostream& stream) const {
    stream << std::boolalpha << "torch::nn::Embedding(num_embeddings=" << options.num_embeddings()
           << ", embedding_dim=" << options.embedding_dim();
    if (options.padding_idx()) stream << ", padding_idx=" << *options.padding_idx();
    if (options.max_norm()) stream << ", max_norm=" << *options.max_norm();
    if (options.norm_type() != 2) stream << ", norm_type=" << options.norm_type();
    if (options.scale_grad_by_freq()) stream << ", scale_grad_by_freq=" << options.scale_grad_by_freq();
    if (options.sparse()) stream << ", sparse=" << options.sparse();
    stream << ")";
  }
  std::string extra_repr() const override {
    std::string s = std::to_string(options.num_embeddings()) + ", " + std::to_string(options.embedding_dim());
    if (options.padding_idx()) s += ", padding_idx=" + std::to_string(*options.padding_idx());
    if (options.max_norm()) s += ", max_norm=" + layers_detail::py_float(*options.max_norm());
    if (options.norm_type() != 2) s += ", norm_type=" + layers_detail::py_float(options.norm_type());
    if (options.scale_grad_by_freq()) s += ", scale_grad_by_freq=True";
    if (options.sparse()) s += ", sparse=True";
    return s;
  }
  EmbeddingOptions options;
  Tensor weight;
};

/// libtorch's Embedding holder, with from_pretrained.
class Embedding : public ModuleHolder<EmbeddingImpl> {
 public:
  using ModuleHolder<EmbeddingImpl>::ModuleHolder;
  /// An Embedding whose weight is `embeddings` [rows, dim] (frozen unless options.freeze(false)).
  static Embedding from_pretrained(const Tensor& embeddings, const EmbeddingFromPretrainedOptions& options = {}) {
    CTORCH_CHECK(embeddings.dim() == 2, "Embeddings parameter is expected to be 2-dimensional");
    Embedding embedding(EmbeddingOptions(embeddings.size(0), embeddings.size(1))
                            ._weight(embeddings)
                            .padding_idx(options.padding_idx())
                            .max_norm(options.max_norm())
                            .norm_type(options.norm_type())
                            .scale_grad_by_freq(options.scale_grad_by_freq())
                            .sparse(options.sparse()));
    embedding->weight.requires_grad_(!options.freeze());
    return embedding;
  }
};

/// libtorch's EmbeddingBagImpl: forward(input, offsets, per_sample_weights).
class EmbeddingBagImpl : public layers_detail::LayerCloneable<EmbeddingBagImpl, ::ctorch::nn::Module> {
 public:
  EmbeddingBagImpl(int64_t num_embeddings, int64_t embedding_dim)
      : EmbeddingBagImpl(EmbeddingBagOptions(num_embeddings, embedding_dim)) {}
  explicit EmbeddingBagImpl(EmbeddingBagOptions options_)
      : LayerCloneable("EmbeddingBag"), options(std::move(options_)) {
    reset();
  }
  void reset() override {
    if (auto& p = options.padding_idx()) {
      if (*p > 0) {
        CTORCH_CHECK(*p < options.num_embeddings(), "padding_idx must be within num_embeddings");
      } else if (*p < 0) {
        CTORCH_CHECK(*p >= -options.num_embeddings(), "padding_idx must be within num_embedding");
        p = options.num_embeddings() + *p;
      }
    }
    if (!options._weight().defined()) {
      weight = register_parameter("weight", ::ctorch::empty({options.num_embeddings(), options.embedding_dim()}));
      ::ctorch::NoGradGuard no_grad;
      weight.normal_();
      if (options.padding_idx()) weight.select(0, *options.padding_idx()).fill_(0);
    } else {
      CTORCH_CHECK(options._weight().sizes() == IntArrayRef({options.num_embeddings(), options.embedding_dim()}),
                   "Shape of weight does not match num_embeddings and embedding_dim");
      weight = register_parameter("weight", options._weight());
    }
  }
  /// The bags' reductions.
  Tensor forward(const Tensor& input, const Tensor& offsets = {}, const Tensor& per_sample_weights = {}) {
    ::ctorch::nn::functional::EmbeddingBagFuncOptions f;
    f.offsets(offsets).max_norm(options.max_norm()).norm_type(options.norm_type()).mode(options.mode());
    f.per_sample_weights(per_sample_weights).include_last_offset(options.include_last_offset());
    f.padding_idx(options.padding_idx());
    return ::ctorch::nn::functional::embedding_bag(input, weight, f);
  }
  void pretty_print(std::ostream& stream) const {
    stream << std::boolalpha << "torch::nn::EmbeddingBag(num_embeddings=" << options.num_embeddings()
           << ", embedding_dim=" << options.embedding_dim();
    if (options.max_norm()) stream << ", max_norm=" << *options.max_norm();
    if (options.norm_type() != 2) stream << ", norm_type=" << options.norm_type();
    if (options.scale_grad_by_freq()) stream << ", scale_grad_by_freq=" << options.scale_grad_by_freq();
    if (options.sparse()) stream << ", sparse=" << options.sparse();
    if (!std::holds_alternative<enumtype::kMean>(options.mode()))
      stream << ", mode=" << enumtype::get_enum_name(options.mode());
    if (options.include_last_offset()) stream << ", include_last_offset=" << options.include_last_offset();
    if (options.padding_idx()) stream << ", padding_idx=" << *options.padding_idx();
    stream << ")";
  }
  std::string extra_repr() const override {
    std::string s = std::to_string(options.num_embeddings()) + ", " + std::to_string(options.embedding_dim());
    if (options.max_norm()) s += ", max_norm=" + layers_detail::py_float(*options.max_norm());
    if (options.norm_type() != 2) s += ", norm_type=" + layers_detail::py_float(options.norm_type());
    if (options.scale_grad_by_freq()) s += ", scale_grad_by_freq=True";
    s += ", mode=" + enumtype::enum_name_native(options.mode());
    if (options.padding_idx()) s += ", padding_idx=" + std::to_string(*options.padding_idx());
    return s;
  }
  EmbeddingBagOptions options;
  Tensor weight;
};

/// libtorch's EmbeddingBag holder, with from_pretrained.
class EmbeddingBag : public ModuleHolder<EmbeddingBagImpl> {
 public:
  using ModuleHolder<EmbeddingBagImpl>::ModuleHolder;
  /// An EmbeddingBag whose weight is `embeddings` [rows, dim] (frozen unless options.freeze(false)).
  static EmbeddingBag from_pretrained(const Tensor& embeddings, const EmbeddingBagFromPretrainedOptions& options = {}) {
    CTORCH_CHECK(embeddings.dim() == 2, "Embeddings parameter is expected to be 2-dimensional");
    EmbeddingBag bag(EmbeddingBagOptions(embeddings.size(0), embeddings.size(1))
                         ._weight(embeddings)
                         .max_norm(options.max_norm())
                         .norm_type(options.norm_type())
                         .scale_grad_by_freq(options.scale_grad_by_freq())
                         .mode(options.mode())
                         .sparse(options.sparse())
                         .include_last_offset(options.include_last_offset())
                         .padding_idx(options.padding_idx()));
    bag->weight.requires_grad_(!options.freeze());
    return bag;
  }
};

/// libtorch's CosineSimilarityImpl: forward(x1, x2).
class CosineSimilarityImpl : public layers_detail::LayerCloneable<CosineSimilarityImpl, ::ctorch::nn::Module> {
 public:
  explicit CosineSimilarityImpl(const CosineSimilarityOptions& options_ = {})
      : LayerCloneable("CosineSimilarity"), options(options_) {}
  void reset() override {}
  Tensor forward(const Tensor& input1, const Tensor& input2) {
    return ::ctorch::nn::functional::cosine_similarity(input1, input2, options);
  }
  void pretty_print(std::ostream& stream) const {
    stream << "torch::nn::CosineSimilarity(dim=" << options.dim() << ", eps=" << options.eps() << ")";
  }
  CosineSimilarityOptions options;
};
TORCH_MODULE(CosineSimilarity);

/// libtorch's PairwiseDistanceImpl: forward(x1, x2).
class PairwiseDistanceImpl : public layers_detail::LayerCloneable<PairwiseDistanceImpl, ::ctorch::nn::Module> {
 public:
  explicit PairwiseDistanceImpl(const PairwiseDistanceOptions& options_ = {})
      : LayerCloneable("PairwiseDistance"), options(options_) {}
  void reset() override {}
  Tensor forward(const Tensor& input1, const Tensor& input2) {
    return ::ctorch::nn::functional::pairwise_distance(input1, input2, options);
  }
  void pretty_print(std::ostream& stream) const {
    stream << std::boolalpha << "torch::nn::PairwiseDistance(p=" << options.p() << ", eps=" << options.eps()
           << ", keepdim=" << options.keepdim() << ")";
  }
  PairwiseDistanceOptions options;
};
TORCH_MODULE(PairwiseDistance);

/// libtorch's UpsampleImpl: F::interpolate with the layer's size or scale_factor and mode.
class UpsampleImpl : public layers_detail::LayerCloneable<UpsampleImpl> {
 public:
  explicit UpsampleImpl(const UpsampleOptions& options_ = {}) : LayerCloneable("Upsample"), options(options_) {}
  void reset() override {}
  Tensor forward(const Tensor& input) override {
    return ::ctorch::nn::functional::interpolate(input, options.size(), options.scale_factor(),
                                                 enumtype::enum_name_native(options.mode()), options.align_corners(),
                                                 std::nullopt, false);
  }
  void pretty_print(std::ostream& stream) const {
    stream << "torch::nn::Upsample(";
    if (options.scale_factor()) {
      stream << "scale_factor=" << layers_detail::list_str(*options.scale_factor());
    } else if (options.size()) {
      stream << "size=" << layers_detail::list_str(*options.size());
    }
    stream << ", mode=" << enumtype::get_enum_name(options.mode()) << ")";
  }
  std::string extra_repr() const override {
    std::string s;
    if (options.scale_factor()) {
      const auto& f = *options.scale_factor();
      if (f.size() == 1) {
        s = "scale_factor=" + layers_detail::py_float(f[0]);
      } else {
        s = "scale_factor=(";
        for (size_t i = 0; i < f.size(); ++i) s += (i ? ", " : "") + layers_detail::py_float(f[i]);
        s += ")";
      }
    } else if (options.size()) {
      s = "size=" + (options.size()->size() == 1 ? std::to_string((*options.size())[0])
                                                 : layers_detail::py_tuple(*options.size()));
    }
    return s + ", mode=" + enumtype::enum_name_native(options.mode());
  }
  UpsampleOptions options;
};
TORCH_MODULE(Upsample);

/// libtorch's PixelShuffleImpl.
class PixelShuffleImpl : public layers_detail::LayerCloneable<PixelShuffleImpl> {
 public:
  explicit PixelShuffleImpl(const PixelShuffleOptions& options_) : LayerCloneable("PixelShuffle"), options(options_) {}
  void reset() override {}
  Tensor forward(const Tensor& input) override {
    return ::ctorch::nn::functional::pixel_shuffle(input, options.upscale_factor());
  }
  void pretty_print(std::ostream& stream) const {
    stream << "torch::nn::PixelShuffle(upscale_factor=" << options.upscale_factor() << ")";
  }
  std::string extra_repr() const override { return "upscale_factor=" + std::to_string(options.upscale_factor()); }
  PixelShuffleOptions options;
};
TORCH_MODULE(PixelShuffle);

/// libtorch's PixelUnshuffleImpl.
class PixelUnshuffleImpl : public layers_detail::LayerCloneable<PixelUnshuffleImpl> {
 public:
  explicit PixelUnshuffleImpl(const PixelUnshuffleOptions& options_)
      : LayerCloneable("PixelUnshuffle"), options(options_) {}
  void reset() override {}
  Tensor forward(const Tensor& input) override {
    return ::ctorch::nn::functional::pixel_unshuffle(input, options.downscale_factor());
  }
  void pretty_print(std::ostream& stream) const {
    stream << "torch::nn::PixelUnshuffle(downscale_factor=" << options.downscale_factor() << ")";
  }
  std::string extra_repr() const override { return "downscale_factor=" + std::to_string(options.downscale_factor()); }
  PixelUnshuffleOptions options;
};
TORCH_MODULE(PixelUnshuffle);

/// libtorch's FlattenImpl.
class FlattenImpl : public layers_detail::LayerCloneable<FlattenImpl> {
 public:
  explicit FlattenImpl(const FlattenOptions& options_ = {}) : LayerCloneable("Flatten"), options(options_) {}
  void reset() override {}
  Tensor forward(const Tensor& input) override { return input.flatten(options.start_dim(), options.end_dim()); }
  void pretty_print(std::ostream& stream) const {
    stream << "torch::nn::Flatten(start_dim=" << options.start_dim() << ", end_dim=" << options.end_dim() << ")";
  }
  std::string extra_repr() const override {
    return "start_dim=" + std::to_string(options.start_dim()) + ", end_dim=" + std::to_string(options.end_dim());
  }
  FlattenOptions options;
};
TORCH_MODULE(Flatten);

/// libtorch's UnflattenImpl: dim `dim` split into `sizes` (one may be -1).
class UnflattenImpl : public layers_detail::LayerCloneable<UnflattenImpl> {
 public:
  UnflattenImpl(int64_t dim, std::vector<int64_t> sizes) : UnflattenImpl(UnflattenOptions(dim, std::move(sizes))) {}
  explicit UnflattenImpl(UnflattenOptions options_) : LayerCloneable("Unflatten"), options(std::move(options_)) {}
  void reset() override {}
  Tensor forward(const Tensor& input) override {
    CTORCH_CHECK_NOT_IMPLEMENTED(options.dimname().empty(),
                                 "Unflatten of a named dim: named tensors are not supported");
    const int64_t dim = options.dim() < 0 ? options.dim() + input.dim() : options.dim();
    CTORCH_CHECK_INDEX(dim >= 0 && dim < input.dim(), "Dimension out of range (expected to be in range of [",
                       -input.dim(), ", ", input.dim() - 1, "], but got ", options.dim(), ")");
    std::vector<int64_t> shape(input.sizes().begin(), input.sizes().begin() + dim);
    shape.insert(shape.end(), options.sizes().begin(), options.sizes().end());
    shape.insert(shape.end(), input.sizes().begin() + dim + 1, input.sizes().end());
    return input.view(shape);
  }
  void pretty_print(std::ostream& stream) const {
    if (!options.dimname().empty()) {
      stream << "torch::nn::Unflatten(dim=\"" << options.dimname() << "\", unflattened_size={";
      for (size_t i = 0; i < options.namedshape().size(); ++i)
        stream << (i ? ", " : "") << "{\"" << options.namedshape()[i].first << "\", " << options.namedshape()[i].second
               << "}";
      stream << "})";
      return;
    }
    stream << "torch::nn::Unflatten(dim=" << options.dim() << ", unflattened_size={";
    for (size_t i = 0; i < options.sizes().size(); ++i) stream << (i ? ", " : "") << options.sizes()[i];
    stream << "})";
  }
  std::string extra_repr() const override {
    return "dim=" + std::to_string(options.dim()) + ", unflattened_size=" + layers_detail::py_tuple(options.sizes());
  }
  UnflattenOptions options;
};
TORCH_MODULE(Unflatten);

/// libtorch's IdentityImpl.
class IdentityImpl : public layers_detail::LayerCloneable<IdentityImpl> {
 public:
  IdentityImpl() : LayerCloneable("Identity") {}
  void reset() override {}
  Tensor forward(const Tensor& input) override { return input; }
  void pretty_print(std::ostream& stream) const { stream << "torch::nn::Identity()"; }
};
TORCH_MODULE(Identity);

/// libtorch's BilinearImpl: weight [out, in1, in2] and bias [out] from U(-1/sqrt(in1), 1/sqrt(in1)).
class BilinearImpl : public layers_detail::LayerCloneable<BilinearImpl, ::ctorch::nn::Module> {
 public:
  BilinearImpl(int64_t in1_features, int64_t in2_features, int64_t out_features)
      : BilinearImpl(BilinearOptions(in1_features, in2_features, out_features)) {}
  explicit BilinearImpl(const BilinearOptions& options_) : LayerCloneable("Bilinear"), options(options_) { reset(); }
  void reset() override {
    weight = register_parameter(
        "weight", ::ctorch::empty({options.out_features(), options.in1_features(), options.in2_features()}));
    if (options.bias()) bias = register_parameter("bias", ::ctorch::empty({options.out_features()}));
    reset_parameters();
  }
  /// U(-1/sqrt(in1_features), 1/sqrt(in1_features)).
  void reset_parameters() {
    ::ctorch::NoGradGuard no_grad;
    const double bound = 1.0 / std::sqrt(static_cast<double>(weight.size(1)));
    weight.uniform_(-bound, bound);
    if (bias.defined()) bias.uniform_(-bound, bound);
  }
  Tensor forward(const Tensor& input1, const Tensor& input2) {
    return ::ctorch::nn::functional::bilinear(input1, input2, weight, bias);
  }
  void pretty_print(std::ostream& stream) const {
    stream << std::boolalpha << "torch::nn::Bilinear(in1_features=" << options.in1_features()
           << ", in2_features=" << options.in2_features() << ", out_features=" << options.out_features()
           << ", bias=" << options.bias() << ")";
  }
  std::string extra_repr() const override {
    return "in1_features=" + std::to_string(options.in1_features()) +
           ", in2_features=" + std::to_string(options.in2_features()) +
           ", out_features=" + std::to_string(options.out_features()) +
           ", bias=" + layers_detail::py_bool(options.bias());
  }
  BilinearOptions options;
  Tensor weight, bias;
};
TORCH_MODULE(Bilinear);

}  // namespace torch::nn
