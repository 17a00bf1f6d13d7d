// libtorch's loss modules (torch/nn/modules/loss.h): `torch::nn::HuberLoss loss(HuberLossOptions()
// .delta(0.5)); loss(input, target)`, and the distance modules PairwiseDistance and
// CosineSimilarity. Two-tensor losses are ctorch::nn::Loss modules (MSELoss, L1Loss, SmoothL1Loss,
// NLLLoss, CrossEntropyLoss, BCELoss, BCEWithLogitsLoss extend ctorch's own, nn_loss.h); each
// *Impl keeps its `options` and prints itself in libtorch's format (pretty_print).
#pragma once

#include <ostream>

// nn.h (ModuleHolder, TORCH_MODULE) first: it includes this header at its end.
#include "ctorch/libtorch/nn.h"
//
#include "ctorch/libtorch/functional_loss.h"
#include "ctorch/nn_loss.h"

#ifndef CTORCH_LIBTORCH_PRINTED_MODULE
/// Declares the holder `Name` of `NameImpl` (TORCH_MODULE) and prints it with NameImpl::pretty_print
/// (also defined by modules_loss.h / modules_activation.h, whichever comes first).
#define CTORCH_LIBTORCH_PRINTED_MODULE(Name)                                                \
  TORCH_MODULE(Name);                                                                       \
  inline std::ostream& operator<<(std::ostream& stream, const Name& holder) { /* NOLINT */ \
    holder->pretty_print(stream);                                                           \
    return stream;                                                                          \
  }
#endif

namespace torch::nn {

/// The common part of the libtorch losses without a native module: a ctorch::nn::Loss whose forward
/// is `compute(input, target)` with the options (reset() refreshes the reduction name).
template <class Options, class Derived>
class LibtorchLoss : public ::ctorch::nn::Loss {
 public:
  LibtorchLoss(std::string name, const Options& options_)
      : Loss(std::move(name), ::torch::enumtype::enum_name_native(options_.reduction())), options(options_) {}
  Tensor forward(const Tensor& input, const Tensor& target) override {
    return static_cast<Derived*>(this)->compute(input, target);
  }
  /// libtorch's Cloneable::reset(): the reduction name follows the options again.
  void reset() { reduction = ::torch::enumtype::enum_name_native(options.reduction()); }
  Options options;
};

/// A loss over a native module: that module built from the options, printed as `torch::nn::<Name>()`.
#define CTORCH_LIBTORCH_NATIVE_LOSS(Name, ...)                                          \
  class Name##Impl : public ::ctorch::nn::Name {                                        \
    CTORCH_MODULE_REPLICABLE(Name##Impl)                                                \
                                                                                        \
   public:                                                                              \
    explicit Name##Impl(const Name##Options& options_ = {})                             \
        : ::ctorch::nn::Name(__VA_ARGS__), options(options_) {}                         \
    void reset() {}                                                                     \
    void pretty_print(std::ostream& stream) const { stream << "torch::nn::" #Name "()"; } \
    Name##Options options;                                                              \
  };                                                                                    \
  CTORCH_LIBTORCH_PRINTED_MODULE(Name)

#define CTORCH_REDUCTION_(o) ::torch::enumtype::enum_name_native((o).reduction())
/// libtorch's L1LossImpl.
CTORCH_LIBTORCH_NATIVE_LOSS(L1Loss, CTORCH_REDUCTION_(options_))
/// libtorch's MSELossImpl.
CTORCH_LIBTORCH_NATIVE_LOSS(MSELoss, CTORCH_REDUCTION_(options_))
/// libtorch's BCELossImpl.
CTORCH_LIBTORCH_NATIVE_LOSS(BCELoss, options_.weight(), CTORCH_REDUCTION_(options_))
/// libtorch's NLLLossImpl.
CTORCH_LIBTORCH_NATIVE_LOSS(NLLLoss, options_.weight(), options_.ignore_index(), CTORCH_REDUCTION_(options_))
/// libtorch's CrossEntropyLossImpl.
CTORCH_LIBTORCH_NATIVE_LOSS(CrossEntropyLoss, options_.weight(), options_.ignore_index(), CTORCH_REDUCTION_(options_),
                            options_.label_smoothing())
/// libtorch's BCEWithLogitsLossImpl.
CTORCH_LIBTORCH_NATIVE_LOSS(BCEWithLogitsLoss, options_.weight(), CTORCH_REDUCTION_(options_), options_.pos_weight())
#undef CTORCH_LIBTORCH_NATIVE_LOSS

/// libtorch's SmoothL1LossImpl: ctorch's SmoothL1Loss with its options.
class SmoothL1LossImpl : public ::ctorch::nn::SmoothL1Loss {
  CTORCH_MODULE_REPLICABLE(SmoothL1LossImpl)

 public:
  explicit SmoothL1LossImpl(const SmoothL1LossOptions& options_ = {})
      : ::ctorch::nn::SmoothL1Loss(CTORCH_REDUCTION_(options_), options_.beta()), options(options_) {}
  void reset() {}
  void pretty_print(std::ostream& stream) const { stream << "torch::nn::SmoothL1Loss"; }
  SmoothL1LossOptions options;
};
CTORCH_LIBTORCH_PRINTED_MODULE(SmoothL1Loss)
#undef CTORCH_REDUCTION_

/// A two-tensor loss over its F:: form: `forward(input, target) = F::<function>(input, target, options)`.
#define CTORCH_LIBTORCH_LOSS(Name, function, printed)                                                  \
  class Name##Impl : public LibtorchLoss<Name##Options, Name##Impl> {                                  \
    CTORCH_MODULE_REPLICABLE(Name##Impl)                                                               \
                                                                                                       \
   public:                                                                                             \
    explicit Name##Impl(const Name##Options& options_ = {}) : LibtorchLoss(#Name, options_) {}         \
    Tensor compute(const Tensor& input, const Tensor& target) {                                        \
      return functional::function(input, target, options);                                             \
    }                                                                                                  \
    void pretty_print(std::ostream& stream) const { stream << "torch::nn::" #Name << printed; }        \
  };                                                                                                   \
  CTORCH_LIBTORCH_PRINTED_MODULE(Name)

/// libtorch's KLDivLossImpl.
CTORCH_LIBTORCH_LOSS(KLDivLoss, kl_div, "()")
/// libtorch's HingeEmbeddingLossImpl.
CTORCH_LIBTORCH_LOSS(HingeEmbeddingLoss, hinge_embedding_loss, "(margin=" << options.margin() << ")")
/// libtorch's MultiMarginLossImpl.
CTORCH_LIBTORCH_LOSS(MultiMarginLoss, multi_margin_loss,
                     "(p=" << options.p() << ", margin=" << options.margin() << ", weight=" << options.weight()
                           << ", reduction=" << ::torch::enumtype::get_enum_name(options.reduction()) << ")")
/// libtorch's MultiLabelMarginLossImpl.
CTORCH_LIBTORCH_LOSS(MultiLabelMarginLoss, multilabel_margin_loss, "()")
/// libtorch's SoftMarginLossImpl.
CTORCH_LIBTORCH_LOSS(SoftMarginLoss, soft_margin_loss, "()")
/// libtorch's MultiLabelSoftMarginLossImpl.
CTORCH_LIBTORCH_LOSS(MultiLabelSoftMarginLoss, multilabel_soft_margin_loss, "()")
/// libtorch's HuberLossImpl.
CTORCH_LIBTORCH_LOSS(HuberLoss, huber_loss, "")
/// libtorch's PoissonNLLLossImpl (forward(log_input, target)).
CTORCH_LIBTORCH_LOSS(PoissonNLLLoss, poisson_nll_loss, "()")
#undef CTORCH_LIBTORCH_LOSS

/// libtorch's CosineEmbeddingLossImpl: forward(input1, input2, target).
class CosineEmbeddingLossImpl : public ::ctorch::nn::Module {
  CTORCH_MODULE_REPLICABLE(CosineEmbeddingLossImpl)

 public:
  explicit CosineEmbeddingLossImpl(const CosineEmbeddingLossOptions& options_ = {})
      : Module("CosineEmbeddingLoss"), options(options_) {}
  Tensor forward(const Tensor& input1, const Tensor& input2, const Tensor& target) {
    return functional::cosine_embedding_loss(input1, input2, target, options);
  }
  void reset() {}
  void pretty_print(std::ostream& stream) const {
    stream << "torch::nn::CosineEmbeddingLoss(margin=" << options.margin() << ")";
  }
  CosineEmbeddingLossOptions options;
};
CTORCH_LIBTORCH_PRINTED_MODULE(CosineEmbeddingLoss)

/// libtorch's MarginRankingLossImpl: forward(input1, input2, target).
class MarginRankingLossImpl : public ::ctorch::nn::Module {
  CTORCH_MODULE_REPLICABLE(MarginRankingLossImpl)

 public:
  explicit MarginRankingLossImpl(const MarginRankingLossOptions& options_ = {})
      : Module("MarginRankingLoss"), options(options_) {}
  Tensor forward(const Tensor& input1, const Tensor& input2, const Tensor& target) {
    return functional::margin_ranking_loss(input1, input2, target, options);
  }
  void reset() {}
  void pretty_print(std::ostream& stream) const { stream << "torch::nn::MarginRankingLoss()"; }
  MarginRankingLossOptions options;
};
CTORCH_LIBTORCH_PRINTED_MODULE(MarginRankingLoss)

/// libtorch's TripletMarginLossImpl: forward(anchor, positive, negative).
class TripletMarginLossImpl : public ::ctorch::nn::Module {
  CTORCH_MODULE_REPLICABLE(TripletMarginLossImpl)

 public:
  explicit TripletMarginLossImpl(const TripletMarginLossOptions& options_ = {})
      : Module("TripletMarginLoss"), options(options_) {}
  Tensor forward(const Tensor& anchor, const Tensor& positive, const Tensor& negative) {
    return functional::triplet_margin_loss(anchor, positive, negative, options);
  }
  void reset() {}
  void pretty_print(std::ostream& stream) const {
    stream << "torch::nn::TripletMarginLoss(margin=" << options.margin() << ", p=" << options.p()
           << ", eps=" << options.eps() << std::boolalpha << ", swap=" << options.swap() << ")";
  }
  TripletMarginLossOptions options;
};
CTORCH_LIBTORCH_PRINTED_MODULE(TripletMarginLoss)

/// libtorch's TripletMarginWithDistanceLossImpl: forward(anchor, positive, negative).
class TripletMarginWithDistanceLossImpl : public ::ctorch::nn::Module {
  CTORCH_MODULE_REPLICABLE(TripletMarginWithDistanceLossImpl)

 public:
  explicit TripletMarginWithDistanceLossImpl(TripletMarginWithDistanceLossOptions options_ = {})
      : Module("TripletMarginWithDistanceLoss"), options(std::move(options_)) {}
  Tensor forward(const Tensor& anchor, const Tensor& positive, const Tensor& negative) {
    return functional::triplet_margin_with_distance_loss(anchor, positive, negative, options);
  }
  void reset() {}
  void pretty_print(std::ostream& stream) const {
    stream << "torch::nn::TripletMarginWithDistanceLoss(margin=" << options.margin() << std::boolalpha
           << ", swap=" << options.swap() << ")";
  }
  TripletMarginWithDistanceLossOptions options;
};
CTORCH_LIBTORCH_PRINTED_MODULE(TripletMarginWithDistanceLoss)

/// libtorch's CTCLossImpl: forward(log_probs, targets, input_lengths, target_lengths).
class CTCLossImpl : public ::ctorch::nn::Module {
  CTORCH_MODULE_REPLICABLE(CTCLossImpl)

 public:
  explicit CTCLossImpl(const CTCLossOptions& options_ = {}) : Module("CTCLoss"), options(options_) {}
  Tensor forward(const Tensor& log_probs, const Tensor& targets, const Tensor& input_lengths,
                 const Tensor& target_lengths) {
    return functional::ctc_loss(log_probs, targets, input_lengths, target_lengths, options);
  }
  void reset() {}
  void pretty_print(std::ostream& stream) const { stream << "torch::nn::CTCLoss()"; }
  CTCLossOptions options;
};
CTORCH_LIBTORCH_PRINTED_MODULE(CTCLoss)

}  // namespace torch::nn
