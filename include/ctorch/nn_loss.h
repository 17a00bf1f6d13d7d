// Loss modules (torch.nn.MSELoss, L1Loss, CrossEntropyLoss, NLLLoss, BCELoss, BCEWithLogitsLoss).
#pragma once

#include "ctorch/nn_functional.h"
#include "ctorch/nn_module.h"

namespace ctorch::nn {

/// A module computing a loss from (input, target).
class Loss : public Module {
 public:
  Loss(std::string name, std::string reduction) : Module(std::move(name)), reduction(std::move(reduction)) {}
  /// The loss.
  virtual Tensor forward(const Tensor& input, const Tensor& target) = 0;
  /// Same as forward.
  Tensor operator()(const Tensor& input, const Tensor& target) { return forward(input, target); }
  std::string reduction;  ///< "mean", "sum" or "none"
};

/// Mean squared error.
class MSELoss : public Loss {
 public:
  explicit MSELoss(std::string reduction = "mean") : Loss("MSELoss", std::move(reduction)) {}
  Tensor forward(const Tensor& input, const Tensor& target) override {
    return functional::mse_loss(input, target, reduction);
  }
};

/// Mean absolute error.
class L1Loss : public Loss {
 public:
  explicit L1Loss(std::string reduction = "mean") : Loss("L1Loss", std::move(reduction)) {}
  Tensor forward(const Tensor& input, const Tensor& target) override {
    return functional::l1_loss(input, target, reduction);
  }
};

/// Smooth L1 loss (quadratic below beta, linear above).
class SmoothL1Loss : public Loss {
 public:
  explicit SmoothL1Loss(std::string reduction = "mean", double beta = 1.0)
      : Loss("SmoothL1Loss", std::move(reduction)), beta(beta) {}
  Tensor forward(const Tensor& input, const Tensor& target) override {
    return functional::smooth_l1_loss(input, target, reduction, beta);
  }
  double beta;
};

/// Negative log likelihood over log-probabilities.
class NLLLoss : public Loss {
 public:
  explicit NLLLoss(Tensor weight = Tensor(), int64_t ignore_index = -100, std::string reduction = "mean")
      : Loss("NLLLoss", std::move(reduction)), weight(std::move(weight)), ignore_index(ignore_index) {}
  Tensor forward(const Tensor& input, const Tensor& target) override {
    return functional::nll_loss(input, target, weight, ignore_index, reduction);
  }
  Tensor weight;
  int64_t ignore_index;
};

/// Cross entropy over logits, with ignore_index and label smoothing.
class CrossEntropyLoss : public Loss {
 public:
  explicit CrossEntropyLoss(Tensor weight = Tensor(), int64_t ignore_index = -100, std::string reduction = "mean",
                            double label_smoothing = 0.0)
      : Loss("CrossEntropyLoss", std::move(reduction)),
        weight(std::move(weight)),
        ignore_index(ignore_index),
        label_smoothing(label_smoothing) {}
  Tensor forward(const Tensor& input, const Tensor& target) override {
    return functional::cross_entropy(input, target, weight, ignore_index, reduction, label_smoothing);
  }
  Tensor weight;
  int64_t ignore_index;
  double label_smoothing;
};

/// Binary cross entropy over probabilities.
class BCELoss : public Loss {
 public:
  explicit BCELoss(Tensor weight = Tensor(), std::string reduction = "mean")
      : Loss("BCELoss", std::move(reduction)), weight(std::move(weight)) {}
  Tensor forward(const Tensor& input, const Tensor& target) override {
    return functional::binary_cross_entropy(input, target, weight, reduction);
  }
  Tensor weight;
};

/// Binary cross entropy over logits.
class BCEWithLogitsLoss : public Loss {
 public:
  explicit BCEWithLogitsLoss(Tensor weight = Tensor(), std::string reduction = "mean", Tensor pos_weight = Tensor())
      : Loss("BCEWithLogitsLoss", std::move(reduction)), weight(std::move(weight)), pos_weight(std::move(pos_weight)) {}
  Tensor forward(const Tensor& input, const Tensor& target) override {
    return functional::binary_cross_entropy_with_logits(input, target, weight, reduction, pos_weight);
  }
  Tensor weight;
  Tensor pos_weight;
};

}  // namespace ctorch::nn
