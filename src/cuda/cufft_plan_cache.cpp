// torch.backends.cuda.cufft_plan_cache: per-device capacity, checked as ATen's CuFFTParamsLRUCache.
// ctorch has no FFT ops (they need complex dtypes), so the caches never hold a plan.
#include <array>
#include <atomic>

#include "ctorch/backends.h"
#include "ctorch/error.h"

namespace ctorch::backends::cuda {
namespace {
constexpr int64_t kMaxPlanNum = 4096;  // CUFFT_MAX_PLAN_NUM (CUDA >= 10)
constexpr int kMaxDevices = 64;
// Stored as the distance below the default, so zero-initialized atomics mean 4096.
std::array<std::atomic<int64_t>, kMaxDevices> g_below_default{};
}  // namespace

int64_t CuFFTPlanCache::size() const { return 0; }
int64_t CuFFTPlanCache::max_size() const { return kMaxPlanNum - g_below_default[index_]; }
void CuFFTPlanCache::set_max_size(int64_t size) {
  CTORCH_CHECK(size >= 0, "cuFFT plan cache size must be non-negative, but got ", size);
  CTORCH_CHECK(size <= kMaxPlanNum, "cuFFT plan cache size can not be larger than ", kMaxPlanNum, ", but got ", size);
  g_below_default[index_] = kMaxPlanNum - size;
}
void CuFFTPlanCache::clear() {}

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

}  // namespace ctorch::backends::cuda
