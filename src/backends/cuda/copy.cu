// KernelTable::cast_copy, fill and where on CUDA.
// cast_copy converts with the cpu backend's rules (backends/cpu/elementwise.cpp `convert`):
// to bool is "non-zero", half and bfloat16 go through float; a same-dtype contiguous copy is a
// device-to-device cudaMemcpyAsync.
#include <type_traits>

#include "backends/cuda/kernels.h"
#include "backends/cuda/launch.cuh"
#include "kernels/dispatch.h"

namespace ctorch::backends::cuda {

using kernels::ElementwisePlan;
using kernels::opmath_t;

namespace {

template <class T>
inline constexpr bool is_reduced_float_v = std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>;

// Same rules as the cpu backend's convert<To>(From).
template <class To, class From>
CTORCH_HD To convert(From v) {
  if constexpr (std::is_same_v<To, bool>) {
    return static_cast<float>(v) != 0.0f || static_cast<double>(v) != 0.0;
  } else if constexpr (is_reduced_float_v<To>) {
    return To(static_cast<float>(v));
  } else if constexpr (is_reduced_float_v<From>) {
    return static_cast<To>(static_cast<float>(v));
  } else {
    return static_cast<To>(v);
  }
}

// Sees the source in storage type (opmath_t of a storage type S is S except for half/bfloat16,
// whose float is exact), so convert<D> gets the same value as on the cpu.
template <class D, class S>
struct ConvertFn {
  CTORCH_HD D operator()(opmath_t<S> v) const { return convert<D>(static_cast<S>(v)); }
};

template <class T>
struct FillFn {
  T value;
  CTORCH_HD T operator()() const { return value; }
};

template <class A>
struct WhereFn {
  CTORCH_HD A operator()(bool c, A x, A y) const { return c ? x : y; }
};

}  // namespace

void cast_copy(ScalarType dst, ScalarType src, const ElementwisePlan& plan, char* const* data, Stream s) {
  ScopedDevice guard(s.device().index());
  const cudaStream_t stream = native_stream(s);
  if (dst == src && plan.is_contiguous()) {
    const size_t bytes = static_cast<size_t>(plan.numel * element_size(dst));
    if (bytes) CTORCH_CUDA_CHECK(cudaMemcpyAsync(data[0], data[1], bytes, cudaMemcpyDeviceToDevice, stream));
    return;
  }
  kernels::dispatch_all(dst, "copy_", [&](auto dtag) {
    using D = typename decltype(dtag)::type;
    kernels::dispatch_all(src, "copy_", [&](auto stag) {
      using S = typename decltype(stag)::type;
      launch_elementwise<D, S>(plan, data, ConvertFn<D, S>{}, stream);
    });
  });
}

void fill(ScalarType dtype, const ElementwisePlan& plan, char* const* data, const Scalar& value, Stream s) {
  ScopedDevice guard(s.device().index());
  const cudaStream_t stream = native_stream(s);
  kernels::dispatch_all(dtype, "fill_", [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T v = value.is_floating_point() ? convert<T>(value.to_double()) : convert<T>(value.to_long());
    launch_elementwise<T>(plan, data, FillFn<T>{v}, stream);
  });
}

void where(ScalarType dtype, const ElementwisePlan& plan, char* const* data, Stream s) {
  ScopedDevice guard(s.device().index());
  const cudaStream_t stream = native_stream(s);
  kernels::dispatch_all(dtype, "where", [&](auto tag) {
    using T = typename decltype(tag)::type;
    launch_elementwise<T, bool, T, T>(plan, data, WhereFn<opmath_t<T>>{}, stream);
  });
}

}  // namespace ctorch::backends::cuda
