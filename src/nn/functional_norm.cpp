// torch.nn.functional's instance/group/local-response normalization, normalize, distances,
// bilinear, one_hot, embedding_bag and the alpha dropouts, composed of differentiable ops.
#include <cmath>
#include <set>

#include "ctorch/factories.h"
#include "ctorch/grad_mode.h"
#include "ctorch/nn_functional.h"
#include "ctorch/nn_functional_layers.h"
#include "ctorch/ops.h"
#include "nn/functional_common.h"

namespace ctorch::nn::functional {

namespace {
// Shape [1, C, 1, ...] of a per-channel tensor for an input of `rank` dims.
Tensor per_channel(const Tensor& t, int64_t rank) {
  std::vector<int64_t> shape(static_cast<size_t>(rank), 1);
  shape[1] = t.numel();
  return t.view(shape);
}
}  // namespace

Tensor instance_norm(const Tensor& input, const Tensor& running_mean, const Tensor& running_var, const Tensor& weight,
                     const Tensor& bias, bool use_input_stats, double momentum, double eps) {
  CTORCH_CHECK(input.dim() >= 2, "instance_norm: expected an input of at least 2 dims, got ", input.sizes());
  CTORCH_CHECK(use_input_stats || (running_mean.defined() && running_var.defined()),
               "Expected running_mean and running_var to be defined when use_input_stats is false");
  const int64_t rank = input.dim();
  if (use_input_stats) {
    int64_t spatial = 1;
    for (int64_t d = 2; d < rank; ++d) spatial *= input.size(d);
    CTORCH_CHECK_VALUE(spatial > 1, "Expected more than 1 spatial element when training, got input size ",
                       input.sizes());
  }
  Tensor y;
  if (use_input_stats) {
    std::vector<int64_t> dims;
    for (int64_t d = 2; d < rank; ++d) dims.push_back(d);
    const Tensor mean = input.mean(dims, true);
    const Tensor var = input.var(dims, 0, true);
    y = (input - mean) * (var + eps).rsqrt();
    if (running_mean.defined() && running_var.defined()) {
      NoGradGuard no_grad;
      const Tensor batch_mean = mean.detach().flatten(1).mean({0});
      const Tensor batch_var = input.detach().var(dims, 1, false).mean({0});
      Tensor rm = running_mean, rv = running_var;
      rm.mul_(1.0 - momentum).add_(batch_mean.to(rm.scalar_type()), momentum);
      rv.mul_(1.0 - momentum).add_(batch_var.to(rv.scalar_type()), momentum);
    }
  } else {
    y = (input - per_channel(running_mean, rank)) * (per_channel(running_var, rank) + eps).rsqrt();
  }
  if (weight.defined()) y = y * per_channel(weight, rank);
  if (bias.defined()) y = y + per_channel(bias, rank);
  return y;
}

Tensor group_norm(const Tensor& input, int64_t num_groups, const Tensor& weight, const Tensor& bias, double eps) {
  CTORCH_CHECK(input.dim() >= 2, "Expected at least 2 dimensions for input tensor but received ", input.dim());
  const int64_t n = input.size(0), c = input.size(1);
  CTORCH_CHECK(num_groups > 0 && c % num_groups == 0,
               "Expected number of channels in input to be divisible by num_groups, but got input of shape ",
               input.sizes(), " and num_groups=", num_groups);
  const Tensor g = input.reshape({n, num_groups, -1});
  const Tensor y = ((g - g.mean({2}, true)) * (g.var({2}, 0, true) + eps).rsqrt()).reshape(input.sizes());
  Tensor out = y;
  if (weight.defined()) out = out * per_channel(weight, input.dim());
  if (bias.defined()) out = out + per_channel(bias, input.dim());
  return out;
}

Tensor local_response_norm(const Tensor& input, int64_t size, double alpha, double beta, double k) {
  CTORCH_CHECK_VALUE(input.dim() >= 3, "Expected 3D or higher dimensionality input (got ", input.dim(), " dimensions)");
  if (input.numel() == 0) return input;
  // The mean of x^2 over `size` neighbouring channels (zero padded: size / 2 before, (size - 1) / 2 after).
  const Tensor sq = input.mul(input);
  std::vector<int64_t> padding(static_cast<size_t>(2 * (input.dim() - 1)), 0);
  padding[padding.size() - 2] = size / 2;
  padding[padding.size() - 1] = (size - 1) / 2;
  const Tensor padded = pad(sq, padding).transpose(1, -1);
  // avg_pool of an integer input divides as integers (truncating), as PyTorch's.
  const Tensor sums = detail::windows(padded, {size}, {1}, {1}, {input.size(1)}).sum({-1});
  const Tensor win = input.is_floating_point() ? sums / static_cast<double>(size) : sums.div(size, "trunc");
  const Tensor div = win.transpose(1, -1).mul(alpha).add(k).pow(beta);
  return input / div;
}

Tensor normalize(const Tensor& input, double p, int64_t dim, double eps) {
  return input / input.norm(p, {dim}, true).clamp_min(eps).expand_as(input);
}

Tensor pdist(const Tensor& input, double p) {
  CTORCH_CHECK(input.dim() == 2, "pdist only supports 2D tensors, got: ", input.dim(), "D");
  CTORCH_CHECK(p >= 0, "pdist only supports non-negative p values");
  const int64_t n = input.size(0);
  std::vector<int64_t> first, second;
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = i + 1; j < n; ++j) {
      first.push_back(i);
      second.push_back(j);
    }
  if (first.empty()) return empty({0}, input.options());
  const TensorOptions idx = TensorOptions(kLong).device(input.device());
  return (input.index_select(0, tensor(first, idx)) - input.index_select(0, tensor(second, idx))).norm(p, {1});
}

Tensor bilinear(const Tensor& input1, const Tensor& input2, const Tensor& weight, const Tensor& bias) {
  CTORCH_CHECK(input1.dim() == input2.dim(), "bilinear(): input dimensions do not match: got ", input1.dim(), " and ",
               input2.dim());
  CTORCH_CHECK(weight.dim() == 3, "bilinear(): weight must be three-dimensional, but got ", weight.dim());
  CTORCH_CHECK(input1.size(-1) == weight.size(1), "bilinear(): input1 size does not match weight size: got ",
               input1.size(-1), " but expected ", weight.size(1));
  CTORCH_CHECK(input2.size(-1) == weight.size(2), "bilinear(): input2 size does not match weight size: got ",
               input2.size(-1), " but expected ", weight.size(2));
  // [*, 1, 1, I1] @ [O, I1, I2] -> [*, O, 1, I2], times x2 summed over I2.
  const Tensor left = input1.unsqueeze(-2).unsqueeze(-2).matmul(weight);
  Tensor y = (left * input2.unsqueeze(-2).unsqueeze(-2)).sum({-1}).squeeze(-1);
  if (bias.defined()) y = y + bias;
  return y;
}

Tensor one_hot(const Tensor& input, int64_t num_classes) {
  CTORCH_CHECK(input.scalar_type() == kLong, "one_hot is only applicable to index tensor.");
  if (num_classes == -1) {
    CTORCH_CHECK(input.numel() > 0, "Can not infer total number of classes from empty tensor.");
    num_classes = input.max().item<int64_t>() + 1;
  } else if (input.numel() > 0) {
    CTORCH_CHECK(input.max().item<int64_t>() < num_classes, "Class values must be smaller than num_classes.");
  }
  if (input.numel() > 0) CTORCH_CHECK(input.min().item<int64_t>() >= 0, "Class values must be non-negative.");
  return input.unsqueeze(-1).eq(arange(num_classes, TensorOptions(kLong).device(input.device()))).to(kLong);
}

Tensor& embedding_renorm_(Tensor& weight, const Tensor& input, double max_norm, double norm_type) {
  NoGradGuard no_grad;
  const auto ids = input.flatten().to(kLong).cpu().to_vector<int64_t>();
  for (int64_t r : std::set<int64_t>(ids.begin(), ids.end())) {
    Tensor row = weight.select(0, r);
    const double norm = row.norm(norm_type).item<double>();
    if (norm > max_norm) row.mul_(max_norm / (norm + 1e-7));
  }
  return weight;
}

Tensor embedding_bag(const Tensor& input, const Tensor& weight, const Tensor& offsets, const std::string& mode,
                     const Tensor& per_sample_weights, bool include_last_offset, std::optional<int64_t> padding_idx) {
  CTORCH_CHECK(mode == "sum" || mode == "mean" || mode == "max", "mode has to be one of sum, mean or max");
  CTORCH_CHECK(!per_sample_weights.defined() || mode == "sum",
               "embedding_bag: per_sample_weights was not None. per_sample_weights is only supported for mode='sum' ",
               "(got mode='", mode, "'). Please open a feature request on GitHub.");
  Tensor flat = input, starts;
  std::vector<int64_t> bounds;
  if (input.dim() == 2) {
    CTORCH_CHECK(!offsets.defined(),
                 "if input is 2D, then offsets has to be None, as input is treated is a mini-batch ",
                 "of fixed length sequences. However, found offsets of type Tensor");
    for (int64_t b = 0; b <= input.size(0); ++b) bounds.push_back(b * input.size(1));
    flat = input.reshape({-1});
  } else {
    CTORCH_CHECK(input.dim() == 1, "input has to be 1D or 2D Tensor, but got Tensor of dimension ", input.dim());
    CTORCH_CHECK(offsets.defined() && offsets.dim() == 1, "offsets has to be a 1D Tensor");
    bounds = offsets.to(kLong).cpu().to_vector<int64_t>();
    if (!include_last_offset) bounds.push_back(input.numel());
  }
  const std::vector<int64_t> ids = flat.to(kLong).cpu().to_vector<int64_t>();
  const Tensor rows = weight.index_select(0, flat.to(kLong));
  const Tensor scaled = per_sample_weights.defined() ? rows * per_sample_weights.reshape({-1, 1}) : rows;
  std::vector<Tensor> bags;
  const TensorOptions idx = TensorOptions(kLong).device(input.device());
  for (size_t b = 0; b + 1 < bounds.size(); ++b) {
    std::vector<int64_t> members;
    for (int64_t i = bounds[b]; i < std::min<int64_t>(bounds[b + 1], static_cast<int64_t>(ids.size())); ++i)
      if (!padding_idx || ids[static_cast<size_t>(i)] != *padding_idx) members.push_back(i);
    if (members.empty()) {
      bags.push_back(zeros({weight.size(1)}, weight.options()));
      continue;
    }
    const Tensor bag = scaled.index_select(0, tensor(members, idx));
    bags.push_back(mode == "sum" ? bag.sum({0}) : mode == "mean" ? bag.mean({0}) : std::get<0>(bag.max(0)));
  }
  if (bags.empty()) return zeros({0, weight.size(1)}, weight.options());
  return stack(bags, 0);
}

namespace {
// PyTorch's _dropout_impl for the alpha variants: noise per element, or per (sample, channel).
Tensor alpha_dropout_impl(const Tensor& input, double p, bool training, bool feature) {
  CTORCH_CHECK_VALUE(p >= 0 && p <= 1, "dropout probability has to be between 0 and 1, but got ", p);
  if (p == 0 || !training || input.numel() == 0) return input;
  if (p == 1) return input.mul(zeros({}, input.options()));
  std::vector<int64_t> noise_shape(input.sizes().begin(), input.sizes().end());
  if (feature) {
    CTORCH_CHECK(input.dim() >= 2, "Feature dropout requires at least 2 dimensions in the input");
    for (size_t d = 2; d < noise_shape.size(); ++d) noise_shape[d] = 1;
  }
  Tensor noise = empty(noise_shape, input.options());
  noise.bernoulli_(1 - p);
  constexpr double kAlpha = 1.7580993408473766;
  const double a = 1. / std::sqrt((kAlpha * kAlpha * p + 1) * (1 - p));
  const Tensor b = noise.add(-1).mul(kAlpha * a).add(kAlpha * a * p);
  return input * noise.mul(a) + b;
}
}  // namespace

Tensor alpha_dropout(const Tensor& input, double p, bool training) {
  return alpha_dropout_impl(input, p, training, false);
}

Tensor feature_alpha_dropout(const Tensor& input, double p, bool training) {
  return alpha_dropout_impl(input, p, training, true);
}

Tensor dropout3d(const Tensor& input, double p, bool training) {
  CTORCH_CHECK(input.dim() == 4 || input.dim() == 5, "dropout3d: expected a 4-d or 5-d input, got ", input.dim(), "-d");
  if (input.dim() == 4) return feature_dropout(input.unsqueeze(0), p, training).squeeze(0);
  return feature_dropout(input, p, training);
}

}  // namespace ctorch::nn::functional
