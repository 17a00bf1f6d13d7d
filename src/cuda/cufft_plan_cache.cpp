// torch.backends.cuda.cufft_plan_cache: the per-device LRU of FFT plans (ops/fft_plan_cache.h), with
// ATen's CuFFTParamsLRUCache checks. Real devices cache cuFFT plans; emulated devices cache the FFTW
// plans that stand in for them, so size() counts the distinct transforms run on the device.
#include "ctorch/backends.h"
#include "ctorch/error.h"
#include "ops/fft_plan_cache.h"

namespace ctorch::inline api::backends::cuda {
namespace {
constexpr int64_t kMaxPlanNum = ops::FftPlanCache::kMaxPlanNum;  // CUFFT_MAX_PLAN_NUM (CUDA >= 10)
constexpr int kMaxDevices = 64;
}  // namespace

int64_t CuFFTPlanCache::size() const { return ops::cuda_fft_plan_cache(index_).size(); }
int64_t CuFFTPlanCache::max_size() const { return ops::cuda_fft_plan_cache(index_).max_size(); }
void CuFFTPlanCache::set_max_size(int64_t size) {
  CTORCH_CHECK(size >= 0, "cuFFT plan cache size must be non-negative, but got ", size);
  CTORCH_CHECK(size <= kMaxPlanNum, "cuFFT plan cache size can not be larger than ", kMaxPlanNum, ", but got ", size);
  ops::cuda_fft_plan_cache(index_).set_max_size(size);
}
void CuFFTPlanCache::clear() { ops::cuda_fft_plan_cache(index_).clear(); }

CuFFTPlanCache CuFFTPlanCacheManager::operator[](ctorch::cuda::DeviceArg device) const {
  const int index = device.resolve();
  const int count = ctorch::cuda::device_count();
  CTORCH_CHECK(index >= 0 && index < count && index < kMaxDevices,
               "cufft_plan_cache: expected 0 <= device index < ", count, ", but got device with index ", index);
  return CuFFTPlanCache(static_cast<DeviceIndex>(index));
}
int64_t CuFFTPlanCacheManager::size() const { return (*this)[ctorch::cuda::current_device()].size(); }
int64_t CuFFTPlanCacheManager::max_size() const { return (*this)[ctorch::cuda::current_device()].max_size(); }
void CuFFTPlanCacheManager::set_max_size(int64_t size) const {
  (*this)[ctorch::cuda::current_device()].set_max_size(size);
}
void CuFFTPlanCacheManager::clear() const { (*this)[ctorch::cuda::current_device()].clear(); }

}  // namespace ctorch::api::backends::cuda
