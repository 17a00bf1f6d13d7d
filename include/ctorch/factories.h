// Tensor factories (torch.empty, zeros, ones, full, arange, linspace, eye, tensor, from_blob, *_like).
#pragma once

#include <functional>
#include <initializer_list>
#include <vector>

#include "ctorch/tensor.h"

namespace ctorch::inline api {

/// Uninitialized tensor of `size`.
Tensor empty(IntArrayRef size, TensorOptions options = {});
/// Uninitialized tensor with explicit strides.
Tensor empty_strided(IntArrayRef size, IntArrayRef stride, TensorOptions options = {});
/// Zeros.
Tensor zeros(IntArrayRef size, TensorOptions options = {});
/// Ones.
Tensor ones(IntArrayRef size, TensorOptions options = {});
/// Filled with `value`; dtype from the value's kind when options give none (as torch.full).
Tensor full(IntArrayRef size, const Scalar& value, TensorOptions options = {});
/// [0, end) step 1.
Tensor arange(const Scalar& end, TensorOptions options = {});
/// [start, end) with `step`; integer dtype when all bounds are integers.
Tensor arange(const Scalar& start, const Scalar& end, const Scalar& step = 1, TensorOptions options = {});
/// [start, end) step 1 with `options` (libtorch's arange(start, end, options)).
inline Tensor arange(const Scalar& start, const Scalar& end, TensorOptions options) {
  return arange(start, end, 1, options);
}
/// `steps` values evenly spaced from start to end inclusive.
Tensor linspace(const Scalar& start, const Scalar& end, int64_t steps, TensorOptions options = {});
/// n x m identity (m defaults to n).
Tensor eye(int64_t n, std::optional<int64_t> m = std::nullopt, TensorOptions options = {});
/// Wraps external memory without copying; `deleter` (optional) runs when the storage dies.
Tensor from_blob(void* data, IntArrayRef sizes, TensorOptions options = {},
                 std::function<void(void*)> deleter = nullptr);
/// from_blob with explicit strides.
Tensor from_blob(void* data, IntArrayRef sizes, IntArrayRef strides, TensorOptions options = {},
                 std::function<void(void*)> deleter = nullptr);

/// libtorch's argument order: from_blob(data, sizes, deleter, options).
inline Tensor from_blob(void* data, IntArrayRef sizes, const std::function<void(void*)>& deleter,
                        TensorOptions options = {}) {
  return from_blob(data, sizes, options, deleter);
}
/// libtorch's argument order: from_blob(data, sizes, strides, deleter, options).
inline Tensor from_blob(void* data, IntArrayRef sizes, IntArrayRef strides, const std::function<void(void*)>& deleter,
                        TensorOptions options = {}) {
  return from_blob(data, sizes, strides, options, deleter);
}

Tensor empty_like(const Tensor& t, TensorOptions options = {});
Tensor zeros_like(const Tensor& t, TensorOptions options = {});
Tensor ones_like(const Tensor& t, TensorOptions options = {});
Tensor full_like(const Tensor& t, const Scalar& value, TensorOptions options = {});

/// Nested list of numbers, as accepted by torch.tensor. Leaves keep their kind (bool, int, float).
class NestedList {
 public:
  NestedList(const Scalar& v) : scalar_(v), is_scalar_(true) {}                      // NOLINT
  NestedList(double v) : scalar_(v), is_scalar_(true) {}                             // NOLINT
  NestedList(float v) : scalar_(v), is_scalar_(true) {}                              // NOLINT
  NestedList(int v) : scalar_(v), is_scalar_(true) {}                                // NOLINT
  NestedList(long v) : scalar_(static_cast<int64_t>(v)), is_scalar_(true) {}         // NOLINT
  NestedList(long long v) : scalar_(static_cast<int64_t>(v)), is_scalar_(true) {}    // NOLINT
  NestedList(bool v) : scalar_(v), is_scalar_(true) {}                               // NOLINT
  NestedList(std::initializer_list<NestedList> items) : items_(items) {}             // NOLINT
  bool is_scalar() const { return is_scalar_; }
  const Scalar& scalar() const { return scalar_; }
  const std::vector<NestedList>& items() const { return items_; }

 private:
  Scalar scalar_;
  bool is_scalar_ = false;
  std::vector<NestedList> items_;
};

/// torch.tensor(data): dtype inferred (bool < int64 < default float) unless options set it.
Tensor tensor(const NestedList& data, TensorOptions options = {});
/// A 1-d tensor copied from a vector.
template <class T>
Tensor tensor(const std::vector<T>& data, TensorOptions options = {});
/// A 1-d tensor copied from an ArrayRef (libtorch's torch::tensor(at::ArrayRef<T>)).
template <class T>
Tensor tensor(ArrayRef<T> data, TensorOptions options = {}) {
  return tensor(data.vec(), options);
}

}  // namespace ctorch::api
