// Busy-time accounting of emulated devices, the source of their modelled telemetry.
//
// Note [Emulated device activity]
// NVML's utilization is the percent of the last sample period (1/6 s to 1 s) in which one or
// more kernels ran; its memory utilization the percent in which device memory was read or
// written. An emulated device keeps two BusyMeters: `compute` covers kernel and memset tasks,
// `memory` covers copy and memset tasks (record, wait and synchronize tasks count for neither:
// a waiting stream is idle). Each stream worker brackets such a task with begin()/end() (two
// steady_clock reads per task, none per element); a meter is busy while at least one of the
// device's streams runs one of its tasks (the union over streams, not the sum). Busy time is
// kept in a ring of kBucketNs buckets, so percent() is exact over the last kWindowBuckets whole
// buckets plus the current one (a window of 1 s to 1.01 s) with constant memory. Time before the
// device existed counts as idle.
#pragma once

#include <array>
#include <cstdint>
#include <mutex>

namespace ctorch::inline api::backends::emulated {

/// Busy time of one kind of device activity (see the Note above). Thread-safe.
class BusyMeter {
 public:
  /// Width of one bucket: 10 ms.
  static constexpr int64_t kBucketNs = 10'000'000;
  /// Whole buckets in the sampling window (1 s).
  static constexpr int64_t kWindowBuckets = 100;

  /// A task of this kind starts at `now_ns` (steady clock).
  void begin(int64_t now_ns) noexcept;
  /// A task of this kind that began ends at `now_ns`.
  void end(int64_t now_ns) noexcept;
  /// Percent (0-100, rounded) of the window ending at `now_ns` in which a task of this kind ran.
  unsigned percent(int64_t now_ns) const noexcept;

 private:
  static constexpr int64_t kRing = 128;  // > kWindowBuckets + 1
  void add_locked(int64_t from, int64_t to) noexcept;

  mutable std::mutex mu_;
  // Guarded by mu_:
  int active_ = 0;           // tasks of this kind running now
  int64_t busy_since_ = 0;   // when active_ went from 0 to 1
  std::array<int64_t, kRing> bucket_{};  // bucket number stored in each slot
  std::array<int64_t, kRing> busy_{};    // busy ns of that bucket
};

/// Kinds of activity a stream task counts as (bits of ActivityKinds).
enum ActivityKind : uint8_t { kActivityNone = 0, kActivityCompute = 1, kActivityMemory = 2 };

/// The two meters of one emulated device.
struct DeviceActivity {
  BusyMeter compute;
  BusyMeter memory;
  /// Starts a task of `kinds` (ActivityKind bits) at `now_ns`.
  void begin(uint8_t kinds, int64_t now_ns) noexcept {
    if (kinds & kActivityCompute) compute.begin(now_ns);
    if (kinds & kActivityMemory) memory.begin(now_ns);
  }
  /// Ends a task of `kinds` at `now_ns`.
  void end(uint8_t kinds, int64_t now_ns) noexcept {
    if (kinds & kActivityCompute) compute.end(now_ns);
    if (kinds & kActivityMemory) memory.end(now_ns);
  }
};

/// steady_clock now, in nanoseconds.
int64_t steady_now_ns() noexcept;

}  // namespace ctorch::api::backends::emulated
