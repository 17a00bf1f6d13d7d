// FftPlanCache: an LRU of backend FFT plans keyed by the transform's geometry, one per CUDA device
// (torch.backends.cuda.cufft_plan_cache[i], ATen's CuFFTParamsLRUCache). Backends own the plans'
// contents (a cufftHandle, an FFTW plan) through type-erased shared pointers, so a plan evicted or
// cleared while a queued transform still uses it lives until that transform is done.
#pragma once

#include <cstdint>
#include <functional>
#include <list>
#include <memory>
#include <mutex>
#include <unordered_map>

#include "ctorch/device.h"
#include "kernels/fft_plan.h"

namespace ctorch::inline api::ops {

/// One device's plan cache. Thread-safe.
class FftPlanCache {
 public:
  /// CUFFT_MAX_PLAN_NUM for CUDA >= 10: the default and largest capacity.
  static constexpr int64_t kMaxPlanNum = 4096;

  /// The cached plan for `key`'s geometry, made by `make()` (and cached while max_size() > 0) when absent.
  std::shared_ptr<void> get(const kernels::FftPlan& key, const std::function<std::shared_ptr<void>()>& make);
  /// Plans held.
  int64_t size() const;
  /// Capacity.
  int64_t max_size() const;
  /// Sets the capacity (0..kMaxPlanNum, checked by the caller), evicting least recently used plans.
  void set_max_size(int64_t size);
  /// Drops every plan.
  void clear();

 private:
  using Entry = std::pair<kernels::FftPlan, std::shared_ptr<void>>;
  void trim_locked();

  mutable std::mutex mutex_;
  int64_t max_size_ = kMaxPlanNum;
  std::list<Entry> lru_;  // most recently used first
  std::unordered_map<kernels::FftPlan, std::list<Entry>::iterator, kernels::FftPlanHash, kernels::FftPlanEqual> index_;
};

/// The plan cache of CUDA device `index` (0 <= index < 64).
FftPlanCache& cuda_fft_plan_cache(DeviceIndex index);

}  // namespace ctorch::api::ops
