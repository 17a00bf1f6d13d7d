// Optimizer.state_dict() / load_state_dict() (ctorch/optim.h) in PyTorch 1.13's layout
// (torch/optim/optimizer.py, sgd.py, adam.py, adamw.py, rmsprop.py): the keys and their order,
// Adam's "step" as a float32 cpu scalar tensor, RMSprop's as an int, SGD's momentum_buffer None
// without momentum, and load_state_dict's checks and casts.
#include <unordered_set>

#include "ctorch/factories.h"
#include "ctorch/optim.h"

namespace ctorch::optim {
namespace {

using serialization::Value;

double number(const Value& d, const char* key, double current) {
  const Value* v = d.find(key);
  if (v == nullptr) return current;
  if (v->kind() != Value::Kind::Int && v->kind() != Value::Kind::Float && v->kind() != Value::Kind::Bool) {
    throw TypeError(::ctorch::detail::str_cat("param_group['", key, "'] must be a number, not ", Value::kind_name(v->kind())));
  }
  return v->to_double();
}

bool flag(const Value& d, const char* key, bool current) {
  const Value* v = d.find(key);
  if (v == nullptr) return current;
  if (v->kind() != Value::Kind::Bool) {
    throw TypeError(::ctorch::detail::str_cat("param_group['", key, "'] must be a bool, not ", Value::kind_name(v->kind())));
  }
  return v->to_bool();
}

// A state entry that must be a tensor shaped like the parameter; moved to its device and (for a
// floating parameter) dtype, as load_state_dict's cast().
Tensor buffer(const Value& state, const char* key, const Tensor& p, bool required) {
  const Value* v = state.find(key);
  if (v == nullptr || v->is_none()) {
    if (required) throw ValueError(::ctorch::detail::str_cat("optimizer state is missing '", key, "'"));
    return Tensor();
  }
  if (!v->is_tensor()) throw TypeError(::ctorch::detail::str_cat("optimizer state '", key, "' must be a Tensor, not ", Value::kind_name(v->kind())));
  Tensor t = v->to_tensor();
  CTORCH_CHECK_VALUE(t.sizes() == p.sizes(), "optimizer state '", key, "' has shape ", t.sizes(),
                     " but its parameter has shape ", p.sizes());
  if (p.is_floating_point()) t = t.to(p.dtype());
  return t.to(p.device()).detach();
}

int64_t step_of(const Value& state) {
  const Value* v = state.find("step");
  if (v == nullptr) throw ValueError("optimizer state is missing 'step'");
  if (v->is_tensor()) {
    CTORCH_CHECK_VALUE(v->to_tensor().numel() == 1, "optimizer state 'step' must hold one number");
    return static_cast<int64_t>(v->to_tensor().item<double>());
  }
  return static_cast<int64_t>(v->to_double());
}

// Adam's and AdamW's state: step as a float32 cpu scalar tensor (1.13's non-capturable Adam).
Value adam_state(int64_t step, const Tensor& exp_avg, const Tensor& exp_avg_sq, const Tensor& max_exp_avg_sq) {
  if (!exp_avg.defined()) return Value();
  Value d = Value::dict();
  d.set("step", Value(tensor(static_cast<float>(step))));
  d.set("exp_avg", Value(exp_avg));
  d.set("exp_avg_sq", Value(exp_avg_sq));
  if (max_exp_avg_sq.defined()) d.set("max_exp_avg_sq", Value(max_exp_avg_sq));
  return d;
}

}  // namespace

namespace detail {

Value options_dict(const SGDOptions& o) {
  return Value::dict({{"lr", o.lr()}, {"momentum", o.momentum()}, {"dampening", o.dampening()},
                      {"weight_decay", o.weight_decay()}, {"nesterov", o.nesterov()}, {"maximize", o.maximize()},
                      {"foreach", Value()}, {"differentiable", false}});
}

Value options_dict(const AdamOptions& o) {
  return Value::dict({{"lr", o.lr()}, {"betas", Value::tuple({o.beta1(), o.beta2()})}, {"eps", o.eps()},
                      {"weight_decay", o.weight_decay()}, {"amsgrad", o.amsgrad()}, {"maximize", o.maximize()},
                      {"foreach", Value()}, {"capturable", false}, {"differentiable", false}, {"fused", false}});
}

Value options_dict(const RMSpropOptions& o) {
  return Value::dict({{"lr", o.lr()}, {"momentum", o.momentum()}, {"alpha", o.alpha()}, {"eps", o.eps()},
                      {"centered", o.centered()}, {"weight_decay", o.weight_decay()}, {"foreach", Value()},
                      {"maximize", o.maximize()}, {"differentiable", false}});
}

Value options_dict(const AdagradOptions& o) {
  return Value::dict({{"lr", o.lr()}, {"lr_decay", o.lr_decay()}, {"eps", o.eps()}, {"weight_decay", o.weight_decay()},
                      {"initial_accumulator_value", o.initial_accumulator_value()}, {"foreach", Value()},
                      {"maximize", o.maximize()}});
}

AdagradOptions options_from(const Value& d, AdagradOptions o) {
  o.lr(number(d, "lr", o.lr())).lr_decay(number(d, "lr_decay", o.lr_decay())).eps(number(d, "eps", o.eps()));
  o.weight_decay(number(d, "weight_decay", o.weight_decay()));
  o.initial_accumulator_value(number(d, "initial_accumulator_value", o.initial_accumulator_value()));
  o.maximize(flag(d, "maximize", o.maximize()));
  return o;
}

SGDOptions options_from(const Value& d, SGDOptions o) {
  o.lr(number(d, "lr", o.lr())).momentum(number(d, "momentum", o.momentum()));
  o.dampening(number(d, "dampening", o.dampening())).weight_decay(number(d, "weight_decay", o.weight_decay()));
  o.nesterov(flag(d, "nesterov", o.nesterov())).maximize(flag(d, "maximize", o.maximize()));
  return o;
}

AdamOptions options_from(const Value& d, AdamOptions o) {
  o.lr(number(d, "lr", o.lr())).eps(number(d, "eps", o.eps())).weight_decay(number(d, "weight_decay", o.weight_decay()));
  o.amsgrad(flag(d, "amsgrad", o.amsgrad())).maximize(flag(d, "maximize", o.maximize()));
  if (const Value* b = d.find("betas")) {
    if ((b->kind() != Value::Kind::Tuple && b->kind() != Value::Kind::List) || b->elements().size() != 2) {
      throw TypeError("param_group['betas'] must be a pair of numbers");
    }
    o.betas({b->elements()[0].to_double(), b->elements()[1].to_double()});
  }
  return o;
}

RMSpropOptions options_from(const Value& d, RMSpropOptions o) {
  o.lr(number(d, "lr", o.lr())).momentum(number(d, "momentum", o.momentum())).alpha(number(d, "alpha", o.alpha()));
  o.eps(number(d, "eps", o.eps())).weight_decay(number(d, "weight_decay", o.weight_decay()));
  o.centered(flag(d, "centered", o.centered())).maximize(flag(d, "maximize", o.maximize()));
  return o;
}

}  // namespace detail

Value Optimizer::state_dict() const {
  Value state = Value::dict();
  Value groups = Value::list({});
  int64_t index = 0;
  for (size_t g = 0; g < num_groups(); ++g) {
    std::vector<Value> ids;
    for (const Tensor& p : group_params(g)) {
      if (auto it = state_.find(p.impl()); it != state_.end()) {
        Value v = state_value(it->second);
        if (!v.is_none()) state.set(index, std::move(v));
      }
      ids.emplace_back(index++);
    }
    Value d = group_dict(g);
    d.set("params", Value::list(std::move(ids)));
    groups.append(std::move(d));
  }
  return Value::dict({{"state", state}, {"param_groups", groups}});
}

void Optimizer::load_state_dict(const Value& state_dict) {
  const Value& saved_groups = state_dict.at("param_groups");
  const Value& saved_state = state_dict.at("state");
  if (saved_groups.kind() != Value::Kind::List && saved_groups.kind() != Value::Kind::Tuple) {
    throw TypeError("state_dict['param_groups'] must be a list");
  }
  CTORCH_CHECK_VALUE(saved_groups.elements().size() == num_groups(),
                     "loaded state dict has a different number of parameter groups");
  // saved index -> parameter, group by group (PyTorch's id_map)
  std::vector<std::pair<Value, const Tensor*>> id_map;
  std::vector<std::function<void()>> commits;
  for (size_t g = 0; g < num_groups(); ++g) {
    const Value& sg = saved_groups.elements()[g];
    const Value& ids = sg.at("params");
    CTORCH_CHECK_VALUE(ids.elements().size() == group_params(g).size(),
                       "loaded state dict contains a parameter group that doesn't match the size of optimizer's group");
    for (size_t i = 0; i < ids.elements().size(); ++i) id_map.emplace_back(ids.elements()[i], &group_params(g)[i]);
    commits.push_back(group_loader(g, sg));
  }
  std::vector<std::pair<const TensorImpl*, State>> states;
  for (const auto& [key, v] : saved_state.items()) {
    for (const auto& [id, p] : id_map) {
      if (id == key) {
        if (!v.is_dict()) throw TypeError("optimizer state entries must be dicts");
        states.emplace_back(p->impl(), state_from(v, *p));
        break;
      }
    }
  }
  for (auto& commit : commits) commit();
  state_.clear();
  for (auto& [impl, s] : states) state_[impl] = std::move(s);
}

Value SGD::state_value(const State& s) const {
  Value d = Value::dict();
  Value buf;
  if (s.buf1.defined()) buf = Value(s.buf1);
  d.set("momentum_buffer", std::move(buf));
  return d;
}

Optimizer::State SGD::state_from(const Value& v, const Tensor& p) const {
  State s;
  s.buf1 = buffer(v, "momentum_buffer", p, false);
  return s;
}

Value Adam::state_value(const State& s) const {
  return adam_state(s.step, s.buf1, s.buf2, s.buf3);
}

Optimizer::State Adam::state_from(const Value& v, const Tensor& p) const {
  State s;
  s.step = step_of(v);
  s.buf1 = buffer(v, "exp_avg", p, true);
  s.buf2 = buffer(v, "exp_avg_sq", p, true);
  s.buf3 = buffer(v, "max_exp_avg_sq", p, false);
  return s;
}

Value AdamW::group_dict(size_t g) const {
  Value::Items items;
  const Value adam = detail::options_dict(groups_.at(g).options);
  for (const auto& [k, x] : adam.items()) {
    if (k.to_string() != "differentiable" && k.to_string() != "fused") items.emplace_back(k, x);
  }
  return Value::dict(std::move(items));
}

// Adagrad's state: {"step": float32 scalar tensor, "sum": tensor} (1.13's Adagrad).
Value Adagrad::state_value(const State& s) const {
  if (!s.buf1.defined()) return Value();
  return Value::dict({{"step", Value(tensor(static_cast<float>(s.step)))}, {"sum", Value(s.buf1)}});
}

Optimizer::State Adagrad::state_from(const Value& v, const Tensor& p) const {
  State s;
  s.step = step_of(v);
  s.buf1 = buffer(v, "sum", p, true);
  return s;
}

// ctorch's RMSprop keeps square_avg in buf1, grad_avg in buf2, momentum_buffer in buf3.
Value RMSprop::state_value(const State& s) const {
  if (!s.buf1.defined()) return Value();
  Value d = Value::dict({{"step", s.step}, {"square_avg", Value(s.buf1)}});
  if (s.buf3.defined()) d.set("momentum_buffer", Value(s.buf3));
  if (s.buf2.defined()) d.set("grad_avg", Value(s.buf2));
  return d;
}

Optimizer::State RMSprop::state_from(const Value& v, const Tensor& p) const {
  State s;
  s.step = step_of(v);
  s.buf1 = buffer(v, "square_avg", p, true);
  s.buf2 = buffer(v, "grad_avg", p, false);
  s.buf3 = buffer(v, "momentum_buffer", p, false);
  return s;
}

}  // namespace ctorch::optim
