// libtorch 1.13's learning-rate schedulers over torch::optim::Optimizer's groups: LRScheduler
// (get_lrs() per step) and StepLR, the rule of ctorch::optim::StepLR.
#pragma once

#include <vector>

#include "ctorch/libtorch/optim.h"

namespace torch::optim {

/// Sets every group's learning rate to get_lrs() at each step (libtorch's LRScheduler).
class LRScheduler {
 public:
  /// Schedules `optimizer`'s groups.
  explicit LRScheduler(Optimizer& optimizer) : optimizer_(optimizer) {}
  virtual ~LRScheduler() = default;
  /// Sets the rates get_lrs() gives, then counts the step.
  void step();

 protected:
  /// The rates for the coming step (step_count_ steps were taken before).
  virtual std::vector<double> get_lrs() = 0;
  /// The groups' current rates.
  std::vector<double> get_current_lrs() const;
  unsigned step_count_{};

 private:
  Optimizer& optimizer_;
};

/// Multiplies the rates by gamma every step_size steps (libtorch's StepLR).
class StepLR : public LRScheduler {
 public:
  StepLR(Optimizer& optimizer, unsigned step_size, double gamma = 0.1);

 private:
  std::vector<double> get_lrs() override;
  unsigned step_size_;
  double gamma_;
};

}  // namespace torch::optim
