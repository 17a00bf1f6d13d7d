// ATen's free functions of the layer families that libtorch code calls as torch::layer_norm,
// torch::group_norm, torch::embedding, ... (at:: nominated by torch::), over the native
// torch.nn.functional forms.
#pragma once

#include <optional>
#include <tuple>

#include "ctorch/nn_functional.h"
#include "ctorch/nn_functional_layers.h"

namespace at {

/// at::layer_norm(input, normalized_shape, weight, bias, eps, cudnn_enable).
inline ::ctorch::Tensor layer_norm(const ::ctorch::Tensor& input, ::ctorch::IntArrayRef normalized_shape,
                                   const std::optional<::ctorch::Tensor>& weight = std::nullopt,
                                   const std::optional<::ctorch::Tensor>& bias = std::nullopt, double eps = 1e-05,
                                   bool /*cudnn_enable*/ = true) {
  return ::ctorch::nn::functional::layer_norm(input, normalized_shape, weight.value_or(::ctorch::Tensor()),
                                              bias.value_or(::ctorch::Tensor()), eps);
}
/// at::group_norm(input, num_groups, weight, bias, eps, cudnn_enabled).
inline ::ctorch::Tensor group_norm(const ::ctorch::Tensor& input, int64_t num_groups,
                                   const std::optional<::ctorch::Tensor>& weight = std::nullopt,
                                   const std::optional<::ctorch::Tensor>& bias = std::nullopt, double eps = 1e-05,
                                   bool /*cudnn_enabled*/ = true) {
  return ::ctorch::nn::functional::group_norm(input, num_groups, weight.value_or(::ctorch::Tensor()),
                                              bias.value_or(::ctorch::Tensor()), eps);
}
/// at::instance_norm(input, weight, bias, running_mean, running_var, use_input_stats, momentum, eps, cudnn_enabled).
inline ::ctorch::Tensor instance_norm(const ::ctorch::Tensor& input, const std::optional<::ctorch::Tensor>& weight,
                                      const std::optional<::ctorch::Tensor>& bias,
                                      const std::optional<::ctorch::Tensor>& running_mean,
                                      const std::optional<::ctorch::Tensor>& running_var, bool use_input_stats,
                                      double momentum, double eps, bool /*cudnn_enabled*/ = true) {
  const ::ctorch::Tensor none;
  return ::ctorch::nn::functional::instance_norm(input, running_mean.value_or(none), running_var.value_or(none),
                                                 weight.value_or(none), bias.value_or(none), use_input_stats, momentum,
                                                 eps);
}
/// at::embedding(weight, indices, padding_idx, scale_grad_by_freq, sparse): padding_idx -1 is none.
inline ::ctorch::Tensor embedding(const ::ctorch::Tensor& weight, const ::ctorch::Tensor& indices,
                                  int64_t padding_idx = -1, bool /*scale_grad_by_freq*/ = false,
                                  bool /*sparse*/ = false) {
  return ::ctorch::nn::functional::embedding(indices, weight,
                                             padding_idx < 0 ? std::nullopt : std::optional<int64_t>(padding_idx));
}
/// at::embedding_bag(weight, indices, offsets, scale_grad_by_freq, mode (0 sum, 1 mean, 2 max), sparse,
/// per_sample_weights, include_last_offset, padding_idx): the output first; the three bookkeeping
/// tensors of ATen's kernel are not computed (undefined).
inline std::tuple<::ctorch::Tensor, ::ctorch::Tensor, ::ctorch::Tensor, ::ctorch::Tensor> embedding_bag(
    const ::ctorch::Tensor& weight, const ::ctorch::Tensor& indices, const ::ctorch::Tensor& offsets,
    bool /*scale_grad_by_freq*/ = false, int64_t mode = 0, bool /*sparse*/ = false,
    const std::optional<::ctorch::Tensor>& per_sample_weights = std::nullopt, bool include_last_offset = false,
    std::optional<int64_t> padding_idx = std::nullopt) {
  const char* names[] = {"sum", "mean", "max"};
  CTORCH_CHECK(mode >= 0 && mode <= 2, "embedding_bag: unknown mode ", mode);
  return {::ctorch::nn::functional::embedding_bag(indices, weight, offsets, names[mode],
                                                  per_sample_weights.value_or(::ctorch::Tensor()), include_last_offset,
                                                  padding_idx),
          {},
          {},
          {}};
}
/// at::pairwise_distance(x1, x2, p, eps, keepdim).
inline ::ctorch::Tensor pairwise_distance(const ::ctorch::Tensor& x1, const ::ctorch::Tensor& x2, double p = 2,
                                          double eps = 1e-06, bool keepdim = false) {
  return ::ctorch::nn::functional::pairwise_distance(x1, x2, p, eps, keepdim);
}
/// at::cosine_similarity(x1, x2, dim, eps).
inline ::ctorch::Tensor cosine_similarity(const ::ctorch::Tensor& x1, const ::ctorch::Tensor& x2, int64_t dim = 1,
                                          double eps = 1e-08) {
  return ::ctorch::nn::functional::cosine_similarity(x1, x2, dim, eps);
}
/// at::pdist(input, p).
inline ::ctorch::Tensor pdist(const ::ctorch::Tensor& input, double p = 2) {
  return ::ctorch::nn::functional::pdist(input, p);
}
/// at::pixel_shuffle(input, upscale_factor).
inline ::ctorch::Tensor pixel_shuffle(const ::ctorch::Tensor& input, int64_t upscale_factor) {
  return ::ctorch::nn::functional::pixel_shuffle(input, upscale_factor);
}
/// at::pixel_unshuffle(input, downscale_factor).
inline ::ctorch::Tensor pixel_unshuffle(const ::ctorch::Tensor& input, int64_t downscale_factor) {
  return ::ctorch::nn::functional::pixel_unshuffle(input, downscale_factor);
}
/// at::one_hot(input, num_classes).
inline ::ctorch::Tensor one_hot(const ::ctorch::Tensor& input, int64_t num_classes = -1) {
  return ::ctorch::nn::functional::one_hot(input, num_classes);
}

}  // namespace at

namespace at::native {

namespace layers_detail {
/// interpolate with ATen's (output_size | scale_factors) pair.
inline ::ctorch::Tensor upsample(const ::ctorch::Tensor& input, ::ctorch::OptionalIntArrayRef output_size,
                                 std::optional<::ctorch::ArrayRef<double>> scale_factors, const char* mode,
                                 std::optional<bool> align_corners, bool antialias) {
  std::optional<std::vector<int64_t>> size;
  std::optional<std::vector<double>> scales;
  if (output_size) size = std::vector<int64_t>(output_size.value().begin(), output_size.value().end());
  if (scale_factors) scales = std::vector<double>(scale_factors->begin(), scale_factors->end());
  return ::ctorch::nn::functional::interpolate(input, size, scales, mode, align_corners, std::nullopt, antialias);
}
}  // namespace layers_detail

/// at::native::_upsample_nearest_exact2d(input, output_size, scale_factors).
inline ::ctorch::Tensor _upsample_nearest_exact2d(const ::ctorch::Tensor& input,
                                                  ::ctorch::OptionalIntArrayRef output_size,
                                                  std::optional<::ctorch::ArrayRef<double>> scale_factors) {
  return layers_detail::upsample(input, output_size, scale_factors, "nearest-exact", std::nullopt, false);
}
/// at::native::_upsample_bilinear2d_aa(input, output_size, align_corners, scale_factors).
inline ::ctorch::Tensor _upsample_bilinear2d_aa(const ::ctorch::Tensor& input,
                                                ::ctorch::OptionalIntArrayRef output_size, bool align_corners,
                                                std::optional<::ctorch::ArrayRef<double>> scale_factors) {
  return layers_detail::upsample(input, output_size, scale_factors, "bilinear", align_corners, true);
}
/// at::native::_upsample_bicubic2d_aa(input, output_size, align_corners, scale_factors).
inline ::ctorch::Tensor _upsample_bicubic2d_aa(const ::ctorch::Tensor& input, ::ctorch::OptionalIntArrayRef output_size,
                                               bool align_corners,
                                               std::optional<::ctorch::ArrayRef<double>> scale_factors) {
  return layers_detail::upsample(input, output_size, scale_factors, "bicubic", align_corners, true);
}

}  // namespace at::native
