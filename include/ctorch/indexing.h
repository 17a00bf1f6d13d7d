// Tensor indexing values: integers, booleans, Slice, None, Ellipsis and tensors (Python's
// t[1, True, :2, None, ..., idx]), with libtorch's TensorIndex / Slice API.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <limits>
#include <optional>
#include <type_traits>

#include "ctorch/array_ref.h"
#include "ctorch/intrusive_ptr.h"
#include "ctorch/tensor_impl.h"

namespace ctorch::inline api {

class Tensor;

/// Marker for a new size-1 axis (Python None).
struct NoneIndex {};
/// Marker for "all remaining dims" (Python ...).
struct EllipsisIndex {};
inline constexpr NoneIndex None{};
inline constexpr EllipsisIndex Ellipsis{};

/// An open slice bound (libtorch's INDEX_MAX / INDEX_MIN).
inline constexpr int64_t INDEX_MAX = std::numeric_limits<int64_t>::max();
inline constexpr int64_t INDEX_MIN = std::numeric_limits<int64_t>::min();

/// One bound of a Slice: an integer or None (open).
class SliceBound {
 public:
  /// Open (None).
  SliceBound() = default;
  SliceBound(int64_t v) : value_(v) {}                   // NOLINT
  SliceBound(NoneIndex) {}                               // NOLINT
  SliceBound(std::nullopt_t) {}                          // NOLINT
  SliceBound(std::optional<int64_t> v) : value_(v) {}    // NOLINT
  /// The bound, or nullopt when open.
  const std::optional<int64_t>& value() const { return value_; }

 private:
  std::optional<int64_t> value_;
};

/// Python slice start:stop:step. Open bounds become libtorch's: start 0 (INDEX_MAX for a negative
/// step), stop INDEX_MAX (INDEX_MIN), step 1. A zero step throws ValueError.
class Slice {
 public:
  /// start:stop:step; pass None (or nothing) for an open bound.
  Slice(SliceBound start = {}, SliceBound stop = {}, SliceBound step = {});  // NOLINT
  int64_t start() const { return start_; }
  int64_t stop() const { return stop_; }
  int64_t step() const { return step_; }

 private:
  int64_t start_;
  int64_t stop_;
  int64_t step_;
};

/// Prints libtorch's form: "0:9223372036854775807:1" style "start:stop:step".
std::ostream& operator<<(std::ostream& os, const Slice& s);

/// One entry of an index list: an integer, bool, Slice, None, Ellipsis or a tensor (int64 indices,
/// or a bool/uint8 mask: advanced indexing).
class TensorIndex {
 public:
  enum class Kind : int8_t { Integer, Boolean, Slice, None, Ellipsis, Tensor };
  TensorIndex(int64_t i) : kind_(Kind::Integer), integer_(i) {}  // NOLINT
  TensorIndex(int i) : kind_(Kind::Integer), integer_(i) {}      // NOLINT
  /// true adds a size-1 dim, false a size-0 dim (Python's x[True] / x[False]).
  template <class T>
    requires std::is_same_v<T, bool>
  TensorIndex(T b) : kind_(Kind::Boolean), boolean_(b) {}  // NOLINT
  TensorIndex(Slice s) : kind_(Kind::Slice), slice_(s) {}  // NOLINT
  TensorIndex(NoneIndex) : kind_(Kind::None) {}            // NOLINT
  TensorIndex(std::nullopt_t) : kind_(Kind::None) {}       // NOLINT
  TensorIndex(EllipsisIndex) : kind_(Kind::Ellipsis) {}    // NOLINT
  /// "..." (libtorch's spelling of Ellipsis); any other text throws ValueError.
  TensorIndex(const char* text);  // NOLINT
  /// A tensor index (advanced indexing); an undefined tensor throws.
  TensorIndex(const Tensor& tensor);  // NOLINT
  Kind kind() const { return kind_; }
  bool is_integer() const { return kind_ == Kind::Integer; }
  bool is_boolean() const { return kind_ == Kind::Boolean; }
  bool is_slice() const { return kind_ == Kind::Slice; }
  bool is_none() const { return kind_ == Kind::None; }
  bool is_ellipsis() const { return kind_ == Kind::Ellipsis; }
  bool is_tensor() const { return kind_ == Kind::Tensor; }
  int64_t integer() const { return integer_; }
  bool boolean() const { return boolean_; }
  const Slice& slice() const { return slice_; }
  /// The tensor of a tensor index (undefined for other kinds).
  Tensor tensor() const;

 private:
  Kind kind_;
  int64_t integer_ = 0;
  bool boolean_ = false;
  Slice slice_;
  IntrusivePtr<TensorImpl> tensor_;
};

/// Prints libtorch's form: 3, true, None, ..., or the slice.
std::ostream& operator<<(std::ostream& os, const TensorIndex& index);
/// Prints "(None, ..., 0, 1:9223372036854775807:2)".
std::ostream& operator<<(std::ostream& os, ArrayRef<TensorIndex> indices);

}  // namespace ctorch::api
