// libtorch's AnyModule (torch/nn/modules/container/any.h): a module with any forward signature,
// called through AnyValues, as Sequential stores its layers; and NamedAnyModule, Sequential's
// named entries.
#pragma once

#include <initializer_list>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <type_traits>
#include <typeinfo>
#include <utility>
#include <vector>

#include "ctorch/libtorch/any_value.h"
#include "ctorch/nn_module.h"

namespace torch::nn {

template <class Contained>
class ModuleHolder;

namespace detail {
/// A class derived from nn::Module (what containers store by value).
template <class M>
concept module_type = std::is_base_of_v<::ctorch::nn::Module, std::remove_cvref_t<M>>;
/// forward's argument types allowed in an AnyModule: values or const references.
template <class... A>
constexpr bool no_lvalue_references = ((!std::is_lvalue_reference_v<A> || std::is_const_v<std::remove_reference_t<A>>) && ...);
/// The demangled name of a type (c10::demangle).
inline std::string type_name(const std::type_info& t) { return ::ctorch::autograd::demangled_name(t.name()); }
}  // namespace detail

/// What AnyModule keeps: the module with its forward's argument types erased.
struct AnyModulePlaceholder {
  explicit AnyModulePlaceholder(const std::type_info& t) : type_info(t) {}
  virtual ~AnyModulePlaceholder() = default;
  /// Calls forward with `arguments` converted back to its argument types.
  virtual AnyValue forward(std::vector<AnyValue>&& arguments) = 0;
  /// The module.
  virtual std::shared_ptr<::ctorch::nn::Module> ptr() = 0;
  /// A placeholder of the same module.
  virtual std::unique_ptr<AnyModulePlaceholder> copy() const = 0;
  /// A placeholder of the module's clone.
  virtual std::unique_ptr<AnyModulePlaceholder> clone_module(std::optional<::ctorch::Device> device) const = 0;
  /// A placeholder of `module`, another instance of the same class (a replica's child).
  virtual std::unique_ptr<AnyModulePlaceholder> with_module(std::shared_ptr<::ctorch::nn::Module> module) const = 0;
  const std::type_info& type_info;
};

/// The placeholder of a ModuleType whose forward takes ArgumentTypes.
template <class ModuleType, class... ArgumentTypes>
struct AnyModuleHolder : AnyModulePlaceholder {
  explicit AnyModuleHolder(std::shared_ptr<ModuleType> m) : AnyModulePlaceholder(typeid(ModuleType)), module(std::move(m)) {}

  AnyValue forward(std::vector<AnyValue>&& arguments) override {
    constexpr size_t n = sizeof...(ArgumentTypes);
    if constexpr (requires(ModuleType& m) { m._forward_has_default_args(); }) {
      CTORCH_CHECK(arguments.size() >= module->_forward_num_required_args() && arguments.size() <= n,
                   detail::type_name(type_info), "'s forward() method expects at least ",
                   module->_forward_num_required_args(), " argument(s) and at most ", n,
                   " argument(s), but received ", arguments.size(), ".");
      arguments = module->_forward_populate_default_args(std::move(arguments));
    } else {
      CTORCH_CHECK(arguments.size() == n, detail::type_name(type_info), "'s forward() method expects ", n,
                   " argument(s), but received ", arguments.size(), ".",
                   arguments.size() < n ? " If " + detail::type_name(type_info) +
                                              "'s forward() method has default arguments, please make sure the "
                                              "forward() method is declared with a corresponding "
                                              "`FORWARD_HAS_DEFAULT_ARGS` macro."
                                        : std::string());
    }
    return invoke(arguments, std::index_sequence_for<ArgumentTypes...>{});
  }
  std::shared_ptr<::ctorch::nn::Module> ptr() override { return module; }
  std::unique_ptr<AnyModulePlaceholder> copy() const override { return std::make_unique<AnyModuleHolder>(*this); }
  std::unique_ptr<AnyModulePlaceholder> clone_module(std::optional<::ctorch::Device> device) const override {
    return std::make_unique<AnyModuleHolder>(std::dynamic_pointer_cast<ModuleType>(module->clone(device)));
  }
  std::unique_ptr<AnyModulePlaceholder> with_module(std::shared_ptr<::ctorch::nn::Module> other) const override {
    auto typed = std::dynamic_pointer_cast<ModuleType>(std::move(other));
    CTORCH_CHECK(typed != nullptr, "AnyModule: the replacement is not a ", detail::type_name(type_info));
    return std::make_unique<AnyModuleHolder>(std::move(typed));
  }

  std::shared_ptr<ModuleType> module;

 private:
  template <class T>
  static std::decay_t<T>&& argument(std::vector<AnyValue>& arguments, size_t index) {
    if (auto* value = arguments[index].template try_get<std::decay_t<T>>()) return std::move(*value);
    CTORCH_CHECK(false, "Expected argument #", index, " to be of type ", detail::type_name(typeid(T)),
                 ", but received value of type ", detail::type_name(arguments[index].type_info()));
  }
  template <size_t... I>
  AnyValue invoke(std::vector<AnyValue>& arguments, std::index_sequence<I...>) {
    return AnyValue(module->forward(argument<ArgumentTypes>(arguments, I)...));
  }
};

/// Any module with a forward method, its argument and return types erased (libtorch's AnyModule).
class AnyModule {
 public:
  AnyModule() = default;
  /// Stores `module`; its class must have exactly one forward.
  template <class ModuleType>
  explicit AnyModule(std::shared_ptr<ModuleType> module)
      : content_(make_holder(std::move(module), &std::remove_reference_t<ModuleType>::forward)) {
    static_assert(detail::module_type<ModuleType>, "Can only store object derived from nn::Module into AnyModule");
  }
  /// Stores a copy of `module`.
  template <class ModuleType>
    requires detail::module_type<ModuleType>
  explicit AnyModule(ModuleType&& module)
      : AnyModule(std::make_shared<std::remove_cvref_t<ModuleType>>(std::forward<ModuleType>(module))) {}
  /// Stores the module a holder owns.
  template <class ModuleType>
  explicit AnyModule(const ModuleHolder<ModuleType>& holder) : AnyModule(holder.ptr()) {}
  AnyModule(AnyModule&&) = default;
  AnyModule& operator=(AnyModule&&) = default;
  AnyModule(const AnyModule& other) : content_(other.content_ ? other.content_->copy() : nullptr) {}
  AnyModule& operator=(const AnyModule& other) {
    if (this != &other) content_ = other.content_ ? other.content_->copy() : nullptr;
    return *this;
  }
  /// Replaces the stored module.
  template <class ModuleType>
  AnyModule& operator=(std::shared_ptr<ModuleType> module) {
    return *this = AnyModule(std::move(module));
  }

  /// An AnyModule of the module's deep copy (on `device` when given).
  AnyModule clone(std::optional<::ctorch::Device> device = std::nullopt) const {
    AnyModule out;
    out.content_ = content_ ? content_->clone_module(device) : nullptr;
    return out;
  }
  /// Calls forward; the result as an AnyValue.
  template <class... ArgumentTypes>
  AnyValue any_forward(ArgumentTypes&&... arguments) {
    CTORCH_CHECK(!is_empty(), "Cannot call forward() on an empty AnyModule");
    std::vector<AnyValue> values;
    values.reserve(sizeof...(ArgumentTypes));
    (values.emplace_back(std::forward<ArgumentTypes>(arguments)), ...);
    return content_->forward(std::move(values));
  }
  /// Calls forward; the result as a ReturnType.
  template <class ReturnType = ::ctorch::Tensor, class... ArgumentTypes>
  ReturnType forward(ArgumentTypes&&... arguments) {
    return any_forward(std::forward<ArgumentTypes>(arguments)...).template get<ReturnType>();
  }
  /// The module as a T (an error names both types when it is another class).
  template <class T>
    requires detail::module_type<T>
  T& get() const {
    CTORCH_CHECK(!is_empty(), "Cannot call get() on an empty AnyModule");
    CTORCH_CHECK(typeid(T) == type_info(), "Attempted to cast module of type ", detail::type_name(type_info()),
                 " to type ", detail::type_name(typeid(T)));
    return static_cast<T&>(*content_->ptr());
  }
  /// The module as a holder T.
  template <class T, class ContainedType = typename T::ContainedType>
  T get() const {
    return T(ptr<ContainedType>());
  }
  /// The module.
  std::shared_ptr<::ctorch::nn::Module> ptr() const {
    CTORCH_CHECK(!is_empty(), "Cannot call ptr() on an empty AnyModule");
    return content_->ptr();
  }
  /// The module as a T (checked as get<T>()).
  template <class T>
    requires detail::module_type<T>
  std::shared_ptr<T> ptr() const {
    get<T>();
    return std::dynamic_pointer_cast<T>(ptr());
  }
  /// The stored module's static type.
  const std::type_info& type_info() const {
    CTORCH_CHECK(!is_empty(), "Cannot call type_info() on an empty AnyModule");
    return content_->type_info;
  }
  /// True when nothing is stored.
  bool is_empty() const noexcept { return content_ == nullptr; }
  /// The same kind of AnyModule over `module` (a replica of the stored module).
  AnyModule with_module(std::shared_ptr<::ctorch::nn::Module> module) const {
    AnyModule out;
    out.content_ = content_->with_module(std::move(module));
    return out;
  }

 private:
  template <class ModuleType, class Class, class ReturnType, class... ArgumentTypes>
  static std::unique_ptr<AnyModulePlaceholder> make_holder(std::shared_ptr<ModuleType>&& module,
                                                           ReturnType (Class::*)(ArgumentTypes...)) {
    static_assert(detail::no_lvalue_references<ArgumentTypes...>,
                  "Modules stored inside AnyModule must not take references. Use pointers instead.");
    static_assert(!std::is_void_v<ReturnType>, "AnyModule cannot store modules that return void (you can return a dummy value).");
    return std::make_unique<AnyModuleHolder<std::decay_t<ModuleType>, ArgumentTypes...>>(std::move(module));
  }
  template <class ModuleType, class Class, class ReturnType, class... ArgumentTypes>
  static std::unique_ptr<AnyModulePlaceholder> make_holder(std::shared_ptr<ModuleType>&& module,
                                                           ReturnType (Class::*)(ArgumentTypes...) const) {
    static_assert(detail::no_lvalue_references<ArgumentTypes...>,
                  "Modules stored inside AnyModule must not take references. Use pointers instead.");
    return std::make_unique<AnyModuleHolder<std::decay_t<ModuleType>, ArgumentTypes...>>(std::move(module));
  }

  std::unique_ptr<AnyModulePlaceholder> content_;
};

/// A name and an AnyModule: the entries of `Sequential({{"name", module}, ...})`.
class NamedAnyModule {
 public:
  template <class ModuleType>
  NamedAnyModule(std::string name, std::shared_ptr<ModuleType> module)
      : NamedAnyModule(std::move(name), AnyModule(std::move(module))) {}
  template <class M>
    requires detail::module_type<M>
  NamedAnyModule(std::string name, M&& module)
      : NamedAnyModule(std::move(name), std::make_shared<std::remove_cvref_t<M>>(std::forward<M>(module))) {}
  template <class M>
  NamedAnyModule(std::string name, const ModuleHolder<M>& holder) : NamedAnyModule(std::move(name), holder.ptr()) {}
  NamedAnyModule(std::string name, AnyModule module) : name_(std::move(name)), module_(std::move(module)) {}

  /// The name.
  const std::string& name() const noexcept { return name_; }
  /// The module.
  AnyModule& module() noexcept { return module_; }
  const AnyModule& module() const noexcept { return module_; }

 private:
  std::string name_;
  AnyModule module_;
};

}  // namespace torch::nn
