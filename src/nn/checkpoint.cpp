// nn::save / nn::load over the safetensors format (serialize/).
#include "ctorch/nn_checkpoint.h"

#include "ctorch/safetensors.h"

namespace ctorch::nn {

void save(const Module& module, const std::string& path) {
  std::map<std::string, Tensor> tensors;
  for (auto& [name, t] : module.state_dict()) tensors.emplace(name, t);
  safetensors::save_file(tensors, path);
}

void load(Module& module, const std::string& path, bool strict) {
  Device device(DeviceType::CPU);
  const NamedTensors own = module.state_dict();
  if (!own.empty()) device = own.front().second.device();
  // Everything is read and validated before load_state_dict checks names and shapes and copies.
  const std::map<std::string, Tensor> loaded = safetensors::load_file(path, device);
  NamedTensors state;
  for (const auto& [name, t] : loaded) state.insert(name, t);
  module.load_state_dict(state, strict);
}

}  // namespace ctorch::nn
