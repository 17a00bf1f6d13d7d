// torch.optim.LBFGS: limited-memory BFGS over one group of parameters, with the optional
// strong-Wolfe line search (torch/optim/lbfgs.py). Its state is global, not per parameter.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "ctorch/optim.h"
#include "ctorch/serialization.h"
#include "ctorch/tensor.h"

namespace ctorch::optim {

/// L-BFGS's hyper-parameters (torch.optim.LBFGS; max_eval defaults to max_iter * 5 / 4).
struct LBFGSOptions {
  LBFGSOptions(double lr = 1) : lr_(lr) {}  // NOLINT: implicit, as libtorch's
  CTORCH_OPTIM_ARG(double, lr, 1)
  CTORCH_OPTIM_ARG(int64_t, max_iter, 20)
  CTORCH_OPTIM_ARG(std::optional<int64_t>, max_eval, std::nullopt)
  CTORCH_OPTIM_ARG(double, tolerance_grad, 1e-7)
  CTORCH_OPTIM_ARG(double, tolerance_change, 1e-9)
  CTORCH_OPTIM_ARG(int64_t, history_size, 100)
  CTORCH_OPTIM_ARG(std::optional<std::string>, line_search_fn, std::nullopt)
};

/// L-BFGS's state between steps (torch.optim.LBFGS's state dict of its first parameter).
struct LBFGSState {
  int64_t func_evals = 0;
  int64_t n_iter = 0;
  double t = 0;
  double prev_loss = 0;
  Tensor d, H_diag, prev_flat_grad;
  std::deque<Tensor> old_dirs, old_stps, ro;
  std::optional<std::vector<Tensor>> al;
};

namespace functional {
/// One L-BFGS step (torch.optim.LBFGS.step): evaluates `closure` (with grad enabled) up to
/// max_eval times and returns its first loss; invalid line_search_fn raises "only 'strong_wolfe' is supported".
Tensor lbfgs(const std::vector<Tensor>& params, const std::function<Tensor()>& closure, LBFGSState& state,
             const LBFGSOptions& options);
}  // namespace functional

/// L-BFGS over one group of parameters.
class LBFGS {
 public:
  /// The parameters and options (max_eval filled in when unset).
  explicit LBFGS(std::vector<Tensor> params, LBFGSOptions options = {});
  /// One optimization step; `closure` clears the gradients, computes the loss, runs backward and returns it.
  Tensor step(const std::function<Tensor()>& closure);
  /// Zeroes (or clears) every parameter's gradient.
  void zero_grad(bool set_to_none = false);
  /// The parameters.
  const std::vector<Tensor>& params() const { return params_; }
  /// The options (editable between steps).
  LBFGSOptions& options() { return options_; }
  /// The state.
  LBFGSState& state() { return state_; }
  /// torch.optim.LBFGS.state_dict() in PyTorch 1.13's layout (the state under parameter 0).
  serialization::Value state_dict() const;
  /// Loads a state_dict (ctorch's or PyTorch's: t, H_diag and prev_loss as numbers or tensors); tensors go
  /// to the first parameter's device and dtype.
  void load_state_dict(const serialization::Value& state_dict);

 private:
  std::vector<Tensor> params_;
  LBFGSOptions options_;
  LBFGSState state_;
};

}  // namespace ctorch::optim
