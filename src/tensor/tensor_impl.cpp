#include "ctorch/tensor_impl.h"

#include <ostream>

#include "ctorch/error.h"

namespace ctorch {

DimVector contiguous_strides(IntArrayRef sizes) {
  DimVector strides(sizes.size());
  int64_t s = 1;
  for (size_t i = sizes.size(); i-- > 0;) {
    strides[i] = s;
    s *= sizes[i] > 1 ? sizes[i] : 1;
  }
  return strides;
}

TensorImpl::TensorImpl(Storage storage, ScalarType dtype, IntArrayRef sizes, IntArrayRef strides,
                       int64_t storage_offset)
    : storage_(std::move(storage)), sizes_(sizes), strides_(strides), storage_offset_(storage_offset),
      dtype_(dtype) {
  refresh();
}

TensorImpl::TensorImpl(Storage storage, ScalarType dtype, IntArrayRef sizes)
    : storage_(std::move(storage)), sizes_(sizes), strides_(contiguous_strides(sizes)), dtype_(dtype) {
  // A 0 anywhere means no elements, whatever the other sizes (their product may not fit int64).
  bool empty = false;
  for (int64_t s : sizes_) empty |= s == 0;
  int64_t n = 1;
  if (!empty) {
    for (int64_t s : sizes_) n *= s;  // fits: factories and views check the storage size
  }
  numel_ = empty ? 0 : n;
  is_contiguous_ = true;
}

TensorImpl::~TensorImpl() = default;

void TensorImpl::set_geometry(IntArrayRef sizes, IntArrayRef strides, int64_t storage_offset) {
  sizes_.assign(sizes);
  strides_.assign(strides);
  storage_offset_ = storage_offset;
  refresh();
}

// PyTorch's definition: size-1 dims may have any stride; an empty tensor is contiguous.
void TensorImpl::refresh() {
  int64_t n = 1;
  for (int64_t s : sizes_) n *= s;
  numel_ = n;
  bool contiguous = true;
  if (n != 0) {
    int64_t expected = 1;
    for (size_t i = sizes_.size(); i-- > 0;) {
      if (sizes_[i] == 1) continue;
      if (strides_[i] != expected) {
        contiguous = false;
        break;
      }
      expected *= sizes_[i];
    }
  }
  is_contiguous_ = contiguous;
}

std::ostream& operator<<(std::ostream& os, IntArrayRef a) {
  os << "[";
  for (size_t i = 0; i < a.size(); ++i) os << (i ? ", " : "") << a[i];
  return os << "]";
}

}  // namespace ctorch
