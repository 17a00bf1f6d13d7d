// The cpu launcher's FFT (FFTW3), defined in fft.cpp; emulated devices run the same plans on their
// stream workers.
#pragma once

#include <memory>

#include "kernels/fft_plan.h"

namespace ctorch::inline api::backends::cpu {

/// An FFTW plan (FFTW_ESTIMATE, unaligned, out of place) for `plan`'s geometry, planned against the
/// host arrays `in` and `out` (not touched); destroyed under FFTW's planner lock. Throws when FFTW
/// cannot plan it (sizes beyond int).
std::shared_ptr<void> make_fftw_plan(const kernels::FftPlan& plan, const void* in, void* out);
/// Runs `fftw_plan` (from make_fftw_plan for `plan`'s geometry) on the host arrays, synchronously.
void execute_fftw_plan(const void* fftw_plan, const kernels::FftPlan& plan, const void* in, void* out);
/// KernelTable::fft on the cpu: a plan from the cpu's plan cache, run on the calling thread.
void fft(const kernels::FftPlan& plan, const void* in, void* out);

}  // namespace ctorch::api::backends::cpu
