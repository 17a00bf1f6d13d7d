// libtorch's AnyValue (torch/nn/modules/container/any_value.h): one value of any type, what
// AnyModule's forward takes and returns, and FORWARD_HAS_DEFAULT_ARGS, which lets a module's forward
// called through AnyModule (Sequential) leave out trailing arguments that have defaults.
#pragma once

#include <memory>
#include <string>
#include <type_traits>
#include <typeinfo>
#include <utility>
#include <vector>

#include "ctorch/autograd_function.h"
#include "ctorch/error.h"

namespace torch::nn {

template <class ModuleType, class... ArgumentTypes>
struct AnyModuleHolder;

/// A value of any copyable type, read back as the type it holds (libtorch's AnyValue).
class AnyValue {
 public:
  AnyValue(AnyValue&&) = default;
  AnyValue& operator=(AnyValue&&) = default;
  AnyValue(const AnyValue& other) : content_(other.content_->clone()) {}
  AnyValue& operator=(const AnyValue& other) {
    content_ = other.content_->clone();
    return *this;
  }
  /// Holds `value` (decayed).
  template <class T>
    requires(!std::is_same_v<std::decay_t<T>, AnyValue>)
  explicit AnyValue(T&& value) : content_(std::make_unique<Holder<std::decay_t<T>>>(std::forward<T>(value))) {}

  /// The value when it is a T, else nullptr.
  template <class T>
  T* try_get() {
    static_assert(!std::is_reference_v<T>, "AnyValue stores decayed types, you cannot cast it to a reference type");
    static_assert(!std::is_array_v<T>, "AnyValue stores decayed types, you must cast it to T* instead of T[]");
    if (typeid(T) == type_info()) return &static_cast<Holder<T>&>(*content_).value;
    return nullptr;
  }
  /// The value as a T; an error names both types when it holds another.
  template <class T>
  T get() {
    if (T* value = try_get<T>()) return *value;
    CTORCH_CHECK(false, "Attempted to cast AnyValue to ", ::ctorch::autograd::demangled_name(typeid(T).name()),
                 ", but its actual type is ", ::ctorch::autograd::demangled_name(type_info().name()));
  }
  /// The held type.
  const std::type_info& type_info() const noexcept { return content_->type; }

 private:
  struct Placeholder {
    explicit Placeholder(const std::type_info& t) noexcept : type(t) {}
    virtual ~Placeholder() = default;
    virtual std::unique_ptr<Placeholder> clone() const = 0;
    const std::type_info& type;
  };
  template <class T>
  struct Holder : Placeholder {
    template <class U>
    explicit Holder(U&& v) : Placeholder(typeid(T)), value(std::forward<U>(v)) {}
    std::unique_ptr<Placeholder> clone() const override { return std::make_unique<Holder>(value); }
    T value;
  };
  std::unique_ptr<Placeholder> content_;
};

}  // namespace torch::nn

/// Declares, in a module class, the defaults of its forward's trailing arguments for calls through
/// AnyModule / Sequential: FORWARD_HAS_DEFAULT_ARGS({1, torch::nn::AnyValue(value)}, ...) with each
/// argument's position (libtorch's macro; AnyModule finds these members by name).
#define FORWARD_HAS_DEFAULT_ARGS(...)                                                                   \
  template <class, class...>                                                                            \
  friend struct ::torch::nn::AnyModuleHolder;                                                           \
  bool _forward_has_default_args() { return true; }                                                     \
  unsigned int _forward_num_required_args() {                                                           \
    std::pair<unsigned int, ::torch::nn::AnyValue> args_info[] = {__VA_ARGS__};                         \
    return args_info[0].first;                                                                          \
  }                                                                                                     \
  std::vector<::torch::nn::AnyValue> _forward_populate_default_args(                                    \
      std::vector<::torch::nn::AnyValue>&& arguments) {                                                 \
    std::pair<unsigned int, ::torch::nn::AnyValue> args_info[] = {__VA_ARGS__};                         \
    std::vector<::torch::nn::AnyValue> ret = std::move(arguments);                                      \
    for (auto& arg_info : args_info) {                                                                  \
      if (arg_info.first + 1 > ret.size()) ret.emplace_back(std::move(arg_info.second));                \
    }                                                                                                   \
    return ret;                                                                                         \
  }
