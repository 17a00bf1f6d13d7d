// torch.optim.LBFGS (PyTorch 1.13's torch/optim/lbfgs.py): the two-loop recursion over a bounded
// history, a fixed step or the strong-Wolfe line search (_strong_wolfe, _cubic_interpolate).
#include <algorithm>
#include <cmath>

#include "autograd/zero_grad.h"
#include "ctorch/error.h"
#include "ctorch/factories.h"
#include "ctorch/grad_mode.h"
#include "ctorch/ops.h"
#include "ctorch/optim_lbfgs.h"

namespace ctorch::optim {
namespace {

double dot(const Tensor& a, const Tensor& b) { return (a * b).sum().item<double>(); }
Tensor dot_t(const Tensor& a, const Tensor& b) { return (a * b).sum(); }

// The minimizer of the cubic through (x1, f1, g1), (x2, f2, g2), clamped to the bounds.
double cubic_interpolate(double x1, double f1, double g1, double x2, double f2, double g2,
                         std::optional<std::pair<double, double>> bounds = std::nullopt) {
  auto [xmin_bound, xmax_bound] = bounds ? *bounds : (x1 <= x2 ? std::make_pair(x1, x2) : std::make_pair(x2, x1));
  const double d1 = g1 + g2 - 3 * (f1 - f2) / (x1 - x2);
  const double d2_square = d1 * d1 - g1 * g2;
  if (d2_square >= 0) {
    const double d2 = std::sqrt(d2_square);
    double min_pos;
    if (x1 <= x2) {
      min_pos = x2 - (x2 - x1) * ((g2 + d2 - d1) / (g2 - g1 + 2 * d2));
    } else {
      min_pos = x1 - (x1 - x2) * ((g1 + d2 - d1) / (g1 - g2 + 2 * d2));
    }
    return std::min(std::max(min_pos, xmin_bound), xmax_bound);
  }
  return (xmin_bound + xmax_bound) / 2.;
}

class Lbfgs {
 public:
  Lbfgs(const std::vector<Tensor>& params, const std::function<Tensor()>& closure) : params_(params), closure_(closure) {}

  double evaluate() {
    EnableGradGuard grad;
    return closure_().item<double>();
  }

  Tensor gather_flat_grad() const {
    std::vector<Tensor> views;
    for (const Tensor& p : params_) {
      views.push_back(p.grad().defined() ? p.grad().reshape({-1}) : zeros({p.numel()}, p.options()));
    }
    return cat(views, 0);
  }

  void add_grad(double step_size, const Tensor& update) {
    int64_t offset = 0;
    for (const Tensor& p : params_) {
      const int64_t numel = p.numel();
      Tensor q = p;
      q.add_(update.slice(0, offset, offset + numel).view_as(p), step_size);
      offset += numel;
    }
  }

  std::vector<Tensor> clone_param() const {
    std::vector<Tensor> out;
    for (const Tensor& p : params_) out.push_back(p.clone());
    return out;
  }

  void set_param(const std::vector<Tensor>& data) {
    for (size_t i = 0; i < params_.size(); ++i) {
      Tensor q = params_[i];
      q.copy_(data[i]);
    }
  }

  std::pair<double, Tensor> directional_evaluate(const std::vector<Tensor>& x, double t, const Tensor& d) {
    add_grad(t, d);
    const double loss = evaluate();
    Tensor flat_grad = gather_flat_grad();
    set_param(x);
    return {loss, flat_grad};
  }

  // _strong_wolfe: returns (f_new, g_new, t, ls_func_evals).
  std::tuple<double, Tensor, double, int64_t> strong_wolfe(const std::vector<Tensor>& x, double t, const Tensor& d,
                                                            double f, Tensor g, double gtd, double tolerance_change,
                                                            double c1 = 1e-4, double c2 = 0.9, int64_t max_ls = 25) {
    const double d_norm = d.abs().max().item<double>();
    g = g.clone();
    auto [f_new, g_new] = directional_evaluate(x, t, d);
    int64_t ls_func_evals = 1;
    double gtd_new = dot(g_new, d);
    double t_prev = 0, f_prev = f, gtd_prev = gtd;
    Tensor g_prev = g;
    bool done = false;
    int64_t ls_iter = 0;
    std::vector<double> bracket, bracket_f, bracket_gtd;
    std::vector<Tensor> bracket_g;
    while (ls_iter < max_ls) {
      if (f_new > (f + c1 * t * gtd) || (ls_iter > 1 && f_new >= f_prev)) {
        bracket = {t_prev, t};
        bracket_f = {f_prev, f_new};
        bracket_g = {g_prev, g_new.clone()};
        bracket_gtd = {gtd_prev, gtd_new};
        break;
      }
      if (std::abs(gtd_new) <= -c2 * gtd) {
        bracket = {t};
        bracket_f = {f_new};
        bracket_g = {g_new};
        done = true;
        break;
      }
      if (gtd_new >= 0) {
        bracket = {t_prev, t};
        bracket_f = {f_prev, f_new};
        bracket_g = {g_prev, g_new.clone()};
        bracket_gtd = {gtd_prev, gtd_new};
        break;
      }
      const double min_step = t + 0.01 * (t - t_prev);
      const double max_step = t * 10;
      const double tmp = t;
      t = cubic_interpolate(t_prev, f_prev, gtd_prev, t, f_new, gtd_new, std::make_pair(min_step, max_step));
      t_prev = tmp;
      f_prev = f_new;
      g_prev = g_new.clone();
      gtd_prev = gtd_new;
      std::tie(f_new, g_new) = directional_evaluate(x, t, d);
      ls_func_evals += 1;
      gtd_new = dot(g_new, d);
      ls_iter += 1;
    }
    if (ls_iter == max_ls) {
      bracket = {0, t};
      bracket_f = {f, f_new};
      bracket_g = {g, g_new};
      bracket_gtd.resize(2, 0.0);  // Python leaves these as they were; never read when ls_iter == max_ls
    }
    bool insuf_progress = false;
    size_t low_pos = 0, high_pos = 0;
    if (bracket_f.size() == 2) std::tie(low_pos, high_pos) = bracket_f[0] <= bracket_f[1] ? std::pair<size_t, size_t>(0, 1) : std::pair<size_t, size_t>(1, 0);
    while (!done && ls_iter < max_ls) {
      if (std::abs(bracket[1] - bracket[0]) * d_norm < tolerance_change) break;
      t = cubic_interpolate(bracket[0], bracket_f[0], bracket_gtd[0], bracket[1], bracket_f[1], bracket_gtd[1]);
      const double bmax = std::max(bracket[0], bracket[1]), bmin = std::min(bracket[0], bracket[1]);
      const double eps = 0.1 * (bmax - bmin);
      if (std::min(bmax - t, t - bmin) < eps) {
        if (insuf_progress || t >= bmax || t <= bmin) {
          t = std::abs(t - bmax) < std::abs(t - bmin) ? bmax - eps : bmin + eps;
          insuf_progress = false;
        } else {
          insuf_progress = true;
        }
      } else {
        insuf_progress = false;
      }
      std::tie(f_new, g_new) = directional_evaluate(x, t, d);
      ls_func_evals += 1;
      gtd_new = dot(g_new, d);
      ls_iter += 1;
      if (f_new > (f + c1 * t * gtd) || f_new >= bracket_f[low_pos]) {
        bracket[high_pos] = t;
        bracket_f[high_pos] = f_new;
        bracket_g[high_pos] = g_new.clone();
        bracket_gtd[high_pos] = gtd_new;
        std::tie(low_pos, high_pos) = bracket_f[0] <= bracket_f[1] ? std::pair<size_t, size_t>(0, 1) : std::pair<size_t, size_t>(1, 0);
      } else {
        if (std::abs(gtd_new) <= -c2 * gtd) {
          done = true;
        } else if (gtd_new * (bracket[high_pos] - bracket[low_pos]) >= 0) {
          bracket[high_pos] = bracket[low_pos];
          bracket_f[high_pos] = bracket_f[low_pos];
          bracket_g[high_pos] = bracket_g[low_pos];
          bracket_gtd[high_pos] = bracket_gtd[low_pos];
        }
        bracket[low_pos] = t;
        bracket_f[low_pos] = f_new;
        bracket_g[low_pos] = g_new.clone();
        bracket_gtd[low_pos] = gtd_new;
      }
    }
    return {bracket_f[low_pos], bracket_g[low_pos], bracket[low_pos], ls_func_evals};
  }

 private:
  const std::vector<Tensor>& params_;
  const std::function<Tensor()>& closure_;
};

}  // namespace

namespace functional {

Tensor lbfgs(const std::vector<Tensor>& params, const std::function<Tensor()>& closure, LBFGSState& state,
             const LBFGSOptions& o) {
  CTORCH_CHECK(closure != nullptr, "LBFGS.step() requires a closure that reevaluates the model and returns the loss");
  CTORCH_CHECK(!o.line_search_fn() || *o.line_search_fn() == "strong_wolfe", "only 'strong_wolfe' is supported");
  NoGradGuard no_grad;
  Lbfgs impl(params, closure);
  const double lr = o.lr();
  const int64_t max_iter = o.max_iter();
  const int64_t max_eval = o.max_eval().value_or(max_iter * 5 / 4);
  const double tolerance_grad = o.tolerance_grad(), tolerance_change = o.tolerance_change();
  const auto history_size = static_cast<size_t>(o.history_size());

  Tensor orig_loss;
  {
    EnableGradGuard grad;
    orig_loss = closure();
  }
  double loss = orig_loss.item<double>();
  int64_t current_evals = 1;
  state.func_evals += 1;
  Tensor flat_grad = impl.gather_flat_grad();
  bool opt_cond = flat_grad.abs().max().item<double>() <= tolerance_grad;
  if (opt_cond) return orig_loss;

  Tensor& d = state.d;
  double& t = state.t;
  Tensor& H_diag = state.H_diag;
  Tensor& prev_flat_grad = state.prev_flat_grad;
  double& prev_loss = state.prev_loss;
  int64_t n_iter = 0;
  while (n_iter < max_iter) {
    n_iter += 1;
    state.n_iter += 1;
    if (state.n_iter == 1) {
      d = flat_grad.neg();
      state.old_dirs.clear();
      state.old_stps.clear();
      state.ro.clear();
      H_diag = ones({}, flat_grad.options());
    } else {
      const Tensor y = flat_grad.sub(prev_flat_grad);
      const Tensor s = d.mul(t);
      const Tensor ys = dot_t(y, s);
      if (ys.item<double>() > 1e-10) {
        if (state.old_dirs.size() == history_size) {
          state.old_dirs.pop_front();
          state.old_stps.pop_front();
          state.ro.pop_front();
        }
        state.old_dirs.push_back(y);
        state.old_stps.push_back(s);
        state.ro.push_back(1. / ys);
        H_diag = ys / dot_t(y, y);
      }
      const size_t num_old = state.old_dirs.size();
      if (!state.al) state.al = std::vector<Tensor>(history_size);
      std::vector<Tensor>& al = *state.al;
      Tensor q = flat_grad.neg();
      for (size_t k = num_old; k-- > 0;) {
        al[k] = dot_t(state.old_stps[k], q) * state.ro[k];
        q.add_(state.old_dirs[k], -al[k].item<double>());
      }
      Tensor r = q.mul(H_diag);
      d = r;
      for (size_t k = 0; k < num_old; ++k) {
        const Tensor be_i = dot_t(state.old_dirs[k], r) * state.ro[k];
        r.add_(state.old_stps[k], (al[k] - be_i).item<double>());
      }
    }
    if (!prev_flat_grad.defined()) {
      prev_flat_grad = flat_grad.clone();
    } else {
      prev_flat_grad.copy_(flat_grad);
    }
    prev_loss = loss;
    if (state.n_iter == 1) {
      t = std::min(1., 1. / flat_grad.abs().sum().item<double>()) * lr;
    } else {
      t = lr;
    }
    const double gtd = dot(flat_grad, d);
    if (gtd > -tolerance_change) break;

    int64_t ls_func_evals = 0;
    if (o.line_search_fn()) {
      const std::vector<Tensor> x_init = impl.clone_param();
      std::tie(loss, flat_grad, t, ls_func_evals) = impl.strong_wolfe(x_init, t, d, loss, flat_grad, gtd, tolerance_change);
      impl.add_grad(t, d);
      opt_cond = flat_grad.abs().max().item<double>() <= tolerance_grad;
    } else {
      impl.add_grad(t, d);
      if (n_iter != max_iter) {
        loss = impl.evaluate();
        flat_grad = impl.gather_flat_grad();
        opt_cond = flat_grad.abs().max().item<double>() <= tolerance_grad;
        ls_func_evals = 1;
      }
    }
    current_evals += ls_func_evals;
    state.func_evals += ls_func_evals;

    if (n_iter == max_iter) break;
    if (current_evals >= max_eval) break;
    if (opt_cond) break;
    if (d.mul(t).abs().max().item<double>() <= tolerance_change) break;
    if (std::abs(loss - prev_loss) < tolerance_change) break;
  }
  return orig_loss;
}

}  // namespace functional

LBFGS::LBFGS(std::vector<Tensor> params, LBFGSOptions options) : params_(std::move(params)), options_(options) {
  if (!options_.max_eval()) options_.max_eval(options_.max_iter() * 5 / 4);
  for (const Tensor& p : params_) CTORCH_CHECK(p.defined() && p.is_leaf(), "can't optimize a non-leaf Tensor");
}

Tensor LBFGS::step(const std::function<Tensor()>& closure) {
  return functional::lbfgs(params_, closure, state_, options_);
}

void LBFGS::zero_grad(bool set_to_none) { autograd::zero_grad(params_, set_to_none); }

namespace {
using serialization::Value;

Value tensors_value(const std::deque<Tensor>& ts) {
  std::vector<Value> items;
  for (const Tensor& t : ts) items.push_back(t.defined() ? Value(t) : Value());
  return Value::list(std::move(items));
}

// A number saved as a Python float or int, or as a one-element tensor (PyTorch's t may be either).
double number_of(const Value& v) { return v.is_tensor() ? v.to_tensor().item<double>() : v.to_double(); }
}  // namespace

Value LBFGS::state_dict() const {
  Value groups = Value::list({});
  Value group = Value::dict({{"lr", options_.lr()}, {"max_iter", options_.max_iter()},
                             {"max_eval", options_.max_eval() ? Value(*options_.max_eval()) : Value()},
                             {"tolerance_grad", options_.tolerance_grad()}, {"tolerance_change", options_.tolerance_change()},
                             {"history_size", options_.history_size()},
                             {"line_search_fn", options_.line_search_fn() ? Value(*options_.line_search_fn()) : Value()}});
  std::vector<Value> ids;
  for (size_t i = 0; i < params_.size(); ++i) ids.emplace_back(static_cast<int64_t>(i));
  group.set("params", Value::list(std::move(ids)));
  groups.append(std::move(group));
  Value state = Value::dict();
  if (state_.func_evals > 0) {  // torch.optim.LBFGS's keys, in the order its step sets them
    const LBFGSState& s = state_;
    Value d = Value::dict({{"func_evals", s.func_evals}, {"n_iter", s.n_iter}});
    if (s.al) d.set("al", tensors_value(std::deque<Tensor>(s.al->begin(), s.al->end())));
    if (s.d.defined()) {
      d.set("d", Value(s.d));
      d.set("t", s.t);
      d.set("old_dirs", tensors_value(s.old_dirs));
      d.set("old_stps", tensors_value(s.old_stps));
      d.set("ro", tensors_value(s.ro));
      d.set("H_diag", s.H_diag.defined() ? Value(s.H_diag) : Value());
      d.set("prev_flat_grad", s.prev_flat_grad.defined() ? Value(s.prev_flat_grad) : Value());
      d.set("prev_loss", s.prev_loss);
    }
    state.set(int64_t{0}, std::move(d));
  }
  return Value::dict({{"state", state}, {"param_groups", groups}});
}

void LBFGS::load_state_dict(const Value& state_dict) {
  LBFGSState s;
  const Value* entry = state_dict.at("state").find(int64_t{0});
  if (entry != nullptr) {
    CTORCH_CHECK(!params_.empty(), "[LBFGS::load_state_dict] The optimizer has no parameters");
    const Tensor& p = params_[0];
    auto tensor_of = [&](const Value& v) {
      if (v.is_none()) return Tensor();
      Tensor t = v.is_tensor() ? v.to_tensor() : ctorch::tensor(number_of(v));
      if (p.is_floating_point()) t = t.to(p.dtype());
      return t.to(p.device()).detach();
    };
    auto list_of = [&](const char* key) {
      std::deque<Tensor> out;
      if (const Value* v = entry->find(key)) {
        for (const Value& e : v->elements()) out.push_back(tensor_of(e));
      }
      return out;
    };
    if (const Value* v = entry->find("func_evals")) s.func_evals = v->to_int();
    if (const Value* v = entry->find("n_iter")) s.n_iter = v->to_int();
    if (const Value* v = entry->find("t")) s.t = number_of(*v);
    if (const Value* v = entry->find("prev_loss")) s.prev_loss = number_of(*v);
    if (const Value* v = entry->find("d")) s.d = tensor_of(*v);
    if (const Value* v = entry->find("H_diag")) s.H_diag = tensor_of(*v);
    if (const Value* v = entry->find("prev_flat_grad")) s.prev_flat_grad = tensor_of(*v);
    s.old_dirs = list_of("old_dirs");
    s.old_stps = list_of("old_stps");
    s.ro = list_of("ro");
    if (entry->find("al") != nullptr) {
      const std::deque<Tensor> al = list_of("al");
      s.al = std::vector<Tensor>(al.begin(), al.end());
    }
  }
  state_ = std::move(s);
}

}  // namespace ctorch::optim
