// libtorch's loss options (torch/nn/options/loss.h, reductions as torch::kNone/kMean/kSum) and their
// functional forms (`F::huber_loss(x, y, F::HuberLossFuncOptions().delta(0.5))`), forwarding to
// ctorch::nn::functional; also F::pairwise_distance / F::cosine_similarity, which they use.
#pragma once

#include <functional>
#include <optional>

#include "ctorch/libtorch/arg.h"
#include "ctorch/libtorch/core.h"
#include "ctorch/libtorch/enum.h"
#include "ctorch/nn_functional.h"
#include "ctorch/nn_functional_loss.h"

namespace torch::nn {

/// The reduction type of the losses: torch::kNone, torch::kMean or torch::kSum.
using LossReduction = c10::variant<enumtype::kNone, enumtype::kMean, enumtype::kSum>;

/// Options whose only setting is the reduction, constructible from one (`L1Loss(torch::kSum)`).
#define CTORCH_REDUCTION_ONLY_OPTIONS(Name)                              \
  struct Name {                                                          \
    using reduction_t = LossReduction;                                   \
    TORCH_OPTIONS_CTOR_VARIANT_ARG3(Name, reduction, kNone, kMean, kSum) \
    TORCH_ARG(reduction_t, reduction) = torch::kMean;                    \
  }
/// torch::nn::L1LossOptions(reduction).
CTORCH_REDUCTION_ONLY_OPTIONS(L1LossOptions);
/// torch::nn::MSELossOptions(reduction).
CTORCH_REDUCTION_ONLY_OPTIONS(MSELossOptions);
/// torch::nn::MultiLabelMarginLossOptions(reduction).
CTORCH_REDUCTION_ONLY_OPTIONS(MultiLabelMarginLossOptions);
/// torch::nn::SoftMarginLossOptions(reduction).
CTORCH_REDUCTION_ONLY_OPTIONS(SoftMarginLossOptions);
#undef CTORCH_REDUCTION_ONLY_OPTIONS

/// torch::nn::KLDivLossOptions(reduction).log_target(b); the reduction may also be torch::kBatchMean.
struct KLDivLossOptions {
  using reduction_t = c10::variant<enumtype::kNone, enumtype::kBatchMean, enumtype::kSum, enumtype::kMean>;
  TORCH_OPTIONS_CTOR_VARIANT_ARG4(KLDivLossOptions, reduction, kNone, kBatchMean, kSum, kMean)
  TORCH_ARG(reduction_t, reduction) = torch::kMean;
  TORCH_ARG(bool, log_target) = false;
};
/// torch::nn::BCELossOptions().weight(w).reduction(r).
struct BCELossOptions {
  using reduction_t = LossReduction;
  TORCH_ARG(Tensor, weight) = {};
  TORCH_ARG(reduction_t, reduction) = torch::kMean;
};
/// torch::nn::HingeEmbeddingLossOptions().margin(m).reduction(r).
struct HingeEmbeddingLossOptions {
  using reduction_t = LossReduction;
  TORCH_ARG(double, margin) = 1.0;
  TORCH_ARG(reduction_t, reduction) = torch::kMean;
};
/// torch::nn::MultiMarginLossOptions().p(1 or 2).margin(m).weight(w).reduction(r).
struct MultiMarginLossOptions {
  using reduction_t = LossReduction;
  TORCH_ARG(int64_t, p) = 1;
  TORCH_ARG(double, margin) = 1.0;
  TORCH_ARG(Tensor, weight) = Tensor();
  TORCH_ARG(reduction_t, reduction) = torch::kMean;
};
/// torch::nn::CosineEmbeddingLossOptions().margin(m).reduction(r).
struct CosineEmbeddingLossOptions {
  using reduction_t = LossReduction;
  TORCH_ARG(double, margin) = 0.0;
  TORCH_ARG(reduction_t, reduction) = torch::kMean;
};
/// torch::nn::MultiLabelSoftMarginLossOptions().weight(w).reduction(r).
struct MultiLabelSoftMarginLossOptions {
  using reduction_t = LossReduction;
  TORCH_ARG(Tensor, weight) = Tensor();
  TORCH_ARG(reduction_t, reduction) = torch::kMean;
};
/// torch::nn::TripletMarginLossOptions().margin(m).p(p).eps(e).swap(s).reduction(r).
struct TripletMarginLossOptions {
  using reduction_t = LossReduction;
  TORCH_ARG(double, margin) = 1.0;
  TORCH_ARG(double, p) = 2.0;
  TORCH_ARG(double, eps) = 1e-6;
  TORCH_ARG(bool, swap) = false;
  TORCH_ARG(reduction_t, reduction) = torch::kMean;
};
/// torch::nn::TripletMarginWithDistanceLossOptions().distance_function(f).margin(m).swap(s).reduction(r).
struct TripletMarginWithDistanceLossOptions {
  using reduction_t = LossReduction;
  using distance_function_t = std::function<Tensor(const Tensor&, const Tensor&)>;
  TORCH_ARG(std::optional<distance_function_t>, distance_function) = std::nullopt;
  TORCH_ARG(double, margin) = 1.0;
  TORCH_ARG(bool, swap) = false;
  TORCH_ARG(reduction_t, reduction) = torch::kMean;
};
/// torch::nn::CTCLossOptions().blank(b).reduction(r).zero_infinity(z).
struct CTCLossOptions {
  using reduction_t = LossReduction;
  TORCH_ARG(int64_t, blank) = 0;
  TORCH_ARG(reduction_t, reduction) = torch::kMean;
  TORCH_ARG(bool, zero_infinity) = false;
};
/// torch::nn::SmoothL1LossOptions(reduction).beta(b).
struct SmoothL1LossOptions {
  using reduction_t = LossReduction;
  TORCH_OPTIONS_CTOR_VARIANT_ARG3(SmoothL1LossOptions, reduction, kNone, kMean, kSum)
  TORCH_ARG(reduction_t, reduction) = torch::kMean;
  TORCH_ARG(double, beta) = 1.0;
};
/// torch::nn::HuberLossOptions(reduction).delta(d).
struct HuberLossOptions {
  using reduction_t = LossReduction;
  TORCH_OPTIONS_CTOR_VARIANT_ARG3(HuberLossOptions, reduction, kNone, kMean, kSum)
  TORCH_ARG(reduction_t, reduction) = torch::kMean;
  TORCH_ARG(double, delta) = 1.0;
};
/// torch::nn::PoissonNLLLossOptions().log_input(b).full(f).eps(e).reduction(r).
struct PoissonNLLLossOptions {
  using reduction_t = LossReduction;
  TORCH_ARG(bool, log_input) = true;
  TORCH_ARG(bool, full) = false;
  TORCH_ARG(double, eps) = 1e-8;
  TORCH_ARG(reduction_t, reduction) = torch::kMean;
};
/// torch::nn::MarginRankingLossOptions().margin(m).reduction(r).
struct MarginRankingLossOptions {
  using reduction_t = LossReduction;
  TORCH_ARG(double, margin) = 0;
  TORCH_ARG(reduction_t, reduction) = torch::kMean;
};
/// torch::nn::NLLLossOptions().weight(w).ignore_index(i).reduction(r).
struct NLLLossOptions {
  using reduction_t = LossReduction;
  TORCH_ARG(Tensor, weight) = {};
  TORCH_ARG(int64_t, ignore_index) = -100;
  TORCH_ARG(reduction_t, reduction) = torch::kMean;
};
/// torch::nn::CrossEntropyLossOptions().weight(w).ignore_index(i).reduction(r).label_smoothing(s).
struct CrossEntropyLossOptions {
  using reduction_t = LossReduction;
  TORCH_ARG(Tensor, weight) = {};
  TORCH_ARG(int64_t, ignore_index) = -100;
  TORCH_ARG(reduction_t, reduction) = torch::kMean;
  TORCH_ARG(double, label_smoothing) = 0.0;
};
/// torch::nn::BCEWithLogitsLossOptions().weight(w).reduction(r).pos_weight(p).
struct BCEWithLogitsLossOptions {
  using reduction_t = LossReduction;
  TORCH_ARG(Tensor, weight) = {};
  TORCH_ARG(reduction_t, reduction) = torch::kMean;
  TORCH_ARG(Tensor, pos_weight) = {};
};

namespace functional {

using CosineSimilarityFuncOptions = CosineSimilarityOptions;
using PairwiseDistanceFuncOptions = PairwiseDistanceOptions;
using L1LossFuncOptions = L1LossOptions;
using KLDivFuncOptions = KLDivLossOptions;
using MSELossFuncOptions = MSELossOptions;
using BinaryCrossEntropyFuncOptions = BCELossOptions;
using HingeEmbeddingLossFuncOptions = HingeEmbeddingLossOptions;
using MultiMarginLossFuncOptions = MultiMarginLossOptions;
using CosineEmbeddingLossFuncOptions = CosineEmbeddingLossOptions;
using MultilabelMarginLossFuncOptions = MultiLabelMarginLossOptions;
using SoftMarginLossFuncOptions = SoftMarginLossOptions;
using MultilabelSoftMarginLossFuncOptions = MultiLabelSoftMarginLossOptions;
using TripletMarginLossFuncOptions = TripletMarginLossOptions;
using TripletMarginWithDistanceLossFuncOptions = TripletMarginWithDistanceLossOptions;
using CTCLossFuncOptions = CTCLossOptions;
using SmoothL1LossFuncOptions = SmoothL1LossOptions;
using HuberLossFuncOptions = HuberLossOptions;
using PoissonNLLLossFuncOptions = PoissonNLLLossOptions;
using MarginRankingLossFuncOptions = MarginRankingLossOptions;
using NLLLossFuncOptions = NLLLossOptions;
using CrossEntropyFuncOptions = CrossEntropyLossOptions;
using BinaryCrossEntropyWithLogitsFuncOptions = BCEWithLogitsLossOptions;

namespace native = ::ctorch::nn::functional;

namespace loss_detail {
/// The native API's name of a reduction ("none", "mean", "sum", "batchmean").
template <class V>
std::string reduction_name(const V& reduction) {
  return ::torch::enumtype::enum_name_native(reduction);
}
}  // namespace loss_detail

inline Tensor cosine_similarity(const Tensor& x1, const Tensor& x2, const CosineSimilarityFuncOptions& options = {}) {
  return ::ctorch::cosine_similarity(x1, x2, options.dim(), options.eps());
}
inline Tensor pairwise_distance(const Tensor& x1, const Tensor& x2, const PairwiseDistanceFuncOptions& options = {}) {
  return ::ctorch::pairwise_distance(x1, x2, options.p(), options.eps(), options.keepdim());
}
inline Tensor l1_loss(const Tensor& input, const Tensor& target, const L1LossFuncOptions& options = {}) {
  return native::l1_loss(input, target, loss_detail::reduction_name(options.reduction()));
}
inline Tensor kl_div(const Tensor& input, const Tensor& target, const KLDivFuncOptions& options = {}) {
  return native::kl_div(input, target, loss_detail::reduction_name(options.reduction()), options.log_target());
}
inline Tensor mse_loss(const Tensor& input, const Tensor& target, const MSELossFuncOptions& options = {}) {
  return native::mse_loss(input, target, loss_detail::reduction_name(options.reduction()));
}
inline Tensor binary_cross_entropy(const Tensor& input, const Tensor& target,
                                   const BinaryCrossEntropyFuncOptions& options = {}) {
  return native::binary_cross_entropy(input, target, options.weight(), loss_detail::reduction_name(options.reduction()));
}
inline Tensor hinge_embedding_loss(const Tensor& input, const Tensor& target,
                                   const HingeEmbeddingLossFuncOptions& options = {}) {
  return native::hinge_embedding_loss(input, target, options.margin(), loss_detail::reduction_name(options.reduction()));
}
inline Tensor multi_margin_loss(const Tensor& input, const Tensor& target,
                                const MultiMarginLossFuncOptions& options = {}) {
  return native::multi_margin_loss(input, target, options.p(), options.margin(), options.weight(),
                                   loss_detail::reduction_name(options.reduction()));
}
inline Tensor cosine_embedding_loss(const Tensor& input1, const Tensor& input2, const Tensor& target,
                                    const CosineEmbeddingLossFuncOptions& options = {}) {
  return native::cosine_embedding_loss(input1, input2, target, options.margin(),
                                       loss_detail::reduction_name(options.reduction()));
}
/// libtorch's smooth_l1_loss: `beta`, when given, takes the place of options.beta().
inline Tensor smooth_l1_loss(const Tensor& input, const Tensor& target, const SmoothL1LossFuncOptions& options = {},
                             std::optional<double> beta = std::nullopt) {
  return native::smooth_l1_loss(input, target, loss_detail::reduction_name(options.reduction()),
                                beta.value_or(options.beta()));
}
inline Tensor huber_loss(const Tensor& input, const Tensor& target, const HuberLossFuncOptions& options = {}) {
  return native::huber_loss(input, target, loss_detail::reduction_name(options.reduction()), options.delta());
}
inline Tensor multilabel_margin_loss(const Tensor& input, const Tensor& target,
                                     const MultilabelMarginLossFuncOptions& options = {}) {
  return native::multilabel_margin_loss(input, target, loss_detail::reduction_name(options.reduction()));
}
inline Tensor soft_margin_loss(const Tensor& input, const Tensor& target,
                               const SoftMarginLossFuncOptions& options = {}) {
  return native::soft_margin_loss(input, target, loss_detail::reduction_name(options.reduction()));
}
inline Tensor multilabel_soft_margin_loss(const Tensor& input, const Tensor& target,
                                          const MultilabelSoftMarginLossFuncOptions& options = {}) {
  return native::multilabel_soft_margin_loss(input, target, options.weight(),
                                             loss_detail::reduction_name(options.reduction()));
}
inline Tensor triplet_margin_loss(const Tensor& anchor, const Tensor& positive, const Tensor& negative,
                                  const TripletMarginLossFuncOptions& options = {}) {
  return native::triplet_margin_loss(anchor, positive, negative, options.margin(), options.p(), options.eps(),
                                     options.swap(), loss_detail::reduction_name(options.reduction()));
}
inline Tensor triplet_margin_with_distance_loss(const Tensor& anchor, const Tensor& positive, const Tensor& negative,
                                                const TripletMarginWithDistanceLossFuncOptions& options = {}) {
  return native::triplet_margin_with_distance_loss(
      anchor, positive, negative, options.distance_function().value_or(nullptr), options.margin(), options.swap(),
      loss_detail::reduction_name(options.reduction()));
}
inline Tensor ctc_loss(const Tensor& log_probs, const Tensor& targets, const Tensor& input_lengths,
                       const Tensor& target_lengths, const CTCLossFuncOptions& options = {}) {
  return native::ctc_loss(log_probs, targets, input_lengths, target_lengths, options.blank(),
                          loss_detail::reduction_name(options.reduction()), options.zero_infinity());
}
inline Tensor poisson_nll_loss(const Tensor& input, const Tensor& target,
                               const PoissonNLLLossFuncOptions& options = {}) {
  return native::poisson_nll_loss(input, target, options.log_input(), options.full(), options.eps(),
                                  loss_detail::reduction_name(options.reduction()));
}
inline Tensor margin_ranking_loss(const Tensor& input1, const Tensor& input2, const Tensor& target,
                                  const MarginRankingLossFuncOptions& options = {}) {
  return native::margin_ranking_loss(input1, input2, target, options.margin(),
                                     loss_detail::reduction_name(options.reduction()));
}
/// libtorch's nll_loss: input of 2 or more dims ([N, C, d1, ...]).
inline Tensor nll_loss(const Tensor& input, const Tensor& target, const NLLLossFuncOptions& options = {}) {
  TORCH_CHECK(input.dim() >= 2, "Expected 2 or more dimensions (got ", input.dim(), ")");
  TORCH_CHECK(input.size(0) == target.size(0), "Expected input batch_size (", input.size(0),
              ") to match target batch_size (", target.size(0), ").");
  return native::nll_loss(input, target, options.weight(), options.ignore_index(),
                          loss_detail::reduction_name(options.reduction()));
}
inline Tensor cross_entropy(const Tensor& input, const Tensor& target, const CrossEntropyFuncOptions& options = {}) {
  return native::cross_entropy(input, target, options.weight(), options.ignore_index(),
                               loss_detail::reduction_name(options.reduction()), options.label_smoothing());
}
inline Tensor binary_cross_entropy_with_logits(const Tensor& input, const Tensor& target,
                                               const BinaryCrossEntropyWithLogitsFuncOptions& options = {}) {
  return native::binary_cross_entropy_with_logits(input, target, options.weight(),
                                                  loss_detail::reduction_name(options.reduction()), options.pos_weight());
}

}  // namespace functional
}  // namespace torch::nn
