// torch.nn.functional: the layers' and losses' computations as functions.
#pragma once

#include <optional>
#include <string>

#include "ctorch/tensor.h"

namespace ctorch::nn::functional {

/// input W^T + b.
Tensor linear(const Tensor& input, const Tensor& weight, const Tensor& bias = Tensor());
/// max(x, 0).
Tensor relu(const Tensor& input);
/// x * Phi(x) with the exact erf ("none") or the tanh approximation ("tanh").
Tensor gelu(const Tensor& input, const std::string& approximate = "none");
/// Dropout with probability p when `training` (the mask from the input device's generator).
Tensor dropout(const Tensor& input, double p = 0.5, bool training = true);
/// Zeroes whole channels (dim 1) with probability p, scaling the rest by 1 / (1 - p) (torch.feature_dropout).
Tensor feature_dropout(const Tensor& input, double p = 0.5, bool training = true);
/// feature_dropout of [N, C, H, W] (or one [C, H, W] sample) (torch.nn.functional.dropout2d).
Tensor dropout2d(const Tensor& input, double p = 0.5, bool training = true);
/// Batch normalization over dim 1 (torch.nn.functional.batch_norm): batch statistics when
/// `training` or without running stats, which it then updates in place with `momentum`.
Tensor batch_norm(const Tensor& input, const Tensor& running_mean, const Tensor& running_var,
                  const Tensor& weight = Tensor(), const Tensor& bias = Tensor(), bool training = false,
                  double momentum = 0.1, double eps = 1e-5);
/// Layer normalization over the trailing `normalized_shape` dims.
Tensor layer_norm(const Tensor& input, IntArrayRef normalized_shape, const Tensor& weight = Tensor(),
                  const Tensor& bias = Tensor(), double eps = 1e-5);
/// Rows of `weight` at the int64/int32 `input` indices; the padding_idx row gets no gradient.
Tensor embedding(const Tensor& input, const Tensor& weight, std::optional<int64_t> padding_idx = std::nullopt);
/// x where x > 0, else negative_slope * x (torch.nn.functional.leaky_relu).
Tensor leaky_relu(const Tensor& input, double negative_slope = 0.01);
/// softmax along dim.
Tensor softmax(const Tensor& input, int64_t dim);
/// log_softmax along dim.
Tensor log_softmax(const Tensor& input, int64_t dim);

/// How a loss reduces over elements: "mean", "sum" or "none".
using Reduction = std::string;

/// Mean squared error.
Tensor mse_loss(const Tensor& input, const Tensor& target, const Reduction& reduction = "mean");
/// Mean absolute error.
Tensor l1_loss(const Tensor& input, const Tensor& target, const Reduction& reduction = "mean");
/// Smooth L1 (Huber-like) loss: 0.5 d^2 / beta where |d| < beta, else |d| - 0.5 beta; beta 0 is l1_loss.
Tensor smooth_l1_loss(const Tensor& input, const Tensor& target, const Reduction& reduction = "mean", double beta = 1.0);
/// Negative log likelihood of class indices `target` (int64) under log-probabilities `input` [N, C].
Tensor nll_loss(const Tensor& input, const Tensor& target, const Tensor& weight = Tensor(),
                int64_t ignore_index = -100, const Reduction& reduction = "mean");
/// log_softmax then nll_loss, with optional label smoothing.
Tensor cross_entropy(const Tensor& input, const Tensor& target, const Tensor& weight = Tensor(),
                     int64_t ignore_index = -100, const Reduction& reduction = "mean", double label_smoothing = 0.0);
/// Binary cross entropy of probabilities.
Tensor binary_cross_entropy(const Tensor& input, const Tensor& target, const Tensor& weight = Tensor(),
                            const Reduction& reduction = "mean");
/// Binary cross entropy of logits (numerically stable).
Tensor binary_cross_entropy_with_logits(const Tensor& input, const Tensor& target, const Tensor& weight = Tensor(),
                                        const Reduction& reduction = "mean", const Tensor& pos_weight = Tensor());

}  // namespace ctorch::nn::functional
