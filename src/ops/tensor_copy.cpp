// Tensor methods that run kernels: conversion (to, cpu), copying (copy_, clone, contiguous),
// filling (fill_, zero_) and item(), over ops::copy_into and ops::fill_into.
#include <algorithm>

#include "core/scalar_convert.h"
#include "ctorch/factories.h"
#include "ctorch/ops.h"
#include "ctorch/tensor.h"
#include "kernels/dispatch.h"
#include "ops/complex_ops.h"
#include "ops/copy.h"
#include "ops/elementwise.h"
#include "ops/grad_hook.h"
#include "ops/launch.h"
#include "runtime/current.h"

namespace ctorch::inline api {

Scalar Tensor::item() const {
  CTORCH_CHECK(numel() == 1, "a Tensor with ", numel(), " elements cannot be converted to Scalar");
  if (is_cuda() && impl::current_stream_capture_status(DeviceType::CUDA) != impl::CaptureStatus::None) {
    // _local_scalar_dense synchronizes the stream: refused (and the capture invalidated) by the runtime.
    impl::lazy_init(DeviceType::CUDA).synchronize_stream(impl::current_stream(device()));
  }
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

namespace {

// at::infer_dense_strides: contiguous strides in the order of t's strides (stable insertion
// sort, stride-0 dims keep their place), as empty_like(preserve_format) lays out a non-dense input.
DimVector infer_dense_strides(IntArrayRef sizes, IntArrayRef strides) {
  const size_t n = sizes.size();
  DimVector out(n);
  if (n == 0) return out;
  DimVector perm(n);
  for (size_t i = 0; i < n; ++i) perm[i] = static_cast<int64_t>(n - 1 - i);  // fastest dim first
  auto should_swap = [&](int64_t d0, int64_t d1) {
    const int64_t s0 = strides[d0], s1 = strides[d1];
    if (s0 == 0 || s1 == 0) return 0;
    if (s0 < s1) return -1;
    if (s0 > s1) return 1;
    return sizes[d0] > sizes[d1] ? 1 : 0;
  };
  for (size_t i = 1; i < n; ++i) {
    size_t d1 = i;
    for (size_t j = 1; j <= i; ++j) {
      const size_t d0 = i - j;
      const int c = should_swap(perm[d0], perm[d1]);
      if (c > 0) {
        std::swap(perm[d0], perm[d1]);
        d1 = d0;
      } else if (c < 0) {
        break;
      }
    }
  }
  int64_t stride = 1;
  for (size_t i = 0; i < n; ++i) {
    const int64_t d = perm[i];
    out[d] = stride;
    if (sizes[d] > 1) stride *= sizes[d];
  }
  return out;
}

// An empty tensor shaped like `t` on `device` with `dtype` (empty_like with preserve_format):
// t's strides when t is dense, else dense strides in t's dim order.
Tensor empty_preserving(const Tensor& t, Device device, ScalarType dtype, bool pinned = false) {
  TensorOptions options = TensorOptions().dtype(dtype).device(device).pinned_memory(pinned);
  // _to_copy keeps the exact strides of a dense tensor (also those of size-1 dims).
  if (ops::has_row_major_strides(t)) return empty(t.sizes(), options);
  if (ops::is_non_overlapping_and_dense(t)) return empty_strided(t.sizes(), t.strides(), options);
  return empty_strided(t.sizes(), infer_dense_strides(t.sizes(), t.strides()), options);
}

}  // namespace

Tensor Tensor::to(const TensorOptions& options, bool non_blocking, bool copy) const {
  const ScalarType target_dtype = options.dtype_opt().value_or(dtype());
  Device target_device = options.device_opt().value_or(device());
  if (target_device.is_cuda()) target_device = impl::ensure_has_index(target_device);
  if (target_dtype == dtype() && target_device == device() && !copy) return *this;
  if (ops::needs_grad({this})) [[unlikely]] {
    CTORCH_CHECK_NOT_IMPLEMENTED(!ctorch::is_complex(target_dtype),
                                 "to: autograd through complex tensors is not supported by ctorch");
    return ops::recorded(
        ops::GradFn::ToCopy, {this}, [&] { return to(options, non_blocking, copy); }, [](ops::GradArgs&) {});
  }
  // A non-blocking device-to-host copy lands in pinned memory, so it can stay asynchronous.
  const bool pin_out = non_blocking && is_cuda() && target_device.is_cpu();
  Tensor out = empty_preserving(*this, target_device, target_dtype, pin_out);
  ops::copy_into(out, *this, non_blocking);
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

namespace ops {

void copy_into(Tensor& dst, const Tensor& src, bool non_blocking) {
  CTORCH_CHECK(dst.defined() && src.defined(), "copy_: both tensors must be defined");
  const DimVector shape = broadcast_shapes(dst.sizes(), src.sizes());
  CTORCH_CHECK(IntArrayRef(shape) == dst.sizes(), "output with shape ", dst.sizes(),
               " doesn't match the broadcast shape ", IntArrayRef(shape));
  if (dst.is_same(src)) return;
  check_no_internal_overlap(dst);
  if (dst.numel() == 0) return;
  if (dst.is_complex() || src.is_complex()) [[unlikely]] {
    complex_copy(dst, src, non_blocking);
    return;
  }
  if (dst.device() != src.device()) {
    copy_between_devices(dst, src, non_blocking);
    return;
  }
  check_no_partial_overlap(dst, src);
  if (src.data_ptr() == dst.data_ptr() && src.dtype() == dst.dtype() && src.sizes() == dst.sizes() &&
      src.strides() == dst.strides()) {
    return;  // the same elements (e.g. a.copy_(a.detach()))
  }
  // A source overlapping the destination in a layout too irregular to check is copied out first.
  const Tensor source = may_overlap(dst, src) ? src.clone() : src;
  kernels::ElementwisePlan plan = make_plan(dst, {&source});
  char* data[kernels::kMaxOperands];
  plan_data(data, dst, {&source});
  launch_copy(dst.dtype(), source.dtype(), plan, data, dst.device(),
              CTORCH_OPERANDS({dst, "self", true, true}, {source, "src"}));
}

void fill_into(Tensor& t, const Scalar& value) {
  if (t.is_complex()) [[unlikely]] {
    complex_fill(t, value);
    return;
  }
  // The value must fit the dtype (fill_(1000) on int8 fails, as value.to<scalar_t>() does).
  kernels::dispatch_all(t.dtype(), "fill_", [&](auto tag) {
    using T = typename decltype(tag)::type;
    (void)detail::checked_convert<T>(value);
  });
  if (t.numel() == 0) return;
  kernels::ElementwisePlan plan = make_plan(t, {});
  char* data[kernels::kMaxOperands];
  plan_data(data, t, {});
  launch_fill(t.dtype(), plan, data, value, t.device(), CTORCH_OPERANDS({t, "self", true, true}));
}

}  // namespace ops

Tensor& Tensor::copy_(const Tensor& src, bool non_blocking) {
  if (ops::needs_grad({this, &src})) [[unlikely]] {
    return ops::recorded_inplace(
        ops::GradFn::Copy, *this, {&src}, [&] { copy_(src, non_blocking); }, [](ops::GradArgs&) {});
  }
  ops::copy_into(*this, src, non_blocking);
  impl_->storage()->bump_version();
  return *this;
}

Tensor Tensor::clone() const {
  if (ops::needs_grad({this})) [[unlikely]] {
    return ops::recorded(ops::GradFn::Clone, {this}, [&] { return clone(); }, [](ops::GradArgs&) {});
  }
  Tensor out = empty_preserving(*this, device(), dtype());
  ops::copy_into(out, *this);
  return out;
}

Tensor Tensor::contiguous() const {
  if (is_contiguous()) return *this;
  if (ops::needs_grad({this})) [[unlikely]] {
    return ops::recorded(ops::GradFn::Clone, {this}, [&] { return contiguous(); }, [](ops::GradArgs&) {});
  }
  Tensor out = empty(sizes(), options());
  ops::copy_into(out, *this);
  return out;
}

Tensor& Tensor::fill_(const Scalar& value) {
  if (ops::needs_grad({this})) [[unlikely]] {
    return ops::recorded_inplace(ops::GradFn::Fill, *this, {}, [&] { fill_(value); }, [](ops::GradArgs&) {});
  }
  ops::fill_into(*this, value);
  impl_->storage()->bump_version();
  return *this;
}

Tensor& Tensor::fill_(const Tensor& value) {
  CTORCH_CHECK(value.dim() == 0, "fill_ only supports 0-dimension value tensor but got tensor with ", value.dim(),
               " dimensions.");
  return fill_(value.item());
}

Tensor& Tensor::zero_() {
  if (ops::needs_grad({this})) [[unlikely]] {
    return ops::recorded_inplace(ops::GradFn::Zero, *this, {}, [&] { fill_(0); }, [](ops::GradArgs&) {});
  }
  return fill_(0);
}
}  // namespace ctorch::api
