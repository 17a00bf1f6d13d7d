// Tensor::resize_ (PyTorch's resize_ / at::native::resize_impl_cpu_): contiguous strides for the new
// size, the storage offset kept, and the storage grown in place -- its memory replaced by a larger
// block holding the old bytes -- so every view of it sees the new memory, as PyTorch's do.
#include <algorithm>

#include "ctorch/factories.h"
#include "ctorch/tensor.h"
#include "ctorch/tensor_impl.h"
#include "tensor/allocation.h"

namespace ctorch::inline api {

Tensor& Tensor::resize_(IntArrayRef size) {
  CTORCH_CHECK(defined(), "resize_: the tensor is undefined");
  CTORCH_CHECK(!requires_grad(), "cannot resize variables that require grad");
  for (int64_t s : size) {
    CTORCH_CHECK(s >= 0, "Trying to create tensor with negative dimension ", s, ": ", size);
  }
  const size_t itemsize = static_cast<size_t>(element_size());
  const size_t needed = storage_nbytes(size, itemsize) == 0
                            ? 0
                            : storage_nbytes(size, itemsize) + static_cast<size_t>(storage_offset()) * itemsize;
  StorageImpl& storage = *impl()->storage();
  if (needed > storage.nbytes()) {
    // The old bytes move into a new block on the same device (a device copy on the current stream).
    Tensor grown = empty({static_cast<int64_t>(needed)}, TensorOptions().dtype(kByte).device(device()).pinned_memory(storage.pinned()));
    if (storage.nbytes() > 0) {
      const int64_t old_bytes = static_cast<int64_t>(storage.nbytes());
      Tensor old(IntrusivePtr<TensorImpl>::make(impl()->storage(), kByte, IntArrayRef{old_bytes}));
      grown.narrow(0, 0, old_bytes).copy_(old);
    }
    storage.swap_memory(*grown.impl()->storage());  // `grown` now owns (and frees) the old block
  }
  impl()->set_geometry(size, contiguous_strides(size), storage_offset());
  return *this;
}

}  // namespace ctorch::api
