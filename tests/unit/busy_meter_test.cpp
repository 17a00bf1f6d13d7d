// The busy meters behind emulated telemetry (Note [Emulated device activity]), on explicit
// timestamps: exact, and no sleeping.
#include <gtest/gtest.h>

#include "backends/emulated/activity.h"

namespace ctorch::inline api::backends::emulated {
namespace {

constexpr int64_t kMs = 1'000'000;
constexpr int64_t kT0 = 1'000'000 * kMs;  // a bucket boundary well after the clock's origin

TEST(BusyMeter, IdleIsZero) {
  BusyMeter m;
  EXPECT_EQ(m.percent(kT0), 0u);
  EXPECT_EQ(m.percent(kT0 + 5 * kMs), 0u);
}

TEST(BusyMeter, OneTaskCountsItsShareOfTheLastSecond) {
  BusyMeter m;
  m.begin(kT0 + 100 * kMs);
  m.end(kT0 + 350 * kMs);
  // The window starts 100 whole 10 ms buckets before now's bucket: at kT0 + 1000 ms it is [kT0, now].
  EXPECT_EQ(m.percent(kT0 + 1000 * kMs), 25u);
  EXPECT_EQ(m.percent(kT0 + 1090 * kMs), 25u) << "still inside the window";
  EXPECT_EQ(m.percent(kT0 + 1200 * kMs), 15u) << "the first 100 ms of the task left the window";
  EXPECT_EQ(m.percent(kT0 + 1400 * kMs), 0u) << "the task left the window";
}

TEST(BusyMeter, OverlappingTasksCountOnce) {
  BusyMeter m;  // two streams: [0, 400) and [200, 600) are busy [0, 600)
  m.begin(kT0);
  m.begin(kT0 + 200 * kMs);
  m.end(kT0 + 400 * kMs);
  m.end(kT0 + 600 * kMs);
  EXPECT_EQ(m.percent(kT0 + 1000 * kMs), 60u);
}

TEST(BusyMeter, RunningTaskCountsUpToNow) {
  BusyMeter m;
  m.begin(kT0);
  EXPECT_EQ(m.percent(kT0 + 500 * kMs), 50u) << "busy for the last 500 ms of the 1 s window";
  EXPECT_EQ(m.percent(kT0 + 3000 * kMs), 100u) << "a task longer than the window saturates it";
  m.end(kT0 + 3000 * kMs);
  EXPECT_EQ(m.percent(kT0 + 3500 * kMs), 50u);
}

TEST(BusyMeter, LongIdleGapForgetsOldBuckets) {
  BusyMeter m;
  m.begin(kT0);
  m.end(kT0 + 900 * kMs);
  // 1280 ms later the ring slots are reused; old busy time must not come back.
  m.begin(kT0 + 2180 * kMs);
  m.end(kT0 + 2190 * kMs);
  EXPECT_EQ(m.percent(kT0 + 3000 * kMs), 1u);
}

TEST(DeviceActivity, KindsSelectTheMeters) {
  DeviceActivity a;
  a.begin(kActivityCompute, kT0);
  a.end(kActivityCompute, kT0 + 500 * kMs);
  a.begin(kActivityCompute | kActivityMemory, kT0 + 500 * kMs);
  a.end(kActivityCompute | kActivityMemory, kT0 + 700 * kMs);
  a.begin(kActivityNone, kT0 + 700 * kMs);  // a wait: neither
  a.end(kActivityNone, kT0 + 1000 * kMs);
  EXPECT_EQ(a.compute.percent(kT0 + 1000 * kMs), 70u);
  EXPECT_EQ(a.memory.percent(kT0 + 1000 * kMs), 20u);
}

}  // namespace
}  // namespace ctorch::api::backends::emulated
