// nn::ModuleDict: child modules by name, in insertion order (torch.nn.ModuleDict).
#pragma once

#include <initializer_list>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "ctorch/nn_module.h"

namespace ctorch::nn {

/// Holds submodules by key, registered under their keys (torch.nn.ModuleDict); it has no forward.
/// Setting a present key replaces its module in place; pop and erase also unregister it.
class ModuleDict : public Module {
  CTORCH_MODULE_REPLICABLE(ModuleDict)
  void rebind() override;

 public:
  /// The entries' iterator: items with key() and value().
  using ConstIterator = NamedModules::ConstIterator;

  ModuleDict() : Module("ModuleDict") {}
  /// The given (key, module) pairs, in order.
  explicit ModuleDict(const std::vector<std::pair<std::string, std::shared_ptr<Module>>>& modules);
  /// The entries of an ordered dict, in order.
  explicit ModuleDict(const NamedModules& modules);
  /// Braced (key, module) pairs: ModuleDict({{"fc", fc}, {"act", act}}).
  ModuleDict(std::initializer_list<std::pair<std::string, std::shared_ptr<Module>>> modules)
      : ModuleDict(std::vector<std::pair<std::string, std::shared_ptr<Module>>>(modules)) {}

  /// The module under `key` ("Key '<key>' is not defined" when absent).
  std::shared_ptr<Module> operator[](const std::string& key) const { return modules_[key]; }
  /// Sets `key` to `module` (ModuleDict[key] = module).
  void insert(const std::string& key, std::shared_ptr<Module> module);
  /// Removes `key` and returns its module.
  std::shared_ptr<Module> pop(const std::string& key);
  /// Removes `key` (del ModuleDict[key]).
  void erase(const std::string& key) { pop(key); }
  /// Sets every (key, module) of `modules`, in order.
  void update(const std::vector<std::pair<std::string, std::shared_ptr<Module>>>& modules);
  /// Sets every entry of `modules`, in order.
  void update(const NamedModules& modules);
  /// Sets braced (key, module) pairs, in order.
  void update(std::initializer_list<std::pair<std::string, std::shared_ptr<Module>>> modules) {
    update(std::vector<std::pair<std::string, std::shared_ptr<Module>>>(modules));
  }
  /// Sets every entry of another ModuleDict, in order.
  void update(const ModuleDict& other) { update(other.modules_); }
  /// Removes every entry.
  void clear();

  /// True when `key` is present.
  bool contains(const std::string& key) const noexcept { return modules_.contains(key); }
  /// Number of entries.
  size_t size() const noexcept { return modules_.size(); }
  /// True when there are no entries.
  bool empty() const noexcept { return modules_.is_empty(); }
  /// The keys, in order.
  std::vector<std::string> keys() const { return modules_.keys(); }
  /// The modules, in order.
  std::vector<std::shared_ptr<Module>> values() const { return modules_.values(); }
  /// The (key, module) pairs, in order.
  std::vector<std::pair<std::string, std::shared_ptr<Module>>> items() const { return modules_.pairs(); }
  ConstIterator begin() const { return modules_.begin(); }
  ConstIterator end() const { return modules_.end(); }

 private:
  NamedModules modules_;
};

}  // namespace ctorch::nn
