// torch.optim's single-tensor update rules (PyTorch 1.13's _single_tensor_sgd/adam/adamw/adagrad/
// rmsprop), shared by ctorch's optimizers and libtorch's spellings.
#include <cmath>

#include "ctorch/factories.h"
#include "ctorch/grad_mode.h"
#include "ctorch/optim_functional.h"

namespace ctorch::optim::functional {

void sgd(Tensor& param, const Tensor& grad, Tensor& momentum_buffer, const SGDOptions& o) {
  NoGradGuard no_grad;
  Tensor d_p = o.maximize() ? grad.neg() : grad;
  if (o.weight_decay() != 0) d_p = d_p.add(param, o.weight_decay());
  if (o.momentum() != 0) {
    if (!momentum_buffer.defined()) {
      momentum_buffer = d_p.clone().detach();
    } else {
      momentum_buffer.mul_(o.momentum()).add_(d_p, 1 - o.dampening());
    }
    d_p = o.nesterov() ? d_p.add(momentum_buffer, o.momentum()) : momentum_buffer;
  }
  param.add_(d_p, -o.lr());
}

namespace {

// The Adam update shared by Adam and AdamW (for AdamW, weight decay was already applied to param).
void adam_update(Tensor& param, const Tensor& grad, Tensor& exp_avg, Tensor& exp_avg_sq, Tensor& max_exp_avg_sq,
                 int64_t step, const AdamOptions& o) {
  if (!exp_avg.defined()) exp_avg = zeros_like(param);
  if (!exp_avg_sq.defined()) exp_avg_sq = zeros_like(param);
  exp_avg.mul_(o.beta1()).add_(grad, 1 - o.beta1());
  exp_avg_sq.mul_(o.beta2()).add_(grad * grad, 1 - o.beta2());
  const double bias_correction1 = 1 - std::pow(o.beta1(), static_cast<double>(step));
  const double bias_correction2 = 1 - std::pow(o.beta2(), static_cast<double>(step));
  const double step_size = o.lr() / bias_correction1;
  const double bias_correction2_sqrt = std::sqrt(bias_correction2);
  Tensor denom;
  if (o.amsgrad()) {
    if (!max_exp_avg_sq.defined()) max_exp_avg_sq = zeros_like(param);
    max_exp_avg_sq.copy_(max_exp_avg_sq.maximum(exp_avg_sq));
    denom = (max_exp_avg_sq.sqrt() / bias_correction2_sqrt).add_(o.eps());
  } else {
    denom = (exp_avg_sq.sqrt() / bias_correction2_sqrt).add_(o.eps());
  }
  param.add_(exp_avg / denom, -step_size);
}

}  // namespace

void adam(Tensor& param, const Tensor& grad, Tensor& exp_avg, Tensor& exp_avg_sq, Tensor& max_exp_avg_sq,
          int64_t step, const AdamOptions& o) {
  NoGradGuard no_grad;
  Tensor g = o.maximize() ? grad.neg() : grad;
  if (o.weight_decay() != 0) g = g.add(param, o.weight_decay());
  adam_update(param, g, exp_avg, exp_avg_sq, max_exp_avg_sq, step, o);
}

void adamw(Tensor& param, const Tensor& grad, Tensor& exp_avg, Tensor& exp_avg_sq, Tensor& max_exp_avg_sq,
           int64_t step, const AdamOptions& o) {
  NoGradGuard no_grad;
  const Tensor g = o.maximize() ? grad.neg() : grad;
  param.mul_(1 - o.lr() * o.weight_decay());
  adam_update(param, g, exp_avg, exp_avg_sq, max_exp_avg_sq, step, o);
}

void adagrad(Tensor& param, const Tensor& grad, Tensor& state_sum, int64_t step, const AdagradOptions& o) {
  NoGradGuard no_grad;
  if (!state_sum.defined()) state_sum = full_like(param, o.initial_accumulator_value());
  Tensor g = o.maximize() ? grad.neg() : grad;
  if (o.weight_decay() != 0) g = g.add(param, o.weight_decay());
  const double clr = o.lr() / (1 + static_cast<double>(step - 1) * o.lr_decay());
  state_sum.add_(g * g);
  const Tensor std = state_sum.sqrt().add_(o.eps());
  param.add_(g / std, -clr);
}

void rmsprop(Tensor& param, const Tensor& grad, Tensor& square_avg, Tensor& grad_avg, Tensor& momentum_buffer,
             const RMSpropOptions& o) {
  NoGradGuard no_grad;
  if (!square_avg.defined()) square_avg = zeros_like(param);
  Tensor g = o.maximize() ? grad.neg() : grad;
  if (o.weight_decay() != 0) g = g.add(param, o.weight_decay());
  square_avg.mul_(o.alpha()).add_(g * g, 1 - o.alpha());
  Tensor avg;
  if (o.centered()) {
    if (!grad_avg.defined()) grad_avg = zeros_like(param);
    grad_avg.mul_(o.alpha()).add_(g, 1 - o.alpha());
    avg = (square_avg - grad_avg * grad_avg).sqrt_().add_(o.eps());
  } else {
    avg = square_avg.sqrt().add_(o.eps());
  }
  if (o.momentum() > 0) {
    if (!momentum_buffer.defined()) momentum_buffer = zeros_like(param);
    momentum_buffer.mul_(o.momentum()).add_(g / avg);
    param.add_(momentum_buffer, -o.lr());
  } else {
    param.add_(g / avg, -o.lr());
  }
}

}  // namespace ctorch::optim::functional
