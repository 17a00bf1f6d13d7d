// Busy-time meters of emulated devices (Note [Emulated device activity] in activity.h).
#include "backends/emulated/activity.h"

#include <algorithm>
#include <chrono>

namespace ctorch::inline api::backends::emulated {

int64_t steady_now_ns() noexcept {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

void BusyMeter::begin(int64_t now_ns) noexcept {
  std::lock_guard<std::mutex> lock(mu_);
  if (active_++ == 0) busy_since_ = now_ns;
}

void BusyMeter::end(int64_t now_ns) noexcept {
  std::lock_guard<std::mutex> lock(mu_);
  if (active_ <= 0) return;
  if (--active_ == 0) add_locked(busy_since_, now_ns);
}

void BusyMeter::add_locked(int64_t from, int64_t to) noexcept {
  // Only the last kRing buckets can still be read.
  from = std::max(from, (to / kBucketNs - (kRing - 1)) * kBucketNs);
  for (int64_t b = from / kBucketNs; from < to; ++b) {
    const int64_t stop = std::min(to, (b + 1) * kBucketNs);
    const size_t slot = static_cast<size_t>(b % kRing);
    if (bucket_[slot] != b) {
      bucket_[slot] = b;
      busy_[slot] = 0;
    }
    busy_[slot] += stop - from;
    from = stop;
  }
}

unsigned BusyMeter::percent(int64_t now_ns) const noexcept {
  std::lock_guard<std::mutex> lock(mu_);
  const int64_t last = now_ns / kBucketNs, first = last - kWindowBuckets;
  const int64_t window_start = first * kBucketNs;
  int64_t busy = 0;
  for (int64_t b = first; b <= last; ++b) {
    const size_t slot = static_cast<size_t>(b % kRing);
    if (bucket_[slot] == b) busy += busy_[slot];
  }
  if (active_ > 0) busy += now_ns - std::max(busy_since_, window_start);
  const int64_t span = now_ns - window_start;
  if (span <= 0) return 0;
  return static_cast<unsigned>(std::min<int64_t>(100, (busy * 100 + span / 2) / span));
}

}  // namespace ctorch::api::backends::emulated
