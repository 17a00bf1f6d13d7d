// Tensor indexing values: integers, Slice, None and Ellipsis (Python's t[1, :2, None, ...]).
#pragma once

#include <cstdint>
#include <optional>

namespace ctorch {

/// Marker for a new size-1 axis (Python None).
struct NoneIndex {};
/// Marker for "all remaining dims" (Python ...).
struct EllipsisIndex {};
inline constexpr NoneIndex None{};
inline constexpr EllipsisIndex Ellipsis{};

/// Python slice start:stop:step; absent bounds are open.
struct Slice {
  /// The full slice `:`.
  Slice() = default;
  /// start:stop:step; pass None for an open bound.
  Slice(std::optional<int64_t> start, std::optional<int64_t> stop = std::nullopt, int64_t step = 1)
      : start(start), stop(stop), step(step) {}
  Slice(NoneIndex, std::optional<int64_t> stop = std::nullopt, int64_t step = 1) : stop(stop), step(step) {}
  Slice(int64_t start_v, NoneIndex, int64_t step = 1) : start(start_v), step(step) {}
  Slice(NoneIndex, NoneIndex, int64_t step = 1) : step(step) {}
  std::optional<int64_t> start;
  std::optional<int64_t> stop;
  int64_t step = 1;
};

/// One entry of an index list.
class TensorIndex {
 public:
  enum class Kind : int8_t { Integer, Slice, None, Ellipsis };
  TensorIndex(int64_t i) : kind_(Kind::Integer), integer_(i) {}  // NOLINT
  TensorIndex(int i) : kind_(Kind::Integer), integer_(i) {}      // NOLINT
  /// Boolean indices (x[True]) are not supported; refuse them rather than index 0 or 1.
  TensorIndex(bool) = delete;
  TensorIndex(Slice s) : kind_(Kind::Slice), slice_(s) {}        // NOLINT
  TensorIndex(NoneIndex) : kind_(Kind::None) {}                  // NOLINT
  TensorIndex(EllipsisIndex) : kind_(Kind::Ellipsis) {}          // NOLINT
  Kind kind() const { return kind_; }
  int64_t integer() const { return integer_; }
  const Slice& slice() const { return slice_; }

 private:
  Kind kind_;
  int64_t integer_ = 0;
  Slice slice_;
};

}  // namespace ctorch
