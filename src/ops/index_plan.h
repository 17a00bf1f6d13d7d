// Host-side helpers of the gather/scatter family (index_ops.cpp, gather_ops.cpp): the geometry of
// one launch in tensor dim order, turned into a kernels::IndexPlan (Note [Index plan]), and the
// host check of index values that runs before every launch.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "ctorch/tensor.h"
#include "kernels/index_plan.h"

namespace ctorch::inline api::ops {

/// What one gather/scatter addresses, in tensor dim order (Note [Index plan]).
struct IndexGeometry {
  Tensor indexed;                            ///< operand 0: the tensor addressed through the indices
  std::vector<int64_t> shape;                ///< the iteration shape
  std::vector<int64_t> indexed_strides;      ///< indexed's element strides over `shape` (0 on indexed dims)
  Tensor dense;                              ///< operand 1: a tensor (or view) of sizes `shape`
  std::vector<Tensor> indices;               ///< int64 views of sizes `shape` on indexed's device
  std::vector<int64_t> indexed_sizes;        ///< size of the dim each index addresses
  std::vector<int64_t> indexed_dim_strides;  ///< element stride of that dim in `indexed`
  bool wrap_negative = false;                ///< advanced indexing: -1 is the last element
};

/// The plan of `g`, with its operand pointers written to data[0 .. 2 + g.indices.size()).
kernels::IndexPlan make_index_plan(const IndexGeometry& g, char** data);

/// The first value of int64 `index` (row-major) outside [lo, hi), if any. Reads the values on the
/// host: a device index is copied first, which synchronizes (Note [Index bounds on the host]).
std::optional<int64_t> first_out_of_range(const Tensor& index, int64_t lo, int64_t hi);

/// Throws PyTorch's "Expected all tensors to be on the same device" unless `t` is on `self`'s device.
void check_same_device(const Tensor& self, const Tensor& t);

/// Warns PyTorch's deprecation of uint8 masks in indexing.
void warn_uint8_index();

}  // namespace ctorch::api::ops
