// Elementary functions for random sampling that give the same bits on every ctorch backend:
// logarithms and sine/cosine written with + - * / sqrt and explicit fma only, so that the host
// compiler, nvcc and the device's libm cannot change a result.
//
// Note [Contraction-proof arithmetic]
// nvcc fuses a multiply followed by an add into one fma (-fmad=true, its default), even across
// statements and when the product has other uses; host compilers may do the same with FMA
// hardware. Every function here is written so that no product feeds an addition or subtraction:
// each multiply-add is an explicit std::fma, and every other product is exact or consumed only
// by a multiplication, a conversion, a comparison, sqrt, or as an operand of an explicit fma.
// So contraction, on or off, cannot change a bit. The same rule holds in random_functors.h.
// Rounding must be IEEE round-to-nearest without flush-to-zero (never --use_fast_math).
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>

#include "ctorch/macros.h"

namespace ctorch::inline api::kernels {
namespace detail {

CTORCH_HD inline uint32_t bits_of(float f) {
  uint32_t u;
  std::memcpy(&u, &f, sizeof(u));
  return u;
}
CTORCH_HD inline float float_of(uint32_t u) {
  float f;
  std::memcpy(&f, &u, sizeof(f));
  return f;
}
CTORCH_HD inline uint64_t bits_of(double d) {
  uint64_t u;
  std::memcpy(&u, &d, sizeof(u));
  return u;
}
CTORCH_HD inline double double_of(uint64_t u) {
  double d;
  std::memcpy(&d, &u, sizeof(d));
  return d;
}

}  // namespace detail

/// Natural log of a float: Cephes logf as avx_mathfun's log256_ps computes it for one lane,
/// with fma where GCC fused PyTorch's AVX2 build (see Note [Fused multiply-add in the reference
/// build] in random/distributions.cpp). NaN for x <= 0; ~1 ulp on (0, 1].
CTORCH_HD inline float mathfun_logf(float x) {
  const bool invalid = x <= 0.0f;
  const float min_norm_pos = detail::float_of(0x00800000u);
  x = x > min_norm_pos ? x : min_norm_pos;  // _mm256_max_ps(x, min): second operand on NaN
  int32_t exponent = static_cast<int32_t>(detail::bits_of(x) >> 23);
  x = detail::float_of((detail::bits_of(x) & ~0x7f800000u) | 0x3f000000u);
  exponent -= 0x7f;
  float e = static_cast<float>(exponent);
  e = e + 1.0f;
  const bool below = x < 0.707106781186547524f;
  float tmp = below ? x : 0.0f;
  x = x - 1.0f;
  e = e - (below ? 1.0f : 0.0f);
  x = x + tmp;
  const float z = x * x;
  float y = 7.0376836292E-2f;
  y = std::fma(y, x, -1.1514610310E-1f);
  y = std::fma(y, x, 1.1676998740E-1f);
  y = std::fma(y, x, -1.2420140846E-1f);
  y = std::fma(y, x, 1.4249322787E-1f);
  y = std::fma(y, x, -1.6668057665E-1f);
  y = std::fma(y, x, 2.0000714765E-1f);
  y = std::fma(y, x, -2.4999993993E-1f);
  y = std::fma(y, x, 3.3333331174E-1f);
  y = y * x;
  tmp = e * -2.12194440e-4f;
  y = std::fma(y, z, tmp);
  y = std::fma(-z, 0.5f, y);
  x = x + y;
  x = std::fma(e, 0.693359375f, x);
  if (invalid) x = detail::float_of(0xffffffffu);  // NaN, as the AVX2 code's all-ones mask
  return x;
}

/// sin and cos of a float: Cephes sinf/cosf with the 4/pi range reduction, as avx_mathfun's
/// sincos256_ps computes them for one lane (fma where GCC fused the AVX2 build). Accurate to a
/// few ulps for |x| up to a few thousand.
CTORCH_HD inline void mathfun_sincosf(float x_in, float* sin_out, float* cos_out) {
  uint32_t sign_sin = detail::bits_of(x_in) & 0x80000000u;
  float x = detail::float_of(detail::bits_of(x_in) & 0x7fffffffu);
  float y = x * 1.27323954473516f;  // 4 / pi
  int32_t j = static_cast<int32_t>(y);
  j = (j + 1) & ~1;
  y = static_cast<float>(j);
  const uint32_t swap_sign_sin = static_cast<uint32_t>(j & 4) << 29;
  const bool use_sin_poly = (j & 2) == 0;
  x = std::fma(y, -0.78515625f, x);
  x = std::fma(y, -2.4187564849853515625e-4f, x);
  x = std::fma(y, -3.77489497744594108e-8f, x);
  const uint32_t sign_cos = static_cast<uint32_t>(~(j - 2) & 4) << 29;
  sign_sin ^= swap_sign_sin;
  const float z = x * x;
  float yc = 2.443315711809948E-005f;
  yc = std::fma(yc, z, -1.388731625493765E-003f);
  yc = std::fma(yc, z, 4.166664568298827E-002f);
  yc = yc * z;
  const float half_z = z * 0.5f;
  yc = std::fma(yc, z, -half_z);
  yc = yc + 1.0f;
  float ys = -1.9515295891E-4f;
  ys = std::fma(ys, z, 8.3321608736E-3f);
  ys = std::fma(ys, z, -1.6666654611E-1f);
  ys = ys * z;
  ys = std::fma(ys, x, x);
  const float sin2 = use_sin_poly ? ys : 0.0f;
  const float sin1 = use_sin_poly ? 0.0f : yc;
  ys = ys - sin2;
  yc = yc - sin1;
  const float s = sin1 + sin2;
  const float c = yc + ys;
  *sin_out = detail::float_of(detail::bits_of(s) ^ sign_sin);
  *cos_out = detail::float_of(detail::bits_of(c) ^ sign_cos);
}

/// Natural log of a positive normal double (fdlibm's e_log.c algorithm, every multiply-add an
/// fma). Within about 1 ulp. Returns -inf for 0 and NaN for negative or NaN input; subnormal
/// inputs are not supported (callers pass values >= 2^-54).
CTORCH_HD inline double log_fma(double x) {
  constexpr double kLn2Hi = 6.93147180369123816490e-01;  // 0x3fe62e42fee00000
  constexpr double kLn2Lo = 1.90821492927058770002e-10;  // 0x3dea39ef35793c76
  constexpr double kLg1 = 6.666666666666735130e-01;
  constexpr double kLg2 = 3.999999999940941908e-01;
  constexpr double kLg3 = 2.857142874366239149e-01;
  constexpr double kLg4 = 2.222219843214978396e-01;
  constexpr double kLg5 = 1.818357216161805012e-01;
  constexpr double kLg6 = 1.531383769920937332e-01;
  constexpr double kLg7 = 1.479819860511658591e-01;
  if (!(x > 0.0)) return x == 0.0 ? -detail::double_of(0x7ff0000000000000ull) : detail::double_of(0x7ff8000000000000ull);
  const uint64_t bits = detail::bits_of(x);
  int32_t hx = static_cast<int32_t>(bits >> 32);
  const uint32_t lx = static_cast<uint32_t>(bits);
  if (hx >= 0x7ff00000) return x;  // +inf
  int32_t k = (hx >> 20) - 1023;
  hx &= 0x000fffff;
  const int32_t i = (hx + 0x95f64) & 0x100000;
  // x (or x / 2) scaled into [sqrt(2)/2, sqrt(2)).
  x = detail::double_of((static_cast<uint64_t>(static_cast<uint32_t>(hx | (i ^ 0x3ff00000))) << 32) | lx);
  k += i >> 20;
  const double f = x - 1.0;
  const double s = f / (2.0 + f);
  const double dk = static_cast<double>(k);
  const double z = s * s;
  const double w = z * z;
  double p1 = std::fma(w, kLg6, kLg4);
  p1 = std::fma(w, p1, kLg2);
  double p2 = std::fma(w, kLg7, kLg5);
  p2 = std::fma(w, p2, kLg3);
  p2 = std::fma(w, p2, kLg1);
  const double t2 = z * p2;
  const double r = std::fma(w, p1, t2);
  const double dk_lo = dk * kLn2Lo;
  double e;
  if (((hx - 0x6147a) | (0x6b851 - hx)) > 0) {
    const double hf = 0.5 * f;
    const double hfsq_r = std::fma(hf, f, r);        // hfsq + R
    const double inner = std::fma(s, hfsq_r, dk_lo);  // s * (hfsq + R) + k * ln2_lo
    const double d = std::fma(hf, f, -inner);         // hfsq - inner
    e = d - f;
  } else {
    const double inner = std::fma(s, f - r, -dk_lo);  // s * (f - R) - k * ln2_lo
    e = inner - f;
  }
  return std::fma(dk, kLn2Hi, -e);
}

/// sin(pi x) and cos(pi x) for 0 <= x <= 2 (Taylor polynomials on [-1/4, 1/4] after an exact
/// reduction by multiples of 1/2; every multiply-add an fma). Within about 2 ulps.
CTORCH_HD inline void sincospi_fma(double x, double* sin_out, double* cos_out) {
  const int q = static_cast<int>(x * 4.0);  // exact product, truncated: floor for x >= 0
  const int n = (q + 1) >> 1;               // nearest multiple of 1/2 is n / 2
  const double r = std::fma(-0.5, static_cast<double>(n), x);  // exact, |r| <= 1/4
  const double r2 = r * r;
  // sin(pi r) = r * (pi - pi^3/3! r^2 + ...), cos(pi r) = 1 - pi^2/2! r^2 + ...
  double ps = 0x1.aaec32af93359p-21;
  ps = std::fma(ps, r2, -0x1.6fadb9f155744p-16);
  ps = std::fma(ps, r2, 0x1.e8f434d018d63p-12);
  ps = std::fma(ps, r2, -0x1.e3074fde8871fp-8);
  ps = std::fma(ps, r2, 0x1.50783487ee782p-4);
  ps = std::fma(ps, r2, -0x1.32d2cce62bd86p-1);
  ps = std::fma(ps, r2, 0x1.466bc6775aae2p+1);
  ps = std::fma(ps, r2, -0x1.4abbce625be53p+2);
  ps = std::fma(ps, r2, 0x1.921fb54442d18p+1);
  const double sn = r * ps;
  double pc = -0x1.2a0c591af8314p-23;
  pc = std::fma(pc, r2, 0x1.20c62c2f2d7f5p-18);
  pc = std::fma(pc, r2, -0x1.b6e24f44b128fp-14);
  pc = std::fma(pc, r2, 0x1.f9d38a3763cc3p-10);
  pc = std::fma(pc, r2, -0x1.a6d1f2a204a8cp-6);
  pc = std::fma(pc, r2, 0x1.e1f506891babbp-3);
  pc = std::fma(pc, r2, -0x1.55d3c7e3cbffap+0);
  pc = std::fma(pc, r2, 0x1.03c1f081b5ac4p+2);
  pc = std::fma(pc, r2, -0x1.3bd3cc9be45dep+2);
  const double cs = std::fma(pc, r2, 1.0);
  switch (n & 3) {
    case 0: *sin_out = sn; *cos_out = cs; break;
    case 1: *sin_out = cs; *cos_out = -sn; break;
    case 2: *sin_out = -sn; *cos_out = -cs; break;
    default: *sin_out = -cs; *cos_out = sn; break;
  }
}

}  // namespace ctorch::api::kernels
