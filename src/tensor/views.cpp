// View and shape ops: results share storage with their input.
#include "ctorch/ops.h"
#include "ops/elementwise.h"

namespace ctorch {

Tensor Tensor::as_strided(IntArrayRef size, IntArrayRef stride, std::optional<int64_t> storage_offset) const {
  CTORCH_CHECK(size.size() == stride.size(), "mismatch in length of strides and shape");
  const int64_t offset = storage_offset.value_or(this->storage_offset());
  CTORCH_CHECK(offset >= 0, "Tensor: invalid storage offset ", offset);
  int64_t extent = offset + 1;
  bool any_empty = false;
  for (size_t i = 0; i < size.size(); ++i) {
    CTORCH_CHECK(size[i] >= 0, "Trying to create tensor with negative dimension ", size[i], ": ", size);
    CTORCH_CHECK(stride[i] >= 0, "as_strided: Negative strides are not supported at the moment, got strides: ",
                 stride);
    if (size[i] == 0) any_empty = true;
    extent += (size[i] - 1) * stride[i];
  }
  const int64_t available = static_cast<int64_t>(impl()->storage()->nbytes()) / element_size();
  CTORCH_CHECK(any_empty || extent <= available, "setStorage: sizes ", size, ", strides ", stride,
               " in storage offset ", offset, " and itemsize ", element_size(), " requiring a storage size of ",
               extent * element_size(), " are out of bounds for storage of size ", available * element_size());
  return Tensor(IntrusivePtr<TensorImpl>::make(impl()->storage(), dtype(), size, stride, offset));
}

}  // namespace ctorch
