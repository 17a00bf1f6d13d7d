// SGD, Adam, AdamW, RMSprop and Adagrad over optim_functional.h: PyTorch 1.13's single-tensor update rules, run without recording.
#include <charconv>
#include <cmath>
#include <string>

#include "autograd/zero_grad.h"
#include "ctorch/error.h"
#include "ctorch/factories.h"
#include "ctorch/grad_mode.h"
#include "ctorch/optim.h"
#include "ctorch/optim_functional.h"

namespace ctorch::optim {

namespace {

// Python's repr of a float ("-1.0", "0.001", "1e-08", "inf"): the shortest digits that round-trip, in
// fixed notation when the decimal exponent is in [-4, 16), else d.ddde+XX (at least two exponent digits).
std::string python_float(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  char buf[64];
  const auto res = std::to_chars(buf, buf + sizeof(buf), v, std::chars_format::scientific);
  const std::string sci(buf, res.ptr);  // "-1.5e-05"
  const size_t e_at = sci.find('e');
  std::string mantissa = sci.substr(0, e_at);
  const int exp10 = std::stoi(sci.substr(e_at + 1));
  std::string sign;
  if (mantissa[0] == '-') {
    sign = "-";
    mantissa.erase(0, 1);
  }
  std::string digits;
  for (char c : mantissa) {
    if (c != '.') digits += c;
  }
  const int n = static_cast<int>(digits.size());
  const int decpt = exp10 + 1;  // value = 0.digits * 10^decpt
  if (decpt > -4 && decpt <= 16) {
    if (decpt <= 0) return sign + "0." + std::string(static_cast<size_t>(-decpt), '0') + digits;
    if (decpt >= n) return sign + digits + std::string(static_cast<size_t>(decpt - n), '0') + ".0";
    return sign + digits.substr(0, static_cast<size_t>(decpt)) + "." + digits.substr(static_cast<size_t>(decpt));
  }
  const int e = decpt - 1;
  std::string exp_text = std::to_string(e < 0 ? -e : e);
  if (exp_text.size() < 2) exp_text = "0" + exp_text;
  return sign + digits.substr(0, 1) + (n > 1 ? "." + digits.substr(1) : "") + "e" + (e < 0 ? "-" : "+") + exp_text;
}

// PyTorch's `if not 0.0 <= value: raise ValueError("Invalid <what>: {}".format(value))`.
void check_non_negative(double value, const char* what) {
  CTORCH_CHECK_VALUE(0.0 <= value, "Invalid ", what, ": ", python_float(value));
}

}  // namespace

namespace detail {

void validate_options(const SGDOptions& o) {
  // torch/optim/sgd.py: `lr < 0.0` and `momentum < 0.0` (a NaN passes there, as here).
  CTORCH_CHECK_VALUE(!(o.lr() < 0.0), "Invalid learning rate: ", python_float(o.lr()));
  CTORCH_CHECK_VALUE(!(o.momentum() < 0.0), "Invalid momentum value: ", python_float(o.momentum()));
  CTORCH_CHECK_VALUE(!(o.weight_decay() < 0.0), "Invalid weight_decay value: ", python_float(o.weight_decay()));
  CTORCH_CHECK_VALUE(!(o.nesterov() && (o.momentum() <= 0 || o.dampening() != 0)),
                     "Nesterov momentum requires a momentum and zero dampening");
}

void validate_options(const AdamOptions& o) {
  check_non_negative(o.lr(), "learning rate");
  check_non_negative(o.eps(), "epsilon value");
  CTORCH_CHECK_VALUE(0.0 <= o.beta1() && o.beta1() < 1.0, "Invalid beta parameter at index 0: ", python_float(o.beta1()));
  CTORCH_CHECK_VALUE(0.0 <= o.beta2() && o.beta2() < 1.0, "Invalid beta parameter at index 1: ", python_float(o.beta2()));
  check_non_negative(o.weight_decay(), "weight_decay value");
}

void validate_options(const AdagradOptions& o) {
  check_non_negative(o.lr(), "learning rate");
  check_non_negative(o.lr_decay(), "lr_decay value");
  check_non_negative(o.weight_decay(), "weight_decay value");
  check_non_negative(o.initial_accumulator_value(), "initial_accumulator_value value");
  check_non_negative(o.eps(), "epsilon value");
}

void validate_options(const RMSpropOptions& o) {
  check_non_negative(o.lr(), "learning rate");
  check_non_negative(o.eps(), "epsilon value");
  check_non_negative(o.momentum(), "momentum value");
  check_non_negative(o.weight_decay(), "weight_decay value");
  check_non_negative(o.alpha(), "alpha value");
}

}  // namespace detail

void Optimizer::zero_grad(bool set_to_none) {
  for (size_t g = 0; g < num_groups(); ++g) autograd::zero_grad(group_params(g), set_to_none);
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
    for (Tensor& p : group.params) {
      if (!p.grad().defined()) continue;
      State& s = state_of(p);  // every stepped parameter has state (PyTorch's momentum_buffer None without momentum)
      functional::sgd(p, p.grad(), s.buf1, group.options);
    }
  }
}

void Adam::step() {
  NoGradGuard no_grad;
  for (auto& group : groups_) {
    for (Tensor& p : group.params) {
      if (!p.grad().defined()) continue;
      State& s = state_of(p);
      s.step += 1;
      functional::adam(p, p.grad(), s.buf1, s.buf2, s.buf3, s.step, group.options);
    }
  }
}

void AdamW::step() {
  NoGradGuard no_grad;
  for (auto& group : groups_) {
    for (Tensor& p : group.params) {
      if (!p.grad().defined()) continue;
      State& s = state_of(p);
      s.step += 1;
      functional::adamw(p, p.grad(), s.buf1, s.buf2, s.buf3, s.step, group.options);
    }
  }
}

// RMSprop's state: square_avg in buf1, grad_avg in buf2, momentum_buffer in buf3.
void RMSprop::step() {
  NoGradGuard no_grad;
  for (auto& group : groups_) {
    for (Tensor& p : group.params) {
      if (!p.grad().defined()) continue;
      State& s = state_of(p);
      s.step += 1;
      functional::rmsprop(p, p.grad(), s.buf1, s.buf2, s.buf3, group.options);
    }
  }
}

// Adagrad's state: sum in buf1, made when the parameter joins (torch.optim.Adagrad.__init__).
Adagrad::Adagrad(std::vector<Tensor> params, AdagradOptions options)
    : GroupedOptimizer(std::vector<ParamGroup<AdagradOptions>>{}) {
  detail::validate_options(options);
  add_param_group({std::move(params), options});
  init_state();
}

Adagrad::Adagrad(std::vector<ParamGroup<AdagradOptions>> groups) : GroupedOptimizer(std::vector<ParamGroup<AdagradOptions>>{}) {
  for (auto& g : groups) {
    detail::validate_options(g.options);
    add_param_group(std::move(g));
  }
  init_state();
}

void Adagrad::init_state() {
  NoGradGuard no_grad;
  for (auto& group : groups_) {
    for (Tensor& p : group.params) {
      State& s = state_of(p);
      if (!s.buf1.defined()) s.buf1 = full_like(p, group.options.initial_accumulator_value());
    }
  }
}

void Adagrad::step() {
  NoGradGuard no_grad;
  for (auto& group : groups_) {
    for (Tensor& p : group.params) {
      if (!p.grad().defined()) continue;
      State& s = state_of(p);
      s.step += 1;
      functional::adagrad(p, p.grad(), s.buf1, s.step, group.options);
    }
  }
}

}  // namespace ctorch::optim
