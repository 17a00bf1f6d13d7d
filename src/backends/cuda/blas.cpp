// The CUDA launcher's matrix product (CudaLauncher::gemm, through blas_gemm).
//
// Note [cuda gemm]
// float32/float64 call cublas{S,D}gemmStridedBatched_64; float16/bfloat16 call
// cublasGemmStridedBatchedEx_64 with float accumulation (CUBLAS_COMPUTE_32F), so half products are
// widened, accumulated in float and rounded once, as on the cpu. The math mode follows
// ctorch/backends.h per call: TF32 tensor ops for float32 only under allow_tf32 (False by default),
// reduced-precision half reductions unless disallowed. Row-major C =
// op(A) op(B) is computed as the column-major C^T = op(B)^T op(A)^T, i.e. with A and B swapped.
// Integers and bool, and the k == 0 / alpha == 0 case of every dtype, run gemm_loop (gemm_loop.cu).
// Handles: one per (thread, device), created on first use with the device current and returned
// to a per-device pool when the thread exits (PyTorch's cuBLAS handle pool); each call binds the
// handle to the stream first. Handles are never destroyed (CUDA may be unloading at exit).
#include <array>
#include <mutex>
#include <string>
#include <vector>

#include <cublas_v2.h>

#include "core/math_settings.h"

#include "backends/cuda/check.h"
#include "backends/cuda/kernels.h"
#include "backends/cuda/lazy_library.h"
#include "backends/cuda/stream.h"
#include "ctorch/error.h"

namespace ctorch::inline api::backends::cuda {
namespace {

constexpr int kMaxDevices = 64;

// cuBLAS, opened on first use (lazy_library.h): linked, its static initialization cost every
// process ~80 ms at start.
struct Cublas {
  static constexpr const char* kSoname = "libcublas.so." CTORCH_LAZY_XSTR_(CUBLAS_VER_MAJOR);
  void* lib = open_cuda_library(kSoname);
#define CTORCH_CUBLAS_FN_(fn) decltype(&fn) fn##_ = CTORCH_LAZY_SYMBOL(lib, kSoname, fn)
  CTORCH_CUBLAS_FN_(cublasGetStatusName);
  CTORCH_CUBLAS_FN_(cublasGetStatusString);
  CTORCH_CUBLAS_FN_(cublasCreate);
  CTORCH_CUBLAS_FN_(cublasSetStream);
  CTORCH_CUBLAS_FN_(cublasSetMathMode);
  CTORCH_CUBLAS_FN_(cublasSgemmStridedBatched_64);
  CTORCH_CUBLAS_FN_(cublasDgemmStridedBatched_64);
  CTORCH_CUBLAS_FN_(cublasGemmStridedBatchedEx_64);
#undef CTORCH_CUBLAS_FN_
};

const Cublas& cublas() {
  static const Cublas* api = new Cublas();  // never unloaded, as a linked library
  return *api;
}

[[noreturn]] void throw_cublas_error(cublasStatus_t status, const char* expr, const char* file, int line) {
  int device = -1;
  if (cudaGetDevice(&device) != cudaSuccess) device = -1;
  const std::string msg = detail::str_cat("CUDA error: ", cublas().cublasGetStatusName_(status), " when calling `", expr,
                                          "` (", cublas().cublasGetStatusString_(status), "; cuda:", device, " at ", file, ":",
                                          line, ")");
  switch (status) {
    case CUBLAS_STATUS_ALLOC_FAILED: throw OutOfMemoryError(msg);
    case CUBLAS_STATUS_NOT_INITIALIZED: throw DeviceError(msg);
    default: throw Error(msg);
  }
}

#define CTORCH_CUBLAS_CHECK(expr)                                                    \
  do {                                                                               \
    const cublasStatus_t ctorch_cublas_status_ = (expr);                             \
    if (ctorch_cublas_status_ != CUBLAS_STATUS_SUCCESS) {                            \
      throw_cublas_error(ctorch_cublas_status_, #expr, __FILE__, __LINE__);          \
    }                                                                                \
  } while (0)

struct HandlePool {
  std::mutex mutex;  // guards free
  std::vector<cublasHandle_t> free[kMaxDevices];
};

HandlePool& pool() {
  static HandlePool* p = new HandlePool();  // leaked: threads may exit during static destruction
  return *p;
}

struct ThreadHandles {
  std::array<cublasHandle_t, kMaxDevices> handles{};
  ~ThreadHandles() {
    HandlePool& p = pool();
    std::lock_guard<std::mutex> lock(p.mutex);
    for (int d = 0; d < kMaxDevices; ++d) {
      if (handles[d]) p.free[d].push_back(handles[d]);
    }
  }
};

// The calling thread's handle for `device`, which must be current, bound to `stream`.
cublasHandle_t handle(DeviceIndex device, cudaStream_t stream) {
  thread_local ThreadHandles mine;
  cublasHandle_t& h = mine.handles[device];
  if (!h) {
    HandlePool& p = pool();
    {
      std::lock_guard<std::mutex> lock(p.mutex);
      if (!p.free[device].empty()) {
        h = p.free[device].back();
        p.free[device].pop_back();
      }
    }
    if (!h) CTORCH_CUBLAS_CHECK(cublas().cublasCreate_(&h));
  }
  CTORCH_CUBLAS_CHECK(cublas().cublasSetStream_(h, stream));
  return h;
}

cublasOperation_t op(bool trans) { return trans ? CUBLAS_OP_T : CUBLAS_OP_N; }

}  // namespace

void blas_gemm(ScalarType dtype, const kernels::GemmGeometry& g, const Scalar& alpha, const void* a, const void* b,
               const Scalar& beta, void* c, Stream s) {
  const DeviceIndex device = s.device().index();
  CTORCH_CHECK(device >= 0 && device < kMaxDevices, "[mm] expected a cuda stream, but got ", s.device());
  if (kernels::gemm_needs_loop(dtype, g.k, alpha)) return gemm_loop(dtype, g, alpha, a, b, beta, c, s);
  const bool trans_a = g.trans_a, trans_b = g.trans_b;
  const int64_t m = g.m, n = g.n, k = g.k, lda = g.lda, ldb = g.ldb, ldc = g.ldc;
  const int64_t stride_a = g.stride_a, stride_b = g.stride_b, stride_c = g.stride_c, batch = g.batch;

  ScopedDevice guard(device);
  cublasHandle_t h = handle(device, native_stream(s));
  // PyTorch's math mode per call: TF32 tensor ops for float32 when allowed; float16/bfloat16
  // reductions in reduced precision only when allowed.
  cublasMath_t math = CUBLAS_DEFAULT_MATH;
  if (dtype == kFloat32 && impl::matmul_allow_tf32()) math = CUBLAS_TF32_TENSOR_OP_MATH;
  const bool reduced_ok = dtype == kFloat16 ? impl::matmul_allow_fp16_reduction()
                                            : impl::matmul_allow_bf16_reduction();
  if ((dtype == kFloat16 || dtype == kBFloat16) && !reduced_ok) {
    math = static_cast<cublasMath_t>(math | CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION);
  }
  CTORCH_CUBLAS_CHECK(cublas().cublasSetMathMode_(h, math));
  if (dtype == kFloat64) {
    const double al = alpha.to_double(), be = beta.to_double();
    CTORCH_CUBLAS_CHECK(cublas().cublasDgemmStridedBatched_64_(h, op(trans_b), op(trans_a), n, m, k, &al,
                                                     static_cast<const double*>(b), ldb, stride_b,
                                                     static_cast<const double*>(a), lda, stride_a, &be,
                                                     static_cast<double*>(c), ldc, stride_c, batch));
  } else if (dtype == kFloat32) {
    const float al = alpha.to<float>(), be = beta.to<float>();
    CTORCH_CUBLAS_CHECK(cublas().cublasSgemmStridedBatched_64_(h, op(trans_b), op(trans_a), n, m, k, &al,
                                                     static_cast<const float*>(b), ldb, stride_b,
                                                     static_cast<const float*>(a), lda, stride_a, &be,
                                                     static_cast<float*>(c), ldc, stride_c, batch));
  } else {
    const float al = static_cast<float>(alpha.to_double()), be = static_cast<float>(beta.to_double());
    const cudaDataType type = dtype == kFloat16 ? CUDA_R_16F : CUDA_R_16BF;
    CTORCH_CUBLAS_CHECK(cublas().cublasGemmStridedBatchedEx_64_(h, op(trans_b), op(trans_a), n, m, k, &al, b, type, ldb,
                                                      stride_b, a, type, lda, stride_a, &be, c, type, ldc, stride_c,
                                                      batch, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
  }
}

void* blas_handle(Stream s) {
  const DeviceIndex device = s.device().index();
  CTORCH_CHECK(device >= 0 && device < kMaxDevices, "[current_blas_handle] expected a cuda stream, but got ", s.device());
  ScopedDevice guard(device);
  return handle(device, native_stream(s));
}

}  // namespace ctorch::api::backends::cuda
