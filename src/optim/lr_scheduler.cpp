// Learning-rate schedulers: PyTorch 1.13's recursive (chainable) forms.
#include <cmath>
#include <numbers>

#include "ctorch/error.h"
#include "ctorch/optim.h"

namespace ctorch::optim {

LRScheduler::LRScheduler(Optimizer& optimizer) : optimizer_(optimizer) {
  for (size_t g = 0; g < optimizer.num_groups(); ++g) base_lrs_.push_back(optimizer.lr(g));
  last_lr_ = base_lrs_;
}

void LRScheduler::step() {
  ++last_epoch_;
  last_lr_.clear();
  for (size_t g = 0; g < optimizer_.num_groups(); ++g) {
    const double lr = compute_lr(g, optimizer_.lr(g));
    optimizer_.set_lr(g, lr);
    last_lr_.push_back(lr);
  }
}

StepLR::StepLR(Optimizer& optimizer, int64_t step_size, double gamma)
    : LRScheduler(optimizer), step_size_(step_size), gamma_(gamma) {
  CTORCH_CHECK_VALUE(step_size > 0, "StepLR: step_size must be positive, got ", step_size);
}

double StepLR::compute_lr(size_t, double current) const {
  if (last_epoch_ == 0 || last_epoch_ % step_size_ != 0) return current;
  return current * gamma_;
}

CosineAnnealingLR::CosineAnnealingLR(Optimizer& optimizer, int64_t T_max, double eta_min)
    : LRScheduler(optimizer), t_max_(T_max), eta_min_(eta_min) {
  CTORCH_CHECK_VALUE(T_max > 0, "CosineAnnealingLR: T_max must be positive, got ", T_max);
}

double CosineAnnealingLR::compute_lr(size_t g, double current) const {
  const double pi = std::numbers::pi;
  const double t = static_cast<double>(last_epoch_), tmax = static_cast<double>(t_max_);
  if (last_epoch_ == 0) return current;
  if ((last_epoch_ - 1 - t_max_) % (2 * t_max_) == 0) {
    return current + (base_lrs_[g] - eta_min_) * (1 - std::cos(pi / tmax)) / 2;
  }
  return (1 + std::cos(pi * t / tmax)) / (1 + std::cos(pi * (t - 1) / tmax)) * (current - eta_min_) + eta_min_;
}

LambdaLR::LambdaLR(Optimizer& optimizer, std::function<double(int64_t)> lr_lambda)
    : LRScheduler(optimizer), lambda_(std::move(lr_lambda)) {
  for (size_t g = 0; g < optimizer_.num_groups(); ++g) optimizer_.set_lr(g, base_lrs_[g] * lambda_(0));
  for (size_t g = 0; g < last_lr_.size(); ++g) last_lr_[g] = optimizer_.lr(g);
}

double LambdaLR::compute_lr(size_t g, double) const { return base_lrs_[g] * lambda_(last_epoch_); }

}  // namespace ctorch::optim
