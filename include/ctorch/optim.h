// torch.optim: SGD, Adam, AdamW, RMSprop, Adagrad with parameter groups, and learning-rate schedulers.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "ctorch/serialization.h"
#include "ctorch/tensor.h"

/// A chainable option with a getter (libtorch's TORCH_ARG): `SGDOptions(0.1).momentum(0.9)`.
#define CTORCH_OPTIM_ARG(T, name, init)          \
 public:                                        \
  auto& name(T value) {                         \
    name##_ = value;                            \
    return *this;                               \
  }                                             \
  T name() const { return name##_; }            \
                                                \
 private:                                       \
  T name##_ = init;                             \
                                                \
 public:

namespace ctorch::optim {

/// SGD's hyper-parameters (torch.optim.SGD).
struct SGDOptions {
  SGDOptions(double lr) : lr_(lr) {}  // NOLINT: implicit, as libtorch's (SGD(params, 0.1))
  CTORCH_OPTIM_ARG(double, lr, 0)
  CTORCH_OPTIM_ARG(double, momentum, 0)
  CTORCH_OPTIM_ARG(double, dampening, 0)
  CTORCH_OPTIM_ARG(double, weight_decay, 0)
  CTORCH_OPTIM_ARG(bool, nesterov, false)
  CTORCH_OPTIM_ARG(bool, maximize, false)
};

/// Adam's and AdamW's hyper-parameters (torch.optim.Adam / AdamW; AdamW's weight_decay defaults to 1e-2).
struct AdamOptions {
  AdamOptions(double lr = 1e-3) : lr_(lr) {}  // NOLINT: implicit, as libtorch's
  CTORCH_OPTIM_ARG(double, lr, 1e-3)
  CTORCH_OPTIM_ARG(double, beta1, 0.9)
  CTORCH_OPTIM_ARG(double, beta2, 0.999)
  CTORCH_OPTIM_ARG(double, eps, 1e-8)
  CTORCH_OPTIM_ARG(double, weight_decay, 0)
  CTORCH_OPTIM_ARG(bool, amsgrad, false)
  CTORCH_OPTIM_ARG(bool, maximize, false)
  /// (beta1, beta2) at once, as libtorch's betas (`betas({0.5, 0.999})`, `betas(std::make_tuple(0.5, 0.999))`).
  AdamOptions& betas(const std::tuple<double, double>& b) {
    beta1_ = std::get<0>(b);
    beta2_ = std::get<1>(b);
    return *this;
  }
  /// (beta1, beta2).
  std::tuple<double, double> betas() const { return {beta1_, beta2_}; }
};

/// RMSprop's hyper-parameters (torch.optim.RMSprop).
struct RMSpropOptions {
  RMSpropOptions(double lr = 1e-2) : lr_(lr) {}  // NOLINT: implicit, as libtorch's
  CTORCH_OPTIM_ARG(double, lr, 1e-2)
  CTORCH_OPTIM_ARG(double, alpha, 0.99)
  CTORCH_OPTIM_ARG(double, eps, 1e-8)
  CTORCH_OPTIM_ARG(double, weight_decay, 0)
  CTORCH_OPTIM_ARG(double, momentum, 0)
  CTORCH_OPTIM_ARG(bool, centered, false)
  CTORCH_OPTIM_ARG(bool, maximize, false)
};

/// Adagrad's hyper-parameters (torch.optim.Adagrad).
struct AdagradOptions {
  AdagradOptions(double lr = 1e-2) : lr_(lr) {}  // NOLINT: implicit, as libtorch's
  CTORCH_OPTIM_ARG(double, lr, 1e-2)
  CTORCH_OPTIM_ARG(double, lr_decay, 0)
  CTORCH_OPTIM_ARG(double, weight_decay, 0)
  CTORCH_OPTIM_ARG(double, initial_accumulator_value, 0)
  CTORCH_OPTIM_ARG(double, eps, 1e-10)
  CTORCH_OPTIM_ARG(bool, maximize, false)
};

namespace detail {
/// Raises PyTorch's ValueError for an invalid SGD hyper-parameter ("Invalid learning rate: -1.0").
void validate_options(const SGDOptions& o);
/// Raises PyTorch's ValueError for an invalid Adam/AdamW hyper-parameter ("Invalid beta parameter at index 0: 1.5").
void validate_options(const AdamOptions& o);
/// Raises PyTorch's ValueError for an invalid RMSprop hyper-parameter ("Invalid alpha value: -0.5").
void validate_options(const RMSpropOptions& o);
/// Raises PyTorch's ValueError for an invalid Adagrad hyper-parameter ("Invalid lr_decay value: -1.0").
void validate_options(const AdagradOptions& o);
/// Options of other optimizers are not checked here.
template <class Options>
void validate_options(const Options&) {}

/// SGD's options as PyTorch 1.13's param_group dict (without "params").
serialization::Value options_dict(const SGDOptions& o);
/// Adam's options as PyTorch 1.13's param_group dict (without "params").
serialization::Value options_dict(const AdamOptions& o);
/// RMSprop's options as PyTorch 1.13's param_group dict (without "params").
serialization::Value options_dict(const RMSpropOptions& o);
/// Adagrad's options as PyTorch 1.13's param_group dict (without "params").
serialization::Value options_dict(const AdagradOptions& o);
/// `o` with the entries of param_group dict `d` it names (TypeError for a value of the wrong type).
SGDOptions options_from(const serialization::Value& d, SGDOptions o);
AdamOptions options_from(const serialization::Value& d, AdamOptions o);
RMSpropOptions options_from(const serialization::Value& d, RMSpropOptions o);
AdagradOptions options_from(const serialization::Value& d, AdagradOptions o);
}  // namespace detail

/// One parameter group: its tensors and its own options.
template <class Options>
struct ParamGroup {
  std::vector<Tensor> params;
  Options options;
};

/// What every optimizer offers: step, zero_grad and per-group learning rates (for schedulers).
class Optimizer {
 public:
  virtual ~Optimizer() = default;
  /// One update of every parameter that has a gradient (runs without recording history).
  virtual void step() = 0;
  /// Zeroes (or, with set_to_none, clears) every parameter's gradient; PyTorch 1.13 zeroes by default.
  void zero_grad(bool set_to_none = false);
  /// Number of parameter groups.
  virtual size_t num_groups() const = 0;
  /// The parameters of group `g`.
  virtual const std::vector<Tensor>& group_params(size_t g) const = 0;
  /// The learning rate of group `g`.
  virtual double lr(size_t g) const = 0;
  /// Sets the learning rate of group `g`.
  virtual void set_lr(size_t g, double lr) = 0;

  /// torch.optim.Optimizer.state_dict() in PyTorch 1.13's layout: {"state": {index: {name: value}},
  /// "param_groups": [{hyper-parameters..., "params": [index, ...]}]}, parameters numbered across groups.
  serialization::Value state_dict() const;
  /// Loads a state_dict() (ctorch's or PyTorch's): as many groups of the same sizes (else PyTorch's
  /// ValueError), hyper-parameters and state replaced, state tensors on each parameter's device and
  /// (floating) dtype. Everything is checked before anything changes.
  void load_state_dict(const serialization::Value& state_dict);

 protected:
  /// Per-parameter state tensors, moved to the parameter's device when the parameter moved.
  struct State {
    int64_t step = 0;
    Tensor buf1, buf2, buf3;
  };
  /// The state of `p` (created empty), on p's device.
  State& state_of(const Tensor& p);
  /// Group g's hyper-parameters as PyTorch's param_group dict, without "params".
  virtual serialization::Value group_dict(size_t g) const = 0;
  /// Checks param_group dict `d` for group g and returns what sets it (called after every check passed).
  virtual std::function<void()> group_loader(size_t g, const serialization::Value& d) = 0;
  /// A parameter's state as PyTorch names it ({"momentum_buffer": t}); None before its first step.
  virtual serialization::Value state_value(const State& s) const = 0;
  /// The state PyTorch's names describe, for parameter `p` (TypeError for a malformed entry).
  virtual State state_from(const serialization::Value& v, const Tensor& p) const = 0;

 private:
  std::unordered_map<const TensorImpl*, State> state_;
};

/// An optimizer over groups with options of type Options.
template <class Options>
class GroupedOptimizer : public Optimizer {
 public:
  /// One group of `params` with `options`.
  GroupedOptimizer(std::vector<Tensor> params, Options options) { add_param_group({std::move(params), options}); }
  /// Several groups.
  explicit GroupedOptimizer(std::vector<ParamGroup<Options>> groups) {
    for (auto& g : groups) add_param_group(std::move(g));
  }
  /// Adds a group (torch's add_param_group); a tensor in two groups, or an invalid option (PyTorch's
  /// checks and ValueError texts, applied to every group's options), is an error.
  void add_param_group(ParamGroup<Options> group) {
    detail::validate_options(group.options);
    for (const Tensor& p : group.params) {
      CTORCH_CHECK(p.defined() && p.is_leaf(), "can't optimize a non-leaf Tensor");
      for (const auto& g : groups_) {
        for (const Tensor& q : g.params) {
          CTORCH_CHECK_VALUE(!q.is_same(p), "some parameters appear in more than one parameter group");
        }
      }
    }
    groups_.push_back(std::move(group));
  }
  /// The groups (options may be edited between steps).
  std::vector<ParamGroup<Options>>& param_groups() { return groups_; }
  size_t num_groups() const override { return groups_.size(); }
  const std::vector<Tensor>& group_params(size_t g) const override { return groups_.at(g).params; }
  double lr(size_t g) const override { return groups_.at(g).options.lr(); }
  void set_lr(size_t g, double lr) override { groups_.at(g).options.lr(lr); }

 protected:
  serialization::Value group_dict(size_t g) const override { return detail::options_dict(groups_.at(g).options); }
  std::function<void()> group_loader(size_t g, const serialization::Value& d) override {
    Options o = detail::options_from(d, groups_.at(g).options);
    detail::validate_options(o);
    return [this, g, o] { groups_.at(g).options = o; };
  }

  std::vector<ParamGroup<Options>> groups_;
};

/// Stochastic gradient descent with momentum, dampening, weight decay and Nesterov.
class SGD : public GroupedOptimizer<SGDOptions> {
 public:
  using GroupedOptimizer::GroupedOptimizer;
  void step() override;

 protected:
  serialization::Value state_value(const State& s) const override;
  State state_from(const serialization::Value& v, const Tensor& p) const override;
};

/// Adam (weight decay added to the gradient).
class Adam : public GroupedOptimizer<AdamOptions> {
 public:
  using GroupedOptimizer::GroupedOptimizer;
  void step() override;

 protected:
  serialization::Value state_value(const State& s) const override;
  State state_from(const serialization::Value& v, const Tensor& p) const override;
};

/// AdamW (decoupled weight decay; PyTorch's default weight_decay 1e-2 when constructed with defaults()).
class AdamW : public Adam {
 public:
  using Adam::Adam;
  /// AdamW's defaults: lr 1e-3, weight_decay 1e-2.
  static AdamOptions defaults() { return AdamOptions(1e-3).weight_decay(1e-2); }
  void step() override;

 protected:
  serialization::Value group_dict(size_t g) const override;  // 1.13's AdamW has no differentiable/fused
};

/// RMSprop, plain or centered, with momentum.
class RMSprop : public GroupedOptimizer<RMSpropOptions> {
 public:
  using GroupedOptimizer::GroupedOptimizer;
  void step() override;

 protected:
  serialization::Value state_value(const State& s) const override;
  State state_from(const serialization::Value& v, const Tensor& p) const override;
};

/// Adagrad: per-parameter sums of squared gradients, created (at initial_accumulator_value) with the group.
class Adagrad : public GroupedOptimizer<AdagradOptions> {
 public:
  /// One group.
  Adagrad(std::vector<Tensor> params, AdagradOptions options);
  /// Several groups.
  explicit Adagrad(std::vector<ParamGroup<AdagradOptions>> groups);
  void step() override;

 protected:
  serialization::Value state_value(const State& s) const override;
  State state_from(const serialization::Value& v, const Tensor& p) const override;

 private:
  void init_state();
};

/// A learning-rate schedule over an optimizer's groups (torch.optim.lr_scheduler).
class LRScheduler {
 public:
  /// Remembers the initial learning rates (last_epoch = 0).
  explicit LRScheduler(Optimizer& optimizer);
  virtual ~LRScheduler() = default;
  /// Advances one epoch and sets the new rates.
  void step();
  /// The rates set by the last step (get_last_lr()).
  const std::vector<double>& get_last_lr() const { return last_lr_; }
  /// Epochs stepped so far.
  int64_t last_epoch() const { return last_epoch_; }

 protected:
  /// The rate of group g at last_epoch_ given its current rate (PyTorch's get_lr).
  virtual double compute_lr(size_t g, double current) const = 0;

  Optimizer& optimizer_;
  std::vector<double> base_lrs_;
  int64_t last_epoch_ = 0;
  std::vector<double> last_lr_;
};

/// Multiplies the rate by gamma every step_size epochs (StepLR).
class StepLR : public LRScheduler {
 public:
  StepLR(Optimizer& optimizer, int64_t step_size, double gamma = 0.1);

 protected:
  double compute_lr(size_t g, double current) const override;

 private:
  int64_t step_size_;
  double gamma_;
};

/// Cosine annealing from the base rate to eta_min over T_max epochs (CosineAnnealingLR).
class CosineAnnealingLR : public LRScheduler {
 public:
  CosineAnnealingLR(Optimizer& optimizer, int64_t T_max, double eta_min = 0);

 protected:
  double compute_lr(size_t g, double current) const override;

 private:
  int64_t t_max_;
  double eta_min_;
};

/// base_lr * lambda(epoch) (LambdaLR).
class LambdaLR : public LRScheduler {
 public:
  LambdaLR(Optimizer& optimizer, std::function<double(int64_t)> lr_lambda);

 protected:
  double compute_lr(size_t g, double current) const override;

 private:
  std::function<double(int64_t)> lambda_;
};

}  // namespace ctorch::optim
