// libtorch's torch::optim::Optimizer (ctorch/libtorch/optim.h): groups, state, the deprecated
// accessors, the archive layout of libtorch 1.13 (torch/optim/serialize.h) and the pre-1.5 buffer
// lists, and the learning-rate schedulers.
#include "autograd/zero_grad.h"
#include "ctorch/torch.h"
#include "ctorch/warning.h"

namespace torch::optim {

using ::ctorch::IValue;

std::unique_ptr<OptimizerParamState> OptimizerParamState::clone() const {
  CTORCH_CHECK(false,
               "clone() has not been implemented for torch::optim::OptimizerParamState. ",
               "Subclass torch::optim::OptimizerCloneableParamState<YourOptimizerParamState> ",
               "instead of torch::optim::OptimizerParamState to inherit the ability to clone.");
}
void OptimizerParamState::serialize(serialize::InputArchive&) {
  CTORCH_CHECK_NOT_IMPLEMENTED(false, "void serialize(torch::serialize::InputArchive& archive) has not been implemented for torch::optim::OptimizerParamState.");
}
void OptimizerParamState::serialize(serialize::OutputArchive&) const {
  CTORCH_CHECK_NOT_IMPLEMENTED(false, "void serialize(torch::serialize::OutputArchive& archive) has not been implemented for torch::optim::OptimizerParamState.");
}

std::unique_ptr<OptimizerOptions> OptimizerOptions::clone() const {
  CTORCH_CHECK(false,
               "clone() has not been implemented for torch::optim::OptimizerOptions. ",
               "Subclass torch::optim::OptimizerCloneableOptions<YourOptimizerOptions> ",
               "instead of torch::optim::OptimizerOptions to inherit the ability to clone.");
}
void OptimizerOptions::serialize(serialize::InputArchive&) {
  CTORCH_CHECK_NOT_IMPLEMENTED(false, "void serialize(torch::serialize::InputArchive& archive) has not been implemented for torch::optim::OptimizerOptions.");
}
void OptimizerOptions::serialize(serialize::OutputArchive&) const {
  CTORCH_CHECK_NOT_IMPLEMENTED(false, "void serialize(torch::serialize::OutputArchive& archive) has not been implemented for torch::optim::OptimizerOptions.");
}
double OptimizerOptions::get_lr() const {
  CTORCH_CHECK(false, "double get_lr() has not been overidden and implemented in subclass of torch::optim::OptimizerOptions, you must override it in your subclass.");
}
void OptimizerOptions::set_lr(double) {
  CTORCH_CHECK(false, "double set_lr() has not been overidden and implemented in subclass of torch::optim::OptimizerOptions, you must override it in your subclass.");
}

OptimizerParamGroup& OptimizerParamGroup::operator=(const OptimizerParamGroup& other) {
  if (this != &other) {
    params_ = other.params_;
    options_ = other.has_options() ? other.options().clone() : nullptr;
  }
  return *this;
}

OptimizerOptions& OptimizerParamGroup::options() {
  CTORCH_CHECK(options_ != nullptr, "[OptimizerParamGroup::options] The parameter group has no options");
  return *options_;
}

const OptimizerOptions& OptimizerParamGroup::options() const {
  CTORCH_CHECK(options_ != nullptr, "[OptimizerParamGroup::options] The parameter group has no options");
  return *options_;
}

Optimizer::Optimizer(std::vector<OptimizerParamGroup> param_groups, std::unique_ptr<OptimizerOptions> defaults)
    : defaults_(std::move(defaults)) {
  for (const auto& group : param_groups) add_param_group(group);
}

void Optimizer::add_param_group(const OptimizerParamGroup& param_group) {
  for (const auto& param : param_group.params()) CTORCH_CHECK(param.is_leaf(), "can't optimize a non-leaf Tensor");
  CTORCH_INTERNAL_ASSERT(defaults_ != nullptr);
  OptimizerParamGroup group(param_group.params());
  group.set_options(param_group.has_options() ? param_group.options().clone() : defaults_->clone());
  for (const auto& p : group.params()) {
    CTORCH_CHECK(state_.count(detail::param_key(p)) == 0, "some parameters appear in more than one parameter group");
  }
  param_groups_.emplace_back(std::move(group));
}

void Optimizer::add_parameters(const std::vector<Tensor>& parameters) {
  ::ctorch::warn("Optimizer::add_parameters() will be removed in PyTorch 1.6");
  auto& params = param_groups_.at(0).params();
  params.insert(params.end(), parameters.begin(), parameters.end());
}

void Optimizer::zero_grad() {
  for (auto& group : param_groups_) ::ctorch::autograd::zero_grad(group.params(), /*set_to_none=*/false);
}

const std::vector<Tensor>& Optimizer::parameters() const noexcept {
  ::ctorch::warn("Optimizer::parameters() will be removed in PyTorch 1.6");
  return param_groups_.at(0).params();
}

std::vector<Tensor>& Optimizer::parameters() noexcept {
  ::ctorch::warn("Optimizer::parameters() will be removed in PyTorch 1.6");
  return param_groups_.at(0).params();
}

size_t Optimizer::size() const noexcept {
  ::ctorch::warn("Optimizer::size() will be removed in PyTorch 1.6");
  size_t count = 0;
  for (const auto& group : param_groups_) count += group.params().size();
  return count;
}

void Optimizer::save(serialize::OutputArchive&) const {
  CTORCH_CHECK_NOT_IMPLEMENTED(false, "[Optimizer::save] This optimizer does not implement save()");
}

void Optimizer::load(serialize::InputArchive&) {
  CTORCH_CHECK_NOT_IMPLEMENTED(false, "[Optimizer::load] This optimizer does not implement load()");
}

serialize::OutputArchive& operator<<(serialize::OutputArchive& archive, const Optimizer& optimizer) {
  optimizer.save(archive);
  return archive;
}

serialize::InputArchive& operator>>(serialize::InputArchive& archive, Optimizer& optimizer) {
  optimizer.load(archive);
  return archive;
}

namespace detail {

// libtorch 1.13's layout: "pytorch_version", "state"/<param key>/<field>,
// "param_groups"/"param_groups/size", "param_groups/<i>"/{"params/size", "params/<j>", "options"/<field>}.
void save_optimizer_impl(const Optimizer& optimizer, serialize::OutputArchive& archive) {
  archive.write("pytorch_version", IValue("1.5.0"));
  serialize::OutputArchive state_archive;
  for (const auto& [key, state] : optimizer.state()) {
    serialize::OutputArchive param_state_archive;
    state->serialize(param_state_archive);
    state_archive.write(key, param_state_archive);
  }
  archive.write("state", state_archive);
  serialize::OutputArchive groups_archive;
  const auto& groups = optimizer.param_groups();
  groups_archive.write("param_groups/size", ::ctorch::tensor(static_cast<int64_t>(groups.size())));
  for (size_t i = 0; i < groups.size(); ++i) {
    serialize::OutputArchive group_archive;
    const auto& params = groups[i].params();
    group_archive.write("params/size", ::ctorch::tensor(static_cast<int64_t>(params.size())));
    for (size_t j = 0; j < params.size(); ++j) group_archive.write("params/" + std::to_string(j), IValue(param_key(params[j])));
    serialize::OutputArchive options_archive;
    groups[i].options().serialize(options_archive);
    group_archive.write("options", options_archive);
    groups_archive.write("param_groups/" + std::to_string(i), group_archive);
  }
  archive.write("param_groups", groups_archive);
}

bool load_optimizer(Optimizer& optimizer, serialize::InputArchive& archive,
                    const std::function<std::unique_ptr<OptimizerParamState>()>& make_state,
                    const std::function<std::unique_ptr<OptimizerOptions>()>& make_options) {
  IValue version;
  if (!archive.try_read("pytorch_version", version)) return false;
  CTORCH_CHECK(version.kind() == IValue::Kind::String && version.to_string() == "1.5.0",
               "[Optimizer::load] Expected an archive of pytorch_version 1.5.0");
  std::unordered_map<std::string, std::unique_ptr<OptimizerParamState>> saved_state;
  serialize::InputArchive state_archive;
  if (archive.try_read("state", state_archive)) {  // an optimizer without state saves an empty "state"
    for (const std::string& key : state_archive.keys()) {
      serialize::InputArchive param_state_archive;
      state_archive.read(key, param_state_archive);
      auto state = make_state();
      state->serialize(param_state_archive);
      saved_state[key] = std::move(state);
    }
  }
  serialize::InputArchive groups_archive;
  archive.read("param_groups", groups_archive);
  Tensor size_tensor;
  groups_archive.read("param_groups/size", size_tensor);
  const auto num_groups = static_cast<size_t>(size_tensor.item<int64_t>());
  std::vector<std::pair<std::vector<std::string>, std::unique_ptr<OptimizerOptions>>> saved_groups;
  for (size_t i = 0; i < num_groups; ++i) {
    serialize::InputArchive group_archive;
    groups_archive.read("param_groups/" + std::to_string(i), group_archive);
    Tensor n;
    group_archive.read("params/size", n);
    std::vector<std::string> keys;
    for (int64_t j = 0; j < n.item<int64_t>(); ++j) {
      IValue key;
      group_archive.read("params/" + std::to_string(j), key);
      keys.push_back(key.to_string());
    }
    serialize::InputArchive options_archive;
    auto options = make_options();
    if (group_archive.try_read("options", options_archive)) options->serialize(options_archive);
    saved_groups.emplace_back(std::move(keys), std::move(options));
  }
  auto& groups = optimizer.param_groups();
  CTORCH_CHECK_VALUE(saved_groups.size() == groups.size(), "loaded state dict has a different number of parameter groups");
  for (size_t i = 0; i < saved_groups.size(); ++i) {
    CTORCH_CHECK_VALUE(saved_groups[i].first.size() == groups[i].params().size(),
                       "loaded state dict contains a parameter group that has a different size than the optimizer's parameter group");
  }
  for (size_t i = 0; i < saved_groups.size(); ++i) {
    const auto& params = groups[i].params();
    for (size_t j = 0; j < params.size(); ++j) {
      auto it = saved_state.find(saved_groups[i].first[j]);
      if (it != saved_state.end()) optimizer.state()[param_key(params[j])] = std::move(it->second);
    }
    groups[i].set_options(std::move(saved_groups[i].second));
  }
  return true;
}

std::vector<Tensor> read_buffers(serialize::InputArchive& archive, const std::string& key) {
  std::vector<Tensor> out;
  Tensor size_tensor;
  if (!archive.try_read(key + "/size", size_tensor)) return out;
  const int64_t size = size_tensor.item<int64_t>();
  for (int64_t i = 0; i < size; ++i) {
    out.emplace_back();
    archive.read(key + "/" + std::to_string(i), out.back(), /*is_buffer=*/true);
  }
  return out;
}

void warn_old_format(const char* optimizer) {
  ::ctorch::warn(::ctorch::detail::str_cat("Your serialized ", optimizer,
                                           " optimizer is still using the old serialization format. "
                                           "You should re-save your ",
                                           optimizer, " optimizer to use the new serialization format."));
}

}  // namespace detail

void LRScheduler::step() {
  const std::vector<double> lrs = get_lrs();
  auto& groups = optimizer_.param_groups();
  CTORCH_CHECK(lrs.size() == groups.size(), "Number of learning rates not equal to the number of param groups\n",
               "Number of learning rates given: ", lrs.size(), "\nNumber of param groups: ", groups.size());
  for (size_t i = 0; i < groups.size(); ++i) groups[i].options().set_lr(lrs[i]);
  ++step_count_;
}

std::vector<double> LRScheduler::get_current_lrs() const {
  std::vector<double> lrs;
  for (const auto& group : optimizer_.param_groups()) lrs.push_back(group.options().get_lr());
  return lrs;
}

StepLR::StepLR(Optimizer& optimizer, unsigned step_size, double gamma)
    : LRScheduler(optimizer), step_size_(step_size), gamma_(gamma) {}

std::vector<double> StepLR::get_lrs() {
  std::vector<double> lrs = get_current_lrs();
  if (step_count_ != 0 && step_count_ % step_size_ == 0) {
    for (double& lr : lrs) lr *= gamma_;
  }
  return lrs;
}

}  // namespace torch::optim
