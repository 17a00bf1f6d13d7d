// Storage allocation for a device: the one place that picks the allocator for TensorOptions.
#pragma once

#include "ctorch/array_ref.h"
#include "ctorch/storage.h"
#include "ctorch/tensor_options.h"

namespace ctorch::inline api {

class Tensor;

/// Bytes of a contiguous tensor of `sizes` (c10's computeStorageNbytesContiguous); throws
/// "Storage size calculation overflowed with sizes=..." when it does not fit int64.
size_t storage_nbytes(IntArrayRef sizes, size_t itemsize);
/// Bytes a strided tensor needs: itemsize * (offset + 1 + sum((size - 1) * stride)), or 0 when a
/// size is 0 (c10's computeStorageNbytes); throws on overflow.
size_t storage_nbytes(IntArrayRef sizes, IntArrayRef strides, size_t itemsize, int64_t offset = 0);

/// A storage of `nbytes` on options.device() (pinned host memory when options.pinned_memory()).
Storage allocate_storage(size_t nbytes, const TensorOptions& options);

/// Sets requires_grad on `t`, which must have a floating dtype (PyTorch's message otherwise).
void require_grad_checked(Tensor& t);
/// Applies a factory's requires_grad option to `t` (inline: factories call it on every tensor).
inline void set_requires_grad(Tensor& t, const TensorOptions& options) {
  if (options.requires_grad()) require_grad_checked(t);
}

}  // namespace ctorch::api
