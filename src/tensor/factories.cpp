// Tensor factories. Storage comes from the device's allocator; values are written by kernels.
#include "ctorch/factories.h"

#include <cmath>

#include "ctorch/ops.h"
#include "kernels/dispatch.h"
#include "ops/elementwise.h"
#include "tensor/allocation.h"

namespace ctorch {

namespace {

int64_t checked_numel(IntArrayRef size) {
  int64_t n = 1;
  for (int64_t s : size) {
    CTORCH_CHECK_VALUE(s >= 0, "Trying to create tensor with negative dimension ", s, ": ", size);
    CTORCH_CHECK_VALUE(s == 0 || n <= INT64_MAX / s, "numel overflows int64 for size ", size);
    n *= s;
  }
  return n;
}

}  // namespace

Tensor empty(IntArrayRef size, TensorOptions options) {
  const int64_t n = checked_numel(size);
  const ScalarType dtype = options.dtype();
  Storage storage = allocate_storage(static_cast<size_t>(n * element_size(dtype)), options);
  auto impl = IntrusivePtr<TensorImpl>::make(std::move(storage), dtype, size);
  if (options.requires_grad()) {
    Tensor t(std::move(impl));
    t.requires_grad_(true);
    return t;
  }
  return Tensor(std::move(impl));
}

Tensor empty_strided(IntArrayRef size, IntArrayRef stride, TensorOptions options) {
  CTORCH_CHECK_VALUE(size.size() == stride.size(), "mismatch in length of strides and shape");
  checked_numel(size);
  int64_t extent = 1;  // storage elements needed: 1 + sum((size-1)*stride)
  bool empty_tensor = false;
  for (size_t i = 0; i < size.size(); ++i) {
    CTORCH_CHECK_VALUE(stride[i] >= 0, "as_strided: Negative strides are not supported at the moment, got strides: ",
                       stride);
    if (size[i] == 0) empty_tensor = true;
    extent += (size[i] - 1) * stride[i];
  }
  if (empty_tensor) extent = 0;
  const ScalarType dtype = options.dtype();
  Storage storage = allocate_storage(static_cast<size_t>(extent * element_size(dtype)), options);
  Tensor t(IntrusivePtr<TensorImpl>::make(std::move(storage), dtype, size, stride, 0));
  if (options.requires_grad()) t.requires_grad_(true);
  return t;
}

Tensor zeros(IntArrayRef size, TensorOptions options) {
  Tensor t = empty(size, options.requires_grad(false));
  t.zero_();
  if (options.requires_grad()) t.requires_grad_(true);
  return t;
}

Tensor ones(IntArrayRef size, TensorOptions options) {
  return full(size, 1, options.dtype(options.dtype()));  // default dtype, not the fill value's
}

Tensor full(IntArrayRef size, const Scalar& value, TensorOptions options) {
  if (!options.has_dtype()) options = options.dtype(value.type());
  Tensor t = empty(size, options.requires_grad(false));
  t.fill_(value);
  if (options.requires_grad()) t.requires_grad_(true);
  return t;
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

Tensor arange(const Scalar& end, TensorOptions options) { return arange(0, end, 1, options); }

Tensor arange(const Scalar& start, const Scalar& end, const Scalar& step, TensorOptions options) {
  if (!options.has_dtype()) {
    const bool all_int = start.is_integral(true) && end.is_integral(true) && step.is_integral(true);
    options = options.dtype(all_int ? kInt64 : get_default_dtype());
  }
  const double s = start.to_double(), e = end.to_double(), st = step.to_double();
  CTORCH_CHECK_VALUE(st != 0, "step must be nonzero");
  CTORCH_CHECK_VALUE(std::isfinite(s) && std::isfinite(e), "unsupported range: ", s, " -> ", e);
  CTORCH_CHECK_VALUE((st > 0 && e >= s) || (st < 0 && e <= s), "upper bound and larger bound inconsistent with step sign");
  int64_t n;
  if (is_integral(options.dtype(), false) && start.is_integral(false) && end.is_integral(false) &&
      step.is_integral(false)) {
    const int64_t si = start.to_long(), ei = end.to_long(), sti = step.to_long();
    n = sti > 0 ? (ei - si + sti - 1) / sti : (si - ei - sti - 1) / (-sti);
  } else {
    n = static_cast<int64_t>(std::ceil((e - s) / st));
  }
  Tensor t = empty({n}, options.requires_grad(false));
  // Values are computed in double (int64 for integer dtypes) and converted, as PyTorch does.
  Tensor values = empty({n}, TensorOptions(is_integral(options.dtype(), false) ? kInt64 : kFloat64));
  if (values.dtype() == kInt64) {
    auto* p = values.data_ptr<int64_t>();
    const int64_t si = start.to_long(), sti = step.to_long();
    for (int64_t i = 0; i < n; ++i) p[i] = si + i * sti;
  } else {
    auto* p = values.data_ptr<double>();
    for (int64_t i = 0; i < n; ++i) p[i] = s + static_cast<double>(i) * st;
  }
  t.copy_(values);
  if (options.requires_grad()) t.requires_grad_(true);
  return t;
}

Tensor linspace(const Scalar& start, const Scalar& end, int64_t steps, TensorOptions options) {
  CTORCH_CHECK_VALUE(steps >= 0, "number of steps must be non-negative");
  if (!options.has_dtype()) options = options.dtype(get_default_dtype());
  Tensor values = empty({steps}, TensorOptions(kFloat64));
  auto* p = values.data_ptr<double>();
  const double s = start.to_double(), e = end.to_double();
  if (steps == 1) {
    p[0] = s;
  } else if (steps > 1) {
    // PyTorch fills the first half from the start and the second half from the end.
    const double step = (e - s) / static_cast<double>(steps - 1);
    const int64_t half = steps / 2;
    for (int64_t i = 0; i < steps; ++i) p[i] = i < half ? s + step * static_cast<double>(i)
                                                        : e - step * static_cast<double>(steps - i - 1);
  }
  if (is_floating_point(options.dtype()) && options.dtype() != kFloat64) {
    // float32 linspace is computed in float in PyTorch.
    Tensor t = empty({steps}, options.requires_grad(false));
    if (options.dtype() == kFloat32) {
      auto* q = t.data_ptr<float>();
      const float sf = static_cast<float>(s), ef = static_cast<float>(e);
      const float step = steps > 1 ? (ef - sf) / static_cast<float>(steps - 1) : 0.f;
      const int64_t half = steps / 2;
      for (int64_t i = 0; i < steps; ++i) q[i] = i < half ? sf + step * static_cast<float>(i)
                                                          : ef - step * static_cast<float>(steps - i - 1);
    } else {
      t.copy_(values);
    }
    if (options.requires_grad()) t.requires_grad_(true);
    return t;
  }
  return values.to(options.device(), options.dtype());
}

Tensor eye(int64_t n, std::optional<int64_t> m, TensorOptions options) {
  const int64_t cols = m.value_or(n);
  CTORCH_CHECK_VALUE(n >= 0, "n must be greater or equal to 0, got ", n);
  CTORCH_CHECK_VALUE(cols >= 0, "m must be greater or equal to 0, got ", cols);
  Tensor t = zeros({n, cols}, options.requires_grad(false));
  const int64_t k = std::min(n, cols);
  if (k > 0) t.as_strided({k}, {cols + 1}).fill_(1);
  if (options.requires_grad()) t.requires_grad_(true);
  return t;
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
  if (options.requires_grad()) t.requires_grad_(true);
  return t;
}

Tensor from_blob(void* data, IntArrayRef sizes, TensorOptions options, std::function<void(void*)> deleter) {
  const DimVector strides = contiguous_strides(sizes);
  return from_blob(data, sizes, strides, options, std::move(deleter));
}

namespace {

struct ListInfo {
  DimVector shape;
  ScalarType dtype = kBool;
  bool any = false;
};

void infer(const NestedList& l, size_t depth, ListInfo& info, bool& first_at_depth) {
  if (l.is_scalar()) {
    CTORCH_CHECK_VALUE(depth == info.shape.size(), "expected sequence of length ",
                       depth < info.shape.size() ? info.shape[depth] : 0, " at dim ", depth, " (got a number)");
    const ScalarType t = l.scalar().is_floating_point() ? get_default_dtype()
                         : l.scalar().is_bool()         ? kBool
                                                        : kInt64;
    info.dtype = info.any ? promote_types(info.dtype, t) : t;
    info.any = true;
    return;
  }
  const int64_t n = static_cast<int64_t>(l.items().size());
  if (depth == info.shape.size() && first_at_depth) {
    info.shape.push_back(n);
  } else {
    CTORCH_CHECK_VALUE(depth < info.shape.size() && info.shape[depth] == n, "expected sequence of length ",
                       depth < info.shape.size() ? info.shape[depth] : 0, " at dim ", depth, " (got ", n, ")");
  }
  for (const NestedList& item : l.items()) infer(item, depth + 1, info, first_at_depth);
  first_at_depth = false;
}

void flatten_values(const NestedList& l, std::vector<Scalar>& out) {
  if (l.is_scalar()) {
    out.push_back(l.scalar());
    return;
  }
  for (const NestedList& item : l.items()) flatten_values(item, out);
}

}  // namespace

Tensor tensor(const NestedList& data, TensorOptions options) {
  ListInfo info;
  bool first = true;
  infer(data, 0, info, first);
  if (!info.any) info.dtype = get_default_dtype();  // torch.tensor([]) is float
  std::vector<Scalar> values;
  flatten_values(data, values);
  const ScalarType dtype = options.dtype_opt().value_or(info.dtype);
  Tensor host = empty(info.shape, TensorOptions(dtype));
  kernels::dispatch_all(dtype, "tensor", [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* p = host.data_ptr<T>();
    for (size_t i = 0; i < values.size(); ++i) {
      const Scalar& v = values[i];
      if constexpr (std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>) {
        p[i] = T(static_cast<float>(v.to_double()));
      } else if constexpr (std::is_same_v<T, bool>) {
        p[i] = v.to_bool();
      } else if constexpr (std::is_integral_v<T>) {
        p[i] = static_cast<T>(v.to_long());
      } else {
        p[i] = static_cast<T>(v.to_double());
      }
    }
  });
  Tensor t = options.device().is_cpu() ? host : host.to(options.device());
  if (options.requires_grad()) t.requires_grad_(true);
  return t;
}

template <class T>
Tensor tensor(const std::vector<T>& data, TensorOptions options) {
  const int64_t n = static_cast<int64_t>(data.size());
  Tensor host = empty({n}, TensorOptions(scalar_type_of<T>));
  std::copy(data.begin(), data.end(), host.data_ptr<T>());
  Tensor t = host.to(options.device_opt().value_or(Device(DeviceType::CPU)), options.dtype_opt().value_or(scalar_type_of<T>));
  if (options.requires_grad()) t.requires_grad_(true);
  return t;
}

template Tensor tensor<float>(const std::vector<float>&, TensorOptions);
template Tensor tensor<double>(const std::vector<double>&, TensorOptions);
template Tensor tensor<int64_t>(const std::vector<int64_t>&, TensorOptions);
template Tensor tensor<int32_t>(const std::vector<int32_t>&, TensorOptions);
template Tensor tensor<uint8_t>(const std::vector<uint8_t>&, TensorOptions);

}  // namespace ctorch
