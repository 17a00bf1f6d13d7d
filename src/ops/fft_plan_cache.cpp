// The per-device FFT plan caches (ops/fft_plan_cache.h).
#include "ops/fft_plan_cache.h"

#include <array>

#include "ctorch/error.h"

namespace ctorch::inline api::ops {

std::shared_ptr<void> FftPlanCache::get(const kernels::FftPlan& key,
                                        const std::function<std::shared_ptr<void>()>& make) {
  std::unique_lock<std::mutex> lock(mutex_);
  if (auto it = index_.find(key); it != index_.end()) {
    lru_.splice(lru_.begin(), lru_, it->second);
    return it->second->second;
  }
  // Planning may be slow (cuFFT) and may throw: done unlocked, inserted after.
  lock.unlock();
  std::shared_ptr<void> plan = make();
  lock.lock();
  if (max_size_ == 0) return plan;  // as ATen: a zero-sized cache plans every call, keeps nothing
  if (auto it = index_.find(key); it != index_.end()) {  // another thread planned it meanwhile
    lru_.splice(lru_.begin(), lru_, it->second);
    return it->second->second;
  }
  lru_.emplace_front(key, plan);
  index_.emplace(key, lru_.begin());
  trim_locked();
  return plan;
}

int64_t FftPlanCache::size() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return static_cast<int64_t>(lru_.size());
}

int64_t FftPlanCache::max_size() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return max_size_;
}

void FftPlanCache::set_max_size(int64_t size) {
  std::list<Entry> evicted;  // destroyed after the lock is released
  std::lock_guard<std::mutex> lock(mutex_);
  max_size_ = size;
  while (static_cast<int64_t>(lru_.size()) > max_size_) {
    index_.erase(lru_.back().first);
    evicted.splice(evicted.begin(), lru_, std::prev(lru_.end()));
  }
}

void FftPlanCache::trim_locked() {
  while (static_cast<int64_t>(lru_.size()) > max_size_) {
    index_.erase(lru_.back().first);
    lru_.pop_back();
  }
}

void FftPlanCache::clear() {
  std::list<Entry> dropped;
  std::lock_guard<std::mutex> lock(mutex_);
  index_.clear();
  dropped.swap(lru_);
}

FftPlanCache& cuda_fft_plan_cache(DeviceIndex index) {
  static std::array<FftPlanCache, 64> caches;
  CTORCH_INTERNAL_ASSERT(index >= 0 && index < 64, "cuda_fft_plan_cache: device index ", int(index));
  return caches[static_cast<size_t>(index)];
}

}  // namespace ctorch::api::ops
