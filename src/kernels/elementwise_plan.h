// ElementwisePlan: the iteration plan of an elementwise op, computed once on the host and passed
// by value to every backend's launcher. Dims are stored fastest-first after coalescing; strides
// are in bytes, operand 0 is the output.
#pragma once

#include <cstdint>

#include "ctorch/macros.h"

namespace ctorch::inline api::kernels {

/// Dims an elementwise op may have after coalescing.
inline constexpr int kMaxDims = 16;
/// Operands of one elementwise op (output included).
inline constexpr int kMaxOperands = 4;
/// Operands of one jiterator kernel (up to 8 outputs and 8 inputs).
inline constexpr int kMaxJitOperands = 16;

/// Shape and per-operand byte strides of an elementwise op of at most MaxOperands operands.
template <int MaxOperands>
struct BasicElementwisePlan {
  /// The most operands this plan holds.
  static constexpr int kCapacity = MaxOperands;
  int ndim = 0;
  int noperands = 0;
  int64_t numel = 0;
  // Only the first ndim dims and noperands operands are meaningful (left uninitialized beyond).
  int64_t shape[kMaxDims];
  int64_t strides[MaxOperands][kMaxDims];
  int64_t element_size[MaxOperands];

  /// True when every operand is dense over one flat dim (or the op has one element).
  CTORCH_HD bool is_contiguous() const {
    if (ndim == 0) return true;
    if (ndim != 1) return false;
    for (int k = 0; k < noperands; ++k) {
      if (strides[k][0] != element_size[k]) return false;
    }
    return true;
  }

  /// Byte offsets of every operand for linear index `linear` (dim 0 fastest).
  CTORCH_HD void offsets(int64_t linear, int64_t* out) const {
    for (int k = 0; k < noperands; ++k) out[k] = 0;
    for (int d = 0; d < ndim; ++d) {
      const int64_t size = shape[d];
      const int64_t idx = linear % size;
      linear /= size;
      for (int k = 0; k < noperands; ++k) out[k] += idx * strides[k][d];
    }
  }
};

/// The plan of the built-in elementwise ops.
using ElementwisePlan = BasicElementwisePlan<kMaxOperands>;
/// The plan of a jiterator kernel: outputs first, then inputs.
using JitPlan = BasicElementwisePlan<kMaxJitOperands>;

}  // namespace ctorch::api::kernels
