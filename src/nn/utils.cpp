// torch.nn.utils.clip_grad_norm_ / clip_grad_value_ (PyTorch 1.13's formulas).
#include <cmath>
#include <limits>

#include "ctorch/factories.h"
#include "ctorch/grad_mode.h"
#include "ctorch/nn_utils.h"
#include "ctorch/ops.h"

namespace ctorch::nn::utils {

Tensor clip_grad_norm_(const std::vector<Tensor>& parameters, double max_norm, double norm_type,
                       bool error_if_nonfinite) {
  NoGradGuard no_grad;
  std::vector<Tensor> grads;
  for (const Tensor& p : parameters) {
    if (p.grad().defined()) grads.push_back(p.grad());
  }
  if (grads.empty()) return zeros({});
  const Device device = grads.front().device();
  std::vector<Tensor> norms;
  const bool inf = std::isinf(norm_type);
  for (const Tensor& g : grads) norms.push_back((inf ? g.abs().max() : g.norm(norm_type)).to(device));
  const Tensor stacked = stack(norms);
  const Tensor total = inf ? stacked.max() : stacked.norm(norm_type);
  if (error_if_nonfinite) {
    const double v = total.item<double>();
    CTORCH_CHECK(std::isfinite(v), "The total norm of order ", norm_type,
                 " for gradients from `parameters` is non-finite, so it cannot be clipped. To disable this error and "
                 "scale the gradients by the non-finite norm anyway, set `error_if_nonfinite=False`");
  }
  const Tensor coef = (max_norm / (total + 1e-6)).clamp_max(1.0);
  for (const Tensor& g : grads) {
    Tensor handle = g;
    handle.mul_(coef.to(g.device()));
  }
  return total;
}

void clip_grad_value_(const std::vector<Tensor>& parameters, double clip_value) {
  NoGradGuard no_grad;
  for (const Tensor& p : parameters) {
    if (!p.grad().defined()) continue;
    Tensor g = p.grad();
    g.clamp_(-clip_value, clip_value);
  }
}

}  // namespace ctorch::nn::utils
