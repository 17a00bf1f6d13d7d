// nn::ModuleDict (torch.nn.ModuleDict).
#include "ctorch/nn_module_dict.h"

namespace ctorch::nn {

ModuleDict::ModuleDict(const std::vector<std::pair<std::string, std::shared_ptr<Module>>>& modules) : ModuleDict() {
  update(modules);
}

ModuleDict::ModuleDict(const NamedModules& modules) : ModuleDict() { update(modules); }

void ModuleDict::insert(const std::string& key, std::shared_ptr<Module> module) {
  CTORCH_CHECK(module != nullptr, "ModuleDict: the module for key '", key, "' is null");
  if (std::shared_ptr<Module>* present = modules_.find(key)) {
    *present = module;
    replace_module(key, std::move(module));
  } else {
    register_module(key, module);
    modules_.insert(key, std::move(module));
  }
}

std::shared_ptr<Module> ModuleDict::pop(const std::string& key) {
  std::shared_ptr<Module> module = modules_[key];
  modules_.erase(key);
  unregister_module(key);
  return module;
}

void ModuleDict::update(const std::vector<std::pair<std::string, std::shared_ptr<Module>>>& modules) {
  for (const auto& [key, module] : modules) insert(key, module);
}

void ModuleDict::update(const NamedModules& modules) {
  for (const auto& item : modules) insert(item.key(), item.value());
}

void ModuleDict::clear() {
  for (const std::string& key : modules_.keys()) unregister_module(key);
  modules_.clear();
}

void ModuleDict::rebind() {
  modules_.clear();
  for (const auto& item : named_children()) modules_.insert(item.key(), item.value());
}

}  // namespace ctorch::nn
