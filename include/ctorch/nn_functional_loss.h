// torch.nn.functional's losses beyond mse/l1/smooth_l1/nll/cross_entropy/bce (nn_functional.h),
// and the distances they use (torch.pairwise_distance, torch.cosine_similarity). Each is composed
// of differentiable ops, spelled and defaulted as in Python; `reduction` is "mean", "sum" or "none".
#pragma once

#include <functional>

#include "ctorch/nn_functional.h"
#include "ctorch/tensor.h"

namespace ctorch::inline api {
/// ||x1 - x2 + eps||_p over the last dim (torch.pairwise_distance).
Tensor pairwise_distance(const Tensor& x1, const Tensor& x2, double p = 2.0, double eps = 1e-6, bool keepdim = false);
/// <x1, x2> / (max(||x1||, eps) max(||x2||, eps)) along dim, broadcasting (torch.cosine_similarity).
Tensor cosine_similarity(const Tensor& x1, const Tensor& x2, int64_t dim = 1, double eps = 1e-8);
}  // namespace ctorch::inline api

namespace ctorch::nn::functional {

// F.pairwise_distance and F.cosine_similarity are torch.pairwise_distance and torch.cosine_similarity.
using ::ctorch::cosine_similarity;
using ::ctorch::pairwise_distance;

/// 0.5 d^2 where |d| < delta, else delta (|d| - 0.5 delta), d = input - target; delta > 0 (F.huber_loss).
Tensor huber_loss(const Tensor& input, const Tensor& target, const Reduction& reduction = "mean", double delta = 1.0);
/// log(1 + exp(-target * input)) (F.soft_margin_loss; target is 1 or -1).
Tensor soft_margin_loss(const Tensor& input, const Tensor& target, const Reduction& reduction = "mean");
/// Per-sample mean over classes of the (weighted) binary cross entropy of logits (F.multilabel_soft_margin_loss).
Tensor multilabel_soft_margin_loss(const Tensor& input, const Tensor& target, const Tensor& weight = Tensor(),
                                   const Reduction& reduction = "mean");
/// Hinge loss between each target class (the int64 indices of `target` before its first -1) and
/// every other class, over the class count (F.multilabel_margin_loss).
Tensor multilabel_margin_loss(const Tensor& input, const Tensor& target, const Reduction& reduction = "mean");
/// max(0, margin - x[y] + x[i])^p summed over i != y, times weight[y], over the class count; p is 1
/// or 2 (F.multi_margin_loss).
Tensor multi_margin_loss(const Tensor& input, const Tensor& target, int64_t p = 1, double margin = 1.0,
                         const Tensor& weight = Tensor(), const Reduction& reduction = "mean");
/// x where target is 1, max(0, margin - x) where target is -1 (F.hinge_embedding_loss).
Tensor hinge_embedding_loss(const Tensor& input, const Tensor& target, double margin = 1.0,
                            const Reduction& reduction = "mean");
/// 1 - cos(x1, x2) where target is 1, max(0, cos(x1, x2) - margin) where it is -1 (F.cosine_embedding_loss).
Tensor cosine_embedding_loss(const Tensor& input1, const Tensor& input2, const Tensor& target, double margin = 0.0,
                             const Reduction& reduction = "mean");
/// max(0, -target * (input1 - input2) + margin) (F.margin_ranking_loss).
Tensor margin_ranking_loss(const Tensor& input1, const Tensor& input2, const Tensor& target, double margin = 0.0,
                           const Reduction& reduction = "mean");
/// target * (log(target) - input), or exp(target) * (target - input) with log_target; reduction also
/// "batchmean" (the sum over the batch size) (F.kl_div; "mean" warns as PyTorch does).
Tensor kl_div(const Tensor& input, const Tensor& target, const Reduction& reduction = "mean", bool log_target = false);
/// exp(input) - target * input (log_input), else input - target * log(input + eps); `full` adds
/// Stirling's approximation of log(target!) where target > 1 (F.poisson_nll_loss).
Tensor poisson_nll_loss(const Tensor& input, const Tensor& target, bool log_input = true, bool full = false,
                        double eps = 1e-8, const Reduction& reduction = "mean");
/// 0.5 (log(max(var, eps)) + (input - target)^2 / max(var, eps)) (+ 0.5 log(2 pi) when full); var
/// may lack the last dim or have size 1 there (F.gaussian_nll_loss).
Tensor gaussian_nll_loss(const Tensor& input, const Tensor& target, const Tensor& var, bool full = false,
                         double eps = 1e-6, const Reduction& reduction = "mean");
/// max(0, margin + d(a, p) - d(a, n)) with the p-norm pairwise distance; swap uses min(d(a, n),
/// d(p, n)) (F.triplet_margin_loss).
Tensor triplet_margin_loss(const Tensor& anchor, const Tensor& positive, const Tensor& negative, double margin = 1.0,
                           double p = 2.0, double eps = 1e-6, bool swap = false, const Reduction& reduction = "mean");
/// A distance between two batches of vectors (F.triplet_margin_with_distance_loss's distance_function).
using DistanceFunction = std::function<Tensor(const Tensor&, const Tensor&)>;
/// triplet_margin_loss with any distance (pairwise_distance when `distance_function` is empty)
/// (F.triplet_margin_with_distance_loss).
Tensor triplet_margin_with_distance_loss(const Tensor& anchor, const Tensor& positive, const Tensor& negative,
                                         const DistanceFunction& distance_function = nullptr, double margin = 1.0,
                                         bool swap = false, const Reduction& reduction = "mean");
/// Connectionist temporal classification loss of log_probs [T, N, C] (or [T, C]) against padded
/// [N, S] or concatenated int targets; "mean" divides each sample's loss by its target length
/// first (F.ctc_loss; the recursion runs over T with composed ops).
Tensor ctc_loss(const Tensor& log_probs, const Tensor& targets, const Tensor& input_lengths,
                const Tensor& target_lengths, int64_t blank = 0, const Reduction& reduction = "mean",
                bool zero_infinity = false);

}  // namespace ctorch::nn::functional
