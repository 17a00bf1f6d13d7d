// libtorch 1.13's options of the normalization, dropout, embedding, distance, resampling and shape
// layers (torch/nn/options/{batchnorm,instancenorm,normalization,dropout,embedding,distance,
// upsampling,vision,pixelshuffle,linear}.h) and their functional forms in F:: (ctorch::nn::functional).
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "ctorch/libtorch/arg.h"
#include "ctorch/libtorch/enum.h"
#include "ctorch/libtorch/expanding_array.h"

namespace torch::nn {

/// torch::nn::BatchNorm{1,2,3}dOptions(num_features).
struct BatchNormOptions {
  BatchNormOptions(int64_t num_features) : num_features_(num_features) {}  // NOLINT
  TORCH_ARG(int64_t, num_features);
  TORCH_ARG(double, eps) = 1e-5;
  TORCH_ARG(std::optional<double>, momentum) = 0.1;
  TORCH_ARG(bool, affine) = true;
  TORCH_ARG(bool, track_running_stats) = true;
};
using BatchNorm1dOptions = BatchNormOptions;
using BatchNorm2dOptions = BatchNormOptions;
using BatchNorm3dOptions = BatchNormOptions;

/// torch::nn::InstanceNorm{1,2,3}dOptions(num_features).
struct InstanceNormOptions {
  InstanceNormOptions(int64_t num_features) : num_features_(num_features) {}  // NOLINT
  TORCH_ARG(int64_t, num_features);
  TORCH_ARG(double, eps) = 1e-5;
  TORCH_ARG(double, momentum) = 0.1;
  TORCH_ARG(bool, affine) = false;
  TORCH_ARG(bool, track_running_stats) = false;
};
using InstanceNorm1dOptions = InstanceNormOptions;
using InstanceNorm2dOptions = InstanceNormOptions;
using InstanceNorm3dOptions = InstanceNormOptions;

/// torch::nn::LayerNormOptions(normalized_shape).
struct LayerNormOptions {
  LayerNormOptions(std::vector<int64_t> normalized_shape) : normalized_shape_(std::move(normalized_shape)) {}  // NOLINT
  TORCH_ARG(std::vector<int64_t>, normalized_shape);
  TORCH_ARG(double, eps) = 1e-5;
  TORCH_ARG(bool, elementwise_affine) = true;
};

/// torch::nn::LocalResponseNormOptions(size).
struct LocalResponseNormOptions {
  LocalResponseNormOptions(int64_t size) : size_(size) {}  // NOLINT
  TORCH_ARG(int64_t, size);
  TORCH_ARG(double, alpha) = 1e-4;
  TORCH_ARG(double, beta) = 0.75;
  TORCH_ARG(double, k) = 1.;
};

/// torch::nn::CrossMapLRN2dOptions(size).
struct CrossMapLRN2dOptions {
  CrossMapLRN2dOptions(int64_t size) : size_(size) {}  // NOLINT
  TORCH_ARG(int64_t, size);
  TORCH_ARG(double, alpha) = 1e-4;
  TORCH_ARG(double, beta) = 0.75;
  TORCH_ARG(int64_t, k) = 1;
};

/// torch::nn::GroupNormOptions(num_groups, num_channels).
struct GroupNormOptions {
  GroupNormOptions(int64_t num_groups, int64_t num_channels) : num_groups_(num_groups), num_channels_(num_channels) {}
  TORCH_ARG(int64_t, num_groups);
  TORCH_ARG(int64_t, num_channels);
  TORCH_ARG(double, eps) = 1e-5;
  TORCH_ARG(bool, affine) = true;
};

/// torch::nn::DropoutOptions(p) (also Dropout2d/3d, AlphaDropout, FeatureAlphaDropout).
struct DropoutOptions {
  DropoutOptions(double p = 0.5) : p_(p) {}  // NOLINT
  TORCH_ARG(double, p) = 0.5;
  TORCH_ARG(bool, inplace) = false;
};
using Dropout2dOptions = DropoutOptions;
using Dropout3dOptions = DropoutOptions;
using AlphaDropoutOptions = DropoutOptions;
using FeatureAlphaDropoutOptions = DropoutOptions;
using FeatureDropoutOptions = DropoutOptions;

/// torch::nn::EmbeddingOptions(num_embeddings, embedding_dim).
struct EmbeddingOptions {
  EmbeddingOptions(int64_t num_embeddings, int64_t embedding_dim)
      : num_embeddings_(num_embeddings), embedding_dim_(embedding_dim) {}
  TORCH_ARG(int64_t, num_embeddings);
  TORCH_ARG(int64_t, embedding_dim);
  TORCH_ARG(std::optional<int64_t>, padding_idx) = std::nullopt;
  TORCH_ARG(std::optional<double>, max_norm) = std::nullopt;
  TORCH_ARG(double, norm_type) = 2.;
  TORCH_ARG(bool, scale_grad_by_freq) = false;
  TORCH_ARG(bool, sparse) = false;
  TORCH_ARG(Tensor, _weight) = Tensor();
};

/// torch::nn::EmbeddingFromPretrainedOptions().
struct EmbeddingFromPretrainedOptions {
  TORCH_ARG(bool, freeze) = true;
  TORCH_ARG(std::optional<int64_t>, padding_idx) = std::nullopt;
  TORCH_ARG(std::optional<double>, max_norm) = std::nullopt;
  TORCH_ARG(double, norm_type) = 2.;
  TORCH_ARG(bool, scale_grad_by_freq) = false;
  TORCH_ARG(bool, sparse) = false;
};

/// An embedding bag's reduction: kSum, kMean or kMax.
using EmbeddingBagMode = std::variant<enumtype::kSum, enumtype::kMean, enumtype::kMax>;

/// torch::nn::EmbeddingBagOptions(num_embeddings, embedding_dim).
struct EmbeddingBagOptions {
  EmbeddingBagOptions(int64_t num_embeddings, int64_t embedding_dim)
      : num_embeddings_(num_embeddings), embedding_dim_(embedding_dim) {}
  TORCH_ARG(int64_t, num_embeddings);
  TORCH_ARG(int64_t, embedding_dim);
  TORCH_ARG(std::optional<double>, max_norm) = std::nullopt;
  TORCH_ARG(double, norm_type) = 2.;
  TORCH_ARG(bool, scale_grad_by_freq) = false;
  TORCH_ARG(EmbeddingBagMode, mode) = torch::kMean;
  TORCH_ARG(bool, sparse) = false;
  TORCH_ARG(Tensor, _weight) = Tensor();
  TORCH_ARG(bool, include_last_offset) = false;
  TORCH_ARG(std::optional<int64_t>, padding_idx) = std::nullopt;
};

/// torch::nn::EmbeddingBagFromPretrainedOptions().
struct EmbeddingBagFromPretrainedOptions {
  TORCH_ARG(bool, freeze) = true;
  TORCH_ARG(std::optional<double>, max_norm) = std::nullopt;
  TORCH_ARG(double, norm_type) = 2.;
  TORCH_ARG(bool, scale_grad_by_freq) = false;
  TORCH_ARG(EmbeddingBagMode, mode) = torch::kMean;
  TORCH_ARG(bool, sparse) = false;
  TORCH_ARG(bool, include_last_offset) = false;
  TORCH_ARG(std::optional<int64_t>, padding_idx) = std::nullopt;
};

/// torch::nn::CosineSimilarityOptions().dim(d).eps(e).
struct CosineSimilarityOptions {
  TORCH_ARG(int64_t, dim) = 1;
  TORCH_ARG(double, eps) = 1e-8;
};

/// torch::nn::PairwiseDistanceOptions().p(p).eps(e).keepdim(k).
struct PairwiseDistanceOptions {
  TORCH_ARG(double, p) = 2.0;
  TORCH_ARG(double, eps) = 1e-6;
  TORCH_ARG(bool, keepdim) = false;
};

/// torch::nn::UpsampleOptions().size(s).scale_factor(f).mode(m).align_corners(a).
struct UpsampleOptions {
  using mode_t = std::variant<enumtype::kNearest, enumtype::kLinear, enumtype::kBilinear, enumtype::kBicubic,
                              enumtype::kTrilinear>;
  TORCH_ARG(std::optional<std::vector<int64_t>>, size) = std::nullopt;
  TORCH_ARG(std::optional<std::vector<double>>, scale_factor) = std::nullopt;
  TORCH_ARG(mode_t, mode) = torch::kNearest;
  TORCH_ARG(std::optional<bool>, align_corners) = std::nullopt;
};

/// torch::nn::PixelShuffleOptions(upscale_factor).
struct PixelShuffleOptions {
  PixelShuffleOptions(int64_t upscale_factor) : upscale_factor_(upscale_factor) {}  // NOLINT
  TORCH_ARG(int64_t, upscale_factor);
};

/// torch::nn::PixelUnshuffleOptions(downscale_factor).
struct PixelUnshuffleOptions {
  PixelUnshuffleOptions(int64_t downscale_factor) : downscale_factor_(downscale_factor) {}  // NOLINT
  TORCH_ARG(int64_t, downscale_factor);
};

/// torch::nn::FlattenOptions().start_dim(s).end_dim(e).
struct FlattenOptions {
  TORCH_ARG(int64_t, start_dim) = 1;
  TORCH_ARG(int64_t, end_dim) = -1;
};

/// torch::nn::UnflattenOptions(dim, sizes), or (dimname, namedshape) for named tensors (which ctorch
/// lacks: the layer prints, its forward raises NotImplementedError).
struct UnflattenOptions {
  using namedshape_t = std::vector<std::pair<std::string, int64_t>>;
  UnflattenOptions(int64_t dim, std::vector<int64_t> sizes) : dim_(dim), sizes_(std::move(sizes)) {}
  UnflattenOptions(const char* dimname, namedshape_t namedshape)
      : dim_(0), dimname_(dimname), namedshape_(std::move(namedshape)) {}
  UnflattenOptions(std::string dimname, namedshape_t namedshape)
      : dim_(0), dimname_(std::move(dimname)), namedshape_(std::move(namedshape)) {}
  TORCH_ARG(int64_t, dim);
  TORCH_ARG(std::string, dimname);
  TORCH_ARG(std::vector<int64_t>, sizes);
  TORCH_ARG(namedshape_t, namedshape);
};

/// torch::nn::BilinearOptions(in1_features, in2_features, out_features).
struct BilinearOptions {
  BilinearOptions(int64_t in1_features, int64_t in2_features, int64_t out_features)
      : in1_features_(in1_features), in2_features_(in2_features), out_features_(out_features) {}
  TORCH_ARG(int64_t, in1_features);
  TORCH_ARG(int64_t, in2_features);
  TORCH_ARG(int64_t, out_features);
  TORCH_ARG(bool, bias) = true;
};

}  // namespace torch::nn

namespace ctorch::nn::functional {

/// F::BatchNormFuncOptions().weight(w).bias(b).training(t).momentum(m).eps(e).
struct BatchNormFuncOptions {
  TORCH_ARG(Tensor, weight) = Tensor();
  TORCH_ARG(Tensor, bias) = Tensor();
  TORCH_ARG(bool, training) = false;
  TORCH_ARG(std::optional<double>, momentum) = 0.1;
  TORCH_ARG(double, eps) = 1e-5;
};

/// F::InstanceNormFuncOptions().
struct InstanceNormFuncOptions {
  TORCH_ARG(Tensor, running_mean) = Tensor();
  TORCH_ARG(Tensor, running_var) = Tensor();
  TORCH_ARG(Tensor, weight) = Tensor();
  TORCH_ARG(Tensor, bias) = Tensor();
  TORCH_ARG(bool, use_input_stats) = true;
  TORCH_ARG(double, momentum) = 0.1;
  TORCH_ARG(double, eps) = 1e-5;
};

/// F::LayerNormFuncOptions(normalized_shape).
struct LayerNormFuncOptions {
  LayerNormFuncOptions(std::vector<int64_t> normalized_shape)
      : normalized_shape_(std::move(normalized_shape)) {}  // NOLINT
  TORCH_ARG(std::vector<int64_t>, normalized_shape);
  TORCH_ARG(Tensor, weight) = {};
  TORCH_ARG(Tensor, bias) = {};
  TORCH_ARG(double, eps) = 1e-5;
};

/// F::GroupNormFuncOptions(num_groups).
struct GroupNormFuncOptions {
  GroupNormFuncOptions(int64_t num_groups) : num_groups_(num_groups) {}  // NOLINT
  TORCH_ARG(int64_t, num_groups);
  TORCH_ARG(Tensor, weight) = {};
  TORCH_ARG(Tensor, bias) = {};
  TORCH_ARG(double, eps) = 1e-5;
};

using LocalResponseNormFuncOptions = ::torch::nn::LocalResponseNormOptions;

/// F::NormalizeFuncOptions().p(p).dim(d).eps(e).out(t).
struct NormalizeFuncOptions {
  TORCH_ARG(double, p) = 2.0;
  TORCH_ARG(int64_t, dim) = 1;
  TORCH_ARG(double, eps) = 1e-12;
  TORCH_ARG(std::optional<Tensor>, out) = std::nullopt;
};

/// F::DropoutFuncOptions().p(p).training(t).inplace(i) (also Dropout2d/3dFuncOptions).
struct DropoutFuncOptions {
  TORCH_ARG(double, p) = 0.5;
  TORCH_ARG(bool, training) = true;
  TORCH_ARG(bool, inplace) = false;
};
using Dropout2dFuncOptions = DropoutFuncOptions;
using Dropout3dFuncOptions = DropoutFuncOptions;

/// F::AlphaDropoutFuncOptions() (training defaults to false).
struct AlphaDropoutFuncOptions {
  TORCH_ARG(double, p) = 0.5;
  TORCH_ARG(bool, training) = false;
  TORCH_ARG(bool, inplace) = false;
};

/// F::FeatureAlphaDropoutFuncOptions() (training defaults to false).
struct FeatureAlphaDropoutFuncOptions {
  TORCH_ARG(double, p) = 0.5;
  TORCH_ARG(bool, training) = false;
  TORCH_ARG(bool, inplace) = false;
};

/// F::EmbeddingFuncOptions().
struct EmbeddingFuncOptions {
  TORCH_ARG(std::optional<int64_t>, padding_idx) = std::nullopt;
  TORCH_ARG(std::optional<double>, max_norm) = std::nullopt;
  TORCH_ARG(double, norm_type) = 2.;
  TORCH_ARG(bool, scale_grad_by_freq) = false;
  TORCH_ARG(bool, sparse) = false;
};

/// F::EmbeddingBagFuncOptions().
struct EmbeddingBagFuncOptions {
  TORCH_ARG(Tensor, offsets) = Tensor();
  TORCH_ARG(std::optional<double>, max_norm) = std::nullopt;
  TORCH_ARG(double, norm_type) = 2.;
  TORCH_ARG(bool, scale_grad_by_freq) = false;
  TORCH_ARG(::torch::nn::EmbeddingBagMode, mode) = ::torch::kMean;
  TORCH_ARG(bool, sparse) = false;
  TORCH_ARG(Tensor, per_sample_weights) = Tensor();
  TORCH_ARG(bool, include_last_offset) = false;
  TORCH_ARG(std::optional<int64_t>, padding_idx) = std::nullopt;
};

using CosineSimilarityFuncOptions = ::torch::nn::CosineSimilarityOptions;
using PairwiseDistanceFuncOptions = ::torch::nn::PairwiseDistanceOptions;
using PixelShuffleFuncOptions = ::torch::nn::PixelShuffleOptions;
using PixelUnshuffleFuncOptions = ::torch::nn::PixelUnshuffleOptions;

/// F::InterpolateFuncOptions().size(s).scale_factor(f).mode(m).align_corners(a).
struct InterpolateFuncOptions {
  using mode_t = std::variant<::torch::enumtype::kNearest, ::torch::enumtype::kLinear, ::torch::enumtype::kBilinear,
                              ::torch::enumtype::kBicubic, ::torch::enumtype::kTrilinear, ::torch::enumtype::kArea,
                              ::torch::enumtype::kNearestExact>;
  TORCH_ARG(std::optional<std::vector<int64_t>>, size) = std::nullopt;
  TORCH_ARG(std::optional<std::vector<double>>, scale_factor) = std::nullopt;
  TORCH_ARG(mode_t, mode) = ::torch::kNearest;
  TORCH_ARG(std::optional<bool>, align_corners) = std::nullopt;
  TORCH_ARG(std::optional<bool>, recompute_scale_factor) = std::nullopt;
  TORCH_ARG(bool, antialias) = false;
};

/// F::GridSampleFuncOptions().mode(m).padding_mode(p).align_corners(a).
struct GridSampleFuncOptions {
  using mode_t = std::variant<::torch::enumtype::kBilinear, ::torch::enumtype::kNearest>;
  using padding_mode_t =
      std::variant<::torch::enumtype::kZeros, ::torch::enumtype::kBorder, ::torch::enumtype::kReflection>;
  TORCH_ARG(mode_t, mode) = ::torch::kBilinear;
  TORCH_ARG(padding_mode_t, padding_mode) = ::torch::kZeros;
  TORCH_ARG(std::optional<bool>, align_corners) = std::nullopt;
};

}  // namespace ctorch::nn::functional
