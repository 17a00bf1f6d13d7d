// libtorch 1.13's torch::optim::LBFGS: options, its one global state (kept under the first
// parameter's key) and step(closure), over ctorch::optim::functional::lbfgs.
#pragma once

#include "ctorch/libtorch/optim.h"

/// A libtorch state field `name` read and written through the native state's `field`.
#define CTORCH_NATIVE_STATE_FIELD(T, name)                          \
 public:                                                            \
  auto name(const T& value) -> decltype(*this) {                    \
    this->native_.name = value;                                     \
    return *this;                                                   \
  }                                                                 \
  const T& name() const noexcept { return this->native_.name; }     \
  T& name() noexcept { return this->native_.name; }

namespace torch::optim {

/// LBFGS's options (libtorch's LBFGSOptions).
struct LBFGSOptions : public OptimizerCloneableOptions<LBFGSOptions> {
  LBFGSOptions(double lr = 1);  // NOLINT: implicit, as libtorch's
  TORCH_ARG(double, lr) = 1;
  TORCH_ARG(int64_t, max_iter) = 20;
  TORCH_ARG(std::optional<int64_t>, max_eval) = std::nullopt;
  TORCH_ARG(double, tolerance_grad) = 1e-7;
  TORCH_ARG(double, tolerance_change) = 1e-9;
  TORCH_ARG(int64_t, history_size) = 100;
  TORCH_ARG(std::optional<std::string>, line_search_fn) = std::nullopt;

 public:
  void serialize(serialize::InputArchive& archive) override;
  void serialize(serialize::OutputArchive& archive) const override;
  friend bool operator==(const LBFGSOptions& lhs, const LBFGSOptions& rhs);
  double get_lr() const override { return lr(); }
  void set_lr(double lr) override { this->lr(lr); }
  /// The native options.
  ::ctorch::optim::LBFGSOptions native() const;
};

/// LBFGS's state (the native ctorch::optim::LBFGSState, with libtorch's accessors).
struct LBFGSParamState : public OptimizerCloneableParamState<LBFGSParamState> {
  CTORCH_NATIVE_STATE_FIELD(int64_t, func_evals)
  CTORCH_NATIVE_STATE_FIELD(int64_t, n_iter)
  CTORCH_NATIVE_STATE_FIELD(double, t)
  CTORCH_NATIVE_STATE_FIELD(double, prev_loss)
  CTORCH_NATIVE_STATE_FIELD(Tensor, d)
  CTORCH_NATIVE_STATE_FIELD(Tensor, H_diag)
  CTORCH_NATIVE_STATE_FIELD(Tensor, prev_flat_grad)
  CTORCH_NATIVE_STATE_FIELD(std::deque<Tensor>, old_dirs)
  CTORCH_NATIVE_STATE_FIELD(std::deque<Tensor>, old_stps)
  CTORCH_NATIVE_STATE_FIELD(std::deque<Tensor>, ro)
  CTORCH_NATIVE_STATE_FIELD(std::optional<std::vector<Tensor>>, al)

 public:
  void serialize(serialize::InputArchive& archive) override;
  void serialize(serialize::OutputArchive& archive) const override;
  friend bool operator==(const LBFGSParamState& lhs, const LBFGSParamState& rhs);
  /// The native state.
  ::ctorch::optim::LBFGSState& native() { return native_; }

 private:
  ::ctorch::optim::LBFGSState native_;
};

/// libtorch's LBFGS (one parameter group) over ctorch::optim::functional::lbfgs.
class LBFGS : public Optimizer {
 public:
  explicit LBFGS(std::vector<OptimizerParamGroup> param_groups, LBFGSOptions defaults = {});
  explicit LBFGS(std::vector<Tensor> params, LBFGSOptions defaults = {})
      : LBFGS(std::vector<OptimizerParamGroup>{OptimizerParamGroup(std::move(params))}, defaults) {}
  Tensor step(LossClosure closure) override;
  void save(serialize::OutputArchive& archive) const override;
  void load(serialize::InputArchive& archive) override;
};

}  // namespace torch::optim

#undef CTORCH_NATIVE_STATE_FIELD
