// ReducePlan: the iteration plan of a reduction, computed once on the host (ops/reduce.cpp) and
// passed by value to every backend's reduce launcher.
//
// Note [Reduction layout]
// The input's dims are split into kept dims (one output element per index) and reduced dims
// (folded into one accumulator). Size-1 dims are dropped and adjacent compatible dims coalesced,
// so each list is stored fastest-first. Input strides are in bytes; output strides are in
// elements, so one set serves both the values output and the int64 indices output of max(dim).
// For ops that report an index (argmax, max(dim)) the reduced dims keep their logical order,
// so the reduction position r of an element is its row-major index over the reduced dims; other
// ops order reduced dims by input stride. `fastest_reduced` tells a launcher whether the
// smallest input stride belongs to a reduced dim (reduce along rows: one accumulator per
// output) or to a kept dim (reduce across rows: many outputs advance together).
#pragma once

#include <cstdint>

#include "ctorch/macros.h"
#include "kernels/elementwise_plan.h"

namespace ctorch::inline api::kernels {

/// Kept and reduced dims of a reduction (see Note [Reduction layout]).
struct ReducePlan {
  int64_t numel_out = 1;     // output elements
  int64_t numel_reduce = 1;  // input elements folded into each output
  int nkept = 0;
  int nred = 0;
  bool fastest_reduced = true;
  // Only the first nkept / nred entries are meaningful (left uninitialized: the plan is built per call).
  int64_t kept_size[kMaxDims];
  int64_t kept_in[kMaxDims];   // input byte strides
  int64_t kept_out[kMaxDims];  // output element strides
  int64_t red_size[kMaxDims];
  int64_t red_in[kMaxDims];    // input byte strides

  /// Input byte offset and output element offset of output number `o` (kept dim 0 fastest).
  CTORCH_HD void kept_offsets(int64_t o, int64_t* in_off, int64_t* out_off) const {
    int64_t a = 0, b = 0;
    for (int d = 0; d < nkept; ++d) {
      const int64_t i = o % kept_size[d];
      o /= kept_size[d];
      a += i * kept_in[d];
      b += i * kept_out[d];
    }
    *in_off = a;
    *out_off = b;
  }

  /// Input byte offset of reduction position `r` (reduced dim 0 fastest).
  CTORCH_HD int64_t red_offset(int64_t r) const {
    int64_t off = 0;
    for (int d = 0; d < nred; ++d) {
      off += (r % red_size[d]) * red_in[d];
      r /= red_size[d];
    }
    return off;
  }
};

/// A (log_)softmax over the middle dim of a contiguous [outer, dim_size, inner] layout.
struct SoftmaxPlan {
  int64_t outer = 1;
  int64_t dim_size = 1;
  int64_t inner = 1;
};

}  // namespace ctorch::api::kernels
