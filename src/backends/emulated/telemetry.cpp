// Modelled telemetry and BLAS handles of the emulated runtime.
//
// Note [Emulated telemetry model]
// What NVML reads from sensors, an emulated device derives from its busy meters (Note [Emulated
// device activity], activity.h):
// - utilization: % of the last second in which a kernel or memset task ran on any of its streams;
// - memory_usage: % of the last second in which a copy or memset task ran;
// - temperature: kIdleTemperatureC + 0.4 C per % utilization, rounded (35 C idle, 75 C at 100%);
// - power_draw: kIdlePowerMw + 2.5 W per % utilization (25 W idle, 275 W at 100%), power cap
//   kPowerLimitMw (300 W);
// - clock_rate: a fixed SM clock, kSmClockMhz (1410 MHz, an A100's boost clock).
// These are a model, not measurements of the host. Another process (ctorch-smi) sees its own,
// idle, emulated devices: activity is not shared between processes.
#include <unistd.h>

#include <cmath>

#include "backends/emulated/device_state.h"
#include "backends/emulated/runtime.h"
#include "ctorch/version.h"

namespace ctorch::inline api::backends::emulated {
namespace {

constexpr unsigned kIdleTemperatureC = 35;
constexpr unsigned kIdlePowerMw = 25'000;
constexpr unsigned kPowerPerPercentMw = 2'500;
constexpr unsigned kPowerLimitMw = 300'000;
constexpr unsigned kSmClockMhz = 1410;

}  // namespace

impl::TelemetrySample EmulatedRuntime::telemetry(DeviceIndex index) {
  DeviceState& dev = device(index);
  const int64_t now = steady_now_ns();
  impl::TelemetrySample t;
  t.utilization = dev.activity.compute.percent(now);
  t.memory_usage = dev.activity.memory.percent(now);
  t.temperature = kIdleTemperatureC + (t.utilization * 2 + 2) / 5;  // + round(0.4 * utilization)
  t.power_draw = kIdlePowerMw + kPowerPerPercentMw * t.utilization;
  t.power_limit = kPowerLimitMw;
  t.clock_rate = kSmClockMhz;
  return t;
}

std::vector<impl::DeviceProcess> EmulatedRuntime::device_processes(DeviceIndex index) {
  DeviceState& dev = device(index);
  const size_t used = dev.arena->in_use();
  if (used == 0) return {};
  return {impl::DeviceProcess{static_cast<int64_t>(::getpid()), used}};
}

std::string EmulatedRuntime::driver_version() { return std::string("ctorch ") + ::ctorch::version() + " (emulated)"; }

void* EmulatedRuntime::blas_handle(DeviceIndex index, Stream s) {
  (void)device(index);  // validates the index
  (void)s;
  thread_local char tokens[kMaxDevices];  // one distinct address per (thread, device)
  return &tokens[index];
}

}  // namespace ctorch::api::backends::emulated
