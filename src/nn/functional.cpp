// torch.nn.functional's layers and losses, composed from differentiable ops.
#include <sstream>

#include "ctorch/dropout.h"
#include "ctorch/factories.h"
#include "ctorch/grad_mode.h"
#include "ctorch/nn_functional.h"
#include "ctorch/normalization.h"
#include "ctorch/ops.h"
#include "ctorch/warning.h"

namespace ctorch::nn::functional {

namespace {

Tensor reduce(const Tensor& loss, const Reduction& reduction) {
  if (reduction == "none") return loss;
  if (reduction == "mean") return loss.mean();
  if (reduction == "sum") return loss.sum();
  CTORCH_CHECK_VALUE(false, reduction, " is not a valid value for reduction");
  return Tensor();
}

void check_reduction(const Reduction& reduction) {
  CTORCH_CHECK_VALUE(reduction == "none" || reduction == "mean" || reduction == "sum", reduction,
                     " is not a valid value for reduction");
}

void warn_size_mismatch(const Tensor& input, const Tensor& target) {
  if (input.sizes() == target.sizes()) return;
  std::ostringstream os;
  os << "Using a target size (torch.Size(" << target.sizes() << ")) that is different to the input size (torch.Size("
     << input.sizes() << ")). This will likely lead to incorrect results due to broadcasting. Please ensure they have "
     << "the same size.";
  warn(os.str());
}

// [N, C] one-hot mask of `target` (int64 [N]) and the mask of entries that are not ignored,
// after PyTorch's checks; class indices are validated on the host (a device sync, as PyTorch's
// cpu kernel checks them; its CUDA kernel asserts instead).
std::pair<Tensor, Tensor> class_masks(const Tensor& input, const Tensor& target, int64_t ignore_index) {
  CTORCH_CHECK(target.dtype() == kLong, "expected scalar type Long but found ", scalar_type_cpp_name(target.dtype()));
  CTORCH_CHECK(input.dim() == 2, "Expected 2 dimensions for the input (got ", input.dim(), ")");
  CTORCH_CHECK(target.dim() == 1, "1D target tensor expected, multi-target not supported");
  CTORCH_CHECK_VALUE(input.size(0) == target.size(0), "Expected input batch_size (", input.size(0),
                     ") to match target batch_size (", target.size(0), ").");
  CTORCH_CHECK(input.device() == target.device(), "Expected all tensors to be on the same device, but found at least "
               "two devices, ", input.device(), " and ", target.device(), "!");
  const int64_t classes = input.size(1);
  for (int64_t t : target.to_vector<int64_t>()) {
    CTORCH_CHECK_INDEX(t == ignore_index || (t >= 0 && t < classes), "Target ", t, " is out of bounds.");
  }
  const Tensor onehot = arange(classes, TensorOptions().dtype(kLong).device(input.device())).unsqueeze(0).eq(target.unsqueeze(1));
  return {onehot, target.ne(ignore_index)};
}

}  // namespace

Tensor linear(const Tensor& input, const Tensor& weight, const Tensor& bias) { return ctorch::linear(input, weight, bias); }

Tensor relu(const Tensor& input) { return input.relu(); }

Tensor gelu(const Tensor& input, const std::string& approximate) {
  if (approximate == "none") return input * 0.5 * (1 + (input * 0.7071067811865476).erf());  // x * Phi(x)
  CTORCH_CHECK(approximate == "tanh", "approximate argument must be either none or tanh.");
  const Tensor inner = (input + input * input * input * 0.044715) * 0.7978845608028654;  // sqrt(2 / pi)
  return input * 0.5 * (1 + inner.tanh());
}

Tensor dropout(const Tensor& input, double p, bool training) {
  CTORCH_CHECK_VALUE(p >= 0 && p <= 1, "dropout probability has to be between 0 and 1, but got ", p);
  if (!training || p == 0) return input;
  if (p == 1) return input * 0;
  // PyTorch's CPU dropout (bernoulli_ noise, then a multiply) and CUDA fused kernel as one op
  if (is_floating_point(input.dtype()) && input.numel() > 0) return std::get<0>(native_dropout(input, p, true));
  return input * empty_like(input).bernoulli_(1 - p).div_(1 - p);  // PyTorch's error for other dtypes
}

Tensor feature_dropout(const Tensor& input, double p, bool training) {
  CTORCH_CHECK_VALUE(p >= 0 && p <= 1, "dropout probability has to be between 0 and 1, but got ", p);
  CTORCH_CHECK(input.dim() >= 2, "Feature dropout requires at least 2 dimensions in the input");
  if (!training || p == 0) return input;
  if (p == 1) return input * 0;
  // PyTorch's _dropout_impl with feature_dropout: one Bernoulli draw per (sample, channel).
  DimVector noise_shape(static_cast<size_t>(input.dim()), 1);
  noise_shape[0] = input.size(0);
  noise_shape[1] = input.size(1);
  const Tensor noise = empty(noise_shape, input.options()).bernoulli_(1 - p).div_(1 - p);
  return input * noise;
}

Tensor dropout2d(const Tensor& input, double p, bool training) {
  CTORCH_CHECK(input.dim() == 3 || input.dim() == 4, "dropout2d: expected a 3-d or 4-d input, got ", input.dim(), "-d");
  if (input.dim() == 3) return feature_dropout(input.unsqueeze(0), p, training).squeeze(0);  // one unbatched sample
  return feature_dropout(input, p, training);
}

Tensor softmax(const Tensor& input, int64_t dim) { return input.softmax(dim); }

Tensor log_softmax(const Tensor& input, int64_t dim) { return input.log_softmax(dim); }

Tensor mse_loss(const Tensor& input, const Tensor& target, const Reduction& reduction) {
  check_reduction(reduction);
  warn_size_mismatch(input, target);
  const Tensor diff = input - target;
  return reduce(diff * diff, reduction);
}

Tensor l1_loss(const Tensor& input, const Tensor& target, const Reduction& reduction) {
  check_reduction(reduction);
  warn_size_mismatch(input, target);
  return reduce((input - target).abs(), reduction);
}

Tensor leaky_relu(const Tensor& input, double negative_slope) {
  return where(input > 0, input, input * negative_slope);
}

Tensor smooth_l1_loss(const Tensor& input, const Tensor& target, const Reduction& reduction, double beta) {
  check_reduction(reduction);
  CTORCH_CHECK(beta >= 0, "smooth_l1_loss does not support negative values for beta.");
  warn_size_mismatch(input, target);
  if (beta == 0) return l1_loss(input, target, reduction);  // PyTorch's special case
  const Tensor diff = input - target;
  const Tensor ad = diff.abs();
  return reduce(where(ad < beta, diff * diff * (0.5 / beta), ad - 0.5 * beta), reduction);
}

Tensor nll_loss(const Tensor& input, const Tensor& target, const Tensor& weight, int64_t ignore_index,
                const Reduction& reduction) {
  check_reduction(reduction);
  if (input.dim() == 1) {
    return nll_loss(input.unsqueeze(0), target.dim() == 0 ? target.unsqueeze(0) : target, weight, ignore_index,
                    reduction);
  }
  if (input.dim() > 2) {
    // [N, C, d1, ...] against [N, d1, ...]: the class dim moves last and the rest flattens.
    CTORCH_CHECK_VALUE(input.size(0) == target.size(0), "Expected input batch_size (", input.size(0),
                       ") to match target batch_size (", target.size(0), ").");
    DimVector out_size{input.size(0)}, perm{0};
    for (int64_t d = 2; d < input.dim(); ++d) {
      out_size.push_back(input.size(d));
      perm.push_back(d);
    }
    perm.push_back(1);
    CTORCH_CHECK(target.sizes() == IntArrayRef(out_size), "Expected target size ", IntArrayRef(out_size), ", got ",
                 target.sizes());
    const Tensor loss = nll_loss(input.permute(perm).reshape({-1, input.size(1)}), target.reshape({-1}), weight,
                                 ignore_index, reduction);
    return reduction == "none" ? loss.reshape(out_size) : loss;
  }
  auto [onehot, keep] = class_masks(input, target, ignore_index);
  if (weight.defined()) {
    CTORCH_CHECK(weight.dim() == 1 && weight.numel() == input.size(1), "weight tensor should be defined either for all ",
                 input.size(1), " classes or no classes but got weight tensor of shape: ", weight.sizes());
  }
  // -input[i, target[i]] * weight[target[i]], zero where ignored (where(): no -inf * 0 from other classes).
  const Tensor picked = where(onehot, input, 0).sum(IntArrayRef{1});
  Tensor w = keep.to(input.dtype());
  if (weight.defined()) w = w * where(onehot, weight.to(input.dtype()).unsqueeze(0), 0).sum(IntArrayRef{1});
  const Tensor loss = picked.neg() * w;
  if (reduction == "none") return loss;
  if (reduction == "sum") return loss.sum();
  return loss.sum() / w.sum();
}

Tensor cross_entropy(const Tensor& input, const Tensor& target, const Tensor& weight, int64_t ignore_index,
                     const Reduction& reduction, double label_smoothing) {
  CTORCH_CHECK(label_smoothing >= 0 && label_smoothing <= 1, "label_smoothing must be between 0.0 and 1.0. Got: ",
               label_smoothing);
  const int64_t class_dim = input.dim() == 1 ? 0 : 1;
  const Tensor logp = input.log_softmax(class_dim);
  if (input.sizes() == target.sizes()) {
    // Class probabilities as the target (PyTorch's rule: the same shape as the input).
    check_reduction(reduction);
    CTORCH_CHECK(target.is_floating_point(), "Expected floating point type for target with class probabilities, got ",
                 scalar_type_cpp_name(target.dtype()));
    CTORCH_CHECK(ignore_index < 0, "ignore_index is not supported for floating point target");
    const double classes = static_cast<double>(input.size(class_dim));
    const Tensor tg = label_smoothing > 0 ? target * (1 - label_smoothing) + label_smoothing / classes : target;
    Tensor weighted = logp * tg;
    if (weight.defined()) {
      DimVector shape(static_cast<size_t>(input.dim()), 1);
      shape[static_cast<size_t>(class_dim)] = weight.numel();
      weighted = weighted * weight.reshape(shape);
    }
    if (reduction == "none") return weighted.sum(IntArrayRef{class_dim}).neg();
    if (reduction == "sum") return weighted.sum().neg();
    return weighted.sum().neg() / (static_cast<double>(input.numel()) / classes);
  }
  const Tensor nll = nll_loss(logp, target, weight, ignore_index, reduction);
  if (label_smoothing == 0) return nll;
  const Tensor lp = input.dim() == 1 ? logp.unsqueeze(0) : logp;
  const Tensor tg = target.dim() == 0 ? target.unsqueeze(0) : target;
  const int64_t classes = lp.size(1);
  const Tensor keep = tg.ne(ignore_index).to(lp.dtype());
  Tensor smooth = weight.defined() ? (lp * weight.to(lp.dtype()).unsqueeze(0)).sum(IntArrayRef{1}).neg()
                                   : lp.sum(IntArrayRef{1}).neg();
  smooth = smooth * keep;
  Tensor ret;
  if (reduction == "none") {
    ret = smooth;
  } else if (reduction == "sum") {
    ret = smooth.sum();
  } else if (weight.defined()) {
    const Tensor onehot = arange(classes, TensorOptions().dtype(kLong).device(lp.device())).unsqueeze(0).eq(tg.unsqueeze(1));
    const Tensor wsum = (where(onehot, weight.to(lp.dtype()).unsqueeze(0), 0).sum(IntArrayRef{1}) * keep).sum();
    ret = smooth.sum() / wsum;
  } else {
    ret = smooth.sum() / keep.sum();
  }
  return nll * (1 - label_smoothing) + ret * (label_smoothing / static_cast<double>(classes));
}

Tensor binary_cross_entropy(const Tensor& input, const Tensor& target, const Tensor& weight,
                            const Reduction& reduction) {
  check_reduction(reduction);
  CTORCH_CHECK_VALUE(input.sizes() == target.sizes(), "Using a target size (torch.Size(", target.sizes(),
                     ")) that is different to the input size (torch.Size(", input.sizes(), ")) is deprecated. Please "
                     "ensure they have the same size.");
  // PyTorch clamps the logs at -100 so that a probability of 0 or 1 gives a finite loss.
  const Tensor log_p = input.log().clamp_min(-100);
  const Tensor log_q = (1 - input).log().clamp_min(-100);
  Tensor loss = (target * log_p + (1 - target) * log_q).neg();
  if (weight.defined()) loss = loss * weight;
  return reduce(loss, reduction);
}

Tensor binary_cross_entropy_with_logits(const Tensor& input, const Tensor& target, const Tensor& weight,
                                        const Reduction& reduction, const Tensor& pos_weight) {
  check_reduction(reduction);
  CTORCH_CHECK_VALUE(input.sizes() == target.sizes(), "Target size (torch.Size(", target.sizes(),
                     ")) must be the same as input size (torch.Size(", input.sizes(), "))");
  // max(-x, 0) + log(exp(-max) + exp(-x - max)): stable for large |x| (PyTorch's formula).
  const Tensor max_val = input.neg().clamp_min(0);
  const Tensor log_term = max_val + ((max_val.neg()).exp() + (input.neg() - max_val).exp()).log();
  Tensor loss;
  if (pos_weight.defined()) {
    const Tensor log_weight = (pos_weight - 1) * target + 1;
    loss = (1 - target) * input + log_weight * log_term;
  } else {
    loss = (1 - target) * input + log_term;
  }
  if (weight.defined()) loss = loss * weight;
  return reduce(loss, reduction);
}


Tensor batch_norm(const Tensor& input, const Tensor& running_mean, const Tensor& running_var, const Tensor& weight,
                  const Tensor& bias, bool training, double momentum, double eps) {
  return ctorch::batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps);
}

Tensor layer_norm(const Tensor& input, IntArrayRef normalized_shape, const Tensor& weight, const Tensor& bias,
                  double eps) {
  return ctorch::layer_norm(input, normalized_shape, weight, bias, eps);
}

Tensor embedding(const Tensor& input, const Tensor& weight, std::optional<int64_t> padding_idx) {
  CTORCH_CHECK(input.dtype() == kLong || input.dtype() == kInt,
               "Expected tensor for argument #1 'indices' to have one of the following scalar types: Long, Int; but "
               "got ", scalar_type_cpp_name(input.dtype()), " instead (while checking arguments for embedding)");
  Tensor rows = weight.index_select(0, input.reshape({-1}));
  if (padding_idx && weight.requires_grad() && GradMode::is_enabled()) {
    // The padding row gets no gradient: its rows are multiplied by a constant 0/1 mask.
    const Tensor keep = input.reshape({-1}).ne(*padding_idx).to(weight.dtype()).unsqueeze(1);
    rows = rows * keep + rows.detach() * (1 - keep);
  }
  DimVector shape(input.sizes());
  shape.push_back(weight.size(1));
  return rows.view(shape);
}

}  // namespace ctorch::nn::functional
