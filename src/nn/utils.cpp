// torch.nn.utils.clip_grad_norm_ / clip_grad_value_ (PyTorch 1.13's formulas), parameters_to_vector,
// vector_to_parameters.
#include <cmath>
#include <limits>
#include <optional>

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

Tensor clip_grad_norm_(const Tensor& parameter, double max_norm, double norm_type, bool error_if_nonfinite) {
  return clip_grad_norm_(std::vector<Tensor>{parameter}, max_norm, norm_type, error_if_nonfinite);
}

Tensor clip_grad_norm_(std::initializer_list<Tensor> parameters, double max_norm, double norm_type,
                       bool error_if_nonfinite) {
  return clip_grad_norm_(std::vector<Tensor>(parameters), max_norm, norm_type, error_if_nonfinite);
}

void clip_grad_value_(const Tensor& parameter, double clip_value) {
  clip_grad_value_(std::vector<Tensor>{parameter}, clip_value);
}

void clip_grad_value_(std::initializer_list<Tensor> parameters, double clip_value) {
  clip_grad_value_(std::vector<Tensor>(parameters), clip_value);
}

namespace {

void check_same_device(const Tensor& t, std::optional<Device>& device) {
  if (!device) {
    device = t.device();
    return;
  }
  CTORCH_CHECK(t.device() == *device, "Found two parameters on different devices, this is currently not supported.");
}

}  // namespace

Tensor parameters_to_vector(const std::vector<Tensor>& parameters) {
  std::optional<Device> device;
  std::vector<Tensor> flat;
  flat.reserve(parameters.size());
  for (const Tensor& p : parameters) {
    check_same_device(p, device);
    flat.push_back(p.view({-1}));
  }
  return cat(flat);
}

void vector_to_parameters(const Tensor& vec, const std::vector<Tensor>& parameters) {
  CTORCH_CHECK_TYPE(vec.defined(), "expected torch.Tensor, but got: an undefined tensor");
  std::optional<Device> device;
  int64_t pointer = 0;
  for (const Tensor& p : parameters) {
    check_same_device(p, device);
    const int64_t n = p.numel();
    p.set_data(vec.slice(0, pointer, pointer + n).view_as(p).detach());
    pointer += n;
  }
}

}  // namespace ctorch::nn::utils
