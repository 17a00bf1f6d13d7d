// nn::ModuleList's insert, extend and index checks (torch.nn.ModuleList).
#include <algorithm>
#include <string>

#include "ctorch/error.h"
#include "ctorch/nn_layers.h"

namespace ctorch::nn {

size_t ModuleList::checked_index(int64_t index) const {
  const auto n = static_cast<int64_t>(modules_.size());
  CTORCH_CHECK_INDEX(index >= -n && index < n, "index ", index, " is out of range");
  return static_cast<size_t>(index < 0 ? index + n : index);
}

void ModuleList::insert(int64_t index, std::shared_ptr<Module> module) {
  CTORCH_CHECK(module != nullptr, "ModuleList.insert: the module is null");
  const auto n = static_cast<int64_t>(modules_.size());
  // Python's list.insert clamps the index; the children keep the names "0", "1", ... in order.
  if (index < 0) index = std::max<int64_t>(index + n, 0);
  index = std::min(index, n);
  modules_.insert(modules_.begin() + index, std::move(module));
  for (size_t i = static_cast<size_t>(index); i + 1 < modules_.size(); ++i) replace_module(std::to_string(i), modules_[i]);
  register_module(std::to_string(modules_.size() - 1), modules_.back());
}

void ModuleList::extend(const std::vector<std::shared_ptr<Module>>& modules) {
  for (const auto& m : modules) push_back(m);
}

}  // namespace ctorch::nn
