// FftPlan: one batched 1-d FFT over contiguous rows, built by the op layer (ops/fft_ops.cpp) and
// run by a backend's fft slot (FFTW on cpu and emulated devices, cuFFT on CUDA).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>

#include "ctorch/dtype.h"

namespace ctorch::inline api::kernels {

/// Which transform: complex to complex, real to complex (onesided), complex (onesided) to real.
enum class FftKind : uint8_t { C2C, R2C, C2R };

/// A batch of `batch` transforms of length `n`. Input rows are contiguous, in_dist elements apart
/// (of the input's dtype); output rows likewise, out_dist apart. R2C reads n reals and writes
/// n / 2 + 1 complex values; C2R reads n / 2 + 1 complex values and writes n reals, and may overwrite
/// its input (cuFFT's and FFTW's c2r do). Unnormalized: the op layer scales the output (norm modes).
struct FftPlan {
  FftKind kind = FftKind::C2C;
  ScalarType dtype = kComplexFloat;  ///< the complex dtype of the transform (complex64 or complex128)
  bool forward = true;               ///< C2C sign (R2C is always forward, C2R always inverse)
  int64_t n = 1;
  int64_t batch = 1;
  int64_t in_dist = 1;
  int64_t out_dist = 1;

  /// Equal geometry.
  bool same_transform(const FftPlan& o) const {
    return kind == o.kind && dtype == o.dtype && forward == o.forward && n == o.n && batch == o.batch &&
           in_dist == o.in_dist && out_dist == o.out_dist;
  }
};

/// Hash of the transform's geometry (FftPlan::same_transform's fields).
struct FftPlanHash {
  size_t operator()(const FftPlan& p) const noexcept {
    size_t h = static_cast<size_t>(p.kind) * 31u + static_cast<size_t>(p.dtype) * 7u + (p.forward ? 1u : 0u);
    for (int64_t v : {p.n, p.batch, p.in_dist, p.out_dist}) h = h * 1000003u ^ std::hash<int64_t>{}(v);
    return h;
  }
};

/// Equality of the transform's geometry.
struct FftPlanEqual {
  bool operator()(const FftPlan& a, const FftPlan& b) const noexcept { return a.same_transform(b); }
};

}  // namespace ctorch::api::kernels
