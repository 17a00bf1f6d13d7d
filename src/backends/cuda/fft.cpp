// The CUDA launcher's FFT through cuFFT (KernelTable::fft), as ATen's cuFFT path: one plan per
// transform geometry from the device's cufft_plan_cache (cufftPlanMany, made with the device
// current), bound to the stream of the call (cufftSetStream) and run with cufftExec{C2C,Z2Z,R2C,
// D2Z,C2R,Z2D}. cuFFT allocates each plan's work area itself (ATen lends it caching-allocator
// memory instead). cuFFT is opened on first use (lazy_library.h), like cuBLAS and NVRTC: it is not
// linked. Compiled in the CUDA build; it has never run on a GPU.
#include <cufft.h>

#include <cstdint>
#include <memory>
#include <string>

#include "backends/cuda/kernels.h"
#include "backends/cuda/lazy_library.h"
#include "backends/cuda/stream.h"
#include "ctorch/error.h"
#include "ops/fft_plan_cache.h"

namespace ctorch::inline api::backends::cuda {
namespace {

struct Cufft {
  static constexpr const char* kSoname = "libcufft.so." CTORCH_LAZY_XSTR_(CUFFT_VER_MAJOR);
  void* lib = open_cuda_library(kSoname);
#define CTORCH_CUFFT_FN_(fn) decltype(&fn) fn##_ = CTORCH_LAZY_SYMBOL(lib, kSoname, fn)
  CTORCH_CUFFT_FN_(cufftPlanMany);
  CTORCH_CUFFT_FN_(cufftDestroy);
  CTORCH_CUFFT_FN_(cufftSetStream);
  CTORCH_CUFFT_FN_(cufftExecC2C);
  CTORCH_CUFFT_FN_(cufftExecZ2Z);
  CTORCH_CUFFT_FN_(cufftExecR2C);
  CTORCH_CUFFT_FN_(cufftExecD2Z);
  CTORCH_CUFFT_FN_(cufftExecC2R);
  CTORCH_CUFFT_FN_(cufftExecZ2D);
#undef CTORCH_CUFFT_FN_
};

const Cufft& cufft() {
  static const Cufft* api = new Cufft();  // never unloaded, as a linked library
  return *api;
}

// ATen's _cudaGetErrorEnum for cufftResult.
const char* cufft_error_name(cufftResult r) {
  switch (r) {
    case CUFFT_SUCCESS: return "CUFFT_SUCCESS";
    case CUFFT_INVALID_PLAN: return "CUFFT_INVALID_PLAN";
    case CUFFT_ALLOC_FAILED: return "CUFFT_ALLOC_FAILED";
    case CUFFT_INVALID_TYPE: return "CUFFT_INVALID_TYPE";
    case CUFFT_INVALID_VALUE: return "CUFFT_INVALID_VALUE";
    case CUFFT_INTERNAL_ERROR: return "CUFFT_INTERNAL_ERROR";
    case CUFFT_EXEC_FAILED: return "CUFFT_EXEC_FAILED";
    case CUFFT_SETUP_FAILED: return "CUFFT_SETUP_FAILED";
    case CUFFT_INVALID_SIZE: return "CUFFT_INVALID_SIZE";
    case CUFFT_UNALIGNED_DATA: return "CUFFT_UNALIGNED_DATA";
    default: return "CUFFT_UNKNOWN_ERROR";
  }
}

void check(cufftResult r, const char* expr) {
  if (r == CUFFT_SUCCESS) return;
  const std::string msg = detail::str_cat("cuFFT error: ", cufft_error_name(r), " when calling `", expr, "`");
  if (r == CUFFT_ALLOC_FAILED) throw OutOfMemoryError(msg);
  throw Error(msg);
}
#define CTORCH_CUFFT_CHECK(expr) check((expr), #expr)

cufftType cufft_type(const kernels::FftPlan& p) {
  const bool d = p.dtype == kComplexDouble;
  switch (p.kind) {
    case kernels::FftKind::C2C: return d ? CUFFT_Z2Z : CUFFT_C2C;
    case kernels::FftKind::R2C: return d ? CUFFT_D2Z : CUFFT_R2C;
    case kernels::FftKind::C2R: return d ? CUFFT_Z2D : CUFFT_C2R;
  }
  return CUFFT_C2C;
}

std::shared_ptr<void> make_plan(const kernels::FftPlan& p) {
  CTORCH_CHECK_VALUE(p.n <= INT32_MAX && p.batch <= INT32_MAX && p.in_dist <= INT32_MAX && p.out_dist <= INT32_MAX,
                     "fft: sizes beyond cufftPlanMany's int range are not supported by ctorch");
  int n = static_cast<int>(p.n);
  cufftHandle handle = 0;
  CTORCH_CUFFT_CHECK(cufft().cufftPlanMany_(&handle, 1, &n, nullptr, 1, static_cast<int>(p.in_dist), nullptr, 1,
                                            static_cast<int>(p.out_dist), cufft_type(p), static_cast<int>(p.batch)));
  auto* owned = new cufftHandle(handle);
  return std::shared_ptr<void>(owned, [](void* h) {
    auto* handle = static_cast<cufftHandle*>(h);
    (void)cufft().cufftDestroy_(*handle);  // noexcept: a failed destroy only leaks
    delete handle;
  });
}

}  // namespace

void fft(const kernels::FftPlan& p, const void* in_, void* out, Stream s) {
  const DeviceIndex device = s.device().index();
  ScopedDevice guard(device);
  const std::shared_ptr<void> plan = ops::cuda_fft_plan_cache(device).get(p, [&] { return make_plan(p); });
  const cufftHandle h = *static_cast<const cufftHandle*>(plan.get());
  CTORCH_CUFFT_CHECK(cufft().cufftSetStream_(h, native_stream(s)));
  void* in = const_cast<void*>(in_);  // cuFFT's signature; only c2r writes its input (the op layer passes a copy)
  const int dir = p.forward ? CUFFT_FORWARD : CUFFT_INVERSE;
  switch (cufft_type(p)) {
    case CUFFT_C2C:
      CTORCH_CUFFT_CHECK(cufft().cufftExecC2C_(h, static_cast<cufftComplex*>(in), static_cast<cufftComplex*>(out), dir));
      return;
    case CUFFT_Z2Z:
      CTORCH_CUFFT_CHECK(
          cufft().cufftExecZ2Z_(h, static_cast<cufftDoubleComplex*>(in), static_cast<cufftDoubleComplex*>(out), dir));
      return;
    case CUFFT_R2C:
      CTORCH_CUFFT_CHECK(cufft().cufftExecR2C_(h, static_cast<cufftReal*>(in), static_cast<cufftComplex*>(out)));
      return;
    case CUFFT_D2Z:
      CTORCH_CUFFT_CHECK(
          cufft().cufftExecD2Z_(h, static_cast<cufftDoubleReal*>(in), static_cast<cufftDoubleComplex*>(out)));
      return;
    case CUFFT_C2R:
      CTORCH_CUFFT_CHECK(cufft().cufftExecC2R_(h, static_cast<cufftComplex*>(in), static_cast<cufftReal*>(out)));
      return;
    case CUFFT_Z2D:
      CTORCH_CUFFT_CHECK(
          cufft().cufftExecZ2D_(h, static_cast<cufftDoubleComplex*>(in), static_cast<cufftDoubleReal*>(out)));
      return;
  }
}

}  // namespace ctorch::api::backends::cuda
