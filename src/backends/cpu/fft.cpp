// The cpu launcher's FFT over FFTW3 (fftw3 for complex128, fftw3f for complex64).
// Plans are made with FFTW_ESTIMATE (no measuring runs: planning never reads or writes the arrays)
// and FFTW_UNALIGNED (tensors are only element-aligned), then run with the new-array execute
// functions, which FFTW documents as thread-safe; planning and destroying plans are not, so both
// take one process-wide lock. The cpu keeps its plans in its own cache (not a cufft_plan_cache).
#include "backends/cpu/fft.h"

#include <fftw3.h>

#include <climits>
#include <mutex>

#include "ctorch/error.h"
#include "ops/fft_plan_cache.h"

namespace ctorch::inline api::backends::cpu {
namespace {

std::mutex& planner_mutex() {
  static std::mutex m;
  return m;
}

constexpr unsigned kFlags = FFTW_ESTIMATE | FFTW_UNALIGNED;

// A plan of either precision.
struct FftwPlan {
  fftw_plan d = nullptr;
  fftwf_plan f = nullptr;
  ~FftwPlan() {
    std::lock_guard<std::mutex> lock(planner_mutex());
    if (d) fftw_destroy_plan(d);
    if (f) fftwf_destroy_plan(f);
  }
};

int to_int(int64_t v, const char* what) {
  CTORCH_CHECK_VALUE(v <= INT_MAX, "fft: ", what, " ", v, " exceeds FFTW's int range");
  return static_cast<int>(v);
}

}  // namespace

std::shared_ptr<void> make_fftw_plan(const kernels::FftPlan& p, const void* in_, void* out_) {
  using kernels::FftKind;
  const int n = to_int(p.n, "signal length");
  const int batch = to_int(p.batch, "batch");
  const int idist = to_int(p.in_dist, "input distance"), odist = to_int(p.out_dist, "output distance");
  void* in = const_cast<void*>(in_);  // FFTW's signature; an out-of-place c2c or r2c plan preserves its input
  auto plan = std::make_shared<FftwPlan>();
  std::lock_guard<std::mutex> lock(planner_mutex());
  if (p.dtype == kComplexDouble) {
    switch (p.kind) {
      case FftKind::C2C:
        plan->d = fftw_plan_many_dft(1, &n, batch, static_cast<fftw_complex*>(in), nullptr, 1, idist,
                                     static_cast<fftw_complex*>(out_), nullptr, 1, odist,
                                     p.forward ? FFTW_FORWARD : FFTW_BACKWARD, kFlags);
        break;
      case FftKind::R2C:
        plan->d = fftw_plan_many_dft_r2c(1, &n, batch, static_cast<double*>(in), nullptr, 1, idist,
                                         static_cast<fftw_complex*>(out_), nullptr, 1, odist, kFlags);
        break;
      case FftKind::C2R:
        plan->d = fftw_plan_many_dft_c2r(1, &n, batch, static_cast<fftw_complex*>(in), nullptr, 1, idist,
                                         static_cast<double*>(out_), nullptr, 1, odist, kFlags);
        break;
    }
    CTORCH_CHECK(plan->d != nullptr, "fft: FFTW could not plan a transform of length ", p.n);
  } else {
    switch (p.kind) {
      case FftKind::C2C:
        plan->f = fftwf_plan_many_dft(1, &n, batch, static_cast<fftwf_complex*>(in), nullptr, 1, idist,
                                      static_cast<fftwf_complex*>(out_), nullptr, 1, odist,
                                      p.forward ? FFTW_FORWARD : FFTW_BACKWARD, kFlags);
        break;
      case FftKind::R2C:
        plan->f = fftwf_plan_many_dft_r2c(1, &n, batch, static_cast<float*>(in), nullptr, 1, idist,
                                          static_cast<fftwf_complex*>(out_), nullptr, 1, odist, kFlags);
        break;
      case FftKind::C2R:
        plan->f = fftwf_plan_many_dft_c2r(1, &n, batch, static_cast<fftwf_complex*>(in), nullptr, 1, idist,
                                          static_cast<float*>(out_), nullptr, 1, odist, kFlags);
        break;
    }
    CTORCH_CHECK(plan->f != nullptr, "fft: FFTW could not plan a transform of length ", p.n);
  }
  return plan;
}

void execute_fftw_plan(const void* fftw_plan_, const kernels::FftPlan& p, const void* in_, void* out) {
  using kernels::FftKind;
  const auto* plan = static_cast<const FftwPlan*>(fftw_plan_);
  void* in = const_cast<void*>(in_);
  if (plan->d) {
    switch (p.kind) {
      case FftKind::C2C:
        fftw_execute_dft(plan->d, static_cast<fftw_complex*>(in), static_cast<fftw_complex*>(out));
        return;
      case FftKind::R2C:
        fftw_execute_dft_r2c(plan->d, static_cast<double*>(in), static_cast<fftw_complex*>(out));
        return;
      case FftKind::C2R:
        fftw_execute_dft_c2r(plan->d, static_cast<fftw_complex*>(in), static_cast<double*>(out));
        return;
    }
  }
  switch (p.kind) {
    case FftKind::C2C:
      fftwf_execute_dft(plan->f, static_cast<fftwf_complex*>(in), static_cast<fftwf_complex*>(out));
      return;
    case FftKind::R2C:
      fftwf_execute_dft_r2c(plan->f, static_cast<float*>(in), static_cast<fftwf_complex*>(out));
      return;
    case FftKind::C2R:
      fftwf_execute_dft_c2r(plan->f, static_cast<fftwf_complex*>(in), static_cast<float*>(out));
      return;
  }
}

void fft(const kernels::FftPlan& plan, const void* in, void* out) {
  static ops::FftPlanCache* cache = new ops::FftPlanCache();  // never destroyed: plans may outlive exit order
  const std::shared_ptr<void> p = cache->get(plan, [&] { return make_fftw_plan(plan, in, out); });
  execute_fftw_plan(p.get(), plan, in, out);
}

}  // namespace ctorch::api::backends::cpu
