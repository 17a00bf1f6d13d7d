// libtorch's ExpandingArray<D, T> (torch/expanding_array.h): D values given as one value (repeated),
// a braced list, a vector or an ArrayRef of exactly D; ExpandingArrayWithOptionalElem allows
// nullopt elements (an adaptive pool's "keep this input size").
#pragma once

#include <array>
#include <cstddef>
#include <initializer_list>
#include <optional>
#include <ostream>
#include <sstream>
#include <string>
#include <vector>

#include "ctorch/array_ref.h"
#include "ctorch/error.h"

namespace torch {

/// D values of T, convertible to ArrayRef<T>.
template <size_t D, typename T = int64_t>
class ExpandingArray {
 public:
  /// D values from a braced list (checked).
  ExpandingArray(std::initializer_list<T> list) : ExpandingArray(::ctorch::ArrayRef<T>(list)) {}  // NOLINT
  /// D values from a vector (checked).
  ExpandingArray(std::vector<T> vec) : ExpandingArray(::ctorch::ArrayRef<T>(vec)) {}  // NOLINT
  /// D values from an ArrayRef (checked).
  ExpandingArray(::ctorch::ArrayRef<T> values) {  // NOLINT
    CTORCH_CHECK(values.size() == D, "Expected ", D, " values, but instead got ", values.size());
    for (size_t i = 0; i < D; ++i) values_[i] = values[i];
  }
  /// One value repeated D times.
  ExpandingArray(T single_size) { values_.fill(single_size); }  // NOLINT
  /// A correctly sized array.
  ExpandingArray(const std::array<T, D>& values) : values_(values) {}  // NOLINT

  std::array<T, D>& operator*() { return values_; }
  const std::array<T, D>& operator*() const { return values_; }
  std::array<T, D>* operator->() { return &values_; }
  const std::array<T, D>* operator->() const { return &values_; }
  /// The values as an ArrayRef.
  operator ::ctorch::ArrayRef<T>() const { return ::ctorch::ArrayRef<T>(values_.data(), D); }  // NOLINT
  /// D.
  size_t size() const noexcept { return D; }

 protected:
  std::array<T, D> values_;  // NOLINT(misc-non-private-member-variables-in-classes)
};

/// Prints one value when D is 1, else "[a, b]".
template <size_t D, typename T>
std::ostream& operator<<(std::ostream& stream, const ExpandingArray<D, T>& a) {
  if (D == 1) return stream << a->at(0);
  stream << "[";
  for (size_t i = 0; i < D; ++i) stream << (i ? ", " : "") << a->at(i);
  return stream << "]";
}

/// D optional values (nullopt: keep the input's size).
template <size_t D, typename T = int64_t>
class ExpandingArrayWithOptionalElem : public ExpandingArray<D, std::optional<T>> {
 public:
  using ExpandingArray<D, std::optional<T>>::ExpandingArray;
  /// D values from a braced list of T.
  ExpandingArrayWithOptionalElem(std::initializer_list<T> list)  // NOLINT
      : ExpandingArrayWithOptionalElem(::ctorch::ArrayRef<T>(list)) {}
  /// D values from a vector of T.
  ExpandingArrayWithOptionalElem(std::vector<T> vec)  // NOLINT
      : ExpandingArrayWithOptionalElem(::ctorch::ArrayRef<T>(vec)) {}
  /// D values from an ArrayRef of T.
  ExpandingArrayWithOptionalElem(::ctorch::ArrayRef<T> values)  // NOLINT
      : ExpandingArray<D, std::optional<T>>(std::optional<T>(0)) {
    CTORCH_CHECK(values.size() == D, "Expected ", D, " values, but instead got ", values.size());
    for (size_t i = 0; i < D; ++i) this->values_[i] = values[i];
  }
  /// One value repeated D times.
  ExpandingArrayWithOptionalElem(T single_size)  // NOLINT
      : ExpandingArray<D, std::optional<T>>(std::optional<T>(single_size)) {}
  /// A correctly sized array of T.
  ExpandingArrayWithOptionalElem(const std::array<T, D>& values)  // NOLINT
      : ExpandingArray<D, std::optional<T>>(std::optional<T>(0)) {
    for (size_t i = 0; i < D; ++i) this->values_[i] = values[i];
  }
  /// The values as a vector of optionals.
  std::vector<std::optional<T>> vec() const { return {this->values_.begin(), this->values_.end()}; }
};

/// Prints "None" for a nullopt element.
template <size_t D, typename T>
std::ostream& operator<<(std::ostream& stream, const ExpandingArrayWithOptionalElem<D, T>& a) {
  auto one = [](const std::optional<T>& e) {
    if (!e) return std::string("None");
    std::ostringstream os;
    os << *e;
    return os.str();
  };
  if (D == 1) return stream << one(a->at(0));
  stream << "[";
  for (size_t i = 0; i < D; ++i) stream << (i ? ", " : "") << one(a->at(i));
  return stream << "]";
}

}  // namespace torch
