// The cpu launcher's matrix product (CpuLauncher::gemm; the emulated launcher's stand-in for cuBLAS).
//
// Note [cpu gemm]
// float32/float64 call OpenBLAS from the calling thread: cblas_?gemm, ?gemv when C is one row or one
// column, ?dot when it is 1x1. ctorch's pool sleeps meanwhile and OpenBLAS runs with the same thread
// count (sync_blas_threads below, then set_num_threads), so the two pools never run at once. (OpenBLAS's
// idle workers do spin, yielding, for up to OPENBLAS_THREAD_TIMEOUT after each call: 2^28 cycles by default.)
// float16/bfloat16 products of at least kConvertVolume multiply-adds are widened to float, multiplied
// by sgemm and rounded once. Everything else runs the blocked loop below, parallel over output tiles:
// half types accumulate in float, integers wrap in their own width (computed in unsigned arithmetic, so
// overflow is defined), bool is an or of ands. Batches of tiny float matrices take the loop too: one BLAS
// call per 4x4 product costs more than the product (measured: the loop wins below ~5x5x5).
// As in BLAS, beta == 0 never reads C (NaN there is ignored), and alpha == 0 or k == 0 never reads A or B
// (C = beta * C); m == 0 or n == 0 does nothing.
#include "backends/cpu/blas.h"

#include <cblas.h>

#include <algorithm>
#include <climits>
#include <cstdint>
#include <cstring>
#include <mutex>
#include <type_traits>
#include <vector>

#include "backends/cpu/parallel.h"
#include "kernels/dispatch.h"
#include "kernels/gemm_math.h"

namespace ctorch::inline api::backends::cpu {
namespace {

/// Output tile of the blocked loop: kMc rows by kNc columns, reduced kKc at a time.
constexpr int64_t kMc = 64;
constexpr int64_t kNc = 256;
constexpr int64_t kKc = 256;
/// Multiply-adds per parallel chunk of the blocked loop and of the scaling loop.
constexpr int64_t kLoopGrain = 1 << 16;
/// Batched float products with m * n * k below this run the blocked loop instead of one BLAS call each.
constexpr int64_t kTinyVolume = 128;
/// float16/bfloat16 products with m * n * k at least this go through sgemm.
constexpr int64_t kConvertVolume = 64 * 64 * 64;

using Geometry = kernels::GemmGeometry;

// OpenBLAS reads OPENBLAS_NUM_THREADS / OMP_NUM_THREADS / the affinity mask when it loads; ctorch reads
// OMP_NUM_THREADS / the core count. The first product aligns OpenBLAS on ctorch; set_num_threads keeps them so.
void sync_blas_threads() {
  static std::once_flag once;
  std::call_once(once, [] {
    const int n = num_threads();
    if (openblas_get_num_threads() != n) openblas_set_num_threads(n);
  });
}

bool fits_blas_int(const Geometry& g) {
  for (int64_t v : {g.m, g.n, g.k, g.lda, g.ldb, g.ldc}) {
    if (v > INT_MAX) return false;
  }
  return true;
}

// ---- the blocked loop ----------------------------------------------------------------------------

using kernels::accum_t;
using kernels::mul_add;
using kernels::narrow;
using kernels::widen;

/// alpha * acc + beta * c, with beta == 0 ignoring c.
template <class A>
inline A combine(A acc, A alpha, A beta, A c) {
  return kernels::gemm_output<A>(acc, alpha, beta, c);
}

/// C = beta * C (zeros when beta == 0) for every batch.
template <class T, class A>
void scale_c(const Geometry& g, T* c, A beta) {
  const int64_t rows = g.batch * g.m;
  parallel_for(0, rows, std::max<int64_t>(1, kLoopGrain / std::max<int64_t>(1, g.n)), [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) {
      T* row = c + (r / g.m) * g.stride_c + (r % g.m) * g.ldc;
      for (int64_t j = 0; j < g.n; ++j) {
        row[j] = beta == A(0) ? narrow<T, A>(A(0)) : narrow<T, A>(combine<A>(A(0), A(0), beta, widen<T, A>(row[j])));
      }
    }
  });
}

/// 16 bytes of A as a GCC/Clang vector (SSE2 on the x86-64 baseline, NEON on arm64).
template <class A>
struct Simd {
  typedef A type __attribute__((vector_size(16)));
};

template <class A, class V>
inline V simd_mul_add(V acc, V x, V y) {
  if constexpr (std::is_same_v<A, uint8_t>) {
    return acc | (x & y);
  } else {
    return acc + x * y;
  }
}

/// acc += ap @ bp for packed row-major blocks (ap: mc x kc, bp: kc x nc, acc: mc x nc). The body holds a
/// 4 x 32-byte block of acc in vector registers for the whole reduction; edges take the plain loop.
template <class A>
void multiply_block(const A* __restrict ap, const A* __restrict bp, A* __restrict acc, int64_t mc, int64_t nc,
                    int64_t kc) {
  using V = typename Simd<A>::type;
  constexpr int64_t kLanes = static_cast<int64_t>(sizeof(V) / sizeof(A));
  constexpr int64_t kMr = 4, kNr = 2 * kLanes;
  auto plain = [&](int64_t i, int64_t j0, int64_t j1) {
    A* __restrict row = acc + i * nc;
    for (int64_t p = 0; p < kc; ++p) {
      const A a = ap[i * kc + p];
      const A* __restrict brow = bp + p * nc;
      for (int64_t j = j0; j < j1; ++j) row[j] = mul_add(row[j], a, brow[j]);
    }
  };
  int64_t i = 0;
  for (; i + kMr <= mc; i += kMr) {
    int64_t j = 0;
    for (; j + kNr <= nc; j += kNr) {
      V c0[kMr], c1[kMr];
      for (int64_t r = 0; r < kMr; ++r) {
        std::memcpy(&c0[r], acc + (i + r) * nc + j, sizeof(V));
        std::memcpy(&c1[r], acc + (i + r) * nc + j + kLanes, sizeof(V));
      }
      for (int64_t p = 0; p < kc; ++p) {
        V b0, b1;
        std::memcpy(&b0, bp + p * nc + j, sizeof(V));
        std::memcpy(&b1, bp + p * nc + j + kLanes, sizeof(V));
        for (int64_t r = 0; r < kMr; ++r) {
          const V a = V{} + ap[(i + r) * kc + p];
          c0[r] = simd_mul_add<A>(c0[r], a, b0);
          c1[r] = simd_mul_add<A>(c1[r], a, b1);
        }
      }
      for (int64_t r = 0; r < kMr; ++r) {
        std::memcpy(acc + (i + r) * nc + j, &c0[r], sizeof(V));
        std::memcpy(acc + (i + r) * nc + j + kLanes, &c1[r], sizeof(V));
      }
    }
    if (j < nc) {
      for (int64_t r = 0; r < kMr; ++r) plain(i + r, j, nc);
    }
  }
  for (; i < mc; ++i) plain(i, 0, nc);
}

/// One kMc x kNc output tile at (i0, j0) of one batch, with packing buffers ap, bp and accumulator acc.
template <class T, class A>
void loop_tile(const Geometry& g, const T* a, const T* b, T* c, int64_t i0, int64_t j0, A alpha, A beta, A* ap,
               A* bp, A* acc) {
  const int64_t mc = std::min(kMc, g.m - i0), nc = std::min(kNc, g.n - j0);
  std::fill(acc, acc + mc * nc, A(0));
  for (int64_t p0 = 0; p0 < g.k; p0 += kKc) {
    const int64_t kc = std::min(kKc, g.k - p0);
    for (int64_t i = 0; i < mc; ++i) {
      A* dst = ap + i * kc;
      if (g.trans_a) {
        const T* src = a + p0 * g.lda + (i0 + i);
        for (int64_t p = 0; p < kc; ++p) dst[p] = widen<T, A>(src[p * g.lda]);
      } else {
        const T* src = a + (i0 + i) * g.lda + p0;
        for (int64_t p = 0; p < kc; ++p) dst[p] = widen<T, A>(src[p]);
      }
    }
    for (int64_t p = 0; p < kc; ++p) {
      A* dst = bp + p * nc;
      if (g.trans_b) {
        const T* src = b + j0 * g.ldb + (p0 + p);
        for (int64_t j = 0; j < nc; ++j) dst[j] = widen<T, A>(src[j * g.ldb]);
      } else {
        const T* src = b + (p0 + p) * g.ldb + j0;
        for (int64_t j = 0; j < nc; ++j) dst[j] = widen<T, A>(src[j]);
      }
    }
    multiply_block<A>(ap, bp, acc, mc, nc, kc);
  }
  for (int64_t i = 0; i < mc; ++i) {
    T* row = c + (i0 + i) * g.ldc + j0;
    const A* src = acc + i * nc;
    for (int64_t j = 0; j < nc; ++j) {
      row[j] = narrow<T, A>(combine<A>(src[j], alpha, beta, beta == A(0) ? A(0) : widen<T, A>(row[j])));
    }
  }
}

template <class T, class A>
void blocked_loop(const Geometry& g, const T* a, const T* b, T* c, A alpha, A beta) {
  const int64_t tiles_m = (g.m + kMc - 1) / kMc, tiles_n = (g.n + kNc - 1) / kNc;
  const int64_t per_batch = tiles_m * tiles_n;
  const int64_t tile_volume = std::min(kMc, g.m) * std::min(kNc, g.n) * g.k;
  const int64_t grain = std::max<int64_t>(1, kLoopGrain / std::max<int64_t>(1, tile_volume));
  parallel_for(0, g.batch * per_batch, grain, [&](int64_t t0, int64_t t1) {
    std::vector<A> buffer(static_cast<size_t>(kMc * kKc + kKc * kNc + kMc * kNc));
    A* ap = buffer.data();
    A* bp = ap + kMc * kKc;
    A* acc = bp + kKc * kNc;
    for (int64_t t = t0; t < t1; ++t) {
      const int64_t p = t / per_batch, tile = t % per_batch;
      loop_tile<T, A>(g, a + p * g.stride_a, b + p * g.stride_b, c + p * g.stride_c, (tile / tiles_n) * kMc, (tile % tiles_n) * kNc,
                      alpha, beta, ap, bp, acc);
    }
  });
}

// ---- OpenBLAS ----------------------------------------------------------------------------------------

inline CBLAS_TRANSPOSE trans(bool t) { return t ? CblasTrans : CblasNoTrans; }

inline void blas_gemm(const Geometry& g, float alpha, const float* a, const float* b, float beta, float* c) {
  cblas_sgemm(CblasRowMajor, trans(g.trans_a), trans(g.trans_b), static_cast<int>(g.m), static_cast<int>(g.n),
              static_cast<int>(g.k), alpha, a, static_cast<int>(g.lda), b, static_cast<int>(g.ldb), beta, c,
              static_cast<int>(g.ldc));
}
inline void blas_gemm(const Geometry& g, double alpha, const double* a, const double* b, double beta, double* c) {
  cblas_dgemm(CblasRowMajor, trans(g.trans_a), trans(g.trans_b), static_cast<int>(g.m), static_cast<int>(g.n),
              static_cast<int>(g.k), alpha, a, static_cast<int>(g.lda), b, static_cast<int>(g.ldb), beta, c,
              static_cast<int>(g.ldc));
}
inline void blas_gemv(bool t, int64_t rows, int64_t cols, float alpha, const float* a, int64_t lda, const float* x,
                      int64_t incx, float beta, float* y, int64_t incy) {
  cblas_sgemv(CblasRowMajor, trans(t), static_cast<int>(rows), static_cast<int>(cols), alpha, a,
              static_cast<int>(lda), x, static_cast<int>(incx), beta, y, static_cast<int>(incy));
}
inline void blas_gemv(bool t, int64_t rows, int64_t cols, double alpha, const double* a, int64_t lda,
                      const double* x, int64_t incx, double beta, double* y, int64_t incy) {
  cblas_dgemv(CblasRowMajor, trans(t), static_cast<int>(rows), static_cast<int>(cols), alpha, a,
              static_cast<int>(lda), x, static_cast<int>(incx), beta, y, static_cast<int>(incy));
}
inline float blas_dot(int64_t n, const float* x, int64_t incx, const float* y, int64_t incy) {
  return cblas_sdot(static_cast<int>(n), x, static_cast<int>(incx), y, static_cast<int>(incy));
}
inline double blas_dot(int64_t n, const double* x, int64_t incx, const double* y, int64_t incy) {
  return cblas_ddot(static_cast<int>(n), x, static_cast<int>(incx), y, static_cast<int>(incy));
}

/// One product through OpenBLAS; degenerate shapes go to gemv/dot (0.3.21 does not forward them itself).
template <class T>
void blas_one(const Geometry& g, T alpha, const T* a, const T* b, T beta, T* c) {
  // Element j of op(A)'s only row, and of op(B)'s only column, is x[j * inc].
  const int64_t inc_a_row = g.trans_a ? g.lda : 1;
  const int64_t inc_b_col = g.trans_b ? 1 : g.ldb;
  if (g.m == 1 && g.n == 1) {
    const T dot = blas_dot(g.k, a, inc_a_row, b, inc_b_col);
    c[0] = beta == T(0) ? alpha * dot : alpha * dot + beta * c[0];
  } else if (g.n == 1) {  // column: y = op(A) x
    blas_gemv(g.trans_a, g.trans_a ? g.k : g.m, g.trans_a ? g.m : g.k, alpha, a, g.lda, b, inc_b_col, beta, c, g.ldc);
  } else if (g.m == 1) {  // row: y = op(B)^T x
    blas_gemv(!g.trans_b, g.trans_b ? g.n : g.k, g.trans_b ? g.k : g.n, alpha, b, g.ldb, a, inc_a_row, beta, c, 1);
  } else {
    blas_gemm(g, alpha, a, b, beta, c);
  }
}

template <class T>
void blas_batched(const Geometry& g, T alpha, const T* a, const T* b, T beta, T* c) {
  sync_blas_threads();
  for (int64_t p = 0; p < g.batch; ++p) blas_one<T>(g, alpha, a + p * g.stride_a, b + p * g.stride_b, beta, c + p * g.stride_c);
}

/// Stored rows x cols (leading dim ld) of type T into a dense float matrix.
template <class T>
void widen_matrix(const T* src, int64_t rows, int64_t cols, int64_t ld, float* dst) {
  parallel_for(0, rows, std::max<int64_t>(1, kLoopGrain / std::max<int64_t>(1, cols)), [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) {
      for (int64_t j = 0; j < cols; ++j) dst[r * cols + j] = static_cast<float>(src[r * ld + j]);
    }
  });
}

/// float16/bfloat16 through sgemm: widen A, B (and C when beta != 0), multiply, round once.
template <class T>
void convert_batched(const Geometry& g, float alpha, const T* a, const T* b, float beta, T* c) {
  const int64_t rows_a = g.trans_a ? g.k : g.m, cols_a = g.trans_a ? g.m : g.k;
  const int64_t rows_b = g.trans_b ? g.n : g.k, cols_b = g.trans_b ? g.k : g.n;
  std::vector<float> af(static_cast<size_t>(rows_a * cols_a)), bf(static_cast<size_t>(rows_b * cols_b)),
      cf(static_cast<size_t>(g.m * g.n));
  Geometry gf = g;
  gf.lda = std::max<int64_t>(1, cols_a);
  gf.ldb = std::max<int64_t>(1, cols_b);
  gf.ldc = std::max<int64_t>(1, g.n);
  gf.batch = 1;
  sync_blas_threads();
  for (int64_t p = 0; p < g.batch; ++p) {
    widen_matrix(a + p * g.stride_a, rows_a, cols_a, g.lda, af.data());
    widen_matrix(b + p * g.stride_b, rows_b, cols_b, g.ldb, bf.data());
    T* cp = c + p * g.stride_c;
    if (beta != 0.0f) widen_matrix(cp, g.m, g.n, g.ldc, cf.data());
    blas_gemm(gf, alpha, af.data(), bf.data(), beta, cf.data());
    parallel_for(0, g.m, std::max<int64_t>(1, kLoopGrain / std::max<int64_t>(1, g.n)), [&](int64_t r0, int64_t r1) {
      for (int64_t r = r0; r < r1; ++r) {
        for (int64_t j = 0; j < g.n; ++j) cp[r * g.ldc + j] = T(cf[r * g.n + j]);
      }
    });
  }
}

}  // namespace

void gemm(ScalarType dtype, const kernels::GemmGeometry& g, const Scalar& alpha, const void* a, const void* b,
          const Scalar& beta, void* c) {
  if (g.m <= 0 || g.n <= 0 || g.batch <= 0) return;
  kernels::dispatch_all(dtype, "mm", [&](auto tag) {
    using T = typename decltype(tag)::type;
    using A = accum_t<T>;
    const A alpha_v = kernels::gemm_scalar<T, A>(alpha), beta_v = kernels::gemm_scalar<T, A>(beta);
    const T* at = static_cast<const T*>(a);
    const T* bt = static_cast<const T*>(b);
    T* ct = static_cast<T*>(c);
    if (g.k == 0 || alpha_v == A(0)) return scale_c<T, A>(g, ct, beta_v);
    const int64_t volume = g.m * g.n * g.k;
    if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
      if (fits_blas_int(g) && (g.batch == 1 || volume >= kTinyVolume)) {
        return blas_batched<T>(g, alpha_v, at, bt, beta_v, ct);
      }
    } else if constexpr (std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>) {
      if (fits_blas_int(g) && volume >= kConvertVolume) return convert_batched<T>(g, alpha_v, at, bt, beta_v, ct);
    }
    blocked_loop<T, A>(g, at, bt, ct, alpha_v, beta_v);
  });
}

}  // namespace ctorch::api::backends::cpu
