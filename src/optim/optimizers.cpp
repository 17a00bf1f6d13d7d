// SGD, Adam, AdamW and RMSprop: PyTorch 1.13's single-tensor update rules, run without recording.
#include <cmath>

#include "ctorch/factories.h"
#include "ctorch/grad_mode.h"
#include "ctorch/optim.h"

namespace ctorch::optim {

void Optimizer::zero_grad(bool set_to_none) {
  for (size_t g = 0; g < num_groups(); ++g) {
    for (const Tensor& p : group_params(g)) {
      if (!p.grad().defined()) continue;
      if (set_to_none) {
        p.mutable_grad() = Tensor();
      } else {
        NoGradGuard no_grad;
        p.mutable_grad().zero_();
      }
    }
  }
}

Optimizer::State& Optimizer::state_of(const Tensor& p) {
  State& s = state_[p.impl()];
  for (Tensor* t : {&s.buf1, &s.buf2, &s.buf3}) {
    if (t->defined() && t->device() != p.device()) *t = t->to(p.device());  // the parameter moved
  }
  return s;
}

void SGD::step() {
  NoGradGuard no_grad;
  for (auto& group : groups_) {
    const SGDOptions& o = group.options;
    for (Tensor& p : group.params) {
      if (!p.grad().defined()) continue;
      Tensor d_p = o.maximize() ? p.grad().neg() : p.grad();
      if (o.weight_decay() != 0) d_p = d_p.add(p, o.weight_decay());
      if (o.momentum() != 0) {
        State& s = state_of(p);
        if (!s.buf1.defined()) {
          s.buf1 = d_p.clone();
        } else {
          s.buf1.mul_(o.momentum()).add_(d_p, 1 - o.dampening());
        }
        d_p = o.nesterov() ? d_p.add(s.buf1, o.momentum()) : s.buf1;
      }
      p.add_(d_p, -o.lr());
    }
  }
}

namespace {

// The Adam update shared by Adam and AdamW (decoupled: weight decay already applied to p).
void adam_update(Tensor& p, Tensor grad, const AdamOptions& o, int64_t step, Tensor& exp_avg, Tensor& exp_avg_sq,
                 Tensor& max_exp_avg_sq) {
  exp_avg.mul_(o.beta1()).add_(grad, 1 - o.beta1());
  exp_avg_sq.mul_(o.beta2()).add_(grad * grad, 1 - o.beta2());
  const double bias_correction1 = 1 - std::pow(o.beta1(), static_cast<double>(step));
  const double bias_correction2 = 1 - std::pow(o.beta2(), static_cast<double>(step));
  const double step_size = o.lr() / bias_correction1;
  const double bias_correction2_sqrt = std::sqrt(bias_correction2);
  Tensor denom;
  if (o.amsgrad()) {
    if (!max_exp_avg_sq.defined()) max_exp_avg_sq = zeros_like(p);
    max_exp_avg_sq.copy_(max_exp_avg_sq.maximum(exp_avg_sq));
    denom = (max_exp_avg_sq.sqrt() / bias_correction2_sqrt).add_(o.eps());
  } else {
    denom = (exp_avg_sq.sqrt() / bias_correction2_sqrt).add_(o.eps());
  }
  p.add_(exp_avg / denom, -step_size);
}

}  // namespace

void Adam::step() {
  NoGradGuard no_grad;
  for (auto& group : groups_) {
    const AdamOptions& o = group.options;
    for (Tensor& p : group.params) {
      if (!p.grad().defined()) continue;
      Tensor grad = o.maximize() ? p.grad().neg() : p.grad();
      State& s = state_of(p);
      if (!s.buf1.defined()) {
        s.buf1 = zeros_like(p);
        s.buf2 = zeros_like(p);
      }
      s.step += 1;
      if (o.weight_decay() != 0) grad = grad.add(p, o.weight_decay());
      adam_update(p, grad, o, s.step, s.buf1, s.buf2, s.buf3);
    }
  }
}

void AdamW::step() {
  NoGradGuard no_grad;
  for (auto& group : groups_) {
    const AdamOptions& o = group.options;
    for (Tensor& p : group.params) {
      if (!p.grad().defined()) continue;
      const Tensor grad = o.maximize() ? p.grad().neg() : p.grad();
      State& s = state_of(p);
      if (!s.buf1.defined()) {
        s.buf1 = zeros_like(p);
        s.buf2 = zeros_like(p);
      }
      s.step += 1;
      p.mul_(1 - o.lr() * o.weight_decay());
      adam_update(p, grad, o, s.step, s.buf1, s.buf2, s.buf3);
    }
  }
}

void RMSprop::step() {
  NoGradGuard no_grad;
  for (auto& group : groups_) {
    const RMSpropOptions& o = group.options;
    for (Tensor& p : group.params) {
      if (!p.grad().defined()) continue;
      Tensor grad = p.grad();
      State& s = state_of(p);
      if (!s.buf1.defined()) s.buf1 = zeros_like(p);  // square_avg
      s.step += 1;
      if (o.weight_decay() != 0) grad = grad.add(p, o.weight_decay());
      s.buf1.mul_(o.alpha()).add_(grad * grad, 1 - o.alpha());
      Tensor avg;
      if (o.centered()) {
        if (!s.buf2.defined()) s.buf2 = zeros_like(p);  // grad_avg
        s.buf2.mul_(o.alpha()).add_(grad, 1 - o.alpha());
        avg = (s.buf1 - s.buf2 * s.buf2).sqrt_().add_(o.eps());
      } else {
        avg = s.buf1.sqrt().add_(o.eps());
      }
      if (o.momentum() > 0) {
        if (!s.buf3.defined()) s.buf3 = zeros_like(p);
        s.buf3.mul_(o.momentum()).add_(grad / avg);
        p.add_(s.buf3, -o.lr());
      } else {
        p.add_(grad / avg, -o.lr());
      }
    }
  }
}

}  // namespace ctorch::optim
