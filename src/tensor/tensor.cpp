// Tensor methods for metadata, data access, conversion and copying.
#include "ctorch/tensor.h"

#include <algorithm>
#include <numeric>

#include "ctorch/factories.h"
#include "ctorch/ops.h"
#include "kernels/dispatch.h"
#include "ops/copy.h"
#include "ops/elementwise.h"
#include "runtime/current.h"

namespace ctorch {

int64_t Tensor::size(int64_t dim) const {
  CTORCH_CHECK_INDEX(this->dim() > 0, "dimension specified as ", dim, " but tensor has no dimensions");
  return sizes()[ops::wrap_dim(dim, this->dim())];
}

int64_t Tensor::stride(int64_t dim) const {
  CTORCH_CHECK_INDEX(this->dim() > 0, "dimension specified as ", dim, " but tensor has no dimensions");
  return strides()[ops::wrap_dim(dim, this->dim())];
}

bool Tensor::is_pinned() const { return is_cpu() && impl_->storage()->pinned(); }

Tensor& Tensor::requires_grad_(bool value) {
  CTORCH_CHECK(!value || is_floating_point(),
               "only Tensors of floating point and complex dtype can require gradients");
  impl_->set_requires_grad(value);
  return *this;
}

Scalar Tensor::item() const {
  CTORCH_CHECK(numel() == 1, "a Tensor with ", numel(), " elements cannot be converted to Scalar");
  const Tensor host = cpu();
  return kernels::dispatch_all(dtype(), "item", [&](auto tag) -> Scalar {
    using T = typename decltype(tag)::type;
    const T v = *static_cast<const T*>(host.data_ptr());
    if constexpr (std::is_same_v<T, bool>) {
      return Scalar(v);
    } else if constexpr (std::is_integral_v<T>) {
      return Scalar(static_cast<int64_t>(v));
    } else {
      return Scalar(static_cast<double>(v));
    }
  });
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

namespace {

// True when the strides are a permutation of some contiguous layout (no gaps, no overlap).
bool is_non_overlapping_and_dense(const Tensor& t) {
  if (t.is_contiguous()) return true;
  const int64_t n = t.dim();
  std::vector<int64_t> perm(n);
  std::iota(perm.begin(), perm.end(), 0);
  std::sort(perm.begin(), perm.end(), [&](int64_t a, int64_t b) {
    if (t.sizes()[a] < 2) return false;
    if (t.sizes()[b] < 2) return true;
    return t.strides()[a] < t.strides()[b];
  });
  int64_t expected = 1;
  for (int64_t d : perm) {
    const int64_t size = t.sizes()[d];
    if (size == 1) continue;
    if (t.strides()[d] != expected) return false;
    expected *= size;
  }
  return true;
}

// An empty tensor shaped like `t` on `device` with `dtype`, keeping t's strides when dense.
Tensor empty_preserving(const Tensor& t, Device device, ScalarType dtype, bool pinned = false) {
  TensorOptions options = TensorOptions().dtype(dtype).device(device).pinned_memory(pinned);
  if (!t.is_contiguous() && is_non_overlapping_and_dense(t)) return empty_strided(t.sizes(), t.strides(), options);
  return empty(t.sizes(), options);
}

}  // namespace

Tensor Tensor::to(const TensorOptions& options, bool non_blocking, bool copy) const {
  const ScalarType target_dtype = options.dtype_opt().value_or(dtype());
  Device target_device = options.device_opt().value_or(device());
  if (target_device.is_cuda()) target_device = impl::ensure_has_index(target_device);
  if (target_dtype == dtype() && target_device == device() && !copy) return *this;
  // A non-blocking device-to-host copy lands in pinned memory, so it can stay asynchronous.
  const bool pin_out = non_blocking && is_cuda() && target_device.is_cpu();
  Tensor out = empty_preserving(*this, target_device, target_dtype, pin_out);
  out.copy_(*this, non_blocking);
  return out;
}

Tensor Tensor::to(ScalarType dtype, bool non_blocking, bool copy) const {
  if (dtype == this->dtype() && !copy) return *this;
  return to(TensorOptions().dtype(dtype), non_blocking, copy);
}

Tensor Tensor::to(Device device, bool non_blocking, bool copy) const {
  return to(TensorOptions().device(device), non_blocking, copy);
}

Tensor Tensor::to(Device device, ScalarType dtype, bool non_blocking, bool copy) const {
  return to(TensorOptions().device(device).dtype(dtype), non_blocking, copy);
}

Tensor Tensor::to(const Tensor& other, bool non_blocking, bool copy) const {
  return to(TensorOptions().device(other.device()).dtype(other.dtype()), non_blocking, copy);
}

Tensor Tensor::cpu() const { return to(Device(DeviceType::CPU)); }

namespace {

bool may_overlap(const Tensor& a, const Tensor& b) {
  if (a.impl()->storage().get() != b.impl()->storage().get()) return false;
  if (a.numel() == 0 || b.numel() == 0) return false;
  auto extent = [](const Tensor& t) {
    int64_t lo = t.storage_offset(), hi = lo;
    for (int64_t d = 0; d < t.dim(); ++d) hi += (t.sizes()[d] - 1) * t.strides()[d];
    return std::pair<int64_t, int64_t>(lo, hi);
  };
  auto [alo, ahi] = extent(a);
  auto [blo, bhi] = extent(b);
  return alo <= bhi && blo <= ahi;
}

}  // namespace

Tensor& Tensor::copy_(const Tensor& src, bool non_blocking) {
  CTORCH_CHECK(defined() && src.defined(), "copy_: both tensors must be defined");
  const DimVector shape = broadcast_shapes(sizes(), src.sizes());
  CTORCH_CHECK(IntArrayRef(shape) == sizes(), "output with shape ", sizes(), " doesn't match the broadcast shape ",
               IntArrayRef(shape));
  if (is_same(src)) return *this;
  if (numel() == 0) return *this;
  if (device() != src.device()) {
    ops::copy_between_devices(*this, src, non_blocking);
    impl_->storage()->bump_version();
    return *this;
  }
  // A source overlapping the destination in a different layout is copied out first.
  const Tensor source = may_overlap(*this, src) && !(src.data_ptr() == data_ptr() && src.strides() == strides())
                            ? src.clone()
                            : src;
  kernels::ElementwisePlan plan = ops::make_plan(*this, {&source});
  char* data[kernels::kMaxOperands];
  ops::plan_data(data, *this, {&source});
  ops::kernels_for(device()).cast_copy(dtype(), source.dtype(), plan, data, ops::stream_for(device()));
  impl_->storage()->bump_version();
  return *this;
}

Tensor Tensor::clone() const {
  Tensor out = empty_preserving(*this, device(), dtype());
  out.copy_(*this);
  return out;
}

Tensor Tensor::contiguous() const {
  if (is_contiguous()) return *this;
  Tensor out = empty(sizes(), options());
  out.copy_(*this);
  return out;
}

Tensor Tensor::detach() const {
  return Tensor(IntrusivePtr<TensorImpl>::make(impl_->storage(), dtype(), sizes(), strides(), storage_offset()));
}

Tensor& Tensor::fill_(const Scalar& value) {
  if (numel() == 0) return *this;
  kernels::ElementwisePlan plan = ops::make_plan(*this, {});
  char* data[kernels::kMaxOperands];
  ops::plan_data(data, *this, {});
  ops::kernels_for(device()).fill(dtype(), plan, data, value, ops::stream_for(device()));
  impl_->storage()->bump_version();
  return *this;
}

Tensor& Tensor::fill_(const Tensor& value) {
  CTORCH_CHECK(value.dim() == 0, "fill_ only supports 0-dimension value tensor but got tensor with ", value.dim(),
               " dimensions.");
  return fill_(value.item());
}

Tensor& Tensor::zero_() { return fill_(0); }

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

}  // namespace ctorch
