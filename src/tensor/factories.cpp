// Tensor factories that only allocate (empty, empty_strided, from_blob) and the ones defined by
// them. Factories that write values (full, arange, linspace, eye, tensor) live in ops/factories.cpp.
#include "ctorch/factories.h"

#include "tensor/allocation.h"

namespace ctorch::inline api {

namespace {

// checked_numel's errors, out of the hot path.
[[gnu::cold, gnu::noinline]] void check_size(int64_t s, int64_t n, IntArrayRef size) {
  CTORCH_CHECK_VALUE(s >= 0, "Trying to create tensor with negative dimension ", s, ": ", size);
  CTORCH_CHECK_VALUE(s == 0 || n <= INT64_MAX / s, "numel overflows int64 for size ", size);
}

int64_t checked_numel(IntArrayRef size) {
  int64_t n = 1;
  for (int64_t s : size) {
    if (s < 0 || (s != 0 && n > INT64_MAX / s)) [[unlikely]] check_size(s, n, size);
    n *= s;
  }
  return n;
}

}  // namespace

void require_grad_checked(Tensor& t) {
  CTORCH_CHECK(t.is_floating_point(), "Only Tensors of floating point and complex dtype can require gradients");
  t.impl()->set_requires_grad(true);
}

Tensor empty(IntArrayRef size, TensorOptions options) {
  checked_numel(size);
  const ScalarType dtype = options.dtype();
  Storage storage = allocate_storage(storage_nbytes(size, static_cast<size_t>(element_size(dtype))), options);
  Tensor t(IntrusivePtr<TensorImpl>::make(std::move(storage), dtype, size));
  set_requires_grad(t, options);
  return t;
}

Tensor empty_strided(IntArrayRef size, IntArrayRef stride, TensorOptions options) {
  CTORCH_CHECK_VALUE(size.size() == stride.size(), "mismatch in length of strides and shape");
  checked_numel(size);
  for (size_t i = 0; i < size.size(); ++i) {
    CTORCH_CHECK_VALUE(stride[i] >= 0, "as_strided: Negative strides are not supported at the moment, got strides: ",
                       stride);
  }
  const ScalarType dtype = options.dtype();
  const size_t nbytes = storage_nbytes(size, stride, static_cast<size_t>(element_size(dtype)));
  Storage storage = allocate_storage(nbytes, options);
  Tensor t(IntrusivePtr<TensorImpl>::make(std::move(storage), dtype, size, stride, 0));
  set_requires_grad(t, options);
  return t;
}

// Factories write their values below the in-place ops (full uses ops::fill_into): new tensors have _version 0.
Tensor zeros(IntArrayRef size, TensorOptions options) { return full(size, 0, options.dtype(options.dtype())); }

Tensor ones(IntArrayRef size, TensorOptions options) {
  return full(size, 1, options.dtype(options.dtype()));  // default dtype, not the fill value's
}

Tensor empty_like(const Tensor& t, TensorOptions options) {
  return empty(t.sizes(), options.dtype(options.dtype_opt().value_or(t.dtype()))
                              .device(options.device_opt().value_or(t.device())));
}
Tensor zeros_like(const Tensor& t, TensorOptions options) {
  return zeros(t.sizes(), options.dtype(options.dtype_opt().value_or(t.dtype()))
                              .device(options.device_opt().value_or(t.device())));
}
Tensor ones_like(const Tensor& t, TensorOptions options) {
  return ones(t.sizes(), options.dtype(options.dtype_opt().value_or(t.dtype()))
                             .device(options.device_opt().value_or(t.device())));
}
Tensor full_like(const Tensor& t, const Scalar& value, TensorOptions options) {
  return full(t.sizes(), value,
              options.dtype(options.dtype_opt().value_or(t.dtype())).device(options.device_opt().value_or(t.device())));
}

namespace {

struct BlobContext {
  std::function<void(void*)> deleter;
  void* data;
};

void delete_blob(void* ctx) {
  auto* c = static_cast<BlobContext*>(ctx);
  if (c->deleter) c->deleter(c->data);
  delete c;
}

}  // namespace

Tensor from_blob(void* data, IntArrayRef sizes, IntArrayRef strides, TensorOptions options,
                 std::function<void(void*)> deleter) {
  CTORCH_CHECK_VALUE(sizes.size() == strides.size(), "from_blob: sizes and strides must have the same length");
  checked_numel(sizes);
  int64_t extent = 1;
  for (size_t i = 0; i < sizes.size(); ++i) {
    if (sizes[i] == 0) extent = 0;
  }
  if (extent) {
    for (size_t i = 0; i < sizes.size(); ++i) extent += (sizes[i] - 1) * strides[i];
  }
  const ScalarType dtype = options.dtype();
  const Device device = options.device().is_cpu() ? Device(DeviceType::CPU) : options.device();
  DataPtr ptr(data, new BlobContext{std::move(deleter), data}, &delete_blob, device);
  Storage storage = Storage::make(std::move(ptr), static_cast<size_t>(extent * element_size(dtype)), nullptr);
  Tensor t(IntrusivePtr<TensorImpl>::make(std::move(storage), dtype, sizes, strides, 0));
  set_requires_grad(t, options);
  return t;
}

Tensor from_blob(void* data, IntArrayRef sizes, TensorOptions options, std::function<void(void*)> deleter) {
  const DimVector strides = contiguous_strides(sizes);
  return from_blob(data, sizes, strides, options, std::move(deleter));
}

}  // namespace ctorch::api
