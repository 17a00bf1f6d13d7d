// The arithmetic of the loop GEMM, written once: the cpu blocked loop, the CUDA one-thread-per-output
// kernel and the emulated walker of that kernel all use it. Half types accumulate in float,
// integers in unsigned arithmetic of their width or wider (so overflow wraps, defined), bool is an
// or of ands; beta == 0 never reads C.
#pragma once

#include <cstdint>
#include <type_traits>

#include "ctorch/dtype.h"
#include "ctorch/macros.h"
#include "ctorch/scalar.h"
#include "kernels/convert.h"

namespace ctorch::inline api::kernels {

/// Accumulator type: float for the half types, unsigned for integers (wrapping), uint8 for bool.
template <class T>
struct Accum {
  using type = std::conditional_t<
      is_reduced_float_v<T>, float,
      std::conditional_t<std::is_same_v<T, bool>, uint8_t,
                         std::conditional_t<std::is_integral_v<T>,
                                            std::conditional_t<(sizeof(T) <= 4), uint32_t, uint64_t>, T>>>;
};
/// The accumulator of storage type T.
template <class T>
using accum_t = typename Accum<T>::type;

/// A stored value widened to its accumulator.
template <class T, class A>
CTORCH_HD A widen(T v) {
  if constexpr (is_reduced_float_v<T>) {
    return static_cast<float>(v);
  } else {
    return static_cast<A>(v);
  }
}

/// An accumulator narrowed to storage (modular for integers, C++20).
template <class T, class A>
CTORCH_HD T narrow(A v) {
  if constexpr (std::is_same_v<T, bool>) {
    return v != 0;
  } else if constexpr (is_reduced_float_v<T>) {
    return T(v);
  } else {
    return static_cast<T>(v);
  }
}

/// acc + x * y (bool: acc | (x & y)).
template <class A>
CTORCH_HD A mul_add(A acc, A x, A y) {
  if constexpr (std::is_same_v<A, uint8_t>) {
    return static_cast<uint8_t>(acc | (x & y));
  } else {
    return static_cast<A>(acc + x * y);
  }
}

/// alpha * acc + beta * c, with beta == 0 ignoring c.
template <class A>
CTORCH_HD A gemm_output(A acc, A alpha, A beta, A c) {
  if constexpr (std::is_same_v<A, uint8_t>) {
    return static_cast<uint8_t>((alpha & (acc != 0)) | (beta & (c != 0)));
  } else {
    return beta == A(0) ? static_cast<A>(alpha * acc) : static_cast<A>(alpha * acc + beta * c);
  }
}

/// A scalar converted as dtype T would store it, then widened (host side).
template <class T, class A>
A gemm_scalar(const Scalar& s) {
  if constexpr (is_reduced_float_v<T>) {
    return static_cast<float>(s.to_double());
  } else {
    return static_cast<A>(s.to<T>());
  }
}

/// `x` rounded to TF32 (10 explicit mantissa bits, float's exponent): round half away from zero on
/// the magnitude, as CUTLASS's round_half_ulp_truncate; inf and nan unchanged. Used to emulate an
/// Ampere GPU's float32 GEMM when torch.backends.cuda.matmul.allow_tf32 is set.
CTORCH_HD inline float round_to_tf32(float x) {
  uint32_t u;
  __builtin_memcpy(&u, &x, sizeof u);
  if ((u & 0x7f800000u) == 0x7f800000u) return x;
  u = (u + 0x1000u) & 0xffffe000u;
  float r;
  __builtin_memcpy(&r, &u, sizeof r);
  return r;
}

/// Shape of a row-major strided batched GEMM, in elements (see ops::KernelTable::gemm).
struct GemmGeometry {
  bool trans_a, trans_b;
  int64_t m, n, k;
  int64_t lda, stride_a, ldb, stride_b, ldc, stride_c, batch;
};

/// True when a backend with a vendor BLAS runs the loop GEMM instead: integer and bool dtypes,
/// and k == 0 or alpha == 0 for every dtype (C = beta * C without reading A or B).
/// alpha is seen as the BLAS call sees it: double for float64, float otherwise.
inline bool gemm_needs_loop(ScalarType dtype, int64_t k, const Scalar& alpha) {
  const double a = dtype == ScalarType::Float64 ? alpha.to_double() : static_cast<double>(alpha.to<float>());
  return !is_floating_point(dtype) || k <= 0 || a == 0.0;
}

/// Output element `idx` (< batch * m * n, row-major over batch, m, n) of the loop GEMM: one dot
/// product over k in order. With k == 0 (or alpha == 0 passed as k = 0) A and B are not read.
template <class T, class A>
CTORCH_HD void gemm_loop_element(const GemmGeometry& g, const T* a, const T* b, T* c, A alpha, A beta, int64_t idx) {
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
  *cp = narrow<T, A>(gemm_output<A>(acc, alpha, beta, beta == A(0) ? A(0) : widen<T, A>(*cp)));
}

}  // namespace ctorch::api::kernels
