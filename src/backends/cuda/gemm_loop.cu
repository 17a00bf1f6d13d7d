// KernelTable::gemm for the dtypes cuBLAS has no GEMM for (integers, bool), and for the k == 0 /
// alpha == 0 case of every dtype (C = beta * C without reading A or B). One thread per output
// element, grid-stride over batch * m * n; simple and exact, not fast.
// Arithmetic follows the cpu backend's blocked loop (backends/cpu/blas.cpp): half types accumulate
// in float, integers in unsigned arithmetic of their width or wider (wrapping, as the cpu), bool
// is an or of ands; beta == 0 never reads C.
#include <algorithm>
#include <type_traits>

#include "backends/cuda/kernels.h"
#include "backends/cuda/launch.cuh"
#include "kernels/dispatch.h"

namespace ctorch::backends::cuda {
namespace {

template <class T>
struct Accum {
  using type = T;
};
template <>
struct Accum<Half> {
  using type = float;
};
template <>
struct Accum<BFloat16> {
  using type = float;
};
template <>
struct Accum<bool> {
  using type = uint8_t;
};
template <>
struct Accum<uint8_t> {
  using type = uint32_t;
};
template <>
struct Accum<int8_t> {
  using type = uint32_t;
};
template <>
struct Accum<int16_t> {
  using type = uint32_t;
};
template <>
struct Accum<int32_t> {
  using type = uint32_t;
};
template <>
struct Accum<int64_t> {
  using type = uint64_t;
};

template <class T>
inline constexpr bool is_reduced_float_v = std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>;

template <class T, class A>
__device__ __forceinline__ A widen(T v) {
  if constexpr (is_reduced_float_v<T>) {
    return static_cast<float>(v);
  } else {
    return static_cast<A>(v);
  }
}

template <class T, class A>
__device__ __forceinline__ T narrow(A v) {
  if constexpr (std::is_same_v<T, bool>) {
    return v != 0;
  } else if constexpr (is_reduced_float_v<T>) {
    return T(v);
  } else {
    return static_cast<T>(v);  // modular for integers (C++20)
  }
}

template <class A>
__device__ __forceinline__ A mul_add(A acc, A x, A y) {
  if constexpr (std::is_same_v<A, uint8_t>) {
    return static_cast<uint8_t>(acc | (x & y));
  } else {
    return static_cast<A>(acc + x * y);
  }
}

// alpha * acc + beta * c, with beta == 0 ignoring c.
template <class A>
__device__ __forceinline__ A combine(A acc, A alpha, A beta, A c) {
  if constexpr (std::is_same_v<A, uint8_t>) {
    return static_cast<uint8_t>((alpha & (acc != 0)) | (beta & (c != 0)));
  } else {
    return beta == A(0) ? static_cast<A>(alpha * acc) : static_cast<A>(alpha * acc + beta * c);
  }
}

// A scalar converted as the dtype would store it, then widened (host side).
template <class T, class A>
A scalar_as(const Scalar& s) {
  if constexpr (is_reduced_float_v<T>) {
    return static_cast<float>(s.to_double());
  } else {
    return static_cast<A>(s.to<T>());
  }
}

template <class T, class A>
__global__ void gemm_loop_kernel(GemmGeometry g, const T* a, const T* b, T* c, A alpha, A beta) {
  const int64_t total = g.batch * g.m * g.n;
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t idx = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; idx < total; idx += stride) {
    const int64_t j = idx % g.n;
    const int64_t row = idx / g.n;
    const int64_t i = row % g.m;
    const int64_t p = row / g.m;
    const T* ap = a + p * g.stride_a;
    const T* bp = b + p * g.stride_b;
    T* cp = c + p * g.stride_c + i * g.ldc + j;
    A acc = A(0);
    for (int64_t l = 0; l < g.k; ++l) {
      const A x = widen<T, A>(g.trans_a ? ap[l * g.lda + i] : ap[i * g.lda + l]);
      const A y = widen<T, A>(g.trans_b ? bp[j * g.ldb + l] : bp[l * g.ldb + j]);
      acc = mul_add<A>(acc, x, y);
    }
    *cp = narrow<T, A>(combine<A>(acc, alpha, beta, beta == A(0) ? A(0) : widen<T, A>(*cp)));
  }
}

}  // namespace

void gemm_loop(ScalarType dtype, const GemmGeometry& geometry, const Scalar& alpha, const void* a, const void* b,
               const Scalar& beta, void* c, Stream s) {
  if (geometry.m <= 0 || geometry.n <= 0 || geometry.batch <= 0) return;
  ScopedDevice guard(s.device().index());
  const cudaStream_t stream = native_stream(s);
  const kernels::DeviceLimits limits = device_limits(s.device().index());
  kernels::dispatch_all(dtype, "mm", [&](auto tag) {
    using T = typename decltype(tag)::type;
    using A = typename Accum<T>::type;
    GemmGeometry g = geometry;
    A alpha_v = scalar_as<T, A>(alpha);
    const A beta_v = scalar_as<T, A>(beta);
    if (g.k <= 0 || alpha_v == A(0)) {  // C = beta * C, as the cpu's scale_c: A and B are never read
      g.k = 0;
      alpha_v = A(0);
    }
    const int64_t total = g.batch * g.m * g.n;
    const kernels::LaunchConfig cfg =
        kernels::elementwise_launch_config(std::min(total, kernels::kMaxElementsPerLaunch), limits);
    gemm_loop_kernel<T, A><<<cfg.grid, cfg.block, 0, stream>>>(g, static_cast<const T*>(a), static_cast<const T*>(b),
                                                                static_cast<T*>(c), alpha_v, beta_v);
    CTORCH_CUDA_CHECK(cudaGetLastError());
  });
}

}  // namespace ctorch::backends::cuda
