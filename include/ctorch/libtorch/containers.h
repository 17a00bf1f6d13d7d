// libtorch's module containers (torch/nn/modules/container/): Sequential (a chain of AnyModules
// whose forward takes and returns any types), ModuleList and ModuleDict (ctorch::nn::ModuleList and
// ctorch::nn::ModuleDict with libtorch's spellings), and `stream << holder` (libtorch's pretty
// print). Included by libtorch/nn.h after ModuleHolder.
#pragma once

#include <initializer_list>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "ctorch/libtorch/any_module.h"
#include "ctorch/nn_layers.h"
#include "ctorch/nn_module_dict.h"

namespace torch::nn {

/// Prints the module a holder owns (libtorch's pretty print in a program that includes <ctorch/torch.h>).
template <class Contained>
std::ostream& operator<<(std::ostream& stream, const ModuleHolder<Contained>& holder) {
  return stream << *holder;
}

/// libtorch's SequentialImpl: modules of any forward signature, each one's output the next one's input.
class SequentialImpl : public ::ctorch::nn::Module {
  CTORCH_MODULE_REPLICABLE(SequentialImpl)
  void rebind() override {
    const auto children = named_children();
    CTORCH_CHECK(children.size() == modules_.size(), "Sequential: ", children.size(), " children for ", modules_.size(),
                 " modules (a child registered outside push_back?)");
    for (size_t i = 0; i < modules_.size(); ++i) modules_[i] = modules_[i].with_module(children[i].value());
  }

 public:
  using Iterator = std::vector<AnyModule>::iterator;
  using ConstIterator = std::vector<AnyModule>::const_iterator;

  SequentialImpl() = default;
  /// The given modules (holders, shared pointers, modules by value, AnyModules), named "0", "1", ...
  template <class First, class... Rest>
    requires(!(std::is_same_v<std::remove_cvref_t<First>, SequentialImpl> && sizeof...(Rest) == 0))
  explicit SequentialImpl(First&& first, Rest&&... rest) {
    modules_.reserve(1 + sizeof...(Rest));
    push_back(std::forward<First>(first));
    (push_back(std::forward<Rest>(rest)), ...);
  }
  /// The entries of an ordered dict of AnyModules, under their keys.
  explicit SequentialImpl(::ctorch::OrderedDict<std::string, AnyModule>&& ordered_dict) {
    for (auto& item : ordered_dict) push_back(item.key(), std::move(item.value()));
  }
  /// Named entries.
  explicit SequentialImpl(std::initializer_list<NamedAnyModule> named_modules) {
    for (const auto& m : named_modules) push_back(m.name(), m.module());
  }

  /// Writes "torch::nn::Sequential".
  void pretty_print(std::ostream& stream) const override { stream << "torch::nn::Sequential"; }

  /// Feeds `inputs` to the first module and each output to the next; the last output as ReturnType.
  template <class ReturnType = ::ctorch::Tensor, class... InputTypes>
  ReturnType forward(InputTypes&&... inputs) {
    CTORCH_CHECK(!is_empty(), "Cannot call forward() on an empty Sequential");
    auto it = modules_.begin();
    AnyValue value = it->any_forward(std::forward<InputTypes>(inputs)...);
    for (++it; it != modules_.end(); ++it) value = it->any_forward(std::move(value));
    if (auto* out = value.template try_get<ReturnType>()) return std::move(*out);
    CTORCH_CHECK(false, "The type of the return value is ", detail::type_name(value.type_info()),
                 ", but you asked for type ", detail::type_name(typeid(ReturnType)));
  }

  /// Appends a module under its index.
  template <class ModuleType>
  void push_back(std::shared_ptr<ModuleType> module) {
    push_back(std::to_string(modules_.size()), std::move(module));
  }
  /// Appends a module under `name`.
  template <class ModuleType>
  void push_back(std::string name, std::shared_ptr<ModuleType> module) {
    push_back(std::move(name), AnyModule(std::move(module)));
  }
  /// Appends a copy of `module`.
  template <class M>
    requires detail::module_type<M>
  void push_back(M&& module) {
    push_back(std::to_string(modules_.size()), std::forward<M>(module));
  }
  /// Appends a copy of `module` under `name`.
  template <class M>
    requires detail::module_type<M>
  void push_back(std::string name, M&& module) {
    push_back(std::move(name), std::make_shared<std::remove_cvref_t<M>>(std::forward<M>(module)));
  }
  /// Appends the module a holder owns.
  template <class M>
  void push_back(const ModuleHolder<M>& holder) {
    push_back(std::to_string(modules_.size()), holder);
  }
  /// Appends the module a holder owns under `name`.
  template <class M>
  void push_back(std::string name, const ModuleHolder<M>& holder) {
    push_back(std::move(name), holder.ptr());
  }
  /// Appends an AnyModule.
  void push_back(AnyModule any_module) { push_back(std::to_string(modules_.size()), std::move(any_module)); }
  /// Appends an AnyModule under `name`.
  void push_back(std::string name, AnyModule any_module) {
    modules_.push_back(std::move(any_module));
    register_module(std::move(name), modules_.back().ptr());
  }
  /// Appends every module of `container` (another Sequential, a vector of modules, ...).
  template <class Container>
  void extend(const Container& container) {
    for (const auto& module : container) push_back(module);
  }

  Iterator begin() { return modules_.begin(); }
  ConstIterator begin() const { return modules_.begin(); }
  Iterator end() { return modules_.end(); }
  ConstIterator end() const { return modules_.end(); }

  /// Module `index` as a T ("Index out of range" past the end).
  template <class T>
  T& at(size_t index) const {
    static_assert(detail::module_type<T>, "Can only call Sequential::at with an nn::Module type");
    CTORCH_CHECK(index < size(), "Index out of range");
    return modules_[index].get<T>();
  }
  /// Module `index`.
  std::shared_ptr<::ctorch::nn::Module> ptr(size_t index) const {
    CTORCH_CHECK(index < size(), "Index out of range");
    return modules_[index].ptr();
  }
  /// Module `index` as a T.
  template <class T>
  std::shared_ptr<T> ptr(size_t index) const {
    static_assert(detail::module_type<T>, "Can only call Sequential::ptr with an nn::Module type");
    CTORCH_CHECK(index < size(), "Index out of range");
    return modules_[index].ptr<T>();
  }
  /// Module `index`.
  std::shared_ptr<::ctorch::nn::Module> operator[](size_t index) const { return ptr(index); }
  /// Number of modules.
  size_t size() const noexcept { return modules_.size(); }
  /// True when there is no module.
  bool is_empty() const noexcept { return modules_.empty(); }

 private:
  std::vector<AnyModule> modules_;
};

/// libtorch's Sequential holder, also built from named entries: Sequential({{"fc", Linear(3, 4)}}).
class Sequential : public ModuleHolder<SequentialImpl> {
 public:
  using ModuleHolder<SequentialImpl>::ModuleHolder;
  Sequential() : ModuleHolder() {}
  /// Named entries.
  Sequential(std::initializer_list<NamedAnyModule> named_modules)
      : ModuleHolder(std::make_shared<SequentialImpl>(named_modules)) {}
};

/// libtorch's ModuleListImpl: ctorch's ModuleList taking holders, shared pointers and modules by value.
class ModuleListImpl : public ::ctorch::nn::ModuleList {
  CTORCH_MODULE_REPLICABLE(ModuleListImpl)

 public:
  using Iterator = std::vector<std::shared_ptr<::ctorch::nn::Module>>::const_iterator;
  using ConstIterator = Iterator;

  ModuleListImpl() = default;
  /// The given modules, in order.
  template <class First, class... Rest>
    requires(!(std::is_same_v<std::remove_cvref_t<First>, ModuleListImpl> && sizeof...(Rest) == 0))
  explicit ModuleListImpl(First&& first, Rest&&... rest) {
    push_back(std::forward<First>(first));
    (push_back(std::forward<Rest>(rest)), ...);
  }

  /// Writes "torch::nn::ModuleList".
  void pretty_print(std::ostream& stream) const override { stream << "torch::nn::ModuleList"; }

  using ::ctorch::nn::ModuleList::push_back;
  /// Appends a copy of `module`.
  template <class M>
    requires detail::module_type<M>
  void push_back(M&& module) {
    push_back(std::make_shared<std::remove_cvref_t<M>>(std::forward<M>(module)));
  }
  /// Appends the module a holder owns.
  template <class M>
  void push_back(const ModuleHolder<M>& holder) {
    push_back(holder.ptr());
  }
  /// Appends every module of `container`.
  template <class Container>
  void extend(const Container& container) {
    for (const auto& module : container) push_back(module);
  }
  /// Inserts `module` before `index` (at most size()).
  void insert(size_t index, std::shared_ptr<::ctorch::nn::Module> module) {
    CTORCH_CHECK(index <= size(), "Index out of range");
    ::ctorch::nn::ModuleList::insert(static_cast<int64_t>(index), std::move(module));
  }
  /// Inserts the module a holder owns.
  template <class M>
  void insert(size_t index, const ModuleHolder<M>& holder) {
    insert(index, holder.ptr());
  }
  /// Inserts a copy of `module`.
  template <class M>
    requires detail::module_type<M>
  void insert(size_t index, M&& module) {
    insert(index, std::make_shared<std::remove_cvref_t<M>>(std::forward<M>(module)));
  }

  /// Module `index` as a T ("Index out of range" past the end).
  template <class T>
  T& at(size_t index) const {
    static_assert(detail::module_type<T>, "Can only call ModuleList::at with an nn::Module type");
    CTORCH_CHECK(index < size(), "Index out of range");
    auto* module = ::ctorch::nn::ModuleList::ptr(static_cast<int64_t>(index))->template as<T>();
    CTORCH_CHECK(module, "Unable to cast module[", index, "] to ", detail::type_name(typeid(T)));
    return *module;
  }
  /// Module `index`.
  std::shared_ptr<::ctorch::nn::Module> ptr(size_t index) const {
    CTORCH_CHECK(index < size(), "Index out of range");
    return ::ctorch::nn::ModuleList::ptr(static_cast<int64_t>(index));
  }
  /// Module `index` as a T.
  template <class T>
  std::shared_ptr<T> ptr(size_t index) const {
    static_assert(detail::module_type<T>, "Can only call ModuleList::ptr with an nn::Module type");
    return std::dynamic_pointer_cast<T>(ptr(index));
  }
  /// Module `index`.
  std::shared_ptr<::ctorch::nn::Module> operator[](size_t index) const { return ptr(index); }
};
TORCH_MODULE(ModuleList);

/// libtorch's ModuleDictImpl: ctorch's ModuleDict with at<T>(key) and libtorch's pretty print.
class ModuleDictImpl : public ::ctorch::nn::ModuleDict {
  CTORCH_MODULE_REPLICABLE(ModuleDictImpl)

 public:
  using ::ctorch::nn::ModuleDict::ModuleDict;
  ModuleDictImpl() = default;

  /// Writes "torch::nn::ModuleDict".
  void pretty_print(std::ostream& stream) const override { stream << "torch::nn::ModuleDict"; }
  /// The module under `key` as a T.
  template <class T>
  T& at(const std::string& key) const {
    static_assert(detail::module_type<T>, "Can only call ModuleList::at with an nn::Module type");
    auto* module = (*this)[key]->template as<T>();
    CTORCH_CHECK(module, "Unable to cast module['", key, "'] to ", detail::type_name(typeid(T)));
    return *module;
  }
};
TORCH_MODULE(ModuleDict);

}  // namespace torch::nn
