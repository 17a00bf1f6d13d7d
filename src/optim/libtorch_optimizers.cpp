// libtorch's SGD, Adam, AdamW, Adagrad and RMSprop (ctorch/libtorch/optim.h): options, states and
// their archives, step(closure) over ctorch::optim::functional, and the pre-1.5 archive layouts.
#include "ctorch/factories.h"
#include "ctorch/grad_mode.h"
#include "ctorch/torch.h"

namespace torch::optim {

using ::ctorch::IValue;

namespace {

void put(serialize::OutputArchive& a, const char* key, const IValue& v) { a.write(key, v); }
void put(serialize::OutputArchive& a, const char* key, const Tensor& t) {
  if (t.defined()) a.write(key, t, /*is_buffer=*/true);  // undefined: a missing key, as in Python
}
void get(serialize::InputArchive& a, const char* key, double& v) {
  IValue x;
  if (a.try_read(key, x)) v = x.to_double();
}
void get(serialize::InputArchive& a, const char* key, int64_t& v) {
  IValue x;
  if (a.try_read(key, x)) v = x.to_int();
}
void get(serialize::InputArchive& a, const char* key, bool& v) {
  IValue x;
  if (a.try_read(key, x)) v = x.to_bool();
}
void get(serialize::InputArchive& a, const char* key, Tensor& t) {
  t = Tensor();
  a.try_read(key, t, /*is_buffer=*/true);
}
void put_betas(serialize::OutputArchive& a, const std::tuple<double, double>& b) {
  a.write("betas", IValue::tuple({std::get<0>(b), std::get<1>(b)}));
}
void get_betas(serialize::InputArchive& a, std::tuple<double, double>& b) {
  IValue x;
  if (a.try_read("betas", x)) b = {x.elements().at(0).to_double(), x.elements().at(1).to_double()};
}

bool equal_if_defined(const Tensor& a, const Tensor& b) {
  if (!a.defined() || !b.defined()) return a.defined() == b.defined();
  return a.equal(b);
}

// Runs `closure` with grad enabled (libtorch's step: the update itself runs without).
Tensor run_closure(const Optimizer::LossClosure& closure) {
  if (closure == nullptr) return {};
  ::ctorch::EnableGradGuard grad;
  return closure();
}

template <class S>
S& state_for(Optimizer& o, const Tensor& p) {
  auto& slot = o.state()[detail::param_key(p)];
  if (!slot) slot = std::make_unique<S>();
  return static_cast<S&>(*slot);
}

// The pre-1.5 layout's step buffers (tensors holding ints).
std::vector<int64_t> read_steps(serialize::InputArchive& a, const std::string& key) {
  std::vector<int64_t> out;
  for (const Tensor& t : detail::read_buffers(a, key)) out.push_back(t.item<int64_t>());
  return out;
}

}  // namespace

// ---- SGD ------------------------------------------------------------------------------------

SGDOptions::SGDOptions(double lr) : lr_(lr) {}
void SGDOptions::serialize(serialize::OutputArchive& a) const {
  put(a, "lr", lr()), put(a, "momentum", momentum()), put(a, "dampening", dampening());
  put(a, "weight_decay", weight_decay()), put(a, "nesterov", nesterov());
}
void SGDOptions::serialize(serialize::InputArchive& a) {
  get(a, "lr", lr_), get(a, "momentum", momentum_), get(a, "dampening", dampening_);
  get(a, "weight_decay", weight_decay_), get(a, "nesterov", nesterov_);
}
bool operator==(const SGDOptions& l, const SGDOptions& r) {
  return l.lr() == r.lr() && l.momentum() == r.momentum() && l.dampening() == r.dampening() &&
         l.weight_decay() == r.weight_decay() && l.nesterov() == r.nesterov();
}
::ctorch::optim::SGDOptions SGDOptions::native() const {
  return ::ctorch::optim::SGDOptions(lr()).momentum(momentum()).dampening(dampening()).weight_decay(weight_decay()).nesterov(nesterov());
}
void SGDParamState::serialize(serialize::OutputArchive& a) const { put(a, "momentum_buffer", momentum_buffer()); }
void SGDParamState::serialize(serialize::InputArchive& a) { get(a, "momentum_buffer", momentum_buffer_); }
bool operator==(const SGDParamState& l, const SGDParamState& r) { return l.momentum_buffer().equal(r.momentum_buffer()); }

SGD::SGD(std::vector<OptimizerParamGroup> param_groups, SGDOptions defaults)
    : Optimizer(std::move(param_groups), std::make_unique<SGDOptions>(defaults)) {
  ::ctorch::optim::detail::validate_options(defaults.native());
}

Tensor SGD::step(LossClosure closure) {
  ::ctorch::NoGradGuard no_grad;
  Tensor loss = run_closure(closure);
  for (auto& group : param_groups_) {
    const auto options = static_cast<SGDOptions&>(group.options()).native();
    for (auto& p : group.params()) {
      if (!p.grad().defined()) continue;
      Tensor none;
      Tensor& buf = options.momentum() != 0 ? state_for<SGDParamState>(*this, p).momentum_buffer() : none;
      ::ctorch::optim::functional::sgd(p, p.grad(), buf, options);
    }
  }
  return loss;
}

void SGD::save(serialize::OutputArchive& archive) const { detail::save_optimizer_impl(*this, archive); }

void SGD::load(serialize::InputArchive& archive) {
  if (detail::load_optimizer(*this, archive, [] { return std::make_unique<SGDParamState>(); },
                             [] { return std::make_unique<SGDOptions>(0); })) {
    return;
  }
  detail::warn_old_format("SGD");
  const std::vector<Tensor> buffers = detail::read_buffers(archive, "momentum_buffers");
  const auto& params = param_groups_.at(0).params();
  for (size_t i = 0; i < buffers.size() && i < params.size(); ++i) {
    auto state = std::make_unique<SGDParamState>();
    state->momentum_buffer(buffers[i]);
    state_[detail::param_key(params[i])] = std::move(state);
  }
}

// ---- Adam and AdamW -------------------------------------------------------------------------

namespace {
template <class State>
void adam_state_out(const State& s, serialize::OutputArchive& a) {
  put(a, "step", IValue(s.step())), put(a, "exp_avg", s.exp_avg()), put(a, "exp_avg_sq", s.exp_avg_sq());
  put(a, "max_exp_avg_sq", s.max_exp_avg_sq());
}
template <class State>
bool adam_state_equal(const State& l, const State& r) {
  return l.step() == r.step() && equal_if_defined(l.exp_avg(), r.exp_avg()) &&
         equal_if_defined(l.exp_avg_sq(), r.exp_avg_sq()) && equal_if_defined(l.max_exp_avg_sq(), r.max_exp_avg_sq());
}
template <class Options>
bool adam_options_equal(const Options& l, const Options& r) {
  return l.lr() == r.lr() && l.betas() == r.betas() && l.eps() == r.eps() && l.weight_decay() == r.weight_decay() &&
         l.amsgrad() == r.amsgrad();
}
template <class Options>
::ctorch::optim::AdamOptions adam_native(const Options& o) {
  return ::ctorch::optim::AdamOptions(o.lr()).betas(o.betas()).eps(o.eps()).weight_decay(o.weight_decay()).amsgrad(o.amsgrad());
}
// The pre-1.5 Adam/AdamW layout.
template <class State>
void adam_load_old(Optimizer& o, serialize::InputArchive& a) {
  const auto steps = read_steps(a, "step_buffers");
  const auto exp_avg = detail::read_buffers(a, "exp_average_buffers");
  const auto exp_avg_sq = detail::read_buffers(a, "exp_average_sq_buffers");
  const auto max_exp_avg_sq = detail::read_buffers(a, "max_exp_average_sq_buffers");
  const auto& params = o.param_groups().at(0).params();
  for (size_t i = 0; i < steps.size() && i < params.size(); ++i) {
    auto state = std::make_unique<State>();
    state->step(steps.at(i));
    state->exp_avg(exp_avg.at(i));
    state->exp_avg_sq(exp_avg_sq.at(i));
    if (i < max_exp_avg_sq.size()) state->max_exp_avg_sq(max_exp_avg_sq.at(i));
    o.state()[detail::param_key(params[i])] = std::move(state);
  }
}
}  // namespace

AdamOptions::AdamOptions(double lr) : lr_(lr) {}
void AdamOptions::serialize(serialize::OutputArchive& a) const {
  put(a, "lr", lr()), put_betas(a, betas()), put(a, "eps", eps()), put(a, "weight_decay", weight_decay());
  put(a, "amsgrad", amsgrad());
}
void AdamOptions::serialize(serialize::InputArchive& a) {
  get(a, "lr", lr_), get_betas(a, betas_), get(a, "eps", eps_), get(a, "weight_decay", weight_decay_);
  get(a, "amsgrad", amsgrad_);
}
bool operator==(const AdamOptions& l, const AdamOptions& r) { return adam_options_equal(l, r); }
::ctorch::optim::AdamOptions AdamOptions::native() const { return adam_native(*this); }
void AdamParamState::serialize(serialize::OutputArchive& a) const { adam_state_out(*this, a); }
void AdamParamState::serialize(serialize::InputArchive& a) {
  get(a, "step", step_), get(a, "exp_avg", exp_avg_), get(a, "exp_avg_sq", exp_avg_sq_);
  get(a, "max_exp_avg_sq", max_exp_avg_sq_);
}
bool operator==(const AdamParamState& l, const AdamParamState& r) { return adam_state_equal(l, r); }

Adam::Adam(std::vector<OptimizerParamGroup> param_groups, AdamOptions defaults)
    : Optimizer(std::move(param_groups), std::make_unique<AdamOptions>(defaults)) {
  ::ctorch::optim::detail::validate_options(defaults.native());
}

Tensor Adam::step(LossClosure closure) {
  ::ctorch::NoGradGuard no_grad;
  Tensor loss = run_closure(closure);
  for (auto& group : param_groups_) {
    const auto options = static_cast<AdamOptions&>(group.options()).native();
    for (auto& p : group.params()) {
      if (!p.grad().defined()) continue;
      auto& s = state_for<AdamParamState>(*this, p);
      s.step(s.step() + 1);
      ::ctorch::optim::functional::adam(p, p.grad(), s.exp_avg(), s.exp_avg_sq(), s.max_exp_avg_sq(), s.step(), options);
    }
  }
  return loss;
}

void Adam::save(serialize::OutputArchive& archive) const { detail::save_optimizer_impl(*this, archive); }

void Adam::load(serialize::InputArchive& archive) {
  if (detail::load_optimizer(*this, archive, [] { return std::make_unique<AdamParamState>(); },
                             [] { return std::make_unique<AdamOptions>(); })) {
    return;
  }
  detail::warn_old_format("Adam");
  adam_load_old<AdamParamState>(*this, archive);
}

AdamWOptions::AdamWOptions(double lr) : lr_(lr) {}
void AdamWOptions::serialize(serialize::OutputArchive& a) const {
  put(a, "lr", lr()), put_betas(a, betas()), put(a, "eps", eps()), put(a, "weight_decay", weight_decay());
  put(a, "amsgrad", amsgrad());
}
void AdamWOptions::serialize(serialize::InputArchive& a) {
  get(a, "lr", lr_), get_betas(a, betas_), get(a, "eps", eps_), get(a, "weight_decay", weight_decay_);
  get(a, "amsgrad", amsgrad_);
}
bool operator==(const AdamWOptions& l, const AdamWOptions& r) { return adam_options_equal(l, r); }
::ctorch::optim::AdamOptions AdamWOptions::native() const { return adam_native(*this); }
void AdamWParamState::serialize(serialize::OutputArchive& a) const { adam_state_out(*this, a); }
void AdamWParamState::serialize(serialize::InputArchive& a) {
  get(a, "step", step_), get(a, "exp_avg", exp_avg_), get(a, "exp_avg_sq", exp_avg_sq_);
  get(a, "max_exp_avg_sq", max_exp_avg_sq_);
}
bool operator==(const AdamWParamState& l, const AdamWParamState& r) { return adam_state_equal(l, r); }

AdamW::AdamW(std::vector<OptimizerParamGroup> param_groups, AdamWOptions defaults)
    : Optimizer(std::move(param_groups), std::make_unique<AdamWOptions>(defaults)) {
  ::ctorch::optim::detail::validate_options(defaults.native());
}

Tensor AdamW::step(LossClosure closure) {
  ::ctorch::NoGradGuard no_grad;
  Tensor loss = run_closure(closure);
  for (auto& group : param_groups_) {
    const auto options = static_cast<AdamWOptions&>(group.options()).native();
    for (auto& p : group.params()) {
      if (!p.grad().defined()) continue;
      auto& s = state_for<AdamWParamState>(*this, p);
      s.step(s.step() + 1);
      ::ctorch::optim::functional::adamw(p, p.grad(), s.exp_avg(), s.exp_avg_sq(), s.max_exp_avg_sq(), s.step(), options);
    }
  }
  return loss;
}

void AdamW::save(serialize::OutputArchive& archive) const { detail::save_optimizer_impl(*this, archive); }

void AdamW::load(serialize::InputArchive& archive) {
  if (detail::load_optimizer(*this, archive, [] { return std::make_unique<AdamWParamState>(); },
                             [] { return std::make_unique<AdamWOptions>(); })) {
    return;
  }
  detail::warn_old_format("AdamW");
  adam_load_old<AdamWParamState>(*this, archive);
}

// ---- Adagrad --------------------------------------------------------------------------------

AdagradOptions::AdagradOptions(double lr) : lr_(lr) {}
void AdagradOptions::serialize(serialize::OutputArchive& a) const {
  put(a, "lr", lr()), put(a, "lr_decay", lr_decay()), put(a, "weight_decay", weight_decay());
  put(a, "initial_accumulator_value", initial_accumulator_value()), put(a, "eps", eps());
}
void AdagradOptions::serialize(serialize::InputArchive& a) {
  get(a, "lr", lr_), get(a, "lr_decay", lr_decay_), get(a, "weight_decay", weight_decay_);
  get(a, "initial_accumulator_value", initial_accumulator_value_), get(a, "eps", eps_);
}
bool operator==(const AdagradOptions& l, const AdagradOptions& r) {
  return l.lr() == r.lr() && l.lr_decay() == r.lr_decay() && l.weight_decay() == r.weight_decay() &&
         l.initial_accumulator_value() == r.initial_accumulator_value() && l.eps() == r.eps();
}
::ctorch::optim::AdagradOptions AdagradOptions::native() const {
  return ::ctorch::optim::AdagradOptions(lr()).lr_decay(lr_decay()).weight_decay(weight_decay())
      .initial_accumulator_value(initial_accumulator_value()).eps(eps());
}
void AdagradParamState::serialize(serialize::OutputArchive& a) const { put(a, "sum", sum()), put(a, "step", IValue(step())); }
void AdagradParamState::serialize(serialize::InputArchive& a) { get(a, "sum", sum_), get(a, "step", step_); }
bool operator==(const AdagradParamState& l, const AdagradParamState& r) {
  return l.step() == r.step() && equal_if_defined(l.sum(), r.sum());
}

Adagrad::Adagrad(std::vector<OptimizerParamGroup> param_groups, AdagradOptions defaults)
    : Optimizer(std::move(param_groups), std::make_unique<AdagradOptions>(defaults)) {
  ::ctorch::optim::detail::validate_options(defaults.native());
  ::ctorch::NoGradGuard no_grad;
  for (const auto& group : param_groups_) {
    for (const auto& p : group.params()) {
      auto state = std::make_unique<AdagradParamState>();
      state->step(0);
      state->sum(::ctorch::full_like(p.detach(), defaults.initial_accumulator_value()));
      state_[detail::param_key(p)] = std::move(state);
    }
  }
}

Tensor Adagrad::step(LossClosure closure) {
  ::ctorch::NoGradGuard no_grad;
  Tensor loss = run_closure(closure);
  for (auto& group : param_groups_) {
    const auto options = static_cast<AdagradOptions&>(group.options()).native();
    for (auto& p : group.params()) {
      if (!p.grad().defined()) continue;
      auto& s = state_for<AdagradParamState>(*this, p);
      s.step(s.step() + 1);
      ::ctorch::optim::functional::adagrad(p, p.grad(), s.sum(), s.step(), options);
    }
  }
  return loss;
}

void Adagrad::save(serialize::OutputArchive& archive) const { detail::save_optimizer_impl(*this, archive); }

void Adagrad::load(serialize::InputArchive& archive) {
  if (detail::load_optimizer(*this, archive, [] { return std::make_unique<AdagradParamState>(); },
                             [] { return std::make_unique<AdagradOptions>(); })) {
    return;
  }
  detail::warn_old_format("Adagrad");
  const auto sums = detail::read_buffers(archive, "sum_buffers");
  const auto steps = read_steps(archive, "step_buffers");
  const auto& params = param_groups_.at(0).params();
  for (size_t i = 0; i < sums.size() && i < params.size(); ++i) {
    auto state = std::make_unique<AdagradParamState>();
    state->step(i < steps.size() ? steps[i] : 0);
    state->sum(sums[i]);
    state_[detail::param_key(params[i])] = std::move(state);
  }
}

// ---- RMSprop --------------------------------------------------------------------------------

RMSpropOptions::RMSpropOptions(double lr) : lr_(lr) {}
void RMSpropOptions::serialize(serialize::OutputArchive& a) const {
  put(a, "lr", lr()), put(a, "alpha", alpha()), put(a, "eps", eps()), put(a, "weight_decay", weight_decay());
  put(a, "momentum", momentum()), put(a, "centered", centered());
}
void RMSpropOptions::serialize(serialize::InputArchive& a) {
  get(a, "lr", lr_), get(a, "alpha", alpha_), get(a, "eps", eps_), get(a, "weight_decay", weight_decay_);
  get(a, "momentum", momentum_), get(a, "centered", centered_);
}
bool operator==(const RMSpropOptions& l, const RMSpropOptions& r) {
  return l.lr() == r.lr() && l.alpha() == r.alpha() && l.eps() == r.eps() && l.weight_decay() == r.weight_decay() &&
         l.momentum() == r.momentum() && l.centered() == r.centered();
}
::ctorch::optim::RMSpropOptions RMSpropOptions::native() const {
  return ::ctorch::optim::RMSpropOptions(lr()).alpha(alpha()).eps(eps()).weight_decay(weight_decay()).momentum(momentum())
      .centered(centered());
}
void RMSpropParamState::serialize(serialize::OutputArchive& a) const {
  put(a, "step", IValue(step())), put(a, "square_avg", square_avg()), put(a, "momentum_buffer", momentum_buffer());
  put(a, "grad_avg", grad_avg());
}
void RMSpropParamState::serialize(serialize::InputArchive& a) {
  get(a, "step", step_), get(a, "square_avg", square_avg_), get(a, "momentum_buffer", momentum_buffer_);
  get(a, "grad_avg", grad_avg_);
}
bool operator==(const RMSpropParamState& l, const RMSpropParamState& r) {
  return l.step() == r.step() && equal_if_defined(l.square_avg(), r.square_avg()) &&
         equal_if_defined(l.momentum_buffer(), r.momentum_buffer()) && equal_if_defined(l.grad_avg(), r.grad_avg());
}

RMSprop::RMSprop(std::vector<OptimizerParamGroup> param_groups, RMSpropOptions defaults)
    : Optimizer(std::move(param_groups), std::make_unique<RMSpropOptions>(defaults)) {
  ::ctorch::optim::detail::validate_options(defaults.native());
}

Tensor RMSprop::step(LossClosure closure) {
  ::ctorch::NoGradGuard no_grad;
  Tensor loss = run_closure(closure);
  for (auto& group : param_groups_) {
    const auto options = static_cast<RMSpropOptions&>(group.options()).native();
    for (auto& p : group.params()) {
      if (!p.grad().defined()) continue;
      auto& s = state_for<RMSpropParamState>(*this, p);
      s.step(s.step() + 1);
      ::ctorch::optim::functional::rmsprop(p, p.grad(), s.square_avg(), s.grad_avg(), s.momentum_buffer(), options);
    }
  }
  return loss;
}

void RMSprop::save(serialize::OutputArchive& archive) const { detail::save_optimizer_impl(*this, archive); }

void RMSprop::load(serialize::InputArchive& archive) {
  if (detail::load_optimizer(*this, archive, [] { return std::make_unique<RMSpropParamState>(); },
                             [] { return std::make_unique<RMSpropOptions>(); })) {
    return;
  }
  detail::warn_old_format("RMSprop");
  const auto square_avg = detail::read_buffers(archive, "square_average_buffers");
  const auto momentum = detail::read_buffers(archive, "momentum_buffers");
  const auto grad_avg = detail::read_buffers(archive, "grad_average_buffers");
  const auto& params = param_groups_.at(0).params();
  for (size_t i = 0; i < square_avg.size() && i < params.size(); ++i) {
    auto state = std::make_unique<RMSpropParamState>();
    state->square_avg(square_avg[i]);
    if (i < momentum.size()) state->momentum_buffer(momentum[i]);
    if (i < grad_avg.size()) state->grad_avg(grad_avg[i]);
    state_[detail::param_key(params[i])] = std::move(state);
  }
}

}  // namespace torch::optim
