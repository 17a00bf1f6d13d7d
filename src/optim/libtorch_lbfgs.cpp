// libtorch's LBFGS (ctorch/libtorch/optim_lbfgs.h): options and state archives, the pre-1.5
// layout, and step(closure) over ctorch::optim::functional::lbfgs.
#include "ctorch/torch.h"
#include "ctorch/warning.h"

namespace torch::optim {

using ::ctorch::IValue;

namespace {
IValue tensor_list(const std::deque<Tensor>& ts) {
  std::vector<IValue> items;
  for (const Tensor& t : ts) items.push_back(t.defined() ? IValue(t) : IValue());  // al's unused slots: None
  return IValue::list(std::move(items));
}
std::deque<Tensor> read_tensor_list(serialize::InputArchive& a, const char* key) {
  std::deque<Tensor> out;
  IValue v;
  if (a.try_read(key, v)) {
    for (const IValue& e : v.elements()) out.push_back(e.is_none() ? Tensor() : e.to_tensor());
  }
  return out;
}
bool equal_if_defined(const Tensor& a, const Tensor& b) {
  if (!a.defined() || !b.defined()) return a.defined() == b.defined();
  return a.equal(b);
}
template <class C>
bool containers_equal(const C& a, const C& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (!equal_if_defined(a[i], b[i])) return false;
  }
  return true;
}
}  // namespace

LBFGSOptions::LBFGSOptions(double lr) : lr_(lr) {}

void LBFGSOptions::serialize(serialize::OutputArchive& a) const {
  a.write("lr", IValue(lr()));
  a.write("max_iter", IValue(max_iter()));
  a.write("max_eval", max_eval() ? IValue(*max_eval()) : IValue());
  a.write("tolerance_grad", IValue(tolerance_grad()));
  a.write("tolerance_change", IValue(tolerance_change()));
  a.write("history_size", IValue(history_size()));
  a.write("line_search_fn", line_search_fn() ? IValue(*line_search_fn()) : IValue());
}

void LBFGSOptions::serialize(serialize::InputArchive& a) {
  IValue v;
  if (a.try_read("lr", v)) lr_ = v.to_double();
  if (a.try_read("max_iter", v)) max_iter_ = v.to_int();
  if (a.try_read("max_eval", v)) max_eval_ = v.is_none() ? std::nullopt : std::optional<int64_t>(v.to_int());
  if (a.try_read("tolerance_grad", v)) tolerance_grad_ = v.to_double();
  if (a.try_read("tolerance_change", v)) tolerance_change_ = v.to_double();
  if (a.try_read("history_size", v)) history_size_ = v.to_int();
  if (a.try_read("line_search_fn", v)) {
    line_search_fn_ = v.is_none() ? std::nullopt : std::optional<std::string>(v.to_string());
  }
}

bool operator==(const LBFGSOptions& l, const LBFGSOptions& r) {
  return l.lr() == r.lr() && l.max_iter() == r.max_iter() && l.max_eval() == r.max_eval() &&
         l.tolerance_grad() == r.tolerance_grad() && l.tolerance_change() == r.tolerance_change() &&
         l.history_size() == r.history_size() && l.line_search_fn() == r.line_search_fn();
}

::ctorch::optim::LBFGSOptions LBFGSOptions::native() const {
  return ::ctorch::optim::LBFGSOptions(lr()).max_iter(max_iter()).max_eval(max_eval()).tolerance_grad(tolerance_grad())
      .tolerance_change(tolerance_change()).history_size(history_size()).line_search_fn(line_search_fn());
}

void LBFGSParamState::serialize(serialize::OutputArchive& a) const {
  a.write("func_evals", IValue(func_evals()));
  a.write("n_iter", IValue(n_iter()));
  a.write("t", IValue(t()));
  a.write("prev_loss", IValue(prev_loss()));
  if (d().defined()) a.write("d", d(), true);
  if (H_diag().defined()) a.write("H_diag", H_diag(), true);
  if (prev_flat_grad().defined()) a.write("prev_flat_grad", prev_flat_grad(), true);
  a.write("old_dirs", tensor_list(old_dirs()));
  a.write("old_stps", tensor_list(old_stps()));
  a.write("ro", tensor_list(ro()));
  if (al()) a.write("al", tensor_list(std::deque<Tensor>(al()->begin(), al()->end())));
}

void LBFGSParamState::serialize(serialize::InputArchive& a) {
  IValue v;
  if (a.try_read("func_evals", v)) native_.func_evals = v.to_int();
  if (a.try_read("n_iter", v)) native_.n_iter = v.to_int();
  if (a.try_read("t", v)) native_.t = v.to_double();
  if (a.try_read("prev_loss", v)) native_.prev_loss = v.to_double();
  a.try_read("d", native_.d, true);
  a.try_read("H_diag", native_.H_diag, true);
  a.try_read("prev_flat_grad", native_.prev_flat_grad, true);
  native_.old_dirs = read_tensor_list(a, "old_dirs");
  native_.old_stps = read_tensor_list(a, "old_stps");
  native_.ro = read_tensor_list(a, "ro");
  if (a.try_read("al", v)) {
    std::vector<Tensor> al;
    for (const IValue& e : v.elements()) al.push_back(e.is_none() ? Tensor() : e.to_tensor());
    native_.al = std::move(al);
  }
}

bool operator==(const LBFGSParamState& l, const LBFGSParamState& r) {
  auto& a = const_cast<LBFGSParamState&>(l).native();
  auto& b = const_cast<LBFGSParamState&>(r).native();
  return a.func_evals == b.func_evals && a.n_iter == b.n_iter && a.t == b.t && a.prev_loss == b.prev_loss &&
         equal_if_defined(a.d, b.d) && equal_if_defined(a.H_diag, b.H_diag) &&
         equal_if_defined(a.prev_flat_grad, b.prev_flat_grad) && containers_equal(a.old_dirs, b.old_dirs) &&
         containers_equal(a.old_stps, b.old_stps) && containers_equal(a.ro, b.ro) &&
         a.al.has_value() == b.al.has_value() && (!a.al || containers_equal(*a.al, *b.al));
}

LBFGS::LBFGS(std::vector<OptimizerParamGroup> param_groups, LBFGSOptions defaults)
    : Optimizer(std::move(param_groups), std::make_unique<LBFGSOptions>(defaults)) {
  CTORCH_CHECK(param_groups_.size() == 1, "LBFGS doesn't support per-parameter options (parameter groups)");
  if (!defaults.max_eval()) {
    const int64_t max_eval = (defaults.max_iter() * 5) / 4;
    static_cast<LBFGSOptions&>(param_groups_[0].options()).max_eval(max_eval);
    static_cast<LBFGSOptions&>(*defaults_).max_eval(max_eval);
  }
}

Tensor LBFGS::step(LossClosure closure) {
  CTORCH_INTERNAL_ASSERT(param_groups_.size() == 1);
  auto& group = param_groups_[0];
  const auto& params = group.params();
  CTORCH_CHECK(!params.empty(), "[LBFGS::step] The optimizer has no parameters");
  auto& slot = state_[detail::param_key(params[0])];  // LBFGS's state is global, kept under the first parameter
  if (!slot) slot = std::make_unique<LBFGSParamState>();
  auto& state = static_cast<LBFGSParamState&>(*slot);
  return ::ctorch::optim::functional::lbfgs(params, closure, state.native(),
                                            static_cast<LBFGSOptions&>(group.options()).native());
}

void LBFGS::save(serialize::OutputArchive& archive) const { detail::save_optimizer_impl(*this, archive); }

void LBFGS::load(serialize::InputArchive& archive) {
  if (detail::load_optimizer(*this, archive, [] { return std::make_unique<LBFGSParamState>(); },
                             [] { return std::make_unique<LBFGSOptions>(); })) {
    return;
  }
  ::ctorch::warn(
      "Your serialized LBFGS optimizer is still using the old serialization format. The func_evals and n_iter "
      "value in state will be set to 0, ro will be set to an empty deque and al will be set to c10::nullopt "
      "because the old LBFGS optimizer didn't save these values. You should re-save your LBFGS optimizer to use "
      "the new serialization format.");
  Tensor d, t, H_diag, prev_flat_grad, prev_loss;
  archive.read("d", d, true);
  archive.read("t", t, true);
  archive.read("H_diag", H_diag, true);
  archive.read("prev_flat_grad", prev_flat_grad, true);
  archive.read("prev_loss", prev_loss, true);
  const auto old_dirs = detail::read_buffers(archive, "old_dirs");
  const auto old_stps = detail::read_buffers(archive, "old_stps");
  auto state = std::make_unique<LBFGSParamState>();
  state->d(d);
  state->t(t.item<double>());
  state->H_diag(H_diag);
  state->prev_flat_grad(prev_flat_grad);
  state->prev_loss(prev_loss.item<double>());
  state->old_dirs(std::deque<Tensor>(old_dirs.begin(), old_dirs.end()));
  state->old_stps(std::deque<Tensor>(old_stps.begin(), old_stps.end()));
  state_[detail::param_key(param_groups_.at(0).params().at(0))] = std::move(state);
}

}  // namespace torch::optim
