#include "ctorch/tensor_impl.h"

#include <ostream>

#include "ctorch/error.h"

namespace ctorch::inline api {

DimVector contiguous_strides(IntArrayRef sizes) {
  DimVector strides(sizes.size());
  uint64_t s = 1;  // wraps only for empty tensors with huge sizes, whose strides are never used
  for (size_t i = sizes.size(); i-- > 0;) {
    strides[i] = static_cast<int64_t>(s);
    s *= static_cast<uint64_t>(sizes[i] > 1 ? sizes[i] : 1);
  }
  return strides;
}

namespace {

// The element count. A 0 anywhere means no elements, whatever the other sizes: their product may
// not fit int64 (a legal empty view such as sizes [4, 2^63 - 1, 0]). Otherwise it fits, because
// factories and views check the storage size first.
int64_t numel_of(IntArrayRef sizes) {
  for (int64_t s : sizes) {
    if (s == 0) return 0;
  }
  int64_t n = 1;
  for (int64_t s : sizes) n *= s;
  return n;
}

}  // namespace

TensorImpl::TensorImpl(Storage storage, ScalarType dtype, IntArrayRef sizes, IntArrayRef strides,
                       int64_t storage_offset)
    : storage_(std::move(storage)), sizes_(sizes), strides_(strides), storage_offset_(storage_offset),
      dtype_(dtype) {
  refresh();
}

TensorImpl::TensorImpl(Storage storage, ScalarType dtype, IntArrayRef sizes)
    : storage_(std::move(storage)), sizes_(sizes), strides_(contiguous_strides(sizes)), dtype_(dtype) {
  numel_ = numel_of(sizes_);
  is_contiguous_ = true;
}

TensorImpl::~TensorImpl() = default;

autograd::AutogradMeta* TensorImpl::attach_autograd_meta(std::shared_ptr<autograd::AutogradMeta> meta) {
  autograd::AutogradMeta* expected = nullptr;
  if (autograd_meta_ptr_.compare_exchange_strong(expected, meta.get(), std::memory_order_acq_rel,
                                                 std::memory_order_acquire)) {
    autograd_meta_ = std::move(meta);  // only the winner writes the owner (Note [Autograd meta is attached once])
    return autograd_meta_ptr_.load(std::memory_order_relaxed);
  }
  return expected;  // another thread attached first; `meta` is dropped
}

void TensorImpl::set_data_from(const TensorImpl& other) {
  storage_ = other.storage_;
  dtype_ = other.dtype_;
  sizes_ = other.sizes_;
  strides_ = other.strides_;
  storage_offset_ = other.storage_offset_;
  refresh();
}

void TensorImpl::set_geometry(IntArrayRef sizes, IntArrayRef strides, int64_t storage_offset) {
  sizes_.assign(sizes);
  strides_.assign(strides);
  storage_offset_ = storage_offset;
  refresh();
}

// PyTorch's definition: size-1 dims may have any stride; an empty tensor is contiguous.
void TensorImpl::refresh() {
  const int64_t n = numel_of(sizes_);
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

}  // namespace ctorch::api
