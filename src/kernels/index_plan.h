// IndexPlan: the iteration plan of the gather/scatter family (advanced indexing, index_select,
// gather, scatter, index_add), computed once on the host and passed by value to every backend.
//
// Note [Index plan]
// - Operand 0 is the *indexed* tensor (the source of a gather, the destination of a scatter): its
//   address is base + the plan's strides over the iteration shape (0 on the indexed dims) + for each
//   index tensor k, value_k * indexed_stride[k]. Operand 1 is the *dense* tensor (the gather's output,
//   the scatter's values), addressed by its strides alone. Operands 2.. are the int64 index tensors.
// - Dims are stored fastest-first (the reverse of the tensor's dims), so linear index order is the
//   row-major order of the iteration shape; a sequential scatter accumulates in that order.
// - Index values are checked on the host before launch (the op layer); the per-element function
//   checks again and skips an element whose index is out of range, so a kernel never touches memory
//   outside its operands.
// - extent[k] is the number of bytes operand k spans from its base pointer (for the emulated
//   launcher's pointer checks).
#pragma once

#include <cstdint>
#include <type_traits>

#include "ctorch/macros.h"
#include "kernels/dispatch.h"
#include "kernels/elementwise_plan.h"

namespace ctorch::inline api::kernels {

/// Index tensors one gather/scatter may use (one per indexed dim at most).
inline constexpr int kMaxIndexTensors = kMaxDims;
/// Operands of a gather/scatter: indexed, dense, then the index tensors.
inline constexpr int kMaxIndexOperands = 2 + kMaxIndexTensors;

/// Shape, byte strides and index geometry of one gather/scatter (Note [Index plan]).
struct IndexPlan {
  int ndim = 0;
  int nindices = 0;
  int64_t numel = 0;
  bool wrap_negative = false;  ///< advanced indexing: index -1 is the last element
  int64_t shape[kMaxDims];
  int64_t strides[kMaxIndexOperands][kMaxDims];
  int64_t indexed_size[kMaxIndexTensors];
  int64_t indexed_stride[kMaxIndexTensors];  ///< bytes
  int64_t extent[kMaxIndexOperands];         ///< bytes each operand spans from its base

  /// Operands of this plan.
  CTORCH_HD int noperands() const { return 2 + nindices; }
};

/// Byte offsets of the indexed (0) and dense (1) operands at element `linear`; false when an
/// index is out of range (the element is then skipped).
CTORCH_HD inline bool index_offsets(const IndexPlan& p, char* const* data, int64_t linear, int64_t* indexed,
                                    int64_t* dense) {
  int64_t off[kMaxIndexOperands];
  const int nop = p.noperands();
  for (int k = 0; k < nop; ++k) off[k] = 0;
  for (int d = 0; d < p.ndim; ++d) {
    const int64_t size = p.shape[d];
    const int64_t idx = linear % size;
    linear /= size;
    for (int k = 0; k < nop; ++k) off[k] += idx * p.strides[k][d];
  }
  int64_t extra = 0;
  for (int k = 0; k < p.nindices; ++k) {
    int64_t v = *reinterpret_cast<const int64_t*>(data[2 + k] + off[2 + k]);
    const int64_t size = p.indexed_size[k];
    if (p.wrap_negative && v < 0) v += size;
    if (v < 0 || v >= size) return false;
    extra += v * p.indexed_stride[k];
  }
  *indexed = off[0] + extra;
  *dense = off[1];
  return true;
}

/// f(indexed element, dense element) at element `linear` of the plan.
template <class F>
CTORCH_HD inline void index_element(const IndexPlan& p, char* const* data, int64_t linear, const F& f) {
  int64_t indexed = 0, dense = 0;
  if (index_offsets(p, data, linear, &indexed, &dense)) f(data[0] + indexed, data[1] + dense);
}

/// dense = indexed (gather).
template <class T>
struct GatherFn {
  CTORCH_HD void operator()(char* indexed, char* dense) const {
    *reinterpret_cast<T*>(dense) = *reinterpret_cast<const T*>(indexed);
  }
};

/// indexed = dense (scatter, index_put_).
template <class T>
struct ScatterAssignFn {
  CTORCH_HD void operator()(char* indexed, char* dense) const {
    *reinterpret_cast<T*>(indexed) = *reinterpret_cast<const T*>(dense);
  }
};

/// indexed += alpha * dense, computed in opmath (scatter_add_, index_add_, index_put_ accumulate).
template <class T>
struct ScatterAddFn {
  opmath_t<T> alpha;
  CTORCH_HD void operator()(char* indexed, char* dense) const {
    using A = opmath_t<T>;
    T* dst = reinterpret_cast<T*>(indexed);
    const A v = static_cast<A>(*reinterpret_cast<const T*>(dense));
    if constexpr (std::is_same_v<T, bool>) {
      *dst = static_cast<bool>(*dst) || (static_cast<bool>(alpha) && v);
    } else {
      *dst = static_cast<T>(static_cast<A>(static_cast<A>(*dst) + alpha * v));
    }
  }
};

}  // namespace ctorch::api::kernels
