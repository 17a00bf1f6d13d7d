// Tensor methods for metadata, data access and new_* construction. The methods that run kernels
// (to, copy_, clone, contiguous, fill_, item) are defined in ops/tensor_copy.cpp.
#include "ctorch/tensor.h"

#include "core/wrap_dim.h"
#include "ctorch/factories.h"
#include "memory/device_allocator.h"

namespace ctorch::inline api {

namespace {
// maybe_wrap_dim without wrap_scalar: a 0-dim tensor has no dim to ask about.
[[gnu::cold, gnu::noinline]] void throw_no_dimensions(int64_t dim) {
  CTORCH_CHECK_INDEX(false, "Dimension specified as ", dim, " but tensor has no dimensions");
}

int64_t wrap_size_dim(int64_t dim, int64_t ndim) {
  if (ndim <= 0) [[unlikely]] throw_no_dimensions(dim);
  return detail::wrap_dim(dim, ndim);
}
}  // namespace

void Tensor::throw_undefined(const char* method) { throw Error(std::string(method) + "() called on an undefined Tensor"); }

int64_t Tensor::size(int64_t dim) const { return sizes()[wrap_size_dim(dim, this->dim())]; }

int64_t Tensor::stride(int64_t dim) const { return strides()[wrap_size_dim(dim, this->dim())]; }

bool Tensor::is_pinned() const { return is_cpu() && impl_->storage()->pinned(); }

void Tensor::record_stream(Stream stream) const {
  CTORCH_CHECK(defined(), "record_stream: the tensor is undefined");
  CTORCH_CHECK_NOT_IMPLEMENTED(is_cuda(), "Could not run 'aten::record_stream' with arguments from the '",
                               is_cpu() ? "CPU" : "unknown", "' backend.");
  CTORCH_CHECK_VALUE(stream.device().is_cuda(), "[record_stream] Expected a cuda stream, but got a stream of ",
                     stream.device());
  memory::record_stream(impl_->storage()->data_ptr(), stream);
}

template <class T>
std::vector<T> Tensor::to_vector() const {
  const Tensor host = cpu().to(scalar_type_of<T>).contiguous();
  const T* p = static_cast<const T*>(host.data_ptr());
  return std::vector<T>(p, p + host.numel());
}

template std::vector<uint8_t> Tensor::to_vector<uint8_t>() const;
template std::vector<int8_t> Tensor::to_vector<int8_t>() const;
template std::vector<int16_t> Tensor::to_vector<int16_t>() const;
template std::vector<int32_t> Tensor::to_vector<int32_t>() const;
template std::vector<int64_t> Tensor::to_vector<int64_t>() const;
template std::vector<float> Tensor::to_vector<float>() const;
template std::vector<double> Tensor::to_vector<double>() const;
template std::vector<Half> Tensor::to_vector<Half>() const;
template std::vector<BFloat16> Tensor::to_vector<BFloat16>() const;

Tensor Tensor::detach() const {
  return Tensor(IntrusivePtr<TensorImpl>::make(impl_->storage(), dtype(), sizes(), strides(), storage_offset()));
}

namespace {

TensorOptions merged(const Tensor& self, const TensorOptions& o) {
  return o.dtype(o.dtype_opt().value_or(self.dtype())).device(o.device_opt().value_or(self.device()));
}

}  // namespace

Tensor Tensor::new_empty(IntArrayRef size, TensorOptions options) const { return empty(size, merged(*this, options)); }
Tensor Tensor::new_zeros(IntArrayRef size, TensorOptions options) const { return zeros(size, merged(*this, options)); }
Tensor Tensor::new_ones(IntArrayRef size, TensorOptions options) const { return ones(size, merged(*this, options)); }
Tensor Tensor::new_full(IntArrayRef size, const Scalar& value, TensorOptions options) const {
  return full(size, value, merged(*this, options));
}
Tensor Tensor::new_tensor(const Tensor& data, TensorOptions options) const {
  const TensorOptions o = merged(*this, options);
  Tensor out = data.to(o.device(), o.dtype(), false, /*copy=*/true).detach();
  if (options.requires_grad()) out.requires_grad_(true);
  return out;
}

}  // namespace ctorch::api
