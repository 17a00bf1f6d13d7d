// Dim wrapping (c10's maybe_wrap_dim), shared by the tensor layer (size(dim), stride(dim)) and the
// op layer.
#pragma once

#include <cstdint>

#include "ctorch/error.h"

namespace ctorch::inline api::detail {

/// Throws wrap_dim's IndexError for `dim` against `n` dims (out of line: the error path is cold).
[[gnu::cold, gnu::noinline]] inline void throw_dim_out_of_range(int64_t dim, int64_t n) {
  CTORCH_CHECK_INDEX(false, "Dimension out of range (expected to be in range of [", -n, ", ", n - 1, "], but got ",
                     dim, ")");
}

/// Wraps a dim index into [0, ndim) (a 0-dim tensor accepts -1 and 0); throws IndexError when out of range.
inline int64_t wrap_dim(int64_t dim, int64_t ndim) {
  const int64_t n = ndim <= 0 ? 1 : ndim;
  if (dim < -n || dim >= n) [[unlikely]] throw_dim_out_of_range(dim, n);
  return dim < 0 ? dim + n : dim;
}

}  // namespace ctorch::api::detail
