// libtorch 1.13's torch::optim: Optimizer with OptimizerParamGroup (per-group options through
// OptimizerOptions), state() keyed by each parameter's TensorImpl address, typed param states,
// step(closure), save/load through torch::serialize archives (and the pre-1.5 layouts), and
// StepLR. Each optimizer steps through ctorch's update rules (ctorch/optim_functional.h,
// ctorch/optim_lbfgs.h); its options convert to the native ones with native().
#pragma once

#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "ctorch/libtorch/arg.h"
#include "ctorch/libtorch/core.h"
#include "ctorch/libtorch/serialize_archive.h"
#include "ctorch/optim_functional.h"
#include "ctorch/optim_lbfgs.h"

namespace ska {
/// libtorch's flat_hash_map (c10/util/flat_hash_map.h): a std::unordered_map here.
template <class K, class V, class H = std::hash<K>, class E = std::equal_to<K>,
          class A = std::allocator<std::pair<const K, V>>>
using flat_hash_map = std::unordered_map<K, V, H, E, A>;
}  // namespace ska

namespace c10::guts {
/// The printed form of `value` (c10::guts::to_string; a pointer prints as its address).
template <class T>
std::string to_string(const T& value) {
  std::ostringstream os;
  os << value;
  return os.str();
}
}  // namespace c10::guts

namespace torch::optim {

/// A parameter's optimizer state; subclasses hold the fields (libtorch's OptimizerParamState).
class OptimizerParamState {
 public:
  virtual ~OptimizerParamState() = default;
  /// A copy (OptimizerCloneableParamState provides it).
  virtual std::unique_ptr<OptimizerParamState> clone() const;
  /// Reads the fields from `archive`.
  virtual void serialize(serialize::InputArchive& archive);
  /// Writes the fields to `archive` (undefined tensors are skipped, as missing keys in Python).
  virtual void serialize(serialize::OutputArchive& archive) const;
};

/// OptimizerParamState with clone() by copy.
template <class Derived>
class OptimizerCloneableParamState : public OptimizerParamState {
 public:
  std::unique_ptr<OptimizerParamState> clone() const override {
    return std::make_unique<Derived>(static_cast<const Derived&>(*this));
  }
};

/// A group's hyper-parameters; subclasses hold them (libtorch's OptimizerOptions).
class OptimizerOptions {
 public:
  virtual ~OptimizerOptions() = default;
  /// A copy (OptimizerCloneableOptions provides it).
  virtual std::unique_ptr<OptimizerOptions> clone() const;
  /// Reads the options from `archive`.
  virtual void serialize(serialize::InputArchive& archive);
  /// Writes the options to `archive`.
  virtual void serialize(serialize::OutputArchive& archive) const;
  /// The learning rate (schedulers use it).
  virtual double get_lr() const;
  /// Sets the learning rate.
  virtual void set_lr(double lr);
};

/// OptimizerOptions with clone() by copy.
template <class Derived>
class OptimizerCloneableOptions : public OptimizerOptions {
 private:
  std::unique_ptr<OptimizerOptions> clone() const override {
    return std::make_unique<Derived>(static_cast<const Derived&>(*this));
  }
};

/// Parameters with their own options (none: the optimizer's defaults are used when added).
class OptimizerParamGroup {
 public:
  /// A deep copy of the options.
  OptimizerParamGroup(const OptimizerParamGroup& other)
      : params_(other.params()), options_(other.has_options() ? other.options().clone() : nullptr) {}
  OptimizerParamGroup(OptimizerParamGroup&&) = default;
  OptimizerParamGroup& operator=(const OptimizerParamGroup& other);
  OptimizerParamGroup& operator=(OptimizerParamGroup&&) = default;
  /// Parameters that take the optimizer's defaults.
  OptimizerParamGroup(std::vector<Tensor> params) : params_(std::move(params)) {}  // NOLINT: implicit, as libtorch's
  /// Parameters with their own options.
  OptimizerParamGroup(std::vector<Tensor> params, std::unique_ptr<OptimizerOptions> options)
      : params_(std::move(params)), options_(std::move(options)) {}
  /// True when options were set.
  bool has_options() const { return options_ != nullptr; }
  /// The options (an error when none were set).
  OptimizerOptions& options();
  const OptimizerOptions& options() const;
  /// Replaces the options.
  void set_options(std::unique_ptr<OptimizerOptions> options) { options_ = std::move(options); }
  /// The parameters.
  std::vector<Tensor>& params() { return params_; }
  const std::vector<Tensor>& params() const { return params_; }

 protected:
  std::vector<Tensor> params_;
  std::unique_ptr<OptimizerOptions> options_;
};

/// libtorch's optimizer base: parameter groups, defaults and per-parameter state.
class Optimizer {
 public:
  Optimizer(const Optimizer&) = delete;
  Optimizer(Optimizer&&) = default;
  /// The groups (each without options takes a copy of `defaults`).
  explicit Optimizer(std::vector<OptimizerParamGroup> param_groups, std::unique_ptr<OptimizerOptions> defaults);
  /// One group of `parameters`.
  explicit Optimizer(std::vector<Tensor> parameters, std::unique_ptr<OptimizerOptions> defaults)
      : Optimizer(std::vector<OptimizerParamGroup>{OptimizerParamGroup(std::move(parameters))}, std::move(defaults)) {}
  virtual ~Optimizer() = default;

  /// What step() may call to re-evaluate the loss.
  using LossClosure = std::function<Tensor()>;
  /// One update; returns the closure's loss (undefined without a closure).
  virtual Tensor step(LossClosure closure = nullptr) = 0;
  /// Adds a group ("some parameters appear in more than one parameter group" for a parameter with state).
  void add_param_group(const OptimizerParamGroup& param_group);
  /// Appends parameters to the first group (deprecated: warns "will be removed").
  void add_parameters(const std::vector<Tensor>& parameters);
  /// Zeroes every defined gradient.
  void zero_grad();
  /// The first group's parameters (deprecated: warns "will be removed").
  const std::vector<Tensor>& parameters() const noexcept;
  std::vector<Tensor>& parameters() noexcept;
  /// The number of parameters over all groups (deprecated: warns "will be removed").
  size_t size() const noexcept;
  /// The default options.
  OptimizerOptions& defaults() noexcept { return *defaults_; }
  const OptimizerOptions& defaults() const noexcept { return *defaults_; }
  /// The parameter groups.
  std::vector<OptimizerParamGroup>& param_groups() noexcept { return param_groups_; }
  const std::vector<OptimizerParamGroup>& param_groups() const noexcept { return param_groups_; }
  /// Per-parameter state, keyed by c10::guts::to_string(param.unsafeGetTensorImpl()).
  ska::flat_hash_map<std::string, std::unique_ptr<OptimizerParamState>>& state() noexcept { return state_; }
  const ska::flat_hash_map<std::string, std::unique_ptr<OptimizerParamState>>& state() const noexcept { return state_; }
  /// Writes the state and groups to `archive`.
  virtual void save(serialize::OutputArchive& archive) const;
  /// Reads what save() wrote.
  virtual void load(serialize::InputArchive& archive);

 protected:
  std::vector<OptimizerParamGroup> param_groups_;
  ska::flat_hash_map<std::string, std::unique_ptr<OptimizerParamState>> state_;
  std::unique_ptr<OptimizerOptions> defaults_;
};

/// optimizer.save(archive).
serialize::OutputArchive& operator<<(serialize::OutputArchive& archive, const Optimizer& optimizer);
/// optimizer.load(archive).
serialize::InputArchive& operator>>(serialize::InputArchive& archive, Optimizer& optimizer);

namespace detail {
/// The state key of `param` (its TensorImpl's address).
inline std::string param_key(const Tensor& param) { return c10::guts::to_string(param.unsafeGetTensorImpl()); }
/// Saves `optimizer` in libtorch 1.13's layout (each state's and group options' serialize()).
void save_optimizer_impl(const Optimizer& optimizer, serialize::OutputArchive& archive);
/// Loads libtorch 1.13's layout (states and options made by the factories); false when the archive has no "pytorch_version" (the pre-1.5 layout).
bool load_optimizer(Optimizer& optimizer, serialize::InputArchive& archive,
                    const std::function<std::unique_ptr<OptimizerParamState>()>& make_state,
                    const std::function<std::unique_ptr<OptimizerOptions>()>& make_options);
/// Reads the pre-1.5 buffer list `key` ("key/size", "key/0", ...); empty when absent.
std::vector<Tensor> read_buffers(serialize::InputArchive& archive, const std::string& key);
/// Warns that the archive uses the old serialization format.
void warn_old_format(const char* optimizer);
}  // namespace detail

// ---- SGD ------------------------------------------------------------------------------------

/// SGD's options (libtorch's SGDOptions).
struct SGDOptions : public OptimizerCloneableOptions<SGDOptions> {
  SGDOptions(double lr);  // NOLINT: implicit, as libtorch's
  TORCH_ARG(double, lr);
  TORCH_ARG(double, momentum) = 0;
  TORCH_ARG(double, dampening) = 0;
  TORCH_ARG(double, weight_decay) = 0;
  TORCH_ARG(bool, nesterov) = false;

 public:
  void serialize(serialize::InputArchive& archive) override;
  void serialize(serialize::OutputArchive& archive) const override;
  friend bool operator==(const SGDOptions& lhs, const SGDOptions& rhs);
  double get_lr() const override { return lr(); }
  void set_lr(double lr) override { this->lr(lr); }
  /// The native options.
  ::ctorch::optim::SGDOptions native() const;
};

/// SGD's per-parameter state.
struct SGDParamState : public OptimizerCloneableParamState<SGDParamState> {
  TORCH_ARG(Tensor, momentum_buffer);

 public:
  void serialize(serialize::InputArchive& archive) override;
  void serialize(serialize::OutputArchive& archive) const override;
  friend bool operator==(const SGDParamState& lhs, const SGDParamState& rhs);
};

/// libtorch's SGD over ctorch::optim::functional::sgd.
class SGD : public Optimizer {
 public:
  explicit SGD(std::vector<OptimizerParamGroup> param_groups, SGDOptions defaults);
  explicit SGD(std::vector<Tensor> params, SGDOptions defaults)
      : SGD(std::vector<OptimizerParamGroup>{OptimizerParamGroup(std::move(params))}, defaults) {}
  Tensor step(LossClosure closure = nullptr) override;
  void save(serialize::OutputArchive& archive) const override;
  void load(serialize::InputArchive& archive) override;
};

// ---- Adam and AdamW -------------------------------------------------------------------------

/// Adam's options (libtorch's AdamOptions).
struct AdamOptions : public OptimizerCloneableOptions<AdamOptions> {
  AdamOptions(double lr = 1e-3);  // NOLINT: implicit, as libtorch's
  TORCH_ARG(double, lr) = 1e-3;
  typedef std::tuple<double, double> betas_t;
  TORCH_ARG(betas_t, betas) = std::make_tuple(0.9, 0.999);
  TORCH_ARG(double, eps) = 1e-8;
  TORCH_ARG(double, weight_decay) = 0;
  TORCH_ARG(bool, amsgrad) = false;

 public:
  void serialize(serialize::InputArchive& archive) override;
  void serialize(serialize::OutputArchive& archive) const override;
  friend bool operator==(const AdamOptions& lhs, const AdamOptions& rhs);
  double get_lr() const override { return lr(); }
  void set_lr(double lr) override { this->lr(lr); }
  /// The native options.
  ::ctorch::optim::AdamOptions native() const;
};

/// Adam's per-parameter state.
struct AdamParamState : public OptimizerCloneableParamState<AdamParamState> {
  TORCH_ARG(int64_t, step) = 0;
  TORCH_ARG(Tensor, exp_avg);
  TORCH_ARG(Tensor, exp_avg_sq);
  TORCH_ARG(Tensor, max_exp_avg_sq) = {};

 public:
  void serialize(serialize::InputArchive& archive) override;
  void serialize(serialize::OutputArchive& archive) const override;
  friend bool operator==(const AdamParamState& lhs, const AdamParamState& rhs);
};

/// libtorch's Adam over ctorch::optim::functional::adam.
class Adam : public Optimizer {
 public:
  explicit Adam(std::vector<OptimizerParamGroup> param_groups, AdamOptions defaults = {});
  explicit Adam(std::vector<Tensor> params, AdamOptions defaults = {})
      : Adam(std::vector<OptimizerParamGroup>{OptimizerParamGroup(std::move(params))}, defaults) {}
  Tensor step(LossClosure closure = nullptr) override;
  void save(serialize::OutputArchive& archive) const override;
  void load(serialize::InputArchive& archive) override;
};

/// AdamW's options (libtorch's AdamWOptions: weight_decay defaults to 1e-2).
struct AdamWOptions : public OptimizerCloneableOptions<AdamWOptions> {
  AdamWOptions(double lr = 1e-3);  // NOLINT: implicit, as libtorch's
  TORCH_ARG(double, lr) = 1e-3;
  typedef std::tuple<double, double> betas_t;
  TORCH_ARG(betas_t, betas) = std::make_tuple(0.9, 0.999);
  TORCH_ARG(double, eps) = 1e-8;
  TORCH_ARG(double, weight_decay) = 1e-2;
  TORCH_ARG(bool, amsgrad) = false;

 public:
  void serialize(serialize::InputArchive& archive) override;
  void serialize(serialize::OutputArchive& archive) const override;
  friend bool operator==(const AdamWOptions& lhs, const AdamWOptions& rhs);
  double get_lr() const override { return lr(); }
  void set_lr(double lr) override { this->lr(lr); }
  /// The native options.
  ::ctorch::optim::AdamOptions native() const;
};

/// AdamW's per-parameter state.
struct AdamWParamState : public OptimizerCloneableParamState<AdamWParamState> {
  TORCH_ARG(int64_t, step) = 0;
  TORCH_ARG(Tensor, exp_avg);
  TORCH_ARG(Tensor, exp_avg_sq);
  TORCH_ARG(Tensor, max_exp_avg_sq) = {};

 public:
  void serialize(serialize::InputArchive& archive) override;
  void serialize(serialize::OutputArchive& archive) const override;
  friend bool operator==(const AdamWParamState& lhs, const AdamWParamState& rhs);
};

/// libtorch's AdamW over ctorch::optim::functional::adamw.
class AdamW : public Optimizer {
 public:
  explicit AdamW(std::vector<OptimizerParamGroup> param_groups, AdamWOptions defaults = {});
  explicit AdamW(std::vector<Tensor> params, AdamWOptions defaults = {})
      : AdamW(std::vector<OptimizerParamGroup>{OptimizerParamGroup(std::move(params))}, defaults) {}
  Tensor step(LossClosure closure = nullptr) override;
  void save(serialize::OutputArchive& archive) const override;
  void load(serialize::InputArchive& archive) override;
};

// ---- Adagrad --------------------------------------------------------------------------------

/// Adagrad's options (libtorch's AdagradOptions).
struct AdagradOptions : public OptimizerCloneableOptions<AdagradOptions> {
  AdagradOptions(double lr = 1e-2);  // NOLINT: implicit, as libtorch's
  TORCH_ARG(double, lr) = 1e-2;
  TORCH_ARG(double, lr_decay) = 0;
  TORCH_ARG(double, weight_decay) = 0;
  TORCH_ARG(double, initial_accumulator_value) = 0;
  TORCH_ARG(double, eps) = 1e-10;

 public:
  void serialize(serialize::InputArchive& archive) override;
  void serialize(serialize::OutputArchive& archive) const override;
  friend bool operator==(const AdagradOptions& lhs, const AdagradOptions& rhs);
  double get_lr() const override { return lr(); }
  void set_lr(double lr) override { this->lr(lr); }
  /// The native options.
  ::ctorch::optim::AdagradOptions native() const;
};

/// Adagrad's per-parameter state (made for every parameter by the constructor).
struct AdagradParamState : public OptimizerCloneableParamState<AdagradParamState> {
  TORCH_ARG(Tensor, sum);
  TORCH_ARG(int64_t, step) = 0;

 public:
  void serialize(serialize::InputArchive& archive) override;
  void serialize(serialize::OutputArchive& archive) const override;
  friend bool operator==(const AdagradParamState& lhs, const AdagradParamState& rhs);
};

/// libtorch's Adagrad over ctorch::optim::functional::adagrad.
class Adagrad : public Optimizer {
 public:
  explicit Adagrad(std::vector<OptimizerParamGroup> param_groups, AdagradOptions defaults = {});
  explicit Adagrad(std::vector<Tensor> params, AdagradOptions defaults = {})
      : Adagrad(std::vector<OptimizerParamGroup>{OptimizerParamGroup(std::move(params))}, defaults) {}
  Tensor step(LossClosure closure = nullptr) override;
  void save(serialize::OutputArchive& archive) const override;
  void load(serialize::InputArchive& archive) override;
};

// ---- RMSprop --------------------------------------------------------------------------------

/// RMSprop's options (libtorch's RMSpropOptions).
struct RMSpropOptions : public OptimizerCloneableOptions<RMSpropOptions> {
  RMSpropOptions(double lr = 1e-2);  // NOLINT: implicit, as libtorch's
  TORCH_ARG(double, lr) = 1e-2;
  TORCH_ARG(double, alpha) = 0.99;
  TORCH_ARG(double, eps) = 1e-8;
  TORCH_ARG(double, weight_decay) = 0;
  TORCH_ARG(double, momentum) = 0;
  TORCH_ARG(bool, centered) = false;

 public:
  void serialize(serialize::InputArchive& archive) override;
  void serialize(serialize::OutputArchive& archive) const override;
  friend bool operator==(const RMSpropOptions& lhs, const RMSpropOptions& rhs);
  double get_lr() const override { return lr(); }
  void set_lr(double lr) override { this->lr(lr); }
  /// The native options.
  ::ctorch::optim::RMSpropOptions native() const;
};

/// RMSprop's per-parameter state.
struct RMSpropParamState : public OptimizerCloneableParamState<RMSpropParamState> {
  TORCH_ARG(int64_t, step) = 0;
  TORCH_ARG(Tensor, square_avg);
  TORCH_ARG(Tensor, momentum_buffer) = {};
  TORCH_ARG(Tensor, grad_avg) = {};

 public:
  void serialize(serialize::InputArchive& archive) override;
  void serialize(serialize::OutputArchive& archive) const override;
  friend bool operator==(const RMSpropParamState& lhs, const RMSpropParamState& rhs);
};

/// libtorch's RMSprop over ctorch::optim::functional::rmsprop.
class RMSprop : public Optimizer {
 public:
  explicit RMSprop(std::vector<OptimizerParamGroup> param_groups, RMSpropOptions defaults = {});
  explicit RMSprop(std::vector<Tensor> params, RMSpropOptions defaults = {})
      : RMSprop(std::vector<OptimizerParamGroup>{OptimizerParamGroup(std::move(params))}, defaults) {}
  Tensor step(LossClosure closure = nullptr) override;
  void save(serialize::OutputArchive& archive) const override;
  void load(serialize::InputArchive& archive) override;
};

}  // namespace torch::optim

#include "ctorch/libtorch/optim_lbfgs.h"  // IWYU pragma: export
#include "ctorch/libtorch/optim_schedulers.h"  // IWYU pragma: export
