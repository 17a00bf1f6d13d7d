// torch.nn.functional beyond nn_functional.h and nn_conv.h: padding, 1-d and 3-d convolution and
// pooling, adaptive and Lp pooling, unpooling, fold/unfold, normalization, distances, resampling,
// embedding bags and the alpha dropouts. Each is composed of differentiable ops (src/nn/functional_*.cpp),
// so gradients hold on every device. Sizes are one value per spatial dim or one value for all.
#pragma once

#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "ctorch/tensor.h"

namespace ctorch::nn::functional {

// ---- padding -----------------------------------------------------------------------------------
/// torch.nn.functional.pad: `pad` is (left, right) pairs from the last dim backwards; mode "constant"
/// (with `value`), "reflect", "replicate" or "circular"; negative constant padding crops.
Tensor pad(const Tensor& input, IntArrayRef pad, const std::string& mode = "constant", double value = 0.0);

// ---- convolution -------------------------------------------------------------------------------
/// torch.nn.functional.conv3d: input [N, C, D, H, W] (or [C, D, H, W]) with weight [OC, C / groups, KD, KH, KW].
Tensor conv3d(const Tensor& input, const Tensor& weight, const Tensor& bias = Tensor(), IntArrayRef stride = {1},
              IntArrayRef padding = {0}, IntArrayRef dilation = {1}, int64_t groups = 1);
/// torch.nn.functional.conv_transpose3d: input [N, C, D, H, W] with weight [C, OC / groups, KD, KH, KW].
Tensor conv_transpose3d(const Tensor& input, const Tensor& weight, const Tensor& bias = Tensor(),
                        IntArrayRef stride = {1}, IntArrayRef padding = {0}, IntArrayRef output_padding = {0},
                        int64_t groups = 1, IntArrayRef dilation = {1});
/// A convolution of any spatial rank (1, 2 or 3, from weight.dim() - 2) with padding "valid" or "same".
Tensor conv_padding_mode(const Tensor& input, const Tensor& weight, const Tensor& bias, IntArrayRef stride,
                         const std::string& padding, IntArrayRef dilation, int64_t groups);
/// A convolution of any spatial rank (1, 2 or 3, from weight.dim() - 2) with numeric padding.
Tensor convnd(const Tensor& input, const Tensor& weight, const Tensor& bias, IntArrayRef stride, IntArrayRef padding,
              IntArrayRef dilation, int64_t groups);
/// A transposed convolution of any spatial rank (1, 2 or 3).
Tensor conv_transposend(const Tensor& input, const Tensor& weight, const Tensor& bias, IntArrayRef stride,
                        IntArrayRef padding, IntArrayRef output_padding, int64_t groups, IntArrayRef dilation);

// ---- pooling -----------------------------------------------------------------------------------
/// torch.nn.functional.max_pool{1,2,3}d with return_indices: the maxima and their flat positions in
/// each input plane; `dims` spatial dims; stride {} means the kernel size.
std::tuple<Tensor, Tensor> max_poolnd_with_indices(int64_t dims, const Tensor& input, IntArrayRef kernel_size,
                                                   IntArrayRef stride = {}, IntArrayRef padding = {0},
                                                   IntArrayRef dilation = {1}, bool ceil_mode = false);
/// torch.nn.functional.avg_pool{1,2,3}d over `dims` spatial dims.
Tensor avg_poolnd(int64_t dims, const Tensor& input, IntArrayRef kernel_size, IntArrayRef stride = {},
                  IntArrayRef padding = {0}, bool ceil_mode = false, bool count_include_pad = true,
                  std::optional<int64_t> divisor_override = std::nullopt);
/// torch.nn.functional.max_pool1d.
Tensor max_pool1d(const Tensor& input, IntArrayRef kernel_size, IntArrayRef stride = {}, IntArrayRef padding = {0},
                  IntArrayRef dilation = {1}, bool ceil_mode = false);
/// torch.nn.functional.max_pool3d.
Tensor max_pool3d(const Tensor& input, IntArrayRef kernel_size, IntArrayRef stride = {}, IntArrayRef padding = {0},
                  IntArrayRef dilation = {1}, bool ceil_mode = false);
/// torch.nn.functional.avg_pool1d.
Tensor avg_pool1d(const Tensor& input, IntArrayRef kernel_size, IntArrayRef stride = {}, IntArrayRef padding = {0},
                  bool ceil_mode = false, bool count_include_pad = true);
/// torch.nn.functional.avg_pool3d.
Tensor avg_pool3d(const Tensor& input, IntArrayRef kernel_size, IntArrayRef stride = {}, IntArrayRef padding = {0},
                  bool ceil_mode = false, bool count_include_pad = true,
                  std::optional<int64_t> divisor_override = std::nullopt);
/// torch.nn.functional.adaptive_max_pool{1,2,3}d with return_indices; an output size of nullopt keeps
/// the input's size in that dim.
std::tuple<Tensor, Tensor> adaptive_max_poolnd_with_indices(int64_t dims, const Tensor& input,
                                                            const std::vector<std::optional<int64_t>>& output_size);
/// torch.nn.functional.adaptive_avg_pool{1,2,3}d; an output size of nullopt keeps the input's size.
Tensor adaptive_avg_poolnd(int64_t dims, const Tensor& input, const std::vector<std::optional<int64_t>>& output_size);
/// torch.nn.functional.fractional_max_pool{2,3}d with return_indices: windows of kernel_size at
/// pseudo-random steps (from `random_samples` [N, C, dims] in [0, 1), drawn when undefined) giving
/// output_size, or the input size times output_ratio.
std::tuple<Tensor, Tensor> fractional_max_poolnd_with_indices(
    int64_t dims, const Tensor& input, IntArrayRef kernel_size,
    const std::optional<std::vector<int64_t>>& output_size = std::nullopt,
    const std::optional<std::vector<double>>& output_ratio = std::nullopt, const Tensor& random_samples = Tensor());
/// torch.nn.functional.lp_pool{1,2}d: (sum over each window of x^p)^(1/p).
Tensor lp_poolnd(int64_t dims, const Tensor& input, double norm_type, IntArrayRef kernel_size, IntArrayRef stride = {},
                 bool ceil_mode = false);
/// torch.nn.functional.max_unpool{1,2,3}d: `input` written at the flat plane positions `indices`
/// into zeros of the default size (in - 1) * stride - 2 * padding + kernel, or `output_size`.
Tensor max_unpoolnd(int64_t dims, const Tensor& input, const Tensor& indices, IntArrayRef kernel_size,
                    IntArrayRef stride = {}, IntArrayRef padding = {0},
                    const std::optional<std::vector<int64_t>>& output_size = std::nullopt);

// ---- fold, unfold, pixel shuffle ---------------------------------------------------------------
/// torch.nn.functional.unfold: the sliding blocks of [N, C, H, W] as columns [N, C * KH * KW, L] (4-d only, as 1.13).
Tensor unfold(const Tensor& input, IntArrayRef kernel_size, IntArrayRef dilation = {1}, IntArrayRef padding = {0},
              IntArrayRef stride = {1});
/// torch.nn.functional.fold: columns [N, C * KH * KW, L] summed back into [N, C, output_size] (or unbatched [C * KH *
/// KW, L]).
Tensor fold(const Tensor& input, IntArrayRef output_size, IntArrayRef kernel_size, IntArrayRef dilation = {1},
            IntArrayRef padding = {0}, IntArrayRef stride = {1});
/// torch.nn.functional.pixel_shuffle: [*, C r^2, H, W] to [*, C, H r, W r].
Tensor pixel_shuffle(const Tensor& input, int64_t upscale_factor);
/// torch.nn.functional.pixel_unshuffle: [*, C, H r, W r] to [*, C r^2, H, W].
Tensor pixel_unshuffle(const Tensor& input, int64_t downscale_factor);

// ---- normalization -----------------------------------------------------------------------------
/// torch.nn.functional.instance_norm: each (sample, channel) normalized over its spatial dims, or with
/// the running statistics when !use_input_stats; running stats updated with `momentum` otherwise.
Tensor instance_norm(const Tensor& input, const Tensor& running_mean = Tensor(), const Tensor& running_var = Tensor(),
                     const Tensor& weight = Tensor(), const Tensor& bias = Tensor(), bool use_input_stats = true,
                     double momentum = 0.1, double eps = 1e-5);
/// torch.nn.functional.group_norm: channels split into num_groups, each normalized with its sample.
Tensor group_norm(const Tensor& input, int64_t num_groups, const Tensor& weight = Tensor(),
                  const Tensor& bias = Tensor(), double eps = 1e-5);
/// torch.nn.functional.local_response_norm over neighbouring channels.
Tensor local_response_norm(const Tensor& input, int64_t size, double alpha = 1e-4, double beta = 0.75, double k = 1.0);
/// torch.nn.functional.normalize: input / max(||input||_p over dim, eps).
Tensor normalize(const Tensor& input, double p = 2.0, int64_t dim = 1, double eps = 1e-12);

// ---- distances and bilinear --------------------------------------------------------------------
/// torch.nn.functional.pdist: the p-norm distances between the rows of [N, M], i < j, in row order.
Tensor pdist(const Tensor& input, double p = 2.0);
/// torch.nn.functional.bilinear: y_k = x1^T weight_k x2 + bias_k.
Tensor bilinear(const Tensor& input1, const Tensor& input2, const Tensor& weight, const Tensor& bias = Tensor());

// ---- embeddings --------------------------------------------------------------------------------
/// torch.nn.functional.one_hot: int64 [*, num_classes] (num_classes -1: max + 1).
Tensor one_hot(const Tensor& input, int64_t num_classes = -1);
/// torch.nn.functional.embedding_bag: sums, means or maxima of the bags of rows given by 2-d `input`
/// (one bag per row) or 1-d `input` with `offsets`; mode "sum", "mean" or "max".
Tensor embedding_bag(const Tensor& input, const Tensor& weight, const Tensor& offsets = Tensor(),
                     const std::string& mode = "mean", const Tensor& per_sample_weights = Tensor(),
                     bool include_last_offset = false, std::optional<int64_t> padding_idx = std::nullopt);
/// Renormalizes, in place and without gradient, the rows of weight at `input` whose max_norm-norm exceeds it.
Tensor& embedding_renorm_(Tensor& weight, const Tensor& input, double max_norm, double norm_type = 2.0);

// ---- resampling --------------------------------------------------------------------------------
/// torch.nn.functional.interpolate: mode "nearest", "nearest-exact", "linear", "bilinear", "bicubic",
/// "trilinear" or "area", to `size` or by `scale_factor` (one value or one per spatial dim); antialias
/// (bilinear and bicubic of 4-d inputs) filters as Pillow when downsampling.
Tensor interpolate(const Tensor& input, const std::optional<std::vector<int64_t>>& size = std::nullopt,
                   const std::optional<std::vector<double>>& scale_factor = std::nullopt,
                   const std::string& mode = "nearest", std::optional<bool> align_corners = std::nullopt,
                   std::optional<bool> recompute_scale_factor = std::nullopt, bool antialias = false);
/// torch.nn.functional.grid_sample of [N, C, H, W] at grid [N, OH, OW, 2] (x, y in [-1, 1]), or of
/// [N, C, D, H, W] at [N, OD, OH, OW, 3]; mode "bilinear" (trilinear for 5-d) or "nearest",
/// padding_mode "zeros", "border" or "reflection".
Tensor grid_sample(const Tensor& input, const Tensor& grid, const std::string& mode = "bilinear",
                   const std::string& padding_mode = "zeros", std::optional<bool> align_corners = std::nullopt);
/// torch.nn.functional.affine_grid: the sampling grid of theta [N, 2, 3] (size [N, C, H, W]) or
/// [N, 3, 4] (size [N, C, D, H, W]); align_corners nullopt is False (Python's default, passed
/// explicitly here: the libtorch spelling's overload takes the shorter call).
Tensor affine_grid(const Tensor& theta, IntArrayRef size, std::optional<bool> align_corners);

// ---- dropout -----------------------------------------------------------------------------------
/// torch.nn.functional.dropout3d: whole channels of [N, C, D, H, W] (or [C, D, H, W]).
Tensor dropout3d(const Tensor& input, double p = 0.5, bool training = true);
/// torch.nn.functional.alpha_dropout: dropout that keeps the mean and variance of SELU activations.
Tensor alpha_dropout(const Tensor& input, double p = 0.5, bool training = false);
/// torch.nn.functional.feature_alpha_dropout: alpha dropout of whole channels.
Tensor feature_alpha_dropout(const Tensor& input, double p = 0.5, bool training = false);

}  // namespace ctorch::nn::functional
