// Dim wrapping (c10's maybe_wrap_dim), shared by the tensor layer (size(dim), stride(dim)) and the
// op layer.
#pragma once

#include <cstdint>

#include "ctorch/error.h"

namespace ctorch::detail {

/// Wraps a dim index into [0, ndim) (a 0-dim tensor accepts -1 and 0); throws IndexError when out of range.
inline int64_t wrap_dim(int64_t dim, int64_t ndim) {
  const int64_t n = ndim <= 0 ? 1 : ndim;
  CTORCH_CHECK_INDEX(dim >= -n && dim < n, "Dimension out of range (expected to be in range of [", -n, ", ",
                     n - 1, "], but got ", dim, ")");
  return dim < 0 ? dim + n : dim;
}

}  // namespace ctorch::detail
