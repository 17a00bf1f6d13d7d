// torch.nn.functional's losses beyond nn_functional.h's, and torch.pairwise_distance /
// torch.cosine_similarity, composed of differentiable ops (PyTorch's formulas and checks).
#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>
#include <vector>

#include "ctorch/factories.h"
#include "ctorch/grad_mode.h"
#include "ctorch/nn_functional_activation.h"
#include "ctorch/nn_functional_loss.h"
#include "ctorch/ops.h"
#include "ctorch/warning.h"
#include "nn/activation_math.h"

namespace ctorch::inline api {

Tensor pairwise_distance(const Tensor& x1, const Tensor& x2, double p, double eps, bool keepdim) {
  // Either input may be broadcast: the norm runs over the last dim of the larger one.
  const int64_t output_dim = std::max(x1.dim(), x2.dim());
  return (x1 - x2 + eps).norm(p, {output_dim - 1}, keepdim);
}

Tensor cosine_similarity(const Tensor& x1_in, const Tensor& x2_in, int64_t dim, double eps) {
  const ScalarType common = result_type(x1_in, x2_in);
  CTORCH_CHECK(is_floating_point(common), "expected common dtype to be floating point, yet common dtype is ",
               scalar_type_cpp_name(common));
  const Tensor x1 = x1_in.to(common);
  const Tensor x2 = x2_in.to(common);
  // PyTorch's form: each input over max(||x||, eps), the clamp outside the graph (its gradient
  // passes through unchanged), so |cos| <= 1 and nothing large is multiplied first.
  auto clamped_norm = [&](const Tensor& x) {
    const Tensor squared = (x * x).sum(IntArrayRef{dim}, /*keepdim=*/true);
    return (squared + (squared.detach().clamp_min(eps * eps) - squared.detach())).sqrt();
  };
  return ((x1 / clamped_norm(x1)) * (x2 / clamped_norm(x2))).sum(IntArrayRef{dim});
}

}  // namespace ctorch::inline api

namespace ctorch::nn::functional {

namespace {

void check_reduction(const Reduction& reduction) {
  CTORCH_CHECK_VALUE(reduction == "none" || reduction == "mean" || reduction == "sum", reduction,
                     " is not a valid value for reduction");
}

Tensor apply_reduction(const Tensor& loss, const Reduction& reduction) {
  check_reduction(reduction);
  if (reduction == "mean") return loss.mean();
  if (reduction == "sum") return loss.sum();
  return loss;
}

void warn_size_mismatch(const Tensor& input, const Tensor& target) {
  if (input.sizes() == target.sizes()) return;
  warn(::ctorch::detail::str_cat("Using a target size (torch.Size(", target.sizes(), ")) that is different to the input size ",
                       "(torch.Size(", input.sizes(), ")). This will likely lead to incorrect results due to ",
                       "broadcasting. Please ensure they have the same size."));
}

/// The host copy of an int64 target (the multi-class margin losses read their indices there, as
/// PyTorch's cpu kernels do).
std::vector<int64_t> host_indices(const Tensor& target) {
  CTORCH_CHECK(target.dtype() == kLong, "expected scalar type Long but found ", scalar_type_cpp_name(target.dtype()));
  return target.to(kCPU).contiguous().to_vector<int64_t>();
}

/// `values` (n x c, row-major) as a tensor with `like`'s dtype and device.
Tensor host_matrix(const std::vector<double>& values, int64_t n, int64_t c, const Tensor& like) {
  return tensor(values, TensorOptions().dtype(kDouble)).reshape({n, c}).to(like.device(), like.dtype());
}

}  // namespace

Tensor huber_loss(const Tensor& input, const Tensor& target, const Reduction& reduction, double delta) {
  check_reduction(reduction);
  CTORCH_CHECK(delta > 0, "huber_loss does not support non-positive values for delta.");
  warn_size_mismatch(input, target);
  const Tensor diff = input - target;
  const Tensor ad = diff.abs();
  return apply_reduction(where(ad < delta, diff * diff * 0.5, (ad - 0.5 * delta) * delta), reduction);
}

Tensor soft_margin_loss(const Tensor& input, const Tensor& target, const Reduction& reduction) {
  check_reduction(reduction);
  return apply_reduction(detail::log1p_exp(target.neg() * input), reduction);
}

Tensor multilabel_soft_margin_loss(const Tensor& input, const Tensor& target, const Tensor& weight,
                                   const Reduction& reduction) {
  check_reduction(reduction);
  // -(y log sigmoid(x) + (1 - y) log sigmoid(-x)), averaged over the classes (the last dim).
  Tensor loss = (target * logsigmoid(input) + (1 - target) * logsigmoid(input.neg())).neg();
  if (weight.defined()) loss = loss * weight;
  const int64_t class_dim = input.dim() - 1;
  loss = loss.sum(IntArrayRef{class_dim}) / input.size(class_dim);
  return apply_reduction(loss, reduction);
}

Tensor multilabel_margin_loss(const Tensor& input, const Tensor& target, const Reduction& reduction) {
  check_reduction(reduction);
  const int64_t ndims = input.dim();
  const bool valid = (ndims == 2 && input.size(1) != 0) || (ndims == 1 && input.size(0) != 0) || ndims == 0;
  CTORCH_CHECK(valid, "Expected non-empty vector or matrix with optional 0-dim batch size, but got: ", input.sizes());
  const int64_t n = ndims <= 1 ? 1 : input.size(0);
  const int64_t c = ndims == 0 ? 1 : input.size(ndims - 1);
  if (ndims <= 1) {
    CTORCH_CHECK(target.dim() <= 1 && target.numel() == c, "inconsistent size ", target.sizes(),
                 " for argument #2 'target'");
  } else {
    CTORCH_CHECK(target.dim() == 2 && target.size(0) == n && target.size(1) == c, "inconsistent size ",
                 target.sizes(), " for argument #2 'target'");
  }
  const std::vector<int64_t> t = host_indices(target);
  for (int64_t v : t) CTORCH_CHECK(v >= -1 && v < c, "argument #2 'target' is out of range");
  // count[n, j]: how often class j is listed before the first -1 (a repeat counts again, as in
  // PyTorch's kernel); other[n, i]: 1 for the classes not listed.
  std::vector<double> count(static_cast<size_t>(n * c), 0.0), other(static_cast<size_t>(n * c), 1.0);
  for (int64_t row = 0; row < n; ++row) {
    for (int64_t k = 0; k < c; ++k) {
      const int64_t v = t[static_cast<size_t>(row * c + k)];
      if (v < 0) break;
      count[static_cast<size_t>(row * c + v)] += 1;
      other[static_cast<size_t>(row * c + v)] = 0;
    }
  }
  const Tensor x = input.reshape({n, c});
  // hinge[n, j, i] = max(0, 1 - (x[n, j] - x[n, i])) for listed j and unlisted i, over c.
  const Tensor hinge = (1 - x.unsqueeze(2) + x.unsqueeze(1)).relu();
  const Tensor pairs = host_matrix(count, n, c, x).unsqueeze(2) * host_matrix(other, n, c, x).unsqueeze(1);
  Tensor loss = (hinge * pairs).sum(IntArrayRef{1, 2}) / static_cast<double>(c);
  if (target.dim() <= 1) return reduction == "sum" ? loss.sum() : loss.mean();  // a scalar, as PyTorch's
  return apply_reduction(loss, reduction);
}

Tensor multi_margin_loss(const Tensor& input, const Tensor& target, int64_t p, double margin, const Tensor& weight,
                         const Reduction& reduction) {
  check_reduction(reduction);
  CTORCH_CHECK_VALUE(p == 1 || p == 2, "only p == 1 and p == 2 supported");
  if (weight.defined()) CTORCH_CHECK_VALUE(weight.dim() == 1, "weight must be one-dimensional");
  const int64_t ndims = input.dim();
  const bool valid = (ndims == 2 && input.size(1) != 0) || (ndims == 1 && input.size(0) != 0) || ndims == 0;
  const int64_t n = ndims <= 1 ? 1 : input.size(0);
  const int64_t c = ndims == 0 ? 1 : input.size(ndims - 1);
  CTORCH_CHECK(valid, "Expected non-empty vector or matrix with optional 0-dim batch size, but got: ", input.sizes());
  CTORCH_CHECK(target.dim() <= 1 && target.numel() == n, "inconsistent target size, got: ", target.sizes());
  for (int64_t v : host_indices(target)) CTORCH_CHECK(v >= 0 && v < c, "target out of range");
  const Tensor x = input.reshape({n, c});
  const Tensor y = target.reshape({n, 1}).to(x.device());
  const Tensor is_target = arange(c, TensorOptions().dtype(kLong).device(x.device())).unsqueeze(0).eq(y);
  const Tensor x_target = where(is_target, x, Scalar(0)).sum(IntArrayRef{1}, /*keepdim=*/true);
  Tensor z = where(is_target, Scalar(0), (x - x_target + margin).relu());
  if (p == 2) z = z * z;
  if (weight.defined()) z = z * weight.to(x.dtype()).index_select(0, y.reshape({n})).unsqueeze(1);
  Tensor loss = z.sum(IntArrayRef{1}) / static_cast<double>(c);
  if (target.dim() == 0) return reduction == "sum" ? loss.sum() : loss.mean();  // a scalar, as PyTorch's
  return apply_reduction(loss, reduction);
}

Tensor hinge_embedding_loss(const Tensor& input, const Tensor& target, double margin, const Reduction& reduction) {
  check_reduction(reduction);
  const Tensor margin_clamp = (input.neg() + margin).clamp_min(0);
  const Tensor output_margin = where(target != 1, margin_clamp, Scalar(0));
  const Tensor output_self = where(target != -1, input, Scalar(0));
  return apply_reduction(output_margin + output_self, reduction);
}

Tensor cosine_embedding_loss(const Tensor& input1, const Tensor& input2, const Tensor& target, double margin,
                             const Reduction& reduction) {
  check_reduction(reduction);
  const int64_t targ_dim = target.dim();
  CTORCH_CHECK(targ_dim == 1 || targ_dim == 0, "0D or 1D target tensor expected, multi-target not supported");
  if (targ_dim == 1) {
    CTORCH_CHECK(input1.dim() == 2, "1D target tensor expects 2D input tensors, but found inputs with sizes ",
                 input1.sizes(), " and ", input2.sizes(), ".");
  } else {
    CTORCH_CHECK(input1.dim() == 1, "0D target tensor expects 1D input tensors, but found inputs with sizes ",
                 input1.sizes(), " and ", input2.sizes(), ".");
  }
  constexpr double kEpsilon = 1e-12;
  const Tensor prod_sum = (input1 * input2).sum(IntArrayRef{targ_dim});
  const Tensor mag_square1 = (input1 * input1).sum(IntArrayRef{targ_dim}) + kEpsilon;
  const Tensor mag_square2 = (input2 * input2).sum(IntArrayRef{targ_dim}) + kEpsilon;
  const Tensor cos = prod_sum / (mag_square1 * mag_square2).sqrt();
  const Tensor output_pos = where(target == 1, 1 - cos, Scalar(0));
  const Tensor output_neg = where(target == -1, (cos - margin).clamp_min(0), Scalar(0));
  return apply_reduction(output_pos + output_neg, reduction);
}

Tensor margin_ranking_loss(const Tensor& input1, const Tensor& input2, const Tensor& target, double margin,
                           const Reduction& reduction) {
  check_reduction(reduction);
  CTORCH_CHECK(input1.dim() == input2.dim() && input1.dim() == target.dim(),
               "margin_ranking_loss : All input tensors should have same dimension but got sizes: input1: ",
               input1.sizes(), ", input2: ", input2.sizes(), ", target: ", target.sizes(), " ");
  return apply_reduction((target.neg() * (input1 - input2) + margin).clamp_min(0), reduction);
}

Tensor kl_div(const Tensor& input, const Tensor& target, const Reduction& reduction, bool log_target) {
  CTORCH_CHECK_VALUE(reduction == "none" || reduction == "mean" || reduction == "sum" || reduction == "batchmean",
                     reduction, " is not a valid value for reduction");
  CTORCH_CHECK(!input.is_complex() && !target.is_complex(), "kl_div: Complex inputs not supported.");
  CTORCH_CHECK(!is_integral(input.dtype(), /*include_bool=*/true) && !is_integral(target.dtype(), true),
               "kl_div: Integral inputs not supported.");
  if (reduction == "mean") {
    warn("reduction: 'mean' divides the total loss by both the batch size and the support size.'batchmean' divides "
         "only by the batch size, and aligns with the KL div math definition.'mean' will be changed to behave the "
         "same as 'batchmean' in the next major release.");
  }
  Tensor loss;
  if (log_target) {
    loss = target.exp() * (target - input);
  } else {
    // xlogy(target, target): 0 where target is 0 (log of 1 there keeps the gradient finite).
    const Tensor safe = where(target > 0, target, Scalar(1));
    loss = target * safe.log() - target * input;
  }
  if (reduction == "batchmean") return input.dim() == 0 ? loss.sum() : loss.sum() / input.size(0);
  return apply_reduction(loss, reduction);
}

Tensor poisson_nll_loss(const Tensor& input, const Tensor& target, bool log_input, bool full, double eps,
                        const Reduction& reduction) {
  CTORCH_CHECK_VALUE(reduction == "none" || reduction == "mean" || reduction == "sum", reduction, " is not valid");
  Tensor loss = log_input ? input.exp() - target * input : input - target * (input + eps).log();
  if (full) {
    // Stirling's term t log t - t + 0.5 log(2 pi t), where t > 1.
    const Tensor t = where(target > 1, target, Scalar(2));
    const Tensor stirling = t * t.log() - t + (t * (2 * std::numbers::pi)).log() * 0.5;
    loss = loss + where(target > 1, stirling, Scalar(0));
  }
  return apply_reduction(loss, reduction);
}

Tensor gaussian_nll_loss(const Tensor& input, const Tensor& target, const Tensor& var, bool full, double eps,
                         const Reduction& reduction) {
  Tensor v = var;
  if (var.sizes() != input.sizes()) {
    const IntArrayRef in = input.sizes();
    const IntArrayRef vs = var.sizes();
    const bool drops_last = in.size() >= 1 && vs == in.slice(0, in.size() - 1);
    const bool ones_last = in.size() >= 1 && vs.size() == in.size() &&
                           vs.slice(0, vs.size() - 1) == in.slice(0, in.size() - 1) && vs.back() == 1;
    if (drops_last) {
      v = var.unsqueeze(-1);  // homoscedastic over the last dim
    } else {
      CTORCH_CHECK_VALUE(ones_last, "var is of incorrect size");
    }
  }
  CTORCH_CHECK_VALUE(reduction == "none" || reduction == "mean" || reduction == "sum", reduction, " is not valid");
  CTORCH_CHECK_VALUE(!(v < 0).any().item<bool>(), "var has negative entry/entries");
  // max(var, eps) with the clamp outside the graph, as PyTorch's clamp_ under no_grad.
  v = v + (v.detach().clamp_min(eps) - v.detach());
  const Tensor diff = input - target;
  Tensor loss = (v.log() + diff * diff / v) * 0.5;
  if (full) loss = loss + 0.5 * std::log(2 * std::numbers::pi);
  return apply_reduction(loss, reduction);
}

Tensor triplet_margin_loss(const Tensor& anchor, const Tensor& positive, const Tensor& negative, double margin,
                           double p, double eps, bool swap, const Reduction& reduction) {
  check_reduction(reduction);
  CTORCH_CHECK(anchor.dim() == positive.dim() && positive.dim() == negative.dim(),
               "All inputs should have same dimension but got ", anchor.dim(), "D, ", positive.dim(), "D and ",
               negative.dim(), "D inputs.");
  const Tensor dist_pos = pairwise_distance(anchor, positive, p, eps);
  Tensor dist_neg = pairwise_distance(anchor, negative, p, eps);
  if (swap) dist_neg = dist_neg.minimum(pairwise_distance(positive, negative, p, eps));
  return apply_reduction((dist_pos - dist_neg + margin).clamp_min(0), reduction);
}

Tensor triplet_margin_with_distance_loss(const Tensor& anchor, const Tensor& positive, const Tensor& negative,
                                         const DistanceFunction& distance_function, double margin, bool swap,
                                         const Reduction& reduction) {
  check_reduction(reduction);
  const DistanceFunction distance =
      distance_function ? distance_function
                        : DistanceFunction([](const Tensor& a, const Tensor& b) { return pairwise_distance(a, b); });
  const Tensor dist_pos = distance(anchor, positive);
  Tensor dist_neg = distance(anchor, negative);
  if (swap) dist_neg = dist_neg.minimum(distance(positive, negative));
  return apply_reduction((dist_pos - dist_neg + margin).clamp_min(0), reduction);
}

Tensor ctc_loss(const Tensor& log_probs_in, const Tensor& targets, const Tensor& input_lengths,
                const Tensor& target_lengths, int64_t blank, const Reduction& reduction, bool zero_infinity) {
  check_reduction(reduction);
  CTORCH_CHECK(is_integral(input_lengths.dtype(), /*include_bool=*/false), "input_lengths must be integral");
  CTORCH_CHECK(is_integral(target_lengths.dtype(), /*include_bool=*/false), "target_lengths must be integral");
  const bool batched = log_probs_in.dim() == 3;
  // The recursion runs in float at least (PyTorch has no half ctc on the cpu either).
  const ScalarType dtype = log_probs_in.dtype() == kDouble ? kDouble : kFloat;
  const Tensor log_probs = (batched ? log_probs_in : log_probs_in.unsqueeze(1)).to(dtype);
  const int64_t max_time = log_probs.size(0), batch = log_probs.size(1), labels = log_probs.size(2);
  CTORCH_CHECK(0 <= blank && blank < labels, "blank must be in label range");
  const std::vector<int64_t> in_len = input_lengths.to(kCPU).to(kLong).contiguous().reshape({-1}).to_vector<int64_t>();
  const std::vector<int64_t> tg_len = target_lengths.to(kCPU).to(kLong).contiguous().reshape({-1}).to_vector<int64_t>();
  CTORCH_CHECK(static_cast<int64_t>(in_len.size()) == batch, "input_lengths must be of size batch_size");
  CTORCH_CHECK(static_cast<int64_t>(tg_len.size()) == batch, "target_lengths must be of size batch_size");
  const std::vector<int64_t> tg = targets.to(kCPU).to(kLong).contiguous().reshape({-1}).to_vector<int64_t>();
  int64_t max_target = 0;
  for (int64_t b = 0; b < batch; ++b) {
    max_target = std::max(max_target, tg_len[static_cast<size_t>(b)]);
    CTORCH_CHECK(in_len[static_cast<size_t>(b)] <= max_time, "Expected input_lengths to have value at most ", max_time,
                 ", but got value ", in_len[static_cast<size_t>(b)], " (while checking arguments for ctc_loss_cpu)");
  }
  // The extended label sequence of each sample: blank, l1, blank, l2, ..., blank (padded with
  // blanks), and where a state may also be entered from two states back (a label that differs
  // from the label before it).
  const int64_t states = 2 * max_target + 1;
  std::vector<int64_t> ext(static_cast<size_t>(batch * states), blank);
  std::vector<uint8_t> skip(static_cast<size_t>(batch * states), 0);
  int64_t offset = 0;
  for (int64_t b = 0; b < batch; ++b) {
    const int64_t len = tg_len[static_cast<size_t>(b)];
    const int64_t start = targets.dim() == 1 ? offset : b * targets.size(1);
    if (targets.dim() != 1) {
      CTORCH_CHECK(targets.size(1) >= max_target, "Expected tensor to have size at least ", max_target,
                   " at dimension 1, but got size ", targets.size(1),
                   " for argument #2 'targets' (while checking arguments for ctc_loss_cpu)");
    }
    for (int64_t k = 0; k < len; ++k) {
      const int64_t label = tg[static_cast<size_t>(start + k)];
      ext[static_cast<size_t>(b * states + 2 * k + 1)] = label;
      if (k > 0 && label != tg[static_cast<size_t>(start + k - 1)]) skip[static_cast<size_t>(b * states + 2 * k + 1)] = 1;
    }
    offset += len;
  }
  const TensorOptions long_opts = TensorOptions().dtype(kLong).device(log_probs.device());
  const Tensor ext_t = tensor(ext, TensorOptions().dtype(kLong)).reshape({batch, states}).to(log_probs.device());
  const Tensor skip_t = tensor(std::vector<int64_t>(skip.begin(), skip.end()), TensorOptions().dtype(kLong))
                            .reshape({batch, states}).to(log_probs.device()).eq(1);
  // -inf stands as a large finite value so that unreachable states keep finite gradients (exactly 0).
  constexpr double kNeg = -1e30;
  const Tensor neg_pad = full({batch, 1}, kNeg, log_probs.options());
  auto shifted = [&](const Tensor& a, int64_t by) {
    if (by >= states) return full({batch, states}, kNeg, log_probs.options());
    std::vector<Tensor> parts;
    for (int64_t i = 0; i < by; ++i) parts.push_back(neg_pad);
    parts.push_back(a.narrow(1, 0, states - by));
    return cat(parts, 1);
  };
  auto logsumexp = [](const std::vector<Tensor>& terms) {
    Tensor m = terms[0];
    for (size_t i = 1; i < terms.size(); ++i) m = m.maximum(terms[i]);
    m = m.detach();
    Tensor sum = (terms[0] - m).exp();
    for (size_t i = 1; i < terms.size(); ++i) sum = sum + (terms[i] - m).exp();
    return m + sum.log();
  };
  const Tensor state_index = arange(states, long_opts).unsqueeze(0);
  Tensor alpha = where(state_index < 2, log_probs[0].gather(1, ext_t), Scalar(kNeg));
  alpha = where(state_index.eq(1).logical_and(tensor(tg_len, TensorOptions().dtype(kLong)).to(log_probs.device())
                                                  .unsqueeze(1).eq(0)),
                Scalar(kNeg), alpha);
  const Tensor in_len_t = tensor(in_len, TensorOptions().dtype(kLong)).to(log_probs.device()).unsqueeze(1);
  for (int64_t t = 1; t < max_time; ++t) {
    const Tensor two_back = where(skip_t, shifted(alpha, 2), Scalar(kNeg));
    const Tensor next = log_probs[t].gather(1, ext_t) + logsumexp({alpha, shifted(alpha, 1), two_back});
    alpha = where(in_len_t > t, next, alpha);  // samples past their input length keep their last alpha
  }
  // log p(target) = logsumexp(alpha[2L], alpha[2L - 1]) at each sample's last time step.
  std::vector<int64_t> last(static_cast<size_t>(batch)), before_last(static_cast<size_t>(batch));
  for (int64_t b = 0; b < batch; ++b) {
    last[static_cast<size_t>(b)] = 2 * tg_len[static_cast<size_t>(b)];
    before_last[static_cast<size_t>(b)] = std::max<int64_t>(2 * tg_len[static_cast<size_t>(b)] - 1, 0);
  }
  const Tensor a_last = alpha.gather(1, tensor(last, TensorOptions().dtype(kLong)).to(log_probs.device()).unsqueeze(1));
  Tensor a_before = alpha.gather(1, tensor(before_last, TensorOptions().dtype(kLong)).to(log_probs.device()).unsqueeze(1));
  Tensor loss = logsumexp({a_last, where(tensor(tg_len, TensorOptions().dtype(kLong)).to(log_probs.device())
                                             .unsqueeze(1) > 0, a_before, Scalar(kNeg))})
                    .neg()
                    .squeeze(1);
  // No alignment (too short an input): +inf, as PyTorch's; zero_infinity makes it 0.
  loss = where(loss > -kNeg / 2, Scalar(std::numeric_limits<double>::infinity()), loss);
  if (zero_infinity) loss = where(loss == std::numeric_limits<double>::infinity(), Scalar(0), loss);
  loss = loss.to(log_probs_in.dtype());
  if (reduction == "mean") {
    const Tensor lengths = tensor(tg_len, TensorOptions().dtype(kLong)).to(loss.device()).clamp_min(1).to(loss.dtype());
    return (loss / lengths).mean();
  }
  if (reduction == "sum") return loss.sum();
  return batched ? loss : loss.squeeze(0);
}

}  // namespace ctorch::nn::functional
