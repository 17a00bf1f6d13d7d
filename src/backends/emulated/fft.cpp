// The emulated launcher's FFT: cuFFT's host side (a plan from the device's cufft_plan_cache, made
// on the calling thread) with FFTW standing in for cuFFT's kernels, run on the stream's worker.
// Values equal the cpu's (the same FFTW plans), not a GPU's: cuFFT's algorithms are not public.
#include <memory>

#include "backends/cpu/fft.h"
#include "backends/emulated/launch.h"
#include "backends/emulated/runtime.h"
#include "ops/fft_plan_cache.h"

namespace ctorch::inline api::backends::emulated {

void EmulatedLauncher::fft(const kernels::FftPlan& plan, const void* in, void* out, Stream s) {
  using kernels::FftKind;
  const int64_t complex_size = element_size(plan.dtype), real_size = complex_size / 2;
  const int64_t in_size = plan.kind == FftKind::R2C ? real_size : complex_size;
  const int64_t out_size = plan.kind == FftKind::C2R ? real_size : complex_size;
  const DeviceIndex dev = s.device().index();
  const void* hin = instance().translate(in, static_cast<size_t>(plan.batch * plan.in_dist * in_size), dev);
  void* hout = instance().translate(out, static_cast<size_t>(plan.batch * plan.out_dist * out_size), dev);
  std::shared_ptr<void> fftw = ops::cuda_fft_plan_cache(dev).get(plan, [&] { return cpu::make_fftw_plan(plan, hin, hout); });
  // The task holds the plan: clearing or shrinking the cache meanwhile cannot free it under the worker.
  instance().enqueue(s, [fftw, plan, hin, hout] { cpu::execute_fftw_plan(fftw.get(), plan, hin, hout); }, "fft");
}

}  // namespace ctorch::api::backends::emulated
