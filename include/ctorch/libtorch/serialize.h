// libtorch's torch::save / torch::load for tensors, tensor lists, modules and optimizers, over
// ctorch::save / ctorch::load. The files are PyTorch's torch.save format (a module as its
// state_dict, an optimizer as its state_dict), so Python's torch.load reads them and Python's
// torch.save writes what these load; libtorch itself writes TorchScript archives here.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "ctorch/libtorch/nn.h"

namespace torch {

/// torch::save(tensor, path).
inline void save(const Tensor& tensor, const std::string& path) { ::ctorch::save(::ctorch::serialization::Value(tensor), path); }
/// torch::save(tensors, path): a list of tensors.
inline void save(const std::vector<Tensor>& tensors, const std::string& path) {
  std::vector<::ctorch::serialization::Value> items(tensors.begin(), tensors.end());
  ::ctorch::save(::ctorch::serialization::Value::list(std::move(items)), path);
}
/// torch::save(module, path): the module's state_dict.
template <class M>
void save(const nn::ModuleHolder<M>& module, const std::string& path) {
  ::ctorch::save(module->state_dict(), path);
}
/// torch::save(module_ptr, path): the module's state_dict.
template <class M>
  requires std::is_base_of_v<::ctorch::nn::Module, M>
void save(const std::shared_ptr<M>& module, const std::string& path) {
  ::ctorch::save(module->state_dict(), path);
}
/// torch::save(optimizer, path): the optimizer's state_dict.
inline void save(const optim::Optimizer& optimizer, const std::string& path) { ::ctorch::save(optimizer.state_dict(), path); }

/// torch::load(tensor, path, device): `tensor` becomes the saved tensor (on `device` when given).
inline void load(Tensor& tensor, const std::string& path, std::optional<Device> device = std::nullopt) {
  ::ctorch::serialization::MapLocation where;
  if (device) where = *device;
  tensor = ::ctorch::load(path, where).to_tensor();
}
/// torch::load(tensors, path, device).
inline void load(std::vector<Tensor>& tensors, const std::string& path, std::optional<Device> device = std::nullopt) {
  ::ctorch::serialization::MapLocation where;
  if (device) where = *device;
  std::vector<Tensor> out;
  for (const auto& v : ::ctorch::load(path, where).elements()) out.push_back(v.to_tensor());
  tensors = std::move(out);
}
/// torch::load(module, path, device): copies a saved state_dict in (strict; the module keeps its device
/// unless `device` is given, as libtorch's, which moves it there).
template <class M>
void load(nn::ModuleHolder<M>& module, const std::string& path, std::optional<Device> device = std::nullopt) {
  module->load_state_dict(::ctorch::load(path, Device(kCPU)).to_state_dict());
  if (device) module->to(*device);
}
/// torch::load(module_ptr, path, device).
template <class M>
  requires std::is_base_of_v<::ctorch::nn::Module, M>
void load(std::shared_ptr<M>& module, const std::string& path, std::optional<Device> device = std::nullopt) {
  module->load_state_dict(::ctorch::load(path, Device(kCPU)).to_state_dict());
  if (device) module->to(*device);
}
/// torch::load(optimizer, path): hyper-parameters and state (moved to each parameter's device).
inline void load(optim::Optimizer& optimizer, const std::string& path) {
  optimizer.load_state_dict(::ctorch::load(path, Device(kCPU)));
}

}  // namespace torch
