// libtorch's TORCH_ARG (torch/arg.h): a named option with a chainable setter and a getter, used as
// `TORCH_ARG(int64_t, stride) = 1;` inside an options struct.
#pragma once

#include <utility>

/// Declares option `name` of type T: `opts.name(v)` sets it and returns the options, `opts.name()` reads it.
#define TORCH_ARG(T, name)                                       \
 public:                                                         \
  inline auto name(const T& new_##name) -> decltype(*this) {     \
    this->name##_ = new_##name;                                  \
    return *this;                                                \
  }                                                              \
  inline auto name(T&& new_##name) -> decltype(*this) {          \
    this->name##_ = std::move(new_##name);                       \
    return *this;                                                \
  }                                                              \
  inline const T& name() const noexcept { return this->name##_; } \
  inline T& name() noexcept { return this->name##_; }            \
                                                                 \
 private:                                                        \
  T name##_ /* NOLINT */
