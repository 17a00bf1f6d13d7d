// Batch and layer normalization inside the op layer: the backwards the gradient table calls (Note [Batch
// normalization], Note [Layer normalization]).
#pragma once

#include <array>
#include <tuple>

#include "ctorch/tensor.h"

namespace ctorch::inline api::ops {

/// Gradients of batch_norm with respect to input, weight and bias, those `wanted`. `mean`/`var` are
/// the statistics the forward used ([C], variance biased); `use_batch_stats`: they were the batch's.
/// With grad mode on (create_graph) the batch's statistics are recomputed from `input` with
/// differentiable ops, so second derivatives see their dependence on it.
std::tuple<Tensor, Tensor, Tensor> batch_norm_backward(const Tensor& grad, const Tensor& input, const Tensor& weight,
                                                       const Tensor& mean, const Tensor& var, double eps,
                                                       bool use_batch_stats, std::array<bool, 3> wanted);

/// Gradients of layer_norm with respect to input, weight and bias, those `wanted`. `mean`/`var` are the
/// rows' statistics ([M], variance biased) over the last `normalized_ndim` dims; with grad mode on they
/// are recomputed from `input` with differentiable ops (Note [Layer normalization]).
std::tuple<Tensor, Tensor, Tensor> layer_norm_backward(const Tensor& grad, const Tensor& input, const Tensor& weight,
                                                       const Tensor& mean, const Tensor& var, double eps,
                                                       int64_t normalized_ndim, std::array<bool, 3> wanted);

}  // namespace ctorch::api::ops
