// libtorch 1.13's torch::nn::functional forms of the convolution, pooling, padding, normalization,
// distance, embedding, resampling and dropout layers: F::conv2d(x, w, F::Conv2dFuncOptions()...),
// F::pad(x, F::PadFuncOptions({1, 1}).mode(torch::kReflect)), ... Each forwards to the native
// function of the same name (nn_functional_layers.h). F:: is ctorch::nn::functional, where the native
// forms with positional defaults also live: an options overload has no default argument when a native
// overload of the same name already takes the shorter call.
#pragma once

#include <tuple>

#include "ctorch/conv.h"
#include "ctorch/libtorch/options_conv_pool.h"
#include "ctorch/libtorch/options_layers.h"
#include "ctorch/nn_conv.h"
#include "ctorch/nn_functional.h"
#include "ctorch/nn_functional_layers.h"

namespace ctorch::nn::functional {

namespace libtorch_detail {
/// The numeric padding of a conv padding variant, or its name ("valid" / "same").
template <size_t D>
std::variant<std::vector<int64_t>, std::string> conv_padding(const ::torch::nn::detail::conv_padding_t<D>& p) {
  if (const auto* sizes = std::get_if<ExpandingArray<D>>(&p))
    return std::vector<int64_t>((*sizes)->begin(), (*sizes)->end());
  return std::holds_alternative<::torch::enumtype::kValid>(p) ? std::string("valid") : std::string("same");
}
/// A convolution of D spatial dims with libtorch's options.
template <size_t D>
Tensor conv(const Tensor& input, const Tensor& weight, const ConvFuncOptions<D>& o) {
  auto padding = conv_padding<D>(o.padding());
  if (const auto* name = std::get_if<std::string>(&padding))
    return ::ctorch::nn::functional::conv_padding_mode(input, weight, o.bias(), *o.stride(), *name, *o.dilation(),
                                                       o.groups());
  return ::ctorch::nn::functional::convnd(input, weight, o.bias(), *o.stride(), std::get<std::vector<int64_t>>(padding),
                                          *o.dilation(), o.groups());
}
/// A transposed convolution of D spatial dims with libtorch's options.
template <size_t D>
Tensor conv_transpose(const Tensor& input, const Tensor& weight, const ConvTransposeFuncOptions<D>& o) {
  return ::ctorch::nn::functional::conv_transposend(input, weight, o.bias(), *o.stride(), *o.padding(),
                                                    *o.output_padding(), o.groups(), *o.dilation());
}
/// An ExpandingArray's values as a vector.
template <size_t D, class T>
std::vector<T> vec(const ExpandingArray<D, T>& a) {
  return std::vector<T>(a->begin(), a->end());
}
/// Output sizes of an adaptive pool (nullopt keeps the input's size).
template <size_t D>
std::vector<std::optional<int64_t>> adaptive(const ExpandingArray<D>& a) {
  return std::vector<std::optional<int64_t>>(a->begin(), a->end());
}
template <size_t D>
std::vector<std::optional<int64_t>> adaptive(const ::torch::ExpandingArrayWithOptionalElem<D>& a) {
  return a.vec();
}
}  // namespace libtorch_detail

// ---- convolution -----------------------------------------------------------------------------------
/// F::conv1d(input, weight, F::Conv1dFuncOptions()...).
inline Tensor conv1d(const Tensor& input, const Tensor& weight, const Conv1dFuncOptions& options = {}) {
  return libtorch_detail::conv<1>(input, weight, options);
}
/// F::conv2d(input, weight, F::Conv2dFuncOptions()...).
inline Tensor conv2d(const Tensor& input, const Tensor& weight, const Conv2dFuncOptions& options) {
  return libtorch_detail::conv<2>(input, weight, options);
}
/// F::conv3d(input, weight, F::Conv3dFuncOptions()...).
inline Tensor conv3d(const Tensor& input, const Tensor& weight, const Conv3dFuncOptions& options) {
  return libtorch_detail::conv<3>(input, weight, options);
}
/// F::conv_transpose1d(input, weight, F::ConvTranspose1dFuncOptions()...).
inline Tensor conv_transpose1d(const Tensor& input, const Tensor& weight,
                               const ConvTranspose1dFuncOptions& options = {}) {
  return libtorch_detail::conv_transpose<1>(input, weight, options);
}
/// F::conv_transpose2d(input, weight, F::ConvTranspose2dFuncOptions()...).
inline Tensor conv_transpose2d(const Tensor& input, const Tensor& weight, const ConvTranspose2dFuncOptions& options) {
  return libtorch_detail::conv_transpose<2>(input, weight, options);
}
/// F::conv_transpose3d(input, weight, F::ConvTranspose3dFuncOptions()...).
inline Tensor conv_transpose3d(const Tensor& input, const Tensor& weight, const ConvTranspose3dFuncOptions& options) {
  return libtorch_detail::conv_transpose<3>(input, weight, options);
}

// ---- pooling ---------------------------------------------------------------------------------------
/// F::max_pool{1,2,3}d_with_indices(input, options).
template <size_t D>
std::tuple<Tensor, Tensor> max_pool_with_indices(const Tensor& input, const ::torch::nn::MaxPoolOptions<D>& o) {
  return max_poolnd_with_indices(D, input, *o.kernel_size(), *o.stride(), *o.padding(), *o.dilation(), o.ceil_mode());
}
inline std::tuple<Tensor, Tensor> max_pool1d_with_indices(const Tensor& input, const MaxPool1dFuncOptions& o) {
  return max_pool_with_indices<1>(input, o);
}
inline std::tuple<Tensor, Tensor> max_pool2d_with_indices(const Tensor& input, const MaxPool2dFuncOptions& o) {
  return max_pool_with_indices<2>(input, o);
}
inline std::tuple<Tensor, Tensor> max_pool3d_with_indices(const Tensor& input, const MaxPool3dFuncOptions& o) {
  return max_pool_with_indices<3>(input, o);
}
/// F::max_pool{1,2,3}d(input, options).
inline Tensor max_pool1d(const Tensor& input, const MaxPool1dFuncOptions& o) {
  return std::get<0>(max_pool_with_indices<1>(input, o));
}
inline Tensor max_pool2d(const Tensor& input, const MaxPool2dFuncOptions& o) {
  return std::get<0>(max_pool_with_indices<2>(input, o));
}
inline Tensor max_pool3d(const Tensor& input, const MaxPool3dFuncOptions& o) {
  return std::get<0>(max_pool_with_indices<3>(input, o));
}
/// F::avg_pool{1,2,3}d(input, options).
template <size_t D>
Tensor avg_pool(const Tensor& input, const ::torch::nn::AvgPoolOptions<D>& o) {
  return avg_poolnd(D, input, *o.kernel_size(), *o.stride(), *o.padding(), o.ceil_mode(), o.count_include_pad(),
                    o.divisor_override());
}
inline Tensor avg_pool1d(const Tensor& input, const AvgPool1dFuncOptions& o) { return avg_pool<1>(input, o); }
inline Tensor avg_pool2d(const Tensor& input, const AvgPool2dFuncOptions& o) { return avg_pool<2>(input, o); }
inline Tensor avg_pool3d(const Tensor& input, const AvgPool3dFuncOptions& o) { return avg_pool<3>(input, o); }
/// F::adaptive_max_pool{1,2,3}d[_with_indices](input, options).
inline std::tuple<Tensor, Tensor> adaptive_max_pool1d_with_indices(const Tensor& input,
                                                                   const AdaptiveMaxPool1dFuncOptions& o) {
  return adaptive_max_poolnd_with_indices(1, input, libtorch_detail::adaptive(o.output_size()));
}
inline std::tuple<Tensor, Tensor> adaptive_max_pool2d_with_indices(const Tensor& input,
                                                                   const AdaptiveMaxPool2dFuncOptions& o) {
  return adaptive_max_poolnd_with_indices(2, input, libtorch_detail::adaptive(o.output_size()));
}
inline std::tuple<Tensor, Tensor> adaptive_max_pool3d_with_indices(const Tensor& input,
                                                                   const AdaptiveMaxPool3dFuncOptions& o) {
  return adaptive_max_poolnd_with_indices(3, input, libtorch_detail::adaptive(o.output_size()));
}
inline Tensor adaptive_max_pool1d(const Tensor& input, const AdaptiveMaxPool1dFuncOptions& o) {
  return std::get<0>(adaptive_max_pool1d_with_indices(input, o));
}
inline Tensor adaptive_max_pool2d(const Tensor& input, const AdaptiveMaxPool2dFuncOptions& o) {
  return std::get<0>(adaptive_max_pool2d_with_indices(input, o));
}
inline Tensor adaptive_max_pool3d(const Tensor& input, const AdaptiveMaxPool3dFuncOptions& o) {
  return std::get<0>(adaptive_max_pool3d_with_indices(input, o));
}
/// F::adaptive_avg_pool{1,2,3}d(input, options).
inline Tensor adaptive_avg_pool1d(const Tensor& input, const AdaptiveAvgPool1dFuncOptions& o) {
  return adaptive_avg_poolnd(1, input, libtorch_detail::adaptive(o.output_size()));
}
inline Tensor adaptive_avg_pool2d(const Tensor& input, const AdaptiveAvgPool2dFuncOptions& o) {
  return adaptive_avg_poolnd(2, input, libtorch_detail::adaptive(o.output_size()));
}
inline Tensor adaptive_avg_pool3d(const Tensor& input, const AdaptiveAvgPool3dFuncOptions& o) {
  return adaptive_avg_poolnd(3, input, libtorch_detail::adaptive(o.output_size()));
}
/// F::fractional_max_pool{2,3}d[_with_indices](input, options).
template <size_t D>
std::tuple<Tensor, Tensor> fractional_max_pool_with_indices(const Tensor& input,
                                                            const ::torch::nn::FractionalMaxPoolOptions<D>& o) {
  CTORCH_CHECK(o.output_size() || o.output_ratio(), "fractional_max_pool", D,
               "d requires specifying either an output_size or an output_ratio");
  std::optional<std::vector<int64_t>> size;
  std::optional<std::vector<double>> ratio;
  if (o.output_size()) size = libtorch_detail::vec(*o.output_size());
  if (o.output_ratio()) ratio = libtorch_detail::vec(*o.output_ratio());
  return fractional_max_poolnd_with_indices(D, input, *o.kernel_size(), size, ratio, o._random_samples());
}
inline std::tuple<Tensor, Tensor> fractional_max_pool2d_with_indices(const Tensor& input,
                                                                     const FractionalMaxPool2dFuncOptions& o) {
  return fractional_max_pool_with_indices<2>(input, o);
}
inline std::tuple<Tensor, Tensor> fractional_max_pool3d_with_indices(const Tensor& input,
                                                                     const FractionalMaxPool3dFuncOptions& o) {
  return fractional_max_pool_with_indices<3>(input, o);
}
inline Tensor fractional_max_pool2d(const Tensor& input, const FractionalMaxPool2dFuncOptions& o) {
  return std::get<0>(fractional_max_pool_with_indices<2>(input, o));
}
inline Tensor fractional_max_pool3d(const Tensor& input, const FractionalMaxPool3dFuncOptions& o) {
  return std::get<0>(fractional_max_pool_with_indices<3>(input, o));
}
/// F::lp_pool{1,2}d(input, options).
inline Tensor lp_pool1d(const Tensor& input, const LPPool1dFuncOptions& o) {
  return lp_poolnd(1, input, o.norm_type(), *o.kernel_size(), *o.stride(), o.ceil_mode());
}
inline Tensor lp_pool2d(const Tensor& input, const LPPool2dFuncOptions& o) {
  return lp_poolnd(2, input, o.norm_type(), *o.kernel_size(), *o.stride(), o.ceil_mode());
}
/// F::max_unpool{1,2,3}d(input, indices, options).
template <size_t D>
Tensor max_unpool(const Tensor& input, const Tensor& indices, const MaxUnpoolFuncOptions<D>& o) {
  return max_unpoolnd(D, input, indices, *o.kernel_size(), *o.stride(), *o.padding(), o.output_size());
}
inline Tensor max_unpool1d(const Tensor& input, const Tensor& indices, const MaxUnpool1dFuncOptions& o) {
  return max_unpool<1>(input, indices, o);
}
inline Tensor max_unpool2d(const Tensor& input, const Tensor& indices, const MaxUnpool2dFuncOptions& o) {
  return max_unpool<2>(input, indices, o);
}
inline Tensor max_unpool3d(const Tensor& input, const Tensor& indices, const MaxUnpool3dFuncOptions& o) {
  return max_unpool<3>(input, indices, o);
}

// ---- padding, fold, pixel shuffle ------------------------------------------------------------------
/// F::pad(input, F::PadFuncOptions(pad).mode(m).value(v)).
inline Tensor pad(const Tensor& input, const PadFuncOptions& o) {
  return ::ctorch::nn::functional::pad(input, o.pad(), ::torch::enumtype::enum_name_native(o.mode()), o.value());
}
/// F::fold(input, F::FoldFuncOptions(output_size, kernel_size)...).
inline Tensor fold(const Tensor& input, const FoldFuncOptions& o) {
  return ::ctorch::nn::functional::fold(input, *o.output_size(), *o.kernel_size(), *o.dilation(), *o.padding(),
                                        *o.stride());
}
/// F::unfold(input, F::UnfoldFuncOptions(kernel_size)...).
inline Tensor unfold(const Tensor& input, const UnfoldFuncOptions& o) {
  return ::ctorch::nn::functional::unfold(input, *o.kernel_size(), *o.dilation(), *o.padding(), *o.stride());
}
/// F::pixel_shuffle(input, options).
inline Tensor pixel_shuffle(const Tensor& input, const PixelShuffleFuncOptions& o) {
  return ::ctorch::nn::functional::pixel_shuffle(input, o.upscale_factor());
}
/// F::pixel_unshuffle(input, options).
inline Tensor pixel_unshuffle(const Tensor& input, const PixelUnshuffleFuncOptions& o) {
  return ::ctorch::nn::functional::pixel_unshuffle(input, o.downscale_factor());
}

// ---- normalization ---------------------------------------------------------------------------------
/// F::batch_norm(input, running_mean, running_var, F::BatchNormFuncOptions()...).
inline Tensor batch_norm(const Tensor& input, const Tensor& running_mean, const Tensor& running_var,
                         const BatchNormFuncOptions& o) {
  CTORCH_CHECK_NOT_IMPLEMENTED(o.momentum().has_value(), "batch_norm with momentum=None is not implemented");
  return ::ctorch::nn::functional::batch_norm(input, running_mean, running_var, o.weight(), o.bias(), o.training(),
                                              *o.momentum(), o.eps());
}
/// F::instance_norm(input, F::InstanceNormFuncOptions()...).
inline Tensor instance_norm(const Tensor& input, const InstanceNormFuncOptions& o) {
  return ::ctorch::nn::functional::instance_norm(input, o.running_mean(), o.running_var(), o.weight(), o.bias(),
                                                 o.use_input_stats(), o.momentum(), o.eps());
}
/// F::layer_norm(input, F::LayerNormFuncOptions(shape)...).
inline Tensor layer_norm(const Tensor& input, const LayerNormFuncOptions& o) {
  return ::ctorch::nn::functional::layer_norm(input, o.normalized_shape(), o.weight(), o.bias(), o.eps());
}
/// F::group_norm(input, F::GroupNormFuncOptions(groups)...).
inline Tensor group_norm(const Tensor& input, const GroupNormFuncOptions& o) {
  return ::ctorch::nn::functional::group_norm(input, o.num_groups(), o.weight(), o.bias(), o.eps());
}
/// F::local_response_norm(input, options).
inline Tensor local_response_norm(const Tensor& input, const LocalResponseNormFuncOptions& o) {
  return ::ctorch::nn::functional::local_response_norm(input, o.size(), o.alpha(), o.beta(), o.k());
}
/// F::normalize(input, F::NormalizeFuncOptions()...): into `out` when given.
inline Tensor normalize(const Tensor& input, NormalizeFuncOptions o) {
  Tensor y = ::ctorch::nn::functional::normalize(input, o.p(), o.dim(), o.eps());
  if (!o.out()) return y;
  Tensor out = *o.out();
  out.copy_(y);
  return out;
}

// ---- distances -------------------------------------------------------------------------------------
/// F::cosine_similarity(x1, x2, options).
inline Tensor cosine_similarity(const Tensor& x1, const Tensor& x2, const CosineSimilarityFuncOptions& o) {
  return ::ctorch::nn::functional::cosine_similarity(x1, x2, o.dim(), o.eps());
}
/// F::pairwise_distance(x1, x2, options).
inline Tensor pairwise_distance(const Tensor& x1, const Tensor& x2, const PairwiseDistanceFuncOptions& o) {
  return ::ctorch::nn::functional::pairwise_distance(x1, x2, o.p(), o.eps(), o.keepdim());
}

// ---- embeddings ------------------------------------------------------------------------------------
/// F::embedding(input, weight, options): rows renormalized to max_norm first when given.
inline Tensor embedding(const Tensor& input, const Tensor& weight, const EmbeddingFuncOptions& o) {
  std::optional<int64_t> padding_idx = o.padding_idx();
  if (padding_idx) {
    if (*padding_idx > 0) {
      CTORCH_CHECK(*padding_idx < weight.size(0), "Padding_idx must be within num_embeddings");
    } else if (*padding_idx < 0) {
      CTORCH_CHECK(*padding_idx >= -weight.size(0), "Padding_idx must be within num_embedding");
      padding_idx = *padding_idx + weight.size(0);
    }
  }
  if (o.max_norm()) {
    Tensor w = weight;
    ::ctorch::nn::functional::embedding_renorm_(w, input.contiguous(), *o.max_norm(), o.norm_type());
  }
  return ::ctorch::nn::functional::embedding(input, weight, padding_idx);
}
/// F::embedding_bag(input, weight, options).
inline Tensor embedding_bag(const Tensor& input, const Tensor& weight, const EmbeddingBagFuncOptions& o) {
  if (o.max_norm()) {
    Tensor w = weight;
    ::ctorch::nn::functional::embedding_renorm_(w, input, *o.max_norm(), o.norm_type());
  }
  return ::ctorch::nn::functional::embedding_bag(input, weight, o.offsets(),
                                                 ::torch::enumtype::enum_name_native(o.mode()), o.per_sample_weights(),
                                                 o.include_last_offset(), o.padding_idx());
}

// ---- resampling ------------------------------------------------------------------------------------
/// F::interpolate(input, F::InterpolateFuncOptions()...).
inline Tensor interpolate(const Tensor& input, const InterpolateFuncOptions& o) {
  CTORCH_CHECK_NOT_IMPLEMENTED(input.dim() >= 3 && input.dim() <= 5, "Input Error: Only 3D, 4D and 5D input Tensors ",
                               "supported (got ", input.dim(), "D) for the modes: nearest | linear | bilinear | ",
                               "bicubic | trilinear (got ", ::torch::enumtype::get_enum_name(o.mode()), ")");
  // libtorch 1.13 accepts (and ignores) align_corners for kNearestExact, where Python refuses it.
  const bool exact = std::holds_alternative<::torch::enumtype::kNearestExact>(o.mode());
  return ::ctorch::nn::functional::interpolate(
      input, o.size(), o.scale_factor(), ::torch::enumtype::enum_name_native(o.mode()),
      exact ? std::nullopt : o.align_corners(), o.recompute_scale_factor(), o.antialias());
}
/// F::affine_grid(theta, size, align_corners), with libtorch's dtype text ("... but got int").
inline Tensor affine_grid(const Tensor& theta, const IntArrayRef& size, bool align_corners = false) {
  CTORCH_CHECK(theta.is_floating_point(), "Expected theta to have floating point type, but got ",
               type_meta_name(theta.scalar_type()));
  return ::ctorch::nn::functional::affine_grid(theta, size, std::optional<bool>(align_corners));
}
/// F::grid_sample(input, grid, F::GridSampleFuncOptions()...).
inline Tensor grid_sample(const Tensor& input, const Tensor& grid, const GridSampleFuncOptions& o) {
  return ::ctorch::nn::functional::grid_sample(input, grid, ::torch::enumtype::enum_name_native(o.mode()),
                                               ::torch::enumtype::enum_name_native(o.padding_mode()),
                                               o.align_corners());
}

// ---- dropout ---------------------------------------------------------------------------------------
/// F::dropout(input, F::DropoutFuncOptions()...) (in place when inplace).
inline Tensor dropout(Tensor input, const DropoutFuncOptions& o) {
  Tensor y = ::ctorch::nn::functional::dropout(input, o.p(), o.training());
  return o.inplace() ? input.copy_(y) : y;
}
/// F::dropout2d(input, options).
inline Tensor dropout2d(Tensor input, const Dropout2dFuncOptions& o) {
  Tensor y = ::ctorch::nn::functional::dropout2d(input, o.p(), o.training());
  return o.inplace() ? input.copy_(y) : y;
}
/// F::dropout3d(input, options).
inline Tensor dropout3d(Tensor input, const Dropout3dFuncOptions& o) {
  Tensor y = ::ctorch::nn::functional::dropout3d(input, o.p(), o.training());
  return o.inplace() ? input.copy_(y) : y;
}
/// F::alpha_dropout(input, options).
inline Tensor alpha_dropout(Tensor input, const AlphaDropoutFuncOptions& o) {
  Tensor y = ::ctorch::nn::functional::alpha_dropout(input, o.p(), o.training());
  return o.inplace() ? input.copy_(y) : y;
}
/// libtorch's F::detail::alpha_dropout(input, p, training, inplace).
namespace detail {
inline Tensor alpha_dropout(Tensor input, double p, bool training, bool inplace) {
  Tensor y = ::ctorch::nn::functional::alpha_dropout(input, p, training);
  return inplace ? input.copy_(y) : y;
}
}  // namespace detail
/// F::feature_alpha_dropout(input, options).
inline Tensor feature_alpha_dropout(Tensor input, const FeatureAlphaDropoutFuncOptions& o) {
  Tensor y = ::ctorch::nn::functional::feature_alpha_dropout(input, o.p(), o.training());
  return o.inplace() ? input.copy_(y) : y;
}

}  // namespace ctorch::nn::functional
