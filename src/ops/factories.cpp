// Factories that write values: full, arange, linspace, eye and tensor() (empty and from_blob are
// in tensor/factories.cpp). Values are computed on the host as PyTorch's cpu kernels compute them,
// then moved to the requested device.
#include <cmath>
#include <type_traits>

#include "core/scalar_convert.h"
#include "ctorch/factories.h"
#include "ctorch/ops.h"
#include "kernels/dispatch.h"
#include "ops/elementwise.h"
#include "tensor/allocation.h"

namespace ctorch::inline api {

Tensor full(IntArrayRef size, const Scalar& value, TensorOptions options) {
  if (!options.has_dtype()) options = options.dtype(value.type());
  Tensor t = empty(size, options.requires_grad(false));
  ops::fill_into(t, value);
  set_requires_grad(t, options);
  return t;
}

Tensor arange(const Scalar& end, TensorOptions options) { return arange(0, end, 1, options); }

namespace {

// The accumulation type of PyTorch's cpu range kernels (at::acc_type<T, false>).
template <class T>
using range_acc_t = std::conditional_t<std::is_integral_v<T>, int64_t,
                                       std::conditional_t<std::is_same_v<T, double> || std::is_same_v<T, float>,
                                                          double, float>>;

// Elements per AVX2 vector of T: PyTorch's vectorized range loops restart from a scalar base
// every vector, and the values depend on it.
template <class T>
constexpr int64_t vec_size() {
  return 32 / static_cast<int64_t>(sizeof(T));
}

// Fills out[0, n) as PyTorch 1.13's cpu kernel (cpu_serial_kernel_vec on AVX2) does: blocks of two
// vectors whose elements are vec_base(idx) + k * step (vec_elem), then a scalar tail (scalar_at).
template <class T, class ScalarAt, class VecElem>
void fill_range(T* out, int64_t n, const ScalarAt& scalar_at, const VecElem& vec_elem) {
  constexpr int64_t V = vec_size<T>();
  int64_t i = 0;
  for (; i + 2 * V <= n; i += 2 * V) {
    for (int64_t idx = i; idx < i + 2 * V; idx += V) {
      const T base = scalar_at(idx);
      for (int64_t k = 0; k < V; ++k) out[idx + k] = vec_elem(base, k);
    }
  }
  for (; i < n; ++i) out[i] = scalar_at(i);
}

// Wrapping int64 arithmetic (PyTorch's kernels wrap; signed overflow is undefined in C++).
int64_t wrap_mul_add(int64_t start, int64_t step, int64_t i) {
  return static_cast<int64_t>(static_cast<uint64_t>(start) + static_cast<uint64_t>(step) * static_cast<uint64_t>(i));
}

// Moves a host result to the requested device and applies requires_grad.
Tensor finish_host(Tensor host, const TensorOptions& options) {
  Tensor t = options.device().is_cpu() ? host : host.to(options.device());
  set_requires_grad(t, options);
  return t;
}

}  // namespace

// at::arange_out and arange_kernel (RangeFactories.cpp, RangeFactoriesKernel.cpp).
Tensor arange(const Scalar& start, const Scalar& end, const Scalar& step, TensorOptions options) {
  if (!options.has_dtype()) {
    const bool all_int = start.is_integral(true) && end.is_integral(true) && step.is_integral(true);
    options = options.dtype(all_int ? kInt64 : get_default_dtype());
  }
  const ScalarType dtype = options.dtype();
  CTORCH_CHECK_TYPE(dtype != kBool, "\"arange_cpu\" not implemented for 'Bool'");
  return kernels::dispatch_all(dtype, "arange_cpu", [&](auto tag) -> Tensor {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_same_v<T, bool>) {
      return Tensor();  // rejected above
    } else {
      using Acc = range_acc_t<T>;
      const Acc xstart = detail::checked_convert<Acc>(start);
      const Acc xend = detail::checked_convert<Acc>(end);
      const Acc xstep = detail::checked_convert<Acc>(step);
      // The size uses double arithmetic, except that int64 subtracts the bounds as int64.
      double size_d;
      if constexpr (std::is_same_v<T, int64_t>) {
        const int64_t diff = static_cast<int64_t>(static_cast<uint64_t>(xend) - static_cast<uint64_t>(xstart));
        size_d = std::ceil(static_cast<double>(diff) / static_cast<double>(xstep));
      } else {
        size_d = std::ceil((end.to_double() - start.to_double()) / step.to_double());
      }
      CTORCH_CHECK_VALUE(xstep > 0 || xstep < 0, "step must be nonzero");
      CTORCH_CHECK_VALUE(std::isfinite(static_cast<double>(xstart)) && std::isfinite(static_cast<double>(xend)),
                         "unsupported range: ", xstart, " -> ", xend);
      CTORCH_CHECK_VALUE((xstep > 0 && xend >= xstart) || (xstep < 0 && xend <= xstart),
                         "upper bound and larger bound inconsistent with step sign");
      CTORCH_CHECK_VALUE(size_d >= 0 && size_d <= static_cast<double>(INT64_MAX), "invalid size, possible overflow?");
      const int64_t n = static_cast<int64_t>(size_d);
      Tensor host = empty({n}, TensorOptions(dtype));
      T* out = host.data_ptr<T>();
      if constexpr (std::is_integral_v<T>) {
        for (int64_t i = 0; i < n; ++i) out[i] = static_cast<T>(wrap_mul_add(xstart, xstep, i));
      } else {
        // start + step * idx in Acc (fused, as compiled), rounded to T; vector elements add k * step
        // to the rounded vector base.
        fill_range<T>(
            out, n, [&](int64_t i) { return static_cast<T>(std::fma(xstep, static_cast<Acc>(i), xstart)); },
            [&](T base, int64_t k) {
              return static_cast<T>(std::fma(xstep, static_cast<Acc>(k), static_cast<Acc>(base)));
            });
      }
      return finish_host(host, options);
    }
  });
}

// at::linspace_out and linspace_kernel: the first half counts up from start, the second half down
// from end, in T's own arithmetic (double steps for integer types).
Tensor linspace(const Scalar& start, const Scalar& end, int64_t steps, TensorOptions options) {
  CTORCH_CHECK_VALUE(steps >= 0, "number of steps must be non-negative");
  if (!options.has_dtype()) options = options.dtype(get_default_dtype());
  const ScalarType dtype = options.dtype();
  Tensor host = empty({steps}, TensorOptions(dtype));
  if (steps == 1) {
    ops::fill_into(host, start);
  } else if (steps > 1) {
    CTORCH_CHECK_TYPE(dtype != kBool, "\"linspace_cpu\" not implemented for 'Bool'");
    kernels::dispatch_all(dtype, "linspace_cpu", [&](auto tag) {
      using T = typename decltype(tag)::type;
      const T s = detail::checked_convert<T>(start);
      const T e = detail::checked_convert<T>(end);
      T* out = static_cast<T*>(host.data_ptr());
      const int64_t half = steps / 2;
      if constexpr (std::is_same_v<T, bool>) {
        // rejected above
      } else if constexpr (std::is_integral_v<T>) {
        const double step = (static_cast<double>(e) - static_cast<double>(s)) / static_cast<double>(steps - 1);
        auto at = [&](int64_t i) {
          return i < half ? std::fma(step, static_cast<double>(i), static_cast<double>(s))
                          : std::fma(-step, static_cast<double>(steps - i - 1), static_cast<double>(e));
        };
        fill_range<T>(
            out, steps, [&](int64_t i) { return static_cast<T>(at(i)); },
            [&](T base, int64_t k) { return static_cast<T>(static_cast<double>(base) + static_cast<double>(k) * step); });
      } else if constexpr (std::is_floating_point_v<T>) {
        const T step = (e - s) / static_cast<T>(steps - 1);
        fill_range<T>(
            out, steps,
            [&](int64_t i) {
              return i < half ? std::fma(step, static_cast<T>(i), s)
                              : std::fma(-step, static_cast<T>(steps - i - 1), e);
            },
            [&](T base, int64_t k) { return base + static_cast<T>(k) * step; });
      } else {
        // float16 / bfloat16: every operation rounds to T, as c10::Half arithmetic does.
        auto sub = [](T a, T b) { return T(static_cast<float>(a) - static_cast<float>(b)); };
        auto add = [](T a, T b) { return T(static_cast<float>(a) + static_cast<float>(b)); };
        auto mul = [](T a, T b) { return T(static_cast<float>(a) * static_cast<float>(b)); };
        auto idx = [](int64_t i) { return T(static_cast<float>(i)); };
        const T step = T(static_cast<float>(sub(e, s)) / static_cast<float>(idx(steps - 1)));
        fill_range<T>(
            out, steps,
            [&](int64_t i) { return i < half ? add(s, mul(step, idx(i))) : sub(e, mul(step, idx(steps - i - 1))); },
            [&](T base, int64_t k) { return add(base, mul(idx(k), step)); });
      }
    });
  }
  return finish_host(host, options);
}

Tensor eye(int64_t n, std::optional<int64_t> m, TensorOptions options) {
  const int64_t cols = m.value_or(n);
  CTORCH_CHECK_VALUE(n >= 0, "n must be greater or equal to 0, got ", n);
  CTORCH_CHECK_VALUE(cols >= 0, "m must be greater or equal to 0, got ", cols);
  Tensor t = zeros({n, cols}, options.requires_grad(false));
  const int64_t k = std::min(n, cols);
  if (k > 0) {
    Tensor diagonal = t.as_strided({k}, {cols + 1});
    ops::fill_into(diagonal, 1);
  }
  set_requires_grad(t, options);
  return t;
}


namespace {

// torch/csrc/utils/tensor_new.cpp: infer_scalar_type promotes over every leaf (an empty list
// counts as the default dtype), compute_sizes follows the first element of each level, and
// recursive_store checks every level against those sizes while it writes.
ScalarType infer_dtype(const NestedList& l) {
  if (l.is_scalar()) {
    const Scalar& v = l.scalar();
    return v.is_floating_point() ? get_default_dtype() : v.is_bool() ? kBool : kInt64;
  }
  if (l.items().empty()) return get_default_dtype();
  ScalarType t = infer_dtype(l.items()[0]);
  for (size_t i = 1; i < l.items().size(); ++i) t = promote_types(t, infer_dtype(l.items()[i]));
  return t;
}

DimVector compute_sizes(const NestedList& data) {
  DimVector sizes;
  const NestedList* l = &data;
  while (!l->is_scalar()) {
    sizes.push_back(static_cast<int64_t>(l->items().size()));
    if (l->items().empty()) break;
    l = &l->items()[0];
  }
  return sizes;
}

// Python's name for an integer dtype in tensor() conversion errors.
const char* python_int_name(ScalarType t) {
  switch (t) {
    case kUInt8: return "uint8";
    case kInt8: return "int8";
    case kInt16: return "int16";
    case kInt32: return "int32";
    default: return "int64";
  }
}

template <class T>
void recursive_store(const NestedList& l, size_t dim, IntArrayRef sizes, ScalarType dtype, T*& out) {
  if (dim == sizes.size()) {
    CTORCH_CHECK_TYPE(l.is_scalar(), is_integral(dtype, true) ? "'list' object cannot be interpreted as an integer"
                                                              : "must be real number, not list");
    const Scalar& v = l.scalar();
    if constexpr (std::is_same_v<T, bool>) {
      *out++ = v.to_bool();
    } else if constexpr (std::is_integral_v<T>) {
      *out++ = detail::checked_convert<T>(v, python_int_name(dtype));
    } else if constexpr (std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>) {
      *out++ = T(static_cast<float>(v.to_double()));
    } else {
      *out++ = static_cast<T>(v.to_double());
    }
    return;
  }
  CTORCH_CHECK_TYPE(!l.is_scalar(), "not a sequence");
  const int64_t n = static_cast<int64_t>(l.items().size());
  CTORCH_CHECK_VALUE(n == sizes[dim], "expected sequence of length ", sizes[dim], " at dim ", dim, " (got ", n, ")");
  for (const NestedList& item : l.items()) recursive_store(item, dim + 1, sizes, dtype, out);
}

}  // namespace

Tensor tensor(const NestedList& data, TensorOptions options) {
  const ScalarType dtype = options.dtype_opt().value_or(infer_dtype(data));
  const DimVector sizes = compute_sizes(data);
  Tensor host = empty(sizes, TensorOptions(dtype));
  kernels::dispatch_all(dtype, "tensor", [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* p = static_cast<T*>(host.data_ptr());
    recursive_store<T>(data, 0, sizes, dtype, p);
  });
  return finish_host(host, options);
}

template <class T>
Tensor tensor(const std::vector<T>& data, TensorOptions options) {
  const int64_t n = static_cast<int64_t>(data.size());
  Tensor host = empty({n}, TensorOptions(scalar_type_of<T>));
  T* p = static_cast<T*>(host.data_ptr());
  for (int64_t i = 0; i < n; ++i) p[i] = data[static_cast<size_t>(i)];  // vector<bool> has no data()
  Tensor t = host.to(options.device_opt().value_or(Device(DeviceType::CPU)), options.dtype_opt().value_or(scalar_type_of<T>));
  set_requires_grad(t, options);
  return t;
}

template Tensor tensor<bool>(const std::vector<bool>&, TensorOptions);
template Tensor tensor<int8_t>(const std::vector<int8_t>&, TensorOptions);
template Tensor tensor<int16_t>(const std::vector<int16_t>&, TensorOptions);
template Tensor tensor<Half>(const std::vector<Half>&, TensorOptions);
template Tensor tensor<BFloat16>(const std::vector<BFloat16>&, TensorOptions);
template Tensor tensor<float>(const std::vector<float>&, TensorOptions);
template Tensor tensor<double>(const std::vector<double>&, TensorOptions);
template Tensor tensor<int64_t>(const std::vector<int64_t>&, TensorOptions);
template Tensor tensor<int32_t>(const std::vector<int32_t>&, TensorOptions);
template Tensor tensor<uint8_t>(const std::vector<uint8_t>&, TensorOptions);
template Tensor tensor<std::complex<float>>(const std::vector<std::complex<float>>&, TensorOptions);
template Tensor tensor<std::complex<double>>(const std::vector<std::complex<double>>&, TensorOptions);

}  // namespace ctorch::api
